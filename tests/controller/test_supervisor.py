"""`smart-table run --simulate` with the embedded Mosquitto: addresses and stable links printed, a tablet
sees the game, a crashed child is restarted with a log line, Ctrl-C (SIGINT) stops every child cleanly
(SIGTERM takes the same path), a SIGKILLed supervisor takes its children with it, the seats' links survive
a restart until `tablets add --rotate`, and the restart budget is per time window."""

from __future__ import annotations

import io
import json
import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import paho.mqtt.client as mqtt

from controller.testing import free_port, table_toml

REPO = Path(__file__).resolve().parents[2]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie (exited, not yet reaped by its parent) is not running
        return Path(f"/proc/{pid}/stat").read_text().split()[2] != "Z"
    except OSError:
        return False


def _start_table(
    tmp_path: Path, ports: dict[str, int] | None = None
) -> tuple[subprocess.Popen, dict[str, int], Callable[..., re.Match]]:
    """`smart-table run --simulate` on free ports (or those given); returns the process, the ports and a
    wait for an output line."""
    ports = ports or {
        k: free_port() for k in ("http", "mqtt", "ws", "pub", "cmd", "ctl", "vis", "cam", "shp")
    }
    (tmp_path / "t.toml").write_text(
        table_toml(
            {
                "table": {"database": str(tmp_path / "t.db"), "players": ["red", "blue"]},
                "mqtt": {"port": ports["mqtt"], "ws_port": ports["ws"]},
                "display": {"port": ports["http"]},
                "simulate": {"delay": 0.2},
                "supervisor": {"restart_delay": 0.5},
            },
            ports,
        )
    )
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "smart_table",
            "run",
            "--simulate",
            "--config",
            str(tmp_path / "t.toml"),
            "--duration",
            "280",  # a net for a test that dies before its Ctrl-C; the tests themselves stop the table
        ],
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    lines: queue.Queue[str] = queue.Queue()
    seen: list[str] = []
    stdout = proc.stdout
    assert stdout is not None  # stdout=PIPE

    def pump() -> None:
        for x in stdout:
            lines.put(x)

    threading.Thread(target=pump, daemon=True).start()

    def wait_line(pattern: str, timeout: float = 60) -> re.Match:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                line = lines.get(timeout=0.2)
            except queue.Empty:
                continue
            seen.append(line)
            m = re.search(pattern, line)
            if m:
                return m
        raise AssertionError(f"no line matching {pattern!r} in:\n" + "".join(seen[-40:]))

    return proc, ports, wait_line


