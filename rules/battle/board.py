"""The battle board as the rules see it: zones (by id and kind) and which zones are adjacent.

The zone model is the one of the vision layout file (`smart-table/board-layout@1`) without the
geometry: `{"zones": {"dmg-1": {"kind": "damage"}, "str-2": {"kind": "strength", "strength": 2},
"plunder-c2": {"kind": "plunder", "cargo": 2, "coins": 0}, "explode": {"kind": "exploding"},
"miss": {"kind": "miss"}}, "adjacent": [["dmg-1", "str-2"]]}`. Owns parsing and validating it;
knows nothing of cameras or files (the caller reads the layout and hands over a dict).
"""

from __future__ import annotations

import marshal
from dataclasses import dataclass, field
from typing import Any

from contracts.zones import ZONE_KINDS
from rules.battle.errors import BattleRecordError


@dataclass(frozen=True, slots=True)
class Zone:
    id: str
    kind: str
    cargo: int = 0  # plunder zones: Cargo gained per cube
    coins: int = 0  # plunder zones: Coins gained per cube
    strength: int = 0  # strength zones: Battle strength per cube (1 or 2 on the printed board)


@dataclass(frozen=True, slots=True)
class BattleBoard:
    zones: dict[str, Zone]
    adjacent: frozenset[frozenset[str]]
    # the JSON form, marshalled, made on the first `to_json` (a board never changes once built)
    json_bytes: list[bytes] = field(default_factory=list, compare=False, repr=False)

    def is_adjacent(self, a: str, b: str) -> bool:
        return frozenset((a, b)) in self.adjacent

    def ids_of(self, kind: str) -> list[str]:
        return [z.id for z in self.zones.values() if z.kind == kind]

    def to_json(self) -> dict[str, Any]:
        """The zone model as JSON data (a fresh copy each call: the caller may keep or edit it)."""
        if self.json_bytes:
            again: dict[str, Any] = marshal.loads(self.json_bytes[0])
            return again
        out = self._to_json()
        self.json_bytes.append(marshal.dumps(out))
        return out

    def _to_json(self) -> dict[str, Any]:
        zones: dict[str, Any] = {}
        for z in self.zones.values():
            entry: dict[str, Any] = {"kind": z.kind}
            if z.kind == "plunder":
                entry.update(cargo=z.cargo, coins=z.coins)
            elif z.kind == "strength":
                entry["strength"] = z.strength
            zones[z.id] = entry
        pairs = sorted(sorted(p) for p in self.adjacent)
        return {"zones": zones, "adjacent": pairs}


def _int_field(zone_id: str, entry: dict[str, Any], key: str) -> int:
    value = entry.get(key, 0)
    if not isinstance(value, int) or isinstance(value, bool) or value < 0:
        raise BattleRecordError(f"Zone {zone_id!r}: '{key}' must be a whole number 0 or more, got {value!r}.")
    return value


_PARSED: dict[bytes, BattleBoard] = {}  # a table uses one or two boards: each parsed once (read-only results)


def board_from_json(data: Any) -> BattleBoard:
    """Parse the zone model; every error names the field and says what to fix. Valid boards are memoised on
    their content (every battle of a game, and every step of its record, reads the same board)."""
    try:
        key = marshal.dumps(data)
    except ValueError:  # not plain data: parse (and refuse) it below without memoising
        return _parse_board(data)
    board = _PARSED.get(key)
    if board is None:
        board = _parse_board(data)
        if len(_PARSED) < 64:
            _PARSED[key] = board
    return board


def _parse_board(data: Any) -> BattleBoard:
    if not isinstance(data, dict) or not isinstance(data.get("zones"), dict) or not data["zones"]:
        raise BattleRecordError(
            "The battle board needs 'zones': an object mapping zone ids to {'kind': ...}."
        )
    zones: dict[str, Zone] = {}
    for zone_id, entry in data["zones"].items():
        if not isinstance(entry, dict) or entry.get("kind") not in ZONE_KINDS:
            raise BattleRecordError(
                f"Zone {zone_id!r}: 'kind' must be one of {', '.join(ZONE_KINDS)}, got {entry!r}."
            )
        kind = entry["kind"]
        zone = Zone(
            id=zone_id,
            kind=kind,
            cargo=_int_field(zone_id, entry, "cargo") if kind == "plunder" else 0,
            coins=_int_field(zone_id, entry, "coins") if kind == "plunder" else 0,
            strength=_int_field(zone_id, entry, "strength") if kind == "strength" else 0,
        )
        if kind == "strength" and zone.strength == 0:
            raise BattleRecordError(f"Zone {zone_id!r}: a strength zone needs 'strength' (1 or 2).")
        zones[zone_id] = zone
    pairs: set[frozenset[str]] = set()
    for pair in data.get("adjacent", []) or []:
        if not isinstance(pair, (list, tuple)) or len(pair) != 2 or pair[0] == pair[1]:
            raise BattleRecordError(
                f"'adjacent' entries must be pairs of two different zone ids, got {pair!r}."
            )
        for zone_id in pair:
            if zone_id not in zones:
                raise BattleRecordError(f"'adjacent' names zone {zone_id!r}, which is not in 'zones'.")
        pairs.add(frozenset(pair))
    return BattleBoard(zones=zones, adjacent=frozenset(pairs))


def board_from_layout(layout: dict[str, Any]) -> dict[str, Any]:
    """The zone model (JSON) of a vision layout dict (`smart-table/board-layout@1`): drops the geometry."""
    if not isinstance(layout, dict) or not isinstance(layout.get("zones"), list):
        raise BattleRecordError("A board layout needs 'zones': a list of {'id', 'kind', ...} objects.")
    zones: dict[str, Any] = {}
    for entry in layout["zones"]:
        if not isinstance(entry, dict) or "id" not in entry:
            raise BattleRecordError(f"Each layout zone needs an 'id', got {entry!r}.")
        zones[entry["id"]] = {k: v for k, v in entry.items() if k in ("kind", "cargo", "coins", "strength")}
    model = {"zones": zones, "adjacent": [list(p) for p in layout.get("adjacent", [])]}
    board_from_json(model)  # validate now, so a bad layout is refused before a battle starts
    return model


# A reconstruction of the printed battle board, for simulation and tests when no layout is given.
# The real table passes the zones of its layout file (see docs/battles.md).
DEFAULT_BOARD: dict[str, Any] = {
    "zones": {
        "explode": {"kind": "exploding"},
        "plunder-c1": {"kind": "plunder", "cargo": 1, "coins": 0},
        "plunder-c2": {"kind": "plunder", "cargo": 2, "coins": 0},
        "plunder-k1": {"kind": "plunder", "cargo": 0, "coins": 1},
        "plunder-k2": {"kind": "plunder", "cargo": 0, "coins": 2},
        "dmg-1": {"kind": "damage"},
        "dmg-2": {"kind": "damage"},
        "str-1a": {"kind": "strength", "strength": 1},
        "str-1b": {"kind": "strength", "strength": 1},
        "str-2": {"kind": "strength", "strength": 2},
        "miss": {"kind": "miss"},
    },
    "adjacent": [
        ["explode", "str-2"],
        ["explode", "dmg-1"],
        ["dmg-1", "str-2"],
        ["dmg-2", "str-2"],
        ["str-1a", "str-2"],
        ["str-1b", "str-2"],
        ["plunder-c1", "str-1a"],
        ["plunder-c2", "dmg-1"],
        ["plunder-k1", "str-1b"],
        ["plunder-k2", "dmg-2"],
        ["miss", "plunder-c1"],
        ["miss", "plunder-k1"],
    ],
}
