"""Steps 3 to 5 of the Battle ship: plunder, damage, strength, and the winner.

`resolve_battle(setup, record)` replays the record (steps 1 and 2: drops, exploding shots, rail
re-drops, Battle abilities) and reads the final board. Pure: the outcome depends on
(setup, record) only. Applying the outcome to the game (damage markers, Legendary, flags,
blockade, plunder placement, merchant effects, sinking) is the engine's; see docs/battles.md.
"""

from __future__ import annotations

from collections import Counter
from typing import Any

from rules.battle.contract import BattleOutcome, BattleSetup, SideResult
from rules.battle.errors import BattleRecordError
from rules.battle.record import SIDES, BoardCube, Tracker, other, replay


def _takes_damage(setup: BattleSetup, side: str) -> bool:
    """Only a player's Ship carries Damage; a Merchant ship or a Building does not."""
    return setup.kind != "tiebreak" and (setup.attacker if side == "attacker" else setup.defender).is_player


def _gets_plunder(setup: BattleSetup, side: str) -> bool:
    # "skip this step in battles with Buildings"; "the non-player does not" gain plunder.
    if setup.kind in ("building", "tiebreak"):
        return False
    return (setup.attacker if side == "attacker" else setup.defender).is_player


def tallies(tracker: Tracker, cubes: list[BoardCube] | None = None) -> dict[str, dict[str, int]]:
    """Per side: plunder cargo/coins, damage dealt, strength, as the board stands now (or as
    `cubes`, a provisional reading, would leave it)."""
    setup = tracker.setup
    out = {s: {"plunder_cargo": 0, "plunder_coins": 0, "damage": 0, "strength": 0} for s in SIDES}
    for cube in tracker.cubes if cubes is None else cubes:
        if cube.removed or cube.zone is None:
            continue
        if cube.color not in (setup.attacker.cube_color, setup.defender.cube_color):
            continue  # a stray cube in a provisional reading, or a tie-break's third side (`strengths`)
        side = tracker.side_of_color(cube.color)
        zone_id = tracker.resolving_zone(cube)
        zone = tracker.board.zones.get(zone_id) if zone_id is not None else None
        if zone is None:
            continue  # an unknown zone in a provisional reading; the session prompts for it
        if zone.kind == "plunder" and _gets_plunder(setup, side):
            out[side]["plunder_cargo"] += zone.cargo
            out[side]["plunder_coins"] += zone.coins
        elif zone.kind == "damage" and _takes_damage(setup, other(side)):
            out[side]["damage"] += 1
        elif zone.kind == "strength":
            out[side]["strength"] += zone.strength
    for side in SIDES:
        if _takes_damage(setup, other(side)):
            out[side]["damage"] += tracker.tally[side].ability_damage
    return out


def strengths(tracker: Tracker, cubes: list[BoardCube] | None = None) -> dict[str, int]:
    """Battle strength per side name, every side (the tie-break's too), as the board stands now."""
    out = {side.name: 0 for side in tracker.setup.sides()}
    for cube in tracker.cubes if cubes is None else cubes:
        owner = tracker.owner_of_color(cube.color)
        if cube.removed or owner is None:
            continue
        zone_id = tracker.resolving_zone(cube)
        zone = tracker.board.zones.get(zone_id) if zone_id is not None else None
        if zone is not None and zone.kind == "strength":
            out[owner.name] += zone.strength
    return out


def outcome_of(tracker: Tracker) -> BattleOutcome:
    """The outcome of a finished replay."""
    setup = tracker.setup
    if tracker.pending is not None:
        owed = tracker.pending
        what = ", ".join(f"{n} {c}" for c, n in owed.dropped.items() if n) or "no"
        raise BattleRecordError(
            f"The battle is not finished: the {owed.reason} drop ({what} cubes) is still owed."
        )
    t = tallies(tracker)
    a_str, d_str = t["attacker"]["strength"], t["defender"]["strength"]
    winner = "attacker" if a_str >= d_str else "defender"  # a tie goes to the active player
    results = {}
    for side in SIDES:
        tally = tracker.tally[side]
        coins = tally.ability_coins + (tally.coins_on_win if side == winner else 0)
        results[side] = SideResult(
            plunder_cargo=t[side]["plunder_cargo"],
            plunder_coins=t[side]["plunder_coins"],
            damage_dealt=t[side]["damage"],
            strength=t[side]["strength"],
            coins_from_abilities=coins,
        )
    returned: Counter[str] = Counter(tracker.set_aside)  # removed by abilities before a later drop
    for cube in tracker.cubes:  # on the board or removed by an ability: every cube goes home
        if not cube.ghost:
            returned[cube.color] += 1
    for color in tracker.colors():
        returned.setdefault(color, 0)
    return BattleOutcome(
        battle_id=setup.battle_id,
        winner=winner,  # type: ignore[arg-type]
        attacker=results["attacker"],
        defender=results["defender"],
        abilities_used=tuple(tracker.used),
        cubes_returned=dict(sorted(returned.items())),
        tied=a_str == d_str,
        # "The most Battle strength wins the game. If still tied, repeat the battle." (every side counts)
        strengths=strengths(tracker) if setup.kind == "tiebreak" else {},
    )


def resolve_battle(setup: BattleSetup, record: dict[str, Any]) -> BattleOutcome:
    """The outcome of a battle from its setup and its record; raises `BattleRecordError` if the
    record is not a finished, legal battle (the message says which step and what to do)."""
    return outcome_of(replay(setup, record))
