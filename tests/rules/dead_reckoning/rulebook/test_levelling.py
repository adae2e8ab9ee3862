"""Rulebook: Leveling (lines 277-283)."""

from __future__ import annotations

import pytest

from rules.errors import Illegal

from .support import act, give_hand, play, two


def test_level_up_one_card_in_hand_between_your_turns():
    """ "After your turn has finished, at any point before the start of your next turn, you may level up one
    Sailor card in your hand. Normally, you will do this while the other players are taking their turns.\""""
    state, me, other = two()
    card = state.data["p"][me]["hand"][0]
    with pytest.raises(Illegal):  # not during your own turn
        act(state, "level_up", player=me, card=card)
    state, _ = act(state, "end_turn")
    hand = state.data["p"][me]["hand"]
    elsewhere = next(c for c in state.data["p"][me]["cards"] if c not in hand)
    with pytest.raises(Illegal):  # only a card in hand
        act(state, "level_up", player=me, card=elsewhere)
    state, _ = act(state, "level_up", player=me, card=hand[0])
    with pytest.raises(Illegal):  # one card
        act(state, "level_up", player=me, card=hand[1])


def test_level_up_in_response_to_an_attack():
    """ "You can even do this in response to being attacked by an opponent before the combat is resolved.\""""
    state, me, other = two()
    state, _ = act(state, "end_turn")  # now the other player's turn; I may level up
    state = play(state, "captain", level=2)  # the other's Attack Flag
    state, _ = act(state, "attack", target=me)
    card = state.data["p"][me]["hand"][0]
    state, _ = act(state, "level_up", player=me, card=card)
    assert state.data["p"][me]["cards"][card]["level"] == 2 and state.data["battle"] is not None


def test_a_level_up_not_taken_is_taken_before_your_next_turn():
    """ "If you haven't leveled up a card before the start of your next turn, do it before taking your
    turn.\""""
    state, me, other = two()
    state, _ = act(state, "end_turn")
    state, _ = act(state, "end_turn")  # the other's turn passed without my level-up
    assert state.active == me
    card = state.data["p"][me]["hand"][0]
    state, _ = act(state, "level_up", player=me, card=card)  # before taking my turn
    assert state.data["p"][me]["cards"][card]["level"] == 2
    state, me2, _ = two(seed=3)
    state, _ = act(state, "end_turn")
    state, _ = act(state, "end_turn")
    state, _ = act(state, "set_sails")  # the turn's first action: the chance has gone
    with pytest.raises(Illegal):
        act(state, "level_up", player=me2, card=state.data["p"][me2]["hand"][0])


def test_the_levelled_card_stays_in_hand_at_its_next_level():
    """ "To level up a Sailor card, remove the Ability card from the sleeve, turn it around (or flip it when
    going from level 2 to level 3), and re-sleeve it so that the next level is now visible. The card stays in
    your hand, so you will have the option to use it on your next turn.\""""
    state, me, other = two()
    give_hand(state, me, ["crew-1"])
    state, _ = act(state, "end_turn")
    if "crew-1" not in state.data["p"][me]["hand"]:
        give_hand(state, me, ["crew-1"])
    state, _ = act(state, "level_up", player=me, card="crew-1")
    assert "crew-1" in state.data["p"][me]["hand"] and state.data["p"][me]["cards"]["crew-1"]["level"] == 2
    state, _ = act(state, "end_turn")
    state, _ = act(state, "play_card", card="crew-1")
    dock = state.data["p"][me]["dock"]
    state, _ = act(state, "use_ability", ability="crew-1:L2:0")  # the level-2 ability: 2 Cargo
    assert state.data["p"][me]["dock"] == dock + 2
    state.data["p"][me]["cards"]["crew-1"] = {**state.data["p"][me]["cards"]["crew-1"], "level": 4}
    state, _ = act(state, "end_turn")
    state, _ = act(state, "end_turn")
    state.data["p"][me]["level_up"] = True
    give_hand(state, me, ["crew-1"])
    with pytest.raises(Illegal):  # level 4 is the last
        act(state, "level_up", player=me, card="crew-1")
