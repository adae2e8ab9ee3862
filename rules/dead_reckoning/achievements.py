"""Achievements (rulebook: "Achievements" and the Bonus Achievement tokens): markers placed when one is met,
the cubes that count toward Legendary, Explorer and Expert Sailors, and the optional Bonus tokens
(`deal_bonus`, a chance outcome, and `choose_bonus`). Starred achievements wait for the player's own turn.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any

from contracts.grid import SQUARES
from rules.core.actions import Action
from rules.core.errors import Illegal, Invalid
from rules.core.events import notice
from rules.dead_reckoning.cards import ACHIEVEMENTS, catalog
from rules.dead_reckoning.islands import cube_sources
from rules.dead_reckoning.model import State
from rules.dead_reckoning.phases import need_pending


def achieved(d: State, color: str) -> list[str]:
    out = []
    achs = d["achievements"]
    for a in ACHIEVEMENTS:  # a plain loop: a comprehension is a call of its own (run at every turn's end)
        if color in achs[a]:
            out.append(a)
    return out


def check_deal_bonus(d: State, player: str, a: dict[str, Any]) -> dict[str, Any]:
    req = need_pending(d, "deal_bonus")
    toks = a.get("tokens")
    if (
        not isinstance(toks, list)
        or len(toks) != 2
        or not all(isinstance(t, int) for t in toks)
        or len(set(toks)) != 2
    ) or any(t not in d["bonus_pool"] for t in toks):
        raise Illegal("deal two different Bonus Achievement tokens that are still in the pool.")
    return {"type": "deal_bonus", "player_dealt": req["player"], "tokens": list(toks)}


def do_deal_bonus(d: State, player: str, a: dict[str, Any], out: list[dict[str, Any]]) -> None:
    d["pending"].pop(0)
    for t in a["tokens"]:
        d["bonus_pool"].remove(t)
    d["p"][a["player_dealt"]]["bonus_offer"] = list(a["tokens"])


def cubes_toward(d: State, color: str, ach: str) -> int:
    """The cubes `color` has on an achievement, counting those owed to their choice (`cubes_owed`)."""
    n = d["achievement_cubes"][ach].get(color, 0)
    owed = d["p"][color].get("cubes_owed")
    return n + owed.count(ach) if owed else n


def earn_cube(d: State, color: str, ach: str, cap: int, out: list[dict[str, Any]]) -> None:
    """ "place one of your cubes on this Achievement" (Legendary, Expert Sailors, Explorer), up to `cap`
    cubes: from the supply; with an empty supply, "you may remove one of your non-permanent cubes from any
    island and use that as the cube you need", so the cube is owed to the player's choice (`choices`, kind
    `achievement_cube`: which island, or none); with no island cube either, nothing is placed."""
    p = d["p"][color]
    if color in d["achievements"][ach] or cubes_toward(d, color, ach) >= cap:
        return
    if p["cubes"] > 0:
        p["cubes"] -= 1
        cubes = d["achievement_cubes"][ach]
        cubes[color] = cubes.get(color, 0) + 1
    elif cube_sources(d, color, None):
        p["cubes_owed"] = [*p.get("cubes_owed", []), ach]
        notice(out, "achievement_cube_owed", player=color, achievement=ach)


def drop_owed_cubes(d: State, color: str, ach: str | None = None) -> list[str]:
    """Forget the cubes owed to `color`'s choice (for `ach`, or all); returns the achievements dropped."""
    p = d["p"][color]
    owed = p.get("cubes_owed")
    if not owed:
        return []
    keep = [a for a in owed if ach is not None and a != ach]
    if keep:
        p["cubes_owed"] = keep
    else:
        del p["cubes_owed"]
    return [a for a in owed if ach is None or a == ach]


