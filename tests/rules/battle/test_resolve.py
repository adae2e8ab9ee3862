"""The five steps of a battle, rule by rule, through resolve_battle(setup, record)."""

from __future__ import annotations

import pytest

from rules.battle import BattleOutcome, BattleRecordError, BattleSetup, resolve_battle
from rules.battle.helpers import sailor_battle_abilities
from tests.rules.battle.helpers import ab, black, drop, pass_, player, record, setup, use

SHIP = setup("ship", player("red", 3), player("blue", 2))


def test_higher_strength_wins_and_strength_zones_count_their_value() -> None:
    o = resolve_battle(SHIP, record(SHIP, drop("initial", "red@s1 red@s1 red@miss blue@s2 blue@miss")))
    assert (o.attacker.strength, o.defender.strength) == (2, 2)
    assert o.winner == "attacker" and o.tied  # a tie goes to the active player
    o = resolve_battle(SHIP, record(SHIP, drop("initial", "red@s1 red@miss red@miss blue@s2 blue@miss")))
    assert o.winner == "defender" and not o.tied


def test_plunder_and_damage_go_to_the_owner_of_the_cube() -> None:
    o = resolve_battle(SHIP, record(SHIP, drop("initial", "red@p-c2 red@p-k1 red@dmg blue@dmg blue@dmg")))
    assert (o.attacker.plunder_cargo, o.attacker.plunder_coins, o.attacker.damage_dealt) == (2, 1, 1)
    assert (o.defender.plunder_cargo, o.defender.damage_dealt) == (0, 2)
    # Dealing damage does not help win: no strength at all, the attacker wins the tie.
    assert o.winner == "attacker" and o.attacker.strength == o.defender.strength == 0


def test_non_player_gains_no_plunder_and_takes_no_damage_but_deals_it() -> None:
    s = setup("nonplayer", player("red", 2), black("merchant:M7", 3))
    o = resolve_battle(s, record(s, drop("initial", "red@p-c2 red@dmg black@p-c2 black@dmg black@s1")))
    assert o.attacker.plunder_cargo == 2 and o.defender.plunder_cargo == 0
    assert o.attacker.damage_dealt == 0  # a Merchant ship carries no Damage
    assert o.defender.damage_dealt == 1
    assert o.winner == "defender"
    assert o.cubes_returned == {"black": 3, "red": 2}


def test_building_battle_has_no_plunder_and_the_ship_takes_damage() -> None:
    s = setup("building", player("red", 3), black("building:r2c3", 7))
    o = resolve_battle(
        s, record(s, drop("initial", "red@p-c2 red@s2 red@dmg " + "black@dmg " * 2 + "black@s1 " * 5))
    )
    assert o.attacker.plunder_cargo == 0 and o.defender.plunder_cargo == 0
    assert o.attacker.damage_dealt == 0 and o.defender.damage_dealt == 2
    assert o.winner == "defender" and o.defender.strength == 5


def test_exploding_shots_are_redropped_with_one_extra_each_until_none() -> None:
    s = setup("ship", player("red", 2), player("blue", 1))
    rec = record(
        s,
        drop("initial", "red@explode red@s1 blue@explode"),
        # 1 red + 1 extra, 1 blue + 1 extra, all at once; one red explodes again
        drop("exploding", "red@s1 red@explode red@s2 blue@s2 blue@dmg", dropped={"red": 2, "blue": 2}),
        drop("exploding", "red@s1 red@s2 blue@s2 blue@dmg red@miss red@dmg"),
    )
    o = resolve_battle(s, rec)
    assert o.cubes_returned == {"blue": 2, "red": 4}
    assert (o.attacker.strength, o.defender.strength) == (3, 2)
    assert o.attacker.damage_dealt == 1 and o.defender.damage_dealt == 1


def test_an_exploding_redrop_with_the_wrong_number_of_cubes_is_refused() -> None:
    s = setup("ship", player("red", 2), player("blue", 1))
    rec = record(s, drop("initial", "red@explode red@s1 blue@s1"), drop("exploding", "red@s1 red@s2 blue@s1"))
    with pytest.raises(BattleRecordError, match="shows 2 red cubes; 3 should be there"):
        resolve_battle(s, rec)


