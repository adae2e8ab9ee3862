"""Cargo and Coins (rules/dead_reckoning/cargo.py): the rulebook's worked situations."""

from __future__ import annotations

import pytest

from rules import api
from rules.errors import Illegal
from tests.rules.helpers import act, active_board, game


def test_hold_capacity_message_names_the_rule():
    state = game(2, seed=1)
    me = active_board(state)
    me["dock"] = 10
    state, _ = act(state, "load", hold=0, cargo=4)
    with pytest.raises(Illegal) as err:
        act(state, "load", hold=0, cargo=1)
    assert err.value.message == "hold 1 is full: it takes 4 and holds 4."
    before = api.state_to_json(state)
    with pytest.raises(Illegal):
        act(state, "load", hold=1, cargo=4)
    assert api.state_to_json(state) == before  # a refusal changes nothing