def test_run_simulate_embedded_broker_restart_and_clean_stop(tmp_path):
    proc, ports, wait_line = _start_table(tmp_path)
    pids: dict[str, int] = {}
    try:
        wait_line(r"display\s+(http://127\.0\.0\.1:\d+/|not served)")
        wait_line(rf"MQTT\s+127\.0\.0\.1:{ports['mqtt']} \(embedded broker\)")
        wait_line(rf"WebSocket\s+127\.0\.0\.1:{ports['ws']}")
        # Each printed link carries its own login (stored in the game database).
        view = wait_line(r"table view (http://\S+)")
        query = parse_qs(urlsplit(view.group(1)).query)
        assert query["user"] == ["table-1/display"] and query["pass"][0]  # a login names its table
        red = parse_qs(urlsplit(wait_line(r"red\s+(http://\S+)").group(1)).query)
        assert red["user"] == ["table-1/red"] and red["pass"][0] != query["pass"][0]
        for _ in range(5):
            m = wait_line(r"started (\S+) \(pid (\d+)\)")
            pids[m.group(1)] = int(m.group(2))
        assert set(pids) == {"broker", "firmware-sim", "bridge", "camera", "controller"}

        # A tablet (MQTT 3.1.1 here; the pages use 5) with the display's credentials gets the game's state;
        # without credentials it is refused.
        got: queue.Queue = queue.Queue()
        connacks: queue.Queue = queue.Queue()
        client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv311)
        client.username_pw_set(query["user"][0], query["pass"][0])
        client.on_message = lambda _c, _u, msg: got.put(msg)
        client.on_connect = lambda c, *_a: c.subscribe("table/table-1/state", qos=1)
        deadline = time.monotonic() + 30
        while True:
            try:
                client.connect("127.0.0.1", ports["mqtt"])
                break
            except OSError:
                assert time.monotonic() < deadline, "the embedded broker never listened"
                time.sleep(0.2)
        client.loop_start()
        state = json.loads(got.get(timeout=30).payload)
        assert state["view"]["players"] and state["epoch"]
        client.loop_stop()
        client.disconnect()
        anonymous = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv311)
        anonymous.on_connect = lambda _c, _u, _f, rc, _p=None: connacks.put(rc)
        anonymous.connect("127.0.0.1", ports["mqtt"])
        anonymous.loop_start()
        assert connacks.get(timeout=30).is_failure
        anonymous.loop_stop()
        anonymous.disconnect()

        os.kill(pids["bridge"], signal.SIGKILL)
        wait_line(r"bridge exited with code -9; restarting it \(1/10 in 600 s\)")
        new_bridge = int(wait_line(r"started bridge \(pid (\d+)\)").group(1))
        assert new_bridge != pids["bridge"]
        pids["bridge"] = new_bridge
    finally:
        proc.send_signal(signal.SIGINT)  # Ctrl-C
        code = proc.wait(timeout=30)
    assert code == 0
    deadline = time.monotonic() + 30
    while any(_alive(p) for p in pids.values()) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not [n for n, p in pids.items() if _alive(p)]


def test_children_stop_when_the_supervisor_is_killed(tmp_path):
    """SIGKILL leaves the supervisor no time to stop its children: the kernel tells each of them (Linux's
    parent-death signal), so no broker, bridge or camera is left holding a port or the serial device."""
    proc, _ports, wait_line = _start_table(tmp_path)
    pids: dict[str, int] = {}
    try:
        for _ in range(5):
            m = wait_line(r"started (\S+) \(pid (\d+)\)")
            pids[m.group(1)] = int(m.group(2))
        assert all(_alive(p) for p in pids.values())
    finally:
        proc.kill()
        proc.wait(timeout=30)
    deadline = time.monotonic() + 30
    while any(_alive(p) for p in pids.values()) and time.monotonic() < deadline:
        time.sleep(0.1)
    left = [n for n, p in pids.items() if _alive(p)]
    for p in pids.values():  # never leave a stray process behind, even when the assertion fails
        try:
            os.kill(p, signal.SIGKILL)
        except ProcessLookupError:
            pass
    assert not left, f"still running after the supervisor was killed: {left}"


def _connack(port: int, user: str, password: str, timeout: float = 10.0) -> bool:
    """True when the broker on 127.0.0.1:port accepts user/password (MQTT 5, as the pages connect)."""
    rcs: queue.Queue = queue.Queue()
    c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5)
    c.username_pw_set(user, password)
    c.on_connect = lambda _c, _u, _f, rc, _p=None: rcs.put(rc)
    deadline = time.monotonic() + timeout
    while True:
        try:
            c.connect("127.0.0.1", port)
            break
        except OSError:
            assert time.monotonic() < deadline, "the embedded broker never listened"
            time.sleep(0.2)
    c.loop_start()
    try:
        return not rcs.get(timeout=timeout).is_failure
    finally:
        c.loop_stop()
        c.disconnect()


