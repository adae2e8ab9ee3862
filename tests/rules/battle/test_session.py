"""The refereeing session driven by sequences of tower counts, camera readings and players' acts."""

from __future__ import annotations

import json
from typing import Any

import pytest

from rules.battle import BattleRecordError, resolve_battle
from rules.battle.helpers import sailor_battle_abilities
from rules.battle.session import BattleSession, SessionSettings
from tests.rules.battle.helpers import BOARD, ab, black, player, setup


def reading(
    spec: str, ambiguous: tuple[int, ...] = (), low: tuple[int, ...] = (), status: str | None = None
) -> dict[str, Any]:
    """The JSON of `smart-table vision read` for 'red@s1 blue@- ...' ('-': fully on a rail)."""
    cubes: list[dict[str, Any]] = []
    counts: dict[str, dict[str, int]] = {}
    redrop: list[int] = []
    for i, token in enumerate(spec.split()):
        color, zone = token.split("@")
        on_rail = zone == "-"
        cubes.append(
            {
                "color": color,
                "zone": None if on_rail else zone,
                "center_mm": [10.0 * i, 20.0],
                "on_rail": on_rail,
                "confidence": 0.3 if i in low else 0.97,
            }
        )
        if on_rail:
            redrop.append(i)
        else:
            counts.setdefault(color, {}).setdefault(zone, 0)
            counts[color][zone] += 1
    if status is None:
        status = "ambiguous" if ambiguous else "redrop" if redrop else "ok"
    return {
        "status": status,
        "cubes": cubes,
        "counts": counts,
        "redrop": redrop,
        "ambiguous": list(ambiguous),
    }


def kinds(prompts: list[Any]) -> list[str]:
    return [p.kind for p in prompts]


def drop(session: BattleSession, tower: dict[str, int], spec: str, t: float, **kw: Any) -> list[Any]:
    session.tower(tower, now=t)
    return session.camera(reading(spec, **kw), settled=True, now=t + 0.5)


def agrees(session: BattleSession) -> None:
    """The session's result is what resolve_battle makes of its record (after a JSON round trip)."""
    assert session.outcome is not None
    assert resolve_battle(session.setup, json.loads(json.dumps(session.record))) == session.outcome
    json.dumps(session.view())


SHIP = setup("ship", player("red", 3), player("blue", 2))


def test_a_clean_drop_is_accepted_and_the_battle_resolved() -> None:
    s = BattleSession(SHIP, BOARD)
    (ask,) = s.prompts()
    assert ask.kind == "drop" and ask.to == "table" and ask.data["cubes"] == {"red": 3, "blue": 2}
    assert "3 red cubes" in ask.text and "2 blue cubes" in ask.text
    prompts = drop(s, {"red": 3, "blue": 2}, "red@s2 red@s1 red@dmg blue@s2 blue@p-c2", 1.0)
    assert kinds(prompts) == ["result"] and s.phase == "done"
    assert s.outcome is not None and s.outcome.winner == "attacker"
    assert "red wins" in prompts[0].text
    agrees(s)
    step = s.record["steps"][0]
    assert step["tower_counts"] == {"red": 3, "blue": 2}
    assert [r.get("settled") for r in step["readings"] if "reading" in r] == [True]  # every reading is kept


def test_an_unsettled_board_stays_provisional() -> None:
    s = BattleSession(SHIP, BOARD)
    s.tower({"red": 3, "blue": 2}, now=1)
    assert kinds(s.camera(reading("red@s2 red@s1 red@dmg blue@s2 blue@p-c2"), settled=False, now=1.2)) == [
        "settling"
    ]
    v = s.view()
    assert v["provisional"] and v["phase"] == "drop" and v["result"] is None
    assert v["sides"]["attacker"]["strength"] == 3 and v["sides"]["defender"]["plunder_cargo"] == 2
    assert v["zones"]["s2"] == {"red": 1, "blue": 1}
    assert kinds(s.camera(reading("red@s2 red@s1 red@dmg blue@s2 blue@p-c2"), settled=True, now=1.6)) == [
        "result"
    ]
    assert not s.view()["provisional"]
    agrees(s)


