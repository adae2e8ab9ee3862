"""The battle record and its replay: the single place where the steps of a battle are checked.

A record is plain JSON (documented in docs/battles.md):

    {"schema": "smart-table/battle-record@1", "battle_id": "t12-b1",
     "board": {"zones": {...}, "adjacent": [[a, b], ...]},
     "steps": [
       {"step": "drop", "reason": "initial", "board": [{"color": "red", "zone": "dmg-1"}, ...]},
       {"step": "drop", "reason": "rail" | "exploding" | "ability", "board": [...]},
       {"step": "ability", "side": "attacker", "ability": "<id>", "cube": 3, "to": "str-2"},
       {"step": "pass", "side": "defender"}],
     "corrections": [{"step": 0, "cube": 2, "zone": "str-2", "by": "blue"}]}

Each drop step holds the WHOLE board as read after that drop settled (a new drop can knock the
cubes already lying there, so only a fresh reading of everything is the truth); `zone: null` is a
cube lying only on a raised rail. Cube numbers in ability steps and corrections are indexes into
the board of the latest drop step before them. Extra keys (readings, tower counts, times, who)
are evidence kept for disputes and ignored here.

`Tracker` replays the steps in order and refuses the first one that breaks a rule with a
`BattleRecordError`. The resolution (`resolve.py`) and the refereeing session (`session.py`)
both use it, so they can never disagree about what is legal.
"""

from __future__ import annotations

import copy
import marshal
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from rules.battle.board import BattleBoard, board_from_json
from rules.battle.contract import BattleAbility, BattleSetup, BattleSide
from rules.battle.errors import BattleRecordError

RECORD_SCHEMA = "smart-table/battle-record@1"

EFFECTS: tuple[str, ...] = (
    "drop_extra_cubes",  # params: cubes
    "move_cube_adjacent",  # params: whose ("any" | "own" | "opponent"; default "any")
    "remove_cube_for_damage_and_coins",  # params: damage (1), coins (2), whose (default "own")
    "coins_per_wheel_on_win",  # params: coins | base, per_wheel, wheels (see coins_of); ship_battles_only
    "coins_per_wheel",  # the same params: gained at once
    "extra_damage",  # params: damage (1): dealt to the opponent at once
    "redrop_cube",  # params: whose (default "own"): pick one cube up and drop it again
)


def coins_of(params: dict[str, Any], wheels: int) -> int:
    """Coins of a per-Wheel ability: `coins` (a total the engine already worked out) or `base`,
    plus `per_wheel` x `wheels` (per_wheel defaults to 1 without `coins`, to 0 with it)."""
    per_wheel = int(params.get("per_wheel", 0 if "coins" in params else 1))
    return int(params.get("coins", params.get("base", 0))) + per_wheel * int(params.get("wheels", wheels))


DROP_REASONS = ("initial", "rail", "exploding", "ability")
# The rulebook's order of resolving the cubes ("Resolve the cubes in the following order"); a miss zone
# does nothing, so a cube touching a miss zone and another is resolved by the other.
STEP_ORDER = {"exploding": 0, "plunder": 1, "damage": 2, "strength": 3, "miss": 4}
SIDES = ("attacker", "defender")


def other(side: str) -> str:
    return "defender" if side == "attacker" else "attacker"


@dataclass(slots=True)
class BoardCube:
    color: str
    zone: str | None  # None: lying only on a raised rail, to be re-dropped
    removed: bool = False  # taken off the board by a Battle ability
    ghost: bool = False  # a reading corrected as "not a cube of this battle"; only keeps indexes stable
    # Every zone the cube touches when it touches 2 or more ("If any part of a cube is touching a zone, that
    # cube is considered to be in that zone"); empty: in `zone` only.
    zones: tuple[str, ...] = ()

    def touching(self) -> tuple[str, ...]:
        """The zones the cube is in (none on a rail)."""
        if self.zones:
            return self.zones
        return () if self.zone is None else (self.zone,)


