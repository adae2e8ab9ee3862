"""Rulebook: Gameplay, 1 — Main Phase, Play a Card, Use an Ability of a Played Card (lines 136-184,
223-225): who acts when, in which order, how often."""

from __future__ import annotations

import pytest

from rules import api
from rules.errors import Illegal
from tests.rules.battle.helpers import cubes

from .support import act, give_hand, legal_types, place_island, play, resolve, ship, two


def test_players_take_turns_one_after_another():
    """ "Players take turns, one after another. Your turn consists of two phases, carried out in the
    following order: 1. Main phase ... 2. Cleanup phase\""""
    state, me, other = two()
    assert "end_turn" in legal_types(state, me) and not legal_types(state, other) - {"rearrange", "jettison"}
    with pytest.raises(Illegal):
        act(state, "set_sails", player=other)
    state, events = act(state, "end_turn")
    kinds = [e["type"] for e in events]
    assert kinds.index("cleanup") < kinds.index("turn_started")
    assert state.active == other


def test_after_your_turn_you_level_up_while_the_others_play():
    """ "When your turn is over, you will level-up a card in your hand, while your opponents are taking their
    turns.\""""
    state, me, other = two()
    state, _ = act(state, "end_turn")
    card = state.data["p"][me]["hand"][0]
    assert state.active == other
    state, _ = act(state, "level_up", player=me, card=card)
    assert state.data["p"][me]["cards"][card]["level"] == 2


def test_actions_in_any_order_but_sails_before_moving():
    """ "Actions can be taken in any order with the exception of moving your Ship, which requires you to set
    Sails first. Unless otherwise noted, you may do these actions as many times as you want." (the worked
    example: "play a card, unload Cargo, set Sails, load Cargo, move, play another card, use an ability,
    ...")"""
    state, me, _ = two(seed=2)
    with pytest.raises(Illegal):
        act(state, "move", path=["r1c1"])
    give_hand(state, me, ["crew-1", "gunner-1"])
    place_island(state, "r1c1", "island-05")
    state.data["p"][me]["ship"]["holds"][0] = [2, 0]
    state, _ = act(state, "play_card", card="crew-1")
    state, _ = act(state, "unload", hold=0, cargo=1, coins=0)
    state, _ = act(state, "set_sails")
    state, _ = act(state, "load", hold=0, cargo=1, coins=0)
    state, _ = act(state, "move", path=["r1c1"])
    state, _ = act(state, "play_card", card="gunner-1")
    state, _ = act(state, "use_ability", ability="crew-1:L1:0")
    state, _ = act(state, "unload", hold=0, cargo=1, coins=0)  # unloading again: as many times as wanted
    assert ship(state, me)["at"] == "r1c1"


def test_playing_a_card_puts_it_face_up_and_its_abilities_wait():
    """ "When you play a card, place it from your hand face up on the table in front of you. You may use the
    abilities on the played card now, later in the turn, or not at all (see Card Abilities).\""""
    state, me, _ = two()
    state = play(state, "crew-1")
    p = state.data["p"][me]
    assert "crew-1" in p["played"] and "crew-1" not in p["hand"]
    assert "crew-1" in api.public_view(state)["p"][me]["played"]
    state, _ = act(state, "set_sails")  # later in the turn
    state, _ = act(state, "use_ability", ability="crew-1:L1:0")
    assert state.data["p"][me]["dock"] == p["dock"] + 1
    # or not at all: the turn ends with the ability unused
    state2, me2, _ = two()
    state2 = play(state2, "crew-1")
    state2, _ = act(state2, "end_turn")
    assert "crew-1" in state2.data["p"][me2]["discard"]


def test_each_ability_once_per_turn():
    """ "Use an ability of a played card (each ability on a card can only be used once per turn)." and "Using
    an ability is optional. Each ability can be used only once per turn.\""""
    state, me, _ = two()
    state = play(state, "crew-1")
    state, _ = act(state, "use_ability", ability="crew-1:L1:0")
    with pytest.raises(Illegal) as err:
        act(state, "use_ability", ability="crew-1:L1:0")
    assert "once per turn" in err.value.message


def test_abilities_of_a_card_in_hand_cannot_be_used():
    """ "Cards that you have played from your hand may have one or more abilities. Using an ability is an
    action that you can perform during your Main phase\""""
    state, me, other = two()
    give_hand(state, me, ["crew-1"])
    with pytest.raises(Illegal):
        act(state, "use_ability", ability="crew-1:L1:0")
    state = play(state, "crew-1")
    with pytest.raises(Illegal):  # not during another player's Main phase
        act(state, "use_ability", player=other, ability="crew-1:L1:0")


def test_battle_abilities_only_in_battles():
    """ ""Battle" abilities can only be used during battles and can also only be used once per turn, even if
    you fight multiple battles." and "Battle abilities: Any ability that starts with "BATTLE:" can only be
    used during a battle.\""""
    state, me, other = two()
    state = play(state, "gunner-1", level=3)
    with pytest.raises(Illegal):
        act(state, "use_ability", ability="gunner-1:L3:1")  # the drop-2-cubes Battle ability
    assert "gunner-1:L3:1" not in [a.get("ability") for a in api.legal_actions(state, me)]
    # the same ability offered to the battle, then not to a second battle that turn
    state = play(state, "captain", level=2)
    place_island(state, "r1c1", "island-05")
    state.data["p"][other]["ship"]["at"] = "harbor"
    state, events = act(state, "attack", target=other)
    setup = state.data["battle"]["setup"]
    gun = [a["id"] for a in setup["attacker"]["abilities"] if a["source"] == "gunner-1"]
    assert gun == [f"{me}:gunner-1:L3:1"]
    board = [f"{me}@s2", f"{me}@miss"] + [f"{other}@miss"] * 5  # 2 Cannons v 1 + 4 in Harbor
    state, _ = resolve(
        state,
        " ".join(board),
        {"step": "ability", "side": "attacker", "ability": gun[0]},
        {
            "step": "drop",
            "reason": "ability",
            "ability": gun[0],
            "board": cubes(" ".join(board) + f" {me}@miss" * 2),
        },
    )
    assert state.data["battle"] is None
    assert "gunner-1:L3:1" in state.data["p"][me]["used"]
    # a second battle this turn (a Merchant) no longer offers it
    place_island(state, "r1c1", "island-05")
    state.data["grid"]["r1c1"]["card"] = "r2-06"
    state, _ = act(state, "set_sails")
    state, _ = act(state, "move", path=["r1c1"])
    state, _ = act(state, "attack_merchant")
    assert not [
        a for a in state.data["battle"]["setup"]["attacker"]["abilities"] if a["source"] == "gunner-1"
    ]
