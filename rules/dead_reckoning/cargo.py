"""Cargo (rulebook: "Cargo and Coins"): loading and unloading at the Harbor or an island, moving between
the two holds (`rearrange`), and throwing overboard (`jettison`). Holds are 0 (the hold of 4) and 1 (the
hold of 3).
"""

from __future__ import annotations

from typing import Any

from contracts.grid import HARBOR
from rules.core.actions import Action
from rules.core.errors import Illegal, Invalid
from rules.dead_reckoning.achievements import affected, check_achievements
from rules.dead_reckoning.battles import refresh_battle
from rules.dead_reckoning.buildings import fortified_against
from rules.dead_reckoning.islands import blockaded, island_at
from rules.dead_reckoning.model import State
from rules.dead_reckoning.phases import mark_acted, not_in_battle, require_active
from rules.dead_reckoning.ship import HOLD_CAP, hold_index, hold_load, int_field, room_in_hold, take_owed


def check_load(d: State, player: str, a: dict[str, Any]) -> dict[str, Any]:
    p = require_active(d, player, "load")
    h = hold_index(a)
    cargo, coins = int_field(a, "cargo"), int_field(a, "coins")
    if cargo + coins == 0:
        raise Invalid("load at least 1 Cargo or Coin.")
    at = p["ship"]["at"]
    if at == HARBOR:
        if coins:
            raise Illegal(
                "in Harbor only Cargo is loaded from your Dock tile; Coins stay in your Treasure chest."
            )
        if cargo > p["dock"]:
            raise Illegal(f"your Dock tile has only {p['dock']} Cargo.")
    else:
        isl = island_at(d, at)
        if not isl or isl["controller"] != player:
            raise Illegal("you can load only in Harbor or from an island you control.")
        if blockaded(d, at, player):
            raise Illegal("an opponent's Pirate-mode Ship blockades this island: beat it in battle first.")
        if cargo > isl["cargo"] or coins > isl["coins"]:
            raise Illegal(f"the island holds only {isl['cargo']} Cargo and {isl['coins']} Coins.")
    if cargo + coins > room_in_hold(p, h):
        raise Illegal(
            f"hold {h + 1} is full: it takes {HOLD_CAP[h]} and holds {hold_load(p['ship']['holds'][h])}."
        )
    return {"type": "load", "hold": h, "cargo": cargo, "coins": coins}


def do_load(d: State, player: str, a: dict[str, Any], out: list[dict[str, Any]]) -> None:
    p = d["p"][player]
    mark_acted(d, player)
    hold = p["ship"]["holds"][a["hold"]]
    if p["ship"]["at"] == HARBOR:
        p["dock"] -= a["cargo"]
    else:
        isl = island_at(d, p["ship"]["at"])
        assert isl is not None  # the check allowed loading only at an island you control
        isl["cargo"] -= a["cargo"]
        isl["coins"] -= a["coins"]
    hold[0] += a["cargo"]
    hold[1] += a["coins"]


def check_unload(d: State, player: str, a: dict[str, Any]) -> dict[str, Any]:
    p = require_active(d, player, "unload")
    h = hold_index(a)
    cargo, coins = int_field(a, "cargo"), int_field(a, "coins")
    if cargo + coins == 0:
        raise Invalid("unload at least 1 Cargo or Coin.")
    hold = p["ship"]["holds"][h]
    if cargo > hold[0] or coins > hold[1]:
        raise Illegal(f"hold {h + 1} carries only {hold[0]} Cargo and {hold[1]} Coins.")
    at = p["ship"]["at"]
    if at != HARBOR:
        if not island_at(d, at):
            raise Illegal("you can unload only in Harbor or at an island (not on the open sea).")
        if blockaded(d, at, player):
            raise Illegal("an opponent's Pirate-mode Ship blockades this island: beat it in battle first.")
        if fortified_against(d, at, player):
            raise Illegal("an opponent's Fort or Garrison guards this island: you cannot unload onto it.")
    return {"type": "unload", "hold": h, "cargo": cargo, "coins": coins}