def test_a_cube_that_bounced_off_the_board_is_dropped_again() -> None:
    s = BattleSession(SHIP, BOARD)
    prompts = drop(s, {"red": 3, "blue": 2}, "red@s2 red@s1 blue@s2 blue@s1", 1)
    assert kinds(prompts) == ["missing-cube"]
    assert prompts[0].data == {"source": "camera", "color": "red", "seen": 2, "expected": 3}
    assert "fell off the board" in prompts[0].text and s.outcome is None
    prompts = s.cube_lost("red", by="blue", now=2)  # now the tower must count one red more
    assert "missing-cube" in kinds(prompts) and any(p.data.get("source") == "tower" for p in prompts)
    prompts = drop(s, {"red": 4, "blue": 2}, "red@s2 red@s1 blue@s2 blue@s1 red@miss", 3)
    assert kinds(prompts) == ["result"]
    assert s.outcome is not None and s.outcome.cubes_returned == {"blue": 2, "red": 3}
    agrees(s)


def test_a_hidden_cube_is_added_by_a_player_never_guessed() -> None:
    s = BattleSession(SHIP, BOARD)
    assert kinds(drop(s, {"red": 3, "blue": 2}, "red@s2 red@s1 blue@s2 blue@s1", 1)) == ["missing-cube"]
    prompts = s.correct(None, now=2, by="red", add={"color": "red", "zone": "s2"})
    assert kinds(prompts) == ["result"]
    assert s.outcome is not None and s.outcome.attacker.strength == 5
    assert s.record["corrections"][0]["add"] == {"color": "red", "zone": "s2"}
    agrees(s)


def test_a_cube_stuck_in_the_tower() -> None:
    s = BattleSession(SHIP, BOARD)
    prompts = drop(s, {"red": 2, "blue": 2}, "red@s2 red@s1 blue@s2 blue@s1", 1)
    assert {(p.kind, p.data.get("source")) for p in prompts} == {
        ("missing-cube", "tower"),
        ("missing-cube", "camera"),
    }
    assert "stuck in the tower" in prompts[0].text
    assert kinds(s.tower({"red": 3, "blue": 2}, now=2)) == ["drop"]  # counts moved: wait for a fresh reading
    assert kinds(s.camera(reading("red@s2 red@s1 blue@s2 blue@s1 red@miss"), settled=True, now=3)) == [
        "result"
    ]
    agrees(s)


def test_an_extra_cube_on_the_board_is_marked_or_taken_off() -> None:
    s = BattleSession(SHIP, BOARD)
    prompts = drop(s, {"red": 3, "blue": 2}, "red@s2 red@s1 red@s1 red@s1 blue@s2 blue@s1", 1)
    assert kinds(prompts) == ["extra-cube"] and prompts[0].data["seen"] == 4
    assert kinds(s.correct(3, now=2, by="blue", remove=True)) == ["result"]  # cube 3 was a misread shadow
    assert s.outcome is not None and s.outcome.attacker.strength == 4 and s.outcome.cubes_returned["red"] == 3
    agrees(s)
    stray = BattleSession(SHIP, BOARD)
    prompts = drop(stray, {"red": 3, "blue": 2}, "red@s2 red@s1 red@s1 green@s1 blue@s2 blue@s1", 1)
    assert kinds(prompts) == ["stray-cube"] and "only red and blue" in prompts[0].text
    assert kinds(stray.camera(reading("red@s2 red@s1 red@s1 blue@s2 blue@s1"), settled=True, now=3)) == [
        "result"
    ]


def test_one_cube_too_many_through_the_tower() -> None:
    s = BattleSession(SHIP, BOARD)
    prompts = drop(s, {"red": 4, "blue": 2}, "red@s2 red@s1 red@s1 red@s1 blue@s2 blue@s1", 1)
    assert sorted(kinds(prompts)) == ["extra-cube", "extra-cube"]
    s.adjust_tower("red", -1, by="red", now=2)  # the extra red cube was taken back
    assert kinds(s.camera(reading("red@s2 red@s1 red@s1 blue@s2 blue@s1"), settled=True, now=3)) == ["result"]
    agrees(s)
    evidence = s.record["steps"][0]["readings"]
    assert any(e.get("event") == "tower-adjusted" for e in evidence)


def test_a_cube_on_a_rail_is_redropped_and_folded_in() -> None:
    s = BattleSession(SHIP, BOARD)
    prompts = drop(s, {"red": 3, "blue": 2}, "red@s2 red@- red@dmg blue@s2 blue@p-c2", 1)
    assert kinds(prompts) == ["redrop-rail"] and prompts[0].data["board_cubes"] == [1]
    assert "rail" in prompts[0].text and "1 red cube" in prompts[0].text
    assert s.view()["on_rail"] == {"red": 1}
    # a reading of the unchanged board before the re-drop says nothing
    assert kinds(s.camera(reading("red@s2 red@- red@dmg blue@s2 blue@p-c2"), settled=True, now=2)) == [
        "redrop-rail"
    ]
    prompts = drop(s, {"red": 1}, "red@s2 red@dmg blue@s2 blue@p-c2 red@s2", 3)
    assert kinds(prompts) == ["result"] and s.outcome is not None and s.outcome.attacker.strength == 4
    assert [st["reason"] for st in s.record["steps"]] == ["initial", "rail"]
    agrees(s)


