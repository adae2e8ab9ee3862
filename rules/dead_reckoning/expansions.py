"""The expansions of Dead Reckoning: which exist (by the name the option `expansions` and the CLI use), and
what one adds to the base game (`Expansion`). Each is a package of its own, imported only when a game names
it; `game.game_for` joins it to the base game's actions and `cards.catalog` extends the card data with its
`extend_catalog`.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from rules.core.actions import Action, Notices
from rules.dead_reckoning.model import State

# expansion name -> the module whose `EXPANSION` describes it (and whose `extend_catalog` adds its card data)
EXPANSION_MODULES: Mapping[str, str] = {
    "letters-of-marque": "rules.dead_reckoning.letters_of_marque",
}

Check = Callable[[State, str, dict[str, Any]], dict[str, Any]]
Effect = Callable[[State, str, dict[str, Any], Notices], None]


@dataclass(frozen=True)
class Expansion:
    """What an expansion adds to the base game (`game_for` joins it).

    `actions`: its own action types. `setup(d, created, notices)`: runs after the base game's setup.
    `checks[type](d, player, normalised) -> normalised`: runs after a base action's check passed (may refuse,
    may add fields its effect needs). `effects[type](d, player, normalised, notices)`: runs after a base
    action's effect. `draw_chance(d, request)`: draws its own chance requests (None: not its kind).
    `legal(d, player, offered) -> offered`: the legal actions of the active player in the main phase, and of
    any seat during a battle, given the base game's (it may add its own and drop base ones its checks
    refuse). `view(d, view)`: adds its part to the public view (under `view["expansions"][name]`).
    `battle_chance`: kinds of its chance requests that are drawn while a battle is under way (the base game
    draws nothing until the battle is resolved). `chance_options(d, request)`: every outcome of one of its
    chance requests a person at the table may report (the faces of a die, the tokens it may be), offered as
    legal actions when the table reports chance (None: not its kind, the base game offers one drawn)."""

    name: str
    actions: tuple[Action[State], ...] = ()
    setup: Callable[[State, dict[str, Any], Notices], None] | None = None
    checks: Mapping[str, Check] = field(default_factory=dict)
    effects: Mapping[str, Effect] = field(default_factory=dict)
    draw_chance: Callable[[State, dict[str, Any]], dict[str, Any] | None] | None = None
    legal: Callable[[State, str, list[dict[str, Any]]], list[dict[str, Any]]] | None = None
    view: Callable[[State, dict[str, Any]], None] | None = None
    battle_chance: frozenset[str] = frozenset()
    chance_options: Callable[[State, dict[str, Any]], list[dict[str, Any]] | None] | None = None


def module(name: str) -> Any:
    """The expansion's module (imported on first use)."""
    return importlib.import_module(EXPANSION_MODULES[name])


# The Deep Legends saga is switched on by its own option (`deep_legends`, a campaign's game), not named in
# `expansions`; like an expansion, the base game reaches its parts only through this name, on first use.
SAGA_PACKAGE = "rules.dead_reckoning.deep_legends"


def saga_part(part: str) -> Any:
    """One module of the Deep Legends saga (`cards`, `legal`, ...), imported on first use."""
    return importlib.import_module(f"{SAGA_PACKAGE}.{part}")


_LOADED: dict[str, Expansion] = {}


def expansion(name: str) -> Expansion:
    ex = _LOADED.get(name)
    if ex is None:
        ex = _LOADED[name] = module(name).EXPANSION
    return ex
