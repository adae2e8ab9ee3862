"""Sinking (rulebook: "Damage and sinking"): Damage on a Ship, and at 5 the Ship sinks: Coins lost from the
Ship or the chest go to the one who sank it, the Ship returns to Harbor, Mercantile, with 0 Sails.
"""

from __future__ import annotations

from typing import Any

from contracts.grid import HARBOR
from rules.battle.helpers import sinking_coin_loss, sinks
from rules.core.events import notice
from rules.dead_reckoning.model import State
from rules.dead_reckoning.ship import ship_coins


def deal_damage(
    d: State, color: str, n: int, by: str | None, out: list[dict[str, Any]], in_battle: bool = False
) -> bool:
    """Add Damage; outside a battle the 5th Damage sinks at once. Returns True if the ship sank."""
    p = d["p"][color]
    p["ship"]["damage"] += n
    if not in_battle and sinks(p["ship"]["damage"]):
        sink_ship(d, color, by, out)
        return True
    return False


def sink_ship(d: State, color: str, by: str | None, out: list[dict[str, Any]]) -> None:
    p = d["p"][color]
    from_ship, from_chest = sinking_coin_loss(ship_coins(p), p["chest"])
    lost = from_ship + from_chest
    if from_ship:
        for h in p["ship"]["holds"]:
            h[1] = 0
    p["chest"] -= from_chest
    if by and by in d["players"]:
        d["p"][by]["chest"] += lost
        d["p"][by]["sank"] += 1
    else:
        d["supply"]["coins"] += lost
    for h in p["ship"]["holds"]:
        p["chest"] += h[1]
        h[1] = 0
    p["ship"].update({"at": HARBOR, "damage": 0, "pirate": False, "sails": 0})
    notice(out, "ship_sunk", player=color, by=by, coins_lost=lost)
