"""Rulebook: Battles — the three kinds, Player vs. Non-Player, Player Ship vs. Player Ship, Battle Ship
Details, Player Ship vs. Building (lines 344-398), resolved through the engine from battle records."""

from __future__ import annotations

import pytest

from rules import api
from rules.battle import resolve_battle
from rules.battle.contract import BattleSetup
from rules.errors import Illegal, Invalid
from tests.rules.battle.helpers import BOARD, drop

from .support import act, controlled_island, place_island, play, resolve, ship, two


def _merchant_here(state, square="r1c1", card="r1-06"):
    if state.data["grid"][square]["island"] is None and state.data["grid"][square]["board"] is None:
        place_island(state, square, "island-05")
    state.data["grid"][square]["card"] = card
    box = state.data["decks"][card[1]]
    if card in box:
        box.remove(card)


def test_three_kinds_of_battle():
    """ "There are three types of battle: Player Ship vs. Non-Player Ship, Player Ship vs. Player Ship, and
    Player Ship vs. Building battles.\""""
    kinds = set()
    state, me, other = two()
    state = play(state, "captain", level=2)
    s, _ = act(state, "attack", target=other)
    kinds.add(s.data["battle"]["setup"]["kind"])
    controlled_island(state, other, [other, other, None])["buildings"]["fort"] = True
    ship(state, me)["at"] = "r1c1"
    _merchant_here(state)
    s, _ = act(state, "attack_building")
    kinds.add(s.data["battle"]["setup"]["kind"])
    s, _ = act(state, "attack_merchant")
    kinds.add(s.data["battle"]["setup"]["kind"])
    assert kinds == {"ship", "nonplayer", "building"}


def test_cannons_are_shared_between_the_turns_battles():
    """ "It is possible to get into multiple battles on your turn but each Cannon and Battle ability may only
    be used once per turn. If you plan on fighting multiple battles, you will need to decide how many
    Cannons and Battle abilities to use in your first battle and how many to save for further battles.\""""
    state, me, other = two()
    state = play(state, "gunner-1", level=2)  # 1 Cannon, with the Ship's: 2
    state = play(state, "captain", level=2)
    state, _ = act(state, "attack", target=other, cannons=1)
    assert state.data["battle"]["setup"]["attacker"]["cubes"] == 1
    state, _ = resolve(state, f"{me}@s2 " + f"{other}@miss " * 5)
    _merchant_here(state)
    state, _ = act(state, "set_sails")
    state, _ = act(state, "move", path=["r1c1"])
    state, _ = act(state, "attack_merchant")
    assert state.data["battle"]["setup"]["attacker"]["cubes"] == 1  # the Cannon saved for it


def test_never_the_same_ship_or_building_twice_a_turn():
    """ "You may never battle the same Ship, Building, or Non-player more than once in a turn.\""""
    state, me, other = two()
    isl = controlled_island(state, other, [other, other, None])
    isl["buildings"]["fort"] = True
    isl["buildings"]["garrison"] = True
    ship(state, me)["at"] = "r1c1"
    ship(state, other)["at"] = "r1c1"
    state = play(state, "captain", level=2)
    state = play(state, "gunner-1", level=2)
    state.data["p"][me]["cards"]["gunner-1"] = {
        **state.data["p"][me]["cards"]["gunner-1"],
        "slots": {"top": None, "middle": "r1-07", "bottom": None},  # Boarding Party: a second Attack Flag
    }
    state, _ = act(state, "attack", target=other)
    # 2 Cannons against 1 Cannon + 2 Buildings on the island the defender controls
    state, _ = resolve(state, f"{me}@s2 {me}@miss " + f"{other}@miss " * 3)
    with pytest.raises(Illegal) as err:
        act(state, "attack", target=other)
    assert "more than once" in err.value.message
    state, _ = act(state, "attack_building")
    state, _ = resolve(state, "black@s2 " * 7)
    with pytest.raises(Illegal) as err:
        act(state, "attack_building")
    assert "more than once" in err.value.message


