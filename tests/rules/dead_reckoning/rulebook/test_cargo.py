"""Rulebook: Load / Unload / Rearrange / Jettison, The Ship Board and Hull Spaces, Gaining and Spending
Coins & Cargo (lines 145-161, 176-180, 295)."""

from __future__ import annotations

import pytest

from rules.errors import Illegal

from .support import act, controlled_island, place_island, play, ship, two


def test_in_harbor_cargo_loads_from_the_dock():
    """ "Any time your Ship is on the Harbor board it is considered "in Harbor", and you may move Cargo from
    your Dock tile onto available hull spaces on your Ship.\""""
    state, me, _ = two()
    state.data["p"][me]["dock"] = 3
    state, _ = act(state, "load", hold=1, cargo=3, coins=0)
    assert state.data["p"][me]["dock"] == 0 and ship(state, me)["holds"][1] == [3, 0]
    with pytest.raises(Illegal):  # nothing left on the Dock
        act(state, "load", hold=0, cargo=1, coins=0)


def test_at_an_island_you_control_you_load_its_cargo_and_coins():
    """ "If your Ship is at an island that you control, you may move the Cargo and Coins on that island onto
    available hull spaces on your Ship. You cannot load from an island you do not control.\""""
    state, me, other = two()
    isl = controlled_island(state, me, [me, me, None])
    isl.update({"cargo": 2, "coins": 1})
    ship(state, me)["at"] = "r1c1"
    state, _ = act(state, "load", hold=0, cargo=2, coins=1)
    assert ship(state, me)["holds"][0] == [2, 1] and state.data["grid"]["r1c1"]["island"]["cargo"] == 0
    state2, me2, other2 = two()
    isl2 = controlled_island(state2, other2, [other2, other2, None])
    isl2.update({"cargo": 2, "coins": 1})
    ship(state2, me2)["at"] = "r1c1"
    with pytest.raises(Illegal) as err:
        act(state2, "load", hold=0, cargo=1, coins=0)
    assert "island you control" in err.value.message


def test_unloading_in_harbor_cargo_to_the_dock_coins_to_the_chest():
    """ "If your Ship is in Harbor, you may move Cargo from your Ship onto your Dock tile. Coins are never
    placed on your Dock tile, but can be used from your Treasure chest as though they are. You may also move
    Coins from your Ship into your Treasure chest.\""""
    state, me, _ = two()
    ship(state, me)["holds"] = [[2, 3], [0, 0]]
    p0 = dict(state.data["p"][me])
    state, _ = act(state, "unload", hold=0, cargo=2, coins=3)
    p = state.data["p"][me]
    assert (p["dock"], p["chest"]) == (p0["dock"] + 2, p0["chest"] + 3)


def test_unloading_onto_an_island_you_do_not_control():
    """ "If your Ship is at an island, you may move Cargo and Coins from your Ship onto the island. You may
    unload onto an island even if you do not control that island.\""""
    state, me, other = two()
    controlled_island(state, other, [other, other, None])
    s = ship(state, me)
    s["at"], s["holds"] = "r1c1", [[2, 1], [0, 0]]
    state, _ = act(state, "unload", hold=0, cargo=2, coins=1)
    isl = state.data["grid"]["r1c1"]["island"]
    assert (isl["cargo"], isl["coins"]) == (2, 1) and ship(state, me)["holds"][0] == [0, 0]


def test_an_opponents_pirate_ship_at_your_island_stops_loading_and_unloading():
    """ "If there is an opponent's Ship in Pirate mode at an island you control, you may not load or unload
    from the island without battling and defeating the opponent's Ship (see Battles and Pirate mode).\""""
    state, me, other = two()
    isl = controlled_island(state, me, [me, me, None])
    isl["cargo"] = 2
    s = ship(state, me)
    s["at"], s["holds"] = "r1c1", [[0, 1], [0, 0]]
    ship(state, other).update({"at": "r1c1", "pirate": True})
    for kind in ("load", "unload"):
        with pytest.raises(Illegal) as err:
            act(state, kind, hold=0, cargo=0 if kind == "unload" else 1, coins=1 if kind == "unload" else 0)
        assert "Pirate-mode" in err.value.message
    # once beaten this turn the island is open again
    state.data["turn"]["beaten"].append(other)
    state, _ = act(state, "load", hold=1, cargo=1, coins=0)
    assert ship(state, me)["holds"][1] == [1, 0]


