"""Builders shared by the battle tests: a small board, sides, setups and record steps."""

from __future__ import annotations

from typing import Any

from rules.battle import BattleAbility, BattleSetup, BattleSide

BOARD: dict[str, Any] = {
    "zones": {
        "explode": {"kind": "exploding"},
        "p-c2": {"kind": "plunder", "cargo": 2, "coins": 0},
        "p-k1": {"kind": "plunder", "cargo": 0, "coins": 1},
        "dmg": {"kind": "damage"},
        "s1": {"kind": "strength", "strength": 1},
        "s2": {"kind": "strength", "strength": 2},
        "miss": {"kind": "miss"},
    },
    "adjacent": [["explode", "s2"], ["dmg", "s2"], ["s1", "s2"], ["p-c2", "dmg"], ["miss", "s1"]],
}


def ab(id: str, effect: str, **params: Any) -> BattleAbility:
    return BattleAbility(id=id, source=id.split(":")[0], effect=effect, params=params)


def player(
    color: str, cubes: int, *abilities: BattleAbility, damage: int = 0, wheels: int = 0, pirate: bool = False
) -> BattleSide:
    return BattleSide(
        name=color,
        is_player=True,
        cube_color=color,
        cubes=cubes,
        abilities=tuple(abilities),
        damage=damage,
        wheels=wheels,
        pirate_mode=pirate,
    )


def black(name: str, cubes: int) -> BattleSide:
    return BattleSide(name=name, is_player=False, cube_color="black", cubes=cubes)


def setup(
    kind: str, attacker: BattleSide, defender: BattleSide, battle_id: str = "t1-b1", **kw: Any
) -> BattleSetup:
    return BattleSetup(
        battle_id=battle_id,
        kind=kind,  # type: ignore[arg-type]  # the tests name the kind as a plain string
        attacker=attacker,
        defender=defender,
        location="r1c1",
        **kw,
    )


def cubes(spec: str) -> list[dict[str, Any]]:
    """'red@s2 blue@dmg red@- red@dmg+s2' -> board cubes; '-' is a cube lying on a rail, 'a+b' a cube
    touching zones a and b (`zone` a, `zones` [a, b])."""
    out: list[dict[str, Any]] = []
    for token in spec.split():
        color, zone = token.split("@")
        if "+" in zone:
            zones = zone.split("+")
            out.append({"color": color, "zone": zones[0], "zones": zones})
        else:
            out.append({"color": color, "zone": None if zone == "-" else zone})
    return out


def drop(reason: str, spec: str, **kw: Any) -> dict[str, Any]:
    return {"step": "drop", "reason": reason, "board": cubes(spec), **kw}


def use(side: str, ability: str, **kw: Any) -> dict[str, Any]:
    return {"step": "ability", "side": side, "ability": ability, **kw}


def pass_(side: str) -> dict[str, Any]:
    return {"step": "pass", "side": side}


def record(
    s: BattleSetup,
    *steps: dict[str, Any],
    corrections: list[dict[str, Any]] | None = None,
    board: dict[str, Any] | None = None,
) -> dict[str, Any]:
    return {
        "schema": "smart-table/battle-record@1",
        "battle_id": s.battle_id,
        "board": board or BOARD,
        "steps": list(steps),
        "corrections": corrections or [],
    }
