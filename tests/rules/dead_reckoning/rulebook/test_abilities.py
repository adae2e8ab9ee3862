"""Rulebook: Card Abilities and Description of Abilities (lines 285-321)."""

from __future__ import annotations

import pytest

from rules import api
from rules.errors import Ambiguous, Illegal

from .support import act, controlled_island, place_island, play, ship, two


def _sleeve(state, color, card, slot, adv):
    p = state.data["p"][color]
    p["cards"][card] = {**p["cards"][card], "slots": {**p["cards"][card]["slots"], slot: adv}}


def test_abilities_split_by_a_green_line_are_used_independently():
    """ "If a card has more than one ability separated by a green vertical line, these abilities can be used
    independently of each other.\""""
    state, me, _ = two()
    ship(state, me)["damage"] = 1
    state = play(state, "crew-1", level=2)  # gain 2 Cargo | in Harbor, pay 2 Cargo: repair 1
    dock = state.data["p"][me]["dock"]
    state, _ = act(state, "use_ability", ability="crew-1:L2:0")
    assert state.data["p"][me]["dock"] == dock + 2 and ship(state, me)["damage"] == 1
    state, _ = act(state, "use_ability", ability="crew-1:L2:1")
    assert ship(state, me)["damage"] == 0 and state.data["p"][me]["dock"] == dock


def test_effects_split_by_a_red_slash_are_a_choice():
    """ "If an ability has multiple effects separated by a red slash, you must choose which effect to
    resolve.\""""
    state, me, _ = two()
    place_island(state, "r1c1", "island-05")
    ship(state, me)["at"] = "r1c1"
    state = play(state, "deck-hand-1", level=2)  # Place 1 Influence cube OR Gain 1 Sail
    with pytest.raises(Ambiguous):
        act(state, "use_ability", ability="deck-hand-1:L2:0")
    state, _ = act(state, "use_ability", ability="deck-hand-1:L2:0", choice=1)
    assert state.data["grid"]["r1c1"]["island"]["cubes"] == [None, None, None]
    assert state.data["turn"]["extra_sails"] == 1
    with pytest.raises(Illegal):  # the other effect is not had as well
        act(state, "use_ability", ability="deck-hand-1:L2:0", choice=0)


def test_a_gray_icon_counts_that_thing_on_this_card_only():
    """ "The depiction of a gray icon on a white card means "the number of that thing on this card". Note this
    icon does not itself count as one of the depicted icons." and "Icon X Icon: You gain the thing on the left
    of the X for each instance on this card of the thing on the right of the X.\""""
    state, me, _ = two()
    # Navigator (r2-05): 2 Wheels and "1 Cargo x Wheel"; Helmsman (r1-04): 1 Wheel; Bosun 2: 1 Wheel
    _sleeve(state, me, "bosun", "bottom", "r2-05")
    _sleeve(state, me, "bosun", "middle", "r1-04")
    _sleeve(state, me, "captain", "bottom", "r2-05")  # Captain 1 has no Wheel of its own
    state = play(state, "bosun", level=2)
    state = play(state, "captain", level=1)
    dock = state.data["p"][me]["dock"]
    state, _ = act(state, "use_ability", ability="bosun:r2-05:0")
    assert state.data["p"][me]["dock"] == dock + 1 + 1 + 2
    state, _ = act(state, "use_ability", ability="captain:r2-05:0")
    assert state.data["p"][me]["dock"] == dock + 4 + 2  # the Bosun's Wheels are not on this card


def test_sails_on_played_cards_count_when_setting_sails():
    """ "Sail: This ability is not used as an action. Sail icons visible on cards you have played are counted
    when you set Sails.\""""
    state, me, _ = two()
    _sleeve(state, me, "crew-1", "middle", "r1-01")  # Spare Canvas: 1 Sail
    state = play(state, "crew-1")
    assert not [a for a in api.legal_actions(state, me) if a.get("ability", "").startswith("crew-1:r1-01")]
    state, _ = act(state, "set_sails")
    assert ship(state, me)["sails"] == 2 + 1


def test_influence_only_at_an_island_into_an_empty_slot_first():
    """ "Place Influence: This ability can only be used when your Ship is on an Ocean board with an island.
    Place a cube of your color onto an empty slot of the island. If there are no empty slots, choose a slot
    occupied by an opponent's cube, and replace that cube with your own (return the opponent's cube to
    them).\""""
    state, me, other = two()
    state = play(state, "buccaneer")
    with pytest.raises(Illegal) as err:
        act(state, "use_ability", ability="buccaneer:L1:0")  # in Harbor
    assert "island" in err.value.message
    isl = place_island(state, "r1c1", "island-01")  # 2 slots
    isl["cubes"] = [other, None]
    ship(state, me)["at"] = "r1c1"
    state, _ = act(state, "use_ability", ability="buccaneer:L1:0")
    assert state.data["grid"]["r1c1"]["island"]["cubes"] == [other, me]
    cubes = state.data["p"][other]["cubes"]
    state = play(state, "deck-hand-1")
    state, _ = act(state, "use_ability", ability="deck-hand-1:L1:0")  # full: the opponent's cube goes
    assert state.data["grid"]["r1c1"]["island"]["cubes"] == [me, me]
    assert state.data["p"][other]["cubes"] == cubes + 1


