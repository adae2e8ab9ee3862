"""A referee's correction of a misread: recorded as its own event, later commands replayed forward."""

from __future__ import annotations

import pytest

from rules import api
from rules.errors import Invalid
from tests.rules.helpers import act


def _observed_game():
    state, events = api.new_game_with_events(["red", "blue"], 5, {"auto_chance": False})
    log = list(events)

    def send(atype, player=None, **fields):
        nonlocal state
        state, evs = act(state, atype, player, **fields)
        log.extend(evs)
        return evs

    return lambda: state, log, send


def test_misread_board_corrected_and_later_actions_replayed():
    get, log, send = _observed_game()
    send("reveal_board", "table", square="r1c1", board="island-01")
    misread_seq = log[-1]["seq"]
    send("draw_advancement", "table", square="r1c1", card="r1-01")
    send("reveal_board", "table", square="r1c2", board="island-02")
    send("draw_advancement", "table", square="r1c2", card="r1-02")
    state, new_log = api.correct(
        log, misread_seq, {"type": "reveal_board", "square": "r1c1", "board": "island-05"}
    )
    assert state.data["grid"]["r1c1"]["board"] == "island-05"
    assert state.data["grid"]["r1c2"]["board"] == "island-02"  # later reports kept
    assert state.data["grid"]["r1c1"]["card"] == "r1-01"
    assert new_log[:-1] == log and new_log[-1]["type"] == "correction"
    assert new_log[-1]["action"]["dropped"] == []
    assert api.replay(new_log) == state
    assert "state" not in api.event_view(new_log[-1], None)


def test_correction_drops_commands_that_are_no_longer_legal():
    get, log, send = _observed_game()
    send("reveal_board", "table", square="r1c1", board="island-01")
    seq = log[-1]["seq"]
    send("draw_advancement", "table", square="r1c1", card="r1-01")
    send("reveal_board", "table", square="r1c2", board="island-02")
    # correcting r1c1 to island-02 makes the later island-02 report impossible: it is dropped
    state, new_log = api.correct(log, seq, {"type": "reveal_board", "square": "r1c1", "board": "island-02"})
    assert new_log[-1]["action"]["dropped"] == [log[-1]["seq"]]
    assert state.data["pending"][0] == {"kind": "reveal_board", "square": "r1c2"}
    with pytest.raises(Invalid):
        api.correct(log, 999, None)
