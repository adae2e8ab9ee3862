"""Battle-only rules the game engine calls when it builds a `BattleSetup` or applies an outcome.

Owns: step-1 cube counts (`battle_cubes`, `building_cubes`), the Sailor cards' Battle abilities
(`sailor_battle_abilities`), and the arithmetic of a battle's end (`ship_damage_after`, `sinks`,
`sunk_sides`, `counts_for_legendary`, `sinking_coin_loss`). Pure functions of their arguments;
they never see the game state, so the engine decides what to pass in (see docs/battles.md).
"""

from __future__ import annotations

from dataclasses import dataclass

from rules.battle.contract import BattleAbility, BattleOutcome, BattleSetup, SideName

SINK_AT = 5  # "A Ship that has 5 or more Damage now sinks."
HARBOR_DEFENDER_BONUS = (
    4  # "If the player that was attacked is in Harbor, they get 4 additional Battle cubes."
)
FINAL_TURN_BONUS = (
    2  # "if a player who has taken their final turn is involved in a battle, they get 2 additional"
)
FORT_CUBES = 5
GARRISON_CUBES = 2
SINK_COIN_LOSS = 5


@dataclass(frozen=True, slots=True)
class CubeCount:
    wanted: int  # cubes the bonuses give
    cubes: int  # cubes actually dropped
    from_supply: int
    from_islands: int  # non-permanent cubes taken off islands; they do not go back after the battle


def battle_cubes(
    cannons: int,
    *,
    island_buildings: int = 0,
    defender_in_harbor: bool = False,
    after_final_turn: bool = False,
    supply: int | None = None,
    from_islands: int = 0,
) -> CubeCount:
    """Step 1 for a player's Ship.

    `cannons`: the Cannon icons the player chooses to use (the 1 printed on the Ship board counts,
    cards played this turn or out of turn as the defender; each Cannon at most once per turn: the
    engine passes only unused ones). `island_buildings`: Buildings on the island where the ship is,
    if the player controls it. `supply`: cubes left in the player's supply (None: unlimited);
    `from_islands`: how many non-permanent island cubes the player chooses to add when short.
    """
    if min(cannons, island_buildings, from_islands) < 0 or (supply is not None and supply < 0):
        raise ValueError("Cannons, buildings, supply and island cubes are counts: 0 or more.")
    wanted = (
        cannons
        + island_buildings
        + (HARBOR_DEFENDER_BONUS if defender_in_harbor else 0)
        + (FINAL_TURN_BONUS if after_final_turn else 0)
    )
    if supply is None:
        return CubeCount(wanted, wanted, wanted, 0)
    from_supply = min(wanted, supply)
    extra = min(from_islands, wanted - from_supply)  # only to make up what is missing
    return CubeCount(wanted, from_supply + extra, from_supply, extra)


def building_cubes(fort: bool, garrison: bool) -> int:
    """Black cubes of the defending Buildings: Fort 5, Garrison 2, both 7; no Cannons, no cards."""
    return (FORT_CUBES if fort else 0) + (GARRISON_CUBES if garrison else 0)


def sailor_battle_abilities(
    owner: str, card_id: str, sailor: str, level: int, wheels_on_card: int = 1
) -> tuple[BattleAbility, ...]:
    """The Battle abilities printed on a Sailor card's Ability card (Sailor Card Reference).

    Captain 3: win → 1 Coin per Wheel on the card; Captain 4: win → 2 Coins + 1 per Wheel (both only
    vs. Player or Merchant ships). Gunner 3: drop 2 cubes. Gunner 4: that, and remove one of your
    dropped cubes to deal 1 Damage and gain 2 Coins.
    """
    base = f"{owner}:{card_id}:L{level}"
    s = sailor.lower()
    if s == "captain" and level in (3, 4):
        params = {
            "base": 2 if level == 4 else 0,
            "per_wheel": 1,
            "wheels": wheels_on_card,
            "ship_battles_only": True,
        }
        return (BattleAbility(f"{base}:a", card_id, "coins_per_wheel_on_win", params),)
    if s == "gunner" and level == 3:
        return (BattleAbility(f"{base}:a", card_id, "drop_extra_cubes", {"cubes": 2}),)
    if s == "gunner" and level == 4:
        return (
            BattleAbility(f"{base}:a", card_id, "drop_extra_cubes", {"cubes": 2}),
            BattleAbility(
                f"{base}:b",
                card_id,
                "remove_cube_for_damage_and_coins",
                {"damage": 1, "coins": 2, "whose": "own"},
            ),
        )
    return ()


def sinks(damage: int) -> bool:
    return damage >= SINK_AT


def loser_damage(setup: BattleSetup) -> int:
    """The default 1 Damage for losing, in Ship and Building battles (a Merchant's Lose effect is card
    data)."""
    return 1 if setup.kind in ("ship", "building") else 0


def ship_damage_after(setup: BattleSetup, outcome: BattleOutcome, side: SideName) -> int:
    """Damage on `side`'s Ship at the end of the battle (before any sinking); 0 for a non-ship side."""
    me = setup.attacker if side == "attacker" else setup.defender
    if not me.is_player or setup.kind == "tiebreak":
        return 0
    them = outcome.defender if side == "attacker" else outcome.attacker
    lost = outcome.winner != side
    return me.damage + them.damage_dealt + (loser_damage(setup) if lost else 0)


def sunk_sides(setup: BattleSetup, outcome: BattleOutcome) -> tuple[SideName, ...]:
    """The sides whose Ship sinks at the end of the battle: both can, and a winner can."""
    sides: tuple[SideName, ...] = ("attacker", "defender")
    return tuple(s for s in sides if sinks(ship_damage_after(setup, outcome, s)))


def counts_for_legendary(setup: BattleSetup, outcome: BattleOutcome) -> bool:
    """A win with one's Ship against a Non-Player or an opponent's Ship (not a Building battle)."""
    if setup.kind not in ("ship", "nonplayer"):
        return False
    return (setup.attacker if outcome.winner == "attacker" else setup.defender).is_player


def sinking_coin_loss(coins_on_ship: int, coins_in_chest: int) -> tuple[int, int]:
    """(Coins lost from the Ship, Coins lost from the Treasure chest) when a Ship sinks.

    5 or more on the Ship: lose all of them; fewer: keep them and lose 5 from the chest (as many
    as it holds). The one who sank it gains the lost Coins; the engine moves them.
    """
    if coins_on_ship >= SINK_COIN_LOSS:
        return coins_on_ship, 0
    return 0, min(SINK_COIN_LOSS, coins_in_chest)