def test_several_influence_cubes_of_one_ability_are_placed_at_once():
    """ "If an ability, like the Buccaneer, gives you multiple Influence cube icons at once, you must use all
    the Influence cubes possible from that ability before doing anything else; you cannot use some now and
    store the others for later in the turn.\""""
    state, me, _ = two()
    place_island(state, "r1c1", "island-07")  # 4 slots
    ship(state, me)["at"] = "r1c1"
    state = play(state, "buccaneer", level=3)
    state, _ = act(state, "use_ability", ability="buccaneer:L3:0")
    assert state.data["grid"]["r1c1"]["island"]["cubes"].count(me) == 3
    with pytest.raises(Illegal):
        act(state, "use_ability", ability="buccaneer:L3:0")
    # where fewer are possible, those are placed: 2 slots, all 4 of Buccaneer 4
    state2, me2, _ = two()
    place_island(state2, "r1c1", "island-01")
    ship(state2, me2)["at"] = "r1c1"
    state2 = play(state2, "buccaneer", level=4)
    state2, _ = act(state2, "use_ability", ability="buccaneer:L4:0")
    assert state2.data["grid"]["r1c1"]["island"]["cubes"] == [me2, me2]


def test_taking_control_adds_a_permanent_cube():
    """ "After placing a cube, check to see if you take control of the island. If you do, place an additional
    cube in the Permanent cube area.\""""
    state, me, _ = two()
    place_island(state, "r1c1", "island-05")
    ship(state, me)["at"] = "r1c1"
    cubes = state.data["p"][me]["cubes"]
    state = play(state, "buccaneer", level=2)
    state, events = act(state, "use_ability", ability="buccaneer:L2:0")
    isl = state.data["grid"]["r1c1"]["island"]
    assert isl["controller"] == me and isl["permanent"] == {me: 1}
    assert state.data["p"][me]["cubes"] == cubes - 3


def test_production_needs_neither_control_nor_presence():
    """ "Production: This ability allows you to produce at an island. You don't need to control or be on the
    ocean board with the island to produce there" and "When an island produces, place a number of Cargo
    and/or Coins as depicted in the bottom right of the board onto the island.\""""
    state, me, other = two()
    controlled_island(state, other, [other, other, None])  # island-05: 2 Cargo, 1 Coin; someone else's
    state = play(state, "purser")
    state, events = act(state, "use_ability", ability="purser:L1:0", args={"islands": ["r1c1"]})
    isl = state.data["grid"]["r1c1"]["island"]
    assert (isl["cargo"], isl["coins"]) == (2, 1) and ship(state, me)["at"] == "harbor"


def test_open_sea_arrows_and_an_outpost_boost_production():
    """ "Ocean boards depicting Open seas boost the production on adjacent islands. When an island produces,
    it produces 1 additional Cargo for each adjacent open sea space with an arrow pointing at it. Island
    production is also increased by 1 Cargo and 1 Coin if there is an Outpost on the island.\""""
    state, me, _ = two()
    place_island(state, "r2c2", "island-02")  # 2 Cargo
    place_island(state, "r3c2", "open-sea-a")  # an arrow at r2c2
    place_island(state, "r2c1", "open-sea-b")  # an arrow at r2c2
    place_island(state, "r2c3", "island-01")
    state.data["grid"]["r2c2"]["island"]["buildings"]["outpost"] = True
    state = play(state, "purser")
    state, _ = act(state, "use_ability", ability="purser:L1:0", args={"islands": ["r2c2"]})
    isl = state.data["grid"]["r2c2"]["island"]
    assert (isl["cargo"], isl["coins"]) == (2 + 2 + 1, 0 + 1)


def test_attack_flag_on_the_same_board_or_in_harbor_whatever_the_modes():
    """ "Attack Flag: This ability allows you to choose an opponent's Ship on the same Ocean board as your
    Ship, or in Harbor with your Ship, and resolve a Ship battle against that player. Being in or out of
    pirate mode has nothing to do with using this icon to attack an opponent's ship.\""""
    state, me, other = two()
    state = play(state, "captain", level=2)
    ship(state, other)["at"] = "r1c1"
    with pytest.raises(Illegal):
        act(state, "attack", target=other)  # not on my board
    ship(state, other)["at"] = "harbor"
    state, events = act(state, "attack", target=other)
    assert state.data["battle"]["setup"]["defender"]["name"] == other
    state2, me2, other2 = two()
    state2 = play(state2, "captain", level=2)
    ship(state2, me2).update({"at": "r1c1", "pirate": True})
    ship(state2, other2).update({"at": "r1c1", "pirate": False})
    state2, _ = act(state2, "attack", target=other2)
    assert state2.data["p"][me2]["flags_used"] == 1