def place_marker(d: State, color: str, ach: str, out: list[dict[str, Any]]) -> None:
    p = d["p"][color]
    if color in d["achievements"][ach] or p["markers"] <= 0:
        return
    d["achievements"][ach].append(color)
    p["markers"] -= 1
    if ach in d["achievement_cubes"]:
        p["cubes"] += d["achievement_cubes"][ach].pop(color, 0)
        drop_owed_cubes(d, color, ach)  # the marker is placed: a cube still owed to it is no longer needed
    notice(out, "achievement", player=color, achievement=ach)


# What each achievement reads of its player's part of the state (its inputs, by name; `INPUTS` reads them).
# An action that changes none of an achievement's inputs cannot complete it, so an effect that declares what
# it changes (next to its own code: `cargo.UNLOAD_CHANGES`, `abilities.EFFECT_CHANGES`, `sailors`'
# `LEVEL_UP_CHANGES`) has only the achievements reading those inputs checked after it (`affected`); a turn's
# start checks them all. tests/rules/dead_reckoning/test_achievement_inputs.py plays random games (base and
# Letters of Marque) and fails when an effect changes an input it does not declare, or when a narrowed check
# places other markers than the full one. Markers are never given back, so the supply of markers is no input.
ACHIEVEMENT_INPUTS: Mapping[str, frozenset[str]] = {
    "legendary": frozenset({"cubes"}),
    "expert_sailors": frozenset({"levels"}),
    "terror_of_the_sea": frozenset({"sank"}),
    "capitalist": frozenset({"chest"}),
    "elite_vessel": frozenset({"hull"}),
    "explorer": frozenset({"cubes", "boards"}),
    "builder": frozenset({"islands"}),
    "settler": frozenset({"islands"}),
}


def _islands(d: State, color: str) -> list[Any]:
    return [
        (isl["controller"], dict(isl["buildings"]), isl["permanent"].get(color, 0))
        for isl in (g["island"] for g in d["grid"].values())
        if isl
    ]


# the inputs as values, for the tests that hold each effect to what it declares
INPUTS: Mapping[str, Callable[[State, str], Any]] = {
    "cubes": lambda d, c: (
        {a: n[c] for a, n in d["achievement_cubes"].items() if c in n},
        d["p"][c].get("cubes_owed"),
    ),
    "levels": lambda d, c: {cid: card["level"] for cid, card in d["p"][c]["cards"].items()},
    "sank": lambda d, c: d["p"][c]["sank"],
    "chest": lambda d, c: d["p"][c]["chest"],
    "hull": lambda d, c: [len(stack) for stack in d["p"][c]["ship"]["hull"]],
    "boards": lambda d, c: [g["board"] is None for g in d["grid"].values()],
    "islands": _islands,
}


def affected(changes: Iterable[str]) -> frozenset[str]:
    """The achievements reading any of these inputs: those an effect changing them may complete."""
    ch = frozenset(changes)
    return frozenset(a for a, reads in ACHIEVEMENT_INPUTS.items() if reads & ch)


