"""The battle driver: runs the rules' refereeing session for the engine's current battle.

Owns: creating a `rules.battle.session.BattleSession` when the engine's public view shows a battle,
feeding it the tower's counts (from the bridge's running totals), the camera's readings and the
players' answers, logging every session input in the game log BEFORE its effect is published (so a
battle resumes mid-way after a crash by replaying its inputs), turning the session's prompts into
MQTT prompts, recording every drop for tower health, and submitting `resolve_battle` with the
session's record when the battle is done. After a restart it rebuilds a battle under way, with the
camera's crops, and the last result with its correction prompt (both kept in the log). It decides
nothing about the battle itself.
"""

from __future__ import annotations

import copy
import json
import logging
import time
from collections import Counter
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from controller.core import Prompt, Refusal, TableCore

if TYPE_CHECKING:
    from rules.battle.contract import SideName

log = logging.getLogger(__name__)

# session prompt kind -> MQTT prompt kind (docs/mqtt.md)
_KINDS = {
    "ability": "battle_ability",
    "ambiguous-cube": "confirm_reading",
    "unknown-zone": "confirm_reading",
    "stray-cube": "confirm_reading",
    "missing-cube": "sensor_disagree",
    "extra-cube": "sensor_disagree",
}
# Session operations a logged input may name, with the arguments they take (besides `now`).
OPS = ("tower", "camera", "use_ability", "pass_turn", "correct", "cube_lost", "adjust_tower")
# Driver operations a logged input may name (they change what the driver asks for, not the session):
# a hand entry waiting for the other side's confirmation, its end, a drop whose camera part goes by hand,
# a drop whose tower counts come from the board (the tower restarted in the middle of it).
DRIVER_OPS = (
    "baseline",
    "entry",
    "entry_done",
    "hand_entry",
    "tower_uncertain",
    "manual_tower",
    "proposal",
    "proposal_done",
)
# Seconds without a sign of life after which the tower counts as unplugged (its bridge reports every second).
TOWER_STALE_S = 5.0
# Seconds a drop may wait for the camera, once the tower has counted it, before it is entered by hand.
CAMERA_WAIT_S = 20.0
SENSORS = ("tower", "camera")


