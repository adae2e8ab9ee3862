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


def test_a_draw_pile_of_exactly_the_draw_is_drawn_without_reshuffling():
    """Rulebook: "if you ever run out of cards in your deck and need to draw more, shuffle" (#16,
    deviation 1).
    A pile of exactly 4 and a draw of 4: nothing more is needed, so the discards stay discards (8 / 0)."""
    state = game(2, seed=11, auto_chance=False)
    while state.data["pending"]:
        o = api.legal_actions(state, "table")[0]
        state, _ = act(state, o["type"], "table", **{k: v for k, v in o.items() if k != "type"})
    color = state.active
    p = state.data["p"][color]
    cards = sorted(p["cards"])
    p["hand"], p["deck"], p["discard"], p["played"] = [], cards[:4], cards[4:], []
    state, _ = act(state, "end_turn")
    while state.data["pending"] and state.data["pending"][0]["kind"] == "draw_advancement":
        o = api.legal_actions(state, "table")[0]
        state, _ = act(state, o["type"], "table", **{k: v for k, v in o.items() if k != "type"})
    assert state.data["pending"][0] == {"kind": "draw_sailors", "player": color, "count": 4}
    p = state.data["p"][color]
    assert sorted(p["deck"]) == cards[:4] and sorted(p["discard"]) == cards[4:]  # nothing shuffled yet
    with pytest.raises(Illegal):
        act(state, "draw_sailors", "table", player_drawing=color, cards=cards[4:8])  # still in the discards
    state, _ = act(state, "draw_sailors", "table", player_drawing=color, cards=list(reversed(cards[:4])))
    p = state.data["p"][color]
    assert len(p["discard"]) == 8 and p["deck"] == [] and sorted(p["hand"]) == cards[:4]
