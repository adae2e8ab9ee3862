"""How a game is described to the core: its actions (one object each) and the few hooks the core calls.

An `Action` holds everything about one action type: its check (legality, returning the normalised
action that goes into the event), its effect (folding that event into the state), and what the core
needs to know (is it a chance outcome, may it be undone). A `Game` is a table of actions plus the
game's setup, its chance draws and what follows a chance outcome. Adding an action is writing one
`Action` in its chapter's module and listing it in that module's `ACTIONS`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

Data = dict[str, Any]  # a state's data as the core holds it: plain JSON data
Notices = list[dict[str, Any]]
# the game's typed view of that data (Dead Reckoning: rules.dead_reckoning.model.State, a TypedDict)
D = TypeVar("D")


@dataclass(frozen=True, slots=True)
class Action(Generic[D]):
    """One action type: `check(data, player, action) -> normalised action` raises a `RulesError` and changes
    nothing when refused; `effect(data, player, normalised, notices)` applies the event to the state.

    `chance`: an outcome of chance (the table reports it, or with `auto_chance` the game draws it); the core
    runs the game's `after_chance` after its effect, and it can never be undone. `undoable`: False for
    actions that reveal something to the table (a battle, the end of a turn)."""

    type: str
    check: Callable[[D, str, dict[str, Any]], dict[str, Any]]
    effect: Callable[[D, str, dict[str, Any], Notices], None]
    chance: bool = False
    undoable: bool = True


@dataclass(frozen=True, slots=True)
class Game(Generic[D]):
    """A game on the core. `setup(data, created_action, notices)` folds `game_created` into empty data;
    `draw_chance(data, request)` draws the pending request's outcome from the state's RNG (an action);
    `after_chance(data, notices)` continues once the pending chance requests are all answered;
    `next_chance(data)`: the chance request to draw now with `auto_chance`, or None (nothing pending, or the
    game waits for something else first); `undo_blocked(data)`: True while something the table must finish
    (a chance step, a battle) forbids undo;
    `turn_notice`: the notice type that starts a turn (the core then takes the turn's undo base);
    `legal(state, player)`: the actions a seat may send now, with every offer of the game's expansions joined
    once (the facade joins it when it looks up the game a state plays, and its `legal_actions` calls it;
    None: the facade finds the generator itself)."""

    name: str
    actions: Mapping[str, Action[D]]
    setup: Callable[[D, dict[str, Any], Notices], None]
    draw_chance: Callable[[D, dict[str, Any]], dict[str, Any]]
    after_chance: Callable[[D, Notices], None]
    next_chance: Callable[[D], dict[str, Any] | None]
    undo_blocked: Callable[[D], bool]
    turn_notice: str = "turn_started"
    options: Mapping[str, Any] = field(default_factory=dict)
    legal: Callable[[Any, str], list[dict[str, Any]]] | None = None  # (a `GameState`, a seat)


def action_table(*chapters: Iterable[Action[D]]) -> dict[str, Action[D]]:
    """The actions of a game from its chapters' `ACTIONS`; an action type defined twice is a programming
    error."""
    table: dict[str, Action[D]] = {}
    for chapter in chapters:
        for a in chapter:
            if a.type in table:
                raise ValueError(f"action {a.type!r} is defined twice")
            table[a.type] = a
    return table
