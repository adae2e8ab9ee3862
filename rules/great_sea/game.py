"""The Great Sea on the core: its sections' actions, its setup and its chance (docs/great-sea.md)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rules.core import engine
from rules.core.actions import Action, Game, action_table
from rules.core.errors import Invalid
from rules.core.state import GameState
from rules.great_sea import (
    combat,
    construct,
    develop,
    fortify,
    mobilise,
    research,
    setup,
    special_effects,
    start_of_turn,
    trade,
    worker,
)
from rules.great_sea.end_of_game import check_end
from rules.great_sea.model import State

GAME_NAME = "great-sea"
OPTIONS: Mapping[str, Any] = {"game": GAME_NAME, "auto_chance": True, "combat_cards": "basic"}


def next_chance(d: State) -> dict[str, Any] | None:
    return d["pending"][0] if d["pending"] else None


def undo_blocked(d: State) -> bool:
    return bool(d["pending"] or d["combat"])


def after_chance(d: State, out: list[dict[str, Any]]) -> None:
    """Nothing waits on a chance outcome here but the setup step it answers (its effect moves on)."""


def _ending(a: Action[State]) -> Action[State]:
    """The action with the end-of-game check after its effect: "The game ends immediately once a player's
    Temple Marker reaches or exceeds the same space as either their Combat or Trade Marker"."""
    effect = a.effect

    def run(d: State, player: str, act: dict[str, Any], out: list[dict[str, Any]]) -> None:
        effect(d, player, act, out)
        if d["phase"] == "main":
            check_end(d, out)

    return Action(a.type, a.check, run, chance=a.chance, undoable=a.undoable)


GAME: Game[State] = Game(
    name="great_sea",
    actions={
        k: _ending(a)
        for k, a in action_table(
            setup.ACTIONS,
            start_of_turn.ACTIONS,
            worker.ACTIONS,
            develop.ACTIONS,
            fortify.ACTIONS,
            trade.ACTIONS,
            research.ACTIONS,
            construct.ACTIONS,
            mobilise.ACTIONS,
            combat.ACTIONS,
            special_effects.ACTIONS,
        ).items()
    },
    setup=setup.set_up,
    draw_chance=setup.draw_chance,
    after_chance=after_chance,
    next_chance=next_chance,
    undo_blocked=undo_blocked,
    options=OPTIONS,
)


def new_game(
    players: list[str], seed: int, options: dict[str, Any] | None = None
) -> tuple[GameState, list[dict[str, Any]]]:
    """A game of The Great Sea for 2-4 players; returns the state and its events."""
    if not isinstance(players, list) or not 2 <= len(players) <= 4:
        raise Invalid("The Great Sea needs 2 to 4 players; name them by colour, e.g. red blue.")
    if len(set(players)) != len(players) or not all(isinstance(c, str) and c.isidentifier() for c in players):
        raise Invalid("player names must be distinct single words (colours such as red, blue).")
    if "table" in players:
        raise Invalid("'table' is reserved for chance outcomes sent by the table; choose another name.")
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise Invalid("the seed must be a whole number.")
    opts = dict(OPTIONS)
    for k, v in (options or {}).items():
        if k not in opts:
            raise Invalid(f"unknown option {k!r} for The Great Sea; known options: {', '.join(opts)}.")
        opts[k] = v
    if opts["combat_cards"] not in ("basic", "standard"):
        raise Invalid("combat_cards is 'basic' (recommended for a first game) or 'standard'.")
    event = {
        "seq": 0,
        "type": "game_created",
        "player": "table",
        "action": {"type": "game_created", "players": list(players), "seed": seed, "options": opts},
    }
    return engine.start(GAME, event)
