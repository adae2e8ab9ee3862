"""Islands, Influence and island control (rules/dead_reckoning/islands.py): the rulebook's worked
situations."""

from __future__ import annotations

import pytest

from rules import api
from rules.dead_reckoning.islands import who_controls
from rules.errors import Ambiguous, Illegal
from tests.rules.helpers import (
    act,
    active_board,
    controlled_island,
    game,
    give_hand,
    place_island,
    with_played,
)


def test_control_needs_more_cubes_than_empty_slots():
    state = game(2, seed=1)
    color = state.active
    other = [c for c in state.players if c != color][0]
    isl = place_island(state, "r1c1", "island-05")  # 3 slots
    isl["cubes"] = [color, None, None]
    assert who_controls(isl) is None  # 1 cube, 2 empty slots
    isl["cubes"] = [color, color, None]
    assert who_controls(isl) == color  # 2 cubes > 1 empty slot
    isl["cubes"] = [color, other, None]
    assert who_controls(isl) is None  # tie with the other player
    isl["cubes"] = [color, other, other]
    isl["permanent"] = {color: 1}
    assert who_controls(isl) is None  # 2 v 2: permanent cubes count
    isl["permanent"] = {color: 2}
    assert who_controls(isl) == color


def test_influence_takes_control_with_a_permanent_cube_and_removes_buildings():
    state = game(2, seed=1)
    color = state.active
    other = [c for c in state.players if c != color][0]
    isl = controlled_island(state, other, [other, other, None])
    isl["buildings"]["outpost"] = True
    state.data["supply"]["outpost"] -= 1
    state.data["p"][other]["cubes"] -= 2
    me = active_board(state)
    me["ship"]["at"] = "r1c1"
    give_hand(state, color, ["buccaneer"])
    me["cards"]["buccaneer"]["level"] = 3
    state, _ = act(state, "play_card", card="buccaneer")
    state, events = act(state, "use_ability", ability="buccaneer:L3:0")
    isl = state.data["grid"]["r1c1"]["island"]
    assert isl["cubes"].count(color) == 3 and isl["controller"] == color
    assert isl["permanent"] == {color: 1}
    assert not isl["buildings"]["outpost"] and state.data["supply"]["outpost"] == 4
    assert any(e["type"] == "control_changed" for e in events)


def test_influence_on_a_full_island_with_two_opponents_is_ambiguous():
    state = game(3, seed=1)
    color = state.active
    others = [c for c in state.players if c != color]
    place_island(state, "r1c1", "island-01")["cubes"] = [others[0], others[1]]
    active_board(state)["ship"]["at"] = "r1c1"
    give_hand(state, color, ["deck-hand-1"])
    state, _ = act(state, "play_card", card="deck-hand-1")
    with pytest.raises(Ambiguous) as err:
        act(state, "use_ability", ability="deck-hand-1:L1:0")
    assert sorted(err.value.options) == sorted(others)
    state, _ = act(state, "use_ability", ability="deck-hand-1:L1:0", args={"replace": [others[1]]})
    assert sorted(state.data["grid"]["r1c1"]["island"]["cubes"]) == sorted([color, others[0]])


def test_pirate_at_island_blockades_and_battle_starts_on_stopping():
    state = game(2, seed=1)
    color = state.active
    other = [c for c in state.players if c != color][0]
    place_island(state, "r1c2", "island-05")
    state.data["p"][other]["ship"].update({"at": "r1c2", "pirate": True})
    state, _ = act(state, "set_sails")
    state, events = act(state, "move", path=["r1c2"])
    started = [e for e in events if e["type"] == "battle_started"]
    assert started and started[0]["setup"]["defender"]["name"] == other
    assert started[0]["setup"]["provoked_by_pirate"] is True
    with pytest.raises(Illegal):
        act(state, "set_sails")  # only battle actions now
    kinds = {a["type"] for a in api.legal_actions(state, color)}
    assert kinds == {"resolve_battle"}


def test_running_out_of_cubes_takes_one_back_from_an_island():
    state = game(2, seed=1)
    color = state.active
    place_island(state, "r1c1", "island-05")["cubes"] = [color, None, None]
    place_island(state, "r1c2", "island-01")
    state.data["p"][color]["cubes"] = 0
    state.data["p"][color]["ship"]["at"] = "r1c2"
    state, _ = with_played(state, "deck-hand-1", 1)
    state, _ = act(state, "use_ability", ability="deck-hand-1:L1:0")
    assert state.data["grid"]["r1c1"]["island"]["cubes"] == [None, None, None]
    assert state.data["grid"]["r1c2"]["island"]["cubes"] == [color, None]


def test_buildings_go_when_control_passes_to_another_player_by_way_of_nobody():
    """Rulebook: "Whenever control of an island changes from one player to another, remove all Buildings"
    (#16, deviation 5). Reading (docs/rules-engine.md): the Buildings are the player's who controlled the
    island when they were built; control passing red -> nobody -> blue, even within one ability, removes
    them."""
    state = game(2, seed=1)
    color = state.active
    other = [c for c in state.players if c != color][0]
    isl = controlled_island(state, other, [other, other, other])
    isl["permanent"] = {other: 1}  # 4 against 0: three replacements go 3-1, 2-2 (nobody), 1-3 (color)
    isl["buildings"]["outpost"] = True
    state.data["supply"]["outpost"] -= 1
    state.data["p"][other]["cubes"] -= 4
    me = active_board(state)
    me["ship"]["at"] = "r1c1"
    give_hand(state, color, ["buccaneer"])
    me["cards"]["buccaneer"]["level"] = 3
    state, _ = act(state, "play_card", card="buccaneer")
    state, events = act(state, "use_ability", ability="buccaneer:L3:0")
    changes = [(e["previous"], e["controller"]) for e in events if e["type"] == "control_changed"]
    assert changes == [(other, None), (None, color)]  # it really went by way of nobody
    isl = state.data["grid"]["r1c1"]["island"]
    assert not isl["buildings"]["outpost"] and state.data["supply"]["outpost"] == 4
    assert "built_by" not in isl


def test_buildings_stay_while_nobody_controls_and_return_to_use_with_their_owner():
    """The same sentence read the other way: control lost to nobody is not control passing to another
    player, so the Buildings stay (unused: nobody controls the island) and are the owner's again if the
    owner regains control."""
    from rules.dead_reckoning.islands import recheck_control

    state = game(2, seed=1)
    color = state.active
    other = [c for c in state.players if c != color][0]
    isl = controlled_island(state, color, [color, color, None])
    isl["buildings"]["fort"] = True
    isl["cubes"] = [color, other, None]
    recheck_control(state.data, "r1c1", [])
    assert isl["controller"] is None and isl["buildings"]["fort"] and isl["built_by"] == color
    isl["cubes"] = [color, color, other]
    recheck_control(state.data, "r1c1", [])
    assert isl["controller"] == color and isl["buildings"]["fort"] and "built_by" not in isl