def test_non_player_battle_black_cubes_from_the_back_and_plunder_for_the_player_only():
    """ "This type of battle happens when you attack an Encounter (e.g. a Merchant ship)." and step 1: "You
    have 1 Cannon printed on your Ship board ... The back of the Encounter card will tell you how many
    Battle cubes it gets. Take that many black cubes." and step 3 of the Battle ship: "If you are battling
    a non-player, you still gain plunder, but the non-player does not.\""""
    state, me, _ = two()
    _merchant_here(state, card="r2-06")  # Spice Merchant: 3 black cubes
    ship(state, me)["at"] = "r1c1"
    black = state.data["supply"]["black"]
    state, _ = act(state, "attack_merchant")
    setup = state.data["battle"]["setup"]
    assert setup["attacker"]["cubes"] == 1 and setup["defender"]["cubes"] == 3
    assert setup["defender"]["cube_color"] == "black"
    state, _ = resolve(state, f"{me}@p-c2 black@p-k1 black@s2 black@miss")
    assert state.data["p"][me]["plunder"]["cargo"] == 2  # my plunder, waiting for me to place it
    state, _ = act(
        state,
        "choose",
        player=me,
        choice="plunder",
        option={"what": "cargo", "to": "hold", "hold": 0, "count": 2},
    )
    assert ship(state, me)["holds"][0][0] == 2  # the Merchant's plunder goes nowhere
    assert state.data["supply"]["black"] == black  # the black cubes went back


def test_non_player_battle_abilities_in_any_order_then_the_back_decides():
    """ "3. Resolve Battle abilities: You may use any Battle abilities that you have available in any order.
    Using Battle abilities is optional." and "5. Determine the outcome: Apply the effect on the back of the
    Encounter depending on whether you won or lost. A Ship that has 5 or more Damage on it now sinks.\""""
    state, me, _ = two()
    _merchant_here(state, card="r1-06")  # Coastal Trader: 2 black cubes; Win: 2 Coins on the Ship
    ship(state, me).update({"at": "r1c1", "damage": 4})
    state = play(state, "gunner-1", level=3)  # a Cannon and "drop 2 cubes"
    state, _ = act(state, "attack_merchant")
    ab = f"{me}:gunner-1:L3:1"
    board = f"{me}@miss {me}@miss black@dmg black@s1"
    state, events = resolve(
        state,
        board,
        {"step": "ability", "side": "attacker", "ability": ab},
        drop("ability", board + f" {me}@s2 {me}@miss", ability=ab),
        {"step": "pass", "side": "attacker"},
    )
    # won on strength 2 v 1, and the 5th Damage from the Merchant's cube sinks the Ship afterwards
    assert ship(state, me)["at"] == "harbor" and ship(state, me)["damage"] == 0
    assert "r1-06" in state.data["buried"]["1"]
    assert any(e["type"] == "ship_sunk" for e in events)


def test_ship_battle_step_one_active_first_then_the_inactive_plays_cards():
    """ "1. Take Battle cubes: First the active player (the player whose turn it is) determines how many
    Battle cubes they take as per the Player vs. Non-Player rules. Then, the inactive player may play any
    cards from their hand that have Cannons or Battle abilities, before determining their total Battle
    cubes.\""""
    state, me, other = two()
    state = play(state, "captain", level=2)
    state.data["p"][other]["hand"] = ["gunner-1", "crew-1"]
    for c in ("gunner-1", "crew-1"):
        state.data["p"][other]["deck"] = [x for x in state.data["p"][other]["deck"] if x != c]
    state.data["p"][other]["cards"]["gunner-1"] = {**state.data["p"][other]["cards"]["gunner-1"], "level": 2}
    with pytest.raises(Illegal):  # not before the attack
        act(state, "play_card", player=other, card="gunner-1")
    state, _ = act(state, "attack", target=other)
    with pytest.raises(Illegal):  # no Cannon, no Battle ability
        act(state, "play_card", player=other, card="crew-1")
    state, events = act(state, "play_card", player=other, card="gunner-1")
    assert state.data["battle"]["setup"]["defender"]["cubes"] == 1 + 1 + 4