def check_achievements(
    d: State, color: str, out: list[dict[str, Any]], only: frozenset[str] | None = None
) -> None:
    """Place markers for achievements met; only on the player's own turn (starred ones wait for it).
    `only`: the achievements the caller's effect may have completed (`affected` by what it declares it
    changes); None: all of them. The tests of one comparison run in any case; `only` spares the ones that
    count Sailor cards and scan the grid."""
    if d["active"] != color or d["phase"] != "main":
        return
    p = d["p"][color]
    cubes = d["achievement_cubes"]
    achs = d["achievements"]
    if color not in achs["legendary"] and cubes["legendary"].get(color, 0) >= 4:
        place_marker(d, color, "legendary", out)
    # (plain loops: a comprehension is a call of its own, and this runs after most actions)
    if color not in achs["expert_sailors"] and (only is None or "expert_sailors" in only):
        level4 = 0
        for c in p["cards"].values():
            if c["level"] == 4:
                level4 += 1
        if level4 >= 3:
            place_marker(d, color, "expert_sailors", out)
    if color not in achs["terror_of_the_sea"] and p["sank"]:
        place_marker(d, color, "terror_of_the_sea", out)
    if color not in achs["capitalist"] and p["chest"] >= 30:
        place_marker(d, color, "capitalist", out)
    if color not in achs["elite_vessel"] and sum(map(len, p["ship"]["hull"])) >= 4:
        place_marker(d, color, "elite_vessel", out)
    grid = d["grid"]
    mine = cubes["explorer"].get(color, 0)
    # without an Explorer cube, placed or owed, there is nothing to mark and nothing to give back
    if color not in achs["explorer"] and (mine or "cubes_owed" in p):
        need = catalog(d).explorer_needed[str(len(d["players"]))]
        if mine >= need:
            place_marker(d, color, "explorer", out)
        elif _explorer_out_of_reach(
            d, need - mine - (p["cubes_owed"].count("explorer") if "cubes_owed" in p else 0)
        ):
            p["cubes"] += cubes["explorer"].pop(color, 0)
            drop_owed_cubes(d, color, "explorer")
    builder, settler = color not in achs["builder"], color not in achs["settler"]
    if (builder or settler) and (only is None or "builder" in only or "settler" in only):
        buildings = perm = 0
        for g in grid.values():  # every square of the grid (order does not matter for the sums)
            isl = g["island"]
            if isl:
                if isl["permanent"]:
                    perm += isl["permanent"].get(color, 0)
                if isl["controller"] == color:
                    bs = isl["buildings"]
                    buildings += bs["fort"] + bs["garrison"] + bs["outpost"]
        if builder and buildings >= 5:
            place_marker(d, color, "builder", out)
        if settler and perm >= 6:
            place_marker(d, color, "settler", out)


def _explorer_out_of_reach(d: State, short: int) -> bool:
    """Fewer face-down boards left than Ocean boards still to explore: Explorer can no longer be met."""
    if short <= 0:
        return False  # the cubes owed to the player's choice already make up the number
    grid = d["grid"]
    for sq in SQUARES:
        if grid[sq]["board"] is None:
            short -= 1
            if not short:
                return False
    return True


def release_explorer_cubes(d: State, out: list[dict[str, Any]]) -> None:
    """ "If it is no longer possible to meet the requirements, return all the cubes here back to your
    supply": checked for every player the moment a board is turned face up (by whoever explores it), not
    at each player's next action."""
    cubes = d["achievement_cubes"]["explorer"]
    need = catalog(d).explorer_needed[str(len(d["players"]))]
    for color in d["players"]:
        mine = cubes.get(color, 0)
        toward = cubes_toward(d, color, "explorer")  # a cube owed to the player's choice counts too
        if (
            toward
            and color not in d["achievements"]["explorer"]
            and mine < need
            and _explorer_out_of_reach(d, need - toward)
        ):
            d["p"][color]["cubes"] += cubes.pop(color, 0)
            drop_owed_cubes(d, color, "explorer")
            notice(out, "explorer_cubes_returned", player=color, cubes=mine)


def check_choose_bonus(d: State, player: str, a: dict[str, Any]) -> dict[str, Any]:
    if player not in d["players"]:
        raise Invalid("only a player keeps a Bonus Achievement token.")
    p = d["p"][player]
    if p["bonus"] is not None or not p["bonus_offer"]:
        raise Illegal("you have no Bonus Achievement tokens to choose from.")
    if a.get("token") not in p["bonus_offer"]:
        raise Illegal(f"choose one of your two dealt tokens: {p['bonus_offer']}.")
    return {"type": "choose_bonus", "token": a["token"]}


def do_choose_bonus(d: State, player: str, a: dict[str, Any], out: list[dict[str, Any]]) -> None:
    p = d["p"][player]
    p["bonus"] = a["token"]
    for t in p["bonus_offer"]:
        if t != a["token"]:
            d["bonus_pool"].append(t)
    p["bonus_offer"] = []


ACTIONS: tuple[Action[State], ...] = (
    Action("deal_bonus", check_deal_bonus, do_deal_bonus, chance=True),
    Action("choose_bonus", check_choose_bonus, do_choose_bonus),
)
