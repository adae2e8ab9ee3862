"""Helpers for the rules tests: games, commands, and set-ups of worked situations from the rulebook."""

from __future__ import annotations

import random
from typing import Any

from contracts.grid import SQUARES
from rules import api
from rules.core.state import GameState

COLORS = ["red", "blue", "green", "yellow"]


def game(n: int = 4, seed: int = 1, **options: Any) -> GameState:
    return api.new_game(COLORS[:n], seed, options or None)


def act(
    state: GameState, atype: str, player: str | None = None, **fields: Any
) -> tuple[GameState, list[dict]]:
    who = player or state.active or "table"
    return api.apply(state, {"seq": state.seq, "player": who, "action": {"type": atype, **fields}})


def island_square(state: GameState, slots: int | None = None) -> str:
    """A face-up island square (revealing boards by hand as needed)."""
    d = state.data
    for sq in SQUARES:
        isl = d["grid"][sq]["island"]
        if isl and (slots is None or len(isl["cubes"]) == slots):
            return sq
    raise AssertionError("no island face up")


def place_island(state: GameState, square: str, board: str) -> dict[str, Any]:
    """Put `board` face up at `square` (a test set-up shortcut, as a referee would lay it out)."""
    from rules.dead_reckoning.cards import load_catalog

    spec = load_catalog().boards[board]
    d = state.data
    d["grid"][square]["board"] = board
    if spec["kind"] == "island":
        d["grid"][square]["island"] = {
            "cubes": [None] * spec["slots"],
            "permanent": {},
            "cargo": 0,
            "coins": 0,
            "controller": None,
            "buildings": {"fort": False, "garrison": False, "outpost": False},
            "strikes": {},
        }
    else:
        d["grid"][square]["island"] = None
    return d["grid"][square]["island"]


def random_playout(
    state: GameState, rng: random.Random, max_actions: int = 400, events: list[dict] | None = None, check=None
) -> GameState:
    n = 0
    while state.phase != "over" and n < max_actions:
        who = state.active or "table"
        acts = api.legal_actions(state, who)
        assert acts, "the active seat must always have a legal action"
        state, evs = api.apply(state, {"seq": state.seq, "player": who, "action": rng.choice(acts)})
        if events is not None:
            events.extend(evs)
        if check:
            check(state)
        n += 1
    return state


def give_hand(state: GameState, player: str, cards: list[str]) -> None:
    """Arrange a player's hand (a set-up shortcut): the named cards move from wherever they are into the
    hand."""
    p = state.data["p"][player]
    for pile in ("hand", "deck", "discard", "played"):
        p[pile] = [c for c in p[pile] if c not in cards]
    p["hand"] += cards


def active_board(state: GameState) -> dict[str, Any]:
    """The active player's board in `state` (for test set-ups and checks)."""
    board: dict[str, Any] = state.data["p"][state.active]
    return board


def controlled_island(
    state: GameState, color: str, cubes: list[str], slots_board: str = "island-05"
) -> dict[str, Any]:
    """Island board `slots_board` revealed at r1c1 holding `cubes` (then empty slots), control worked out."""
    from rules.dead_reckoning.islands import who_controls

    isl = place_island(state, "r1c1", slots_board)
    isl["cubes"] = list(cubes) + [None] * (len(isl["cubes"]) - len(cubes))
    isl["controller"] = who_controls(isl)  # type: ignore[arg-type]
    return isl


def with_played(state: GameState, card: str, level: int) -> tuple[GameState, str]:
    """`card` at `level` given to the active player and played; returns the state and that player."""
    color = state.active
    assert color is not None
    give_hand(state, color, [card])
    state.data["p"][color]["cards"][card]["level"] = level
    state, _ = act(state, "play_card", card=card)
    return state, color
