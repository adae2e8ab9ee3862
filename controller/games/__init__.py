"""The games the table plays, each declared once: the controller routes by these declarations, never by a
game's name (docs/controller.md, "Games").

A game's declaration (`TableGame`) says how the controller serves it: its words for the tablets (a module
of its own), which chance outcomes a seated player's tablet may report, whether the ocean-grid camera and
zone sensors move its ships, and the options a new game of it is set up with from the table's config. The
rules engine stays the single source of truth: `rules.api` plays either game by `options["game"]`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

Decorate = Callable[..., dict[str, Any]]


def _no_choices(table: dict[str, Any]) -> list[dict[str, Any]]:
    return []


def _no_choice_problem(chosen: dict[str, Any]) -> str | None:
    return None if not chosen else "This game has no choices on the new-game screen."


def _as_configured(table: dict[str, Any], chosen: dict[str, Any]) -> dict[str, Any]:
    return table


@dataclass(frozen=True)
class TableGame:
    name: str  # the engine's options["game"] and the config's table.game
    title: str  # as the box says it, for the tablets' title and the new-game screen
    decorate_public: Callable[[Any, Any, dict[str, Any]], dict[str, Any]]
    decorate_private: Callable[[Any, Any, str, dict[str, Any]], dict[str, Any]]
    decorate_prompts: Callable[[Any, dict[str, Any], str | None], dict[str, Any]]
    decorate_events: Callable[[Any, dict[str, Any]], dict[str, Any]]
    # Chance outcomes that no camera reads and any seated player's tablet may report (open ones), or only
    # the player's own tablet (secret ones), at a table where the engine draws nothing itself.
    open_chance: frozenset[str]
    secret_chance: frozenset[str]
    # True: the ocean-grid camera and zone sensors move this game's ships (controller/ships.py).
    ocean_grid: bool
    # The options of a new game from the table's config ([table] section) and whether chance is observed.
    new_options: Callable[[dict[str, Any], bool], dict[str, Any]]
    # A sentence when the [table] section cannot set up this game (e.g. another game's expansions).
    config_problem: Callable[[dict[str, Any]], str | None]
    # The new-game screen: what it offers beside the game's name, each `{"key", "id", "label", "chosen"}`
    # (`chosen`: the default, from the [table] section given); a sentence when an answer's choices (the
    # answer less its "game") cannot set up this game; the [table] section as those choices set it.
    new_game_choices: Callable[[dict[str, Any]], list[dict[str, Any]]] = _no_choices
    choice_problem: Callable[[dict[str, Any]], str | None] = _no_choice_problem
    choose: Callable[[dict[str, Any], dict[str, Any]], dict[str, Any]] = _as_configured
    # The game's own table camera, when its map is not the ocean grid (None: none). `camera_watch` is the
    # `smart-table vision` command that reads it, with its layout for the seats' count and the map's
    # calibration file (None: none); `camera_reader` makes the controller's side from the service (it
    # subscribes to its own ZeroMQ topic).
    camera_watch: Callable[[int, Path | None], list[str]] | None = None
    camera_reader: Callable[[Any], Any] | None = None
    # Chance outcomes the ocean-grid camera reads while it is live (its reading wins); while it is not, any
    # seated player's tablet reports them, like the open ones (every sensor can fail: docs/display.md).
    camera_chance: frozenset[str] = frozenset()


def add_event_texts(
    state: Any, payload: dict[str, Any], event_text: Callable[[dict[str, Any], dict[str, Any]], str | None]
) -> dict[str, Any]:
    """A game's `decorate_events`: adds `text` to each public event of an events payload, from the public
    view only, so a line never carries a secret (never raises: words are a courtesy, the events are not)."""
    try:
        from rules.api import public_view

        view = public_view(state)
        for e in payload.get("events") or []:
            if isinstance(e, dict):
                e["text"] = event_text(view, e)
    except Exception:  # noqa: BLE001 - a naming gap must never stop the table publishing its events
        pass
    return payload


DEFAULT = "dead-reckoning"


def _registry() -> dict[str, TableGame]:
    from controller.games import dead_reckoning, great_sea

    return {g.name: g for g in (dead_reckoning.GAME, great_sea.GAME)}


_GAMES: dict[str, TableGame] = {}


def games() -> dict[str, TableGame]:
    """Every game the table plays, by name (the first is the default)."""
    if not _GAMES:
        _GAMES.update(_registry())
    return _GAMES


NAMES = ("dead-reckoning", "great-sea")  # the config's allowed values; tests hold it to games()


def by_name(name: str) -> TableGame:
    return games()[name]


def game_of(state: Any) -> TableGame:
    """The game a state plays (its options["game"]; a state without one, e.g. a test's toy engine, plays
    the default)."""
    data = getattr(state, "data", None)
    options = data.get("options") if isinstance(data, dict) else None
    name = options.get("game", DEFAULT) if isinstance(options, dict) else DEFAULT
    return games().get(str(name)) or games()[DEFAULT]
