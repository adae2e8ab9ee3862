"""Combat Cards (rulebook: "Combat Cards", "Basic Combat Cards", "Standard Combat Cards") as data
(rules/data/great_sea/combat_cards.json). Each player's hand is 8 of them, Basic or Standard (the game's
`combat_cards` option)."""

from __future__ import annotations

from functools import cache
from typing import Any

from rules.great_sea.data import load


@cache
def cards() -> dict[str, dict[str, Any]]:
    data = load("combat_cards.json")
    out: dict[str, dict[str, Any]] = {}
    for kind in ("basic", "standard"):
        for c in data[kind]:
            out[c["id"]] = {**c, "kind": kind}
    return out


def card_spec(card: str) -> dict[str, Any]:
    return cards()[card]


def is_basic(card: str) -> bool:
    return bool(cards()[card]["kind"] == "basic")


def hand(kind: str) -> list[str]:
    return [c for c, v in cards().items() if v["kind"] == kind]
