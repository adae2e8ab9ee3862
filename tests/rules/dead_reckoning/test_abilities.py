"""Abilities and their effects (rules/dead_reckoning/abilities.py): the rulebook's worked situations."""

from __future__ import annotations

import pytest

from rules.errors import Ambiguous, Illegal
from tests.rules.helpers import act, game, give_hand, place_island, with_played


def test_produce_with_open_sea_arrows_and_outpost():
    state = game(2, seed=1)
    color = state.active
    place_island(state, "r2c2", "island-02")  # produces 2 cargo, 0 coins
    place_island(state, "r3c2", "open-sea-a")  # arrows N and S: N points at r2c2
    place_island(state, "r2c1", "open-sea-b")  # arrows E and W: E points at r2c2
    state.data["grid"]["r2c2"]["island"]["buildings"]["outpost"] = True
    give_hand(state, color, ["purser"])
    state, _ = act(state, "play_card", card="purser")
    state, _ = act(state, "use_ability", ability="purser:L1:0", args={"islands": ["r2c2"]})
    isl = state.data["grid"]["r2c2"]["island"]
    assert (isl["cargo"], isl["coins"]) == (2 + 2 + 1, 0 + 1)


def test_first_mate_builds_on_a_controlled_island_from_afar():
    state = game(2, seed=1)
    state, color = with_played(state, "first-mate", 3)
    isl = place_island(state, "r1c3", "island-05")
    isl["cubes"] = [color, color, None]
    isl["controller"] = color
    state.data["p"][color]["dock"] = 10
    with pytest.raises(Illegal):  # one of each Building per island
        act(
            state,
            "use_ability",
            ability="first-mate:L3:0",
            args={"builds": [{"square": "r1c3", "building": "fort"}, {"square": "r1c3", "building": "fort"}]},
        )
    with pytest.raises(Illegal):  # only on islands you control
        act(
            state,
            "use_ability",
            ability="first-mate:L3:0",
            args={"builds": [{"square": "r1c2", "building": "fort"}]},
        )
    state, _ = act(
        state,
        "use_ability",
        ability="first-mate:L3:0",
        args={"builds": [{"square": "r1c3", "building": "fort"}, {"square": "r1c3", "building": "outpost"}]},
    )
    b = state.data["grid"]["r1c3"]["island"]["buildings"]
    assert b["fort"] and b["outpost"] and state.data["p"][color]["dock"] == 10 - 4 - 3
    with pytest.raises(Illegal):  # each ability once per turn
        act(
            state,
            "use_ability",
            ability="first-mate:L3:0",
            args={"builds": [{"square": "r1c3", "building": "garrison"}]},
        )


def test_bosun_upgrades_cover_tiles_and_elite_vessel():
    state = game(2, seed=1)
    state, color = with_played(state, "bosun", 4)
    p = state.data["p"][color]
    p["dock"] = 20
    with pytest.raises(Ambiguous):
        act(state, "use_ability", ability="bosun:L4:0")  # a choice: gain, basic or advanced
    with pytest.raises(Ambiguous):
        act(state, "use_ability", ability="bosun:L4:0", choice=2)  # which advanced tile
    p["ship"]["hull"] = [[], ["basic-sail"], ["basic-cannon"], []]
    with pytest.raises(Ambiguous):  # every hull space is covered (sails printed on 0 and 3)
        act(state, "use_ability", ability="bosun:L4:0", choice=2, args={"tile": "advanced-guns"})
    state, _ = act(
        state, "use_ability", ability="bosun:L4:0", choice=2, args={"tile": "advanced-guns", "space": 1}
    )
    hull = state.data["p"][color]["ship"]["hull"]
    assert hull[1] == ["basic-sail", "advanced-guns"] and state.data["p"][color]["dock"] == 14
    hull[3] = ["basic-wheel"]
    state.data["p"][color]["used"] = []
    state, events = act(
        state, "use_ability", ability="bosun:L4:0", choice=1, args={"tile": "basic-sail", "space": 0}
    )
    assert color in state.data["achievements"]["elite_vessel"]  # 4 tiles, covered ones count


def test_repair_conditions():
    state = game(2, seed=1)
    state, color = with_played(state, "crew-1", 2)
    with pytest.raises(Illegal):
        act(state, "use_ability", ability="crew-1:L2:1")  # no Damage
    state.data["p"][color]["ship"]["damage"] = 2
    state.data["p"][color]["ship"].update({"at": "r1c1"})
    with pytest.raises(Illegal) as err:
        act(state, "use_ability", ability="crew-1:L2:1")  # level 2 repairs only in Harbor
    assert "Harbor" in err.value.message
    state.data["p"][color]["ship"]["at"] = "harbor"
    state.data["p"][color]["dock"] = 2
    state, _ = act(state, "use_ability", ability="crew-1:L2:1")
    assert state.data["p"][color]["ship"]["damage"] == 1 and state.data["p"][color]["dock"] == 0


def test_crew_level_four_splits_cargo_between_dock_and_ship():
    state = game(2, seed=1)
    state, color = with_played(state, "crew-2", 4)
    dock = state.data["p"][color]["dock"]
    state, _ = act(state, "use_ability", ability="crew-2:L4:0", args={"to_ship": 3})
    p = state.data["p"][color]
    assert p["dock"] == dock + 1 and p["ship"]["holds"][0] == [3, 0]


def test_an_upgrade_goes_on_a_blank_space_while_one_is_free():
    """Rulebook (Upgrading your Ship): "place it on a blank space of your Ship. If all the spaces are full
    (either with a token or starting effect), replace one of the current spaces" (#16, deviation 4)."""
    state = game(2, seed=1)
    state, color = with_played(state, "bosun", 4)
    p = state.data["p"][color]
    p["dock"] = 20
    p["ship"]["hull"] = [[], ["basic-sail"], [], []]  # space 2 still blank
    for space in (0, 1, 3):  # the printed Sails and the Upgrade on space 1
        with pytest.raises(Illegal) as err:
            act(
                state,
                "use_ability",
                ability="bosun:L4:0",
                choice=1,
                args={"tile": "basic-wheel", "space": space},
            )
        assert "blank" in err.value.message
    assert state.data["p"][color]["ship"]["hull"] == [[], ["basic-sail"], [], []]  # a refusal changes nothing
    state, _ = act(
        state, "use_ability", ability="bosun:L4:0", choice=1, args={"tile": "basic-wheel", "space": 2}
    )
    assert state.data["p"][color]["ship"]["hull"] == [[], ["basic-sail"], ["basic-wheel"], []]
