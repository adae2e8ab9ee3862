"""The turn structure (rulebook: "Turn overview" and "End of the game"): what follows once the table has
answered every chance step (`after_chance`: the first turn, or the rest of a cleanup), a turn's start
(counters reset, starred achievements checked), its end (level-up allowed, the final round triggered at 4
achievements, the next seat), and the game's end with its scores.
"""

from __future__ import annotations

from typing import Any

from rules.core.events import notice
from rules.dead_reckoning.achievements import achieved, check_achievements
from rules.dead_reckoning.battles import start_tiebreak
from rules.dead_reckoning.model import State
from rules.dead_reckoning.phases import active_player, fresh_turn
from rules.dead_reckoning.scoring import score_game


def after_chance(d: State, out: list[dict[str, Any]]) -> None:
    if d["pending"]:
        return
    after, d["after"] = d["after"], None
    if after == "start":
        d["phase"] = "main"
        _start_turn(d, d["players"][0], out)
    elif after == "end_turn":
        _finish_turn(d, out)


def _start_turn(d: State, color: str, out: list[dict[str, Any]]) -> None:
    d["active"] = color
    d["turn_no"] += 1
    d["turn"] = fresh_turn()
    for c in d["players"]:
        p = d["p"][c]
        p["used"], p["cannons_used"], p["flags_used"] = [], 0, 0
    out.append({"type": "turn_started", "player": color, "turn": d["turn_no"]})  # = notice(): no call
    check_achievements(d, color, out)


def _finish_turn(d: State, out: list[dict[str, Any]]) -> None:
    me = active_player(d)
    p = d["p"][me]
    cards = p["cards"]
    can = False
    for c in p["hand"]:
        if cards[c]["level"] < 4:
            can = True
            break
    p["level_up"] = can
    fin = d["final"]
    if fin is None and len(achieved(d, me)) >= 4:
        fin = {"triggered_by": me, "remaining": [c for c in _seat_order_after(d, me)]}
        d["final"] = fin
        p["final_done"] = True
        notice(out, "game_end_triggered", player=me)
    elif fin is not None and me in fin["remaining"]:
        fin["remaining"].remove(me)
        p["final_done"] = True
    if fin is not None and not fin["remaining"]:
        _game_over(d, out)
        return
    nxt = fin["remaining"][0] if fin else _seat_order_after(d, me)[0]
    _start_turn(d, nxt, out)


def _seat_order_after(d: State, me: str) -> list[str]:
    i = d["players"].index(me)
    return d["players"][i + 1 :] + d["players"][:i]


def _game_over(d: State, out: list[dict[str, Any]]) -> None:
    d["active"] = None
    scores = d["scores"] = score_game(d)
    if scores["tie_break_needed"]:
        # "In case of a tie, the tied players ... drop all those cubes in the tower": a battle to play out
        start_tiebreak(d, scores["tie_break_needed"], out)
        return
    d["phase"] = "over"
    notice(out, "game_over", **scores)
