"""Structural sharing in `apply`: a command never changes the state it was applied to.

`apply` copies only what an action may change (`engine.TOUCHES`) and shares the rest with the previous
state, so a wrong declaration would show up here as an old state that moved."""

from __future__ import annotations

import random

from rules import api
from rules.state import copy_data
from tests.rules.helpers import COLORS


def test_apply_leaves_every_earlier_state_as_it_was():
    for seed in (3, 11):
        state = api.new_game(COLORS[: 2 + seed % 3], seed)
        rng = random.Random(seed)
        history: list[tuple[api.GameState, dict]] = []
        while state.phase != "over" and len(history) < 700:
            who = state.active or "table"
            history.append((state, copy_data(state.data)))
            state, _ = api.apply(state, {"seq": state.seq, "player": who,
                                         "action": rng.choice(api.legal_actions(state, who))})
        # checked at the end: a later action must not reach back into a state shared with an earlier one
        for old, snapshot in history:
            assert old.data == snapshot, f"state {snapshot['seq']} changed after later commands"


def test_a_row_box_emptied_by_one_refill_leaves_the_other_space_empty():
    # seed 16, 3 players: a cleanup refills two row spaces while that row's box holds one card
    state = api.new_game(COLORS[:3], 16)
    rng = random.Random(16)
    while state.phase != "over":
        who = state.active or "table"
        state, _ = api.apply(state, {"seq": state.seq, "player": who,
                                     "action": rng.choice(api.legal_actions(state, who))}, inplace=True)
    assert api.is_over(state)  # before the fix the second draw came from an empty box and the game stopped
