"""The game-independent engine: apply, fold, replay, chance as recorded events, undo, offers.

A game is a `rules.core.actions.Game`: its actions (check + effect each) and a few hooks. `apply`
checks a command completely before touching anything (so a refusal never changes the state), then
folds its event into a copy (or, for simulation, into the state itself); `fold` and `replay` use the
same fold, so a state is always the fold of its events. Chance outcomes are actions of their own,
sent by the table or, with the `auto_chance` option, drawn by the game from the seeded RNG in the
state and recorded in the event (with the RNG after it), so replay never draws.

Undo: each turn starts from a base (`turn_base`, see `rules.core.state.next_base`) and logs its events
(`turn_log`); undoing refolds the turn's events but the one undone over the base.

The core reads these keys of a game's data and no others: `seq`, `players`, `active`, `phase` ("main":
inside a turn), `options.auto_chance`, `rng`, `turn_base`, `turn_log`.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from rules.core.actions import Action, Data, Game, Notices
from rules.core.errors import Illegal, Invalid
from rules.core.state import GameState, from_saved, next_base, restore_base


def start(game: Game[Any], created: dict[str, Any]) -> tuple[GameState, list[dict[str, Any]]]:
    """A new game from its `game_created` event (already validated by the game); returns the state and
    its events (game_created, its notices, then any chance drawn in setup with `auto_chance`)."""
    d: Data = {"seq": 0}
    out: Notices = []
    fold_into(game, d, created, out)
    return auto_chance(game, GameState(d), [created, *out])


def apply(
    game: Game[Any], state: GameState, command: Any, inplace: bool = False
) -> tuple[GameState, list[dict[str, Any]]]:
    """Check a command fully, then fold its event into a copy of `state` (or into `state` itself with
    `inplace`: the check runs before anything is touched, so a refusal still changes nothing)."""
    if not isinstance(command, dict):
        raise Invalid("a command must be an object with seq, player and action.")
    seq, player, action = command.get("seq"), command.get("player"), command.get("action")
    if not isinstance(seq, int) or isinstance(seq, bool):
        raise Invalid("the command has no sequence number; send the seq of the state it was made against.")
    if not isinstance(action, dict) or not isinstance(action.get("type"), str):
        raise Invalid("the command's action must be an object with a 'type'.")
    d = state.data
    if seq != d["seq"]:
        raise Illegal(
            f"this command was made against state {seq} but the game is at {d['seq']}; "
            "look again at the table and resend it."
        )
    if not isinstance(player, str) or (player != "table" and player not in d["players"]):
        raise Invalid(f"{player!r} is not a player in this game (players: {', '.join(d['players'])}).")
    atype = action["type"]
    if atype == "undo":
        return apply_undo(game, state, player)
    act = game.actions.get(atype)
    if act is None:
        raise Invalid(f"unknown action type {atype!r}; see docs/rules-engine.md for the list.")
    offers = state.offers  # the checks `legal_actions` kept (abilities, battles); most states keep none
    normalized = offers.take(d["seq"], player, action) if offers.kept else None
    if normalized is None:
        normalized = act.check(d, player, action)
    event = {"seq": d["seq"], "type": atype, "player": player, "action": normalized}
    new = state if inplace else state.copy()
    out: Notices = []
    fold_action(game, act, new.data, event, out)
    return auto_chance(game, new, [event, *out])


def auto_chance(
    game: Game[Any], state: GameState, events: list[dict[str, Any]]
) -> tuple[GameState, list[dict[str, Any]]]:
    """With `auto_chance`, draw every chance outcome the game waits for now, each recorded as its own
    event."""
    d = state.data
    if not d["options"].get("auto_chance"):
        return state, events
    req = game.next_chance(d)
    while req is not None:
        action = game.draw_chance(d, req)
        event = {
            "seq": d["seq"],
            "type": action["type"],
            "player": "table",
            "action": action,
            "rng": d["rng"],
        }
        out: Notices = []
        fold_action(game, game.actions[action["type"]], d, event, out)
        events.append(event)
        events.extend(out)
        req = game.next_chance(d)
    return state, events


def fold(game: Game[Any], state: GameState, event: dict[str, Any]) -> GameState:
    """The state after one event (a copy). Replay is folding the log from `game_created`."""
    d: Data = {"seq": 0} if event.get("type") == "game_created" else state.copy().data
    fold_into(game, d, event, [])
    return GameState(d)


def replay(game: Game[Any], events: list[dict[str, Any]]) -> GameState:
    if not events or events[0].get("type") != "game_created":
        raise Invalid("a game log must start with its game_created event.")
    d: Data = {"seq": 0}
    for ev in events:
        fold_into(game, d, ev, [])
    return GameState(d)


def fold_into(game: Game[Any], d: Data, event: dict[str, Any], out: Notices, replaying: bool = False) -> None:
    """Fold one event into `d` in place; the effect's notices are numbered after it and added to `out`.
    `replaying`: refolding a turn for its undo base (`replay_turn`), which takes no base of its own."""
    if not isinstance(event, dict) or "type" not in event:
        raise Invalid("an event must be an object with a type.")
    if event.get("notice"):
        # a consequence already folded with the event that caused it: it only keeps its place in the log
        if not isinstance(event.get("seq"), int) or event["seq"] >= d["seq"]:
            raise Invalid(
                f"notice {event.get('seq')} comes before the event that caused it; the log is out of order."
            )
        return
    if event["type"] != "game_created" and event.get("seq") != d["seq"]:
        raise Invalid(
            f"event {event.get('seq')} does not follow state {d['seq']}; the log is out of order or has a "
            "gap."
        )
    etype = event["type"]
    if etype == "game_created":
        game.setup(d, event["action"], out)
        d["seq"] = 1
        return
    if etype == "undo":
        fold_undo(game, d, event)
        return
    if etype == "correction":
        seq = d["seq"]
        d.clear()
        d.update(from_saved(event["state"]))
        d["seq"] = seq + 1
        return
    act = game.actions.get(etype)
    if act is None:
        raise Invalid(
            f"event {event.get('seq')} has an unknown type {etype!r}; this log is not of this game."
        )
    fold_action(game, act, d, event, out, replaying)


def fold_action(
    game: Game[Any], act: Action[Any], d: Data, event: dict[str, Any], out: Notices, replaying: bool = False
) -> None:
    """`fold_into` for an event of a game action (`act`) that follows `d`: the core's own events (`apply`,
    `auto_chance`) come here directly, having been built in order, rather than through the log's checks."""
    d["seq"] += 1
    if d["phase"] == "main":
        d["turn_log"].append(dict(event))  # the turn so far, for undo (refolded over turn_base)
    if "rng" in event:
        d["rng"] = event["rng"]
    mark = len(out)
    act.effect(d, event["player"], event["action"], out)
    if act.chance:
        game.after_chance(d, out)
    if len(out) == mark:
        return
    turn_notice = game.turn_notice
    for i in range(mark, len(out)):
        if out[i]["type"] == turn_notice:
            # a turn started: its base for undo (none while refolding a turn: that base is thrown away)
            d["turn_base"] = None if replaying else next_base(d, partial(replay_turn, game))
            d["turn_log"] = []
            break
    for i in range(mark, len(out)):
        n = out[i]
        if "seq" not in n:
            n["seq"] = d["seq"]
            n["notice"] = True
            d["seq"] += 1


