"""Dead Reckoning on the core: its actions, chapter by chapter, its setup and its chance.

Every action is an `Action` in the module of the rulebook chapter that defines it (`ACTIONS` at the end
of each module); this module only lists the chapters. Expansions (Letters of Marque, Deep Legends) will
be modules of their own with `ACTIONS`, a setup step and data, switched on by the game's options:
`game_for(options)` is where they join the base game's chapters (Deep Legends' `ingame.extend` with the
`deep_legends` option; docs/deep-legends.md).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rules.core import engine
from rules.core.actions import Game, action_table
from rules.core.errors import Invalid
from rules.core.state import GameState
from rules.dead_reckoning import (
    abilities,
    achievements,
    advancements,
    battles,
    buying,
    cargo,
    choosing,
    cleanup,
    sailing,
    sailors,
    setup,
)
from rules.dead_reckoning.chance import draw_chance
from rules.dead_reckoning.model import State
from rules.dead_reckoning.turn import after_chance

# the options a game is created with, and their defaults (docs/rules-engine.md)
OPTIONS: Mapping[str, Any] = {
    "auto_chance": True,
    "bonus_tokens": False,
    "cards_file": None,
    "boards_file": None,
    "upgrades_file": None,
}


def next_chance(d: State) -> dict[str, Any] | None:
    """The chance request to draw now: the first pending one, unless a battle must be finished first."""
    return d["pending"][0] if d["pending"] and not d["battle"] else None


def undo_blocked(d: State) -> bool:
    return bool(d["pending"] or d["battle"])


GAME: Game[State] = Game(
    name="dead_reckoning",
    actions=action_table(
        setup.ACTIONS,
        sailing.ACTIONS,
        advancements.ACTIONS,
        sailors.ACTIONS,
        cargo.ACTIONS,
        buying.ACTIONS,
        abilities.ACTIONS,
        battles.ACTIONS,
        choosing.ACTIONS,
        cleanup.ACTIONS,
        achievements.ACTIONS,
    ),
    setup=setup.set_up,
    draw_chance=draw_chance,
    after_chance=after_chance,
    next_chance=next_chance,
    undo_blocked=undo_blocked,
    options=OPTIONS,
)


# options an expansion adds only when given (the base game's `game_created` stays as it was without them)
EXPANSION_OPTIONS = ("deep_legends",)
_EXTENDED: dict[str, Game[State]] = {}


def game_for(options: Mapping[str, Any]) -> Game[State]:
    """The game a set of options plays: the base game, with each expansion whose option is given."""
    if options.get("deep_legends"):
        if "deep_legends" not in _EXTENDED:
            from rules.dead_reckoning.deep_legends import ingame

            _EXTENDED["deep_legends"] = ingame.extend(GAME)
        return _EXTENDED["deep_legends"]
    return GAME


def new_game(
    players: list[str], seed: int, options: dict[str, Any] | None = None
) -> tuple[GameState, list[dict[str, Any]]]:
    """A game set up for 2-4 players; returns the state and its events (game_created, then setup chance)."""
    if not isinstance(players, list) or not 2 <= len(players) <= 4:
        raise Invalid("a game needs 2 to 4 players; name them by colour, e.g. red blue green.")
    if len(set(players)) != len(players) or not all(isinstance(c, str) and c.isidentifier() for c in players):
        raise Invalid("player names must be distinct single words (colours such as red, blue).")
    if players and "table" in players:
        raise Invalid("'table' is reserved for chance outcomes sent by the table; choose another name.")
    if not isinstance(seed, int):
        raise Invalid("the seed must be a whole number.")
    opts = dict(OPTIONS)
    for k, v in (options or {}).items():
        if k not in opts and k not in EXPANSION_OPTIONS:
            known = ", ".join([*OPTIONS, *EXPANSION_OPTIONS])
            raise Invalid(f"unknown game option {k!r}; known options: {known}.")
        opts[k] = v
    event = {
        "seq": 0,
        "type": "game_created",
        "player": "table",
        "action": {"type": "game_created", "players": list(players), "seed": seed, "options": opts},
    }
    return engine.start(game_for(opts), event)
