"""Sailor cards: levelling between turns and the draw pile running out (rules/dead_reckoning/sailors.py)."""

from __future__ import annotations

import pytest

from rules import api
from rules.errors import Illegal
from tests.rules.helpers import act, game


def test_level_up_between_turns_only_once():
    state = game(2, seed=8)
    color = state.active
    state, _ = act(state, "end_turn")
    card = state.data["p"][color]["hand"][0]
    with pytest.raises(Illegal):
        act(state, "level_up", player=state.active, card=state.data["p"][state.active]["hand"][0])
    old = state
    state, _ = act(state, "level_up", player=color, card=card)
    assert state.data["p"][color]["cards"][card]["level"] == 2
    assert old.data["p"][color]["cards"][card]["level"] == 1  # states share cards copy-on-write only
    with pytest.raises(Illegal):
        act(state, "level_up", player=color, card=card)


def test_draw_pile_running_out_reshuffles_the_discards():
    state = game(2, seed=11, auto_chance=False)
    while state.data["pending"]:
        o = api.legal_actions(state, "table")[0]
        state, _ = act(state, o["type"], "table", **{k: v for k, v in o.items() if k != "type"})
    color = state.active
    p = state.data["p"][color]
    cards = sorted(p["cards"])
    p["hand"], p["deck"], p["discard"], p["played"] = [], cards[:2], cards[2:], []
    state, _ = act(state, "end_turn")
    while state.data["pending"] and state.data["pending"][0]["kind"] == "draw_advancement":
        o = api.legal_actions(state, "table")[0]
        state, _ = act(state, o["type"], "table", **{k: v for k, v in o.items() if k != "type"})
    p = state.data["p"][color]
    assert sorted(p["hand"]) == cards[:2]  # the 2 left were drawn without chance
    assert state.data["pending"][0] == {"kind": "draw_sailors", "player": color, "count": 2}
    with pytest.raises(Illegal):
        act(state, "draw_sailors", "table", player_drawing=color, cards=cards[:2])  # already in hand
    state, _ = act(state, "draw_sailors", "table", player_drawing=color, cards=cards[2:4])
    assert len(state.data["p"][color]["hand"]) == 4 and len(state.data["p"][color]["deck"]) == 8