def apply_undo(game: Game[Any], state: GameState, player: str) -> tuple[GameState, list[dict[str, Any]]]:
    d = state.data
    if d["phase"] != "main" or player != d["active"]:
        raise Illegal("only the active player may undo, and only during their own turn.")
    log = d["turn_log"]
    if not log:
        raise Illegal("there is nothing to undo this turn.")
    last = log[-1]
    act = game.actions[last["type"]]
    if last["player"] != player and not act.chance:
        raise Illegal(f"the last action was {last['player']}'s, not yours: it cannot be undone by you.")
    if act.chance or not act.undoable or last.get("revealed") or game.undo_blocked(d):
        raise Illegal(
            "that cannot be undone: it revealed something (a board, a card or a battle) to the table."
        )
    event = {
        "seq": d["seq"],
        "type": "undo",
        "player": player,
        "action": {"type": "undo", "undone": last["seq"]},
    }
    new = state.copy()
    fold_undo(game, new.data, event)
    return new, [event]


def replay_turn(game: Game[Any], d: Data, log: list[dict[str, Any]]) -> Data:
    """`d` (a turn's base) with the turn's logged events folded over it, as undo does (`state.next_base`)."""
    for e in log:
        d["seq"] = e["seq"]
        fold_into(game, d, e, [], replaying=True)
    return d


def fold_undo(game: Game[Any], d: Data, event: dict[str, Any]) -> None:
    seq = d["seq"]
    keep = [e for e in d["turn_log"] if e["seq"] != event["action"]["undone"]]
    base_ref = d["turn_base"]
    d.clear()
    d.update(restore_base(base_ref))
    d["turn_base"] = base_ref  # immutable: shared by every state of the turn
    for e in keep:
        d["seq"] = e["seq"]
        fold_into(game, d, e, [])
    d["seq"] = seq + 1
