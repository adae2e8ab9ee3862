"""Phases of a turn (rulebook: "Turn overview"): setup, then each player's turn in the main phase, then
"over". Who may act now (`require_active`), what chance step the table owes (`need_pending`), that a
battle blocks everything else (`not_in_battle`), and a turn's fresh counters (`fresh_turn`).
"""

from __future__ import annotations

from typing import Any

from rules.core.errors import Illegal
from rules.dead_reckoning.model import PlayerBoard, State, Turn


def fresh_turn() -> Turn:
    return {"sails_set": False, "explored": False, "bought": 0, "battled": [], "beaten": [], "extra_sails": 0,
            "battles": 0, "acted": False}


def active_player(d: State) -> str:
    """The player whose turn it is: there is one throughout the main phase (None only in setup and after
    the end), so a turn's rules may rely on it."""
    me = d["active"]
    assert me is not None, "a turn's rule ran outside a turn"
    return me


def battle_under_way(d: State) -> dict[str, Any]:
    """The battle being fought: the battle rules run only while there is one."""
    b = d["battle"]
    assert b is not None, "a battle rule ran with no battle under way"
    return b


def need_pending(d: State, kind: str) -> dict[str, Any]:
    if not d["pending"] or d["pending"][0]["kind"] != kind:
        want = d["pending"][0]["kind"] if d["pending"] else "nothing"
        raise Illegal(f"the table is not waiting for {kind.replace('_', ' ')} now (it waits for {want.replace('_', ' ')}).")
    return d["pending"][0]


def require_active(d: State, player: str, what: str) -> PlayerBoard:
    if d["phase"] == "over":
        raise Illegal("the game is over.")
    if d["pending"]:
        raise Illegal(f"the table must first report {d['pending'][0]['kind'].replace('_', ' ')}.")
    if d["battle"]:
        raise Illegal("a battle is under way: finish it first.")
    if d["phase"] != "main" or player != d["active"]:
        raise Illegal(f"only the active player ({d['active']}) may {what} now.")
    return d["p"][player]


def mark_acted(d: State, player: str) -> None:
    if not d["turn"]["acted"]:
        d["turn"]["acted"] = True
        d["p"][player]["level_up"] = False  # levelling must happen before the turn's first action


def not_in_battle(d: State) -> None:
    if d["battle"] and d["battle"].get("locked"):
        raise Illegal("the battle has begun: cargo can be rearranged or jettisoned only after it ends.")
