"""The facade of the rules engine: what the controller, the tablets, the CLI and the benchmark call.

Owns nothing but the stable signatures (docs/architecture.md); the work is in the core
(`rules.core.engine`: apply, fold, replay, undo, chance) and the game's package (`rules.dead_reckoning`:
its chapters, `legal`, `views`). Every function takes and returns plain data or `GameState`; views and
events are JSON-ready dicts.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from rules.core import engine
from rules.core.actions import Game
from rules.core.errors import Illegal, Invalid, RulesError
from rules.core.state import GameState, from_saved, snapshot_base, to_saved
from rules.dead_reckoning import game as dead_reckoning
from rules.dead_reckoning.legal import generator as dr_generator
from rules.dead_reckoning.legal import legal_actions as dr_legal_actions
from rules.dead_reckoning.views import event_view as dr_event_view
from rules.dead_reckoning.views import private_view as dr_private_view
from rules.dead_reckoning.views import public_view as dr_public_view
from rules.great_sea import game as great_sea
from rules.great_sea import legal as great_sea_legal
from rules.great_sea import views as great_sea_views

STATE_FORMAT = "smart-table/dead-reckoning-state@1"

__all__ = [
    "GameState",
    "new_game",
    "new_game_with_events",
    "setup_events",
    "apply",
    "fold",
    "replay",
    "public_view",
    "private_view",
    "legal_actions",
    "is_over",
    "state_to_json",
    "state_from_json",
    "event_view",
    "correct",
    "RulesError",
]


GAMES = ("dead-reckoning", great_sea.GAME_NAME)  # options["game"]; absent: dead-reckoning


def _sea(options: Any) -> bool:
    """Which game a set of options plays (options["game"]: "dead-reckoning", the default, or "great-sea")."""
    game = (options or {}).get("game", "dead-reckoning") if isinstance(options, dict) else "dead-reckoning"
    if game not in GAMES:
        raise Invalid(f"unknown game {game!r}; the table plays {', '.join(GAMES)}.")
    return bool(game == great_sea.GAME_NAME)


def _dr_options(options: dict[str, Any] | None) -> dict[str, Any] | None:
    """Dead Reckoning's own options: without the "game" key, which its validation does not know."""
    if not options:
        return None
    rest = {k: v for k, v in options.items() if k != "game"}
    return rest or None


def _new(
    players: list[str], seed: int, options: dict[str, Any] | None
) -> tuple[GameState, list[dict[str, Any]]]:
    if _sea(options):
        return great_sea.new_game(players, seed, options)
    return dead_reckoning.new_game(players, seed, _dr_options(options))


def new_game(players: list[str], seed: int, options: dict[str, Any] | None = None) -> GameState:
    """A game set up for 2-4 players (seat order starts at the first player once chosen).

    options["game"] chooses the game: "dead-reckoning" (the default) or "great-sea" (The Great Sea: its
    options are auto_chance and combat_cards, "basic" or "standard"; docs/great-sea.md).

    options: auto_chance (default True: the seeded RNG supplies every chance outcome; False: the table
    reports them as actions), bonus_tokens (default False), cards_file / boards_file / upgrades_file
    (a user's card data in place of the sample set). The setup's events: `setup_events(state)`.
    """
    return _new(players, seed, options)[0]


def new_game_with_events(
    players: list[str], seed: int, options: dict[str, Any] | None = None
) -> tuple[GameState, list[dict[str, Any]]]:
    """The new game and the events that built it (game_created, then any chance drawn in setup)."""
    return _new(players, seed, options)


def setup_events(state: GameState) -> list[dict[str, Any]]:
    """The events of `state`'s setup, regenerated deterministically from its seed and options."""
    c = state.data["created"]
    return _new(c["players"], c["seed"], c["options"])[1]


def apply(
    state: GameState, command: dict[str, Any], *, inplace: bool = False
) -> tuple[GameState, list[dict[str, Any]]]:
    """Check `command` = {"seq", "player", "action"} and return the new state and its events.

    Raises Invalid / Illegal / Ambiguous (all RulesError) and then changes nothing. `inplace=True` skips
    the copy (simulation and benchmarks: the old state object is then the new one)."""
    return engine.apply(state.game or _game(state), state, command, inplace)


def _game(state: GameState) -> Game[Any]:
    game = state.game  # looked up once per state object: apply and legal_actions run for every action
    if game is None:
        game = state.game = _game_for(state.data["options"])
    return game


def _game_for(options: dict[str, Any]) -> Game[Any]:
    if _sea(options):
        return great_sea.GAME
    key = (tuple(options.get("expansions") or ()), bool(options.get("deep_legends")))
    got = _DEAD_RECKONING.get(key)
    if got is None:
        # Dead Reckoning with these options and its legal-action generator, the expansions' offers joined
        # once (`Game.legal`): `legal_actions` then looks nothing up per state
        got = replace(dead_reckoning.game_for(options), legal=dr_generator(options))
        _DEAD_RECKONING[key] = got
    return got


_DEAD_RECKONING: dict[tuple[tuple[str, ...], bool], Game[Any]] = {}


def fold(state: GameState, event: dict[str, Any]) -> GameState:
    if event.get("type") == "game_created" and isinstance(event.get("action"), dict):
        return engine.fold(_game_for(event["action"].get("options") or {}), state, event)
    return engine.fold(_game(state), state, event)


