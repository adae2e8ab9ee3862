"""Trade (rulebook: "Trade").

"Gain any 2 different effects: Gain Coin income, gain Wood income, or place a Trade Post (Control
required)." Income is the right-most revealed income number the Trade Die reaches (Coins revealed by
Strongholds placed out, Wood by Outposts: a sample layout). "Players can only place a Trade Post if the
region has no Trade Post present, or if it has an opposing player's Trade Post"; a replaced one goes to
the Main Supply.
"""

from __future__ import annotations

from typing import Any

from rules.core.actions import Action
from rules.core.errors import Illegal, Invalid
from rules.core.events import notice
from rules.great_sea.control import controls
from rules.great_sea.data import board
from rules.great_sea.dice import value
from rules.great_sea.model import Player, State, gain
from rules.great_sea.special_actions import card_effect
from rules.great_sea.start_of_turn import region
from rules.great_sea.temples import recheck
from rules.great_sea.worker import close_action, open_step, step_done

INCOME_ROW = {"coins": "stronghold", "wood": "outpost"}
GAINS = ("coins", "wood", "post")


def income(d: State, color: str, res: str) -> int:
    p = d["p"][color]
    fort = INCOME_ROW[res]
    placed = board()["forts"][fort]["count"] - p["forts"][fort]  # Forts placed out reveal the numbers
    die = value(p, 3)
    best = 0
    for need, amount in board()["income"][res][:placed]:
        if die >= need:
            best = amount
    return best


def post_requirement(p: Player) -> int | None:
    cols: list[int] = board()["trade_posts"]["columns"]
    if p["posts"]:
        return cols[len(cols) - p["posts"]]
    if p["posts_supply"]:
        return cols[-1]  # "Rare case": one returned to the Main Supply (docs/great-sea.md)
    return None


def check_post(d: State, player: str, r: str) -> None:
    p = d["p"][player]
    reg = d["regions"][r]
    if not controls(reg, player):
        raise Illegal(f"placing a Trade Post needs Control of {r}.")
    if reg["post"] is not None and reg["post"][0] == player:
        raise Illegal(f"you already own the Trade Post in {r}.")
    need = post_requirement(p)
    if need is None:
        raise Illegal("you have no Trade Post left to place.")
    if value(p, 3) < need:
        raise Illegal(f"your next Trade Post needs a Trade Die of {need}; yours is {value(p, 3)}.")


def check_trade(d: State, player: str, action: dict[str, Any]) -> dict[str, Any]:
    p = open_step(d, player, 3, 0)
    gains = action.get("gains")
    # Special Action Cards: "Gain both incomes. 2nd Effect: Place a Trade Post" (all three); "May gain the
    # same effect twice" (an income twice)
    variant = card_effect(p["cards"]["3"]["id"]).get("trade_gains")
    most = 3 if variant == "all" else 2
    if (
        not isinstance(gains, list)
        or not 1 <= len(gains) <= most
        or any(g not in GAINS for g in gains)
        or gains.count("post") > 1
        or (len(set(gains)) != len(gains) and variant != "twice")
    ):
        raise Invalid(f"say up to {most} different gains: 'coins', 'wood', 'post'.")
    out: dict[str, Any] = {"type": "trade", "gains": list(gains)}
    for g in dict.fromkeys(gains):
        if g == "post":
            r = region(d, action.get("region"))
            check_post(d, player, r)
            out["region"] = r
        else:
            out[g] = income(d, player, g)
    return out


def place_post(d: State, player: str, r: str, out: list[dict[str, Any]]) -> None:
    p = d["p"][player]
    reg = d["regions"][r]
    if reg["post"] is not None:
        d["p"][reg["post"][0]]["posts_supply"] += 1  # "returned to the Main Supply"
        notice(out, "post_removed", player=reg["post"][0], region=r)
    if p["posts"]:
        p["posts"] -= 1
    else:
        p["posts_supply"] -= 1
    reg["post"] = [player, False]
    notice(out, "post_placed", player=player, region=r)


def trade(d: State, player: str, a: dict[str, Any], out: list[dict[str, Any]]) -> None:
    p = d["p"][player]
    for g in a["gains"]:
        if g == "post":
            place_post(d, player, a["region"], out)
        else:
            gain(p, g, a[g])
    recheck(d, out)
    eff = card_effect(p["cards"]["3"]["id"])
    if "second" in eff or "third" in eff:
        step_done(d, 1)  # a Special Action Card's added effect comes next
    else:
        close_action(d)


ACTIONS = (Action("trade", check_trade, trade),)
