"""The Great Sea's camera end to end: `smart-table vision regions-watch` reads rendered frames of the
table (the engine's positions, then a Ship moved), publishes on real ZeroMQ, the controller's camera
reader proposes the move on the player's tablet over a real Mosquitto (the deploy ACL), the tablet
confirms, and the engine applies it; the table view's device says the camera is live."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import cv2

import rules.api as api
from controller.liveness import CAMERA_SILENT_S
from controller.mqtt import MqttLink
from controller.sea_camera import SeaCamera
from controller.testing import Broker, Client, free_port, running_mosquitto
from controller.zmqin import ZmqInputs
from tests.controller.test_sea_camera import _game_at_a_move, _pieces, _regions_after
from vision.synth.sea import positions_scene

REPO = Path(__file__).resolve().parents[2]


@contextmanager
def map_camera(core: Any, broker: Broker, endpoint: str) -> Iterator[tuple[SeaCamera, ZmqInputs]]:
    """The controller's side of the map camera as controller/service.py wires it: the core published over
    MQTT, the camera's readings taken from `endpoint` once the test starts the inputs."""
    link = MqttLink(broker.host, broker.port, "controller", broker.users["controller"], table_id="gs")
    core.publisher = link
    link.start(core)
    cam = SeaCamera(core, "great-sea", link.set_device)
    inputs = ZmqInputs([endpoint], {cam.topic: cam.handle})
    try:
        yield cam, inputs
    finally:
        inputs.stop()
        link.stop()


def test_a_move_on_the_table_reaches_the_tablet_and_is_played_when_confirmed(tmp_path) -> None:
    core, player, move = _game_at_a_move(tmp_path)
    side = api.public_view(core.state)["map"]
    before = api.public_view(core.state)["regions"]
    after = _regions_after(core, player, move)
    frames = tmp_path / "frames"
    frames.mkdir()
    layout = tmp_path / "layout.json"
    shots = [positions_scene(regions, side, seed=1) for regions in (before, after)]
    for i, (image, _, _) in enumerate([shots[0]] * 3 + [shots[1]] * 3):
        cv2.imwrite(str(frames / f"{i:03d}.png"), image)
    layout.write_text(json.dumps(shots[0][2]))
    endpoint = f"tcp://127.0.0.1:{free_port()}"
    with running_mosquitto(tables=("gs",)) as broker, map_camera(core, broker, endpoint) as (cam, inputs):
        tablet = Client(broker, player)
        display = Client(broker, "display")
        try:
            inputs.start()
            assert tablet.wait_connected() and display.wait_connected()
            tablet.subscribe(f"table/gs/player/{player}/#")
            display.subscribe("table/gs/device/+/availability")
            core.publish_all()
            cam.announce()
            display.wait_for(lambda m: json.loads(m.payload).get("state") == "offline")
            proc = subprocess.run(
                [
                    sys.executable,
                    "-m",
                    "smart_table",
                    "vision",
                    "regions-watch",
                    "--images",
                    str(frames),
                    "--layout",
                    str(layout),
                    "--pub",
                    endpoint,
                    "--settle-frames",
                    "1",
                    "--confirm",
                    "1",
                ],
                cwd=REPO,
                capture_output=True,
                text=True,
                timeout=300,
            )
            assert proc.returncode == 0, proc.stderr
            assert "published 2 settled readings" in proc.stderr
            offer = None

            def offered(m) -> bool:
                nonlocal offer
                if not m.topic.endswith("/prompts"):
                    return False
                moves = [p for p in json.loads(m.payload)["prompts"] if p["kind"] == "sea_camera_move"]
                offer = moves[0] if moves else None
                return offer is not None

            tablet.wait_for(offered)
            assert offer is not None and offer["action"]["type"] == "move"
            live = display.wait_for(lambda m: json.loads(m.payload).get("state") == "online")
            assert live.topic == "table/gs/device/map_camera/availability"
            seq = core.seq
            reply = tablet.command(
                f"table/gs/player/{player}/cmd",
                {"request_id": "cam-1", "prompt_id": offer["id"], "answer": {"accept": True}},
            )
            assert reply["accepted"] is True, reply
            assert core.seq > seq
            assert _pieces(api.public_view(core.state)["regions"]) == _pieces(after)
        finally:
            tablet.close()
            display.close()


def test_a_map_camera_whose_process_dies_goes_offline_and_stays_live_while_it_beats(tmp_path) -> None:
    """The brief: "Every sensor can fail: the table always lets people go on by hand, and says which
    sensors are live." A watcher reading a still map publishes once, then only heartbeats: the camera stays
    "online"; SIGKILLed, it falls silent and the device goes "offline" within `CAMERA_SILENT_S`."""
    core, _player, _move = _game_at_a_move(tmp_path)
    side = api.public_view(core.state)["map"]
    image, _, layout_json = positions_scene(api.public_view(core.state)["regions"], side, seed=1)
    frames = tmp_path / "frames"
    frames.mkdir()
    cv2.imwrite(str(frames / "000.png"), image)
    layout = tmp_path / "layout.json"
    layout.write_text(json.dumps(layout_json))
    endpoint = f"tcp://127.0.0.1:{free_port()}"
    stop = threading.Event()
    with running_mosquitto(tables=("gs",)) as broker, map_camera(core, broker, endpoint) as (cam, inputs):
        display = Client(broker, "display")

        def ticking() -> None:  # what controller/service.py's loop does ten times a second
            while not stop.wait(0.1):
                cam.tick()

        ticker = threading.Thread(target=ticking, daemon=True)
        args = ["--images", str(frames), "--loop", "--layout", str(layout), "--pub", endpoint]
        proc = subprocess.Popen(
            [sys.executable, "-m", "smart_table", "vision", "regions-watch", *args]
            + ["--settle-frames", "1", "--confirm", "1"],
            cwd=REPO,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            inputs.start()
            ticker.start()
            assert display.wait_connected()
            display.subscribe("table/gs/device/map_camera/availability")
            display.wait_for(lambda m: json.loads(m.payload).get("state") == "online", timeout=120)
            assert cam.readings == 1
            quiet_until = time.monotonic() + CAMERA_SILENT_S + 2
            states = [json.loads(m.payload)["state"] for m in display.collect(CAMERA_SILENT_S + 2)]
            assert time.monotonic() >= quiet_until - 0.5
            assert "offline" not in states, "heartbeats keep a quiet camera live"
            assert cam.beat.beats > 0 and proc.poll() is None
            proc.kill()
            proc.wait(timeout=30)
            killed = time.monotonic()
            gone = display.wait_for(lambda m: json.loads(m.payload).get("state") == "offline", timeout=30)
            took = time.monotonic() - killed
            assert took <= CAMERA_SILENT_S + 2, f"offline {took:.1f} s after the kill"
            assert "by hand" in json.loads(gone.payload)["reason"]
        finally:
            stop.set()
            if proc.poll() is None:
                proc.kill()
                proc.wait()
            assert proc.stderr is not None
            proc.stderr.close()
            display.close()