# what an unload changes of the achievements' inputs (`achievements.ACHIEVEMENT_INPUTS`): Coins into the chest
# (Cargo to the Dock or an island, and owed goods taken aboard, are read by none)
UNLOAD_CHANGES = frozenset({"chest"})
_AFTER_UNLOAD = affected(UNLOAD_CHANGES)


def do_unload(d: State, player: str, a: dict[str, Any], out: list[dict[str, Any]]) -> None:
    p = d["p"][player]
    mark_acted(d, player)
    hold = p["ship"]["holds"][a["hold"]]
    hold[0] -= a["cargo"]
    hold[1] -= a["coins"]
    if p["ship"]["at"] == HARBOR:
        p["dock"] += a["cargo"]
        p["chest"] += a["coins"]
    else:
        isl = island_at(d, p["ship"]["at"])
        assert isl is not None  # the check allowed unloading only at an island
        isl["cargo"] += a["cargo"]
        isl["coins"] += a["coins"]
    take_owed(d, player, out)
    check_achievements(d, player, out, _AFTER_UNLOAD)


def check_rearrange(d: State, player: str, a: dict[str, Any]) -> dict[str, Any]:
    if player not in d["players"]:
        raise Illegal("only a player can rearrange their own Ship.")
    not_in_battle(d, player)
    p = d["p"][player]
    src = hold_index(a, "from_hold")
    dst = 1 - src
    cargo, coins = int_field(a, "cargo"), int_field(a, "coins")
    hold = p["ship"]["holds"][src]
    if cargo + coins == 0:
        raise Invalid("move at least 1 Cargo or Coin.")
    if cargo > hold[0] or coins > hold[1]:
        raise Illegal(f"hold {src + 1} carries only {hold[0]} Cargo and {hold[1]} Coins.")
    if cargo + coins > room_in_hold(p, dst):
        raise Illegal(
            f"hold {dst + 1} is full: it takes {HOLD_CAP[dst]} and holds "
            f"{hold_load(p['ship']['holds'][dst])}."
        )
    return {"type": "rearrange", "from_hold": src, "cargo": cargo, "coins": coins}


def do_rearrange(d: State, player: str, a: dict[str, Any], out: list[dict[str, Any]]) -> None:
    holds = d["p"][player]["ship"]["holds"]
    s, t = holds[a["from_hold"]], holds[1 - a["from_hold"]]
    s[0] -= a["cargo"]
    s[1] -= a["coins"]
    t[0] += a["cargo"]
    t[1] += a["coins"]
    _battle_side_changed(d, player, out)


def _battle_side_changed(d: State, player: str, out: list[dict[str, Any]]) -> None:
    b = d["battle"]
    if b and player in (d["active"], b.get("defender_player")):
        refresh_battle(d, out)  # hold room and hull benefits feed the battle setup


def check_jettison(d: State, player: str, a: dict[str, Any]) -> dict[str, Any]:
    if player not in d["players"]:
        raise Illegal("only a player can jettison from their own Ship.")
    not_in_battle(d, player)
    p = d["p"][player]
    h = hold_index(a)
    cargo, coins = int_field(a, "cargo"), int_field(a, "coins")
    hold = p["ship"]["holds"][h]
    if cargo + coins == 0:
        raise Invalid("jettison at least 1 Cargo or Coin.")
    if cargo > hold[0] or coins > hold[1]:
        raise Illegal(f"hold {h + 1} carries only {hold[0]} Cargo and {hold[1]} Coins.")
    return {"type": "jettison", "hold": h, "cargo": cargo, "coins": coins}


def do_jettison(d: State, player: str, a: dict[str, Any], out: list[dict[str, Any]]) -> None:
    hold = d["p"][player]["ship"]["holds"][a["hold"]]
    hold[0] -= a["cargo"]
    hold[1] -= a["coins"]
    d["supply"]["cargo"] += a["cargo"]
    d["supply"]["coins"] += a["coins"]
    take_owed(d, player, out)
    _battle_side_changed(d, player, out)


ACTIONS: tuple[Action[State], ...] = (
    Action("load", check_load, do_load),
    Action("unload", check_unload, do_unload),
    Action("rearrange", check_rearrange, do_rearrange),
    Action("jettison", check_jettison, do_jettison),
)
