"""Property tests: the outcome is a pure function of (setup, record), and every cube comes home."""

from __future__ import annotations

import copy
import json
import random
from collections import Counter
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from rules.battle import BattleRecordError, BattleSetup, random_record, resolve_battle
from rules.battle.helpers import sailor_battle_abilities
from tests.rules.battle.helpers import BOARD, ab, black, player, setup

POOL = {
    "g3": lambda c: sailor_battle_abilities(c, "g3", "gunner", 3),
    "g4": lambda c: sailor_battle_abilities(c, "g4", "gunner", 4),
    "c4": lambda c: sailor_battle_abilities(c, "c4", "captain", 4),
    "move": lambda c: (ab(f"{c}:move", "move_cube_adjacent"),),
    "wheel": lambda c: (ab(f"{c}:wheel", "coins_per_wheel", wheels=2),),
    "redrop": lambda c: (ab(f"{c}:redrop", "redrop_cube"),),
    "xdmg": lambda c: (ab(f"{c}:xdmg", "extra_damage", damage=2),),
    "win3": lambda c: (ab(f"{c}:win3", "coins_per_wheel_on_win", coins=3),),
}


@st.composite
def setups(draw: Any) -> BattleSetup:
    kind = draw(st.sampled_from(["ship", "nonplayer", "building", "tiebreak"]))

    def abilities(color: str) -> tuple[Any, ...]:
        names = draw(st.lists(st.sampled_from(sorted(POOL)), unique=True, max_size=3))
        return tuple(a for n in names for a in POOL[n](color))

    attacker = player(
        "red", draw(st.integers(0, 7)), *abilities("red"), damage=draw(st.integers(0, 4)), wheels=1
    )
    if kind in ("ship", "tiebreak"):
        defender = player("blue", draw(st.integers(0, 7)), *abilities("blue"), damage=draw(st.integers(0, 4)))
    else:
        defender = black("merchant:M1" if kind == "nonplayer" else "building:r1c1", draw(st.integers(0, 7)))
    return setup(kind, attacker, defender)


def added_cubes(s: BattleSetup, rec: dict[str, Any]) -> Counter[str]:
    """Cubes that joined the battle, counted from the readings alone (not from the resolver):
    the initial drop, then whatever each later drop added to the board, net of ability removals."""
    removers = {
        a.id: side.cube_color
        for side in (s.attacker, s.defender)
        for a in side.abilities
        if a.effect == "remove_cube_for_damage_and_coins"
    }
    total: Counter[str] = Counter()
    on_board: Counter[str] = Counter()
    for step in rec["steps"]:
        if step["step"] == "drop":
            now = Counter(c["color"] for c in step["board"])
            for color in set(now) | set(on_board):
                total[color] += now[color] - on_board[color]
            on_board = now
        elif step["step"] == "ability" and step["ability"] in removers:
            on_board[removers[step["ability"]]] -= 1
    return total


@settings(max_examples=60, deadline=None)
@given(s=setups(), seed=st.integers(0, 2**32 - 1))
def test_outcome_is_a_pure_function_of_setup_and_record(s: BattleSetup, seed: int) -> None:
    rec = random_record(s, random.Random(seed), BOARD)
    assert random_record(s, random.Random(seed), BOARD) == rec  # seeded chance replays exactly
    first = resolve_battle(s, rec)
    again = resolve_battle(
        BattleSetup.from_json(json.loads(json.dumps(s.to_json()))), json.loads(json.dumps(rec))
    )
    assert again == first
    assert resolve_battle(s, rec) == first  # resolving does not change the record
    assert first.winner == ("attacker" if first.attacker.strength >= first.defender.strength else "defender")


@settings(max_examples=60, deadline=None)
@given(s=setups(), seed=st.integers(0, 2**32 - 1))
def test_every_cube_returns_to_its_owner_or_the_black_pool(s: BattleSetup, seed: int) -> None:
    rec = random_record(s, random.Random(seed), BOARD)
    o = resolve_battle(s, rec)
    added = added_cubes(s, rec)
    assert o.cubes_returned == {c: added.get(c, 0) for c in (s.attacker.cube_color, s.defender.cube_color)}
    extra_drops = sum(a.params.get("cubes", 0) for a in s.attacker.abilities if a.id in o.abilities_used)
    assert o.cubes_returned["red"] >= s.attacker.cubes + extra_drops
    assert o.cubes_returned[s.defender.cube_color] >= s.defender.cubes


@settings(max_examples=40, deadline=None)
@given(s=setups(), seed=st.integers(0, 2**32 - 1), pick=st.integers(0, 10**6))
def test_a_lost_cube_is_never_silently_accepted(s: BattleSetup, seed: int, pick: int) -> None:
    rec = random_record(s, random.Random(seed), BOARD)
    drops = [i for i, step in enumerate(rec["steps"]) if step["step"] == "drop" and step["board"]]
    if not drops:
        return
    broken = copy.deepcopy(rec)
    board = broken["steps"][drops[pick % len(drops)]]["board"]
    board.pop(pick % len(board))
    try:
        resolve_battle(s, broken)
    except BattleRecordError as exc:
        assert "cubes" in exc.message
    else:
        raise AssertionError("a reading with a cube missing was accepted")


def camera_json(board: list[dict[str, Any]]) -> dict[str, Any]:
    cubes = [
        {
            "color": c["color"],
            "zone": c["zone"],
            "center_mm": [5.0 * i, 7.0],
            "on_rail": c["zone"] is None,
            "confidence": 0.99,
        }
        for i, c in enumerate(board)
    ]
    redrop = [i for i, c in enumerate(cubes) if c["on_rail"]]
    return {
        "status": "redrop" if redrop else "ok",
        "cubes": cubes,
        "counts": {},
        "redrop": redrop,
        "ambiguous": [],
    }


@settings(max_examples=40, deadline=None)
@given(s=setups(), seed=st.integers(0, 2**32 - 1))
def test_the_session_fed_a_random_table_reaches_the_same_outcome(s: BattleSetup, seed: int) -> None:
    from rules.battle.session import BattleSession

    rec = random_record(s, random.Random(seed), BOARD)
    session = BattleSession(s, BOARD)
    t = 0.0
    for step in rec["steps"]:
        t += 1.0
        assert session.prompts() and json.dumps(session.view())
        if step["step"] == "drop":
            assert session.owed is not None and session.owed.reason == step["reason"]
            session.tower(dict(session.owed.dropped), now=t)
            session.camera(camera_json(step["board"]), settled=True, now=t + 0.5)
        elif step["step"] == "ability":
            name = s.attacker.name if step["side"] == "attacker" else s.defender.name
            session.use_ability(name, step["ability"], now=t, cube=step.get("cube"), to=step.get("to"))
        else:
            session.pass_turn(s.attacker.name if step["side"] == "attacker" else s.defender.name, now=t)
    assert session.phase == "done"
    assert (
        session.outcome == resolve_battle(s, rec) == resolve_battle(s, json.loads(json.dumps(session.record)))
    )
    assert [p.kind for p in session.prompts()] == ["result"]