def test_buildings_on_your_controlled_island_add_cubes_and_harbor_adds_four():
    """ "If either player is at an island they control, they add 1 additional Battle cube for each Building on
    that island. If the player that was attacked is in Harbor, they get 4 additional Battle cubes.\""""
    state, me, other = two()
    isl = controlled_island(state, me, [me, me, None])
    isl["buildings"].update({"fort": True, "outpost": True})
    ship(state, me)["at"] = "r1c1"
    ship(state, other)["at"] = "r1c1"
    state = play(state, "captain", level=2)
    s, _ = act(state, "attack", target=other)
    assert (
        s.data["battle"]["setup"]["attacker"]["cubes"],
        s.data["battle"]["setup"]["defender"]["cubes"],
    ) == (
        1 + 2,
        1,
    )
    ship(state, me)["at"] = ship(state, other)["at"] = "harbor"
    s, _ = act(state, "attack", target=other)
    assert (
        s.data["battle"]["setup"]["attacker"]["cubes"],
        s.data["battle"]["setup"]["defender"]["cubes"],
    ) == (
        1,
        1 + 4,
    )


def test_the_inactive_players_cards_stay_in_play_until_their_next_cleanup():
    """ "Cards played by the inactive player stay in play until that player's next Cleanup phase; any
    abilities on them can therefore be used on that player's next turn just like if they had been played
    that turn.\""""
    state, me, other = two()
    state = play(state, "captain", level=2)
    state.data["p"][other]["cards"]["gunner-1"] = {**state.data["p"][other]["cards"]["gunner-1"], "level": 2}
    state.data["p"][other]["deck"] = [c for c in state.data["p"][other]["deck"] if c != "gunner-1"]
    state.data["p"][other]["hand"] = [c for c in state.data["p"][other]["hand"] if c != "gunner-1"] + [
        "gunner-1"
    ]
    state, _ = act(state, "attack", target=other)
    state, _ = act(state, "play_card", player=other, card="gunner-1")
    state, _ = resolve(state, f"{me}@miss {other}@s2 " + f"{other}@miss " * 5)
    state, _ = act(state, "end_turn")
    assert state.active == other and "gunner-1" in state.data["p"][other]["played"]
    dock = state.data["p"][other]["dock"]
    state, _ = act(state, "use_ability", ability="gunner-1:L2:0")
    assert state.data["p"][other]["dock"] == dock + 1
    state, _ = act(state, "end_turn")
    assert "gunner-1" in state.data["p"][other]["discard"]


def test_ship_battle_outcome_damage_legendary_and_the_pirate_flag():
    """ "5. Determine the outcome: The losing player places 1 Damage onto their Ship board. This is the only
    default consequence for losing. If the winning player does not have the Legendary achievement, they
    place one cube on that Achievement. This is the only default consequence of winning. If the losing Ship
    was in Pirate mode, it is changed to Mercantile mode.\""""
    state, me, other = two()
    ship(state, other).update({"at": "r1c1", "pirate": True})
    state, _ = act(state, "set_sails")
    state, _ = act(state, "move", path=["r1c1"])
    cubes = state.data["p"][other]["cubes"]
    state, _ = resolve(state, f"{me}@miss {other}@s1")
    assert ship(state, me)["damage"] == 1 and ship(state, other)["damage"] == 0
    assert state.data["achievement_cubes"]["legendary"] == {other: 1}
    assert state.data["p"][other]["cubes"] == cubes - 1
    assert ship(state, other)["pirate"]  # the winner keeps the flag


def test_a_tie_goes_to_the_active_player():
    """ "The side with the highest total Battle strength wins the battle. In the case of a tie, the active
    player (the player whose turn it is) wins.\""""
    state, me, other = two()
    ship(state, other).update({"at": "r1c1", "pirate": True})
    state, _ = act(state, "set_sails")
    state, _ = act(state, "move", path=["r1c1"])
    state, _ = resolve(state, f"{me}@s2 {other}@s2")
    assert ship(state, other)["damage"] == 1 and not ship(state, other)["pirate"]


