"""Rulebook: Buildings (lines 323-329) and Constructing a Building (line 305)."""

from __future__ import annotations

import pytest

from rules.errors import Illegal

from .support import act, controlled_island, play, ship, two


def _their_island_with(state, me, other, building, cargo=0):
    isl = controlled_island(state, other, [other, other, None])
    isl["buildings"][building] = True
    state.data["supply"][building] -= 1
    isl["cargo"] = cargo
    ship(state, me)["at"] = "r1c1"
    return isl


def test_at_most_one_building_of_each_type_per_island():
    """ "There are 3 types of Buildings. Each island may have at most 1 Building of each type.\""""
    state, me, _ = two()
    isl = controlled_island(state, me, [me, me, None])
    isl["buildings"]["fort"] = True
    state.data["p"][me]["dock"] = 10
    state = play(state, "first-mate", level=3)
    with pytest.raises(Illegal) as err:
        act(
            state,
            "use_ability",
            ability="first-mate:L3:0",
            args={"builds": [{"square": "r1c1", "building": "fort"}]},
        )
    assert "at most one of each" in err.value.message
    state, _ = act(
        state,
        "use_ability",
        ability="first-mate:L3:0",
        args={
            "builds": [{"square": "r1c1", "building": "garrison"}, {"square": "r1c1", "building": "outpost"}]
        },
    )
    assert state.data["grid"]["r1c1"]["island"]["buildings"] == {
        "fort": True,
        "garrison": True,
        "outpost": True,
    }


def test_building_on_a_controlled_island_from_afar_for_its_cost():
    """ "Constructing a Building: This ability allows you to construct 1 Building of your choice on an island
    you control for the cost indicated; you do not need to be on the Ocean board with the island to do
    this.\""""
    from rules.dead_reckoning.cards import load_catalog

    state, me, other = two()
    controlled_island(state, me, [me, me, None])
    state.data["p"][me]["dock"] = 10
    state = play(state, "first-mate", level=2)
    assert ship(state, me)["at"] == "harbor"
    state, _ = act(
        state,
        "use_ability",
        ability="first-mate:L2:0",
        args={"builds": [{"square": "r1c1", "building": "garrison"}]},
    )
    assert state.data["grid"]["r1c1"]["island"]["buildings"]["garrison"]
    assert state.data["p"][me]["dock"] == 10 - load_catalog().building_costs["garrison"]
    assert state.data["supply"]["garrison"] == 7
    state2, me2, other2 = two()
    controlled_island(state2, other2, [other2, other2, None])
    state2.data["p"][me2]["dock"] = 10
    state2 = play(state2, "first-mate", level=2)
    with pytest.raises(Illegal):
        act(
            state2,
            "use_ability",
            ability="first-mate:L2:0",
            args={"builds": [{"square": "r1c1", "building": "fort"}]},
        )


@pytest.mark.parametrize("building", ["fort", "garrison"])
def test_an_opponents_fort_or_garrison_keeps_you_off_the_island(building):
    """ "Forts help you defend the island. If you control an island with a Fort, other players may not
    interact with that island (place or remove cubes, produce, load/unload Cargo/Coins) even with card
    abilities, unless the card ability explicitly says it overrides Forts." and "Garrisons have the same
    properties as Forts, but are weaker in battle.\""""
    state, me, other = two()
    _their_island_with(state, me, other, building, cargo=2)
    ship(state, me)["holds"] = [[1, 0], [0, 0]]
    state = play(state, "deck-hand-1")
    state = play(state, "purser")
    for kind, fields in (
        ("unload", {"hold": 0, "cargo": 1, "coins": 0}),
        ("use_ability", {"ability": "deck-hand-1:L1:0"}),
        ("use_ability", {"ability": "purser:L1:0", "args": {"islands": ["r1c1"]}}),
    ):
        with pytest.raises(Illegal) as err:
            act(state, kind, **fields)
        assert "guards" in err.value.message
    with pytest.raises(Illegal):
        act(state, "load", hold=1, cargo=1, coins=0)


def test_beside_an_opponents_fort_you_may_still_buy_or_resolve_the_encounter():
    """ "They may still buy the Advancement or resolve an Encounter on the space.\""""
    state, me, other = two()
    _their_island_with(state, me, other, "fort")
    state.data["grid"]["r1c1"]["card"] = "r1-01"
    ship(state, me)["holds"] = [[2, 0], [0, 0]]
    state, _ = act(state, "buy")
    assert state.data["p"][me]["set_aside"] == ["r1-01"]
    state2, me2, other2 = two()
    _their_island_with(state2, me2, other2, "fort")
    state2.data["grid"]["r1c1"]["card"] = "r1-06"
    state2, _ = act(state2, "attack_merchant")
    assert state2.data["battle"]["setup"]["kind"] == "nonplayer"


def test_a_fort_or_garrison_can_be_attacked_without_a_flag_an_outpost_cannot():
    """ "A player whose Ship is in the space with an opponent's Fort may choose to attack the Fort in order to
    destroy it (an Attack Flag is not required)." and "Outposts boost production. ... Outposts cannot be
    attacked.\""""
    for building, ok in (("fort", True), ("garrison", True), ("outpost", False)):
        state, me, other = two()
        _their_island_with(state, me, other, building)
        if ok:
            state, _ = act(state, "attack_building")
            assert state.data["battle"]["setup"]["kind"] == "building"
        else:
            with pytest.raises(Illegal) as err:
                act(state, "attack_building")
            assert "Outposts cannot be attacked" in err.value.message


def test_an_outpost_adds_a_cargo_and_a_coin_to_production():
    """ "Whenever an island with an Outpost produces, it produces an additional 1 Cargo and 1 Coin.\""""
    state, me, _ = two()
    isl = controlled_island(state, me, [me, me, None])  # island-05: 2 Cargo, 1 Coin
    isl["buildings"]["outpost"] = True
    state = play(state, "purser")
    state, _ = act(state, "use_ability", ability="purser:L1:0", args={"islands": ["r1c1"]})
    isl = state.data["grid"]["r1c1"]["island"]
    assert (isl["cargo"], isl["coins"]) == (3, 2)


def test_a_garrison_damages_a_ship_entering_even_passing_through():
    """ "In addition, whenever another player's Ship enters a space with a Garrison you control, even if it
    just passes through, that Ship immediately takes 1 Damage.\""""
    state, me, other = two()
    isl = controlled_island(state, other, [other, other, None])
    isl["buildings"]["garrison"] = True
    state, _ = act(state, "set_sails")
    state, events = act(state, "move", path=["r1c1", "r1c2"])
    assert ship(state, me)["damage"] == 1 and [e["by"] for e in events if e["type"] == "garrison_fire"] == [
        other
    ]
    state3, me3, _ = two()
    isl3 = controlled_island(state3, me3, [me3, me3, None])
    isl3["buildings"]["garrison"] = True
    state3, _ = act(state3, "set_sails")
    state3, _ = act(state3, "move", path=["r1c1"])
    assert ship(state3, me3)["damage"] == 0  # your own Garrison does not fire at you
