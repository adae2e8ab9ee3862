"""`smart-table vision ships-watch` over an image folder: settle gate, hand pause, ZeroMQ PUB (real sockets)."""

from __future__ import annotations

import json
import socket
import subprocess
import sys

import cv2
import numpy as np
import pytest
import zmq

from vision.ships_live import TableSettleGate, reading_key
from vision.synth.table import random_camera, render_table_scene
from vision.table import default_table_layout

LAYOUT = default_table_layout()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def frames_dir(tmp_path_factory):
    """A settled table, a hand passing, then a ship moved and a board explored (flipped face up)."""
    rng = np.random.default_rng(5)
    cam = random_camera(LAYOUT, rng, max_tilt_deg=15)
    boards = {sq.id: (f"island-{i + 1:02d}" if sq.row == 1 else None) for i, sq in enumerate(LAYOUT.squares)}
    before, _ = render_table_scene(LAYOUT, boards, {"red": "harbor", "blue": "r1c1"}, rng, camera=cam, hands=0,
                                   glare=False, noise_sigma=1.0, blur_sigma=0.0)
    hand, _ = render_table_scene(LAYOUT, boards, {"red": "harbor", "blue": "r1c1"}, rng, camera=cam, hands=2,
                                 glare=False, noise_sigma=1.0, blur_sigma=0.0)
    boards_after = dict(boards, r2c2="open-sea-a")
    after, _ = render_table_scene(LAYOUT, boards_after, {"red": "r2c2", "blue": "r1c1"}, rng, camera=cam, hands=0,
                                  glare=False, noise_sigma=1.0, blur_sigma=0.0)
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
    proc = subprocess.Popen([sys.executable, "-m", "cli", "vision", "ships-watch", "--images", str(frames_dir),
                             "--pub", endpoint, "--settle-frames", "2", "--ships", "red,blue", "--print"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
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
        got.append(json.loads(body))
    sub.close(0)
    ctx.term()
    assert [m["seq"] for m in got] == [1, 2]
    assert [json.loads(line) for line in out.splitlines()] == got
    first, second = got
    assert {s["ship"]: s["square"] for s in first["ships"]}["red"] == "harbor"
    assert {s["ship"]: s["square"] for s in second["ships"]}["red"] == "r2c2"
    flipped = {b["square"]: b for b in second["boards"]}["r2c2"]
    assert flipped["face_up"] is True and flipped["board"] == "open-sea-a"
    assert {b["square"]: b for b in first["boards"]}["r2c2"]["face_up"] is False
    # Frame 3 (the hand) is ambiguous, frame 4 differs from it (motion): 5 and 6 settle the new state.
    assert first["frame"] == 1 and second["frame"] == 6


def test_gate_pauses_on_ambiguous_and_motion() -> None:
    ok = {"status": "ok", "ships": [{"ship": "red", "square": "r1c1"}], "boards": []}
    amb = {"status": "ambiguous", "ships": [{"ship": "red", "square": None}], "boards": []}
    gate = TableSettleGate(settle_frames=3)
    assert [gate.offer(ok, False), gate.offer(ok, False), gate.offer(amb, False)] == [False, False, False]
    assert [gate.offer(ok, False), gate.offer(ok, True), gate.offer(ok, False), gate.offer(ok, False)] == [
        False, False, False, False]
    assert gate.offer(ok, False) is True
    assert gate.offer(ok, False) is False  # the same state is not published twice
    assert reading_key(ok) != reading_key(amb)


def test_missing_source_is_one_line(tmp_path) -> None:
    r = subprocess.run([sys.executable, "-m", "cli", "vision", "ships-watch", "--video", str(tmp_path / "nope.mp4")],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode != 0 and len(r.stderr.strip().splitlines()) == 1 and "nope.mp4" in r.stderr
    r = subprocess.run([sys.executable, "-m", "cli", "vision", "ships-watch", "--images", str(tmp_path)],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode != 0 and "holds no images" in r.stderr
