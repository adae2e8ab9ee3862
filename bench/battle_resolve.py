"""Benchmark of the battle module: random records, resolve_battle, and the refereeing session.

One command: `python bench/battle_resolve.py [--battles N]`. Prints battles per second for
generating a random record (the engine's random playouts), resolving it, and refereeing it through
the session (tower counts + camera readings + abilities, as the controller feeds it), and the
per-input cost of the session, which the controller pays on every camera reading.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(
    0, str(Path(__file__).resolve().parents[1])
)  # run from anywhere: `python bench/battle_resolve.py`

from rules.battle import BattleSetup, BattleSide, random_record, resolve_battle, sailor_battle_abilities
from rules.battle.session import BattleSession


def setups(n: int, rng: random.Random) -> list[BattleSetup]:
    out = []
    for i in range(n):
        kind = rng.choice(["ship", "ship", "nonplayer", "building"])
        abilities = sailor_battle_abilities("red", "g", "gunner", 4) + sailor_battle_abilities(
            "red", "c", "captain", 4
        )
        attacker = BattleSide("red", True, "red", rng.randint(1, 8), abilities=abilities, wheels=1)
        if kind == "ship":
            defender = BattleSide(
                "blue",
                True,
                "blue",
                rng.randint(1, 8),
                abilities=sailor_battle_abilities("blue", "g", "gunner", 3),
            )
        else:
            defender = BattleSide("black", False, "black", rng.randint(2, 7))
        out.append(BattleSetup(f"b{i}", kind, attacker, defender, "r1c1"))  # type: ignore[arg-type]
    return out


def camera_json(board: list[dict]) -> dict:
    cubes = [
        {
            "color": c["color"],
            "zone": c["zone"],
            "center_mm": [0.0, 0.0],
            "on_rail": c["zone"] is None,
            "confidence": 0.99,
        }
        for c in board
    ]
    return {"status": "ok", "cubes": cubes, "counts": {}, "redrop": [], "ambiguous": []}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--battles", type=int, default=500)
    args = parser.parse_args()
    rng = random.Random(7)
    battles = setups(args.battles, rng)

    t0 = time.perf_counter()
    records = [random_record(s, random.Random(i)) for i, s in enumerate(battles)]
    t_gen = time.perf_counter() - t0

    t0 = time.perf_counter()
    outcomes = [resolve_battle(s, r) for s, r in zip(battles, records, strict=True)]
    t_res = time.perf_counter() - t0

    per_input: list[float] = []
    t0 = time.perf_counter()
    for s, r, o in zip(battles, records, outcomes, strict=True):
        session = BattleSession(s)
        for n, step in enumerate(r["steps"]):
            t1 = time.perf_counter()
            if step["step"] == "drop":
                assert session.owed is not None, "the record has a drop where the session owes none"
                session.tower(dict(session.owed.dropped), now=n)
                session.camera(camera_json(step["board"]), settled=True, now=n + 0.5)
            elif step["step"] == "ability":
                name = s.attacker.name if step["side"] == "attacker" else s.defender.name
                session.use_ability(name, step["ability"], now=n, cube=step.get("cube"), to=step.get("to"))
            else:
                session.pass_turn(s.attacker.name if step["side"] == "attacker" else s.defender.name, now=n)
            per_input.append(time.perf_counter() - t1)
        assert session.outcome == o
    t_ses = time.perf_counter() - t0

    steps = sum(len(r["steps"]) for r in records)
    per_input.sort()
    print(f"battles: {args.battles}, steps: {steps} ({steps / args.battles:.1f} per battle)")
    print(
        f"random_record:  {args.battles / t_gen:9.0f} battles/s  ({1e3 * t_gen / args.battles:.3f} ms each)"
    )
    print(
        f"resolve_battle: {args.battles / t_res:9.0f} battles/s  ({1e3 * t_res / args.battles:.3f} ms each)"
    )
    print(
        f"session:        {args.battles / t_ses:9.0f} battles/s  ({1e3 * t_ses / args.battles:.3f} ms each)"
    )
    print(
        f"session input:  median {1e3 * statistics.median(per_input):.3f} ms, "
        f"p95 {1e3 * per_input[int(0.95 * (len(per_input) - 1))]:.3f} ms "
        f"(ratio to a 33 ms camera frame: {statistics.median(per_input) / 0.033:.3f})"
    )


if __name__ == "__main__":
    main()