def test_a_cube_on_a_rail_must_be_redropped_first() -> None:
    s = setup("ship", player("red", 2, ab("red:g", "drop_extra_cubes", cubes=1)), player("blue", 1))
    early = record(s, drop("initial", "red@- red@s1 blue@s1"), use("attacker", "red:g"))
    with pytest.raises(BattleRecordError, match="rail drop"):
        resolve_battle(s, early)
    unfinished = record(s, drop("initial", "red@- red@s1 blue@s1"))
    with pytest.raises(BattleRecordError, match="not finished"):
        resolve_battle(s, unfinished)
    ok = record(s, drop("initial", "red@- red@s1 blue@s1"), drop("rail", "red@s2 red@s1 blue@s1"))
    assert resolve_battle(s, ok).attacker.strength == 3


def test_an_extra_drop_ability_landing_in_the_exploding_zone_goes_back_to_step_one() -> None:
    gunner = sailor_battle_abilities("red", "gunner", "gunner", 3)
    s = setup("ship", player("red", 1, *gunner), player("blue", 1, ab("blue:m", "move_cube_adjacent")))
    steps = [
        drop("initial", "red@s1 blue@s1"),
        use("attacker", gunner[0].id),
        drop("ability", "red@s1 blue@s1 red@explode red@miss", ability=gunner[0].id),
    ]
    with pytest.raises(BattleRecordError, match="exploding drop"):
        resolve_battle(s, record(s, *steps, use("defender", "blue:m", cube=0, to="s2")))
    steps.append(drop("exploding", "red@s1 blue@s1 red@miss red@s2 red@s2"))
    o = resolve_battle(s, record(s, *steps, pass_("defender"), pass_("attacker")))
    assert o.cubes_returned == {"blue": 1, "red": 4}
    assert o.attacker.strength == 5 and o.abilities_used == (gunner[0].id,)


def test_moving_a_cube_into_the_exploding_zone_sends_it_back_to_step_one() -> None:
    s = setup("ship", player("red", 1, ab("red:m", "move_cube_adjacent")), player("blue", 1))
    base = [drop("initial", "red@s2 blue@s1"), use("attacker", "red:m", cube=0, to="explode")]
    with pytest.raises(BattleRecordError, match="not finished"):
        resolve_battle(s, record(s, *base))
    o = resolve_battle(s, record(s, *base, drop("exploding", "blue@s1 red@s1 red@s1")))
    assert o.attacker.strength == 2 and o.cubes_returned["red"] == 2


def test_move_only_to_an_adjacent_zone() -> None:
    s = setup("ship", player("red", 1, ab("red:m", "move_cube_adjacent")), player("blue", 1))
    bad = record(s, drop("initial", "red@s1 blue@p-c2"), use("attacker", "red:m", cube=1, to="s1"))
    with pytest.raises(BattleRecordError, match="not adjacent"):
        resolve_battle(s, bad)
    good = record(s, drop("initial", "red@s1 blue@s2"), use("attacker", "red:m", cube=1, to="dmg"))
    o = resolve_battle(s, good)
    assert o.defender.strength == 0 and o.defender.damage_dealt == 1


def test_ship_battle_abilities_alternate_from_the_active_player_until_both_pass() -> None:
    s = setup(
        "ship",
        player(
            "red", 1, ab("red:a", "coins_per_wheel", per_wheel=1, wheels=1), ab("red:b", "coins_per_wheel")
        ),
        player("blue", 1, ab("blue:a", "coins_per_wheel", wheels=3)),
    )
    first = drop("initial", "red@s1 blue@s1")
    with pytest.raises(BattleRecordError, match="attacker's turn"):
        resolve_battle(s, record(s, first, use("defender", "blue:a")))
    # attacker passes, defender uses, attacker may still use: one pass does not end the step
    o = resolve_battle(
        s, record(s, first, pass_("attacker"), use("defender", "blue:a"), use("attacker", "red:a"))
    )
    assert o.abilities_used == ("blue:a", "red:a")
    assert o.defender.coins_from_abilities == 3 and o.attacker.coins_from_abilities == 1
    with pytest.raises(BattleRecordError, match="over"):
        resolve_battle(s, record(s, first, pass_("attacker"), pass_("defender"), use("attacker", "red:a")))
    with pytest.raises(BattleRecordError, match="already used"):
        resolve_battle(
            s, record(s, first, use("attacker", "red:a"), pass_("defender"), use("attacker", "red:a"))
        )


