"""Helpers for the Letters of Marque tests: games with the expansion, and set-ups of worked situations
(test shortcuts, as a referee would lay the pieces out)."""

from __future__ import annotations

from typing import Any, Literal, cast

from rules import api
from rules.battle.contract import BattleOutcome, BattleSetup, SideResult
from rules.core.state import GameState
from rules.dead_reckoning.letters_of_marque.data import lom_data
from rules.dead_reckoning.letters_of_marque.model import sync_hull
from tests.rules.helpers import COLORS, act, give_hand

LOM = {"expansions": ["letters-of-marque"]}


def lgame(n: int = 3, seed: int = 1, **options: Any) -> GameState:
    return api.new_game(COLORS[:n], seed, {**LOM, **options})


def lom(state: GameState) -> dict[str, Any]:
    x: dict[str, Any] = state.data["lom"]
    return x


def token_of(kind: str, n: int = 0, reward: str | None = None, edges: dict[str, str] | None = None) -> str:
    """The n-th sample token of that type (with that reward / those edges when given)."""
    found = [
        t
        for t, s in sorted(lom_data().tokens.items())
        if s["type"] == kind
        and (reward is None or s["reward"] == reward)
        and (edges is None or s["edges"] == edges)
    ]
    return found[n]


def lay_found(state: GameState, sq: str, part: str, token: str) -> None:
    """A discovered (face-up) token at a board's water or island, taken out of the face-down bag."""
    x = lom(state)
    x["bag"].remove(token)
    x["boards"][sq][part]["found"].append(token)


def lay_on_ship(state: GameState, color: str, token: str, hold: int = 0) -> None:
    x = lom(state)
    if token in x["bag"]:
        x["bag"].remove(token)
    x["ship"][color][hold].append(token)
    sync_hull(state.data, color)  # type: ignore[arg-type]


def sail_to(state: GameState, path: list[str]) -> GameState:
    """The active player sets Sails (enough for the path) and moves along it."""
    if state.data["turn"]["sails_set"]:
        state.data["p"][state.active]["ship"]["sails"] += len(path)
    else:
        state.data["turn"]["extra_sails"] += len(path)
        state, _ = act(state, "set_sails")
    state, _ = act(state, "move", path=path)
    return state


def play_explorer(state: GameState) -> GameState:
    me = state.active
    assert me is not None
    give_hand(state, me, ["explorer"])
    state, _ = act(state, "play_card", card="explorer")
    return state


def outcome(state: GameState, winner: str) -> dict[str, Any]:
    setup = BattleSetup.from_json(state.data["battle"]["setup"])
    return BattleOutcome(
        battle_id=setup.battle_id,
        winner=cast(Literal["attacker", "defender"], winner),
        attacker=SideResult(),
        defender=SideResult(),
    ).to_json()  # type: ignore[no-any-return]


def events_of(events: list[dict[str, Any]], etype: str) -> list[dict[str, Any]]:
    return [e for e in events if e["type"] == etype]
