"""Live mode: the settle gate, the hand pause, crops, and `vision watch` publishing on ZeroMQ."""

from __future__ import annotations

import base64
import json
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import cv2
import numpy as np
import pytest
import zmq

from vision.battle_board.reader import BoardReader
from vision.live import BoardWatcher, SettleGate
from vision.synth.common import add_noise

REPO = Path(__file__).resolve().parents[2]
A_CUBES = [{"color": "red", "zone": "dmg-1"}, {"color": "blue", "zone": "str-2a"}]
B_CUBES = [
    {"color": "red", "zone": "dmg-1"},
    {"color": "blue", "zone": "str-2a"},
    {"color": "green", "zone": None},
]


def _noisy(base: np.ndarray, n: int, seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [add_noise(base, rng, 2.0) for _ in range(n)]


@pytest.fixture(scope="module")
def frames(session) -> dict[str, np.ndarray]:
    """Three camera views from one fixed camera: cubes A, the same with a hand, cubes B."""
    from vision.synth.battle import make_camera

    cam = make_camera(session.layout, (960, 540), 12.0, 40.0, 0.0, 60.0, 0.7, 0.0, np.random.default_rng(1))
    common = {"size": (960, 540), "camera": cam, "blur_sigma": 0.5, "noise_sigma": 0.0, "jpeg_quality": 0}
    a, _ = session.render(A_CUBES, seed=21, **common)
    a_b, _ = session.render([{"color": "red", "center_mm": [60, 100], "zone": "dmg-1"}], seed=24, **common)
    hand, _ = session.render(A_CUBES, seed=21, hand=True, hand_reach=0.55, **common)
    b, _ = session.render(B_CUBES, seed=23, **common)
    return {"a": a, "hand": hand, "b": b, "a_b": a_b}


def test_gate_needs_still_frames_and_resets_on_motion() -> None:
    rng = np.random.default_rng(0)
    still = np.full((90, 160, 3), 120, np.uint8)
    moved = still.copy()
    cv2.rectangle(moved, (40, 20), (90, 60), (250, 250, 250), -1)
    gate = SettleGate(still_frames=4)
    states = [gate.update(add_noise(still, rng, 2.0)) for _ in range(6)]
    assert states == ["moving", "settling", "settling", "settling", "settled", "settled"]
    assert gate.update(moved) == "moving"
    assert gate.update(moved) == "settling"
    assert gate.update(moved, occluded=True) == "paused"
    assert gate.still_count == 0


def test_gate_catches_slow_creep() -> None:
    """Each frame a little brighter than the last: never a big step, but not still either."""
    gate = SettleGate(still_frames=5, pixel_threshold=14)
    states = []
    for i in range(12):
        states.append(gate.update(np.full((90, 160, 3), 60 + 5 * i, np.uint8)))
    assert "settled" not in states


def test_watcher_publishes_once_per_settle_and_pauses_for_a_hand(session, frames) -> None:
    reader = BoardReader(session.layout, session.palette)
    clock = iter(range(1000, 2000))
    watcher = BoardWatcher(reader, still_frames=3, confirm=2, source="test", clock=lambda: next(clock))
    seq = (
        _noisy(frames["a"], 8, 1)
        + _noisy(frames["hand"], 8, 2)
        + _noisy(frames["a_b"], 1, 5)
        + _noisy(frames["b"], 8, 3)
    )
    events = [watcher.process(f) for f in seq]
    published = [e for e in events if e.message is not None]
    assert len(published) == 2, [e.state for e in events]
    first, second = published[0].message, published[1].message
    assert first is not None and second is not None
    assert first["reading"]["counts"] == {"red": {"dmg-1": 1}, "blue": {"str-2a": 1}}
    assert second["reading"]["status"] == "redrop"
    # Published only after still_frames + confirm frames, never while the hand was there.
    assert published[0].frame == 4
    assert all(e.message is None for e in events[8:17])
    assert any(e.state == "paused" for e in events[8:16])
    assert first["topic"] == "vision.board" and first["timestamp"] >= 1000
    assert len(first["crops"]) == 2
    jpeg = base64.b64decode(first["crops"][0]["jpeg_base64"])
    crop = cv2.imdecode(np.frombuffer(jpeg, np.uint8), cv2.IMREAD_COLOR)
    assert crop is not None and min(crop.shape[:2]) >= 8


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_watch_command_publishes_on_zeromq(session, frames, tmp_path: Path) -> None:
    folder = tmp_path / "frames"
    folder.mkdir()
    seq = _noisy(frames["a"], 7, 7) + _noisy(frames["b"], 7, 8)
    for i, f in enumerate(seq):
        cv2.imwrite(str(folder / f"{i:04d}.png"), f)
    palette = tmp_path / "palette.json"
    palette.write_text(json.dumps(session.palette.to_json()))
    layout = REPO / "vision" / "data" / "battle-board.json"
    port = _free_port()
    ctx: zmq.Context[zmq.Socket[bytes]] = zmq.Context.instance()
    sub = ctx.socket(zmq.SUB)
    sub.setsockopt(zmq.SUBSCRIBE, b"vision.board")
    sub.setsockopt(zmq.LINGER, 0)
    sub.connect(f"tcp://127.0.0.1:{port}")
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "smart_table",
            "vision",
            "watch",
            "--video",
            str(folder),
            "--layout",
            str(layout),
            "--palette",
            str(palette),
            "--zmq-pub",
            f"tcp://127.0.0.1:{port}",
            "--settle-frames",
            "3",
            "--start-delay",
            "1.0",
        ],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        got: list[tuple[bytes, Any]] = []
        deadline = time.monotonic() + 60
        while len(got) < 2 and time.monotonic() < deadline:
            if sub.poll(500):
                topic, body = sub.recv_multipart()
                got.append((topic, json.loads(body)))
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        sub.close()
    assert proc.returncode == 0, err
    assert [t for t, _ in got] == [b"vision.board", b"vision.board"]
    assert got[0][1]["reading"]["counts"] == {"red": {"dmg-1": 1}, "blue": {"str-2a": 1}}
    assert got[1][1]["reading"]["status"] == "redrop"
    assert all(m["crops"] and m["crops"][0]["jpeg_base64"] for _, m in got)
    printed = [json.loads(line) for line in out.splitlines() if line.strip()]
    assert [p["frame"] for p in printed] == [m["frame"] for _, m in got]


def test_watch_command_bad_source_is_one_line(tmp_path: Path) -> None:
    layout = REPO / "vision" / "data" / "battle-board.json"
    palette = tmp_path / "p.json"
    palette.write_text('{"schema": "smart-table/palette@1", "colors": {"red": {"bgr": [30, 30, 200]}}}')
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "smart_table",
            "vision",
            "watch",
            "--video",
            str(tmp_path / "none.mp4"),
            "--layout",
            str(layout),
            "--palette",
            str(palette),
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode != 0
    assert proc.stderr.count("\n") == 1 and "does not exist" in proc.stderr and "Traceback" not in proc.stderr