class BattleDriver:
    def __init__(
        self,
        core: TableCore,
        clock: Callable[[], float] = time.time,
        board: dict[str, Any] | None = None,
        on_change: Callable[[], None] | None = None,
        on_resolved: Callable[[], None] | None = None,
        sensors: dict[str, bool] | None = None,
        referees: list[str] | tuple[str, ...] = (),
        bots: list[str] | tuple[str, ...] = (),
        layout: dict[str, Any] | None = None,
    ) -> None:
        self.core, self.clock, self.board = core, clock, board
        self.layout = layout  # the zones' outlines (size_mm, zones: id -> polygon) for the tablets' drawing
        # Which sensors this table has at all (config: bridge.enabled, vision.enabled); one that is present
        # still counts as entered by hand until it shows a sign of life, and again once it goes quiet.
        self.present = {name: bool((sensors or {}).get(name, True)) for name in SENSORS}
        self.seen: dict[str, float] = {}  # sensor -> clock of its last sign of life
        self.simulated: set[str] = set()  # sensors simulated inside this process: live while it runs
        self.down: set[str] = set()  # sensors that said they are offline
        self.referees = set(referees)  # seats or devices that may correct any battle
        self.bots = set(bots)  # seats the built-in player plays: it confirms what the other side entered
        self.baseline_boot: Any = None  # the tower boot the baseline's totals come from
        self.last_boot: Any = None
        self.entry: dict[str, Any] | None = None  # a hand entry waiting for the other side: key, by, cubes
        self.proposal: dict[str, Any] | None = (
            None  # a correction of the live reading waiting for the other side
        )
        self.hand_keys: set[tuple[Any, ...]] = set()  # owed drops whose camera part is entered by hand
        self.tower_keys: set[tuple[Any, ...]] = set()  # owed drops whose tower counts come from the board
        self.begun: str | None = None  # the battle the engine was told has begun (its drop started)
        self.manual_counts: set[tuple[Any, ...]] = set()  # owed drops whose tower counts were entered already
        self.hand_reading: dict[tuple[Any, ...], dict[str, Any]] = {}  # owed drop -> its confirmed hand entry
        self.ready_since: float | None = None  # when the owed drop was counted and waited for the camera
        self.sensor_modes: dict[str, str] = {}
        self.session: Any = None
        self.setup_json: dict[str, Any] | None = None
        self.inputs = 0
        self.baseline: dict[str, int] | None = None  # tower running totals when the owed drop began
        self.owed_key: Any = None
        self.last_totals: dict[str, int] = {}
        self.on_change = on_change  # called (under the core lock) after every change, e.g. to wake the sim
        self.on_resolved = on_resolved  # called after a battle's drops are recorded (tower health)
        self.resolved = 0
        self.crops: dict[int, str] = {}  # cube index -> base64 JPEG crop of the latest camera reading
        self.step_crops: dict[
            int, dict[int, str]
        ] = {}  # drop step -> the crops of the reading it was read from
        self.last_reading: dict[str, Any] | None = None
        # The battle just resolved: its session (to correct a reading after the result), the seq of its
        # resolve_battle event (what a correction replaces) and its final view, shown until the next
        # battle or the next turn.
        self.finished: dict[str, Any] | None = None
        self._restored = (
            False  # the first sync after a (re)start also brings back a result still on the table
        )
        core.listeners.append(lambda _events: self.sync())

    @property
    def live_battle_id(self) -> str:
        """The live battle's id, for code that runs only while a session is open."""
        if self.setup_json is None:
            raise RuntimeError("no battle is live on this table")
        return self.setup_json["battle_id"]

    def busy(self) -> bool:
        return self.session is not None

    # -- following the engine ------------------------------------------------------------------

    def sync(self) -> None:
        """Start, restart (setup changed) or end the session to match the engine's current battle."""
        from rules.battle.contract import BattleSetup
        from rules.battle.session import BattleSession

        with self.core.lock:
            public = self.core.engine.public_view(self.core.state)
            setup = public.get("battle")
            first, self._restored = not self._restored, True
            if setup is None:
                if first and self.session is None and self.finished is None:
                    self._restore_finished(public)
                if self.session is not None:
                    self.session, self.setup_json = None, None
                    self._drop_battle_prompts()
                    self.core.battle_view = None
                    if self.finished is not None:
                        # Resolved by the session: the result stays on the table, and the reading can still
                        # be corrected from a tablet.
                        self.finished["turn"] = _turn_key(public)
                        self.core.battle_view = self.finished["view"]
                        self._review_prompts()
                    self.core.publish_prompts()
                    if self.on_change is not None:
                        self.on_change()
                elif self.finished is not None and self.finished.get("turn") != _turn_key(public):
                    self._forget_finished()  # the next turn: the result leaves the table
                return
            if self.session is not None and setup == self.setup_json:
                return
            if self.finished is not None:
                self._forget_finished(publish=False)
            battle_id = setup["battle_id"]
            self.session = BattleSession(BattleSetup.from_json(setup), board=self.board, now=self.clock())
            self.setup_json, self.inputs, self.baseline, self.owed_key = setup, 0, None, None
            self.crops, self.last_reading = {}, None
            self.entry, self.proposal, self.baseline_boot, self.ready_since = None, None, None, None
            self.hand_keys, self.tower_keys, self.manual_counts, self.hand_reading = set(), set(), set(), {}
            self.step_crops = self.core.log.step_crops(
                self.core.open_game_id, battle_id
            )  # empty for a new battle
            for entry in self.core.log.session_inputs(self.core.open_game_id, battle_id):
                try:
                    self._feed(entry)
                except Exception as exc:  # noqa: BLE001 - a logged input the new setup no longer takes
                    log.warning(
                        "battle %s: logged input %s no longer applies (%s)", battle_id, entry.get("op"), exc
                    )
                    continue
                if entry.get("op") == "camera" and isinstance((entry.get("args") or {}).get("reading"), dict):
                    self.last_reading = entry["args"]["reading"]
            self.crops = dict(self.step_crops.get(len(self.session.record["steps"]), {}))
            log.info("battle %s under way (%d inputs replayed)", battle_id, self.inputs)
            self._publish(live=self.inputs == 0)

    # -- inputs --------------------------------------------------------------------------------

    def input(self, op: str, args: dict[str, Any]) -> None:
        """One session input: applied, logged durably, then published. Raises Refusal on a bad one."""
        from rules.battle.errors import BattleRecordError

        with self.core.lock:
            if self.session is None:
                raise Refusal("illegal", "No battle is under way; there is nothing to answer.")
            entry = {"op": op, "args": args, "now": self.clock()}
            try:
                json.dumps(entry, allow_nan=False)  # it must be loggable before it may change the session
            except (TypeError, ValueError) as exc:
                raise Refusal(
                    "invalid", f"That battle input is not plain JSON ({exc}); nothing changed."
                ) from None
            try:
                self._feed(entry)
            except BattleRecordError as exc:
                raise Refusal("illegal", exc.message) from None
            except (TypeError, ValueError) as exc:
                raise Refusal("invalid", f"That battle input is malformed ({exc}).") from None
            self.core.log.add_session_input(self.core.open_game_id, self.live_battle_id, entry)
            if op in ("cube_lost", "adjust_tower", "correct"):
                # A person settled a disagreement between the tower, the camera and the board: tower health.
                kind = "misread" if op == "correct" else "disagreement"
                self.core.log.record_incident(
                    self.core.table_id, self.core.game_id, self.live_battle_id, kind, {"op": op, **args}
                )
            self._tell_engine_the_battle_began()
            self._publish()

    def _tell_engine_the_battle_began(self) -> None:
        """ "Once the battle has begun" the two sides may no longer jettison, rearrange or play a Cannon card:
        the first cubes going into the tower are that moment, and only the engine may refuse those actions."""
        battle_id = self.setup_json["battle_id"] if self.setup_json else None
        if (
            self.session is None
            or battle_id is None
            or self.begun == battle_id
            or not self.session.drop_started
        ):
            return
        self.begun = battle_id
        try:
            self.core.submit("table", {"type": "battle_drop_started"})
        except Refusal as exc:  # already told before a restart, or an engine without the action (tests' toy)
            log.debug("battle %s: battle_drop_started not applied: %s", battle_id, exc)

    def _feed(self, entry: dict[str, Any], session: Any = None) -> None:
        """One logged input into the live session, or into `session` (a finished battle being rebuilt)."""
        op, args, now = entry["op"], dict(entry.get("args") or {}), float(entry.get("now", 0.0))
        if session is not None:
            if op == "correct_after_result":
                session.correct(
                    args["cube"],
                    now,
                    by=args.get("by"),
                    zone=args.get("zone"),
                    step=args["step"],
                    remove=bool(args.get("remove")),
                    zones=args.get("zones"),
                )
            elif op == "manual_tower":
                session.tower(counts=args["counts"], now=now)
            elif op in OPS:
                getattr(session, op)(**args, now=now)
            return  # the other driver operations say nothing to a finished session
        if op in DRIVER_OPS:
            key = self._key()
            if op == "baseline":
                self.baseline = dict(args["totals"])
                self.baseline_boot = args.get("boot")
            elif op == "entry":
                self.entry = {"key": key, "by": args["by"], "cubes": list(args["cubes"])}
            elif op == "entry_done":
                self.entry = None
            elif op == "proposal":
                self.proposal = {"key": key, "by": args["by"], "args": dict(args["args"])}
            elif op == "proposal_done":
                self.proposal = None
            elif op == "hand_entry" and key is not None:
                self.hand_keys.add(key)
            elif op == "tower_uncertain" and key is not None:
                self.tower_keys.add(key)
            elif op == "manual_tower":
                self.session.tower(counts=args["counts"], now=now)
                if key is not None:
                    self.manual_counts.add(key)
            self.inputs += 1
            return
        if op not in OPS:
            raise ValueError(f"unknown battle input {op!r}")
        key = self._key()
        getattr(self.session, op)(**args, now=now)
        if op == "camera" and key is not None and (args.get("reading") or {}).get("source") == "hand":
            self.hand_reading[key] = args["reading"]
        self.inputs += 1

    def _key(self) -> tuple[Any, ...] | None:
        """The owed drop, as (battle, step, reason): what a baseline, a hand entry or a re-baseline is for."""
        session = self.session
        if session is None or session.owed is None or self.setup_json is None:
            return None
        return (self.live_battle_id, len(session.record["steps"]), session.owed.reason)

    def tower_totals(self, totals: dict[str, int], boot: Any = None) -> None:
        """The bridge's running totals per colour since the tower's boot `boot` (None: a tower model without
        boots); the owed drop's counts are totals minus the baseline. When the tower restarted since the
        drop began (another boot, or totals below the baseline), the drop re-baselines: what was counted
        stays, and if the drop was not fully counted, its tower counts come from the board instead."""
        with self.core.lock:
            self.last_totals = dict(totals)
            if boot is not None:
                self.last_boot = boot
            key = self._key()
            if self.session is None or key is None or self.baseline is None:
                return  # no drop owed, or owed before any baseline: the baseline is set when the drop starts
            if key in self.tower_keys or key in self.manual_counts:
                return  # this drop's counts are taken from the board or were entered by hand
            restarted = boot is not None and boot != self.baseline_boot
            restarted |= any(totals.get(c, 0) < n for c, n in self.baseline.items())
            if restarted:
                self._rebase(totals, boot)
                return
            counts = {
                c: n - self.baseline.get(c, 0) for c, n in totals.items() if n - self.baseline.get(c, 0) > 0
            }
            if counts != self.session._tower:  # heartbeats repeat the totals: feed only a change
                self.input("tower", {"counts": counts})
                self._refeed_hand_reading()

    def _rebase(self, totals: dict[str, int], boot: Any) -> None:
        """The tower restarted during the owed drop: keep what it counted, count on from its new totals."""
        session = self.session
        counted = dict(session._tower)
        base = {c: totals.get(c, 0) - counted.get(c, 0) for c in set(totals) | set(counted)}
        # A drop owed before the tower's first report (the controller just started) takes that report as its
        # start; a tower that truly restarted may have let cubes through uncounted.
        first_report = self.baseline_boot is None and not self.baseline
        if not first_report:
            log.warning(
                "battle %s: the tower restarted during the drop (boot %s -> %s); re-baselined, %s counted",
                self.live_battle_id,
                self.baseline_boot,
                boot,
                counted,
            )
        self.input("baseline", {"totals": base, "boot": boot, "rebased": not first_report})
        owed = {c: n for c, n in session.owed.dropped.items() if n}
        if counted != owed and not first_report:
            # Cubes may have gone through while it was down: this drop's counts come from the board.
            self.input("tower_uncertain", {"counted": counted, "boot": boot})

    def start_drop(self, totals: dict[str, int]) -> None:
        """Mark the tower totals at which the owed drop starts (logged, so a restart keeps it)."""
        with self.core.lock:
            if self.session is not None:
                self.input("baseline", {"totals": dict(totals), "boot": self.last_boot})

    def camera(self, reading: dict[str, Any], settled: bool, crops: Any = None) -> None:
        """A camera reading of the battle board; `crops` ([{"index", "jpeg_base64"}], vision.board's) are
        kept with the drop step the reading is for, so a player can check any cube of it later."""
        with self.core.lock:
            self.sensor_seen("camera")
            if self.session is not None:
                if isinstance(crops, list):
                    self.crops = {
                        c["index"]: c["jpeg_base64"]
                        for c in crops
                        if isinstance(c, dict)
                        and isinstance(c.get("index"), int)
                        and isinstance(c.get("jpeg_base64"), str)
                    }
                    step = len(self.session.record["steps"])
                    self.step_crops[step] = dict(self.crops)
                    # Kept in the log too: a player checking a cube after a restart still sees what the
                    # camera saw.
                    self.core.log.set_step_crops(
                        self.core.open_game_id, self.live_battle_id, step, self.crops
                    )
                if isinstance(reading, dict):
                    self.last_reading = reading
                    self._counts_from_board(reading)
            self.input("camera", {"reading": reading, "settled": settled})

    def _counts_from_board(self, reading: dict[str, Any]) -> None:
        """Without a (trusted) tower, the drop's counts are what the board shows beyond the cubes that stayed:
        the cubes seen of each colour, less those that were to stay on the board."""
        key = self._key()
        if (
            key is None
            or key in self.manual_counts
            or not (self.sensors()["tower"] == "manual" or key in self.tower_keys)
        ):
            return
        owed = self.session.owed
        raw = reading.get("cubes")
        cubes = raw if isinstance(raw, list) else []
        seen = Counter(c.get("color") for c in cubes if isinstance(c, dict))
        counts = {}
        for color, n in owed.dropped.items():
            stay = owed.expected.get(color, 0) - n
            if seen.get(color, 0) - stay > 0:
                counts[color] = seen[color] - stay
        self.input("manual_tower", {"counts": counts, "from": "board"})

    def _refeed_hand_reading(self) -> None:
        """A tower count drops the reading it came after (the cubes were still falling); a confirmed hand
        entry is what lies on the board all the same, so it is read again."""
        key = self._key()
        reading = self.hand_reading.get(key) if key is not None else None
        if reading is not None and self.session._reading is None:
            self.input("camera", {"reading": reading, "settled": True})

    # -- sensors -------------------------------------------------------------------------------

    def sensor_seen(self, name: str, online: bool = True) -> None:
        """A sign of life (or an offline report) from the tower's bridge or the camera."""
        with self.core.lock:
            if online:
                self.seen[name] = self.clock()
                self.down.discard(name)
            else:
                self.down.add(name)
            self._sensors_changed()

    def sensors(self) -> dict[str, str]:
        """Which sensor is live and which is entered by hand, for the drop owed now."""
        now, key = self.clock(), self._key()
        tower_live = "tower" in self.simulated or (
            self.present["tower"]
            and "tower" not in self.down
            and now - self.seen.get("tower", float("-inf")) <= TOWER_STALE_S
        )
        camera_live = "camera" in self.simulated or (
            self.present["camera"] and "camera" in self.seen and "camera" not in self.down
        )
        if key is not None and key in self.hand_keys:
            camera_live = False
        return {
            "tower": "live" if tower_live and (key is None or key not in self.tower_keys) else "manual",
            "camera": "live" if camera_live else "manual",
        }

    def tick(self) -> None:
        """Called about ten times a second: a sensor going quiet, and a drop counted but never read."""
        with self.core.lock:
            if self.session is None:
                return
            key, now = self._key(), self.clock()
            if key is not None and self.sensors()["camera"] == "live":
                counted = self.sensors()["tower"] == "manual" or self.session._tower == {
                    c: n for c, n in self.session.owed.dropped.items() if n
                }
                waiting = counted and self.session._reading is None
                if not waiting:
                    self.ready_since = None
                elif self.ready_since is None:
                    self.ready_since = now
                elif now - self.ready_since >= CAMERA_WAIT_S:
                    log.warning(
                        "battle %s: no camera reading %g s after the drop; it is entered by hand",
                        key[0],
                        CAMERA_WAIT_S,
                    )
                    self.ready_since = None
                    self.input("hand_entry", {"why": "camera-silent"})
                    return
            self._sensors_changed()

    def _sensors_changed(self) -> None:
        modes = self.sensors()
        if modes != self.sensor_modes and self.session is not None:
            self.sensor_modes = modes
            self._publish(live=False)
        self.sensor_modes = modes

    # -- answers from tablets ------------------------------------------------------------------

    def fighters(self, session: Any = None) -> list[str]:
        """The seated players fighting the battle under way, or `session`'s (a Merchant ship or Buildings
        are no player)."""
        session = session if session is not None else self.session
        if session is None:
            return []
        return [
            side.name
            for side in session.setup.sides()  # the tie-break: every tied player
            if side.is_player and side.name in self.core.players
        ]

    def may_referee(self, player: str, fighters: list[str] | None = None) -> bool:
        """Whether `player` may enter, confirm or correct this battle's cubes: one of its players or a
        referee."""
        return player in (fighters if fighters is not None else self.fighters()) or player in self.referees

    def _enterers(self) -> list[str]:
        """Who is asked to enter a drop by hand: the battle's people; if both sides are bots or no player,
        every person at the table (the bots' cubes are dropped by hand all the same)."""
        people = [p for p in self.fighters() if p not in self.bots]
        if not people:
            people = [p for p in self.core.players if p not in self.bots]
        return people + sorted(r for r in self.referees if r in self.core.players and r not in people)

    def kept_cubes(self) -> list[dict[str, Any]]:
        """The cubes that stay on the board during the owed drop (the rest are picked up to drop again)."""
        session = self.session
        owed = session.owed
        picked = set(owed.cubes) if owed is not None else set()
        return [
            {"color": c.color, "zone": c.zone}
            for i, c in enumerate(session._tracker.cubes)
            if not c.removed and i not in picked
        ]

    def _check_entry(self, cubes: Any) -> list[dict[str, Any]]:
        owed = self.session.owed
        if owed is None:
            raise Refusal("stale", "No drop is waiting to be entered now.")
        zones = self.session.record["board"]["zones"]
        if not isinstance(cubes, list) or not all(isinstance(c, dict) for c in cubes):
            raise Refusal(
                "invalid", "A drop entered by hand is a list of cubes, each with its colour and zone."
            )
        out = []
        for i, c in enumerate(cubes):
            zone = c.get("zone")
            if c.get("color") not in owed.dropped:
                raise Refusal(
                    "invalid",
                    f"Cube {i + 1} is {c.get('color')!r}; this drop is {_owed_words(owed.dropped)}.",
                )
            if zone is not None and zone not in zones:
                raise Refusal(
                    "invalid", f"Cube {i + 1} is placed in {zone!r}, which is not a zone of this board."
                )
            entry: dict[str, Any] = {"color": c["color"], "zone": zone}
            touching = c.get("zones")
            if touching is not None:
                # A cube touching two zones counts in both (contract: "zones" beside "zone", its first).
                if (
                    not isinstance(touching, list)
                    or len(touching) < 2
                    or touching[0] != zone
                    or len(set(touching)) != len(touching)
                    or any(z not in zones for z in touching)
                ):
                    raise Refusal(
                        "invalid",
                        f"Cube {i + 1} touches {touching!r}: list two or more different zones of this board, "
                        "the first being its zone.",
                    )
                entry["zones"] = list(touching)
            out.append(entry)
        got = Counter(c["color"] for c in out)
        want = Counter({c: n for c, n in owed.dropped.items() if n})
        if got != want:
            raise Refusal(
                "invalid",
                f"You placed {_owed_words(dict(got))}, but this drop is {_owed_words(dict(want))}: "
                "place every dropped cube where it landed (or on a rail), no more.",
            )
        return out

    def _enter(self, player: str, answer: dict[str, Any]) -> None:
        """A player in the battle taps where each dropped cube landed; the other side confirms it."""
        with self.core.lock:
            if self.session is None or self.session.owed is None:
                raise Refusal("stale", "No drop is waiting to be entered now.")
            if not self.may_referee(player, self._enterers()):
                raise Refusal("illegal", "Only the players in this battle (or a referee) enter its cubes.")
            cubes = self._check_entry(answer.get("cubes"))
            checkers = [p for p in self.fighters() if p != player and p not in self.bots]
            if player in self.referees or not checkers:
                self._accept_entry(player, cubes, confirmed_by=None)
            else:
                self.input("entry", {"by": player, "cubes": cubes})

    def _confirm_entry(self, player: str, answer: dict[str, Any]) -> None:
        with self.core.lock:
            entry = self.entry
            if entry is None or entry["key"] != self._key():
                raise Refusal("stale", "That entry is no longer waiting for a confirmation.")
            if player == entry["by"] or not self.may_referee(player):
                raise Refusal(
                    "illegal", "The other side of the battle confirms an entry, not the one who made it."
                )
            if answer.get("confirm") is True:
                self._accept_entry(entry["by"], entry["cubes"], confirmed_by=player)
            elif answer.get("contest") is True:
                self.input("entry_done", {"by": player, "result": "contested"})
            else:
                raise Refusal(
                    "invalid", 'Answer {"confirm": true} if the cubes lie as entered, or {"contest": true}.'
                )

    def _accept_entry(self, by: str, cubes: list[dict[str, Any]], confirmed_by: str | None) -> None:
        key = self._key()
        owed = self.session.owed
        board = [*self.kept_cubes(), *cubes]
        reading = {
            "status": "redrop" if any(c["zone"] is None for c in board) else "ok",
            "source": "hand",
            "by": by,
            "confirmed_by": confirmed_by,
            "cubes": [
                {"color": c["color"], "zone": c["zone"], "on_rail": c["zone"] is None, "confidence": 1.0}
                | ({"zones": c["zones"]} if "zones" in c else {})
                for c in board
            ],
            "redrop": [i for i, c in enumerate(board) if c["zone"] is None],
            "ambiguous": [],
        }
        if self.entry is not None:
            self.input("entry_done", {"by": confirmed_by or by, "result": "confirmed"})
        if key not in self.manual_counts and (self.sensors()["tower"] == "manual" or key in self.tower_keys):
            self.input(
                "manual_tower", {"counts": {c: n for c, n in owed.dropped.items() if n}, "from": "hand"}
            )
        self.input("camera", {"reading": reading, "settled": True})

    def _asked(self, args: dict[str, Any]) -> bool:
        """Whether a correction answers a cube the camera flagged (unsure, or in no zone) in the live
        reading."""
        reading = self.session._reading or {}
        cubes = reading.get("cubes") or []
        i = args.get("cube")
        if args.get("step") is not None or "add" in args or not isinstance(i, int) or not 0 <= i < len(cubes):
            return False
        c = cubes[i]
        return (
            i in (reading.get("ambiguous") or [])
            or float(c.get("confidence", 1.0)) < 0.5
            or (c.get("zone") is None and not c.get("on_rail"))
        )

    def _answer_proposal(self, player: str, answer: dict[str, Any]) -> None:
        with self.core.lock:
            prop = self.proposal
            if prop is None or prop["key"] != self._key():
                raise Refusal("stale", "That correction is no longer waiting for an answer.")
            if player == prop["by"] or not self.may_referee(player):
                raise Refusal(
                    "illegal", "The other side of the battle answers a correction, not who made it."
                )
            if answer.get("accept") is True:
                self.input("proposal_done", {"by": player, "result": "accepted"})
                self.input("correct", prop["args"])
            elif answer.get("contest") is True:
                # Back to the people: this drop's cubes are entered by hand and confirmed.
                self.input("proposal_done", {"by": player, "result": "contested"})
                self.core.log.record_incident(
                    self.core.table_id,
                    self.core.game_id,
                    self.live_battle_id,
                    "contested",
                    {**prop["args"], "contested_by": player},
                )
                self.input("hand_entry", {"why": "contested", "by": player})
            else:
                raise Refusal("invalid", 'Answer {"accept": true} or {"contest": true}.')

    def _answer(self, player: str, answer: dict[str, Any]) -> None:
        from rules.battle.errors import BattleRecordError

        if any(k in answer for k in ("cube_lost", "adjust_tower", "cube", "add")) and not self.may_referee(
            player
        ):
            raise Refusal("illegal", "Only the players in this battle (or a referee) correct its cubes.")
        if answer.get("pass"):
            self.input("pass_turn", {"player": player})
        elif "ability" in answer:
            args = {"player": player, "ability": answer["ability"]}
            args.update({k: answer[k] for k in ("cube", "to") if k in answer})
            self.input("use_ability", args)
        elif "cube_lost" in answer:
            self.input("cube_lost", {"color": answer["cube_lost"], "by": player})
        elif "adjust_tower" in answer:
            self.input(
                "adjust_tower",
                {"color": answer["adjust_tower"], "delta": int(answer.get("delta", 0)), "by": player},
            )
        elif "cube" in answer or "add" in answer:
            args = {"cube": answer.get("cube"), "by": player}
            # "zones": every zone a cube touches ("If any part of a cube is touching a zone, that cube is
            # considered to be in that zone"), 2 or more; "zone" alone: that zone only
            args.update(
                {k: answer[k] for k in ("zone", "zones", "step", "color", "remove", "add") if k in answer}
            )
            others = [p for p in self.fighters() if p != player and p not in self.bots]
            if player in self.referees or not others or self._key() is None or self._asked(args):
                self.input("correct", args)
                return
            # Overriding what the camera read with confidence: the other side sees it before it counts, and
            # may contest it (a cube the camera itself asked about is answered at once).
            trial = copy.deepcopy(self.session)
            try:
                trial.correct(**args, now=self.clock())
            except BattleRecordError as exc:
                raise Refusal("illegal", exc.message) from None
            self.input("proposal", {"by": player, "args": args})
        else:
            raise Refusal(
                "invalid", "A battle answer needs one of: pass, ability, cube_lost, adjust_tower, cube."
            )

    # -- output --------------------------------------------------------------------------------

    def _publish(self, live: bool = True) -> None:
        session = self.session
        battle_id = self.live_battle_id
        self.core.battle_view = session.view()
        self.sensor_modes = self.sensors()
        self.core.battle_view["sensors"] = dict(self.sensor_modes)
        self.core.battle_view.update(self._drawing(session))
        self._drop_battle_prompts()
        for i, p in enumerate(session.prompts()):
            kind = _KINDS.get(p.kind, p.kind)
            pid = f"{battle_id}:{self.inputs}:{i}"
            player = None if p.to == "table" else p.to
            data = {"battle_id": battle_id, **p.data}
            if kind == "confirm_reading":
                # The evidence a player needs to correct a misread, and where the cube may be put: the crop
                # of each cube of this reading, every cube as read (any of them may be corrected, not only
                # the one asked about) and the cubes of the drops already accepted.
                cubes = p.data.get("cubes") or ([p.data["cube"]] if "cube" in p.data else [])
                data["crops"] = {str(i): self.crops[i] for i in cubes if i in self.crops}
                data.update(self._cube_lists())
            elif kind == "battle_ability":
                # An ability that picks a cube names it by its number on the board: the cubes of the last
                # accepted drop (the board the abilities act on), each with its colour, zone and crop.
                steps = self._cube_lists().get("steps") or []
                data["cubes"] = steps[-1]["cubes"] if steps else []
            self.core.prompts[pid] = Prompt(pid, kind, p.text, player, data, handler=self._answer)
        self._hand_prompts(battle_id)
        self._proposal_prompts(battle_id)
        owed = session.owed
        key = None if owed is None else (battle_id, len(session.record["steps"]), owed.reason)
        if key != self.owed_key:
            self.owed_key = key
            if key is not None and live:
                # The tower's running totals now are where this drop's counts start; logged so a restart
                # mid-drop counts from the same place (a replay restores it in order).
                entry = {
                    "op": "baseline",
                    "args": {"totals": dict(self.last_totals), "boot": self.last_boot},
                    "now": self.clock(),
                }
                self._feed(entry)
                self.core.log.add_session_input(self.core.open_game_id, battle_id, entry)
        if session.outcome is not None:
            self._resolve()
            return
        self.core.publish_prompts()
        self.core.publish_state()
        if self.on_change is not None:
            self.on_change()

    def _hand_prompts(self, battle_id: str) -> None:
        """While the camera's part of the owed drop is entered by hand: an `enter_drop` prompt for the players
        in the battle (the cubes owed, those that stay, the board's zones), then a `confirm_drop` prompt for
        the other side once one of them entered it."""
        session, key = self.session, self._key()
        if key is None or self.sensor_modes.get("camera") != "manual":
            return
        owed = session.owed
        data = {
            "battle_id": battle_id,
            "reason": owed.reason,
            "cubes": {c: n for c, n in owed.dropped.items() if n},
            "kept": self.kept_cubes(),
            "sensors": dict(self.sensor_modes),
            **self._drawing(session),
        }
        if key in self.hand_reading and session._reading is not None:
            return  # entered and confirmed: the session is checking it against the tower now
        entry = self.entry if self.entry is not None and self.entry["key"] == key else None
        words = _owed_words(data["cubes"])
        for player in self._enterers():
            pid = f"{battle_id}:{self.inputs}:enter:{player}"
            if entry is None:
                text = f"Drop {words} into the battle ship, then tap where each cube landed."
                self.core.prompts[pid] = Prompt(
                    pid, "enter_drop", text, player, data, handler=self._answer_hand
                )
            elif player == entry["by"]:
                text = f"Waiting for the other side to confirm the cubes you entered ({words})."
                self.core.prompts[pid] = Prompt(
                    pid,
                    "enter_drop",
                    text,
                    player,
                    {**data, "waiting": True, "entered": entry["cubes"]},
                    handler=self._answer_hand,
                )
            else:
                text = (
                    f"{entry['by'].capitalize()} entered where the cubes landed: do they lie so on the board?"
                )
                self.core.prompts[pid] = Prompt(
                    pid,
                    "confirm_drop",
                    text,
                    player,
                    {**data, "by": entry["by"], "entered": entry["cubes"]},
                    handler=self._answer_hand,
                )

    def _proposal_prompts(self, battle_id: str) -> None:
        prop = self.proposal
        if prop is None or prop["key"] != self._key():
            return
        a = prop["args"]
        what = (
            "is not a battle cube"
            if a.get("remove")
            else f"lies {zone_words(self.session.record['board'], a.get('zone'))}"
        )
        subject = f"cube {a['cube']}" if a.get("cube") is not None else "a hidden cube"
        text = (
            f"{prop['by'].capitalize()} says {subject} {what}. "
            "Accept, or contest it to enter the cubes by hand."
        )
        crop = self.crops.get(a["cube"]) if isinstance(a.get("cube"), int) else None
        for player in self.fighters():
            if player != prop["by"] and player not in self.bots:
                pid = f"{battle_id}:{self.inputs}:proposal:{player}"
                self.core.prompts[pid] = Prompt(
                    pid,
                    "battle_correction",
                    text,
                    player,
                    {"battle_id": battle_id, "correction": {**a}, "crop": crop, "live": True},
                    handler=self._answer_proposal,
                )

    def _drawing(self, session: Any) -> dict[str, Any]:
        """What a tablet needs to draw the battle board: the zone model and, when known, the outlines."""
        out: dict[str, Any] = {"board": session.record["board"]}
        if self.layout is not None:
            out["layout"] = self.layout
        return out

    def _answer_hand(self, player: str, answer: dict[str, Any]) -> None:
        if "cubes" in answer:
            self._enter(player, answer)
        else:
            self._confirm_entry(player, answer)

    def _cube_lists(self) -> dict[str, Any]:
        """Every cube of the reading being refereed (`reading`: cube, colour, zone, confidence, crop) and
        of each accepted drop step (`steps`: step, reason, cubes with their corrected zone and crop)."""
        from rules.battle.board import board_from_json
        from rules.battle.record import corrected_steps

        session = self.session if self.session is not None else (self.finished or {}).get("session")
        if session is None:
            return {}
        record = session.record
        out: dict[str, Any] = {"zones": sorted(record["board"]["zones"])}
        live = len(record["steps"])
        reading = self.last_reading if self.session is not None else None
        if reading is not None and isinstance(reading.get("cubes"), list):
            crops = self.step_crops.get(live, {})
            out["step"] = live
            out["reading"] = [
                {
                    "cube": i,
                    "color": c.get("color"),
                    "zone": c.get("zone"),
                    "zones": c.get("zones") or [],
                    "confidence": c.get("confidence"),
                    "crop": crops.get(i),
                }
                for i, c in enumerate(reading["cubes"])
                if isinstance(c, dict)
            ]
        steps = []
        for n, step in enumerate(corrected_steps(record, board_from_json(record["board"]))):
            if step.get("step") != "drop":
                continue
            crops = self.step_crops.get(n, {})
            steps.append(
                {
                    "step": n,
                    "reason": step.get("reason"),
                    "cubes": [
                        {
                            "cube": i,
                            "color": c.get("color"),
                            "zone": c.get("zone"),
                            "zones": c.get("zones") or [],  # 2 or more: it touches each (else `zone` only)
                            "crop": crops.get(i),
                        }
                        for i, c in enumerate(step.get("board", []))
                    ],
                }
            )
        out["steps"] = steps
        return out

    def _drop_battle_prompts(self) -> None:
        """Battle prompts go; the others (level up, ships) stay."""
        self.core.prompts = {k: p for k, p in self.core.prompts.items() if "battle_id" not in p.data}

    def _resolve(self) -> None:
        record = self.session.record
        battle_id = self.live_battle_id
        # Kept before submitting: the core's listener (sync) ends the session inside submit and must find the
        # result to show, and a correction later replaces this very event (its seq is the state's now).
        self.finished = {
            "session": self.session,
            "setup": self.setup_json,
            "battle_id": battle_id,
            "target_seq": self.core.seq,
            "view": {**final_view(self.session, self.setup_json), **self._drawing(self.session)},
            "turn": None,
        }
        try:
            # The engine ends the battle; sync() (a core listener) then clears it or starts the next one.
            self.core.submit("table", {"type": "resolve_battle", "record": record})
        except Refusal as exc:
            self.finished = None
            log.warning("battle %s: the engine refused the record: %s", battle_id, exc)
            pid = f"{battle_id}:{self.inputs}:refused"
            self.core.prompts[pid] = Prompt(
                pid,
                "battle_refused",
                f"The battle result was refused: {exc} Correct the reading on a tablet.",
                None,
                {"battle_id": battle_id},
            )
            self.core.publish_prompts()
            self.core.publish_state()
            return
        self.resolved += 1
        fin = self.finished
        if fin is not None and fin["battle_id"] == battle_id and fin["turn"] is not None:
            # What a restarted controller needs to show this result again and take corrections of it.
            self.core.log.add_session_input(
                self.core.open_game_id,
                battle_id,
                {
                    "op": "resolved",
                    "now": self.clock(),
                    "args": {
                        "setup": fin["setup"],
                        "target_seq": fin["target_seq"],
                        "turn": list(fin["turn"]),
                    },
                },
            )
        self.core.log.record_drops(self.core.table_id, self.core.game_id, battle_id, landings(record))
        if self.on_resolved is not None:
            self.on_resolved()
        if self.on_change is not None:
            self.on_change()

    # -- after the result ----------------------------------------------------------------------

    def _review_prompts(self) -> None:
        """One prompt per player (any player may correct a reading): every cube of every accepted drop, with
        its crop and the zones it may be put in. Answered with {"step", "cube", "zone"} (or "remove")."""
        fin = self.finished
        if fin is None:
            return
        session = fin["session"]
        lists = self._cube_lists()
        n = len(session.record["corrections"])
        result = fin["view"]["result"] or {}
        text = (
            f"Battle over: {result.get('winner_name', '?')} won. If the camera misread a cube, correct it "
            "here and the battle is resolved again."
        )
        fighters = self.fighters(session)
        last = fin.get("last_correction")
        for player in self.core.players:
            if not self.may_referee(player, fighters):
                continue  # a bystander sees the result on the table, never a form to overturn it
            pid = f"{fin['battle_id']}:review:{n}:{player}"
            if last is not None and player != last["by"] and not last.get("answered"):
                # The other side sees the correction first and may contest it (it is then undone).
                c = last
                board = session.record["board"]
                now_ = "not a battle cube" if c.get("remove") else zone_words(board, c["zone"])
                ctext = (
                    f"{c['by'].capitalize()} corrected cube {c['cube']} of drop {c['step'] + 1}: it lay "
                    f"{zone_words(board, c['from'])}, now {now_}. Accept it, or contest it to put the cube "
                    "back."
                )
                cid = f"{fin['battle_id']}:contest:{n}:{player}"
                self.core.prompts[cid] = Prompt(
                    cid,
                    "battle_correction",
                    ctext,
                    player,
                    {"battle_id": fin["battle_id"], "correction": c, "crop": c.get("crop")},
                    handler=self._contest,
                )
            self.core.prompts[pid] = Prompt(
                pid,
                "confirm_reading",
                text,
                player,
                {"battle_id": fin["battle_id"], "resolved": True, **lists},
                handler=self._correct_after_result,
            )

    def _correct_after_result(self, player: str, answer: dict[str, Any]) -> None:
        """A reading corrected after the engine accepted the result: the session re-resolves from the
        corrected record, and the game gets a referee correction (rules.api.correct) replacing the
        resolve_battle event with the corrected record; both are logged before anything is published."""

        with self.core.lock:
            fin = self.finished
            if fin is None:
                raise Refusal("stale", "That battle can no longer be corrected; the game has moved on.")
            step, cube = answer.get("step"), answer.get("cube")
            if (
                isinstance(step, bool)
                or not isinstance(step, int)
                or isinstance(cube, bool)
                or not isinstance(cube, int)
            ):
                raise Refusal(
                    "invalid",
                    'A correction after the result names the drop "step" and the "cube" '
                    '(numbers from the prompt) and the "zone" it really lies in.',
                )
            zone = answer.get("zone")
            if zone is not None and not isinstance(zone, str):
                raise Refusal("invalid", "The zone must be a zone id from the prompt, or null for a rail.")
            zones = answer.get("zones")
            if zones is not None and (
                not isinstance(zones, list) or len(zones) < 2 or not all(isinstance(z, str) for z in zones)
            ):
                raise Refusal(
                    "invalid",
                    "'zones' lists every zone the cube touches (2 or more zone ids from the prompt).",
                )
            if zones:
                zone = zones[0]  # "zone" is the first of "zones", for readers that know one zone
            if not self.may_referee(player, self.fighters(fin["session"])):
                raise Refusal("illegal", "Only the players in that battle (or a referee) may correct it.")
            before = _cube_at(fin["session"], step, cube)
            if before is None:
                raise Refusal("invalid", f"Drop {step + 1} has no cube {cube}; pick a cube from the list.")
            remove = bool(answer.get("remove"))
            same = (
                before.get("zones") == zones
                if zones
                else before.get("zone") == zone and len(before.get("zones") or []) < 2
            )
            if (remove and before.get("ghost")) or (not remove and not before.get("ghost") and same):
                raise Refusal(
                    "invalid",
                    "That is how the cube already lies: a correction must change something; "
                    "nothing was changed.",
                )
            self._apply_after_result(player, step, cube, zone, remove, before, contested=None, zones=zones)

    def _apply_after_result(
        self,
        player: str,
        step: int,
        cube: int,
        zone: str | None,
        remove: bool,
        before: dict[str, Any],
        contested: dict[str, Any] | None,
        zones: list[str] | None = None,
    ) -> None:
        """Re-resolve the finished battle with one cube corrected and replace its result in the game."""
        # Long on purpose: the order of a correction after the result (re-resolve, tell the engine, republish)
        # is the point; each step is short.
        from rules.battle.errors import BattleRecordError

        with self.core.lock:
            fin = self.finished
            if fin is None:  # the callers found a result; it cannot leave the table while they hold the lock
                raise Refusal("stale", "That battle's result has left the table; nothing was changed.")
            session = copy.deepcopy(
                fin["session"]
            )  # a trial: the kept session changes only if all is accepted
            now = self.clock()
            try:
                session.correct(cube, now, by=player, zone=zone, step=step, remove=remove, zones=zones)
            except BattleRecordError as exc:
                raise Refusal("illegal", exc.message) from None
            if session.outcome is None:
                raise Refusal(
                    "illegal",
                    "With that correction the battle would not be finished (a cube would need "
                    "a re-drop); correct it differently or ask the table to re-drop it.",
                )
            # Raises Refusal (nothing logged, nothing changed) when the engine refuses the corrected record.
            # Logged with the game's correction in one transaction, so a restart rebuilds the corrected
            # session.
            entry: dict[str, Any] = {
                "op": "correct_after_result",
                "now": now,
                "args": {"step": step, "cube": cube, "zone": zone, "remove": remove, "by": player},
            }
            if zones:
                entry["args"]["zones"] = list(zones)
            self.core.correct(
                fin["target_seq"],
                {"type": "resolve_battle", "record": session.record},
                by=player,
                publish=False,
                session_input=(fin["battle_id"], entry),
            )
            fin["session"] = session
            crop = self.step_crops.get(step, {}).get(cube)
            # Who, what and the evidence: the camera's crop of that cube (none when it was entered by hand).
            detail = {
                "op": "correct",
                "after_result": True,
                "step": step,
                "cube": cube,
                "zone": zone,
                "remove": remove,
                "from": before.get("zone"),
                "by": player,
                "crop": crop,
            }
            if contested is not None:
                detail["contests"] = {k: contested[k] for k in ("by", "cube", "step", "zone")}
            self.core.log.record_incident(
                self.core.table_id,
                self.core.game_id,
                fin["battle_id"],
                "contested" if contested is not None else "misread",
                detail,
            )
            fin["last_correction"] = (
                None
                if contested is not None
                else {
                    "by": player,
                    "step": step,
                    "cube": cube,
                    "zone": zone,
                    "remove": remove,
                    "from": before.get("zone"),
                    "was_ghost": bool(before.get("ghost")),
                    "crop": crop,
                }
            )
            fin["view"] = {**final_view(session, fin["setup"]), **self._drawing(session)}
            self.core.battle_view = fin["view"]
            self._drop_battle_prompts()
            self._review_prompts()
            self.core.publish_prompts()
            self.core.publish_state()

    def _contest(self, player: str, answer: dict[str, Any]) -> None:
        """The other side's answer to a correction after the result: accept it, or contest it (undone)."""
        with self.core.lock:
            fin = self.finished
            last = fin.get("last_correction") if fin is not None else None
            if fin is None or last is None:
                raise Refusal("stale", "That correction is no longer open to contest.")
            if player == last["by"] or not self.may_referee(player, self.fighters(fin["session"])):
                raise Refusal(
                    "illegal", "The other side of the battle answers a correction, not who made it."
                )
            if answer.get("accept") is True:
                last["answered"] = True
                self._drop_battle_prompts()
                self._review_prompts()
                self.core.publish_prompts()
                return
            if answer.get("contest") is not True:
                raise Refusal("invalid", 'Answer {"accept": true} or {"contest": true}.')
            before = _cube_at(fin["session"], last["step"], last["cube"]) or {}
            if last["was_ghost"]:
                raise Refusal(
                    "illegal",
                    "A cube marked as not a battle cube cannot be put back from here; "
                    "correct its zone instead.",
                )
            self._apply_after_result(
                player, last["step"], last["cube"], last["from"], False, before, contested=last
            )

    def _restore_finished(self, public: dict[str, Any]) -> None:
        """After a restart: the last battle's result, if it is still on the table (same turn), comes back
        with its correction prompts, rebuilt from the session inputs logged for it."""
        from rules.battle.contract import BattleSetup
        from rules.battle.session import BattleSession

        found = self.core.log.last_session_input(self.core.open_game_id, "resolved")
        if found is None:
            return
        battle_id, marker = found
        args = marker.get("args") or {}
        if args.get("turn") != list(_turn_key(public)):
            return  # the game has moved on: the result has left the table
        try:
            session = BattleSession(BattleSetup.from_json(args["setup"]), board=self.board, now=self.clock())
            for entry in self.core.log.session_inputs(self.core.open_game_id, battle_id):
                self._feed(entry, session)
        except Exception as exc:  # noqa: BLE001 - an old log this code cannot rebuild: no prompt, as before
            log.warning("battle %s: its result cannot be rebuilt for corrections (%s)", battle_id, exc)
            return
        if session.outcome is None:
            log.warning(
                "battle %s: the logged inputs no longer finish the battle; no correction prompt", battle_id
            )
            return
        self.step_crops = self.core.log.step_crops(self.core.open_game_id, battle_id)
        self.finished = {
            "session": session,
            "setup": args["setup"],
            "battle_id": battle_id,
            "target_seq": args["target_seq"],
            "view": {**final_view(session, args["setup"]), **self._drawing(session)},
            "turn": _turn_key(public),
        }
        self.core.battle_view = self.finished["view"]
        self._review_prompts()
        self.core.publish_prompts()
        self.core.publish_state()
        log.info("battle %s: its result is back on the table after a restart", battle_id)

    def _forget_finished(self, publish: bool = True) -> None:
        self.finished = None
        self.core.battle_view = None
        self._drop_battle_prompts()
        if publish:
            self.core.publish_prompts()
            self.core.publish_state()


