"""Small explicit scenarios for the rulebook tests: two players, ships placed, islands laid, battles
resolved from a battle record (the refereeing session's format, docs/battles.md) through the engine."""

from __future__ import annotations

from typing import Any

from rules import api
from rules.core.state import GameState
from tests.rules.battle.helpers import BOARD, drop, pass_
from tests.rules.helpers import act, controlled_island, game, give_hand, place_island

__all__ = ["act", "controlled_island", "game", "give_hand", "place_island", "drop", "pass_"]


def two(seed: int = 1, **options: Any) -> tuple[GameState, str, str]:
    """A fresh 2-player game: the state, the active player and the other player."""
    state = game(2, seed=seed, **options)
    me = state.active
    assert me is not None
    other = next(c for c in state.players if c != me)
    return state, me, other


def ship(state: GameState, color: str) -> dict[str, Any]:
    s: dict[str, Any] = state.data["p"][color]["ship"]
    return s


def play(state: GameState, card: str, level: int = 1, player: str | None = None) -> GameState:
    """`card` at `level` put in the hand of `player` (default: the active player) and played."""
    color = player or state.active
    assert color is not None
    give_hand(state, color, [card])
    state.data["p"][color]["cards"][card]["level"] = level
    state, _ = act(state, "play_card", player=color, card=card)
    return state


def resolve(state: GameState, board_spec: str, *steps: dict[str, Any]) -> tuple[GameState, list[dict]]:
    """Resolve the pending battle from one initial drop read as `board_spec` ('red@s2 black@dmg ...' on
    tests.rules.battle.helpers.BOARD) and then `steps` (the abilities step; default: everybody passes)."""
    setup = state.data["battle"]["setup"]
    record = {
        "schema": "smart-table/battle-record@1",
        "battle_id": setup["battle_id"],
        "board": BOARD,
        "steps": [drop("initial", board_spec), *steps],
        "corrections": [],
    }
    return act(state, "resolve_battle", player="table", record=record)


def legal_types(state: GameState, color: str) -> set[str]:
    return {a["type"] for a in api.legal_actions(state, color)}
