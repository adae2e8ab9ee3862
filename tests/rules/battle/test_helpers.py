"""Battle-only helper rules the engine calls: step-1 cube counts, sinking, Legendary, two battles in a row."""

from __future__ import annotations

import pytest

from rules.battle import (
    battle_cubes,
    building_cubes,
    counts_for_legendary,
    resolve_battle,
    sailor_battle_abilities,
    ship_damage_after,
    sinking_coin_loss,
    sinks,
    sunk_sides,
)
from rules.battle.board import DEFAULT_BOARD, board_from_json, board_from_layout
from rules.battle.errors import BattleRecordError
from tests.rules.battle.helpers import black, drop, player, record, setup, use


def test_cannons_give_cubes_and_bonuses_add_up() -> None:
    assert battle_cubes(1).cubes == 1  # the Cannon printed on the Ship board
    assert battle_cubes(2, island_buildings=2).cubes == 4  # +1 per Building at an island one controls
    assert battle_cubes(1, defender_in_harbor=True).cubes == 5  # attacked in Harbor: +4
    assert battle_cubes(3, after_final_turn=True).cubes == 5  # after one's final turn: +2
    assert battle_cubes(1, island_buildings=1, defender_in_harbor=True, after_final_turn=True).cubes == 8


def test_running_out_of_cubes_takes_fewer_or_island_cubes() -> None:
    short = battle_cubes(5, supply=3)
    assert (short.wanted, short.cubes, short.from_supply, short.from_islands) == (5, 3, 3, 0)
    topped = battle_cubes(5, supply=3, from_islands=4)  # only what is missing comes off islands
    assert (topped.cubes, topped.from_supply, topped.from_islands) == (5, 3, 2)
    with pytest.raises(ValueError):
        battle_cubes(-1)


def test_fort_five_garrison_two_both_seven() -> None:
    assert building_cubes(True, False) == 5
    assert building_cubes(False, True) == 2
    assert building_cubes(True, True) == 7


def test_fort_and_garrison_attacked_with_seven_black_cubes() -> None:
    s = setup("building", player("red", 4), black("building:r2c2", building_cubes(True, True)))
    rec = record(
        s,
        drop("initial", "red@s2 red@s2 red@s1 red@dmg " + "black@s1 " * 4 + "black@miss black@dmg black@dmg"),
    )
    o = resolve_battle(s, rec)
    assert o.winner == "attacker" and o.cubes_returned == {"black": 7, "red": 4}
    assert ship_damage_after(s, o, "attacker") == 2  # damage as normal, no loser damage: it won
    assert not counts_for_legendary(s, o)  # defeating a Building does not count


def test_defender_in_harbor_gets_four_more_cubes() -> None:
    s = setup(
        "ship",
        player("red", battle_cubes(2).cubes),
        player("blue", battle_cubes(1, defender_in_harbor=True).cubes),
    )
    rec = record(s, drop("initial", "red@s2 red@s2 " + "blue@s1 " * 4 + "blue@miss"))
    o = resolve_battle(s, rec)
    assert o.cubes_returned == {"blue": 5, "red": 2} and o.winner == "attacker" and o.tied


def test_battle_after_a_final_turn_has_two_more_cubes() -> None:
    s = setup(
        "ship",
        player("red", battle_cubes(1).cubes),
        player("blue", battle_cubes(1, after_final_turn=True).cubes),
    )
    with pytest.raises(BattleRecordError, match="1 blue"):
        resolve_battle(s, record(s, drop("initial", "red@s1 blue@s1")))
    o = resolve_battle(s, record(s, drop("initial", "red@s1 blue@s1 blue@s1 blue@miss")))
    assert o.winner == "defender"


def test_both_ships_can_sink_and_a_winner_can_sink() -> None:
    s = setup("ship", player("red", 2, damage=4), player("blue", 2, damage=3))
    o = resolve_battle(s, record(s, drop("initial", "red@s2 red@dmg blue@dmg blue@miss")))
    assert o.winner == "attacker"
    assert ship_damage_after(s, o, "attacker") == 5  # the winner sinks from the damage zone
    assert ship_damage_after(s, o, "defender") == 5  # 3 + 1 damage cube + 1 for losing
    assert sunk_sides(s, o) == ("attacker", "defender")
    assert sinks(5) and sinks(6) and not sinks(4)


def test_fifth_damage_from_an_ability_mid_battle_sinks_only_at_the_end() -> None:
    g4 = sailor_battle_abilities("red", "gun", "gunner", 4)
    s = setup("ship", player("red", 2, *g4), player("blue", 1, damage=4))
    o = resolve_battle(
        s, record(s, drop("initial", "red@s1 red@s2 blue@s2"), use("attacker", g4[1].id, cube=0))
    )
    assert o.winner == "attacker" and o.tied  # the battle finished after the 5th Damage
    assert sunk_sides(s, o) == ("defender",)


