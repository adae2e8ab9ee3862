"""The controller's ZeroMQ inputs: the bridge's events and health, the vision process's readings.

Owns the SUB sockets and the translation of each message into a call on the battle driver, the game
log's tower records or a device availability (docs/controller.md lists every message). A malformed
message is logged in one line and dropped; nothing here can stop the controller.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable
from typing import Any

import zmq

from contracts import topics
from controller.core import Refusal

log = logging.getLogger(__name__)

TOPICS = topics.ALL


class ZmqInputs:
    def __init__(self, endpoints: list[str], handlers: dict[bytes, Callable[[dict[str, Any]], None]]) -> None:
        self.endpoints = [e for e in endpoints if e]
        self.handlers = handlers
        self.ctx: zmq.Context[zmq.Socket[bytes]] = zmq.Context.instance()
        self.thread: threading.Thread | None = None
        self.stop_event = threading.Event()
        self.received = 0
        self.dropped = 0

    def start(self) -> None:
        self.thread = threading.Thread(target=self._run, name="zmq-inputs", daemon=True)
        self.thread.start()

    def stop(self) -> None:
        self.stop_event.set()
        if self.thread is not None:
            self.thread.join(timeout=2)

    def _run(self) -> None:
        sub = self.ctx.socket(zmq.SUB)
        sub.setsockopt(zmq.LINGER, 0)
        sub.setsockopt(zmq.RCVHWM, 100000)
        for topic in self.handlers:
            sub.setsockopt(zmq.SUBSCRIBE, topic)
        for endpoint in self.endpoints:
            sub.connect(endpoint)  # connect never fails on a missing peer: ZeroMQ retries by itself
        poller = zmq.Poller()
        poller.register(sub, zmq.POLLIN)
        try:
            while not self.stop_event.is_set():
                if not poller.poll(100):
                    continue
                parts = sub.recv_multipart()
                self.dispatch(parts)
        finally:
            sub.close()

    def dispatch(self, parts: list[bytes]) -> None:
        if len(parts) != 2:
            self.dropped += 1
            log.warning("ZeroMQ message with %d parts dropped: expected [topic, JSON]", len(parts))
            return
        topic, raw = parts
        handler = self.handlers.get(topic)
        try:
            msg = json.loads(raw)
            if not isinstance(msg, dict):
                raise ValueError("not a JSON object")
        except ValueError as exc:
            self.dropped += 1
            log.warning("%s message dropped: not a JSON object (%s)", topic.decode(errors="replace"), exc)
            return
        self.received += 1
        if handler is None:
            return
        try:
            handler(msg)
        except Refusal as exc:
            log.warning("%s refused by the battle: %s", topic.decode(), exc)
        except Exception:  # noqa: BLE001 - sensor input must never stop the controller
            log.exception("%s message could not be handled", topic.decode())


class SensorWiring:
    """What each bridge / vision message does to the table (see docs/controller.md)."""

    def __init__(
        self, service: Any, jam_timeout: float = 3.0, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.service = service
        self.jam_active = False
        self.jam_timeout, self.clock = jam_timeout, clock
        self.in_tower_since: float | None = None  # when cubes were first seen inside the tower, still there
        self.held_reported = False

    @property
    def core(self) -> Any:
        return self.service.core

    def bridge_event(self, msg: dict[str, Any]) -> None:
        kind = msg.get("type")
        driver = self.service.battles
        if driver is not None:
            driver.sensor_seen("tower")
        if kind == "hello" and msg.get("rebooted"):
            # Its totals restart from 0: the battle re-baselines on the next totals (another boot number).
            log.warning("the tower rebooted (boot %s)", msg.get("boot"))
        if kind in ("cube_dropped", "heartbeat", "full_state") and isinstance(msg.get("totals"), dict):
            totals = {c: int(n) for c, n in msg["totals"].items() if isinstance(n, int) and n > 0}
            if driver is not None:
                # Totals are running counts, so a heartbeat or a resync snapshot carries every cube too
                # (one whose own event was folded into a resync is not lost); the boot tells a restart.
                driver.tower_totals(totals, boot=msg.get("boot"))
        elif kind in ("zone_state", "full_state") and isinstance(msg.get("squares"), dict):
            if self.service.ships is not None:
                self.service.ships.zones(msg)
        if kind == "fault" and msg.get("kind") == "jam":
            if msg.get("active") and not self.jam_active:
                self._jam({"source": "firmware", "sensor": msg.get("sensor"), "detail": msg.get("detail")})
            self.jam_active = bool(msg.get("active"))
        if kind in ("heartbeat", "full_state") and isinstance(msg.get("in_tower"), int):
            # A cube went in and did not come out: still inside after tower.jam_timeout seconds.
            now = self.clock()
            if msg["in_tower"] <= 0:
                self.in_tower_since, self.held_reported = None, False
            elif self.in_tower_since is None:
                self.in_tower_since = now
            elif (
                now - self.in_tower_since >= self.jam_timeout
                and not self.held_reported
                and not self.jam_active
            ):
                self.held_reported = True
                self._jam(
                    {
                        "source": "in_tower",
                        "cubes": msg["in_tower"],
                        "seconds": round(now - self.in_tower_since, 1),
                    }
                )

    def _jam(self, detail: dict[str, Any]) -> None:
        driver = self.service.battles
        battle = driver.setup_json["battle_id"] if driver is not None and driver.setup_json else None
        self.core.log.record_incident(self.core.table_id, self.core.game_id, battle, "jam", detail)
        self.service.refresh_tower_warning()

    def bridge_health(self, msg: dict[str, Any]) -> None:
        mqtt = self.service.mqtt
        link = msg.get("link") or msg.get("state")
        if self.service.battles is not None:
            # A tower whose link is down or stale counts as unplugged: its part of a drop is entered by hand.
            self.service.battles.sensor_seen("tower", link in ("up", "synced", "online", True))
        if mqtt is not None:
            mqtt.set_device(
                "tower",
                link in ("up", "synced", "online", True),
                **{k: v for k, v in msg.items() if isinstance(v, int | float | str | bool) or v is None},
            )

    def vision_board(self, msg: dict[str, Any]) -> None:
        driver = self.service.battles
        if driver is not None:
            driver.sensor_seen("camera")
        reading = msg.get("reading", msg)
        self._camera_warning(reading.get("warning") if isinstance(reading, dict) else None)
        if driver is None or driver.session is None:
            return
        # vision.live publishes a board only once it has settled and two readings agree; its crops go with
        # the drop step the reading is for (confirm_reading prompts show them).
        driver.camera(reading, bool(msg.get("settled", True)), crops=msg.get("crops"))

    def _camera_warning(self, warning: Any) -> None:
        """Each published reading says whether the light drifted since calibration; the table view shows
        the latest one's warning (a re-calibrate prompt) until a reading comes without it."""
        core = self.service.core
        text = warning if isinstance(warning, str) and warning else None
        with core.lock:
            if text != core.camera_warning:
                core.camera_warning = text
                if text:
                    log.warning("camera: %s", text)
                core.publish_state()

    def vision_table(self, msg: dict[str, Any]) -> None:
        if self.service.ships is not None:
            self.service.ships.camera(msg)

    def vision_health(self, msg: dict[str, Any]) -> None:
        camera = msg.get("camera")
        if isinstance(camera, str) and camera != topics.VISION_BOARD.decode():
            # A table camera's stream (ships-watch, regions-watch): its own reader says so, not the battle's.
            inputs = self.service.inputs
            handler = inputs.handlers.get(camera.encode()) if inputs is not None else None
            if handler is not None:
                handler(msg)
            return
        mqtt = self.service.mqtt
        if self.service.battles is not None:
            self.service.battles.sensor_seen("camera", bool(msg.get("online", True)))
        if mqtt is not None:
            mqtt.set_device("camera", bool(msg.get("online", True)), ts=msg.get("ts", time.time()))

    def handlers(self) -> dict[bytes, Callable[[dict[str, Any]], None]]:
        return {
            topics.BRIDGE_EVENT: self.bridge_event,
            topics.BRIDGE_HEALTH: self.bridge_health,
            topics.VISION_BOARD: self.vision_board,
            topics.VISION_HEALTH: self.vision_health,
            topics.VISION_TABLE: self.vision_table,
        }