def test_plunder_and_damage_go_to_the_cubes_owner():
    """ "3. Plunder ... Each cube that is in one of these zones is removed and the owning player gains the
    indicated Cargo/Coin from the supply. These must either be placed into a hold with available capacity on
    their Ship, on the island where the battle is taking place, or discarded back to the supply." and
    "4. Damage: Each cube that is in one of these zones is removed and the owning player causes 1 Damage to
    the opponent's Ship, placing a Damage marker on the opponent's Ship board. Dealing damage does not help
    you win the battle.\""""
    state, me, other = two()
    place_island(state, "r1c1", "island-05")
    ship(state, me)["holds"] = [[4, 0], [2, 0]]  # room for 1
    ship(state, other).update({"at": "r1c1", "pirate": True})
    state, _ = act(state, "set_sails")
    state, _ = act(state, "move", path=["r1c1"])
    state, _ = resolve(state, f"{me}@p-c2 {other}@dmg")
    # the plunder waits for its owner: a hold with room, the island of the battle, or the supply
    assert state.data["p"][me]["plunder"]["cargo"] == 2
    offered = [a["option"] for a in api.legal_actions(state, me) if a["type"] == "choose"]
    assert {"what": "cargo", "to": "hold", "hold": 1, "count": 1} in offered
    assert not any(o.get("to") == "hold" and o["count"] > 1 for o in offered)  # "with available capacity"
    onto_island = [o for o in offered if o.get("to") == "island" and o["count"] == 1]
    assert onto_island, offered
    state, _ = act(
        state, "choose", player=me, choice="plunder", option={"what": "cargo", "to": "hold", "hold": 1}
    )
    state, _ = act(state, "choose", player=me, choice="plunder", option=onto_island[0])
    assert ship(state, me)["holds"] == [[4, 0], [3, 0]]
    assert state.data["grid"]["r1c1"]["island"]["cargo"] == 1
    # damage: 1 from the cube, +1 for losing (0 v 0 strength: the tie went to the active player)
    assert ship(state, me)["damage"] == 1 and ship(state, other)["damage"] == 1


def test_the_player_says_where_plunder_goes():
    """ "These must either be placed into a hold with available capacity on their Ship, on the island where
    the battle is taking place, or discarded back to the supply." (the owning player's choice)"""
    state, me, other = two()
    place_island(state, "r1c1", "island-05")
    ship(state, other).update({"at": "r1c1", "pirate": True})
    state, _ = act(state, "set_sails")
    state, _ = act(state, "move", path=["r1c1"])
    state, _ = resolve(state, f"{me}@p-c2 {other}@miss")
    # with room in the holds and an island here, the engine must not have chosen for the player
    assert ship(state, me)["holds"] == [[0, 0], [0, 0]] and state.data["grid"]["r1c1"]["island"]["cargo"] == 0


def test_losing_a_provoked_battle_blockades_the_mover():
    """ "If the battle was caused by you moving onto a space with another player in Pirate mode and you lost,
    you are blockaded and cannot interact with the island where the battle took place.\""""
    state, me, other = two()
    isl = controlled_island(state, me, [me, me, None])
    isl["cargo"] = 1
    ship(state, other).update({"at": "r1c1", "pirate": True})
    state, _ = act(state, "set_sails")
    state, _ = act(state, "move", path=["r1c1"])
    assert state.data["battle"]["setup"]["provoked_by_pirate"]
    state, _ = resolve(state, f"{me}@miss {other}@s1")
    with pytest.raises(Illegal) as err:
        act(state, "load", hold=0, cargo=1, coins=0)
    assert "blockade" in err.value.message


