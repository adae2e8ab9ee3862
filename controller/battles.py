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
from typing import Any

from controller.core import Prompt, Refusal, TableCore

log = logging.getLogger("smart_table.battles")

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


class BattleDriver:
    def __init__(self, core: TableCore, clock: Callable[[], float] = time.time, board: dict[str, Any] | None = None,
                 on_change: Callable[[], None] | None = None, on_resolved: Callable[[], None] | None = None) -> None:
        self.core, self.clock, self.board = core, clock, board
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
        self.step_crops: dict[int, dict[int, str]] = {}  # drop step -> the crops of the reading it was read from
        self.last_reading: dict[str, Any] | None = None
        # The battle just resolved: its session (to correct a reading after the result), the seq of its
        # resolve_battle event (what a correction replaces) and its final view, shown until the next
        # battle or the next turn.
        self.finished: dict[str, Any] | None = None
        self._restored = False  # the first sync after a (re)start also brings back a result still on the table
        core.listeners.append(lambda _events: self.sync())

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
            self.step_crops = self.core.log.step_crops(self.core.game_id, battle_id)  # empty for a new battle
            for entry in self.core.log.session_inputs(self.core.game_id, battle_id):
                try:
                    self._feed(entry)
                except Exception as exc:  # noqa: BLE001 - a logged input the new setup no longer takes
                    log.warning("battle %s: logged input %s no longer applies (%s)", battle_id, entry.get("op"), exc)
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
                raise Refusal("invalid", f"That battle input is not plain JSON ({exc}); nothing changed.") from None
            try:
                self._feed(entry)
            except BattleRecordError as exc:
                raise Refusal("illegal", exc.message) from None
            except (TypeError, ValueError) as exc:
                raise Refusal("invalid", f"That battle input is malformed ({exc}).") from None
            self.core.log.add_session_input(self.core.game_id, self.setup_json["battle_id"], entry)
            if op in ("cube_lost", "adjust_tower", "correct"):
                # A person settled a disagreement between the tower, the camera and the board: tower health.
                kind = "misread" if op == "correct" else "disagreement"
                self.core.log.record_incident(self.core.table_id, self.core.game_id, self.setup_json["battle_id"],
                                              kind, {"op": op, **args})
            self._publish()

    def _feed(self, entry: dict[str, Any], session: Any = None) -> None:
        """One logged input into the live session, or into `session` (a finished battle being rebuilt)."""
        op, args, now = entry["op"], dict(entry.get("args") or {}), float(entry.get("now", 0.0))
        if session is not None:
            if op == "correct_after_result":
                session.correct(args["cube"], now, by=args.get("by"), zone=args.get("zone"), step=args["step"],
                                remove=bool(args.get("remove")))
            elif op in OPS:
                getattr(session, op)(**args, now=now)
            return  # "baseline" and "resolved" say nothing to a finished session
        if op == "baseline":
            self.baseline = dict(args["totals"])
            self.inputs += 1
            return
        if op not in OPS:
            raise ValueError(f"unknown battle input {op!r}")
        getattr(self.session, op)(**args, now=now)
        self.inputs += 1

    def tower_totals(self, totals: dict[str, int]) -> None:
        """The bridge's running totals per colour; the owed drop's counts are totals minus the baseline."""
        with self.core.lock:
            self.last_totals = dict(totals)
            if self.session is None or self.session.owed is None:
                return
            if self.baseline is None:
                return  # a drop owed before any baseline: the sim / bridge sets one when the drop starts
            counts = {c: n - self.baseline.get(c, 0) for c, n in totals.items() if n - self.baseline.get(c, 0) > 0}
            if counts != self.session._tower:  # heartbeats repeat the totals: feed only a change
                self.input("tower", {"counts": counts})

    def start_drop(self, totals: dict[str, int]) -> None:
        """Mark the tower totals at which the owed drop starts (logged, so a restart keeps it)."""
        with self.core.lock:
            if self.session is not None:
                self.input("baseline", {"totals": dict(totals)})

    def camera(self, reading: dict[str, Any], settled: bool, crops: Any = None) -> None:
        """A camera reading of the battle board; `crops` ([{"index", "jpeg_base64"}], vision.board's) are
        kept with the drop step the reading is for, so a player can check any cube of it later."""
        with self.core.lock:
            if self.session is not None:
                if isinstance(crops, list):
                    self.crops = {c["index"]: c["jpeg_base64"] for c in crops if isinstance(c, dict)
                                  and isinstance(c.get("index"), int) and isinstance(c.get("jpeg_base64"), str)}
                    step = len(self.session.record["steps"])
                    self.step_crops[step] = dict(self.crops)
                    # Kept in the log too: a player checking a cube after a restart still sees what the camera saw.
                    self.core.log.set_step_crops(self.core.game_id, self.setup_json["battle_id"], step, self.crops)
                if isinstance(reading, dict):
                    self.last_reading = reading
            self.input("camera", {"reading": reading, "settled": settled})

    # -- answers from tablets ------------------------------------------------------------------

    def _answer(self, player: str, answer: dict[str, Any]) -> None:
        if answer.get("pass"):
            self.input("pass_turn", {"player": player})
        elif "ability" in answer:
            args = {"player": player, "ability": answer["ability"]}
            args.update({k: answer[k] for k in ("cube", "to") if k in answer})
            self.input("use_ability", args)
        elif "cube_lost" in answer:
            self.input("cube_lost", {"color": answer["cube_lost"], "by": player})
        elif "adjust_tower" in answer:
            self.input("adjust_tower", {"color": answer["adjust_tower"], "delta": int(answer.get("delta", 0)),
                                        "by": player})
        elif "cube" in answer or "add" in answer:
            args = {"cube": answer.get("cube"), "by": player}
            args.update({k: answer[k] for k in ("zone", "step", "color", "remove", "add") if k in answer})
            self.input("correct", args)
        else:
            raise Refusal("invalid", "A battle answer needs one of: pass, ability, cube_lost, adjust_tower, cube.")

    # -- output --------------------------------------------------------------------------------

    def _publish(self, live: bool = True) -> None:
        session = self.session
        battle_id = self.setup_json["battle_id"]
        self.core.battle_view = session.view()
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
        owed = session.owed
        key = None if owed is None else (battle_id, len(session.record["steps"]), owed.reason)
        if key != self.owed_key:
            self.owed_key = key
            if key is not None and live:
                # The tower's running totals now are where this drop's counts start; logged so a restart
                # mid-drop counts from the same place (a replay restores it in order).
                entry = {"op": "baseline", "args": {"totals": dict(self.last_totals)}, "now": self.clock()}
                self._feed(entry)
                self.core.log.add_session_input(self.core.game_id, battle_id, entry)
        if session.outcome is not None:
            self._resolve()
            return
        self.core.publish_prompts()
        self.core.publish_state()
        if self.on_change is not None:
            self.on_change()

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
            out["reading"] = [{"cube": i, "color": c.get("color"), "zone": c.get("zone"),
                               "confidence": c.get("confidence"), "crop": crops.get(i)}
                              for i, c in enumerate(reading["cubes"]) if isinstance(c, dict)]
        steps = []
        for n, step in enumerate(corrected_steps(record, board_from_json(record["board"]))):
            if step.get("step") != "drop":
                continue
            crops = self.step_crops.get(n, {})
            steps.append({"step": n, "reason": step.get("reason"),
                          "cubes": [{"cube": i, "color": c.get("color"), "zone": c.get("zone"), "crop": crops.get(i)}
                                    for i, c in enumerate(step.get("board", []))]})
        out["steps"] = steps
        return out

    def _drop_battle_prompts(self) -> None:
        """Battle prompts go; the others (level up, ships) stay."""
        self.core.prompts = {k: p for k, p in self.core.prompts.items() if "battle_id" not in p.data}

    def _resolve(self) -> None:
        record = self.session.record
        battle_id = self.setup_json["battle_id"]
        # Kept before submitting: the core's listener (sync) ends the session inside submit and must find the
        # result to show, and a correction later replaces this very event (its seq is the state's now).
        self.finished = {"session": self.session, "setup": self.setup_json, "battle_id": battle_id,
                         "target_seq": self.core.seq, "view": final_view(self.session, self.setup_json), "turn": None}
        try:
            # The engine ends the battle; sync() (a core listener) then clears it or starts the next one.
            self.core.submit("table", {"type": "resolve_battle", "record": record})
        except Refusal as exc:
            self.finished = None
            log.warning("battle %s: the engine refused the record: %s", battle_id, exc)
            pid = f"{battle_id}:{self.inputs}:refused"
            self.core.prompts[pid] = Prompt(pid, "battle_refused", f"The battle result was refused: {exc} "
                                            "Correct the reading on a tablet.", None, {"battle_id": battle_id})
            self.core.publish_prompts()
            self.core.publish_state()
            return
        self.resolved += 1
        fin = self.finished
        if fin is not None and fin["battle_id"] == battle_id and fin["turn"] is not None:
            # What a restarted controller needs to show this result again and take corrections of it.
            self.core.log.add_session_input(self.core.game_id, battle_id, {"op": "resolved", "now": self.clock(), "args": {
                "setup": fin["setup"], "target_seq": fin["target_seq"], "turn": list(fin["turn"])}})
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
        text = (f"Battle over: {result.get('winner_name', '?')} won. If the camera misread a cube, correct it "
                "here and the battle is resolved again.")
        for player in self.core.players:
            pid = f"{fin['battle_id']}:review:{n}:{player}"
            self.core.prompts[pid] = Prompt(pid, "confirm_reading", text, player,
                                            {"battle_id": fin["battle_id"], "resolved": True, **lists},
                                            handler=self._correct_after_result)

    def _correct_after_result(self, player: str, answer: dict[str, Any]) -> None:
        """A reading corrected after the engine accepted the result: the session re-resolves from the
        corrected record, and the game gets a referee correction (rules.api.correct) replacing the
        resolve_battle event with the corrected record; both are logged before anything is published."""
        from rules.battle.errors import BattleRecordError

        with self.core.lock:
            fin = self.finished
            if fin is None:
                raise Refusal("stale", "That battle can no longer be corrected; the game has moved on.")
            step, cube = answer.get("step"), answer.get("cube")
            if isinstance(step, bool) or not isinstance(step, int) or isinstance(cube, bool) or not isinstance(cube, int):
                raise Refusal("invalid", "A correction after the result names the drop \"step\" and the \"cube\" "
                                         "(numbers from the prompt) and the \"zone\" it really lies in.")
            zone = answer.get("zone")
            if zone is not None and not isinstance(zone, str):
                raise Refusal("invalid", "The zone must be a zone id from the prompt, or null for a rail.")
            session = copy.deepcopy(fin["session"])  # a trial: the kept session changes only if all is accepted
            now, remove = self.clock(), bool(answer.get("remove"))
            try:
                session.correct(cube, now, by=player, zone=zone, step=step, remove=remove)
            except BattleRecordError as exc:
                raise Refusal("illegal", exc.message) from None
            if session.outcome is None:
                raise Refusal("illegal", "With that correction the battle would not be finished (a cube would need "
                                         "a re-drop); correct it differently or ask the table to re-drop it.")
            # Raises Refusal (nothing logged, nothing changed) when the engine refuses the corrected record.
            # Logged with the game's correction in one transaction, so a restart rebuilds the corrected session.
            entry = {"op": "correct_after_result", "now": now,
                     "args": {"step": step, "cube": cube, "zone": zone, "remove": remove, "by": player}}
            self.core.correct(fin["target_seq"], {"type": "resolve_battle", "record": session.record}, by=player,
                              publish=False, session_input=(fin["battle_id"], entry))
            fin["session"] = session
            self.core.log.record_incident(self.core.table_id, self.core.game_id, fin["battle_id"], "misread",
                                          {"op": "correct", "after_result": True, "step": step, "cube": cube,
                                           "zone": zone, "by": player})
            fin["view"] = final_view(session, fin["setup"])
            self.core.battle_view = fin["view"]
            self._drop_battle_prompts()
            self._review_prompts()
            self.core.publish_prompts()
            self.core.publish_state()

    def _restore_finished(self, public: dict[str, Any]) -> None:
        """After a restart: the last battle's result, if it is still on the table (same turn), comes back
        with its correction prompts, rebuilt from the session inputs logged for it."""
        from rules.battle.contract import BattleSetup
        from rules.battle.session import BattleSession

        found = self.core.log.last_session_input(self.core.game_id, "resolved")
        if found is None:
            return
        battle_id, marker = found
        args = marker.get("args") or {}
        if args.get("turn") != list(_turn_key(public)):
            return  # the game has moved on: the result has left the table
        try:
            session = BattleSession(BattleSetup.from_json(args["setup"]), board=self.board, now=self.clock())
            for entry in self.core.log.session_inputs(self.core.game_id, battle_id):
                self._feed(entry, session)
        except Exception as exc:  # noqa: BLE001 - an old log this code cannot rebuild: no prompt, as before
            log.warning("battle %s: its result cannot be rebuilt for corrections (%s)", battle_id, exc)
            return
        if session.outcome is None:
            log.warning("battle %s: the logged inputs no longer finish the battle; no correction prompt", battle_id)
            return
        self.step_crops = self.core.log.step_crops(self.core.game_id, battle_id)
        self.finished = {"session": session, "setup": args["setup"], "battle_id": battle_id,
                         "target_seq": args["target_seq"], "view": final_view(session, args["setup"]),
                         "turn": _turn_key(public)}
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
    view.update({"phase": "resolved", "provisional": False, "expected_drop": None, "to_act": None, "prompts": [],
                 "location": (setup or {}).get("location")})
    if outcome is not None:
        sides = ("attacker", "defender")
        players = [s for s in sides if getattr(session.setup, s).is_player]
        view["result"] = {
            **outcome.to_json(), "winner_name": names[outcome.winner],
            "loser_name": names["defender" if outcome.winner == "attacker" else "attacker"],
            "plunder": {s: {"cargo": getattr(outcome, s).plunder_cargo, "coins": getattr(outcome, s).plunder_coins}
                        for s in sides},
            "damage_after": {names[s]: ship_damage_after(session.setup, outcome, s) for s in players},
            "sunk": [names[s] for s in sunk_sides(session.setup, outcome)],
        }
    return view


def landings(record: dict[str, Any]) -> list[tuple[str, str]]:
    """(colour, zone) of each cube that landed, drop by drop: what a reading has that the one before lacked."""
    out: list[tuple[str, str]] = []
    before: Counter[tuple[str, str]] = Counter()
    for step in record.get("steps", []):
        if step.get("step") != "drop":
            continue
        now = Counter((c.get("color", "?"), c.get("zone") or "rail") for c in step.get("board", []))
        out.extend((now - before).elements())
        before = now
    return out
