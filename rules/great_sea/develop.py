"""Develop (rulebook: "Develop", "Ship Class Tiles", "Fleet Tiles").

"1st Effect: Gain 1 pip (increase any Die by 1). 2nd Effect: Gain either 1 pip, spend 2 Wood to gain 2
pips, or pay to improve a Ship Class Tile or Fleet Tile (up to twice - can be the same Tile or 2 different
Tiles). When flipped, the 1st Effect also gains 1 Coin or 1 Wood."
"""

from __future__ import annotations

from functools import cache
from typing import Any

from rules.core.actions import Action
from rules.core.errors import Illegal, Invalid
from rules.core.events import notice
from rules.great_sea.data import CLASSES, DICE, board
from rules.great_sea.dice import check_pip, gain_pip, may_raise
from rules.great_sea.model import Player, Region, State, gain
from rules.great_sea.upgrades import fort_stats
from rules.great_sea.worker import open_step, step_done

IMPROVABLE = (*CLASSES, "fleet")


@cache
def sizes() -> dict[str, tuple[int, ...]]:
    """Each Ship class's size by its Class Tile's stage."""
    return {c: tuple(st["size"] for st in board()["ship_classes"][c]["stages"]) for c in CLASSES}


def size(p: Player, cls: str) -> int:
    return sizes()[cls][p["classes"][cls]]


def fleet_limit(reg: Region, p: Player, color: str) -> int | None:
    """The player's Fleet Limit in a region (None: home regions have none): the Fleet Tile's stage plus 1
    per Fleet Limit icon on each of their Forts there."""
    if reg["home"] == color:
        return None
    limit: int = board()["fleet"]["limits"][p["fleet"]]
    for f in reg["forts"]:
        if f[0] == color:
            limit += fort_stats(p, f[1]).get("fleet", 0)
    return limit


def fleet_used(reg: Region, p: Player, color: str) -> int:
    table, stage = sizes(), p["classes"]
    n = 0
    for s in reg["ships"]:
        if s["owner"] == color:
            cls = s["cls"]
            n += table[cls][stage[cls]]
    return n


def improve_cost(p: Player, tile: str) -> tuple[str, int]:
    """(resource, amount) to improve a tile once more; Illegal once it is removed."""
    if tile == "fleet":
        stage = p["fleet"]
        costs = board()["fleet"]["improve_wood"]
        res = "wood"
    else:
        stage = p["classes"][tile]
        costs = board()["ship_classes"][tile]["improve_coins"]
        res = "coins"
    if stage >= len(costs):
        raise Illegal(f"the {tile} tile is already removed: it cannot be improved further.")
    return res, int(costs[stage])


@cache
def improve_costs() -> dict[str, tuple[str, tuple[int, ...]]]:
    """Each improvable tile's resource and its cost at each stage (`improve_cost` reads one)."""
    b = board()
    out = {c: ("coins", tuple(b["ship_classes"][c]["improve_coins"])) for c in CLASSES}
    out["fleet"] = ("wood", tuple(b["fleet"]["improve_wood"]))
    return out


def check_develop_pip(d: State, player: str, action: dict[str, Any]) -> dict[str, Any]:
    p = open_step(d, player, 1, 0)
    out: dict[str, Any] = {"type": "develop_pip", "die": check_pip(p, action.get("die"))}
    if p["cards"]["1"]["flipped"]:
        gain = action.get("gain", "coins")
        if gain not in ("coins", "wood"):
            raise Invalid("a flipped Develop also gains 1 Coin or 1 Wood: say gain 'coins' or 'wood'.")
        out["gain"] = gain
    return out


def develop_pip(d: State, player: str, a: dict[str, Any], out: list[dict[str, Any]]) -> None:
    p = d["p"][player]
    gain_pip(p, a["die"])
    if "gain" in a:
        gain(p, a["gain"], 1)
    step_done(d, 1)


def check_develop_second(d: State, player: str, action: dict[str, Any]) -> dict[str, Any]:
    p = open_step(d, player, 1, 1)
    choice = action.get("choice")
    if choice == "pip":
        return {"type": "develop_second", "choice": "pip", "die": check_pip(p, action.get("die"))}
    if choice == "wood_pips":
        if p["wood"] < 2:
            raise Illegal(f"2 pips cost 2 Wood and you have {p['wood']}.")
        dice = action.get("dice")
        if not isinstance(dice, list) or len(dice) != 2:
            raise Invalid("say the two Dice the 2 pips go on, e.g. dice ['fortify', 'trade'].")
        trial: Player = {**p, "dice": list(p["dice"])}
        for die in dice:
            gain_pip(trial, check_pip(trial, die))
        return {"type": "develop_second", "choice": "wood_pips", "dice": list(dice)}
    if choice == "improve":
        tiles = action.get("tiles")
        if not isinstance(tiles, list) or not 1 <= len(tiles) <= 2 or any(t not in IMPROVABLE for t in tiles):
            raise Invalid(f"say 1 or 2 tiles to improve, each one of {', '.join(IMPROVABLE)}.")
        trial = {**p, "classes": dict(p["classes"])}
        spend = {"wood": 0, "coins": 0}
        for t in tiles:
            res, n = improve_cost(trial, t)
            spend[res] += n
            if t == "fleet":
                trial["fleet"] += 1
            else:
                trial["classes"][t] += 1
        if spend["wood"] > p["wood"] or spend["coins"] > p["coins"]:
            raise Illegal(
                f"improving costs {spend['coins']} Coins and {spend['wood']} Wood; you have "
                f"{p['coins']} and {p['wood']}."
            )
        return {"type": "develop_second", "choice": "improve", "tiles": list(tiles), "spend": spend}
    raise Invalid("say choice 'pip', 'wood_pips' (2 Wood for 2 pips) or 'improve' (tiles).")


def develop_second(d: State, player: str, a: dict[str, Any], out: list[dict[str, Any]]) -> None:
    p = d["p"][player]
    if a["choice"] == "pip":
        gain_pip(p, a["die"])
    elif a["choice"] == "wood_pips":
        p["wood"] -= 2
        for die in a["dice"]:
            gain_pip(p, die)
    else:
        p["wood"] -= a["spend"]["wood"]
        p["coins"] -= a["spend"]["coins"]
        for t in a["tiles"]:
            if t == "fleet":
                p["fleet"] += 1
            else:
                p["classes"][t] += 1
        notice(out, "tiles_improved", player=player, tiles=a["tiles"])
    step_done(d, 2)


def any_pip(p: Player) -> bool:
    return any(may_raise(p, i) for i in range(len(DICE)))


ACTIONS = (
    Action("develop_pip", check_develop_pip, develop_pip),
    Action("develop_second", check_develop_second, develop_second),
)
