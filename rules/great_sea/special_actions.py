"""The 24 Special Action Cards (rulebook: "Special Action Cards", "Final Setup Steps") as data
(rules/data/great_sea/special_actions.json): four per action number, their printed text, and the machine
form of the effects the engine plays ("effect"; null where only the printed text is kept)."""

from __future__ import annotations

from functools import cache
from typing import Any

from rules.great_sea.data import DICE, load

PLAYER_CARDS = DICE  # the Player Action Cards 1-6 are named after their action


@cache
def specials() -> dict[str, dict[str, Any]]:
    cards: list[dict[str, Any]] = load("special_actions.json")["cards"]
    return {c["id"]: c for c in cards}


def by_number(n: int) -> list[str]:
    return [c for c, v in specials().items() if v["number"] == n]


_NONE: dict[str, Any] = {}


def card_effect(card_id: str) -> dict[str, Any]:
    """The machine-readable effect of an Action Card ({} for a Player Action Card or a text-only card)."""
    c = specials().get(card_id)
    if c is None or c["effect"] is None:
        return _NONE
    eff: dict[str, Any] = c["effect"]
    return eff
