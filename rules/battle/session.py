"""The refereeing session of one battle: a pure state machine the controller feeds.

Inputs (each with `now`, the controller's clock in seconds; the session reads no clock):
- `tower(counts)`: cubes per colour the tower has counted for the drop it waits for (the total
  so far for this drop, from the bridge's CUBE_DROPPED / TOWER_QUIET events);
- `camera(reading, settled)`: the exact JSON of `smart-table vision read` and whether the board has
  been still long enough (the settle gate);
- players' acts: `use_ability`, `pass_turn`, `correct`, `cube_lost`, `adjust_tower`; `tick` for the
  optional ability timeout (a table setting; off by default).

A drop is accepted only when the tower counted exactly the cubes owed, the camera sees exactly the
cubes that must now be on the board, every cube is placed with confidence, and the board is
settled; until then the reading is provisional and every mismatch is a `Prompt` (never a guess).
Outputs: `prompts()`, `view()` (JSON for the table display) and `record` (the battle record for
`resolve_battle`, with every reading as evidence). Refused acts raise `BattleRecordError` and change
nothing. The session owns no game state; the engine applies `outcome`.
"""

from __future__ import annotations

import copy
from collections import Counter
from dataclasses import asdict, dataclass, field
from typing import Any

from rules.battle.contract import BattleOutcome, BattleSetup
from rules.battle.errors import BattleRecordError
from rules.battle.record import SIDES, BoardCube, PendingDrop, Tracker, corrected_steps, replay
from rules.battle.resolve import outcome_of, strengths, tallies
from rules.battle.simulate import new_record

READING_STATUSES = ("ok", "redrop", "ambiguous", "no-board")


@dataclass(frozen=True, slots=True)
class Prompt:
    """Something the table or one player must do. `to` is a player colour or "table"."""

    kind: str  # drop, redrop-rail, redrop-exploding, ability-drop, ability, settling, missing-cube,
    #            extra-cube, stray-cube, ambiguous-cube, unknown-zone, no-board, result
    to: str
    text: str
    data: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True, slots=True)
class SessionSettings:
    # Seconds of silence after which an ability prompt counts as a pass; None: never (the default,
    # because a player thinking is not a player passing).
    ability_timeout_s: float | None = None
    # A cube read below this confidence is treated like one the reader called ambiguous.
    min_confidence: float = 0.5


def _plural(n: int, color: str) -> str:
    return f"{n} {color} cube{'s' if n != 1 else ''}"


def _list(counts: dict[str, int]) -> str:
    parts = [_plural(n, c) for c, n in sorted(counts.items()) if n]
    return " and ".join(parts) if parts else "no cubes"


