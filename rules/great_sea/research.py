"""Research (rulebook: "Research", "Gaining Upgrade Tiles", "Removing Upgrade Tiles", "Discounting the cost
of Upgrade Tiles", "Refresh 1 Trade Post").

"1st Effect: Use pips to gain Upgrade Tiles, remove Upgrade Tiles, or discount the cost of gaining Upgrade
Tiles. 2nd Effect: Refresh 1 Trade Post." Each pip is used once (the Die keeps its value). A gained tile's
Pile moves to the far left of its row and may not be gained from again this turn.
"""

from __future__ import annotations

from typing import Any

from rules.core.actions import Action
from rules.core.errors import Illegal, Invalid
from rules.core.events import notice
from rules.great_sea.control import exhausted_posts, refresh_one
from rules.great_sea.data import CLASSES
from rules.great_sea.model import Player, State, gain
from rules.great_sea.special_actions import card_effect
from rules.great_sea.upgrades import (
    check_fort_tile,
    place_fort_tile,
    place_ship_tile,
    tile_cost,
    tile_row,
    tile_types,
    top,
)
from rules.great_sea.upgrades import take as take_tile
from rules.great_sea.worker import open_step, step_done


def _pile(d: State, pile: object) -> str:
    if not isinstance(pile, str) or pile not in d["piles"]:
        raise Invalid(f"'{pile}' is not an Upgrade Tile Pile; Piles are {', '.join(sorted(d['piles']))}.")
    return pile


def _pips(d: State) -> int:
    op = d["turn"]["open"]
    assert op is not None
    return op["pips"]


def check_gain(d: State, player: str, action: dict[str, Any]) -> dict[str, Any]:
    p = open_step(d, player, 4, 0)
    pile = _pile(d, action.get("pile"))
    op = d["turn"]["open"]
    assert op is not None
    if pile in op["piles"]:
        raise Illegal("you may not gain more Upgrade Tiles from this Pile this turn.")
    discount = action.get("discount", 0)
    if not isinstance(discount, int) or isinstance(discount, bool) or discount < 0:
        raise Invalid("discount is a number of pips (0 or more).")
    if 1 + discount > _pips(d):
        raise Illegal(f"that needs {1 + discount} pips and {_pips(d)} are left on your Research Die.")
    return {"type": "research_gain", "discount": discount, **check_tile(d, p, pile, discount, action)}


def check_tile(d: State, p: Player, pile: str, less: int, action: dict[str, Any]) -> dict[str, Any]:
    """Gaining the top tile of `pile` for its column's Coins less `less`, and where it goes (`cls`, or `fort`
    and `place`)."""
    tile = d["piles"][pile][0] if d["piles"][pile] else None
    if tile is None and not d["discards"].get(pile):
        raise Illegal("that Pile is empty.")
    cost = max(0, tile_cost(d, pile) - less)
    if p["coins"] < cost:
        raise Illegal(f"the tile costs {cost} Coins and you have {p['coins']}.")
    row = tile_types()[pile]["row"]
    out: dict[str, Any] = {"pile": pile, "cost": cost}
    if row in ("stern", "hull", "bow"):
        cls = action.get("cls")
        if cls not in CLASSES:
            raise Invalid("a Ship Upgrade Tile goes on one of your 3 Ships: say cls small, medium or large.")
        out["cls"] = cls
    else:
        out["fort"], out["place"] = check_fort_tile(p, action.get("fort"), pile, action.get("place"))
    return out


def research_gain(d: State, player: str, a: dict[str, Any], out: list[dict[str, Any]]) -> None:
    op = d["turn"]["open"]
    assert op is not None
    op["pips"] -= 1 + a["discount"]
    op["piles"].append(a["pile"])
    gain_tile(d, player, a, out)


def gain_tile(d: State, player: str, a: dict[str, Any], out: list[dict[str, Any]]) -> None:
    """Pay for a tile checked by `check_tile`, take it (its Pile moves to the far left) and place it."""
    p = d["p"][player]
    p["coins"] -= a["cost"]
    top(d, a["pile"])
    tile = take_tile(d, a["pile"])
    if "cls" in a:
        covered = place_ship_tile(p, a["cls"], tile)
        where = f"{a['cls']} {tile_row(tile)}"
        if covered:
            notice(out, "tile_removed", player=player, tile=covered)  # removed from the game
    else:
        place_fort_tile(p, a["fort"], tile, a["place"])
        where = a["fort"]
    notice(out, "tile_gained", player=player, tile=tile, on=where, cost=a["cost"])


def check_remove(d: State, player: str, action: dict[str, Any]) -> dict[str, Any]:
    open_step(d, player, 4, 0)
    pile = _pile(d, action.get("pile"))
    if not d["piles"][pile]:
        raise Illegal("that Pile is empty.")
    if _pips(d) < 1:
        raise Illegal("no pip is left on your Research Die.")
    return {"type": "research_remove", "pile": pile}


def research_remove(d: State, player: str, a: dict[str, Any], out: list[dict[str, Any]]) -> None:
    op = d["turn"]["open"]
    assert op is not None
    op["pips"] -= 1
    tile = d["piles"][a["pile"]].pop(0)
    d["discards"].setdefault(a["pile"], []).append(tile)  # "placed into the Main Supply"
    notice(out, "tile_discarded", pile=a["pile"], tile=tile)


def check_refresh(d: State, player: str, action: dict[str, Any]) -> dict[str, Any]:
    p = open_step(d, player, 4, 1)
    extra = card_effect(p["cards"]["4"]["id"]).get("second_gain", {})
    if not exhausted_posts(d, player) and not extra:
        raise Illegal("you have no exhausted Trade Post to refresh.")
    return {"type": "research_refresh", "gain": dict(extra)}


def research_refresh(d: State, player: str, a: dict[str, Any], out: list[dict[str, Any]]) -> None:
    refresh_one(d, player)
    for k, v in a["gain"].items():
        gain(d["p"][player], k, v)
    step_done(d, 2)


ACTIONS = (
    Action("research_gain", check_gain, research_gain),
    Action("research_remove", check_remove, research_remove),
    Action("research_refresh", check_refresh, research_refresh),
)