def test_chained_exploding_shots() -> None:
    s = BattleSession(SHIP, BOARD)
    prompts = drop(s, {"red": 3, "blue": 2}, "red@explode red@explode red@s1 blue@explode blue@s1", 1)
    assert kinds(prompts) == ["redrop-exploding"]
    assert prompts[0].data["cubes"] == {"red": 4, "blue": 2}
    assert "2 red cubes from the exploding-shot zone, plus 2 extra red" in prompts[0].text
    assert "1 blue cube from the exploding-shot zone, plus 1 extra blue" in prompts[0].text
    prompts = drop(
        s, {"red": 4, "blue": 2}, "red@s1 blue@s1 red@explode red@s2 red@miss red@dmg blue@s2 blue@miss", 2
    )
    assert kinds(prompts) == ["redrop-exploding"] and prompts[0].data["cubes"] == {"red": 2}
    assert s.view()["sides"]["attacker"]["exploding_shots"] == 3
    prompts = drop(s, {"red": 2}, "red@s1 blue@s1 red@s2 red@miss red@dmg blue@s2 blue@miss red@s1 red@s1", 3)
    assert kinds(prompts) == ["result"]
    o = s.outcome
    assert o is not None and o.cubes_returned == {"blue": 3, "red": 6}
    assert (o.attacker.strength, o.defender.strength) == (5, 3)
    assert s.view()["sides"]["attacker"]["exploding_shots"] == 3
    agrees(s)


def test_an_ambiguous_cube_waits_for_a_player() -> None:
    s = BattleSession(SHIP, BOARD)
    prompts = drop(
        s, {"red": 3, "blue": 2}, "red@s2 red@s1 red@dmg blue@s2 blue@p-c2", 1, ambiguous=(1,), low=(4,)
    )
    assert kinds(prompts) == ["ambiguous-cube", "ambiguous-cube"]
    assert [p.data["cube"] for p in prompts] == [1, 4] and "near" in prompts[0].text
    assert kinds(s.correct(1, now=2, by="red", zone="s1")) == ["ambiguous-cube"]
    assert kinds(s.correct(4, now=3, by="blue", zone="miss")) == ["result"]
    assert [(c["step"], c["cube"]) for c in s.record["corrections"]] == [(0, 1), (0, 4)]
    assert s.outcome is not None and s.outcome.defender.plunder_cargo == 0
    agrees(s)


def test_a_correction_after_the_result_re_resolves_the_battle() -> None:
    s = BattleSession(SHIP, BOARD)
    drop(s, {"red": 3, "blue": 2}, "red@s2 red@s1 red@dmg blue@s2 blue@s2", 1)
    assert s.outcome is not None and s.outcome.winner == "defender"
    prompts = s.correct(2, now=5, by="red", zone="s1", step=0)  # "that cube was in strength, not damage"
    assert kinds(prompts) == ["result"] and s.outcome.winner == "attacker" and s.outcome.tied
    assert s.record["corrections"] == [{"by": "red", "t": 5, "cube": 2, "zone": "s1", "step": 0}]
    agrees(s)
    # A correction that puts a cube in the exploding zone sends the battle back to step 1.
    prompts = s.correct(2, now=6, by="blue", zone="explode", step=0)
    assert kinds(prompts) == ["redrop-exploding"] and s.outcome is None and s.phase == "drop"
    assert kinds(drop(s, {"red": 2}, "red@s2 red@s1 blue@s2 blue@s2 red@miss red@miss", 7)) == ["result"]
    agrees(s)


def test_a_correction_that_contradicts_later_drops_is_refused_and_changes_nothing() -> None:
    s = BattleSession(SHIP, BOARD)
    drop(s, {"red": 3, "blue": 2}, "red@explode red@s1 red@s1 blue@s2 blue@s2", 1)
    drop(s, {"red": 2}, "red@s1 red@s1 blue@s2 blue@s2 red@miss red@miss", 2)
    before = json.dumps(s.record)
    with pytest.raises(BattleRecordError, match="does not fit"):
        s.correct(0, now=3, by="blue", zone="s1", step=0)
    assert json.dumps(s.record) == before and s.outcome is not None