def replay(events: list[dict[str, Any]]) -> GameState:
    first = events[0] if events and isinstance(events[0], dict) else {}
    options = first.get("action", {}).get("options") if isinstance(first.get("action"), dict) else None
    return engine.replay(_game_for(options or {}), events)


def public_view(state: GameState) -> dict[str, Any]:
    if _sea(state.data["options"]):
        return great_sea_views.public_view(state)
    return dr_public_view(state)


def private_view(state: GameState, player: str) -> dict[str, Any]:
    if _sea(state.data["options"]):
        return great_sea_views.private_view(state, player)
    return dr_private_view(state, player)


def legal_actions(state: GameState, player: str) -> list[dict[str, Any]]:
    game = state.game or _game(state)
    legal = game.legal  # the game's generator, its expansions' offers joined once (`Game.legal`)
    if legal is not None:
        return legal(state, player)
    if game is great_sea.GAME:
        return great_sea_legal.legal_actions(state, player)
    return dr_legal_actions(state, player)


def event_view(event: dict[str, Any], player: str | None = None) -> dict[str, Any]:
    """An event as `player` (None: the public) may see it, whichever game it is from (each game's secret
    action types are its own)."""
    return great_sea_views.event_view(dr_event_view(event, player), player)


def is_over(state: GameState) -> bool:
    """True once the game has been scored (`public_view(state)["scores"]` holds the result)."""
    return state.phase == "over"


def state_to_json(state: GameState) -> dict[str, Any]:
    return {"format": STATE_FORMAT, "data": to_saved(state.data)}


_KEYS = (
    "seq",
    "players",
    "options",
    "rng",
    "phase",
    "active",
    "grid",
    "p",
    "pending",
    "turn",
    "decks",
    "supply",
)


_SEA_KEYS = ("seq", "players", "options", "rng", "phase", "active", "regions", "p", "pending", "turn")


def state_from_json(data: Any) -> GameState:
    if isinstance(data, dict) and data.get("format") == STATE_FORMAT and isinstance(data.get("data"), dict):
        if _sea(data["data"].get("options")):
            d = data["data"]
            missing = [k for k in _SEA_KEYS if k not in d]
            if missing:
                raise Invalid(
                    f"the saved game is incomplete (missing {', '.join(missing)}); it cannot be loaded."
                )
            return GameState(from_saved(d))
    if not isinstance(data, dict) or data.get("format") != STATE_FORMAT:
        raise Invalid(
            f"this is not a saved game (expected format {STATE_FORMAT!r}); create one with 'rules new'."
        )
    d = data.get("data")
    if not isinstance(d, dict) or any(k not in d for k in _KEYS):
        missing = [k for k in _KEYS if not isinstance(d, dict) or k not in d]
        raise Invalid(f"the saved game is incomplete (missing {', '.join(missing)}); it cannot be loaded.")
    return GameState(from_saved(d))


def correct(
    events: list[dict[str, Any]], target_seq: int, action: dict[str, Any] | None, referee: str = "referee"
) -> tuple[GameState, list[dict[str, Any]]]:
    """A referee's correction of a misread: the event at `target_seq` is replaced by `action` (or dropped
    when None) and every later command is applied again in order; those no longer legal are dropped.

    Returns the corrected state and the log with one `correction` event appended (the original events are
    kept: the log is an audit trail). Replaying that log gives the corrected state."""
    live = replay(events)
    target = next((e for e in events if e.get("seq") == target_seq and not e.get("notice")), None)
    if target is None or target.get("type") in ("game_created", "correction"):
        raise Invalid(f"there is no correctable event {target_seq} in this log.")
    if action is not None and (not isinstance(action, dict) or "type" not in action):
        raise Invalid("the correction must be an action object with a 'type'.")
    before = [e for e in events if e["seq"] < target_seq]
    state = replay(before)
    auto = state.data["options"].get("auto_chance")
    state.data["options"]["auto_chance"] = False  # recorded chance outcomes are replayed, not redrawn
    dropped: list[int] = []
    later = [
        e
        for e in events
        if e["seq"] > target_seq and not e.get("notice") and e["type"] not in ("correction",)
    ]
    todo = ([(target, action)] if action is not None else []) + [(e, e["action"]) for e in later]
    if action is None:
        dropped.append(target_seq)
    for ev, act in todo:
        act = {k: v for k, v in act.items()}
        try:
            state, _ = engine.apply(
                _game(state), state, {"seq": state.seq, "player": ev["player"], "action": act}
            )
        except RulesError:
            dropped.append(ev["seq"])
    state.data["options"]["auto_chance"] = auto
    state.data["rng"] = live.data["rng"]  # recorded outcomes were reused: carry on from the live generator
    if auto:
        state, _ = engine.auto_chance(_game(state), state, [])
    d = state.data
    d["turn_log"] = []
    d["turn_base"] = snapshot_base(d)
    event = {
        "seq": live.seq,
        "type": "correction",
        "player": referee,
        "action": {"type": "correction", "target_seq": target_seq, "replacement": action, "dropped": dropped},
        "state": to_saved(d),
    }
    new = engine.fold(_game(live), live, event)
    return new, [*events, event]


def refusal(exc: RulesError) -> dict[str, str]:
    """A refusal as data (for MQTT replies and the CLI)."""
    return exc.to_json()


_ = Illegal  # re-exported for callers that import errors from the facade
