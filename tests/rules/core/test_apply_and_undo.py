"""The core's refusals (by kind, stale sequence numbers) and undo within a turn (rules/core/engine.py)."""

from __future__ import annotations

import pytest

from rules import api
from rules.core.state import base_bytes, base_data
from rules.errors import Illegal, Invalid
from tests.rules.helpers import act, active_board, game


def test_refusals_by_kind_and_stale_sequence_numbers():
    state = game(2, seed=1)
    with pytest.raises(Invalid):
        api.apply(state, {"player": state.active, "action": {"type": "set_sails"}})
    with pytest.raises(Invalid):
        act(state, "fly")
    with pytest.raises(Invalid):
        act(state, "load", hold=2, cargo=1)
    with pytest.raises(Illegal) as err:
        api.apply(state, {"seq": state.seq - 1, "player": state.active, "action": {"type": "set_sails"}})
    assert err.value.kind == "illegal" and "state" in err.value.message
    other = [c for c in state.players if c != state.active][0]
    with pytest.raises(Illegal):
        act(state, "set_sails", player=other)


def test_undo_within_the_turn_and_not_after_a_reveal():
    state = game(2, seed=10)
    me = active_board(state)
    me["dock"] = 3
    base = base_data(state.data["turn_base"])
    base["p"][state.active]["dock"] = 3  # the set-up edit, also at the turn's start
    state.data["turn_base"] = base_bytes(base)
    before = api.state_to_json(state)["data"]
    state, _ = act(state, "load", hold=0, cargo=2)
    state, _ = act(state, "set_sails")
    state, _ = act(state, "undo")
    assert not state.data["turn"]["sails_set"] and active_board(state)["ship"]["holds"][0] == [2, 0]
    state, ev = act(state, "undo")
    after = api.state_to_json(state)["data"]
    for k in ("p", "grid", "supply", "turn"):
        assert after[k] == before[k]
    with pytest.raises(Illegal):
        act(state, "undo")
    state, _ = act(state, "set_sails")
    state, _ = act(state, "move", path=["r1c1", "r2c1"])  # explores: the board is now known
    with pytest.raises(Illegal) as err:
        act(state, "undo")
    assert "revealed" in err.value.message
