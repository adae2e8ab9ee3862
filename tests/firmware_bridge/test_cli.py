"""`smart-table bridge` and `smart-table firmware-sim` as processes: a pty between them, ZeroMQ around."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Any

import pytest
import zmq

from tests.support.cli import smart_table

REPO = Path(__file__).resolve().parents[2]
EVENT_TYPES = ("cube_dropped", "tower_quiet", "zone_state", "fault")


def _cli(*args: str, stdout=subprocess.PIPE) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.Popen(
        [sys.executable, "-m", "smart_table", *args],
        cwd=REPO,
        env=env,
        text=True,
        stdout=stdout,
        stderr=subprocess.PIPE,
    )


def _bridge(device: str, stdout=subprocess.PIPE) -> subprocess.Popen:
    """`smart-table bridge` on `device`, printing what it publishes, its ZeroMQ sockets on free ports."""
    return _cli(
        "bridge",
        "--device",
        device,
        "--print",
        "--zmq-pub",
        "tcp://127.0.0.1:*",
        "--zmq-cmd",
        "tcp://127.0.0.1:*",
        stdout=stdout,
    )


def _run(*args: str) -> subprocess.CompletedProcess:
    return smart_table(*args, timeout=30)


def _line(stream: IO[str] | None) -> str:
    assert stream is not None, "the process was started without a pipe"
    return stream.readline()


def _endpoint(line: str, what: str) -> str:
    match = re.search(rf"{what} (tcp://[\d.]+:\d+)", line)
    assert match, line
    return match.group(1)


def _printed_events(path: Path) -> int:
    """Events in the complete lines a running bridge has printed so far."""
    return sum(json.loads(line)["type"] in EVENT_TYPES for line in path.read_text().split("\n")[:-1])


@pytest.fixture
def procs() -> Iterator[list[subprocess.Popen]]:
    started: list[subprocess.Popen] = []
    yield started
    for p in started:
        if p.poll() is None:
            p.terminate()
            try:
                p.wait(5)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()


def test_bridge_prints_what_the_sim_logged_and_publishes_it_on_zeromq(tmp_path: Path, procs) -> None:
    log = tmp_path / "sent.jsonl"
    sim = _cli(
        "firmware-sim",
        "--pty",
        "--link",
        str(tmp_path / "tower"),
        "--random",
        "--seed",
        "21",
        "--count",
        "400",
        "--log",
        str(log),
        "--drop",
        "0.005",
        "--flip",
        "0.005",
        "--dup",
        "0.02",
    )
    procs.append(sim)
    path = _line(sim.stdout).strip()
    assert path == str(tmp_path / "tower")
    printed_file = (tmp_path / "printed.jsonl").open("w")
    bridge = _bridge(path, stdout=printed_file)
    procs.append(bridge)
    banner = _line(bridge.stderr)
    ctx: zmq.Context[Any] = zmq.Context.instance()
    sub = ctx.socket(zmq.SUB)
    sub.setsockopt(zmq.LINGER, 0)
    sub.setsockopt(zmq.SUBSCRIBE, b"bridge.")
    sub.connect(_endpoint(banner, "events on"))
    req = ctx.socket(zmq.REQ)
    req.setsockopt(zmq.LINGER, 0)
    req.connect(_endpoint(banner, "commands on"))
    assert sim.wait(60) == 0  # exits once all 400 events are acknowledged
    req.send_json({"cmd": "buzzer", "freq_hz": 1000, "ms": 100, "id": "b1"})
    assert req.poll(30000)
    reply = req.recv_json()
    assert reply["ok"] is False and "down" in reply["error"] and reply["id"] == "b1"  # the sim has gone
    req.send(b"{not json")
    assert req.poll(30000) and "not valid JSON" in req.recv_json()["error"]
    bridge.terminate()
    _, err = bridge.communicate(timeout=10)
    printed_file.close()
    assert bridge.returncode == 0, err
    printed = [json.loads(line) for line in (tmp_path / "printed.jsonl").read_text().splitlines()]
    sent = [json.loads(line) for line in log.read_text().splitlines()]
    assert len(sent) == 400
    assert [m for m in printed if m["type"] in EVENT_TYPES] == sent
    assert all("type" in m and "seq" in m for m in printed)
    assert printed[0]["type"] == "hello"
    topics: dict[bytes, list[dict]] = {b"bridge.event": [], b"bridge.health": []}
    while sub.poll(200):
        topic, body = sub.recv_multipart()
        topics[topic].append(json.loads(body))
    # The subscriber joined a moment after the bridge started: what it got is the log's tail, in order.
    zmq_events = [m for m in topics[b"bridge.event"] if m["type"] in EVENT_TYPES]
    assert zmq_events and zmq_events == sent[-len(zmq_events) :]
    assert topics[b"bridge.health"] and {"link", "crc_errors", "resyncs"} <= set(topics[b"bridge.health"][-1])
    sub.close()
    req.close()


def test_sim_control_socket_drives_the_device_from_another_process(tmp_path: Path, procs) -> None:
    sim = _cli("firmware-sim", "--pty", "--link", str(tmp_path / "tower"), "--control", "tcp://127.0.0.1:*")
    procs.append(sim)
    path = _line(sim.stdout).strip()
    control = _endpoint(_line(sim.stderr), "control")
    bridge = _bridge(path)
    procs.append(bridge)
    cmd_endpoint = _endpoint(_line(bridge.stderr), "commands on")
    ctx: zmq.Context[Any] = zmq.Context.instance()
    req = ctx.socket(zmq.REQ)
    req.setsockopt(zmq.LINGER, 0)
    req.connect(control)
    req.send_json({"drop": {"red": 2, "black": 1}})
    assert req.recv_json()["ok"]
    req.send_json({"zones": {"r1c1": True}})
    assert req.recv_json()["ok"]
    req.send_json({"drop": {"mauve": 1}})
    bad = req.recv_json()
    assert not bad["ok"] and "mauve" in bad["error"]
    cmd = ctx.socket(zmq.REQ)
    cmd.setsockopt(zmq.LINGER, 0)
    cmd.connect(cmd_endpoint)
    cmd.send_json({"cmd": "led", "rgb": [0, 0, 255], "pattern": "spin", "period_ms": 300})
    assert cmd.poll(10000)
    assert cmd.recv_json()["ok"]
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        req.send_json({"status": True})
        status = req.recv_json()["status"]
        if status["acked"] >= 5:
            break
        time.sleep(0.05)
    assert status["acked"] >= 5, status
    assert status["led"] == [0, 0, 255, "spin", 300]
    bridge.terminate()
    out, _ = bridge.communicate(timeout=10)
    events = [json.loads(line) for line in out.splitlines()]
    kinds = [(m["type"], m.get("colour")) for m in events if m["type"] in EVENT_TYPES]
    assert sorted(kinds[:3], key=str) == [
        ("cube_dropped", "black"),
        ("cube_dropped", "red"),
        ("cube_dropped", "red"),
    ]
    assert ("zone_state", None) in kinds and ("tower_quiet", None) in kinds
    req.close()
    cmd.close()


@pytest.mark.parametrize(
    "args, says",
    [
        (["bridge", "--device", "/nonexistent/tower"], "no serial device at /nonexistent/tower"),
        (["bridge", "--device", "/etc/hostname"], "is not a serial port"),
        (["bridge", "--device", "usb:zz:01"], "hexadecimal"),
        (["firmware-sim", "--device", "/nonexistent/tty"], "cannot open /nonexistent/tty"),
        (["firmware-sim", "--pty", "--random"], "--random needs --count"),
        (["firmware-sim", "--pty", "--drop", "1.5"], "--drop is a probability"),
    ],
)
def test_bad_input_gives_one_clear_line_and_a_non_zero_exit(args: list[str], says: str) -> None:
    result = _run(*args)
    assert result.returncode != 0
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and says in lines[0], result.stderr
    assert "Traceback" not in result.stderr


def test_a_bad_script_line_is_named(tmp_path: Path) -> None:
    script = tmp_path / "play.jsonl"
    script.write_text('{"drop": {"red": 1}}\n{"drop": \n')
    result = _run("firmware-sim", "--pty", "--script", str(script))
    assert result.returncode == 2
    assert f"{script}:2: not a JSON object" in result.stderr and "Traceback" not in result.stderr
    script.write_text('{"zones": {"r7c1": true}}\n')
    result = _run("firmware-sim", "--pty", "--script", str(script))
    assert result.returncode == 2 and "off the 4x4 grid" in result.stderr


def test_a_script_with_an_unplug_and_a_reboot_plays_through_the_bridge(tmp_path: Path, procs) -> None:
    script = tmp_path / "play.jsonl"
    script.write_text(
        "\n".join(
            [
                "# a battle, a ship move, the cable pulled, a reset, another battle",
                '{"wait_host": 30000}',
                '{"wait": 300}',
                '{"drop": {"red": 2, "blue": 1}}',
                '{"wait": 600}',
                '{"move": {"from": "r1c1", "to": "r2c2"}}',
                '{"unplug": 400}',
                '{"drop": {"black": 1}}',
                '{"wait": 900}',
                '{"reboot": true}',
                '{"wait": 300}',
                '{"drop": {"green": 1}}',
                '{"wait": 600}',
            ]
        )
        + "\n"
    )
    log = tmp_path / "sent.jsonl"
    sim = _cli(
        "firmware-sim", "--pty", "--link", str(tmp_path / "tower"), "--script", str(script), "--log", str(log)
    )
    procs.append(sim)
    path = _line(sim.stdout).strip()
    printed_file = (tmp_path / "printed.jsonl").open("w")
    bridge = _bridge(path, stdout=printed_file)
    procs.append(bridge)
    assert sim.wait(30) == 0
    sent_count = len(log.read_text().splitlines())
    # The sim exits once everything is acknowledged; wait until the bridge has printed all of it too.
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and _printed_events(tmp_path / "printed.jsonl") < sent_count:
        time.sleep(0.02)
    bridge.terminate()
    bridge.wait(10)
    printed_file.close()
    printed = [json.loads(line) for line in (tmp_path / "printed.jsonl").read_text().splitlines()]
    sent = [json.loads(line) for line in log.read_text().splitlines()]
    assert [m for m in printed if m["type"] in EVENT_TYPES] == sent
    assert [(m["boot"], m["seq"], m["type"]) for m in sent] == [
        (1, 1, "cube_dropped"),
        (1, 2, "cube_dropped"),
        (1, 3, "cube_dropped"),
        (1, 4, "tower_quiet"),
        (1, 5, "zone_state"),
        (1, 6, "cube_dropped"),
        (1, 7, "tower_quiet"),
        (2, 1, "cube_dropped"),
        (2, 2, "tower_quiet"),
    ]
    hellos = [m for m in printed if m["type"] == "hello"]
    # start, replug, reboot: wait_host holds the script until the bridge process is up, however slow
    assert [h["rebooted"] for h in hellos] == [False, False, True]
    assert sent[5]["totals"]["black"] == 1 and sent[7]["totals"] == {
        **sent[7]["totals"],
        "green": 1,
        "red": 0,
    }
