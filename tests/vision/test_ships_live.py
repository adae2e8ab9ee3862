"""`smart-table vision ships-watch` over an image folder: settle gate, hand pause, ZeroMQ PUB (real
sockets)."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest
import zmq

from tests.support.table_scenes import islands_on_row_1, still_table
from vision.ocean_grid.layout import default_table_layout
from vision.ships_live import TableWatcher, reading_key
from vision.synth.table import random_camera

LAYOUT = default_table_layout()


def _imread(path: Path) -> np.ndarray:
    image = cv2.imread(str(path))
    assert image is not None, f"cannot read {path}"
    return image


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def frames_dir(tmp_path_factory):
    """A settled table, a hand passing, then a ship moved and a board explored (flipped face up)."""
    rng = np.random.default_rng(5)
    cam = random_camera(LAYOUT, rng, max_tilt_deg=15)
    boards = islands_on_row_1(LAYOUT)
    before = still_table(LAYOUT, boards, {"red": "harbor", "blue": "r1c1"}, rng, cam)
    hand = still_table(LAYOUT, boards, {"red": "harbor", "blue": "r1c1"}, rng, cam, hands=2)
    after = still_table(LAYOUT, dict(boards, r2c2="open-sea-a"), {"red": "r2c2", "blue": "r1c1"}, rng, cam)
    d = tmp_path_factory.mktemp("frames")
    sequence = [before] * 3 + [hand] + [after] * 3
    for i, img in enumerate(sequence):
        cv2.imwrite(str(d / f"{i:03d}.png"), img)
    return d


def test_watch_publishes_each_settled_state_once(frames_dir) -> None:
    port = _free_port()
    endpoint = f"tcp://127.0.0.1:{port}"
    ctx = zmq.Context()
    sub = ctx.socket(zmq.SUB)
    sub.setsockopt(zmq.SUBSCRIBE, b"vision.table")
    sub.connect(endpoint)
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "smart_table",
            "vision",
            "ships-watch",
            "--images",
            str(frames_dir),
            "--pub",
            endpoint,
            "--settle-frames",
            "1",
            "--confirm",
            "1",
            "--ships",
            "red,blue",
            "--print",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        out, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, err
    got = []
    while sub.poll(2000):
        topic, body = sub.recv_multipart()
        assert topic == b"vision.table"
        message = json.loads(body)
        if not message.get("heartbeat"):  # the watcher says it is alive between readings
            got.append(message)
    sub.close(0)
    ctx.term()
    assert [m["seq"] for m in got] == [1, 2]
    assert [json.loads(line) for line in out.splitlines()] == got
    assert {m["topic"] for m in got} == {"vision.table"}
    first, second = (m["reading"] for m in got)
    assert {s["ship"]: s["square"] for s in first["ships"]}["red"] == "harbor"
    assert {s["ship"]: s["square"] for s in second["ships"]}["red"] == "r2c2"
    flipped = {b["square"]: b for b in second["boards"]}["r2c2"]
    assert flipped["face_up"] is True and flipped["board"] == "open-sea-a"
    assert {b["square"]: b for b in first["boards"]}["r2c2"]["face_up"] is False
    # Frame 0 has nothing to compare with, 1 is still: read. Frame 3 (hands) moved, frame 4 too (the
    # hands left), frame 5 is still again: read and published.
    assert got[0]["frame"] == 1 and got[1]["frame"] == 5


def test_still_hand_pauses_and_an_unchanged_table_is_not_republished(frames_dir) -> None:
    images = [_imread(p) for p in sorted(frames_dir.iterdir())]
    before, hand = images[0], images[3]
    w = TableWatcher(LAYOUT, ships_in_play=["red", "blue"], still_frames=2, confirm=2, clock=lambda: 0.0)
    states = [w.process(f).state for f in [before] * 5]
    assert states == ["moving", "settling", "confirming", "published", "settled"]
    # A hand that stays still over the table: read, hidden ships, so paused (never published).
    states = [w.process(f).state for f in [hand] * 5]
    assert "published" not in states and states.count("paused") >= 2
    # The hand goes; the table is as before: nothing new to publish.
    states = [w.process(f).state for f in [before] * 6]
    assert "published" not in states and states[-1] == "settled"
    assert w.published == 1


def test_reading_key_ignores_confidence() -> None:
    a = {"status": "ok", "ships": [{"ship": "red", "square": "r1c1", "confidence": 0.9}], "boards": []}
    b = {"status": "ok", "ships": [{"ship": "red", "square": "r1c1", "confidence": 0.95}], "boards": []}
    assert reading_key(a) == reading_key(b)


def test_missing_source_is_one_line(tmp_path) -> None:
    r = subprocess.run(
        [sys.executable, "-m", "smart_table", "vision", "ships-watch", "--video", str(tmp_path / "nope.mp4")],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode != 0 and len(r.stderr.strip().splitlines()) == 1 and "nope.mp4" in r.stderr
    r = subprocess.run(
        [sys.executable, "-m", "smart_table", "vision", "ships-watch", "--images", str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode != 0 and "holds no images" in r.stderr


def test_still_ambiguous_table_without_a_hand_is_published_with_its_nulls(frames_dir) -> None:
    before = _imread(sorted(frames_dir.iterdir())[0])
    # "green" is in play but not on the table: the camera cannot place it, nobody's hand is in view.
    w = TableWatcher(
        LAYOUT, ships_in_play=["red", "blue", "green"], still_frames=1, confirm=2, clock=lambda: 0.0
    )
    events = [w.process(before) for _ in range(4)]
    published = [e.message for e in events if e.message]
    assert len(published) == 1
    reading = published[0]["reading"]
    assert reading["status"] == "ambiguous"
    assert {s["ship"]: s["square"] for s in reading["ships"]}["green"] is None
