"""Islands and Influence (rulebook: "Islands", "Influence" and island control): whose cube is where, who
controls an island (`who_controls`: more cubes than anyone else and than the empty slots), Pirate-
mode ships and blockades, placing Influence (replacing cubes when full, running out of cubes), and
Buildings removed when control passes.
"""

from __future__ import annotations

from typing import Any

from contracts.grid import HARBOR, SQUARES
from rules.core.errors import Ambiguous, Illegal, Invalid
from rules.core.events import notice
from rules.dead_reckoning.buildings import fortified_against
from rules.dead_reckoning.cards import BUILDINGS
from rules.dead_reckoning.model import Island, State


def island_at(d: State, square: str) -> Island | None:
    if square == HARBOR:
        return None
    return d["grid"][square]["island"]


def controlled_by(d: State, square: str) -> str | None:
    isl = island_at(d, square)
    return isl["controller"] if isl else None


def cube_counts(isl: Island) -> dict[str, int]:
    counts: dict[str, int] = {}
    for c in isl["cubes"]:
        if c:
            counts[c] = counts.get(c, 0) + 1
    for c, n in isl["permanent"].items():
        if n:
            counts[c] = counts.get(c, 0) + n
    return counts


def who_controls(isl: Island) -> str | None:
    """More cubes than any other player (permanent ones count) and more than the empty slots."""
    counts = cube_counts(isl)
    empty = isl["cubes"].count(None)
    best, best_n, tie = None, -1, False
    for c, n in counts.items():
        if n > best_n:
            best, best_n, tie = c, n, False
        elif n == best_n:
            tie = True
    if best is None or tie or best_n <= empty:
        return None
    return best


def pirates_at(d: State, square: str, color: str) -> list[str]:
    out: list[str] = []
    if square == HARBOR:
        return out
    ps = d["p"]
    for c in d["players"]:
        if c != color and ps[c]["ship"]["at"] == square and ps[c]["ship"]["pirate"]:
            out.append(c)
    return out


def blockaded(d: State, square: str, color: str) -> bool:
    """An opponent's Pirate-mode Ship at the island blocks it until the active player beats it."""
    beaten = d["turn"]["beaten"]
    for c in pirates_at(d, square, color):
        if c not in beaten:
            return True
    return False


def check_influence(d: State, player: str, n: int, args: dict[str, Any]) -> dict[str, Any]:
    p = d["p"][player]
    at = p["ship"]["at"]
    isl = island_at(d, at)
    if not isl:
        raise Illegal("Influence is placed only while your Ship is at an island.")
    if blockaded(d, at, player):
        raise Illegal("an opponent's Pirate-mode Ship blockades this island: beat it in battle first.")
    if fortified_against(d, at, player):
        raise Illegal("an opponent's Fort or Garrison guards this island: you cannot place cubes there.")
    targets = args.get("replace", [])
    if not isinstance(targets, list):
        raise Invalid("'replace' must list the colours whose cubes you replace, one per cube.")
    sim = list(isl["cubes"])
    strikes = dict(isl["strikes"])
    plan: list[str | None] = []
    ti = 0
    for _ in range(n):
        if None in sim:
            sim[sim.index(None)] = player
            plan.append(None)
            continue
        others = sorted({c for c in sim if c is not None and c != player})
        if not others:
            break  # every slot holds your cubes: nothing more can be placed
        if ti < len(targets):
            t = targets[ti]
            ti += 1
            if t not in others:
                raise Illegal(
                    f"there is no {t} cube on this island to replace (you may replace: {', '.join(others)})."
                )
        elif len(others) == 1:
            t = others[0]
        else:
            raise Ambiguous(
                f"the island is full: say whose cube to replace ('replace'), one of {', '.join(others)}.",
                others,
            )
        plan.append(t)
        if d["p"][t]["final_done"] and not strikes.get(t):
            strikes[t] = 1  # doubled protection after a final turn: this placement only weakens the cube
            continue
        strikes.pop(t, None)
        sim[sim.index(t)] = player
    take_from = check_take_from(d, player, at, args.get("take_from", []))
    # named only when the player named islands: the logged action stays as it was without
    return {"replace": plan, "take_from": take_from} if take_from else {"replace": plan}


