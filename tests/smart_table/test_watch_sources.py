"""The ocean grid's and the map's live watches open the sources `vision watch` opens (issue 12: "the
controller take a V4L2 device, a video file, an RTSP or HTTP MJPEG stream"): an RTSP stream from the
loopback server of tests/support/rtsp.py, read by the real command in a child process, as the
controller's supervisor starts it.

Before the shared source arguments (smart_table/watch_common.py `add_watch_sources`), `--video` was a
Path there: `rtsp://127.0.0.1:port/table` became `rtsp:/127.0.0.1:port/table` and was refused as a
missing file. A stream that drops is reopened for `--reconnect-s` (the same option as `vision watch`'s)."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import pytest
import zmq

from controller.testing import free_port
from tests.support.rtsp import RtspServer
from tests.support.table_scenes import islands_on_row_1, still_table
from vision.ocean_grid.layout import default_table_layout
from vision.synth.sea import tuning_scene
from vision.synth.table import random_camera

ROOT = Path(__file__).resolve().parents[2]
# The stream's frame rate is not what these tests check: FFmpeg's RTSP open probes the first frames, so at
# 100 fps each open (three per dropped-stream test) takes ~0.2 s instead of ~0.85 s at 25 (loopback, load 20).
FPS = 100


def _watch(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "smart_table", "vision", *argv, "--settle-frames", "1", "--confirm", "1"]
        + ["--max-frames", "4", "--pub", "tcp://127.0.0.1:0", "--print"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )


def _readings(out: str) -> list[dict]:
    return [json.loads(line) for line in out.splitlines() if line.startswith("{")]


def _table_frame() -> np.ndarray:
    layout = default_table_layout()
    rng = np.random.default_rng(5)
    camera = random_camera(layout, rng, max_tilt_deg=15)
    return still_table(layout, islands_on_row_1(layout), {"red": "harbor", "blue": "r1c1"}, rng, camera)


def test_ships_watch_reads_an_rtsp_stream() -> None:
    frame = _table_frame()
    with RtspServer([frame], fps=FPS, loop=True) as server:
        run = _watch("ships-watch", "--video", server.url, "--ships", "red,blue")
    assert run.returncode == 0, run.stderr
    readings = _readings(run.stdout)
    assert readings, run.stderr
    ships = {s["ship"]: s["square"] for s in readings[0]["reading"]["ships"]}
    assert (ships["red"], ships["blue"]) == ("harbor", "r1c1"), readings[0]["reading"]


def test_regions_watch_reads_an_rtsp_stream(tmp_path: Path) -> None:
    image, _, layout = tuning_scene(0)
    layout_file = tmp_path / "layout.json"
    layout_file.write_text(json.dumps(layout))
    with RtspServer([image], fps=FPS, loop=True) as server:
        run = _watch("regions-watch", "--video", server.url, "--layout", str(layout_file))
    assert run.returncode == 0, run.stderr
    assert "published 1 settled readings" in run.stderr, run.stderr
    assert _readings(run.stdout), run.stderr


@pytest.mark.parametrize("command", ["ships-watch", "regions-watch"])
def test_a_dropped_stream_is_reopened_without_ending_the_watch(tmp_path: Path, command: str) -> None:
    """A phone's RTSP stream that stops (its first reopening refused) and comes back: the watch says it is
    reconnecting and reads on (`--reconnect-s`, as `vision watch` has), instead of ending and being
    restarted by the supervisor. 12 frames from a stream that drops after every 5 take three sessions."""
    if command == "ships-watch":
        frame, extra = _table_frame(), ["--ships", "red,blue"]
    else:
        frame, _, layout = tuning_scene(0)
        (tmp_path / "layout.json").write_text(json.dumps(layout))
        extra = ["--layout", str(tmp_path / "layout.json")]
    pub = f"tcp://127.0.0.1:{free_port()}"
    argv = ["--max-frames", "12", "--pub", pub, "--print", "--settle-frames", "1"]
    health: list[dict] = []
    sub: zmq.Socket[bytes] = zmq.Context.instance().socket(zmq.SUB)
    sub.setsockopt(zmq.LINGER, 0)
    sub.setsockopt(zmq.SUBSCRIBE, b"vision.health")
    sub.connect(pub)
    listening = threading.Event()
    listening.set()

    def listen() -> None:
        while listening.is_set():
            if sub.poll(50):
                health.append(json.loads(sub.recv_multipart()[1]))

    listener = threading.Thread(target=listen, daemon=True)
    listener.start()
    try:
        with RtspServer([frame], fps=FPS, loop=True, drop_after=5, down_tries=1) as server:
            run = subprocess.run(
                [sys.executable, "-m", "smart_table", "vision", command, "--video", server.url, *extra, *argv]
                + ["--confirm", "1", "--reconnect-s", "20"],
                capture_output=True,
                text=True,
                timeout=180,
                cwd=ROOT,
            )
    finally:
        listening.clear()
        listener.join(timeout=5)
        sub.close(0)
    assert run.returncode == 0, run.stderr
    assert f"camera {server.url}: rtsp source {server.url} stopped giving frames after 5; reconnecting" in (
        run.stderr
    )
    assert run.stderr.count("reconnected") >= 2, run.stderr
    assert server.sessions >= 3 and server.refused >= 2, (server.sessions, server.refused, run.stderr)
    assert "published 1 settled readings" in run.stderr, run.stderr  # the same table: published once
    assert len(_readings(run.stdout)) == 1
    # Said on vision.health as `vision watch` says it, naming its readings' topic (the controller makes that
    # camera manual, not the battle board's): offline with the reason, then online again. (A SUB that
    # connects late may miss the first drop's messages; the stream drops twice.)
    topic = "vision.table" if command == "ships-watch" else "vision.regions"
    assert health and {(m["camera"], m["source"]) for m in health} == {(topic, server.url)}, health
    down = [i for i, m in enumerate(health) if m["online"] is False]
    assert down and "reconnecting" in health[down[0]]["reason"], health
    assert any(m["online"] is True for m in health[down[0] :]), health


def test_reconnect_s_0_ends_the_watch_where_the_stream_ends() -> None:
    """`--reconnect-s 0` keeps the old meaning: the frames end where the stream ends (exit 0)."""
    with RtspServer([_table_frame()], fps=FPS, loop=True, drop_after=5) as server:
        run = _watch("ships-watch", "--video", server.url, "--ships", "red,blue", "--reconnect-s", "0")
    assert run.returncode == 0, run.stderr
    assert "reconnecting" not in run.stderr and server.sessions == 1, run.stderr