def test_rearranging_any_time_even_on_another_players_turn():
    """ "Rearranging: You can rearrange Cargo / Coins however you want on your Ship at any time, even during
    another player's turn, including immediately in response to being attacked.\""""
    state, me, other = two()
    ship(state, other)["holds"] = [[2, 1], [0, 0]]
    state, _ = act(state, "rearrange", player=other, from_hold=0, cargo=2, coins=1)
    assert ship(state, other)["holds"] == [[0, 0], [2, 1]]
    with pytest.raises(Illegal):
        act(state, "rearrange", player=other, from_hold=1, cargo=3, coins=0)  # only 2 Cargo there


def test_jettisoning_returns_to_the_supply_even_when_it_is_not_your_turn():
    """ "Jettisoning: You can also jettison Cargo or Coins into the sea; remove them from your Ship and return
    them to the general supply. You may even do this when it is not your turn, including as a response
    immediately when you are attacked.\""""
    state, me, other = two()
    ship(state, other)["holds"] = [[2, 3], [0, 0]]
    supply = dict(state.data["supply"])
    state, _ = act(state, "jettison", player=other, hold=0, cargo=2, coins=3)
    assert ship(state, other)["holds"][0] == [0, 0]
    assert state.data["supply"]["cargo"] == supply["cargo"] + 2
    assert state.data["supply"]["coins"] == supply["coins"] + 3


def test_four_hull_spaces_holds_of_four_and_three():
    """ "Your Ship board has four hull spaces: The first space has a Sail and a hold with a capacity of 4
    Cargo/Coins. The next two are blank, and the last space has a Sail and a hold with a capacity of 3
    Cargo/Coins. Any Cargo/Coins that you load must be placed into a hold, and the total number of Cargo and
    Coins combined in each hold cannot exceed the capacity of that hold.\""""
    state, me, _ = two()
    assert len(ship(state, me)["hull"]) == 4
    state.data["p"][me]["dock"] = 9
    state, _ = act(state, "set_sails")
    assert ship(state, me)["sails"] == 2  # two Sails printed, the two blank spaces give none
    state, _ = act(state, "load", hold=0, cargo=4, coins=0)
    state, _ = act(state, "load", hold=1, cargo=3, coins=0)
    for h in (0, 1):
        with pytest.raises(Illegal):
            act(state, "load", hold=h, cargo=1, coins=0)
    assert ship(state, me)["holds"] == [[4, 0], [3, 0]]  # "a maximum of 7 Cargo/Coins"


def test_a_loaded_hold_loses_its_sail():
    """ "The benefits of a hull space (e.g. Sail or Cannon) are only gained if that section of hull has an
    empty hold (contains no Cargo or Coins)." and "If any Cargo or Coins are loaded into either of the hull
    spaces with holds, you will lose the benefit of the Sail for that hull space until the hold is
    emptied.\""""
    state, me, _ = two()
    place_island(state, "r1c1", "island-05")  # not controlled: no unloading-and-reloading there
    s = ship(state, me)
    s["at"], s["holds"] = "r1c1", [[1, 0], [0, 0]]
    state, events = act(state, "set_sails")
    assert ship(state, me)["sails"] == 1
    state2, me2, _ = two()
    place_island(state2, "r1c1", "island-05")
    s2 = ship(state2, me2)
    s2["at"], s2["holds"] = "r1c1", [[1, 0], [0, 1]]
    state2, _ = act(state2, "set_sails")
    assert ship(state2, me2)["sails"] == 0


def test_a_gain_on_the_ship_goes_aboard_and_a_gain_on_the_dock_stays_ashore():
    """ "If an anchor symbol is shown, the Cargo/Coin is gained in Harbor and is placed on your Dock tile
    (Coins go straight to your Treasure chest). If a Ship symbol is shown, the Cargo/Coin is gained directly
    on your Ship\""""
    state, me, _ = two()
    place_island(state, "r1c1", "island-05")
    ship(state, me)["at"] = "r1c1"  # far from the Harbor: an anchor gain still lands on the Dock
    dock = state.data["p"][me]["dock"]
    state = play(state, "crew-1", level=3)
    state, _ = act(state, "use_ability", ability="crew-1:L3:0")
    assert state.data["p"][me]["dock"] == dock + 3 and ship(state, me)["holds"] == [[0, 0], [0, 0]]
    state = play(state, "crew-2", level=4)  # "on your Dock tile and/or on your Ship board"
    state, _ = act(state, "use_ability", ability="crew-2:L4:0", args={"to_ship": 4})
    assert sum(h[0] for h in ship(state, me)["holds"]) == 4