def test_both_ships_can_sink_and_a_winner_can_sink():
    """ "A Ship that has 5 or more Damage now sinks. It is possible for both ships to sink during the same
    battle. It is also possible for a player to both "win the battle" and have their Ship sink.\""""
    state, me, other = two()
    ship(state, me)["damage"] = 4
    ship(state, other).update({"at": "r1c1", "pirate": True, "damage": 4})
    state, _ = act(state, "set_sails")
    state, _ = act(state, "move", path=["r1c1"])
    state, events = resolve(state, f"{me}@s2 {other}@dmg")  # I win on strength and take the 5th Damage
    sunk = sorted(e["player"] for e in events if e["type"] == "ship_sunk")
    assert sunk == sorted([me, other])
    assert state.data["achievement_cubes"]["legendary"] == {me: 1}


def test_a_cube_on_a_zone_counts_there_and_a_rail_cube_is_dropped_again():
    """ "If any part of a cube is touching a zone, that cube is considered to be in that zone." and "If a cube
    is at an angle on both the zone and raised border, it is considered in that zone." and "Any time a cube
    is dropped and ends up fully balanced on a raised border, it is immediately re-dropped. Continue
    re-dropping as necessary until all cubes are in a zone.\""""
    state, me, other = two()
    ship(state, other).update({"at": "r1c1", "pirate": True})
    state, _ = act(state, "set_sails")
    state, _ = act(state, "move", path=["r1c1"])
    setup = state.data["battle"]["setup"]
    rec = {
        "schema": "smart-table/battle-record@1",
        "battle_id": setup["battle_id"],
        "board": BOARD,
        "steps": [drop("initial", f"{me}@- {other}@s1")],
        "corrections": [],
    }
    with pytest.raises(Invalid):  # a rail cube must be re-dropped first
        act(state, "resolve_battle", player="table", record=rec)
    rec["steps"].append(drop("rail", f"{me}@s2 {other}@s1"))
    state, _ = act(state, "resolve_battle", player="table", record=rec)
    assert ship(state, other)["damage"] == 1


def test_a_cube_touching_two_zones_is_in_both():
    """ "If any part of a cube is touching a zone, that cube is considered to be in that zone." (a cube
    touching a damage zone and a strength zone deals its Damage and is removed before strength counts)"""
    setup = BattleSetup.from_json(
        {
            "battle_id": "t1-b1",
            "kind": "ship",
            "attacker": {"name": "red", "is_player": True, "cube_color": "red", "cubes": 1},
            "defender": {"name": "blue", "is_player": True, "cube_color": "blue", "cubes": 1},
            "location": "r1c1",
        }
    )
    rec = {
        "schema": "smart-table/battle-record@1",
        "battle_id": "t1-b1",
        "board": BOARD,
        "steps": [
            {
                "step": "drop",
                "reason": "initial",
                "board": [
                    {"color": "red", "zone": "s2", "zones": ["s2", "dmg"]},
                    {"color": "blue", "zone": "s1"},
                ],
            }
        ],
        "corrections": [],
    }
    out = resolve_battle(setup, rec)
    assert out.attacker.damage_dealt == 1 and out.winner == "defender"


def test_exploding_shots_are_dropped_again_with_an_extra_cube():
    """ "1. Exploding shots: Each cube in this zone is removed and dropped again into the Battle ship along
    with 1 extra cube of the same color. If there are multiple cubes in this zone, drop all of them and the
    extra cubes at the same time. Repeat this process until there are no cubes in the Exploding Shot
    zone.\""""
    state, me, other = two()
    ship(state, other).update({"at": "r1c1", "pirate": True})
    state, _ = act(state, "set_sails")
    state, _ = act(state, "move", path=["r1c1"])
    cubes = state.data["p"][me]["cubes"]
    state, _ = resolve(
        state,
        f"{me}@explode {other}@s2",
        drop("exploding", f"{me}@explode {me}@s1 {other}@s2"),
        drop("exploding", f"{me}@s2 {me}@s1 {me}@miss {other}@s2"),
    )
    assert ship(state, other)["damage"] == 1  # 3 strength against 2
    assert state.data["p"][me]["cubes"] == cubes - 1  # the extra cubes came back; 1 is on Legendary


