"""Construct (rulebook: "Construct", "Discounting the cost of Ships", "Gain 1 Pip").

"1st Effect: Use pips to construct Ships, or discount the cost of constructing Ships. 2nd Effect: Gain 1
pip." A Ship costs its Class Tile's Wood, goes to a region with the player's own Shipyard, and never past
the Fleet Limit ("While home regions have no Fleet Limit, all other regions do").
"""

from __future__ import annotations

from typing import Any

from rules.core.actions import Action
from rules.core.errors import Illegal, Invalid
from rules.core.events import notice
from rules.great_sea.control import refresh_one
from rules.great_sea.data import board
from rules.great_sea.develop import fleet_limit, fleet_used, size
from rules.great_sea.dice import check_pip, gain_pip
from rules.great_sea.model import Player, State, gain
from rules.great_sea.special_actions import card_effect
from rules.great_sea.start_of_turn import region, ship_class
from rules.great_sea.temples import recheck
from rules.great_sea.upgrades import is_shipyard
from rules.great_sea.worker import open_step, require_turn, step_done


def ship_cost(p: Player, cls: str) -> int:
    c: int = board()["ship_classes"][cls]["stages"][p["classes"][cls]]["wood"]
    return c


def check_construct(d: State, player: str, action: dict[str, Any]) -> dict[str, Any]:
    p = open_step(d, player, 5, 0)
    cls = ship_class(action.get("cls"))
    r = region(d, action.get("region"))
    discount = action.get("discount", 0)
    if not isinstance(discount, int) or isinstance(discount, bool) or discount < 0:
        raise Invalid("discount is a number of pips (0 or more).")
    op = d["turn"]["open"]
    assert op is not None
    if 1 + discount > op["pips"]:
        raise Illegal(f"that needs {1 + discount} pips and {op['pips']} are left on your Construct Die.")
    return {"type": "construct", "discount": discount, **check_build(d, player, p, cls, r, discount)}


def check_build(d: State, player: str, p: Player, cls: str, r: str, less: int) -> dict[str, Any]:
    """A new Ship of `cls` in region `r` for its Wood less `less`: a Ship left, the player's own Shipyard,
    the Fleet Limit."""
    if p["ships"][cls] <= 0:
        raise Illegal(f"you have no {cls} Ship left to construct.")
    reg = d["regions"][r]
    if not is_shipyard(reg, p, player, cls):
        raise Illegal(f"{cls} Ships must be placed in a region with your own Shipyard; {r} has none.")
    lim = fleet_limit(reg, p, player)
    if lim is not None and fleet_used(reg, p, player) + size(p, cls) > lim:
        raise Illegal(f"a new {cls} Ship would exceed your Fleet Limit of {lim} in {r}.")
    cost = max(0, ship_cost(p, cls) - less)
    if p["wood"] < cost:
        raise Illegal(f"a {cls} Ship costs {cost} Wood and you have {p['wood']}.")
    return {"cls": cls, "region": r, "cost": cost}


def construct(d: State, player: str, a: dict[str, Any], out: list[dict[str, Any]]) -> None:
    op = d["turn"]["open"]
    assert op is not None
    op["pips"] -= 1 + a["discount"]
    build(d, player, a, out)


def build(d: State, player: str, a: dict[str, Any], out: list[dict[str, Any]]) -> None:
    """Place a Ship checked by `check_build` and pay its Wood."""
    p = d["p"][player]
    p["wood"] -= a["cost"]
    p["ships"][a["cls"]] -= 1
    d["regions"][a["region"]]["ships"].append(
        {"owner": player, "cls": a["cls"], "damaged": False, "moved": False}
    )
    notice(out, "ship_constructed", player=player, cls=a["cls"], region=a["region"])
    recheck(d, out)


def pip_step(p: Player) -> int:
    """The "Gain 1 pip" effect's place: 2nd, or 3rd after a card's "New 2nd Effect"."""
    return 2 if "second" in card_effect(p["cards"]["5"]["id"]) else 1


def check_construct_pip(d: State, player: str, action: dict[str, Any]) -> dict[str, Any]:
    p = require_turn(d, player)
    p = open_step(d, player, 5, pip_step(p))
    extra = card_effect(p["cards"]["5"]["id"]).get("second_gain", {})
    return {"type": "construct_pip", "die": check_pip(p, action.get("die")), "gain": dict(extra)}


def construct_pip(d: State, player: str, a: dict[str, Any], out: list[dict[str, Any]]) -> None:
    p = d["p"][player]
    gain_pip(p, a["die"])
    for k, v in a["gain"].items():
        if k == "refresh":
            refresh_one(d, player)
        else:
            gain(p, k, v)
    step_done(d, pip_step(p) + 1)


ACTIONS = (
    Action("construct", check_construct, construct),
    Action("construct_pip", check_construct_pip, construct_pip),
)
