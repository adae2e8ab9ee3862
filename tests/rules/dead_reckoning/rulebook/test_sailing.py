"""Rulebook: Set Sails, Move Your Ship, Pirate Mode & Movement (lines 186-206)."""

from __future__ import annotations

import pytest

from rules import api
from rules.errors import Illegal

from .support import act, controlled_island, legal_types, place_island, play, ship, two


def test_set_sails_counts_the_ship_and_the_played_cards_once_per_turn():
    """ "You can only do this once per turn and must do so before moving. Count up the number of Sail icons
    you have on your Ship and on cards you have played. Place the cube on the Sails track of your Ship board
    on the appropriate space.\""""
    state, me, _ = two()
    state = play(state, "captain", level=1)  # 1 Sail
    state, events = act(state, "set_sails")
    assert ship(state, me)["sails"] == 2 + 1
    with pytest.raises(Illegal) as err:
        act(state, "set_sails")
    assert "once per turn" in err.value.message


def test_sails_are_set_to_at_most_eight():
    """ "The maximum you can set your Sails to is 8.\""""
    state, me, _ = two()
    for card, level in (("captain", 1), ("deck-hand-1", 4), ("deck-hand-2", 4)):
        state = play(state, card, level)
    state, _ = act(state, "use_ability", ability="deck-hand-1:L4:0")
    state, _ = act(state, "use_ability", ability="deck-hand-2:L4:0")
    state, _ = act(state, "set_sails")  # 2 + 1 + 3 + 3 = 9 Sails counted
    assert ship(state, me)["sails"] == 8


def test_a_loaded_hold_gives_no_sail_except_at_home():
    """ "Remember, at the moment you set your sails, if a hold on your Ship has at least 1 Cargo or Coin on
    it, you do not get the Sail icon." and "Note: When you are setting Sail from the Harbor board or from an
    island you control, you may count Sails on holds with Cargo/Coins. ... This does not work at islands you
    do not control, since you cannot load from such islands.\""""
    for where, expected in (("harbor", 2), ("mine", 2), ("theirs", 1)):
        state, me, other = two()
        if where != "harbor":
            owner = me if where == "mine" else other
            controlled_island(state, owner, [owner, owner, None])
            ship(state, me)["at"] = "r1c1"
        ship(state, me)["holds"][0] = [1, 0]
        state, _ = act(state, "set_sails")
        assert ship(state, me)["sails"] == expected, where


def test_each_board_moved_costs_one_sail_and_the_track_stops_at_zero():
    """ "You may move your Ship a number of boards by moving the cube on your Sail track to the left one space
    for each board you want to move to. You may not move the cube off the end of the track and once your
    cube reaches the leftmost space, you cannot move any farther this turn.\""""
    state, me, _ = two(seed=2)
    state, _ = act(state, "set_sails")  # 2
    state, _ = act(state, "move", path=["r1c1"])
    assert ship(state, me)["sails"] == 1
    with pytest.raises(Illegal):
        act(state, "move", path=["r1c2", "r1c3"])  # 2 boards, 1 Sail left
    state, _ = act(state, "move", path=["r1c2"])
    assert ship(state, me)["sails"] == 0
    with pytest.raises(Illegal):
        act(state, "move", path=["r1c1"])
    assert "move" not in legal_types(state, me)


def test_orthogonal_moves_only_and_the_harbor_touches_row_one():
    """ "You may only move orthogonally (no diagonal movement). The Harbor board is adjacent to all 3 Ocean
    boards in row 1.\""""
    state, me, _ = two(seed=2)
    state, _ = act(state, "set_sails")
    ship(state, me)["sails"] = 8
    with pytest.raises(Illegal) as err:
        act(state, "move", path=["r1c1", "r2c2"])
    assert "diagonal" in err.value.message
    with pytest.raises(Illegal):
        act(state, "move", path=["r2c1"])  # the Harbor touches row 1 only
    for sq in ("r1c1", "r1c2", "r1c3"):
        act(state, "move", path=[sq])
    state, _ = act(state, "move", path=["r1c3", "harbor"])
    assert ship(state, me)["at"] == "harbor"


def test_stopping_on_an_unexplored_board_explores_it_and_ends_the_move():
    """ "If you stop on an unexplored board (one that is face-down), you must explore it. To do so, flip the
    board over, draw the top Advancement from the box associated with that row and place it face up on the
    large space of the Ocean board. This ends this particular move action but you may take subsequent move
    actions later this turn.\""""
    state, me, _ = two(seed=4)
    state.data["options"]["auto_chance"] = False  # from here the table reports the board and the card
    ship(state, me)["at"] = "r1c1"
    state.data["turn"]["sails_set"] = True
    ship(state, me)["sails"] = 4
    state, _ = act(state, "move", path=["r2c1"])
    assert state.data["pending"] == [{"kind": "reveal_board", "square": "r2c1"}]
    with pytest.raises(Illegal):  # nothing else until the board is flipped
        act(state, "move", path=["r1c1"])
    board = next(
        b for b in state.data["pool"]["islands"] if b not in [g["board"] for g in state.data["grid"].values()]
    )
    state, _ = act(state, "reveal_board", player="table", square="r2c1", board=board)
    top = state.data["decks"]["2"][0]
    state, _ = act(state, "draw_advancement", player="table", square="r2c1", card=top)
    assert state.data["grid"]["r2c1"]["board"] == board and state.data["grid"]["r2c1"]["card"] == top
    state, _ = act(state, "move", path=["r1c1"])  # a later move action the same turn
    assert ship(state, me)["at"] == "r1c1"


