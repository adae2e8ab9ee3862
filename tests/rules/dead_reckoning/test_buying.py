"""Buying and Master Merchant (rules/dead_reckoning/buying.py)."""

from __future__ import annotations

import pytest

from rules.errors import Illegal
from tests.rules.helpers import act, active_board, game


def test_buy_pays_cargo_from_the_ship_and_at_most_two_per_turn():
    state = game(2, seed=1)
    me = active_board(state)
    card = state.data["grid"]["r1c1"]["card"]
    state, _ = act(state, "set_sails")
    state, _ = act(state, "move", path=["r1c1"])
    active_board(state)["dock"] = 20
    with pytest.raises(Illegal) as err:
        act(state, "buy")
    assert "carries only 0" in err.value.message  # Dock cargo does not pay for Advancements
    active_board(state)["ship"]["holds"][0] = [4, 0]
    state, _ = act(state, "buy")
    me = active_board(state)
    assert card in me["set_aside"] and state.data["grid"]["r1c1"]["card"] is None
    state.data["turn"]["bought"] = 2
    state.data["grid"]["r1c1"]["card"] = "r1-01"
    with pytest.raises(Illegal):
        act(state, "buy")


def test_master_merchant_returns_twelve_at_once():
    state = game(2, seed=1)
    me = active_board(state)
    me["dock"] = 9
    me["ship"]["holds"][0] = [3, 0]
    state, events = act(state, "master_merchant")
    assert state.active in state.data["achievements"]["master_merchant"]
    assert active_board(state)["dock"] == 0 and active_board(state)["ship"]["holds"][0] == [0, 0]
    with pytest.raises(Illegal):
        act(state, "master_merchant")
