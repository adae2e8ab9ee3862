"""Set Sails, Move, Explore (rules/dead_reckoning/sailing.py): the rulebook's worked situations."""

from __future__ import annotations

import pytest

from rules import api
from rules.dead_reckoning.islands import who_controls
from rules.dead_reckoning.sailing import sails_available
from rules.errors import Illegal
from tests.rules.helpers import act, active_board, game, give_hand, place_island


def test_sails_with_loaded_holds():
    state = game(2, seed=1)
    color = state.active
    me = active_board(state)
    me["ship"]["holds"][0] = [2, 0]
    # in Harbor the loaded hold still gives its Sail (unload, set, reload)
    assert sails_available(state.data, color) == 2
    place_island(state, "r1c1", "island-05")
    me["ship"]["at"] = "r1c1"
    # at an island you do not control, the loaded hold's Sail is lost
    assert sails_available(state.data, color) == 1
    me["ship"]["holds"][1] = [0, 1]
    assert sails_available(state.data, color) == 0
    # at an island you control, both count again
    isl = state.data["grid"]["r1c1"]["island"]
    isl["cubes"] = [color, color, None]
    isl["controller"] = who_controls(isl)
    assert isl["controller"] == color
    assert sails_available(state.data, color) == 2


def test_set_sails_once_and_move_spends_sails():
    state = game(2, seed=2)
    give_hand(state, state.active, ["captain"])
    state, _ = act(state, "play_card", card="captain")
    state, _ = act(state, "set_sails")
    assert active_board(state)["ship"]["sails"] == 3  # 2 on the ship + the level-1 Captain
    with pytest.raises(Illegal):
        act(state, "set_sails")
    with pytest.raises(Illegal):  # diagonal
        act(state, "move", path=["r1c1", "r2c2"])
    state, ev = act(state, "move", path=["r1c1"])
    assert active_board(state)["ship"]["sails"] == 2 and active_board(state)["ship"]["at"] == "r1c1"


def test_move_before_setting_sails_is_refused():
    state = game(2, seed=2)
    with pytest.raises(Illegal) as err:
        act(state, "move", path=["r1c1"])
    assert "set your Sails" in err.value.message


def test_exploration_limit_and_sailing_through_unexplored_boards():
    state = game(2, seed=4)
    state, _ = act(state, "set_sails")
    active_board(state)["ship"]["sails"] = 8
    state, events = act(state, "move", path=["r1c1", "r2c1"])  # stops on an unexplored board
    d = state.data
    assert d["grid"]["r2c1"]["board"] is not None  # explored at once (auto chance)
    assert any(e["type"] == "reveal_board" for e in events)
    assert d["turn"]["explored"]
    assert d["achievement_cubes"]["explorer"].get(state.active) == 1
    # sailing through another unexplored board is fine; stopping on one is not
    with pytest.raises(Illegal) as err:
        act(state, "move", path=["r3c1"])
    assert "already explored" in err.value.message
    state, _ = act(state, "move", path=["r3c1", "r2c1"])  # through an unexplored board and back
    assert active_board(state)["ship"]["at"] == "r2c1" and state.data["grid"]["r3c1"]["board"] is None


def test_explore_waits_for_the_table_when_chance_is_observed():
    state = game(2, seed=4, auto_chance=False)
    d = state.data
    while d["pending"]:
        opts = api.legal_actions(state, "table")
        state, _ = act(
            state, opts[0]["type"], player="table", **{k: v for k, v in opts[0].items() if k != "type"}
        )
        d = state.data
    state, _ = act(state, "set_sails")
    state, _ = act(state, "move", path=["r1c2", "r2c2"])
    assert state.data["pending"][0] == {"kind": "reveal_board", "square": "r2c2"}
    with pytest.raises(Illegal):
        act(state, "set_sails")  # nothing else happens until the table reports the board
    opts = api.legal_actions(state, state.active)
    assert opts and all(o["type"] == "reveal_board" for o in opts)


def test_explorer_cubes_return_the_moment_the_achievement_is_out_of_reach():
    """Rulebook (Explorer): "If it is no longer possible to meet the requirements, return all the cubes here
    back to your supply." The other player's cubes come back when the board is turned, not on their next
    turn (#16, deviation 6)."""
    state = game(2, seed=4, auto_chance=False)
    while state.data["pending"]:
        opts = api.legal_actions(state, "table")
        state, _ = act(
            state, opts[0]["type"], player="table", **{k: v for k, v in opts[0].items() if k != "type"}
        )
    d = state.data
    me = state.active
    other = [c for c in state.players if c != me][0]
    down = [sq for sq in d["grid"] if d["grid"][sq]["board"] is None and sq != "r2c2"]
    for sq in down[2:]:
        place_island(state, sq, "island-05")  # turned face up by hand: 3 face down remain, r2c2 among them
    d["achievement_cubes"]["explorer"][other] = 2  # 2 of the 5 a 2-player game needs: exactly reachable
    d["p"][other]["cubes"] -= 2
    supply = d["p"][other]["cubes"]
    state, _ = act(state, "set_sails")
    state, _ = act(state, "move", path=["r1c2", "r2c2"])
    assert state.data["achievement_cubes"]["explorer"].get(other) == 2  # r2c2 not yet turned: still reachable
    opts = api.legal_actions(state, "table")
    state, events = act(
        state, "reveal_board", player="table", **{k: v for k, v in opts[0].items() if k != "type"}
    )
    assert other not in state.data["achievement_cubes"]["explorer"]
    assert state.data["p"][other]["cubes"] == supply + 2
    assert {"player": other, "cubes": 2}.items() <= next(
        e for e in events if e["type"] == "explorer_cubes_returned"
    ).items()
