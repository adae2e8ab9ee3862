"""Undo and referee corrections with the expansion: its state is part of the turn's base and the log."""

from __future__ import annotations

import random

import pytest

from rules import api
from rules.core.state import snapshot_base
from rules.errors import Illegal
from tests.rules.helpers import act, place_island
from tests.rules.letters_of_marque.helpers import LOM, lay_found, lgame, lom, play_explorer, sail_to, token_of


def test_undo_takes_back_loading_prime_cargo_but_not_a_discovery():
    state = lgame(3, seed=11)
    me = state.active
    place_island(state, "r1c1", "island-05")
    token = token_of("moon_salt", 6)
    lay_found(state, "r1c1", "water", token)
    state = sail_to(state, ["r1c1"])
    state.data["turn_base"] = snapshot_base(state.data)  # the hand set-up above is part of this turn's base
    state.data["turn_log"] = []
    state, _ = act(state, "load_prime", token=token, hold=0)
    assert lom(state)["ship"][me][0] == [token] and state.data["p"][me]["ship"]["other"] == [1, 0]
    state, _ = act(state, "undo")
    assert lom(state)["ship"][me] == [[], []] and token in lom(state)["boards"]["r1c1"]["water"]["found"]
    assert "other" not in state.data["p"][me]["ship"]
    state = play_explorer(state)
    state, _ = act(state, "discover_prime_cargo", part="water")
    with pytest.raises(Illegal):
        act(state, "undo")  # the token was revealed to the table


def test_random_games_with_undos_replay_and_save_exactly():
    rng = random.Random(12)
    state, events = api.new_game_with_events(["red", "blue", "green"], 12, LOM)
    events = list(events)
    for _ in range(500):
        if state.phase == "over":
            break
        who = state.active or "table"
        if who != "table" and rng.random() < 0.15:
            try:
                state, evs = api.apply(state, {"seq": state.seq, "player": who, "action": {"type": "undo"}})
                events += evs
                continue
            except Illegal:
                pass
        a = rng.choice(api.legal_actions(state, who))
        state, evs = api.apply(state, {"seq": state.seq, "player": who, "action": a})
        events += evs
    assert api.state_to_json(api.replay(events)) == api.state_to_json(state)
    assert api.state_from_json(api.state_to_json(state)) == state


def test_a_referee_correction_replays_the_expansions_actions():
    state, events = api.new_game_with_events(["red", "blue", "green"], 13, LOM)
    events = list(events)
    rng = random.Random(13)
    for _ in range(120):
        who = state.active or "table"
        state, evs = api.apply(
            state, {"seq": state.seq, "player": who, "action": rng.choice(api.legal_actions(state, who))}
        )
        events += evs
    target = next(e for e in events if e["type"] == "set_sails" and not e.get("notice"))
    fixed, log = api.correct(events, target["seq"], {"type": "set_sails"})
    assert log[-1]["type"] == "correction" and "lom" in fixed.data
    assert api.state_to_json(api.replay(log)) == api.state_to_json(fixed)