def test_ability_prompts_alternate_and_an_ability_drop_can_explode() -> None:
    g3 = sailor_battle_abilities("red", "gun", "gunner", 3)
    st = setup(
        "ship",
        player("red", 1, *g3),
        player("blue", 1, ab("blue:m", "move_cube_adjacent"), ab("blue:w", "coins_per_wheel")),
    )
    s = BattleSession(st, BOARD)
    (p,) = drop(s, {"red": 1, "blue": 1}, "red@s1 blue@s1", 1)
    assert (p.kind, p.to, p.data["side"]) == ("ability", "red", "attacker")
    assert [o["id"] for o in p.data["options"]] == [g3[0].id]
    with pytest.raises(BattleRecordError, match="turn"):
        s.use_ability("blue", "blue:m", now=2, cube=0, to="s2")
    with pytest.raises(BattleRecordError, match="not fighting"):
        s.pass_turn("green", now=2)
    (p,) = s.use_ability("red", g3[0].id, now=3)
    assert (p.kind, p.to, p.data["cubes"]) == ("ability-drop", "red", {"red": 2})
    (p,) = drop(s, {"red": 2}, "red@s1 blue@s1 red@explode red@miss", 4)
    assert p.kind == "redrop-exploding"  # an ability's cube in the exploding zone: back to step 1
    (p,) = drop(s, {"red": 2}, "red@s1 blue@s1 red@miss red@s2 red@dmg", 5)
    assert (p.kind, p.to, p.data["options"][0]["needs"]) == ("ability", "blue", ["cube", "to"])
    (p,) = s.use_ability("blue", "blue:m", now=6, cube=1, to="s2")  # its own cube, s1 -> s2
    # red has nothing left, which is a pass: blue is asked again, with what it has left
    assert p.kind == "ability" and p.to == "blue" and [o["id"] for o in p.data["options"]] == ["blue:w"]
    (p,) = s.pass_turn("blue", now=8)
    assert p.kind == "result"
    o = s.outcome
    assert (
        o is not None
        and o.abilities_used == (g3[0].id, "blue:m")
        and o.cubes_returned == {"blue": 1, "red": 4}
    )
    assert (o.attacker.strength, o.defender.strength, o.winner) == (3, 2, "attacker")
    agrees(s)


def test_silence_is_a_pass_only_when_the_table_says_so() -> None:
    st = setup(
        "nonplayer", player("red", 1, ab("red:w", "coins_per_wheel", wheels=1)), black("merchant:M2", 1)
    )
    patient = BattleSession(st, BOARD)
    drop(patient, {"red": 1, "black": 1}, "red@s1 black@miss", 1)
    assert kinds(patient.tick(now=10_000)) == ["ability"]
    timed = BattleSession(st, BOARD, SessionSettings(ability_timeout_s=30))
    (p,) = drop(timed, {"red": 1, "black": 1}, "red@s1 black@miss", 1)
    assert p.to == "red" and p.data["timeout_s"] == 30
    assert kinds(timed.tick(now=20)) == ["ability"]
    assert kinds(timed.tick(now=32)) == ["result"]
    assert timed.record["steps"][-1] == {
        "step": "pass",
        "side": "attacker",
        "by": "red",
        "t": 32,
        "timeout": True,
    }
    agrees(timed)


def test_non_player_prompts_only_the_attacker_and_building_drops_black() -> None:
    st = setup("building", player("red", 2, ab("red:w", "coins_per_wheel")), black("building:r1c1", 7))
    s = BattleSession(st, BOARD)
    assert s.prompts()[0].data["cubes"] == {"red": 2, "black": 7}
    (p,) = drop(s, {"red": 2, "black": 7}, "red@s2 red@s2 " + "black@s1 " * 3 + "black@miss " * 4, 1)
    assert p.to == "red" and "any order" in p.text
    (p,) = s.pass_turn("red", now=2)
    assert p.kind == "result" and s.outcome is not None and s.outcome.winner == "attacker"
    with pytest.raises(BattleRecordError):
        s.pass_turn("building:r1c1", now=3)


def test_bad_input_gets_one_sentence_and_changes_nothing() -> None:
    s = BattleSession(SHIP, BOARD)
    before = json.dumps(s.view())
    bad: object  # deliberately not a reading
    for bad in (
        {"cubes": []},
        "garbage",
        {"status": "ok", "cubes": [{"zone": "s1"}]},
        {"status": "ok", "ambiguous": 3},
    ):
        with pytest.raises(BattleRecordError, match="vision read|'cubes'|'ambiguous'"):
            s.camera(bad, settled=True, now=1)  # type: ignore[arg-type]
    for bad_counts in ({"red": -1}, {"red": "3"}, ["red"]):
        with pytest.raises(BattleRecordError, match="Tower counts"):
            s.tower(bad_counts, now=1)  # type: ignore[arg-type]
    with pytest.raises(BattleRecordError, match="No reading"):
        s.correct(0, now=1, by="red", zone="s1")
    assert json.dumps(s.view()) == before


