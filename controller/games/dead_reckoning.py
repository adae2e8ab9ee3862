"""Dead Reckoning at the table: its words (controller/words.py), its chance reported by tablets, its ships
moved by the ocean-grid camera, its expansions from the config."""

from __future__ import annotations

from typing import Any

from controller import words
from controller.games import TableGame
from rules.dead_reckoning.expansions import EXPANSION_MODULES

# The new-game screen's expansions, by the names the engine's option `expansions`, the CLI's `--expansion`
# and the config's table.expansions use (a test holds this to EXPANSION_MODULES), and Deep Legends.
EXPANSION_TITLES = {"letters-of-marque": "Letters of Marque"}
# Deep Legends is no `expansions` name: its saga is a campaign's (`smart-table campaign`), and a one-off game
# takes its Non-Saga Content ("These can simply be added to your game right away"): the engine's option
# `deep_legends` with the Golden Island board and the Influence Ship Upgrade tiles.
DEEP_LEGENDS = "deep-legends"
DEEP_LEGENDS_TITLE = "Deep Legends"
DEEP_LEGENDS_ONE_OFF = {"golden_island": True, "influence_tiles": True}


def new_options(table: dict[str, Any], observed: bool) -> dict[str, Any]:
    options: dict[str, Any] = {"auto_chance": False} if observed else {}
    names = [str(x) for x in table.get("expansions") or []]
    if [x for x in names if x != DEEP_LEGENDS]:
        options["expansions"] = [x for x in names if x != DEEP_LEGENDS]
    if DEEP_LEGENDS in names:
        options["deep_legends"] = dict(DEEP_LEGENDS_ONE_OFF)
    return options


def in_play(options: dict[str, Any]) -> list[str]:
    """The expansions a game's options play, by title, for the tablets ("Letters of Marque")."""
    out = [EXPANSION_TITLES.get(str(x), str(x)) for x in options.get("expansions") or []]
    if options.get("deep_legends") is not None:
        out.append(DEEP_LEGENDS_TITLE)
    return out


def new_game_choices(table: dict[str, Any]) -> list[dict[str, Any]]:
    """The expansions the new-game screen offers, each ticked as the table's config has it."""
    configured = set(table.get("expansions") or [])
    offered = [
        *((n, EXPANSION_TITLES.get(n, n)) for n in EXPANSION_MODULES),
        (DEEP_LEGENDS, DEEP_LEGENDS_TITLE),
    ]
    return [{"key": "expansions", "id": n, "label": t, "chosen": n in configured} for n, t in offered]


def choice_problem(chosen: dict[str, Any]) -> str | None:
    allowed = [*EXPANSION_MODULES, DEEP_LEGENDS]
    extra = sorted(set(chosen) - {"expansions"})
    names = chosen.get("expansions", [])
    if extra or not isinstance(names, list) or not all(isinstance(x, str) and x in allowed for x in names):
        return f"Choose Dead Reckoning's expansions from: {', '.join(allowed)} (or none)."
    if len(set(names)) != len(names):
        return "Choose each expansion once."
    return None


def choose(table: dict[str, Any], chosen: dict[str, Any]) -> dict[str, Any]:
    """The [table] section with the expansions the new-game screen chose instead of the configured ones."""
    return {**table, "expansions": list(chosen.get("expansions", table.get("expansions") or []))}


def decorate_public(engine: Any, state: Any, payload: dict[str, Any]) -> dict[str, Any]:
    """The base game's words, and the expansions in play beside the game's title (`game.expansions`)."""
    data = getattr(state, "data", None)
    options = data.get("options") if isinstance(data, dict) else None
    if isinstance(payload.get("game"), dict):
        payload["game"]["expansions"] = in_play(options if isinstance(options, dict) else {})
    return words.decorate_public(engine, state, payload)


def config_problem(table: dict[str, Any]) -> str | None:
    return None


GAME = TableGame(
    name="dead-reckoning",
    title="Dead Reckoning",
    decorate_public=decorate_public,
    decorate_private=words.decorate_private,
    decorate_prompts=words.decorate_prompts,
    decorate_events=words.decorate_events,
    # A card turned up from a row box is open; a player's own Sailor draw and Bonus tokens are theirs. No
    # camera reads a Letters of Marque Prime Cargo token or the Saga die, nor lays out Favor Rewards: open.
    open_chance=frozenset(
        {"draw_advancement", "choose_first_player", "flip_prime_cargo", "saga_die", "place_favour_rewards"}
    ),
    secret_chance=frozenset({"draw_sailors", "deal_bonus"}),
    # The Ocean board turned up where a ship explores: the camera sees it; with no camera live, a tablet.
    camera_chance=frozenset({"reveal_board"}),
    ocean_grid=True,
    new_options=new_options,
    config_problem=config_problem,
    new_game_choices=new_game_choices,
    choice_problem=choice_problem,
    choose=choose,
)
