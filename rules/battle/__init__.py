"""Battles: the five steps for Player vs Non-Player, Player vs Player and Player vs Building.

`contract` holds the two values that cross the seam between the game and a battle: the
`BattleSetup` the game builds when a battle starts and the `BattleOutcome` it applies when the
battle ends. Resolution (`resolve_battle`), the record format (`record`), battle-only helper
rules (`helpers`), random records for simulation (`simulate`) and the refereeing session
(`session`) live beside it; they never touch `GameState`. Format and split: docs/battles.md.
"""

from rules.battle.board import DEFAULT_BOARD, BattleBoard, board_from_json, board_from_layout
from rules.battle.contract import BattleAbility, BattleOutcome, BattleSetup, BattleSide, SideResult
from rules.battle.errors import BattleRecordError
from rules.battle.helpers import (
    CubeCount,
    battle_cubes,
    building_cubes,
    counts_for_legendary,
    loser_damage,
    sailor_battle_abilities,
    ship_damage_after,
    sinking_coin_loss,
    sinks,
    sunk_sides,
)
from rules.battle.record import RECORD_SCHEMA, Tracker, replay
from rules.battle.resolve import resolve_battle
from rules.battle.simulate import new_record, random_record

__all__ = [
    "DEFAULT_BOARD",
    "RECORD_SCHEMA",
    "BattleAbility",
    "BattleBoard",
    "BattleOutcome",
    "BattleRecordError",
    "BattleSetup",
    "BattleSide",
    "CubeCount",
    "SideResult",
    "Tracker",
    "battle_cubes",
    "board_from_json",
    "board_from_layout",
    "building_cubes",
    "counts_for_legendary",
    "loser_damage",
    "new_record",
    "random_record",
    "replay",
    "resolve_battle",
    "sailor_battle_abilities",
    "ship_damage_after",
    "sinking_coin_loss",
    "sinks",
    "sunk_sides",
]