class BattleSession:
    def __init__(
        self,
        setup: BattleSetup,
        board: dict[str, Any] | None = None,
        settings: SessionSettings | None = None,
        now: float = 0.0,
    ) -> None:
        self.setup = setup
        self.settings = settings or SessionSettings()
        self.record: dict[str, Any] = new_record(setup, board)
        self.record["extra_readings"] = []  # readings while no drop was owed: evidence only
        self._tracker: Tracker = replay(setup, self.record)
        self.outcome: BattleOutcome | None = None
        self._since = now  # when the current prompt started (for the ability timeout)
        self._reset_drop()
        self._prompts: list[Prompt] = []
        self._evaluate(now)

    # --- state of the drop being refereed ------------------------------------------------------------
    def _reset_drop(self, archive: bool = False) -> None:
        if archive and getattr(self, "_evidence", None):
            self.record["extra_readings"].extend(self._evidence)  # a drop no longer owed: keep what was seen
        self._tower: dict[str, int] = {}
        self._allowance: Counter[str] = Counter()  # cubes allowed through the tower again (fell off)
        self._reading: dict[str, Any] | None = None
        self._settled = False
        self._pending_corrections: list[dict[str, Any]] = []
        self._evidence: list[dict[str, Any]] = []

    @property
    def phase(self) -> str:
        if self._tracker.pending is not None:
            return "drop"
        return "done" if self._tracker.done else "abilities"

    @property
    def owed(self) -> PendingDrop | None:
        return self._tracker.pending

    @property
    def drop_started(self) -> bool:
        """True from the moment cubes of this battle go into the tower (a tower count above 0, or cubes on
        the board in a camera reading taken while a drop is owed, or any drop already accepted). The
        controller then sends the engine `{"type": "battle_drop_started"}` as "table" once per battle:
        "once the battle has begun", jettisoning, rearranging and the defender's Cannon cards are refused."""
        if self._tracker.drops > 0 or self._tower:
            return True
        return any(e.get("reading", {}).get("cubes") for e in self._evidence)

    def prompts(self) -> list[Prompt]:
        return list(self._prompts)

    # --- inputs ----------------------------------------------------------------------------------------
    def tower(self, counts: dict[str, int], now: float) -> list[Prompt]:
        if not isinstance(counts, dict) or not all(
            isinstance(c, str) and isinstance(n, int) and not isinstance(n, bool) and n >= 0
            for c, n in counts.items()
        ):
            raise BattleRecordError(
                f"Tower counts must map a colour to a whole number 0 or more, got {counts!r}."
            )
        if self._tracker.pending is None:
            self.record["extra_readings"].append({"t": now, "tower_counts": dict(counts)})
            return self.prompts()
        new = {c: n for c, n in counts.items() if n}
        if new != self._tower:  # cubes went through: the board must be read again after they land
            self._reading, self._pending_corrections = None, []
        self._tower = new
        self._evidence.append({"t": now, "tower_counts": dict(counts)})
        self._evaluate(now)
        return self.prompts()

    def camera(self, reading: dict[str, Any], settled: bool, now: float) -> list[Prompt]:
        _check_reading(reading)
        entry = {"t": now, "settled": bool(settled), "tower_counts": dict(self._tower), "reading": reading}
        if self._tracker.pending is None:
            self.record["extra_readings"].append(entry)
            return self.prompts()
        self._evidence.append(entry)
        self._reading = copy.deepcopy(reading)
        self._settled = bool(settled)
        self._pending_corrections = []  # a fresh reading supersedes corrections of the last one
        self._evaluate(now)
        return self.prompts()

    def cube_lost(self, color: str, by: str, now: float) -> list[Prompt]:
        """A player says a cube of `color` fell off the board: it is dropped through the tower again."""
        if self._tracker.pending is None:
            raise BattleRecordError("No drop is being refereed now; a lost cube only matters during a drop.")
        self._allowance[color] += 1
        self._evidence.append({"t": now, "event": "cube-lost", "color": color, "by": by})
        self._evaluate(now)
        return self.prompts()

    def adjust_tower(self, color: str, delta: int, by: str, now: float) -> list[Prompt]:
        """A player says the tower miscounted (or an extra cube was taken back off the board)."""
        if self._tracker.pending is None:
            raise BattleRecordError("No drop is being refereed now; there is no tower count to adjust.")
        new = self._tower.get(color, 0) + delta
        if new < 0:
            raise BattleRecordError(
                f"The tower counted {self._tower.get(color, 0)} {color}; it cannot go below 0."
            )
        self._tower[color] = new
        self._evidence.append({"t": now, "event": "tower-adjusted", "color": color, "delta": delta, "by": by})
        self._evaluate(now)
        return self.prompts()

    def use_ability(
        self, player: str, ability: str, now: float, cube: int | None = None, to: str | None = None
    ) -> list[Prompt]:
        side = self._side_of(player)
        step: dict[str, Any] = {"step": "ability", "side": side, "ability": ability, "by": player, "t": now}
        if cube is not None:
            step["cube"] = cube
        if to is not None:
            step["to"] = to
        self._commit_step(step, now)
        return self.prompts()

    def pass_turn(self, player: str, now: float) -> list[Prompt]:
        self._commit_step({"step": "pass", "side": self._side_of(player), "by": player, "t": now}, now)
        return self.prompts()

    def tick(self, now: float) -> list[Prompt]:
        """Silence as a pass, only if the table is set so and the prompt has waited long enough."""
        limit = self.settings.ability_timeout_s
        side = self._tracker.next_to_act()
        if limit is not None and side is not None and now - self._since >= limit:
            name = self._tracker.side(side).name
            self._commit_step({"step": "pass", "side": side, "by": name, "t": now, "timeout": True}, now)
        return self.prompts()

    def correct(
        self,
        cube: int | None,
        now: float,
        by: str,
        zone: str | None = None,
        step: int | None = None,
        color: str | None = None,
        remove: bool = False,
        add: dict[str, Any] | None = None,
        zones: list[str] | None = None,
    ) -> list[Prompt]:
        """Any player corrects a reading: cube `cube` of drop step `step` (None: the reading being
        refereed now) lies in `zone` (None: on a rail), has `color`, is not a cube (`remove`), or a
        hidden cube is added (`add={"color", "zone"}`), or touches every zone of `zones` (2 or more: "If any
        part of a cube is touching a zone, that cube is considered to be in that zone"). Past readings
        re-resolve the battle."""
        corr: dict[str, Any] = {"by": by, "t": now}
        if add is not None:
            corr["add"] = add
        else:
            corr["cube"] = cube
            if remove:
                corr["remove"] = True
            elif zones:
                corr["zones"] = list(zones)
            else:
                corr["zone"] = zone
            if color is not None:
                corr["color"] = color
        live = step is None or step == len(self.record["steps"])
        if live:
            if self._tracker.pending is None or self._reading is None:
                raise BattleRecordError(
                    "No reading is waiting to be accepted; name the drop step to correct."
                )
            corr["step"] = len(self.record["steps"])
            trial = {
                **self.record,
                "steps": [*self.record["steps"], self._pending_step()],
                "corrections": [*self.record["corrections"], *self._pending_corrections, corr],
            }
            corrected_steps(trial, self._tracker.board)  # refuses a bad cube number or zone
            self._pending_corrections.append(corr)
            self._evaluate(now)
            return self.prompts()
        corr["step"] = step
        trial = {**self.record, "corrections": [*self.record["corrections"], corr]}
        try:
            tracker = replay(self.setup, trial)
        except BattleRecordError as exc:
            raise BattleRecordError(
                f"That correction does not fit what happened after it ({exc.message}); correct the latest "
                "reading "
                "or re-drop as the table says."
            ) from None
        self.record = trial
        self._adopt(tracker, now)
        return self.prompts()

    # --- internals ---------------------------------------------------------------------------------
    def _side_of(self, player: str) -> str:
        for side in SIDES:
            if self._tracker.side(side).name == player:
                return side
        raise BattleRecordError(f"{player!r} is not fighting in this battle; only its two sides act.")

    def _commit_step(self, step: dict[str, Any], now: float) -> None:
        trial = {**self.record, "steps": [*self.record["steps"], step]}
        tracker = replay(self.setup, trial)  # raises with a sentence; nothing changes
        self.record = trial
        self._adopt(tracker, now)

    def _adopt(self, tracker: Tracker, now: float) -> None:
        old_owed = self._tracker.pending
        self._tracker = tracker
        if tracker.pending != old_owed:
            self._reset_drop(archive=True)
        self._since = now
        self.outcome = outcome_of(tracker) if tracker.done else None
        self._evaluate(now)

    def _pending_step(self) -> dict[str, Any]:
        owed = self._tracker.pending
        assert owed is not None and self._reading is not None
        board = []
        for c in self._reading.get("cubes", []):
            cube = {"color": c.get("color"), "zone": None if c.get("on_rail") else c.get("zone")}
            zs = c.get("zones")
            if cube["zone"] is not None and isinstance(zs, list) and len(zs) > 1:
                cube["zones"] = list(zs)  # touching two or more zones: in each (the record's contract)
            for key in ("confidence", "center_mm"):
                if key in c:
                    cube[key] = c[key]
            board.append(cube)
        step: dict[str, Any] = {
            "step": "drop",
            "reason": owed.reason,
            "dropped": dict(owed.dropped),
            "board": board,
            "tower_counts": dict(self._tower),
            "readings": list(self._evidence),
        }
        if owed.ability:
            step["ability"] = owed.ability
        return step

    def _provisional_cubes(self) -> tuple[list[dict[str, Any]], set[int]]:
        """The reading under refereeing with its corrections, and the cube numbers corrected."""
        step = self._pending_step()
        trial = {
            **self.record,
            "steps": [*self.record["steps"], step],
            "corrections": [*self.record["corrections"], *self._pending_corrections],
        }
        cubes = corrected_steps(trial, self._tracker.board)[-1]["board"]
        fixed = {c["cube"] for c in self._pending_corrections if "cube" in c}
        return cubes, fixed

    def _evaluate(self, now: float) -> None:
        owed = self._tracker.pending
        if owed is None:
            self._prompts = self._turn_prompts()
            return
        ask = self._drop_prompt(owed)
        if self._reading is None or (sum(owed.dropped.values()) > 0 and not any(self._tower.values())):
            self._prompts = [ask]  # waiting for the drop; a reading of the old board says nothing yet
            return
        problems = self._problems(owed)
        if problems:
            self._prompts = problems if self._settled else [self._settling()]
            return
        if not self._settled:
            self._prompts = [self._settling()]
            return
        self._accept(now)

    def _settling(self) -> Prompt:
        return Prompt("settling", "table", "Waiting for the board to be still before reading it.")

    def _problems(self, owed: PendingDrop) -> list[Prompt]:
        reading = self._reading or {}
        if reading.get("status") == "no-board":
            why = reading.get("reason") or reading.get("error") or "the board markers are not visible"
            return [
                Prompt(
                    "no-board",
                    "table",
                    f"The camera cannot see the battle board ({why}); "
                    "clear the view of the board's corner markers.",
                )
            ]
        out: list[Prompt] = []
        want_tower = Counter(owed.dropped) + self._allowance
        for color in sorted(set(want_tower) | set(self._tower)):
            got, want = self._tower.get(color, 0), want_tower.get(color, 0)
            if got < want:
                out.append(
                    Prompt(
                        "missing-cube",
                        "table",
                        f"The tower counted {got} of the {_plural(want, color)} for this drop: drop the "
                        "rest, or shake free a cube stuck in the tower.",
                        {"source": "tower", "color": color, "counted": got, "expected": want},
                    )
                )
            elif got > want:
                out.append(
                    Prompt(
                        "extra-cube",
                        "table",
                        f"The tower counted {got} {color} cubes but this drop is {want}: take the "
                        f"{got - want} extra {color} cube(s) back off the board and confirm on the table.",
                        {"source": "tower", "color": color, "counted": got, "expected": want},
                    )
                )
        cubes, fixed = self._provisional_cubes()
        colors = self._tracker.colors()
        seen = Counter(c["color"] for c in cubes if not c.get("ghost"))
        for color in sorted(set(seen) - set(colors)):
            idx = [i for i, c in enumerate(cubes) if c["color"] == color and not c.get("ghost")]
            out.append(
                Prompt(
                    "stray-cube",
                    "table",
                    f"The camera sees {_plural(seen[color], color)} but this battle has only "
                    f"{' and '.join(colors)} cubes: take it off the board, or correct its colour.",
                    {"color": color, "cubes": idx},
                )
            )
        for color in colors:
            got, want = seen.get(color, 0), owed.expected.get(color, 0)
            if got < want:
                out.append(
                    Prompt(
                        "missing-cube",
                        "table",
                        f"The camera sees {got} {color} cubes on the board but {want} should be there: "
                        f"if one fell off the board, say so and drop it again; if one is hidden under "
                        f"another, separate them or add it with its zone.",
                        {"source": "camera", "color": color, "seen": got, "expected": want},
                    )
                )
            elif got > want:
                out.append(
                    Prompt(
                        "extra-cube",
                        "table",
                        f"The camera sees {got} {color} cubes on the board but only {want} should be "
                        "there: take off any cube that is not in this battle, or mark the misread one.",
                        {"source": "camera", "color": color, "seen": got, "expected": want},
                    )
                )
        flagged = set(self._reading.get("ambiguous", []) if self._reading else [])
        raw = self._reading.get("cubes", []) if self._reading else []
        for i, c in enumerate(raw):
            unplaced = c.get("zone") is None and not c.get("on_rail")
            if float(c.get("confidence", 1.0)) < self.settings.min_confidence or unplaced:
                flagged.add(i)
        for i in sorted(flagged - fixed):
            if not 0 <= i < len(raw):
                continue
            c = raw[i]
            where = f" near {c['center_mm']} mm" if "center_mm" in c else ""
            out.append(
                Prompt(
                    "ambiguous-cube",
                    "table",
                    f"Cube {i} ({c.get('color')}{where}) cannot be placed with confidence: "
                    "say which zone it is in (or that it is on a rail).",
                    {"cube": i, "color": c.get("color"), "zone": c.get("zone")},
                )
            )
        for i, c in enumerate(cubes):
            if not c.get("ghost") and any(
                z is not None and z not in self._tracker.board.zones
                for z in [c.get("zone"), *(c.get("zones") or [])]
            ):
                out.append(
                    Prompt(
                        "unknown-zone",
                        "table",
                        f"Cube {i} is read in zone {c['zone']!r}, which this battle's board does not have: "
                        "the camera and the battle must use the same board layout; correct the cube's zone.",
                        {"cube": i, "zone": c["zone"]},
                    )
                )
        return out

    def _accept(self, now: float) -> None:
        step = self._pending_step()
        index = len(self.record["steps"])
        trial = {
            **self.record,
            "steps": [*self.record["steps"], step],
            "corrections": [
                *self.record["corrections"],
                *[{**c, "step": index} for c in self._pending_corrections],
            ],
        }
        try:
            tracker = replay(self.setup, trial)
        except BattleRecordError as exc:  # the cross-check passed, so this is a rule the board broke
            self._prompts = [Prompt("error", "table", exc.message)]
            return
        self.record = trial
        self._reset_drop()
        self._adopt(tracker, now)

    def _drop_prompt(self, owed: PendingDrop) -> Prompt:
        data: dict[str, Any] = {
            "reason": owed.reason,
            "cubes": dict(owed.dropped),
            "board_cubes": list(owed.cubes),
        }
        if owed.reason == "initial":
            return Prompt(
                "drop", "table", f"Drop {_list(owed.dropped)} into the battle ship, all at once.", data
            )
        if owed.reason == "rail":
            return Prompt(
                "redrop-rail",
                "table",
                f"Re-drop the cube(s) lying on a rail ({_list(owed.dropped)}: cube "
                f"{', '.join(map(str, owed.cubes))}).",
                data,
            )
        if owed.reason == "exploding":
            n = {c: k // 2 for c, k in owed.dropped.items()}
            parts = [
                f"{k} {c} cube{'s' if k != 1 else ''} from the exploding-shot zone, plus {k} extra {c}"
                for c, k in sorted(n.items())
                if k
            ]
            return Prompt("redrop-exploding", "table", f"Re-drop {' and '.join(parts)}, all at once.", data)
        side = next(s for s in SIDES if any(a.id == owed.ability for a in self._tracker.side(s).abilities))
        data["ability"] = owed.ability
        return Prompt(
            "ability-drop",
            self._tracker.side(side).name,
            f"Drop {_list(owed.dropped)} into the battle ship for your ability.",
            data,
        )

    def _turn_prompts(self) -> list[Prompt]:
        side = self._tracker.next_to_act()
        if side is None:
            o = self.outcome
            assert o is not None
            winner = self._tracker.side(o.winner).name
            text = f"{winner} wins the battle" + (
                " (tied strength: the active player wins)." if o.tied else "."
            )
            if o.tied and self.setup.kind == "tiebreak":
                text = "Still tied: repeat the tie-break battle."
            return [Prompt("result", "table", text, {"outcome": o.to_json()})]
        options = []
        for ab in self._tracker.usable(side):
            needs = {
                "move_cube_adjacent": ["cube", "to"],
                "remove_cube_for_damage_and_coins": ["cube"],
                "redrop_cube": ["cube"],
            }.get(ab.effect, [])
            options.append(
                {
                    "id": ab.id,
                    "source": ab.source,
                    "effect": ab.effect,
                    "params": dict(ab.params),
                    "needs": needs,
                }
            )
        name = self._tracker.side(side).name
        text = (
            f"{name}: use one Battle ability or pass."
            if self.setup.kind == "ship"
            else f"{name}: use your Battle abilities in any order, then pass to finish."
        )
        return [
            Prompt(
                "ability",
                name,
                text,
                {
                    "side": side,
                    "options": options,
                    "since": self._since,
                    "timeout_s": self.settings.ability_timeout_s,
                },
            )
        ]

    # --- the table display ---------------------------------------------------------------------------
    def view(self) -> dict[str, Any]:
        t = self._tracker
        provisional = t.pending is not None and self._reading is not None and any(self._tower.values())
        cubes: list[BoardCube] = t.cubes
        if provisional:
            raw, _ = self._provisional_cubes()
            cubes = [
                BoardCube(
                    c["color"], c.get("zone"), removed=bool(c.get("ghost")), zones=tuple(c.get("zones") or ())
                )
                for c in raw
            ]
        per_zone: dict[str, dict[str, int]] = {}
        rail: Counter[str] = Counter()
        for c in cubes:
            if c.removed:
                continue
            if c.zone is None:
                rail[c.color] += 1
            else:
                for z in c.touching():  # a cube touching two zones shows in both
                    per_zone.setdefault(z, {}).setdefault(c.color, 0)
                    per_zone[z][c.color] += 1
        counts = tallies(t, cubes)
        sides = {}
        for s in SIDES:
            side = t.side(s)
            exploding = t.exploding_shots.get(side.cube_color, 0)
            exploding_now = sum(
                1
                for c in cubes
                if not c.removed
                and c.color == side.cube_color
                and c.zone
                and t.board.zones.get(c.zone) is not None
                and t.board.zones[c.zone].kind == "exploding"
            )
            sides[s] = {
                "name": side.name,
                "color": side.cube_color,
                "cubes": side.cubes,
                **counts[s],
                "exploding_shots": exploding + exploding_now,
                "abilities_used": [a.id for a in side.abilities if a.id in t.used],
            }
        owed = t.pending
        every = strengths(t, cubes)
        return {
            "battle_id": self.setup.battle_id,
            "kind": self.setup.kind,
            "phase": self.phase,
            "provisional": provisional,
            "expected_drop": None if owed is None else {"reason": owed.reason, "cubes": dict(owed.dropped)},
            "tower_counts": dict(self._tower),
            "zones": per_zone,
            "on_rail": dict(rail),
            "sides": sides,
            # every side with its cubes and strength (the tie-break may have more than two)
            "all_sides": [
                {
                    "name": side.name,
                    "color": side.cube_color,
                    "cubes": side.cubes,
                    "strength": every[side.name],
                }
                for side in self.setup.sides()
            ],
            "to_act": t.next_to_act(),
            "prompts": [p.to_json() for p in self._prompts],
            "result": None if self.outcome is None else self.outcome.to_json(),
            "corrections": len(self.record["corrections"]),
        }


def _check_reading(reading: Any) -> None:
    """The camera reading must be the JSON of `smart-table vision read`."""
    if not isinstance(reading, dict) or reading.get("status") not in READING_STATUSES:
        raise BattleRecordError(
            "The camera reading is not the JSON of `smart-table vision read`: it needs 'status' "
            f"({', '.join(READING_STATUSES)})."
        )
    cubes = reading.get("cubes", [])
    if not isinstance(cubes, list) or not all(
        isinstance(c, dict) and isinstance(c.get("color"), str) for c in cubes
    ):
        raise BattleRecordError("The camera reading's 'cubes' must be a list of objects with a 'color'.")
    for key in ("redrop", "ambiguous"):
        if not isinstance(reading.get(key, []), list):
            raise BattleRecordError(f"The camera reading's {key!r} must be a list of cube indexes.")
