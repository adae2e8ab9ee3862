"""The seam between the game and a battle.

The game engine builds a `BattleSetup` from its state when a battle starts (movement onto a
Pirate-mode ship, an Attack Flag, a Merchant ship, a building attack, the end-of-game tie-break)
and later applies a `BattleOutcome`. The battle module computes the outcome from the setup, the
final reading of the battle board and the players' ability choices. Both are plain, frozen,
JSON-serialisable dataclasses (`to_json` / `from_json`) so they travel in events and over MQTT.

Side names are "attacker" (always the active player) and "defender". The end-of-game tie-break among
three or more players ("A tied battle like this may involve more than 2 players at the same time") has
more sides: the first two tied players are `attacker` and `defender`, the rest are `more_sides`; only
strength decides it, per side (`BattleOutcome.strengths`, keyed by side name). Both new fields are left
out of the JSON when empty, so a two-sided battle's JSON is what it always was.

Resolution: `rules.battle.resolve_battle(setup, record) -> BattleOutcome`, where `record` is the
JSON battle record the refereeing session produces (every drop read, ability choices in order,
corrections, and the battle-board zones it was read against). The engine treats the record as
opaque and keeps it in its event, so a disputed battle replays exactly.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Literal

BattleKind = Literal["ship", "nonplayer", "building", "tiebreak"]
SideName = Literal["attacker", "defender"]


@dataclass(frozen=True, slots=True)
class BattleAbility:
    """A Battle ability a side may use in this battle (each at most once per turn).

    `effect` names the effect from the card data or the Sailor Card Reference, e.g.
    "drop_extra_cubes", "move_cube_adjacent", "remove_cube_for_damage_and_coins",
    "coins_per_wheel_on_win"; `params` carries its numbers (e.g. {"cubes": 2} or
    {"coins": 2, "damage": 1}).
    """

    id: str  # unique within the battle, e.g. "red:gunner-1:L4:a"
    source: str  # card id the ability comes from
    effect: str
    params: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class BattleSide:
    name: str  # a player colour, "merchant:<card id>", "building:<island square>"
    is_player: bool
    cube_color: str  # the colour of its cubes; "black" for a non-player or a building
    cubes: int  # battle cubes it drops in step 1, after every bonus and the supply limit
    abilities: tuple[BattleAbility, ...] = ()
    hold_room: tuple[int, ...] = ()  # free space in each hold, for plunder placement
    wheels: int = 0  # Wheel icons available to "per Wheel" abilities
    damage: int = 0  # damage on the ship before the battle (sinking is checked at 5)
    pirate_mode: bool = False


@dataclass(frozen=True, slots=True)
class BattleSetup:
    battle_id: str  # unique in the game, e.g. "t12-b1"
    kind: BattleKind
    attacker: BattleSide
    defender: BattleSide
    location: str  # square id like "r2c3", or "harbor"
    # The mover stopped on a Pirate-mode defender: losing means a blockade of that island.
    provoked_by_pirate: bool = False
    # Sides beyond the two (only the end-of-game tie-break among 3 or more players).
    more_sides: tuple[BattleSide, ...] = ()

    def sides(self) -> tuple[BattleSide, ...]:
        """Every side: attacker, defender, then the tie-break's further sides."""
        return (self.attacker, self.defender, *self.more_sides)

    def to_json(self) -> dict[str, Any]:
        return without_empty(asdict(self), OPTIONAL_FIELDS)

    @staticmethod
    def from_json(data: dict[str, Any]) -> BattleSetup:
        def side(d: dict[str, Any]) -> BattleSide:
            abilities = tuple(BattleAbility(**a) for a in d.get("abilities", ()))
            return BattleSide(**{**d, "abilities": abilities, "hold_room": tuple(d.get("hold_room", ()))})

        return BattleSetup(
            **{
                **data,
                "attacker": side(data["attacker"]),
                "defender": side(data["defender"]),
                "more_sides": tuple(side(d) for d in data.get("more_sides", ())),
            }
        )


@dataclass(frozen=True, slots=True)
class SideResult:
    plunder_cargo: int = 0
    plunder_coins: int = 0
    damage_dealt: int = 0  # damage this side deals to the other (zones and abilities)
    strength: int = 0
    coins_from_abilities: int = 0  # coins gained on the ship from Battle abilities


@dataclass(frozen=True, slots=True)
class BattleOutcome:
    battle_id: str
    winner: SideName
    attacker: SideResult
    defender: SideResult
    abilities_used: tuple[str, ...] = ()  # BattleAbility ids, now spent for the turn
    # Cubes per colour returned after the battle (own supply, or the black pool).
    cubes_returned: dict[str, int] = field(default_factory=dict)
    # Equal strength. The winner is still the attacker (the active player wins ties); only the
    # end-of-game tie-break looks at this ("if still tied, repeat the battle").
    tied: bool = False
    # Battle strength per side name; filled in the tie-break only, where every side's strength decides.
    strengths: dict[str, int] = field(default_factory=dict)

    def leaders(self) -> list[str]:
        """The tie-break's side names with the highest strength (more than one: still tied)."""
        if not self.strengths:
            return []
        best = max(self.strengths.values())
        return [name for name, n in self.strengths.items() if n == best]

    def to_json(self) -> dict[str, Any]:
        return without_empty(asdict(self), OPTIONAL_FIELDS)

    @staticmethod
    def from_json(data: dict[str, Any]) -> BattleOutcome:
        return BattleOutcome(
            **{
                **data,
                "attacker": SideResult(**data["attacker"]),
                "defender": SideResult(**data["defender"]),
                "abilities_used": tuple(data.get("abilities_used", ())),
            }
        )


# Fields added after the JSON format was fixed: left out when empty, so older readers and logs agree.
OPTIONAL_FIELDS = frozenset({"more_sides", "strengths"})


def without_empty(data: dict[str, Any], optional: frozenset[str]) -> dict[str, Any]:
    return {k: v for k, v in data.items() if k not in optional or v}
