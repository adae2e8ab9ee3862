"""Buildings (rulebook: "Buildings"): Forts and Garrisons guard an island against everyone but its
controller (`fortified_against`); Buildings on your controlled island add Battle cubes
(`building_bonus`). Building them is an ability effect (`abilities`); their removal when control
changes is `islands.recheck_control`; attacking them is `battles`.
"""

from __future__ import annotations

from contracts.grid import HARBOR
from rules.dead_reckoning.cards import BUILDINGS
from rules.dead_reckoning.model import State


def fortified_against(d: State, square: str, color: str) -> bool:
    """Forts and Garrisons keep everyone but the controller from interacting with the island."""
    isl = d["grid"][square]["island"] if square != HARBOR else None
    if not isl or not isl["controller"] or isl["controller"] == color:
        return False
    return bool(isl["buildings"]["fort"] or isl["buildings"]["garrison"])


def building_bonus(d: State, color: str, sq: str) -> int:
    isl = d["grid"][sq]["island"] if sq != HARBOR else None
    if isl and isl["controller"] == color:
        return sum(1 for b in BUILDINGS if isl["buildings"][b])
    return 0