def test_building_battle_cubes_and_who_may_defend():
    """ "Ships and Sailor cards cannot be used in the defense of buildings during battles. If an opponent's
    Ship is in the space and in Mercantile mode, it does not contribute to the battle." and "1. Take Battle
    cubes: The defender gets 5 Battle cubes if they have a Fort, 2 if they have a Garrison, and 7 if they have
    both. They may not use Cannons on cards or their Ship.\""""
    for fort, garrison, black in ((True, False, 5), (False, True, 2), (True, True, 7)):
        state, me, other = two()
        isl = controlled_island(state, other, [other, other, None])
        isl["buildings"].update({"fort": fort, "garrison": garrison})
        ship(state, me)["at"] = "r1c1"
        ship(state, other)["at"] = "r1c1"  # Mercantile, beside its island
        state.data["p"][other]["cards"]["gunner-1"] = {
            **state.data["p"][other]["cards"]["gunner-1"],
            "level": 2,
        }
        state.data["p"][other]["hand"].append("gunner-1")
        state.data["p"][other]["deck"] = [c for c in state.data["p"][other]["deck"] if c != "gunner-1"]
        state, _ = act(state, "attack_building")
        setup = state.data["battle"]["setup"]
        assert setup["defender"]["cubes"] == black and setup["defender"]["cube_color"] == "black"
        assert not setup["defender"]["is_player"]
        with pytest.raises(Illegal):
            act(state, "play_card", player=other, card="gunner-1")


def test_a_pirate_ship_on_the_island_is_fought_before_its_buildings():
    """ "You cannot attack a Building if there is an opponent's Ship in Pirate mode on the island; you must
    win the automatic battle against the opposing Ship, forcing them into Mercantile mode, before you can
    choose to attack the Fort and/or Garrison.\""""
    state, me, other = two()
    controlled_island(state, other, [other, other, None])["buildings"]["fort"] = True
    ship(state, other).update({"at": "r1c1", "pirate": True})
    ship(state, me)["at"] = "r1c1"
    with pytest.raises(Illegal) as err:
        act(state, "attack_building")
    assert "Pirate-mode" in err.value.message
    state, _ = act(state, "attack", target=other)  # sharing the board with a Pirate: no flag needed
    state, _ = resolve(state, f"{me}@s2 {other}@miss {other}@miss")  # +1 for the Fort of its island
    assert not ship(state, other)["pirate"]
    state, _ = act(state, "attack_building")
    assert state.data["battle"]["setup"]["kind"] == "building"


def test_building_battle_no_plunder_ship_damaged_and_buildings_removed_on_a_win():
    """ "4. Resolve the Battle ship: Neither player gets any plunder. The attacking Ship takes Damage as
    normal." and "5. Determine the outcome: Same as a Player Ship vs. Player Ship battle; if the ship loses,
    it takes 1 Damage. If the Ship wins, the Fort and/or Garrison are removed.\""""
    state, me, other = two()
    isl = controlled_island(state, other, [other, other, None])
    isl["buildings"].update({"fort": True, "garrison": True, "outpost": True})
    ship(state, me)["at"] = "r1c1"
    lost_state, _ = act(state, "attack_building")
    lost, _ = resolve(lost_state, f"{me}@p-c2 " + "black@dmg " * 2 + "black@s1 " * 5)
    assert ship(lost, me)["damage"] == 2 + 1 and ship(lost, me)["holds"] == [[0, 0], [0, 0]]
    assert lost.data["grid"]["r1c1"]["island"]["buildings"]["fort"]
    won_state, _ = act(state, "attack_building")
    won, _ = resolve(won_state, f"{me}@s2 " + "black@s1 " + "black@miss " * 6)
    b = won.data["grid"]["r1c1"]["island"]["buildings"]
    assert b == {"fort": False, "garrison": False, "outpost": True}
    assert won.data["achievement_cubes"]["legendary"] == {}  # "defeating a Building does not count"