def test_no_board_and_unknown_zones_are_prompts() -> None:
    s = BattleSession(SHIP, BOARD)
    s.tower({"red": 3, "blue": 2}, now=1)
    (p,) = s.camera(
        {
            "status": "no-board",
            "reason": "2 of 4 markers found",
            "cubes": [],
            "counts": {},
            "redrop": [],
            "ambiguous": [],
        },
        settled=True,
        now=2,
    )
    assert p.kind == "no-board" and "2 of 4 markers" in p.text
    prompts = s.camera(reading("red@s2 red@s1 red@deck blue@s2 blue@p-c2"), settled=True, now=3)
    assert kinds(prompts) == ["unknown-zone"] and "same board layout" in prompts[0].text
    assert kinds(s.correct(2, now=4, by="red", zone="dmg")) == ["result"]
    agrees(s)


def test_tiebreak_session_resolves_exploding_shots_then_reports_a_tie() -> None:
    st = setup("tiebreak", player("red", 2), player("blue", 1))
    s = BattleSession(st, BOARD)
    (p,) = drop(s, {"red": 2, "blue": 1}, "red@explode red@s1 blue@s2", 1)
    assert p.kind == "redrop-exploding"
    (p,) = drop(s, {"red": 2}, "red@s1 blue@s2 red@s1 red@miss", 2)
    assert p.kind == "result" and "repeat the tie-break" in p.text
    agrees(s)


def test_a_side_with_no_cubes_and_readings_outside_a_drop_are_kept() -> None:
    st = setup("nonplayer", player("red", 0), black("merchant:M3", 2))
    s = BattleSession(st, BOARD)
    assert s.prompts()[0].data["cubes"] == {"red": 0, "black": 2}
    (p,) = drop(s, {"black": 2}, "black@s1 black@dmg", 1)
    assert p.kind == "result" and s.outcome is not None and s.outcome.winner == "defender"
    s.camera(reading("black@s1 black@dmg"), settled=True, now=9)
    s.tower({"red": 1}, now=9.5)
    assert [e["t"] for e in s.record["extra_readings"]] == [9, 9.5]
    agrees(s)


def test_the_view_during_the_abilities_step() -> None:
    g4 = sailor_battle_abilities("red", "gun", "gunner", 4)
    st = setup("ship", player("red", 2, *g4), player("blue", 1))
    s = BattleSession(st, BOARD)
    drop(s, {"red": 2, "blue": 1}, "red@s2 red@dmg blue@p-c2", 1)
    v = s.view()
    assert (v["phase"], v["to_act"], v["provisional"], v["result"]) == ("abilities", "attacker", False, None)
    assert v["sides"]["attacker"]["damage"] == 1 and v["sides"]["defender"]["plunder_cargo"] == 2
    s.use_ability("red", g4[1].id, now=2, cube=1)  # the damage cube is removed: 1 damage, 2 coins
    v = s.view()
    assert v["sides"]["attacker"]["damage"] == 1 and v["sides"]["attacker"]["abilities_used"] == [g4[1].id]
    assert "dmg" not in v["zones"]
    s.pass_turn("red", now=3)
    assert s.outcome is not None and s.outcome.attacker.coins_from_abilities == 2
    agrees(s)


def test_the_session_says_when_the_drop_has_started() -> None:
    """Rulebook (Rearranging, Jettisoning): "once the battle has begun, you can no longer do this until the
    battle is over": the session tells the controller when the first cubes go in (`drop_started`), so the
    engine can hear `battle_drop_started` (docs/battles.md)."""
    s = BattleSession(SHIP, BOARD)
    assert not s.drop_started
    s.camera(reading(""), settled=True, now=0.5)  # the empty board read before anyone drops: not begun
    assert not s.drop_started
    s.tower({"red": 0}, now=0.8)
    assert not s.drop_started
    s.tower({"red": 1}, now=1.0)
    assert s.drop_started
    drop(s, {"red": 3, "blue": 2}, "red@s2 red@s1 red@dmg blue@s2 blue@p-c2", 1.5)
    assert s.phase == "done" and s.drop_started