def test_only_one_board_explored_per_turn_but_unexplored_boards_can_be_sailed_through():
    """ "However, you may not explore more than 1 Ocean board in the same turn, and thus, any further move
    actions you make cannot result in you stopping on another unexplored board." and "You may sail through
    unexplored boards without exploring them, but if you stop on an unexplored ocean board, you must explore
    it.\""""
    state, me, _ = two(seed=4)
    state, _ = act(state, "set_sails")
    ship(state, me)["sails"] = 8
    state, _ = act(state, "move", path=["r1c1", "r2c1"])
    assert state.data["grid"]["r2c1"]["board"] is not None
    with pytest.raises(Illegal):
        act(state, "move", path=["r2c2"])
    state, _ = act(state, "move", path=["r2c2", "r2c1"])  # through r2c2, back
    assert state.data["grid"]["r2c2"]["board"] is None


def test_other_ships_do_not_block():
    """ "Other players' Ships do not block or prevent movement.\""""
    state, me, other = two(seed=2)
    ship(state, other)["at"] = "r1c1"
    state, _ = act(state, "set_sails")
    state, _ = act(state, "move", path=["r1c1"])
    state, _ = act(state, "move", path=["r1c2"])
    assert ship(state, me)["at"] == "r1c2"


def test_you_must_stop_on_a_board_to_buy_there():
    """ "You must stop on an Ocean board if you wish to do anything there. This includes buying an
    Advancement, attacking a Ship, or interacting with the island in any way.\""""
    state, me, other = two(seed=2)
    state.data["grid"]["r1c1"]["card"] = "r1-05"
    state.data["grid"]["r1c2"]["card"] = None
    ship(state, me)["holds"] = [[4, 0], [0, 0]]
    ship(state, other).update({"at": "r1c1"})
    state = play(state, "captain", level=2)  # an Attack Flag
    state, _ = act(state, "set_sails")
    state, _ = act(state, "move", path=["r1c1", "r1c2"])  # passed r1c1 without stopping
    for kind, fields in (("buy", {}), ("attack", {"target": other})):
        with pytest.raises(Illegal):
            act(state, kind, **fields)


def test_stopping_with_a_pirate_starts_a_battle_passing_through_does_not():
    """ "Pirate Mode & Movement: If you stop on an Ocean board containing an opponent's Ship that is in Pirate
    mode, a battle is automatically started. However, you can move through an Ocean board where there is an
    opponent's Ship in Pirate mode without provoking a battle.\""""
    state, me, other = two(seed=2)
    ship(state, other).update({"at": "r1c1", "pirate": True})
    state, _ = act(state, "set_sails")
    passed, events = act(state, "move", path=["r1c1", "r1c2"])
    assert passed.data["battle"] is None and not [e for e in events if e["type"] == "battle_started"]
    stopped, events = act(state, "move", path=["r1c1"])
    started = [e for e in events if e["type"] == "battle_started"]
    assert started and started[0]["setup"]["defender"]["name"] == other
    assert stopped.data["battle"] is not None


def test_several_pirates_are_fought_one_after_another_in_the_movers_order():
    """ "If you stop on an Ocean board with multiple opposing Ships that are in Pirate mode, you must fight
    each of them one after another until you have fought all of them or your Ship is sunk; you choose the
    order in which you fight the Ships.\""""
    from .support import resolve

    state = api.new_game(["red", "blue", "green"], 1)
    me = state.active
    a, b = [c for c in state.players if c != me]
    for c in (a, b):
        ship(state, c).update({"at": "r1c2", "pirate": True})
    state, _ = act(state, "set_sails")
    state, _ = act(state, "move", path=["r1c2"], fight_order=[b, a])
    assert state.data["battle"]["setup"]["defender"]["name"] == b
    state, events = resolve(state, f"{me}@s2 {b}@miss")
    assert state.data["battle"]["setup"]["defender"]["name"] == a  # the next one at once
    # sunk in the first battle: no second one
    state2 = api.new_game(["red", "blue", "green"], 1)
    for c in (a, b):
        ship(state2, c).update({"at": "r1c2", "pirate": True})
    ship(state2, me)["damage"] = 4
    state2, _ = act(state2, "set_sails")
    state2, _ = act(state2, "move", path=["r1c2"], fight_order=[b, a])
    state2, _ = resolve(state2, f"{me}@miss {b}@s2")
    assert state2.data["battle"] is None and ship(state2, me)["at"] == "harbor"


def test_your_own_pirate_mode_does_nothing_on_your_turn():
    """ "Note: Being in Pirate mode on your own turn has no effect. Your ship being in pirate mode only
    matters on opponents' turns. If you want to attack opponents during your own turn, you must use an Attack
    Flag icon.\""""
    state, me, other = two(seed=2)
    place_island(state, "r1c2", "island-05")
    ship(state, me).update({"at": "r1c1", "pirate": True})
    ship(state, other).update({"at": "r1c2", "pirate": False})
    state, _ = act(state, "set_sails")
    state, events = act(state, "move", path=["r1c2"])
    assert state.data["battle"] is None
    with pytest.raises(Illegal) as err:
        act(state, "attack", target=other)
    assert "Attack Flag" in err.value.message
