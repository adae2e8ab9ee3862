"""Random but valid battle records, for the engine's random playouts and the simulated table.

Chance comes only from the `random.Random` the caller seeds, so a playout replays exactly. Cubes
land in the zones of the board they are given (uniformly, or by `weights`), now and then on a
rail, and a later drop now and then knocks a cube already lying there into another zone.
"""

from __future__ import annotations

import random
from typing import Any

from rules.battle.board import DEFAULT_BOARD, board_from_json
from rules.battle.contract import BattleSetup
from rules.battle.record import RECORD_SCHEMA, Tracker

MAX_CHAINED_DROPS = 25  # after this many drops, cubes stop landing in the exploding zone or on rails


def new_record(setup: BattleSetup, board: dict[str, Any] | None = None) -> dict[str, Any]:
    """An empty record for `setup`, read against `board` (the zone model; default: DEFAULT_BOARD)."""
    model = board if board is not None else DEFAULT_BOARD
    return {
        "schema": RECORD_SCHEMA,
        "battle_id": setup.battle_id,
        "board": board_from_json(model).to_json(),
        "steps": [],
        "corrections": [],
    }


def random_record(
    setup: BattleSetup, rng: random.Random, board: dict[str, Any] | None = None, **options: Any
) -> dict[str, Any]:
    """A finished record of `setup`: drops, re-drops and Battle abilities chosen at random (`options`:
    `random_record_played`'s chances and zone weights)."""
    return random_record_played(setup, rng, board, **options)[0]


def random_record_played(
    setup: BattleSetup,
    rng: random.Random,
    board: dict[str, Any] | None = None,
    *,
    ability_chance: float = 0.6,
    rail_chance: float = 0.03,
    bump_chance: float = 0.05,
    weights: dict[str, float] | None = None,
) -> tuple[dict[str, Any], Tracker]:
    """`random_record`, and the tracker that played it (its final board, for `resolve.outcome_of`)."""
    record = new_record(setup, board)
    bb = board_from_json(record["board"])
    tracker = Tracker(setup, bb)
    zone_ids = sorted(bb.zones)
    calm_ids = [z for z in zone_ids if bb.zones[z].kind != "exploding"] or zone_ids
    zone_weights = [float((weights or {}).get(z, 1.0)) for z in zone_ids]
    calm_weights = [float((weights or {}).get(z, 1.0)) for z in calm_ids]

    def land(calm: bool) -> str | None:
        if not calm and rng.random() < rail_chance:
            return None
        if calm:
            return rng.choices(calm_ids, calm_weights)[0]
        return rng.choices(zone_ids, zone_weights)[0]

    while True:
        owed = tracker.pending
        if owed is not None:
            calm = tracker.drops >= MAX_CHAINED_DROPS
            picked = set(owed.cubes) if owed.reason in ("rail", "exploding") else set()
            cubes: list[dict[str, Any]] = []
            if owed.reason != "initial":
                for i, c in enumerate(tracker.cubes):
                    if c.removed or i in picked:
                        continue
                    zone = c.zone
                    if rng.random() < bump_chance:
                        zone = land(calm)
                    cubes.append({"color": c.color, "zone": zone})
            for color, n in sorted(owed.dropped.items()):
                cubes.extend({"color": color, "zone": land(calm)} for _ in range(n))
            rng.shuffle(cubes)
            step: dict[str, Any] = {"step": "drop", "reason": owed.reason, "board": cubes}
            if owed.ability:
                step["ability"] = owed.ability
        else:
            side = tracker.next_to_act()
            if side is None:
                break
            step = {"step": "pass", "side": side}
            if rng.random() < ability_chance:
                choice = _random_ability(tracker, side, rng)
                if choice is not None:
                    step = choice
        tracker.apply(step)
        record["steps"].append(step)
    return record, tracker


def _random_ability(tracker: Tracker, side: str, rng: random.Random) -> dict[str, Any] | None:
    abilities = list(tracker.usable(side))
    rng.shuffle(abilities)
    own = tracker.side(side).cube_color
    for ab in abilities:
        step: dict[str, Any] = {"step": "ability", "side": side, "ability": ab.id}
        if ab.effect in ("move_cube_adjacent", "remove_cube_for_damage_and_coins", "redrop_cube"):
            whose = ab.params.get("whose", "any" if ab.effect == "move_cube_adjacent" else "own")
            targets: list[tuple[int, str | None]] = []
            for i, c in enumerate(tracker.cubes):
                if c.removed or c.zone is None:
                    continue
                if (whose == "own" and c.color != own) or (whose == "opponent" and c.color == own):
                    continue
                if ab.effect != "move_cube_adjacent":
                    targets.append((i, None))
                else:
                    targets.extend(
                        (i, z) for z in sorted(tracker.board.zones) if tracker.board.is_adjacent(c.zone, z)
                    )
            if not targets:
                continue
            i, to = rng.choice(targets)
            step["cube"] = i
            if to is not None:
                step["to"] = to
        return step
    return None