def test_sinking_with_four_coins_keeps_them_and_loses_five_from_the_chest() -> None:
    assert sinking_coin_loss(4, 12) == (0, 5)
    assert sinking_coin_loss(4, 3) == (0, 3)  # the chest holds fewer than 5
    assert sinking_coin_loss(5, 12) == (5, 0)
    assert sinking_coin_loss(9, 0) == (9, 0)


def test_non_player_battle_has_no_default_loser_damage_but_counts_for_legendary() -> None:
    s = setup("nonplayer", player("red", 1, damage=4), black("merchant:M1", 2))
    o = resolve_battle(s, record(s, drop("initial", "red@s1 black@s2 black@miss")))
    assert (
        o.winner == "defender" and ship_damage_after(s, o, "attacker") == 4
    )  # the card's Lose effect is data
    o = resolve_battle(s, record(s, drop("initial", "red@s2 black@s1 black@miss")))
    assert counts_for_legendary(s, o)


def test_two_pirate_ships_in_a_row_are_two_setups_sharing_the_turn() -> None:
    g3 = sailor_battle_abilities("red", "gun", "gunner", 3)
    first = setup(
        "ship",
        player("red", 1, *g3),
        player("blue", 1, pirate=True),
        battle_id="t4-b1",
        provoked_by_pirate=True,
    )
    rec1 = record(
        first,
        drop("initial", "red@s1 blue@dmg"),
        use("attacker", g3[0].id),
        drop("ability", "red@s1 blue@dmg red@s2 red@miss"),
    )
    o1 = resolve_battle(first, rec1)
    assert o1.winner == "attacker" and g3[0].id in o1.abilities_used and counts_for_legendary(first, o1)
    # The engine carries the damage and drops the spent ability for the second Pirate ship.
    dmg = ship_damage_after(first, o1, "attacker")
    second = setup(
        "ship",
        player("red", 1, damage=dmg),
        player("green", 2, pirate=True),
        battle_id="t4-b2",
        provoked_by_pirate=True,
    )
    with pytest.raises(BattleRecordError, match="no Battle ability"):
        resolve_battle(
            second, record(second, drop("initial", "red@s1 green@s1 green@miss"), use("attacker", g3[0].id))
        )
    o2 = resolve_battle(second, record(second, drop("initial", "red@s1 green@s2 green@miss")))
    assert o2.winner == "defender" and ship_damage_after(second, o2, "attacker") == 2


def test_sailor_abilities_by_level() -> None:
    assert sailor_battle_abilities("red", "c", "captain", 2) == ()
    (cap3,) = sailor_battle_abilities("red", "c", "captain", 3)
    (cap4,) = sailor_battle_abilities("red", "c", "captain", 4)
    assert cap3.effect == cap4.effect == "coins_per_wheel_on_win"
    assert cap3.params["base"] == 0 and cap4.params["base"] == 2
    assert [a.effect for a in sailor_battle_abilities("red", "g", "gunner", 3)] == ["drop_extra_cubes"]
    g4 = sailor_battle_abilities("red", "g", "gunner", 4)
    assert [a.params for a in g4] == [{"cubes": 2}, {"damage": 1, "coins": 2, "whose": "own"}]
    assert len({a.id for a in g4}) == 2


def test_board_model_validation_and_layout_conversion() -> None:
    bb = board_from_json(DEFAULT_BOARD)
    assert bb.is_adjacent("str-2", "explode") and bb.is_adjacent("explode", "str-2")
    assert board_from_json(bb.to_json()) == bb
    layout = {
        "schema": "smart-table/board-layout@1",
        "zones": [
            {"id": "x", "kind": "exploding", "polygon_mm": [[0, 0], [1, 0], [1, 1]]},
            {"id": "s", "kind": "strength", "strength": 2, "polygon_mm": []},
        ],
        "adjacent": [["x", "s"]],
    }
    assert board_from_layout(layout) == {
        "zones": {"x": {"kind": "exploding"}, "s": {"kind": "strength", "strength": 2}},
        "adjacent": [["x", "s"]],
    }
    for bad, words in (
        ({"zones": {"s": {"kind": "strength"}}}, "needs 'strength'"),
        ({"zones": {"p": {"kind": "plunder", "cargo": -1}}}, "'cargo'"),
        ({"zones": {"a": {"kind": "miss"}}, "adjacent": [["a", "b"]]}, "'b'"),
        ({"zones": {"a": {"kind": "miss"}}, "adjacent": [["a"]]}, "pairs"),
    ):
        with pytest.raises(BattleRecordError, match=words):
            board_from_json(bad)
    with pytest.raises(BattleRecordError, match="'zones'"):
        board_from_layout({"zones": "none"})