def _cube_at(session: Any, step: int, cube: int) -> dict[str, Any] | None:
    """Cube `cube` of drop step `step` as the finished record has it now (with the corrections so far)."""
    from rules.battle.board import board_from_json
    from rules.battle.record import corrected_steps

    steps = corrected_steps(session.record, board_from_json(session.record["board"]))
    if not 0 <= step < len(steps) or steps[step].get("step") != "drop":
        return None
    board = steps[step].get("board", [])
    return dict(board[cube]) if 0 <= cube < len(board) else None


def zone_words(board: dict[str, Any], zone: str | None) -> str:
    """Where a cube lies, in the board's words ("in Strength 2", "on a rail"), never a zone id alone."""
    if zone is None:
        return "on a rail"
    z = (board.get("zones") or {}).get(zone) or {}
    kind = z.get("kind")
    if kind == "strength":
        return f"in a Strength {z.get('strength', '')} zone"
    if kind == "plunder":
        bits = [
            f"{z['cargo']} Cargo" if z.get("cargo") else "",
            f"{z['coins']} coins" if z.get("coins") else "",
        ]
        return f"in a Plunder zone ({' + '.join(b for b in bits if b)})"
    names: dict[Any, str] = {
        "exploding": "the Exploding shot zone",
        "damage": "a Damage zone",
        "miss": "a Miss zone",
    }
    return f"in {names.get(kind, 'zone ' + zone)}"