def test_seat_links_survive_a_restart_until_rotated(tmp_path):
    """#13 Joining: one stable link per seat, kept in the game database across restarts until
    `smart-table tablets add red --rotate`; a rotated login works at once on the running table."""
    links: list[dict[str, str]] = []
    ports = None
    for _run in range(2):
        proc, ports, wait_line = _start_table(tmp_path, ports)
        try:
            got = {
                who: wait_line(rf"^\s+{who}\s+(http://\S+)").group(1) for who in ("table view", "red", "blue")
            }
            links.append(got)
            red = parse_qs(urlsplit(got["red"]).query)
            assert _connack(ports["mqtt"], "table-1/red", red["pass"][0])
            if _run == 1:
                # Rotate red's login while the table runs: the old link stops working, the new one works.
                r = subprocess.run(
                    [
                        sys.executable,
                        "-m",
                        "smart_table",
                        "tablets",
                        "add",
                        "red",
                        "--rotate",
                        "--no-qr",
                        "--config",
                        str(tmp_path / "t.toml"),
                        "--password-file",
                        str(tmp_path / "system.passwd"),
                    ],
                    cwd=REPO,
                    capture_output=True,
                    text=True,
                    env={**os.environ, "PYTHONPATH": str(REPO)},
                    timeout=60,
                    check=True,
                )
                new = parse_qs(urlsplit(r.stdout.split("join link: ", 1)[1].split()[0]).query)["pass"][0]
                assert new != red["pass"][0]
                wait_line(r"logins changed")
                assert _connack(ports["mqtt"], "table-1/red", new)
                assert not _connack(ports["mqtt"], "table-1/red", red["pass"][0])
        finally:
            proc.send_signal(signal.SIGINT)
            assert proc.wait(timeout=30) == 0
    assert links[0] == links[1]
    assert oct((tmp_path / "t.db").stat().st_mode & 0o777) == "0o600"  # it holds the clear passwords


class _Crashed:
    """A child process that has exited with code 3."""

    returncode = 3
    pid = 0

    def poll(self) -> int:
        return 3


def test_restart_budget_is_per_time_window(monkeypatch):
    """10 crashes in 10 minutes stop the table; the same 10 crashes spread over an hour do not."""
    from controller import supervisor as sup_mod
    from controller.config import defaults

    clock = [1000.0]
    monkeypatch.setattr(sup_mod.time, "monotonic", lambda: clock[0])

    def make() -> tuple[sup_mod.Supervisor, sup_mod.Child, list[float]]:
        cfg = defaults()
        cfg.set("supervisor.restart_delay", 1.0)
        s = sup_mod.Supervisor(cfg, simulate=False, limits={}, out=io.StringIO())
        child = sup_mod.Child("controller", ["true"], essential=True)
        spawned: list[float] = []

        def spawn(c: sup_mod.Child) -> None:
            c.proc, c.started = _Crashed(), clock[0]  # type: ignore[assignment]
            spawned.append(clock[0])

        monkeypatch.setattr(s, "spawn", spawn)
        s.children.append(child)
        spawn(child)
        spawned.clear()
        return s, child, spawned

    # Spread out: one crash every 7 minutes for 3 hours, never more than 2 in any 10 minutes.
    s, child, spawned = make()
    for _ in range(25):
        clock[0] += 420
        s.watch()
    assert len(spawned) == 25 and not s.stopping.is_set() and s.exit_code == 0

    # Bunched: crashes as fast as the back-off allows; the 11th within 10 minutes stops the table.
    s, child, spawned = make()
    start = clock[0]
    while not s.stopping.is_set() and clock[0] < start + 600:
        clock[0] += 1
        s.watch()
    assert len(spawned) == 10 and s.stopping.is_set() and s.exit_code == 1


def test_without_mosquitto_run_says_what_to_install(monkeypatch, tmp_path):
    from controller import broker
    from controller.config import defaults
    from controller.supervisor import Supervisor, SupervisorError

    monkeypatch.setattr(broker, "mosquitto_binary", lambda: None)
    cfg = defaults()
    cfg.set("table.database", str(tmp_path / "t.db"))
    s = Supervisor(cfg, simulate=True, limits={}, out=io.StringIO())
    try:
        s.plan()
    except SupervisorError as exc:
        assert (
            "Mosquitto" in str(exc)
            and "apt-get install mosquitto" in str(exc)
            and "mqtt.embedded = false" in str(exc)
        )
    else:
        raise AssertionError("run started without a broker")