def test_each_cannon_gives_one_battle_cube():
    """ "Cannon: In battles, each Cannon you have gives you 1 Battle cube.\""""
    state, me, other = two()
    _sleeve(state, me, "gunner-1", "bottom", "r2-02")  # Long Nines: 2 Cannons
    state = play(state, "gunner-1", level=2)  # 1 Cannon
    state = play(state, "captain", level=2)
    state, _ = act(state, "attack", target=other)
    assert state.data["battle"]["setup"]["attacker"]["cubes"] == 1 + 1 + 2  # the Ship's own Cannon too


def test_a_wheel_alone_does_nothing():
    """ "Wheels: This icon does nothing on its own, but many other abilities will reference it and combo with
    it when sleeved on the same card.\""""
    state, me, other = two()
    state = play(state, "bosun", level=2)  # 1 Wheel
    state, _ = act(state, "set_sails")
    assert ship(state, me)["sails"] == 2
    assert {a["type"] for a in api.legal_actions(state, me)} >= {"use_ability"}
    assert [a["ability"] for a in api.legal_actions(state, me) if a["type"] == "use_ability"] == [
        "bosun:L2:0"
    ]  # its Cargo, nothing for the Wheel


def test_repairing_removes_one_damage_often_at_a_cost():
    """ "Repairing damage: This ability allows you to remove 1 Damage from your Ship. Often this comes at a
    cost (e.g. 2 Cargo from your Ship or Dock tile).\""""
    state, me, _ = two()
    ship(state, me).update({"damage": 2, "holds": [[1, 0], [0, 0]]})
    state.data["p"][me]["dock"] = 1
    state = play(state, "crew-1", level=3)
    state, _ = act(state, "use_ability", ability="crew-1:L3:1")
    assert (
        ship(state, me)["damage"] == 1 and state.data["p"][me]["dock"] + ship(state, me)["holds"][0][0] == 0
    )


def test_running_out_of_cubes_takes_a_non_permanent_island_cube():
    """ "Running out of cubes: Anytime you need a cube but don't have any available, you may remove one of
    your non-permanent cubes from any island and use that as the cube you need.\""""
    state, me, _ = two()
    isl = place_island(state, "r1c2", "island-05")
    isl["cubes"], isl["permanent"] = [me, None, None], {me: 1}
    place_island(state, "r1c1", "island-01")
    state.data["p"][me]["cubes"] = 0
    ship(state, me)["at"] = "r1c1"
    state = play(state, "deck-hand-1")
    state, _ = act(state, "use_ability", ability="deck-hand-1:L1:0")
    assert state.data["grid"]["r1c1"]["island"]["cubes"] == [me, None]
    assert state.data["grid"]["r1c2"]["island"]["cubes"] == [None, None, None]
    assert state.data["grid"]["r1c2"]["island"]["permanent"] == {me: 1}  # never the permanent one


def test_running_out_of_cubes_the_player_chooses_the_island():
    """ "you may remove one of your non-permanent cubes from any island and use that as the cube you need"
    (the player's choice of island).\""""
    state, me, _ = two()
    for sq, board in (("r1c2", "island-05"), ("r1c3", "island-04")):
        place_island(state, sq, board)["cubes"] = [me, None, None]
    place_island(state, "r1c1", "island-01")
    state.data["p"][me]["cubes"] = 0
    ship(state, me)["at"] = "r1c1"
    state = play(state, "deck-hand-1")
    offers = [a for a in api.legal_actions(state, me) if a.get("ability") == "deck-hand-1:L1:0"]
    outcomes = set()
    for a in offers:
        after, _ = api.apply(state, {"seq": state.seq, "player": me, "action": a})
        outcomes.add(tuple(after.data["grid"][sq]["island"]["cubes"].count(me) for sq in ("r1c2", "r1c3")))
    assert outcomes == {(0, 1), (1, 0)}


def test_running_out_of_cubes_an_island_without_my_cube_is_refused_with_the_choices():
    """ "you may remove one of your non-permanent cubes from any island and use that as the cube you need"
    (only an island holding one of your non-permanent cubes).\""""
    state, me, _ = two()
    place_island(state, "r1c2", "island-05")["cubes"] = [me, None, None]
    place_island(state, "r1c3", "island-04")
    place_island(state, "r1c1", "island-01")
    state.data["p"][me]["cubes"] = 0
    ship(state, me)["at"] = "r1c1"
    state = play(state, "deck-hand-1")
    with pytest.raises(Illegal) as err:
        act(state, "use_ability", ability="deck-hand-1:L1:0", args={"take_from": ["r1c3"]})
    assert "choose among r1c2" in err.value.message
    state, _ = act(state, "use_ability", ability="deck-hand-1:L1:0", args={"take_from": ["r1c2"]})
    assert state.data["grid"]["r1c2"]["island"]["cubes"].count(me) == 0
    assert state.data["grid"]["r1c1"]["island"]["cubes"].count(me) == 1