def cube_sources(d: State, player: str, avoid: str | None) -> list[str]:
    """The islands (board order) holding a non-permanent cube of `player` that could be taken back when
    their supply runs out ("you may remove one of your non-permanent cubes from any island"), one entry
    per cube; `avoid` is the island the cube is for."""
    out: list[str] = []
    for sq in SQUARES:
        isl = d["grid"][sq]["island"]
        if sq != avoid and isl:
            out += [sq] * isl["cubes"].count(player)
    return out


def check_take_from(d: State, player: str, avoid: str | None, take_from: Any) -> list[str]:
    """The islands the player names to take cubes back from once their supply runs out, in order: each an
    island (not the one the cubes are for) with that many of their non-permanent cubes."""
    if not isinstance(take_from, list) or not all(isinstance(sq, str) for sq in take_from):
        raise Invalid(
            "'take_from' must list island squares (e.g. [\"r1c2\"]), one per cube taken back when your "
            "supply runs out."
        )
    if not take_from:
        return []  # (most placements: the supply has the cubes, so no island is named)
    left = cube_sources(d, player, avoid)
    for sq in take_from:
        if sq not in left:
            raise Illegal(
                f"{sq!r} has no more of your non-permanent cubes to take back"
                + (" (it is the island the cube is for)" if sq == avoid else "")
                + f": choose among {', '.join(sorted(set(left))) or 'none'}."
            )
        left.remove(sq)
    return list(take_from)


def _take_cube(d: State, player: str, avoid: str | None, take_from: list[str] | None = None) -> bool:
    """A cube from the supply, or (running out) a non-permanent cube taken back from an island: the next
    one the player named in `take_from` (consumed), else the first in board order."""
    p = d["p"][player]
    if p["cubes"] > 0:
        p["cubes"] -= 1
        return True
    while take_from:
        sq = take_from.pop(0)
        isl = d["grid"][sq]["island"]
        if sq != avoid and isl and player in isl["cubes"]:
            isl["cubes"][isl["cubes"].index(player)] = None
            recheck_control(d, sq, [])
            return True
    for sq in SQUARES:
        isl = d["grid"][sq]["island"]
        if sq != avoid and isl and player in isl["cubes"]:
            isl["cubes"][isl["cubes"].index(player)] = None
            recheck_control(d, sq, [])
            return True
    return False


def place_influence(
    d: State,
    player: str,
    plan: list[str | None],
    out: list[dict[str, Any]],
    take_from: list[str] | None = None,
) -> None:
    """Place the planned cubes; `take_from` names the islands to take cubes back from once the supply
    runs out (for these cubes and for a permanent cube on gaining control here)."""
    take_from = list(take_from or [])
    sq = d["p"][player]["ship"]["at"]
    isl = island_at(d, sq)
    assert isl is not None  # the check allowed Influence only at an island
    for target in plan:
        if target is None:
            if None not in isl["cubes"] or not _take_cube(d, player, sq, take_from):
                continue
            isl["cubes"][isl["cubes"].index(None)] = player
        else:
            if d["p"][target]["final_done"] and not isl["strikes"].get(target):
                isl["strikes"][target] = 1
                continue
            if target not in isl["cubes"] or not _take_cube(d, player, sq, take_from):
                continue
            isl["strikes"].pop(target, None)
            isl["cubes"][isl["cubes"].index(target)] = player
            d["p"][target]["cubes"] += 1
        recheck_control(d, sq, out, take_from)


def recheck_control(d: State, sq: str, out: list[dict[str, Any]], take_from: list[str] | None = None) -> None:
    isl = d["grid"][sq]["island"]
    assert isl is not None  # only islands are rechecked
    new = who_controls(isl)
    old = isl["controller"]
    if new == old:
        return
    isl["controller"] = new
    # "Whenever control of an island changes from one player to another, remove all Buildings": the
    # Buildings are the player's who controlled the island when they were built, so control passing to
    # another player by way of nobody (red -> none -> blue) removes them too; while nobody controls the
    # island they stay, remembered as `built_by`, and come back into use if their owner regains control.
    owner = old if old is not None else isl.pop("built_by", None)
    if new is None:
        if owner is not None and any(isl["buildings"].values()):
            isl["built_by"] = owner
    elif owner is not None and owner != new:
        for b in BUILDINGS:  # control passed from one player to another: the Buildings go
            if isl["buildings"][b]:
                isl["buildings"][b] = False
                d["supply"][b] += 1
    if new is not None and _take_cube(d, new, sq, take_from):
        isl["permanent"][new] = isl["permanent"].get(new, 0) + 1
    notice(out, "control_changed", square=sq, controller=new, previous=old)