def test_a_side_with_nothing_left_passes_implicitly() -> None:
    s = setup(
        "ship",
        player("red", 1, ab("red:a", "coins_per_wheel"), ab("red:b", "coins_per_wheel")),
        player("blue", 1),
    )
    o = resolve_battle(
        s, record(s, drop("initial", "red@s1 blue@s1"), use("attacker", "red:a"), use("attacker", "red:b"))
    )
    assert o.abilities_used == ("red:a", "red:b")


def test_non_player_battle_attacker_uses_abilities_in_any_order_defender_none() -> None:
    s = setup(
        "nonplayer",
        player("red", 1, ab("red:a", "coins_per_wheel"), ab("red:b", "coins_per_wheel")),
        black("merchant:M1", 1),
    )
    o = resolve_battle(
        s, record(s, drop("initial", "red@s1 black@s1"), use("attacker", "red:b"), use("attacker", "red:a"))
    )
    assert o.abilities_used == ("red:b", "red:a")
    with pytest.raises(BattleRecordError, match="Only the attacker"):
        resolve_battle(s, record(s, drop("initial", "red@s1 black@s1"), pass_("defender")))
    with pytest.raises(BattleRecordError, match="over"):
        resolve_battle(
            s, record(s, drop("initial", "red@s1 black@s1"), pass_("attacker"), use("attacker", "red:a"))
        )


def test_building_battle_only_attacker_and_no_captain_ability() -> None:
    captain = sailor_battle_abilities("red", "cap", "captain", 4)
    s = setup("building", player("red", 1, *captain, wheels=1), black("building:r1c1", 2))
    with pytest.raises(BattleRecordError, match="cannot be used"):
        resolve_battle(
            s, record(s, drop("initial", "red@s2 black@s1 black@miss"), use("attacker", captain[0].id))
        )


def test_captain_coins_only_on_a_win_per_wheel_on_the_card() -> None:
    cap3 = sailor_battle_abilities("red", "cap", "captain", 3, wheels_on_card=2)
    cap4 = sailor_battle_abilities("blue", "cap", "captain", 4, wheels_on_card=1)
    s = setup("ship", player("red", 1, *cap3), player("blue", 1, *cap4))
    win_red = record(
        s, drop("initial", "red@s2 blue@s1"), use("attacker", cap3[0].id), use("defender", cap4[0].id)
    )
    o = resolve_battle(s, win_red)
    assert (
        o.winner == "attacker"
        and o.attacker.coins_from_abilities == 2
        and o.defender.coins_from_abilities == 0
    )
    win_blue = record(
        s, drop("initial", "red@s1 blue@s2"), use("attacker", cap3[0].id), use("defender", cap4[0].id)
    )
    o = resolve_battle(s, win_blue)
    assert o.defender.coins_from_abilities == 3 and o.attacker.coins_from_abilities == 0
    assert set(o.abilities_used) == {cap3[0].id, cap4[0].id}  # spent even when the battle is lost


