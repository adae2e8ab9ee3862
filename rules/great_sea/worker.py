"""Gameplay overview and Worker Actions (rulebook: "Gameplay Overview", "Worker Actions").

"To take an action, players must place a Worker onto 1 of their Action Cards. They immediately resolve all
desired effects of that Action Card in order from top to bottom." "Players can never take the same action
twice in a single turn." Neutral Workers are returned at the end of the turn. An open action's effects are
actions of their own (`develop_pip`, `fortify`, ...) taken in order; `finish_action` skips the rest ("All
effects on Action Cards are optional").
"""

from __future__ import annotations

from typing import Any

from rules.core.actions import Action
from rules.core.errors import Illegal, Invalid
from rules.core.events import notice
from rules.great_sea.data import DICE
from rules.great_sea.dice import value
from rules.great_sea.model import Player, State

PIP_ACTIONS = (4, 5, 6)  # Research, Construct, Mobilise spend their Die's pips


def require_turn(d: State, player: str) -> Player:
    if d["phase"] != "main":
        raise Illegal(
            "the game is not in play: " + ("it is over." if d["phase"] == "over" else "setup first.")
        )
    if d["combat"] is not None:
        raise Illegal("a Combat is under way: finish it first.")
    if player != d["turn_player"]:
        raise Illegal(f"it is {d['turn_player']}'s turn, not {player}'s.")
    return d["p"][player]


def open_step(d: State, player: str, card: int, step: int) -> Player:
    """The player whose open action is on Action Card `card`, still at or before effect `step`."""
    p = require_turn(d, player)
    op = d["turn"]["open"]
    if op is None or op["card"] != card:
        raise Illegal(f"place a Worker on your {DICE[card - 1].capitalize()} Action Card first.")
    if op["step"] > step:
        raise Illegal("Action Card effects are resolved in order from top to bottom: that effect is past.")
    return p


def step_done(d: State, next_step: int) -> None:
    op = d["turn"]["open"]
    assert op is not None
    op["step"] = next_step


def workers_left(d: State, player: str) -> int:
    return 2 + d["p"][player]["neutral"] - d["turn"]["placed"]


def check_take_action(d: State, player: str, action: dict[str, Any]) -> dict[str, Any]:
    require_turn(d, player)
    card = action.get("card")
    if not isinstance(card, int) or isinstance(card, bool) or not 1 <= card <= 6:
        raise Invalid("say which Action Card takes the Worker: card 1 (Develop) to 6 (Mobilise).")
    if d["turn"]["open"] is not None:
        raise Illegal("finish your current action before placing another Worker.")
    if card in d["turn"]["used"]:
        raise Illegal("players can never take the same action twice in a single turn.")
    if workers_left(d, player) <= 0:
        raise Illegal("you have no Worker left this turn: end your turn.")
    return {"type": "take_action", "card": card}


def take_action(d: State, player: str, a: dict[str, Any], out: list[dict[str, Any]]) -> None:
    p = d["p"][player]
    card = a["card"]
    t = d["turn"]
    t["placed"] += 1
    t["used"].append(card)
    t["start_done"] = True
    t["open"] = {"card": card, "step": 0, "pips": value(p, card) if card in PIP_ACTIONS else 0, "piles": []}
    notice(out, "worker_placed", player=player, card=card, action=DICE[card - 1])


def check_finish(d: State, player: str, action: dict[str, Any]) -> dict[str, Any]:
    require_turn(d, player)
    if d["turn"]["open"] is None:
        raise Illegal("no action is open.")
    return {"type": "finish_action"}


def close_action(d: State) -> None:
    op = d["turn"]["open"]
    d["turn"]["open"] = None
    if op is not None and op["card"] != 6:
        return  # only Mobilise marks Ships as moved
    for reg in d["regions"].values():
        for s in reg["ships"]:
            if s["moved"]:
                s["moved"] = False


def finish_action(d: State, player: str, a: dict[str, Any], out: list[dict[str, Any]]) -> None:
    close_action(d)


def check_end_turn(d: State, player: str, action: dict[str, Any]) -> dict[str, Any]:
    require_turn(d, player)
    if d["turn"]["open"] is not None:
        raise Illegal("finish your current action before ending your turn.")
    return {"type": "end_turn"}


def start_turn(d: State, color: str, out: list[dict[str, Any]]) -> None:
    d["turn_player"] = color
    d["active"] = color
    d["turn_no"] += 1
    d["turn"] = {"start_done": False, "placed": 0, "used": [], "open": None}
    notice(out, "turn_started", player=color, turn=d["turn_no"])


def end_turn(d: State, player: str, a: dict[str, Any], out: list[dict[str, Any]]) -> None:
    # "they must always return Neutral Workers to the Main Supply at the end of their turns"
    d["p"][player]["neutral"] = 0
    order = d["players"]
    start_turn(d, order[(order.index(player) + 1) % len(order)], out)


ACTIONS = (
    Action("take_action", check_take_action, take_action),
    Action("finish_action", check_finish, finish_action),
    Action("end_turn", check_end_turn, end_turn, undoable=False),
)
