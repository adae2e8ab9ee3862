"""Dead Reckoning on the core: its actions, chapter by chapter, its setup and its chance.

Every action is an `Action` in the module of the rulebook chapter that defines it (`ACTIONS` at the end
of each module); this module only lists the chapters. Expansions are packages of their own that describe
themselves as an `Expansion` (actions, a setup step, checks and effects added after the base game's, their
chance, their legal actions and views), named in the option `expansions` and joined to the base game by
`game_for(options)`; the base game's chapters know nothing of them. Deep Legends' saga joins with its own
option `deep_legends` (`ingame.extend`, docs/deep-legends.md), on top of any expansions named.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from rules.core import engine
from rules.core.actions import Game, Notices, action_table
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
from rules.dead_reckoning.expansions import EXPANSION_MODULES, Check, Effect, Expansion, expansion
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
# an option kept only when given (a base game's options stay as they were): the expansions played, by name
EXPANSIONS_OPTION = "expansions"


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
EXPANSION_OPTIONS = (EXPANSIONS_OPTION, "deep_legends")
_GAMES: dict[tuple[tuple[str, ...], bool], Game[State]] = {((), False): GAME}


def expansions_of(options: Mapping[str, Any]) -> tuple[str, ...]:
    """The expansions a game's options name (older saved games have no such option: none)."""
    names = options.get("expansions")
    return tuple(names) if names else ()


def game_for(options: Mapping[str, Any]) -> Game[State]:
    """The game a set of options plays: the base game, joined by the expansions it names, then by the Deep
    Legends saga when its option is given."""
    names = options.get("expansions")
    saga = bool(options.get("deep_legends"))
    if not names and not saga:
        return GAME
    key = (tuple(names or ()), saga)
    got = _GAMES.get(key)
    if got is None:
        got = _join(GAME, [expansion(n) for n in key[0]]) if key[0] else GAME
        if saga:
            from rules.dead_reckoning.deep_legends import ingame

            got = ingame.extend(got)
        _GAMES[key] = got
    return got


def _join(base: Game[State], exps: list[Expansion]) -> Game[State]:
    actions = dict(base.actions)
    for ex in exps:
        for t, chk in ex.checks.items():
            actions[t] = replace(actions[t], check=_then_check(actions[t].check, chk))
        for t, eff in ex.effects.items():
            actions[t] = replace(actions[t], effect=_then_effect(actions[t].effect, eff))
    own = action_table(*(ex.actions for ex in exps))
    clash = set(own) & set(actions)
    if clash:
        raise ValueError(f"expansion actions {sorted(clash)} are defined twice")
    actions.update(own)
    setups = [ex.setup for ex in exps if ex.setup is not None]
    draws = [ex.draw_chance for ex in exps if ex.draw_chance is not None]

    def setup_all(d: State, created: dict[str, Any], out: Notices) -> None:
        base.setup(d, created, out)
        for f in setups:
            f(d, created, out)

    def draw_all(d: State, req: dict[str, Any]) -> dict[str, Any]:
        for f in draws:
            got = f(d, req)
            if got is not None:
                return got
        return base.draw_chance(d, req)

    in_battle = frozenset().union(*(ex.battle_chance for ex in exps))

    def next_chance_all(d: State) -> dict[str, Any] | None:
        # the base game's `next_chance`, inline (it runs after every command), plus the expansions' kinds
        p = d["pending"]
        return p[0] if p and (not d["battle"] or p[0]["kind"] in in_battle) else None

    return replace(base, actions=actions, setup=setup_all, draw_chance=draw_all, next_chance=next_chance_all)


def _then_check(first: Check, then: Check) -> Check:
    def check(d: State, player: str, a: dict[str, Any]) -> dict[str, Any]:
        return then(d, player, first(d, player, a))

    return check


def _then_effect(first: Effect, then: Effect) -> Effect:
    def effect(d: State, player: str, a: dict[str, Any], out: Notices) -> None:
        first(d, player, a, out)
        then(d, player, a, out)

    return effect


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
    names = opts.pop(EXPANSIONS_OPTION, None) or []
    if (
        not isinstance(names, list)
        or any(n not in EXPANSION_MODULES for n in names)
        or len(set(names)) != len(names)
    ):
        raise Invalid(
            f"the option 'expansions' must list expansions once each, from: {', '.join(EXPANSION_MODULES)}."
        )
    if names:
        opts[EXPANSIONS_OPTION] = list(names)
    event = {
        "seq": 0,
        "type": "game_created",
        "player": "table",
        "action": {"type": "game_created", "players": list(players), "seed": seed, "options": opts},
    }
    return engine.start(game_for(opts), event)