def _owed_words(counts: dict[str, int]) -> str:
    parts = [f"{n} {c} cube{'s' if n != 1 else ''}" for c, n in sorted(counts.items()) if n]
    return " and ".join(parts) if parts else "no cubes"


def _turn_key(public: dict[str, Any]) -> tuple[Any, Any]:
    return public.get("turn"), public.get("active")


def final_view(session: Any, setup: dict[str, Any] | None) -> dict[str, Any]:
    """The session's last view with the result spelled out for the pages: winner, tallies per side (the
    view's `sides`), damage on each Ship after the battle, plunder, who sinks. Shown until the next battle
    or the next turn, with phase "resolved"."""
    from rules.battle.helpers import ship_damage_after, sunk_sides

    view = session.view()
    outcome = session.outcome
    names = {"attacker": session.setup.attacker.name, "defender": session.setup.defender.name}
    view.update(
        {
            "phase": "resolved",
            "provisional": False,
            "expected_drop": None,
            "to_act": None,
            "prompts": [],
            "location": (setup or {}).get("location"),
        }
    )
    if outcome is not None and session.setup.kind == "tiebreak":
        leaders = outcome.leaders()
        view["result"] = {
            **outcome.to_json(),
            "winner_name": leaders[0] if len(leaders) == 1 else None,
            "leaders": leaders,
        }
    elif outcome is not None:
        sides: tuple[SideName, SideName] = ("attacker", "defender")
        players = [s for s in sides if getattr(session.setup, s).is_player]
        view["result"] = {
            **outcome.to_json(),
            "winner_name": names[outcome.winner],
            "loser_name": names["defender" if outcome.winner == "attacker" else "attacker"],
            "plunder": {
                s: {"cargo": getattr(outcome, s).plunder_cargo, "coins": getattr(outcome, s).plunder_coins}
                for s in sides
            },
            "damage_after": {names[s]: ship_damage_after(session.setup, outcome, s) for s in players},
            "sunk": [names[s] for s in sunk_sides(session.setup, outcome)],
        }
    return view


def landings(record: dict[str, Any]) -> list[tuple[str, str]]:
    """(colour, zone) of each cube that landed, drop by drop: what a reading has that the one before
    lacked."""
    out: list[tuple[str, str]] = []
    before: Counter[tuple[str, str]] = Counter()
    for step in record.get("steps", []):
        if step.get("step") != "drop":
            continue
        now = Counter((c.get("color", "?"), c.get("zone") or "rail") for c in step.get("board", []))
        out.extend((now - before).elements())
        before = now
    return out
