"""Fortify (rulebook: "Fortify").

"1st Effect: Place 1 Fort (Control required). 2nd Effect: After placing a Fort, gain Trade Points based on
the number of Trade Posts owned (a Fort must be placed to use this effect)." Forts come off the Player
Board left to right; the next one's column needs the Fortify Die (less 1 per Fortify Die reduction icon on
that class's grid). The Foundation's benefit (2 Coins, 2 Wood or 1 pip) is gained once per Foundation
modifier. One `fortify` action resolves both effects (the second has no choice in it).
"""

from __future__ import annotations

from typing import Any

from rules.core.actions import Action
from rules.core.errors import Illegal, Invalid
from rules.core.events import notice
from rules.great_sea.control import controls, posts_on_map
from rules.great_sea.data import DICE, FORTS, board
from rules.great_sea.dice import check_pip, gain_pip, may_raise, value
from rules.great_sea.end_of_game import advance
from rules.great_sea.model import Player, State, gain
from rules.great_sea.start_of_turn import region
from rules.great_sea.temples import recheck
from rules.great_sea.upgrades import fort_stats
from rules.great_sea.worker import open_step, step_done


def fort_requirement(p: Player, cls: str) -> int | None:
    """The Fortify Die value the next Fort of `cls` needs (None: none left, not even in the Main Supply)."""
    spec = board()["forts"][cls]
    cols: list[int] = spec["columns"]
    left = p["forts"][cls]
    if left:
        need = cols[len(cols) - left]
    elif p["forts_supply"][cls]:
        need = cols[-1]  # "Rare case": one removed to the Main Supply; the last column's value (docs)
    else:
        return None
    return max(0, need - fort_stats(p, cls).get("fortify_reduction", 0))


def trade_points_for(posts: int) -> int:
    table: list[int] = board()["trade_points"]
    return table[min(posts, len(table) - 1)]


def default_pip_die(p: Player) -> str | None:
    """Where a Foundation's pip goes when the player names no Die: the lowest Die that may rise."""
    ok = [i for i in range(6) if may_raise(p, i)]
    return DICE[min(ok, key=lambda i: (p["dice"][i], i))] if ok else None


def check_fortify(d: State, player: str, action: dict[str, Any]) -> dict[str, Any]:
    p = open_step(d, player, 2, 0)
    return {**check_place(d, player, p, action), "type": "fortify"}


def check_place(d: State, player: str, p: Player, action: dict[str, Any]) -> dict[str, Any]:
    """The tests of placing a Fort: Control, a free Foundation, the next Fort's column within the Fortify
    Die; the normalised placing (benefit, times, named Dice)."""
    r = region(d, action.get("region"))
    cls = action.get("fort")
    if cls not in FORTS:
        raise Invalid("say fort 'stronghold' or 'outpost'.")
    reg = d["regions"][r]
    if not controls(reg, player):
        raise Illegal(f"placing a Fort needs Control of {r}.")
    if not reg["foundations"]:
        raise Illegal(f"{r} has no available Foundation.")
    need = fort_requirement(p, cls)
    if need is None:
        raise Illegal(f"all your {cls}s are already on the Main Board.")
    have = value(p, 2)
    if have < need:
        raise Illegal(f"your next {cls} needs a Fortify Die of {need}; yours is {have}.")
    i = action.get("foundation", 0)
    if not isinstance(i, int) or not 0 <= i < len(reg["foundations"]):
        raise Invalid(f"{r} has {len(reg['foundations'])} free Foundation(s): say foundation 0.. .")
    benefit = reg["foundations"][i]
    times = fort_stats(p, cls).get("foundation", 0)  # the printed x1 unless covered
    out = {"type": "fortify", "region": r, "fort": cls, "foundation": i, "benefit": benefit, "times": times}
    if benefit == "pip" and "dice" in action:
        # the player names the Die of each pip gained; unnamed ones go on the lowest Die that may rise
        dice = action["dice"]
        if not isinstance(dice, list) or len(dice) > times:
            raise Invalid(f"this Foundation gives {times} pip(s): list at most {times} Dice in 'dice'.")
        trial: Player = {**p, "dice": list(p["dice"])}
        for die in dice:
            gain_pip(trial, check_pip(trial, die))
        out["dice"] = list(dice)
    return out


def place_fort(d: State, player: str, a: dict[str, Any], out: list[dict[str, Any]]) -> None:
    """Place a Fort checked by `check_place` and gain its Foundation's benefit (times the modifier)."""
    p = d["p"][player]
    cls = a["fort"]
    reg = d["regions"][a["region"]]
    if p["forts"][cls]:
        p["forts"][cls] -= 1
    else:
        p["forts_supply"][cls] -= 1
    reg["forts"].append([player, cls])
    reg["foundations"].pop(a["foundation"])
    named = list(a.get("dice", []))
    for _ in range(a["times"]):
        if a["benefit"] == "pip":
            die = named.pop(0) if named else default_pip_die(p)
            if die:
                p["dice"][DICE.index(die)] += 1
        else:
            gain(p, a["benefit"], 2)
    notice(out, "fort_placed", player=player, region=a["region"], fort=cls)
    recheck(d, out)


def fortify(d: State, player: str, a: dict[str, Any], out: list[dict[str, Any]]) -> None:
    place_fort(d, player, a, out)
    # 2nd Effect: "Players only gain Trade Points if they just placed out a Fort"
    pts = trade_points_for(len(posts_on_map(d, player)))
    if pts:
        advance(d, player, "trade", pts, out)
    step_done(d, 2)


ACTIONS = (Action("fortify", check_fortify, fortify),)
