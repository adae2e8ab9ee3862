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
    return {"replace": plan}


def _take_cube(d: State, player: str, avoid: str | None) -> bool:
    """A cube from the supply, or (running out) a non-permanent cube taken back from an island."""
    p = d["p"][player]
    if p["cubes"] > 0:
        p["cubes"] -= 1
        return True
    for sq in SQUARES:
        isl = d["grid"][sq]["island"]
        if sq != avoid and isl and player in isl["cubes"]:
            isl["cubes"][isl["cubes"].index(player)] = None
            recheck_control(d, sq, [])
            return True
    return False


def place_influence(d: State, player: str, plan: list[str | None], out: list[dict[str, Any]]) -> None:
    sq = d["p"][player]["ship"]["at"]
    isl = island_at(d, sq)
    assert isl is not None  # the check allowed Influence only at an island
    for target in plan:
        if target is None:
            if None not in isl["cubes"] or not _take_cube(d, player, sq):
                continue
            isl["cubes"][isl["cubes"].index(None)] = player
        else:
            if d["p"][target]["final_done"] and not isl["strikes"].get(target):
                isl["strikes"][target] = 1
                continue
            if target not in isl["cubes"] or not _take_cube(d, player, sq):
                continue
            isl["strikes"].pop(target, None)
            isl["cubes"][isl["cubes"].index(target)] = player
            d["p"][target]["cubes"] += 1
        recheck_control(d, sq, out)


def recheck_control(d: State, sq: str, out: list[dict[str, Any]]) -> None:
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
    if new is not None and _take_cube(d, new, sq):
        isl["permanent"][new] = isl["permanent"].get(new, 0) + 1
    notice(out, "control_changed", square=sq, controller=new, previous=old)