@dataclass(frozen=True, slots=True)
class PendingDrop:
    """The drop the table owes before the battle can go on."""

    reason: str
    dropped: dict[str, int]  # cubes per colour to drop
    expected: dict[str, int]  # cubes per colour on the board once that drop has landed
    ability: str | None = None  # the ability that asked for it
    cubes: tuple[int, ...] = ()  # rail / exploding: indexes (latest board) of the cubes picked up


@dataclass(slots=True)
class SideTally:
    ability_damage: int = 0
    ability_coins: int = 0
    coins_on_win: int = 0


@dataclass(slots=True)
class Tracker:
    setup: BattleSetup
    board: BattleBoard
    cubes: list[BoardCube] = field(default_factory=list)
    board_step: int | None = None  # index of the drop step the current board comes from
    pending: PendingDrop | None = None
    used: list[str] = field(default_factory=list)
    tally: dict[str, SideTally] = field(default_factory=lambda: {s: SideTally() for s in SIDES})
    turn: str = "attacker"
    passes_in_row: int = 0
    closed: bool = False  # the Battle abilities step ended by passing
    steps_done: int = 0
    drops: int = 0
    exploding_shots: dict[str, int] = field(default_factory=dict)  # cubes that exploded, per colour
    # Cubes an ability took off the board before a later drop replaced the board reading.
    set_aside: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        sides = self.setup.sides()
        seen_colors: set[str] = set()
        for side in sides:
            if side.cube_color in seen_colors:
                raise BattleRecordError(
                    f"Two sides drop {side.cube_color} cubes: the camera could not tell them apart; "
                    "give one side another colour."
                )
            seen_colors.add(side.cube_color)
        if self.setup.more_sides and self.setup.kind != "tiebreak":
            raise BattleRecordError("Only the end-of-game tie-break has more than two sides.")
        for side in sides:
            if side.cubes < 0:
                raise BattleRecordError(f"{side.name} has {side.cubes} battle cubes; it must be 0 or more.")
            for ab in side.abilities:
                if ab.effect not in EFFECTS:
                    raise BattleRecordError(
                        f"Ability {ab.id!r} has effect {ab.effect!r}, which is unknown; "
                        f"use one of {', '.join(EFFECTS)}."
                    )
        initial = {side.cube_color: side.cubes for side in sides}
        self.pending = PendingDrop("initial", initial, dict(initial))

    # --- who is who ---------------------------------------------------------------------------------
    def side(self, name: str) -> BattleSide:
        return self.setup.attacker if name == "attacker" else self.setup.defender

    def side_of_color(self, color: str) -> str:
        return "attacker" if color == self.setup.attacker.cube_color else "defender"

    def colors(self) -> tuple[str, ...]:
        """The cube colours of this battle, one per side."""
        return tuple(side.cube_color for side in self.setup.sides())

    def owner_of_color(self, color: str) -> BattleSide | None:
        return next((side for side in self.setup.sides() if side.cube_color == color), None)

    def resolving_zone(self, cube: BoardCube) -> str | None:
        """The zone whose step resolves `cube`, by the rulebook's order: a cube touching several zones is in
        each, and the earliest step takes it (exploding shots first; plunder and damage remove the cube
        before strength counts). Within one step it counts once, at the zone best for its owner: the
        highest strength, the largest plunder (Coins before Cargo on equal totals). Plunder is skipped in
        Building battles, so a cube there goes on to its damage or strength zone."""
        touching = cube.touching()
        if len(touching) <= 1:
            return touching[0] if touching else None
        zones = self.board.zones
        known = [z for z in touching if z in zones]
        if not known:
            return touching[0]

        def rank(z: str) -> tuple[int, int, int]:
            zone = zones[z]
            if zone.kind == "plunder" and self.setup.kind == "building":
                return (STEP_ORDER["miss"], 0, 0)  # "skip this step in battles with Buildings"
            value = {
                "plunder": (zone.cargo + zone.coins, zone.coins),
                "strength": (zone.strength, 0),
            }.get(zone.kind, (0, 0))
            return (STEP_ORDER.get(zone.kind, STEP_ORDER["miss"]), -value[0], -value[1])

        return min(known, key=rank)

    def counts(self) -> Counter[str]:
        return Counter(c.color for c in self.cubes if not c.removed)

    # --- abilities ------------------------------------------------------------------------------------
    def usable(self, side: str) -> list[BattleAbility]:
        """Abilities `side` may still use in this battle."""
        kind = self.setup.kind
        if kind == "tiebreak" or (kind in ("nonplayer", "building") and side == "defender"):
            return []
        out = []
        for ab in self.side(side).abilities:
            if ab.id in self.used:
                continue
            # "Ship vs. Ship battles (vs. Player ships or Merchant ships)" only, when the card says so.
            if ab.params.get("ship_battles_only") and kind not in ("ship", "nonplayer"):
                continue
            out.append(ab)
        return out

    def next_to_act(self) -> str | None:
        """The side whose Battle ability (or pass) is awaited; None while a drop is owed or when done."""
        if self.pending is not None or self.closed:
            return None
        if self.setup.kind in ("nonplayer", "building"):
            return "attacker" if self.usable("attacker") else None
        if self.setup.kind != "ship":
            return None
        turn, passes = self.turn, self.passes_in_row
        while passes < 2:
            if self.usable(turn):
                return turn
            passes, turn = passes + 1, other(turn)  # nothing left to use: an implicit pass
        return None

    @property
    def done(self) -> bool:
        return self.pending is None and self.next_to_act() is None

    def _take_turn(self, side: object, what: str) -> str:
        """Check that `side` (as the record gives it) may take a Battle-ability turn now; returns it."""
        if not isinstance(side, str) or side not in SIDES:
            raise BattleRecordError(f"A {what} step needs 'side': 'attacker' or 'defender', got {side!r}.")
        if self.pending is not None:
            raise BattleRecordError(
                f"A {what} came before the {self.pending.reason} drop the table owed; record that drop first."
            )
        kind = self.setup.kind
        if kind == "tiebreak":
            raise BattleRecordError("The end-of-game tie-break resolves no Battle abilities.")
        if kind in ("nonplayer", "building") and side != "attacker":
            against = "a non-player" if kind == "nonplayer" else "a building"
            raise BattleRecordError(f"Only the attacker uses Battle abilities in a battle against {against}.")
        if self.closed:
            raise BattleRecordError("The Battle abilities step is over: it ended with passes.")
        if kind != "ship":
            return side
        while side != self.turn:
            if self.usable(self.turn):
                raise BattleRecordError(
                    f"It is the {self.turn}'s turn to use a Battle ability or pass, not the {side}'s."
                )
            self._pass()  # the side to act had nothing left: that is a pass
            if self.closed:
                raise BattleRecordError("The Battle abilities step is over: both sides passed in a row.")
        return side

    def _pass(self) -> None:
        if self.setup.kind != "ship":
            self.closed = True
            return
        self.passes_in_row += 1
        self.turn = other(self.turn)
        if self.passes_in_row >= 2:
            self.closed = True

    def _cube(self, step: dict[str, Any], ab: BattleAbility, side: str, default_whose: str) -> BoardCube:
        index = step.get("cube")
        if not isinstance(index, int) or isinstance(index, bool) or not 0 <= index < len(self.cubes):
            raise BattleRecordError(
                f"Ability {ab.id!r} needs 'cube': the number of a cube on the board (0 to "
                f"{len(self.cubes) - 1})."
            )
        cube = self.cubes[index]
        if cube.ghost:
            raise BattleRecordError(
                f"Cube {index} was corrected as not a cube of this battle; pick another cube."
            )
        if cube.removed:
            raise BattleRecordError(f"Cube {index} was already removed from the board; pick another cube.")
        whose = ab.params.get("whose", default_whose)
        own = self.side(side).cube_color
        if whose == "own" and cube.color != own:
            raise BattleRecordError(
                f"Ability {ab.id!r} works on one of your own ({own}) cubes; cube {index} is {cube.color}."
            )
        if whose == "opponent" and cube.color == own:
            raise BattleRecordError(f"Ability {ab.id!r} works on an opponent's cube; cube {index} is yours.")
        return cube

    def _ability(self, step: dict[str, Any]) -> None:
        side = self._take_turn(step.get("side"), "Battle ability")
        ab_id = step.get("ability")
        ab = next((a for a in self.side(side).abilities if a.id == ab_id), None)
        if ab is None:
            raise BattleRecordError(f"The {side} has no Battle ability {ab_id!r} in this battle.")
        if ab.id in self.used:
            raise BattleRecordError(
                f"Ability {ab.id!r} was already used this turn; each is used at most once."
            )
        if ab not in self.usable(side):
            raise BattleRecordError(f"Ability {ab.id!r} cannot be used in a {self.setup.kind} battle.")
        tally = self.tally[side]
        p = ab.params
        if ab.effect == "drop_extra_cubes":
            n = int(p.get("cubes", 0))
            color = self.side(side).cube_color
            if n > 0:
                expected = dict(self.counts())
                expected[color] = expected.get(color, 0) + n
                self.pending = PendingDrop("ability", {color: n}, expected, ability=ab.id)
        elif ab.effect == "move_cube_adjacent":
            cube = self._cube(step, ab, side, "any")
            to = step.get("to")
            if to not in self.board.zones:
                raise BattleRecordError(f"Ability {ab.id!r} needs 'to': a zone id of the board, got {to!r}.")
            if not any(self.board.is_adjacent(z, to) for z in cube.touching()):
                raise BattleRecordError(
                    f"Zone {to!r} is not adjacent to {cube.zone!r}; move the cube to a neighbouring zone."
                )
            cube.zone, cube.zones = to, ()
            self._after_board_change()  # moved into the exploding zone: back to step 1
        elif ab.effect == "remove_cube_for_damage_and_coins":
            cube = self._cube(step, ab, side, "own")
            cube.removed = True
            tally.ability_damage += int(p.get("damage", 1))
            tally.ability_coins += int(p.get("coins", 2))
        elif ab.effect == "coins_per_wheel_on_win":
            tally.coins_on_win += coins_of(p, self.side(side).wheels)
        elif ab.effect == "coins_per_wheel":
            tally.ability_coins += coins_of(p, self.side(side).wheels)
        elif ab.effect == "extra_damage":
            tally.ability_damage += int(p.get("damage", 1))
        elif ab.effect == "redrop_cube":
            cube = self._cube(step, ab, side, "own")
            if cube.zone is None:
                raise BattleRecordError(
                    "That cube lies on a rail and is re-dropped anyway; pick a cube in a zone."
                )
            cube.removed = cube.ghost = True  # lifted: it lands again in the next reading, not a new cube
            expected = dict(self.counts())
            expected[cube.color] = expected.get(cube.color, 0) + 1
            self.pending = PendingDrop("ability", {cube.color: 1}, expected, ability=ab.id)
        self.used.append(ab.id)
        if self.setup.kind == "ship":
            self.passes_in_row = 0
            self.turn = other(side)

    # --- drops ----------------------------------------------------------------------------------------
    def _after_board_change(self) -> None:
        """Work out the re-drop the board now calls for: rail cubes first, then exploding shots."""
        now = dict(self.counts())
        rail = [i for i, c in enumerate(self.cubes) if not c.removed and c.zone is None]
        if rail:
            dropped = Counter(self.cubes[i].color for i in rail)
            self.pending = PendingDrop("rail", dict(dropped), now, cubes=tuple(rail))
            return
        # a cube touching the exploding zone explodes, whatever else it touches (step 1 comes first)
        boom = [
            i
            for i, c in enumerate(self.cubes)
            if not c.removed and any(self.board.zones[z].kind == "exploding" for z in c.touching())
        ]
        if boom:
            n = Counter(self.cubes[i].color for i in boom)
            expected = {c: now.get(c, 0) + n.get(c, 0) for c in set(now) | set(n)}
            self.pending = PendingDrop(
                "exploding", {c: 2 * k for c, k in n.items()}, expected, cubes=tuple(boom)
            )
            return
        self.pending = None

    def _drop(self, step: dict[str, Any]) -> None:
        reason = step.get("reason")
        if reason not in DROP_REASONS:
            raise BattleRecordError(
                f"A drop step needs 'reason': one of {', '.join(DROP_REASONS)}, got {reason!r}."
            )
        owed = self.pending
        if owed is None:
            raise BattleRecordError(f"No drop was owed when this {reason} drop was recorded.")
        if owed.reason != reason:
            raise BattleRecordError(
                f"The table owed the {owed.reason} drop, but a {reason} drop was recorded."
            )
        if reason == "ability" and step.get("ability") not in (None, owed.ability):
            raise BattleRecordError(
                f"This drop was owed to ability {owed.ability!r}, not {step.get('ability')!r}."
            )
        if "dropped" in step and {k: v for k, v in step["dropped"].items() if v} != {
            k: v for k, v in owed.dropped.items() if v
        }:
            raise BattleRecordError(
                f"The {reason} drop should be {owed.dropped}, the record says {step['dropped']}."
            )
        raw = step.get("board")
        if not isinstance(raw, list):
            raise BattleRecordError("A drop step needs 'board': the list of cubes read on the board.")
        colors = self.colors()
        cubes: list[BoardCube] = []
        for i, c in enumerate(raw):
            if isinstance(c, dict) and c.get("ghost"):
                cubes.append(
                    BoardCube(str(c.get("color")), None, removed=True, ghost=True)
                )  # keeps indexes stable
                continue
            if not isinstance(c, dict) or c.get("color") not in colors:
                raise BattleRecordError(
                    f"Cube {i} of the {reason} drop is {c!r}; this battle only has "
                    f"{' and '.join(colors)} cubes."
                )
            zone = c.get("zone")
            if zone is not None and zone not in self.board.zones:
                raise BattleRecordError(
                    f"Cube {i} lies in zone {zone!r}, which the battle board does not have."
                )
            cubes.append(BoardCube(c["color"], zone, zones=self._zones_of(i, c, zone)))
        seen = Counter(c.color for c in cubes if not c.ghost)
        for color in colors:
            if seen.get(color, 0) != owed.expected.get(color, 0):
                raise BattleRecordError(
                    f"After the {reason} drop the board shows {seen.get(color, 0)} {color} cubes; "
                    f"{owed.expected.get(color, 0)} should be there. Find the missing or extra cube and "
                    "correct the reading."
                )
        if reason == "exploding":
            for i in owed.cubes:
                color = self.cubes[i].color
                self.exploding_shots[color] = self.exploding_shots.get(color, 0) + 1
        for old in self.cubes:
            if old.removed and not old.ghost:
                self.set_aside[old.color] = self.set_aside.get(old.color, 0) + 1
        self.cubes = cubes
        self.board_step = self.steps_done
        self.drops += 1
        self._after_board_change()

    def _zones_of(self, i: int, c: dict[str, Any], zone: str | None) -> tuple[str, ...]:
        """A cube's `zones` (every zone it touches, beside `zone`, the first of them), checked."""
        raw = c.get("zones")
        if raw is None:
            return ()
        if not isinstance(raw, list) or not raw or not all(isinstance(z, str) for z in raw):
            raise BattleRecordError(
                f"Cube {i} has 'zones': {raw!r}; give the list of zone ids the cube touches."
            )
        for z in raw:
            if z not in self.board.zones:
                raise BattleRecordError(f"Cube {i} touches zone {z!r}, which the battle board does not have.")
        if zone is not None and zone not in raw:
            raise BattleRecordError(
                f"Cube {i} lies in zone {zone!r} but its 'zones' {raw} leave it out; 'zone' is the first of "
                "'zones'."
            )
        unique = tuple(dict.fromkeys(raw))
        return unique if len(unique) > 1 else ()

    # --- the whole record -----------------------------------------------------------------------------
    def apply(self, step: dict[str, Any]) -> None:
        if not isinstance(step, dict):
            raise BattleRecordError(
                f"Step {self.steps_done} is {step!r}; each step is an object with 'step'."
            )
        kind = step.get("step")
        if kind == "drop":
            self._drop(step)
        elif kind == "ability":
            self._ability(step)
        elif kind == "pass":
            self._take_turn(step.get("side"), "pass")
            self._pass()
        else:
            raise BattleRecordError(
                f"Step {self.steps_done} has 'step': {kind!r}; use drop, ability or pass."
            )
        self.steps_done += 1


