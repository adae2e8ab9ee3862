"""Ship movement from the table: the camera's ocean-grid reading and the zone sensors, turned into moves.

Owns the wiring of `controller.fusion` (the ships engineer's pure logic) into the table: it keeps the
latest `vision.table` reading and the bridge's latest `zone_state`, fuses them against the positions the
rules engine knows, publishes every open question as a prompt, and submits the active player's move
(`{"type": "move", "path": [...]}`) when the fused position changed and the way is clear, or asks which
way (`ship_path` prompt) when the shortest ways differ in crossing a Garrison of another player (the
hazards, from the public view). A board the camera sees turned face up where the
game waits for that square's reveal is reported as the table's chance outcome (`reveal_board`). A move
the engine refuses becomes a prompt with
the engine's sentence (put the ship back, or choose again). It decides nothing about legality.

It also says whether the ocean-grid camera is live (`TableCore.ocean_camera_live`): from its first
reading until it stays silent for `CAMERA_REVEAL_WAIT_S` while a board waits to be turned up (its next
reading makes it live again), and, for a watcher that sends heartbeats, after
`controller.liveness.CAMERA_SILENT_S` without a reading or a heartbeat (its next message makes it live
again). While it is not live, the tablets report the board turned up (the game's
`camera_chance`).
"""

from __future__ import annotations

import logging
from typing import Any

from controller.core import Prompt, Refusal, TableCore
from controller.liveness import Heartbeat, is_health, is_heartbeat

log = logging.getLogger(__name__)

# How long a live camera may take to see a board turned up before a tablet is asked which one it is.
CAMERA_REVEAL_WAIT_S = 20.0


def garrison_hazards(view: dict[str, Any], players: list[str]) -> dict[str, set[str]]:
    """Per ship, the squares whose Garrison fires on it (an island with a Garrison controlled by another
    player), from the public view: a move whose shortest ways differ in crossing one is asked, not guessed."""
    out: dict[str, set[str]] = {p: set() for p in players}
    for square, cell in (view.get("grid") or {}).items():
        isl = cell.get("island") if isinstance(cell, dict) else None
        if not isl or "garrison" not in (isl.get("buildings") or []) or not isl.get("controller"):
            continue
        for p in players:
            if p != isl["controller"]:
                out[p].add(square)
    return out


