"""Helpers for The Great Sea's tests: games past setup, commands, and referee-style set-ups of the
rulebook's worked situations (pieces laid out by hand, as a referee would)."""

from __future__ import annotations

from typing import Any

from rules import api
from rules.core.state import GameState

COLORS = ["red", "blue", "green", "yellow"]


def new(n: int = 2, seed: int = 1, **options: Any) -> GameState:
    return api.new_game(COLORS[:n], seed, {"game": "great-sea", **options})


def act(
    state: GameState, atype: str, player: str | None = None, **fields: Any
) -> tuple[GameState, list[dict]]:
    who = player or state.active or "table"
    return api.apply(state, {"seq": state.seq, "player": who, "action": {"type": atype, **fields}})


def started(n: int = 2, seed: int = 1, **options: Any) -> GameState:
    """A game through setup: each player takes the first Pile offered and puts every pip on Develop first,
    then spreads them (the first legal choice)."""
    s = new(n, seed, **options)
    while s.phase == "setup":
        who = s.active or "table"
        s, _ = api.apply(s, {"seq": s.seq, "player": who, "action": api.legal_actions(s, who)[0]})
    return s


def clear_map(state: GameState) -> None:
    """Remove every Ship, Fort and Trade Post outside home regions (a referee's bare table)."""
    for reg in state.data["regions"].values():
        if reg["home"] is None:
            reg["ships"], reg["forts"], reg["post"] = [], [], None


def ship(state: GameState, owner: str, cls: str, region: str, damaged: bool = False) -> None:
    state.data["regions"][region]["ships"].append(
        {"owner": owner, "cls": cls, "damaged": damaged, "moved": False}
    )


def open_card(state: GameState, card: int) -> GameState:
    s, _ = act(state, "take_action", card=card)
    return s


def types(events: list[dict]) -> list[str]:
    return [e["type"] for e in events]