def test_gunner_four_removes_own_cube_to_deal_damage_and_gain_coins() -> None:
    g4 = sailor_battle_abilities("red", "gun", "gunner", 4)
    s = setup("ship", player("red", 2, *g4), player("blue", 1))
    with pytest.raises(BattleRecordError, match="own"):
        resolve_battle(
            s, record(s, drop("initial", "red@s1 red@miss blue@s1"), use("attacker", g4[1].id, cube=2))
        )
    o = resolve_battle(
        s, record(s, drop("initial", "red@s1 red@s1 blue@s2"), use("attacker", g4[1].id, cube=0))
    )
    assert o.attacker.damage_dealt == 1 and o.attacker.coins_from_abilities == 2
    assert o.attacker.strength == 1 and o.winner == "defender"
    assert o.cubes_returned == {"blue": 1, "red": 2}  # the removed cube goes home too


def test_tiebreak_resolves_exploding_shots_but_no_abilities() -> None:
    s = setup("tiebreak", player("red", 2, ab("red:a", "coins_per_wheel")), player("blue", 2))
    rec = record(
        s,
        drop("initial", "red@explode red@s1 blue@s2 blue@dmg"),
        drop("exploding", "red@s1 blue@s2 blue@dmg red@s1 red@p-c2"),
    )
    o = resolve_battle(s, rec)
    assert o.tied and o.attacker.strength == o.defender.strength == 2
    assert o.attacker.plunder_cargo == 0 and o.defender.damage_dealt == 0
    with pytest.raises(BattleRecordError, match="tie-break"):
        resolve_battle(s, record(s, *rec["steps"], use("attacker", "red:a")))


def test_corrections_change_the_reading_and_the_outcome() -> None:
    rec = record(SHIP, drop("initial", "red@s1 red@miss red@miss blue@s2 blue@miss"))
    assert resolve_battle(SHIP, rec).winner == "defender"
    rec["corrections"].append({"step": 0, "cube": 1, "zone": "s1", "by": "red"})
    assert resolve_battle(SHIP, rec).winner == "attacker"
    rec["corrections"].append({"step": 0, "cube": 1, "zone": "miss", "by": "blue"})  # the last one wins
    assert resolve_battle(SHIP, rec).winner == "defender"


def test_a_correction_that_breaks_the_record_is_refused() -> None:
    s = setup("ship", player("red", 1), player("blue", 1))
    rec = record(
        s,
        drop("initial", "red@explode blue@s1"),
        drop("exploding", "blue@s1 red@s1 red@s1"),
        corrections=[{"step": 0, "cube": 0, "zone": "s1"}],
    )
    with pytest.raises(BattleRecordError, match="No drop was owed"):
        resolve_battle(s, rec)
    for bad, words in (
        ({"step": 5, "cube": 0, "zone": "s1"}, "not a drop"),
        ({"step": 0, "cube": 9, "zone": "s1"}, "cubes 0 to 1"),
        ({"step": 0, "cube": 0, "zone": "deck"}, "lacks"),
    ):
        with pytest.raises(BattleRecordError, match=words):
            resolve_battle(s, record(s, drop("initial", "red@s1 blue@s1"), corrections=[bad]))


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        ("red@s1 red@s1 blue@s1", "2 red cubes"),  # a cube missing from the reading
        ("red@s1 red@s1 red@s1 red@s1 blue@s1 blue@s1", "4 red cubes"),
        ("red@s1 red@s1 red@s1 green@s1 blue@s1", "only has red and blue"),
        ("red@s1 red@s1 red@deck blue@s1 blue@s1", "does not have"),
    ],
)
def test_readings_that_do_not_add_up_are_refused(spec: str, words: str) -> None:
    with pytest.raises(BattleRecordError, match=words):
        resolve_battle(SHIP, record(SHIP, drop("initial", spec)))


def test_malformed_records_get_one_clear_sentence() -> None:
    for rec, words in (
        ("nope", "JSON object"),
        ({"board": {"zones": {}}, "steps": []}, "zones"),
        ({"board": {"zones": {"a": {"kind": "lava"}}}, "steps": []}, "kind"),
        ({"battle_id": "other", "board": {"zones": {"a": {"kind": "miss"}}}, "steps": []}, "not 't1-b1'"),
        (record(SHIP), "not finished"),
        (record(SHIP, {"step": "jump"}), "drop, ability or pass"),
        (record(SHIP, drop("ability", "red@s1")), "owed the initial drop"),
    ):
        with pytest.raises(BattleRecordError, match=words):
            resolve_battle(SHIP, rec)  # type: ignore[arg-type]