def corrected_steps(record: dict[str, Any], board: BattleBoard) -> list[dict[str, Any]]:
    """The steps with every correction applied (the last correction of a cube wins)."""
    steps = record.get("steps")
    if not isinstance(steps, list):
        raise BattleRecordError("A battle record needs 'steps': a list of drop, ability and pass steps.")
    try:  # plain JSON-like data (the usual case): marshal copies it, shared parts included, far faster
        steps = marshal.loads(marshal.dumps(steps))
    except ValueError:  # something marshal cannot write: copy it the general way
        steps = copy.deepcopy(steps)
    for n, corr in enumerate(record.get("corrections", []) or []):
        if not isinstance(corr, dict):
            raise BattleRecordError(
                f"Correction {n} is {corr!r}; it must be an object with 'step', 'cube', 'zone'."
            )
        s, i = corr.get("step"), corr.get("cube")
        if not isinstance(s, int) or not 0 <= s < len(steps) or steps[s].get("step") != "drop":
            raise BattleRecordError(f"Correction {n} names step {s!r}, which is not a drop in this battle.")
        cubes = steps[s].get("board", [])
        if "add" in corr:  # a cube the camera could not see (hidden under another)
            added = corr["add"]
            if not isinstance(added, dict) or added.get("zone") not in board.zones:
                raise BattleRecordError(
                    f"Correction {n} adds {added!r}; give the cube's 'color' and a board 'zone'."
                )
            cubes.append({"color": added.get("color"), "zone": added["zone"], "added": True})
            continue
        if not isinstance(i, int) or not 0 <= i < len(cubes):
            raise BattleRecordError(
                f"Correction {n} names cube {i!r}; that drop has cubes 0 to {len(cubes) - 1}."
            )
        if corr.get("remove"):  # not a cube of this battle (a stray object, a double detection)
            cubes[i]["ghost"] = True
        if "zone" in corr:
            if corr["zone"] is not None and corr["zone"] not in board.zones:
                raise BattleRecordError(
                    f"Correction {n} puts the cube in zone {corr['zone']!r}, which the board lacks."
                )
            cubes[i]["zone"] = corr["zone"]
            cubes[i].pop("zones", None)  # one zone named: in that zone only
        if "zones" in corr:  # a cube touching two or more zones: in each of them
            zs = corr["zones"]
            if (
                not isinstance(zs, list)
                or not zs
                or not all(isinstance(z, str) and z in board.zones for z in zs)
            ):
                raise BattleRecordError(
                    f"Correction {n} gives 'zones' {zs!r}; list the board's zone ids the cube touches."
                )
            cubes[i]["zone"] = zs[0]
            cubes[i]["zones"] = list(zs)
        if "color" in corr:
            cubes[i]["color"] = corr["color"]
    return steps


def replay(setup: BattleSetup, record: dict[str, Any]) -> Tracker:
    """Replay a whole record (corrections applied); raises `BattleRecordError` at the first bad step."""
    if not isinstance(record, dict):
        raise BattleRecordError("A battle record must be a JSON object with 'board' and 'steps'.")
    if record.get("battle_id", setup.battle_id) != setup.battle_id:
        raise BattleRecordError(
            f"This record is of battle {record.get('battle_id')!r}, not {setup.battle_id!r}; use the "
            "matching record."
        )
    board = board_from_json(record.get("board"))
    tracker = Tracker(setup, board)
    for step in corrected_steps(record, board):
        try:
            tracker.apply(step)
        except BattleRecordError as exc:
            raise BattleRecordError(f"Step {tracker.steps_done}: {exc.message}") from None
    return tracker