class ShipWatcher:
    def __init__(self, core: TableCore) -> None:
        self.core = core
        self.camera_reading: dict[str, Any] | None = None
        self.zone_state: dict[str, Any] | None = None
        self.told: dict[str, str] = {}  # ship -> square a player said, until the sources agree again
        self.moves = 0
        self.reveals = 0
        self.last_reading_at: float | None = None  # the core's clock at the camera's latest reading
        self.waiting_since: tuple[int, float] | None = None  # (seq, clock) a camera-read chance began waiting
        self.beat = Heartbeat(core.clock)
        core.sensor_sources.append(self.sensors)

    def sensors(self) -> dict[str, str]:
        """The zone sensors' line of the table view (the camera's is the core's own `ocean_camera`)."""
        if not self.core.game.ocean_grid:
            return {}
        return {"zones": "live" if self.zone_state is not None else "manual"}

    def camera(self, msg: dict[str, Any]) -> None:
        if is_health(msg):
            # Its stream dropped (vision.health): entered by hand at once; its next heartbeat ends it.
            if not msg.get("online", True):
                with self.core.lock:
                    if self.core.ocean_camera_live:
                        log.warning("ocean camera: %s; entered by hand", msg.get("reason", "offline"))
                    self.beat.down()
                    self._set_live(False)
            return
        if is_heartbeat(msg):
            with self.core.lock:
                if self.beat.heard(msg):
                    self._set_live(True)
            return
        self.beat.heard(msg)
        reading = msg.get("reading", msg)
        if isinstance(reading, dict):
            with self.core.lock:
                self.camera_reading = reading
                self.last_reading_at = self.core.clock()
                self._set_live(True)
            self.update()

    def _set_live(self, live: bool) -> None:
        """Tell the table whether the camera reports the boards; the tablets' offers change with it."""
        core = self.core
        if core.ocean_camera_live != live:
            core.ocean_camera_live = live
            if core.state is not None:
                core.publish_state()

    def tick(self) -> None:
        """Called about ten times a second: a live camera that has said nothing for `CAMERA_REVEAL_WAIT_S`
        while a board waits to be turned up counts as silent, and a tablet is asked which board it is."""
        core = self.core
        with core.lock:
            if core.ocean_camera_live and self.beat.silent():
                log.warning(
                    "ocean camera: nothing heard for %g s; shown as entered by hand", self.beat.silent_s
                )
                self._set_live(False)
            if not core.ocean_camera_live or core.state is None:
                self.waiting_since = None
                return
            data = getattr(core.state, "data", None)
            pending = (data.get("pending") or [None])[0] if isinstance(data, dict) else None
            if not isinstance(pending, dict) or pending.get("kind") not in core.game.camera_chance:
                self.waiting_since = None
                return
            now = core.clock()
            if self.waiting_since is None or self.waiting_since[0] != core.seq:
                self.waiting_since = (core.seq, now)
                return
            quiet = now - max(self.waiting_since[1], self.last_reading_at or float("-inf"))
            if quiet >= CAMERA_REVEAL_WAIT_S:
                log.warning(
                    "ocean camera: nothing read %g s after %s began waiting; a tablet reports it",
                    CAMERA_REVEAL_WAIT_S,
                    pending.get("kind"),
                )
                self._set_live(False)

    def zones(self, msg: dict[str, Any]) -> None:
        self.zone_state = msg
        self.update()

    def update(self) -> None:
        from controller.fusion import fuse_positions, propose_moves

        core = self.core
        with core.lock:
            if core.state is None or not core.game.ocean_grid:
                return  # a game whose ships the ocean-grid camera does not read (its own declaration)
            view = core.engine.public_view(core.state)
            players = list(view.get("players", []))
            known = {c: view["p"][c]["ship"]["at"] for c in players}
            fusion = fuse_positions(players, self.camera_reading, self.zone_state, known)
            core.prompts = {k: p for k, p in core.prompts.items() if not k.startswith("ships:")}
            for i, q in enumerate(fusion.questions):
                if q.ship is not None and q.ship in self.told:
                    continue
                pid = f"ships:{core.seq}:{i}"
                core.prompts[pid] = Prompt(
                    pid,
                    "sensor_disagree",
                    q.prompt,
                    None,
                    {
                        "question": q.kind,
                        "ship": q.ship,
                        "square": q.square,
                        "options": [list(o) if isinstance(o, tuple) else o for o in q.options],
                    },
                    handler=self._told_position(q.ship),
                )
            positions = {**fusion.positions(), **self.told}
            active = view.get("active")
            hazards = garrison_hazards(view, players)
            for move in propose_moves(known, positions, hazards):
                if move.ship != active:
                    pid = f"ships:{core.seq}:out-of-turn:{move.ship}"
                    core.prompts[pid] = Prompt(
                        pid,
                        "ship_path",
                        f"The {move.ship} ship seems to have moved from "
                        f"{move.start} to {move.end} out of turn: put it back on {move.start}.",
                        None,
                        {"ship": move.ship, "start": move.start, "end": move.end},
                    )
                    continue
                if move.question is not None:  # move.ask, spelt so the checker knows the question is there
                    pid = f"ships:{core.seq}:way"
                    options = [list(o) for o in move.question.options]
                    # Which Garrisons each way passes (the reason it is asked), for the tablet to show.
                    crossings = [[sq for sq in o[1:] if sq in hazards.get(move.ship, ())] for o in options]
                    core.prompts[pid] = Prompt(
                        pid,
                        "ship_path",
                        move.question.prompt,
                        active,
                        {
                            "ship": move.ship,
                            "start": move.start,
                            "end": move.end,
                            "options": options,
                            "crossings": crossings,
                        },
                        handler=self._chosen_way(move),
                    )
                    continue
                try:
                    core.submit(active, move.action())
                    self.moves += 1
                    self.told.pop(move.ship, None)
                except Refusal as exc:
                    pid = f"ships:{core.seq}:refused"
                    core.prompts[pid] = Prompt(
                        pid,
                        "ship_path",
                        f"{exc.reason} Put the {move.ship} ship back on "
                        f"{move.start}, or choose another move.",
                        active,
                        {"ship": move.ship, "start": move.start, "end": move.end},
                    )
            self._reveal_boards()
            core.publish_prompts()

    def _reveal_boards(self) -> None:
        """A board face down before and face up now is an exploration's outcome: report it as the table's
        chance."""
        core = self.core
        reading = self.camera_reading or {}
        for entry in reading.get("boards", []) or []:
            if (
                not isinstance(entry, dict)
                or not entry.get("face_up")
                or not isinstance(entry.get("board"), str)
            ):
                continue
            view = core.engine.public_view(core.state)
            square = entry.get("square")
            cell = view.get("grid", {}).get(square)
            waiting = [
                w
                for w in view.get("waiting_for", [])
                if w.get("kind") == "reveal_board" and w.get("square") == square
            ]
            if cell is None or cell.get("face_up") or not waiting:
                continue
            try:
                core.submit("table", {"type": "reveal_board", "square": square, "board": entry["board"]})
                self.reveals += 1
            except Refusal as exc:
                pid = f"ships:{core.seq}:board:{square}"
                core.prompts[pid] = Prompt(
                    pid,
                    "sensor_disagree",
                    f"The camera sees {entry['board']} on {square}, but the game refuses it: {exc.reason}",
                    None,
                    {"square": square, "board": entry["board"]},
                )

    def _told_position(self, ship: str | None):
        def answer(player: str, data: dict[str, Any]) -> None:
            square, who = data.get("square"), data.get("ship", ship)
            if not isinstance(square, str) or not isinstance(who, str):
                raise Refusal(
                    "invalid",
                    "Answer with the ship and the square it stands on, e.g. "
                    '{"ship": "red", "square": "r2c1"}.',
                )
            self.told[who] = square
            self.update()

        return answer

    def _chosen_way(self, move: Any):
        def answer(player: str, data: dict[str, Any]) -> None:
            path = data.get("path")
            try:
                action = move.action(tuple(path) if isinstance(path, list) else None)
            except ValueError as exc:
                raise Refusal("invalid", f"{exc}.") from None
            self.core.submit(player, action)
            self.moves += 1
            self.update()

        return answer
