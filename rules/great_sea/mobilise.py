"""Mobilise (rulebook: "Mobilise", "Moving Ships", "Initiating Combat").

"1st Effect: Use pips to move Ships using their Speed to or from 1 region. 2nd Effect: Use 1 pip to
initiate a Combat (max once). 3rd Effect: Use any remaining pips to gain extra Mobility in Combat."
A pip's move is either into one region from any regions, or out of one region into any regions. Never the
same Ship twice in one action, never past the Fleet Limit, never into an opponent's home region, never a
Damaged Ship. Speed: the Ship's icons plus Speed icons of the player's Forts in the region it leaves.
"""

from __future__ import annotations

from typing import Any

from rules.core.actions import Action
from rules.core.errors import Illegal, Invalid
from rules.core.events import notice
from rules.great_sea.combat import start_combat
from rules.great_sea.control import present
from rules.great_sea.develop import fleet_limit, fleet_used, size
from rules.great_sea.map import reachable
from rules.great_sea.model import Player, Region, State
from rules.great_sea.start_of_turn import move_ship, region, ship_class
from rules.great_sea.temples import recheck
from rules.great_sea.upgrades import fort_stats, ship_stats
from rules.great_sea.worker import open_step, step_done


def speed(reg: Region, p: Player, color: str, cls: str) -> int:
    s = ship_stats(p, cls).get("speed", 0)
    for f in reg["forts"]:
        if f[0] == color:
            s += fort_stats(p, f[1]).get("speed", 0)
    return s


def blocked(d: State, color: str) -> frozenset[str]:
    """Opponents' home regions (a region's `home` is set for the players' homes only)."""
    return frozenset(q["home"] for c, q in d["p"].items() if c != color)


def _pips(d: State) -> int:
    op = d["turn"]["open"]
    assert op is not None
    return op["pips"]


def check_move(d: State, player: str, action: dict[str, Any]) -> dict[str, Any]:
    p = open_step(d, player, 6, 0)
    if _pips(d) < 1:
        raise Illegal("no pip is left on your Mobilise Die.")
    target, norm = check_moves(d, player, p, action)
    return {"type": "move", "region": target, "moves": norm}


def check_moves(d: State, player: str, p: Player, action: dict[str, Any]) -> tuple[str, list[list[str]]]:
    """One pip's worth of movement ("Move any number of Ships into that region from any number of regions,
    or Move any number of Ships out of that region into any number of regions"): the region and the moves."""
    target = region(d, action.get("region"))
    moves = action.get("moves")
    if not isinstance(moves, list) or not moves:
        raise Invalid("say the moves: a list of [from, to, class], all into or all out of the region.")
    norm: list[list[str]] = []
    for m in moves:
        if not isinstance(m, list) or len(m) != 3:
            raise Invalid("each move is [from, to, class], e.g. ['r0c1', 'r1c1', 'small'].")
        norm.append([region(d, m[0]), region(d, m[1]), ship_class(m[2])])
    into = out_of = True
    for m in norm:
        if m[1] != target:
            into = False
        if m[0] != target:
            out_of = False
    if not (into or out_of):
        raise Illegal(f"one pip moves Ships either into {target} or out of {target}, not both ways.")
    block = blocked(d, player)
    regions = d["regions"]
    avail: dict[tuple[str, str], int] = {}
    added: dict[str, int] = {}
    for a, b, cls in norm:
        if a == b:
            raise Illegal("a move must change region.")
        key = (a, cls)
        if key not in avail:
            n = 0
            for s in regions[a]["ships"]:
                if s["owner"] == player and s["cls"] == cls and not s["damaged"] and not s["moved"]:
                    n += 1
            avail[key] = n
        avail[key] -= 1
        if avail[key] < 0:
            raise Illegal(
                f"you have no more undamaged {cls} Ships in {a} that have not moved this action "
                "(a Ship never moves twice in one Mobilise action; Damaged Ships cannot move)."
            )
        if b in block:
            raise Illegal("players may never move Ships into an opponent's home region.")
        sp = speed(regions[a], p, player, cls)
        if b not in reachable(d["map"], a, sp, block):
            raise Illegal(f"a {cls} Ship in {a} has Speed {sp}: {b} is out of its reach.")
        n = size(p, cls)
        added[b] = added.get(b, 0) + n
        added[a] = added.get(a, 0) - n
    for b, n in added.items():
        if n <= 0:
            continue  # fewer or as many Ships there as before
        reg = regions[b]
        lim = fleet_limit(reg, p, player)
        if lim is not None and fleet_used(reg, p, player) + n > lim:
            raise Illegal(f"your Ships in {b} would exceed your Fleet Limit of {lim}.")
    return target, norm


def move(d: State, player: str, a: dict[str, Any], out: list[dict[str, Any]]) -> None:
    op = d["turn"]["open"]
    assert op is not None
    op["pips"] -= 1
    for f, t, cls in a["moves"]:
        move_ship(d, player, f, t, cls, mark=True)
    notice(out, "ships_moved", player=player, moves=a["moves"])
    recheck(d, out)


def check_initiate(d: State, player: str, action: dict[str, Any]) -> dict[str, Any]:
    open_step(d, player, 6, 1)
    if _pips(d) < 1:
        raise Illegal("initiating a Combat uses 1 pip and none is left on your Mobilise Die.")
    r = region(d, action.get("region"))
    opp = action.get("opponent")
    if not isinstance(opp, str) or opp not in d["p"] or opp == player:
        raise Invalid(f"say the opponent: one of {', '.join(c for c in d['players'] if c != player)}.")
    reg = d["regions"][r]
    if not present(reg, player):
        raise Illegal(f"you have no Ship or Fort in {r}.")
    if not present(reg, str(opp)):
        raise Illegal(f"{opp} has no Ship or Fort in {r}.")
    return {"type": "initiate_combat", "region": r, "opponent": opp, "mobility": _pips(d) - 1}


def initiate_combat(d: State, player: str, a: dict[str, Any], out: list[dict[str, Any]]) -> None:
    op = d["turn"]["open"]
    assert op is not None
    op["pips"] = 0
    step_done(d, 3)
    start_combat(d, player, a["opponent"], a["region"], a["mobility"], out)


ACTIONS = (
    Action("move", check_move, move),
    Action("initiate_combat", check_initiate, initiate_combat, undoable=False),
)
