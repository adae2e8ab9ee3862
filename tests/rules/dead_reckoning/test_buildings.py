"""Buildings (rules/dead_reckoning/buildings.py): Forts keep other players away."""

from __future__ import annotations

import pytest

from rules.errors import Illegal
from tests.rules.helpers import act, active_board, controlled_island, game


def test_fort_blocks_other_players():
    state = game(2, seed=1)
    color = state.active
    other = [c for c in state.players if c != color][0]
    isl = controlled_island(state, other, [other, other, None])
    isl["buildings"]["fort"] = True
    me = active_board(state)
    me["ship"]["at"] = "r1c1"
    me["ship"]["holds"][0] = [1, 0]
    with pytest.raises(Illegal) as err:
        act(state, "unload", hold=0, cargo=1)
    assert "Fort" in err.value.message
