"""A tiny engine with the `rules.api` facade, for testing the controller's mechanics on their own.

The controller is engine-agnostic (config `table.engine`); this race game lets its log, refusals,
MQTT and crash recovery be tested with secrets, turns, chance (a recorded roll) and a game end.
The real engine is exercised by the end-to-end tests once it exists.
"""

from __future__ import annotations

import copy
import os
import random
from dataclasses import dataclass
from typing import Any

from rules.errors import Illegal, Invalid

GOAL = int(os.environ.get("TOY_GOAL", "20"))  # the crash test sets a longer race


@dataclass
class ToyState:
    data: dict[str, Any]

    @property
    def seq(self) -> int:
        return self.data["seq"]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ToyState) and self.data == other.data


def new_game(players: list[str], seed: int, options: dict | None = None) -> ToyState:
    rng = random.Random(seed)
    return ToyState(
        {
            "seq": 0,
            "players": list(players),
            "active": players[0],
            "pos": {p: 0 for p in players},
            "secret": {p: rng.randint(1, 1000) for p in players},
            "rng": seed,
            "winner": None,
        }
    )


def apply(state: ToyState, command: dict) -> tuple[ToyState, list[dict]]:
    action, player = command.get("action") or {}, command.get("player")
    if command.get("seq") != state.seq:
        raise Invalid("stale seq")
    if state.data["winner"]:
        raise Illegal("The game is over.")
    if action.get("type") != "advance":
        raise Invalid(f"Unknown action {action.get('type')!r}; the only action is advance.")
    if player != state.data["active"]:
        raise Illegal(f"It is {state.data['active']}'s turn, not {player}'s.")
    steps = action.get("steps")
    if steps not in (1, 2, 3):
        raise Illegal("You may advance 1, 2 or 3 steps.")
    bonus = random.Random(state.data["rng"] * 31 + state.seq).randint(0, 1)  # chance, recorded in the event
    players = state.data["players"]
    nxt = players[(players.index(player) + 1) % len(players)]
    events = [
        {"type": "advanced", "player": player, "steps": steps, "bonus": bonus},
        {"type": "turn_passed", "to": nxt},
    ]
    s = state
    for e in events:
        s = fold(s, e)
    return s, events


def fold(state: ToyState, event: dict) -> ToyState:
    d = copy.deepcopy(state.data)
    if event["type"] == "advanced":
        d["pos"][event["player"]] += event["steps"] + event["bonus"]
        if d["pos"][event["player"]] >= GOAL:
            d["winner"] = event["player"]
    elif event["type"] == "turn_passed":
        d["active"] = event["to"]
    d["seq"] += 1
    return ToyState(d)


def replay(events: list[dict], initial: ToyState) -> ToyState:
    s = initial
    for e in events:
        s = fold(s, e)
    return s


def public_view(state: ToyState) -> dict:
    return {
        "active": state.data["active"],
        "pos": state.data["pos"],
        "winner": state.data["winner"],
        "game_over": state.data["winner"] is not None,
    }


def private_view(state: ToyState, player: str) -> dict:
    return {**public_view(state), "secret": state.data["secret"][player]}


def legal_actions(state: ToyState, player: str) -> list[dict]:
    if state.data["winner"] or player != state.data["active"]:
        return []
    return [{"type": "advance", "steps": n} for n in (1, 2, 3)]


def is_over(state: ToyState) -> bool:
    return state.data["winner"] is not None


def state_to_json(state: ToyState) -> dict:
    return copy.deepcopy(state.data)


def state_from_json(data: dict) -> ToyState:
    return ToyState(copy.deepcopy(data))
