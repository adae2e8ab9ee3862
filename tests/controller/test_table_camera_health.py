"""A table camera whose stream drops says so on `vision.health` (vision.settled_publisher.CameraHealth), as
the battle board's camera does, naming the topic of its readings (`camera`): the controller makes that
camera's part manual at once (not after CAMERA_SILENT_S of silence) and leaves the battle board's camera as
it was. The brief: "Every sensor can fail; the table always lets people go on by hand, and says which
sensors are live." Real ZeroMQ between a PUB socket standing for the watch and the controller's inputs."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import zmq

from contracts import topics
from controller.config import defaults
from controller.service import ControllerService
from controller.testing import free_port


def send_until(pub: zmq.Socket[bytes], topic: bytes, msg: dict[str, Any], done: Callable[[], bool]) -> None:
    """Publish `msg` until `done()` (a SUB just connected misses the first messages), 20 s at most."""
    deadline = time.monotonic() + 20
    while not done():
        assert time.monotonic() < deadline, f"the controller did not act on {msg}"
        pub.send_multipart([topic, json.dumps(msg).encode()])
        time.sleep(0.05)


def test_a_table_cameras_dropped_stream_is_its_own_part_not_the_battle_boards(tmp_path: Path) -> None:
    cfg = defaults()
    cfg.set("table.database", str(tmp_path / "c.db"))
    cfg.set("table.players", ["red", "blue"])
    cfg.set("bridge.enabled", False)
    ships_events = f"tcp://127.0.0.1:{free_port()}"
    cfg.set("vision.ships_events", ships_events)
    cfg.set("vision.events", f"tcp://127.0.0.1:{free_port()}")
    service = ControllerService(cfg, mqtt_enabled=False)
    pub: zmq.Socket[bytes] = zmq.Context.instance().socket(zmq.PUB)
    pub.setsockopt(zmq.LINGER, 0)
    try:
        service.open()
        service.start_inputs()
        core, ships, battles = service.core, service.ships, service.battles
        assert ships is not None and battles is not None
        pub.bind(ships_events)
        reading = {"topic": "vision.table", "seq": 1, "reading": {"status": "ok", "ships": [], "boards": []}}
        send_until(pub, topics.VISION_TABLE, reading, lambda: core.ocean_camera_live)
        beat = {"topic": "vision.table", "heartbeat": True, "frame": 9, "published": 1, "timestamp": 1.0}
        pub.send_multipart([topics.VISION_TABLE, json.dumps(beat).encode()])
        down = {
            "online": False,
            "ts": 1.0,
            "source": "rtsp://127.0.0.1:8554/table",
            "camera": "vision.table",
            "reason": "rtsp source rtsp://127.0.0.1:8554/table stopped giving frames after 5; "
            "reconnecting (try 1)",
        }
        t0 = time.monotonic()
        send_until(pub, topics.VISION_HEALTH, down, lambda: not core.ocean_camera_live)
        assert time.monotonic() - t0 < 5.0, "shown manual by the health message, not by 5 s of silence"
        assert core.sensors()["ocean_camera"] == "manual"
        assert "camera" not in battles.down, "the ocean grid's camera is not the battle board's"
        # Frames again: its next heartbeat makes it live.
        send_until(pub, topics.VISION_TABLE, beat, lambda: core.ocean_camera_live)
        # The battle board's own health (no `camera`: vision watch) still sets the battle's camera.
        board = {"online": False, "ts": 2.0, "source": "0", "reason": "reconnecting (try 1)"}
        send_until(pub, topics.VISION_HEALTH, board, lambda: "camera" in battles.down)
        assert core.ocean_camera_live
    finally:
        pub.close(0)
        service.close()
