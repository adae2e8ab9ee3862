"""A cube touching two or more zones (issue 16, item 10).

Rulebook, Battle Ship Details: "If any part of a cube is touching a zone, that cube is considered to be in
that zone." Then "Resolve the cubes in the following order": exploding shots, Battle abilities, plunder
("Each cube that is in one of these zones is removed"), damage ("Each cube that is in one of these zones is
removed"), strength. A cube in two zones is in both; the earliest step takes it. Within one step it counts
once, at the zone best for its owner (docs/battles.md).
"""

from __future__ import annotations

from typing import Any

import pytest

from rules.battle import BattleRecordError, resolve_battle
from rules.battle.session import BattleSession
from tests.rules.battle.helpers import BOARD, ab, black, drop, pass_, player, record, setup, use

SHIP = setup("ship", player("red", 2), player("blue", 1))


def test_a_cube_touching_damage_and_strength_is_removed_by_damage_before_strength_counts() -> None:
    # "Each cube that is in one of these zones is removed and ... causes 1 Damage": it no longer counts
    # when strength is determined.
    o = resolve_battle(SHIP, record(SHIP, drop("initial", "red@dmg+s2 red@miss blue@s1")))
    assert o.attacker.damage_dealt == 1 and o.attacker.strength == 0
    assert o.winner == "defender"
    # written the other way round ('zone' is the first it touches): the same
    o = resolve_battle(SHIP, record(SHIP, drop("initial", "red@s2+dmg red@miss blue@s1")))
    assert (o.attacker.damage_dealt, o.attacker.strength) == (1, 0)


def test_a_cube_touching_plunder_and_damage_is_plunder() -> None:
    o = resolve_battle(SHIP, record(SHIP, drop("initial", "red@dmg+p-c2 red@miss blue@miss")))
    assert (o.attacker.plunder_cargo, o.attacker.damage_dealt) == (2, 0)


def test_a_cube_touching_the_exploding_zone_explodes_first() -> None:
    # "1. Exploding shots: Each cube in this zone is removed and dropped again ... along with 1 extra cube"
    rec = record(SHIP, drop("initial", "red@s2+explode red@miss blue@s1"))
    with pytest.raises(BattleRecordError, match="exploding drop"):
        resolve_battle(SHIP, rec)
    rec["steps"].append(drop("exploding", "red@miss red@s2 red@s1 blue@s1"))
    o = resolve_battle(SHIP, rec)
    assert o.attacker.strength == 3 and o.cubes_returned == {"blue": 1, "red": 3}


def test_two_zones_of_the_same_step_count_once_at_the_better_one() -> None:
    # strength: "Each cube in these zones contributes either 1 or 2 Battle strength" - one value per cube
    o = resolve_battle(SHIP, record(SHIP, drop("initial", "red@s1+s2 red@miss blue@s2")))
    assert o.attacker.strength == 2 and o.winner == "attacker"
    # plunder: the larger (2 Cargo rather than 1 Coin), never both
    o = resolve_battle(SHIP, record(SHIP, drop("initial", "red@p-k1+p-c2 red@miss blue@miss")))
    assert (o.attacker.plunder_cargo, o.attacker.plunder_coins) == (2, 0)


def test_a_miss_zone_does_not_hide_the_other_zone() -> None:
    o = resolve_battle(SHIP, record(SHIP, drop("initial", "red@miss+s1 red@miss blue@miss")))
    assert o.attacker.strength == 1


def test_no_plunder_step_against_buildings_so_the_cube_goes_on_to_strength() -> None:
    # "3. Plunder (skip this step in battles with Buildings)"
    s = setup("building", player("red", 1), black("building:r2c3", 2))
    o = resolve_battle(s, record(s, drop("initial", "red@p-c2+s2 black@s1 black@miss")))
    assert o.attacker.plunder_cargo == 0 and o.attacker.strength == 2 and o.winner == "attacker"


def test_a_correction_sets_every_zone_a_cube_touches_or_one() -> None:
    rec = record(
        SHIP,
        drop("initial", "red@s2 red@miss blue@s1"),
        corrections=[{"step": 0, "cube": 0, "zones": ["s2", "dmg"], "by": "blue"}],
    )
    o = resolve_battle(SHIP, rec)
    assert (o.attacker.damage_dealt, o.attacker.strength) == (1, 0)
    rec["corrections"].append({"step": 0, "cube": 0, "zone": "s2", "by": "red"})  # the last one wins
    o = resolve_battle(SHIP, rec)
    assert (o.attacker.damage_dealt, o.attacker.strength) == (0, 2)


@pytest.mark.parametrize(
    "cube, message",
    [
        ({"color": "red", "zone": "s2", "zones": ["s1", "dmg"]}, "leave it out"),
        ({"color": "red", "zone": "s2", "zones": ["s2", "nowhere"]}, "does not have"),
        ({"color": "red", "zone": "s2", "zones": "s2"}, "list of zone ids"),
    ],
)
def test_bad_zones_are_refused_with_a_sentence(cube: dict[str, Any], message: str) -> None:
    rec = record(
        SHIP,
        {"step": "drop", "reason": "initial", "board": [cube, *drop("initial", "red@miss blue@s1")["board"]]},
    )
    with pytest.raises(BattleRecordError, match=message):
        resolve_battle(SHIP, rec)


def test_moving_a_cube_touching_two_zones_goes_from_either_to_one() -> None:
    s = setup("ship", player("red", 1, ab("red:m", "move_cube_adjacent")), player("blue", 1))
    # s1 is adjacent to s2 and miss; the cube touches dmg and s1: it may go to miss (next to s1)
    o = resolve_battle(
        s,
        record(
            s,
            drop("initial", "red@dmg+s1 blue@s1"),
            use("attacker", "red:m", cube=0, to="miss"),
            pass_("defender"),
        ),
    )
    assert (o.attacker.damage_dealt, o.attacker.strength) == (0, 0)


def test_the_session_keeps_the_zones_the_camera_reports_and_a_player_sets() -> None:
    s = BattleSession(SHIP, BOARD)
    s.tower({"red": 2, "blue": 1}, now=1)
    reading = {
        "status": "ok",
        "cubes": [
            {"color": "red", "zone": "s2", "zones": ["s2", "dmg"], "confidence": 0.9},
            {"color": "red", "zone": "miss", "confidence": 0.9},
            {"color": "blue", "zone": "s1", "confidence": 0.9},
        ],
    }
    s.camera(reading, settled=True, now=1.5)
    assert s.record["steps"][0]["board"][0]["zones"] == ["s2", "dmg"]
    assert s.outcome is not None and (s.outcome.attacker.damage_dealt, s.outcome.attacker.strength) == (1, 0)
    view = s.view()
    assert view["zones"]["s2"]["red"] == 1 and view["zones"]["dmg"]["red"] == 1  # shown in both
    s.correct(2, now=2, by="red", step=0, zones=["s1", "s2"])  # blue's cube touched s2 as well
    assert s.outcome is not None and s.outcome.defender.strength == 2
    assert s.record["corrections"][-1]["zones"] == ["s1", "s2"]