def test_unknown_ability_effect_and_same_colour_sides_are_refused() -> None:
    s = setup("ship", player("red", 1, ab("red:x", "teleport")), player("blue", 1))
    with pytest.raises(BattleRecordError, match="teleport"):
        resolve_battle(s, record(s, drop("initial", "red@s1 blue@s1")))
    s = setup("ship", player("red", 1), player("red", 1))
    with pytest.raises(BattleRecordError, match="apart"):
        resolve_battle(s, record(s, drop("initial", "red@s1 red@s1")))


def test_setup_and_outcome_travel_as_json() -> None:
    g4 = sailor_battle_abilities("red", "gun", "gunner", 4)
    s = setup("ship", player("red", 2, *g4), player("blue", 1), provoked_by_pirate=True)
    assert BattleSetup.from_json(s.to_json()) == s
    o = resolve_battle(
        s, record(s, drop("initial", "red@s1 red@s1 blue@s2"), use("attacker", g4[1].id, cube=0))
    )
    assert BattleOutcome.from_json(o.to_json()) == o


def test_a_cube_removed_before_a_later_drop_still_returns_home() -> None:
    g4 = sailor_battle_abilities("red", "gun", "gunner", 4)
    s = setup("nonplayer", player("red", 1, *g4), black("merchant:M1", 1))
    rec = record(
        s,
        drop("initial", "red@s1 black@miss"),
        use("attacker", g4[1].id, cube=0),
        use("attacker", g4[0].id),
        drop("ability", "black@miss red@s2 red@dmg", ability=g4[0].id),
    )
    o = resolve_battle(s, rec)
    assert o.cubes_returned == {"black": 1, "red": 3}
    assert o.attacker.coins_from_abilities == 2 and o.attacker.strength == 2


def test_extra_damage_and_redrop_cube_from_card_data() -> None:
    s = setup(
        "ship",
        player("red", 2, ab("red:x", "extra_damage", damage=2), ab("red:r", "redrop_cube")),
        player("blue", 1),
    )
    base = [
        drop("initial", "red@miss red@s1 blue@s2"),
        use("attacker", "red:x"),
        pass_("defender"),
        use("attacker", "red:r", cube=0),
    ]
    with pytest.raises(BattleRecordError, match="not finished"):
        resolve_battle(s, record(s, *base))
    with pytest.raises(
        BattleRecordError, match="shows 3 red cubes; 2 should"
    ):  # the lifted cube is not a new one
        resolve_battle(s, record(s, *base, drop("ability", "red@s2 red@s1 blue@s2 red@s1", ability="red:r")))
    o = resolve_battle(s, record(s, *base, drop("ability", "red@s2 red@s1 blue@s2", ability="red:r")))
    assert o.attacker.damage_dealt == 2 and o.attacker.strength == 3 and o.winner == "attacker"
    assert o.cubes_returned == {"blue": 1, "red": 2}
    with pytest.raises(BattleRecordError, match="own"):
        resolve_battle(s, record(s, *base[:3], use("attacker", "red:r", cube=2)))


def test_coins_on_win_from_engine_data_and_ship_battles_only() -> None:
    s = setup(
        "building",
        player(
            "red",
            1,
            ab("red:w", "coins_per_wheel_on_win", coins=3),
            ab("red:c", "coins_per_wheel_on_win", coins=2, ship_battles_only=True),
        ),
        black("building:r1c1", 1),
    )
    o = resolve_battle(s, record(s, drop("initial", "red@s1 black@miss"), use("attacker", "red:w")))
    assert o.attacker.coins_from_abilities == 3  # a card that allows it in Building battles
    with pytest.raises(BattleRecordError, match="cannot be used"):
        resolve_battle(s, record(s, drop("initial", "red@s1 black@miss"), use("attacker", "red:c")))
