"""The table under attack: `smart-table run --simulate` in its DEFAULT configuration (only the ports moved
to free ones, so the suite runs beside other tables), with the embedded Mosquitto it starts itself.

The fixture reads the logins the way a person gets them (the links `run` prints) and, for the
controller's own login, from the game database (what an attacker on the machine would be after).
Everything is on 127.0.0.1.
"""

from __future__ import annotations

import json
import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import paho.mqtt.client as mqtt
import pytest

from controller.credentials import ROLES, CredentialStore, login, parse_login
from controller.testing import free_port, table_toml

REPO = Path(__file__).resolve().parents[2]
TABLE = "table-1"  # the default table.id
PLAYERS = ("red", "blue", "green", "yellow")  # the default table.players


@dataclass
class Table:
    proc: subprocess.Popen
    ports: dict[str, int]
    # role -> password (display and seats from the printed links, controller from the db); the broker login
    # is `table-1/<role>` (Login makes it)
    users: dict[str, str]
    pids: dict[str, int]  # child name -> pid, as printed
    db: Path
    tmp: Path
    output: list[str] = field(default_factory=list)

    @property
    def base(self) -> str:
        return f"table/{TABLE}"

    def all_pids(self) -> set[int]:
        """The supervisor and every process below it (children and their children)."""
        parents: dict[int, int] = {}
        for d in Path("/proc").iterdir():
            if d.name.isdigit():
                try:
                    stat = (d / "stat").read_text()
                except OSError:
                    continue
                parents[int(d.name)] = int(stat.rsplit(")", 1)[1].split()[1])
        family = {self.proc.pid}
        grew = True
        while grew:
            grew = False
            for pid, ppid in parents.items():
                if ppid in family and pid not in family:
                    family.add(pid)
                    grew = True
        return family


def _config(tmp: Path, ports: dict[str, int]) -> Path:
    path = tmp / "table.toml"
    # the default configuration, ports moved to free ones
    path.write_text(
        table_toml(
            {
                "table": {"database": "table.db"},
                "mqtt": {"port": ports["mqtt"], "ws_port": ports["ws"]},
                "display": {"port": ports["http"]},
            },
            ports,
        )
    )
    return path


# `smart-table run` starting cold (imports, its Mosquitto, its children) on a small loaded machine: a deadline
# for a hang, never a wait
STARTUP = 120.0


@contextmanager
def running_table(tmp: Path, ports: dict[str, int], conf: Path, *flags: str) -> Iterator[Table]:
    """`smart-table run` with `conf` (its `ports`) and `flags`, its tablets' logins read from the links it
    prints, online."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "smart_table", "run", *flags, "--config", str(conf)],
        cwd=tmp,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    lines: queue.Queue[str] = queue.Queue()
    output: list[str] = []

    def pump() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            output.append(line)
            lines.put(line)

    threading.Thread(target=pump, daemon=True).start()
    users: dict[str, str] = {}
    pids: dict[str, int] = {}
    deadline = time.monotonic() + STARTUP
    try:
        while time.monotonic() < deadline and ("controller" not in pids or len(users) < 1 + len(PLAYERS)):
            try:
                line = lines.get(timeout=0.5)
            except queue.Empty:
                assert proc.poll() is None, "smart-table run exited:\n" + "".join(output)
                continue
            link = re.search(r"(http://\S+\?\S+)", line)
            if link:
                q = parse_qs(urlsplit(link.group(1)).query)
                named = parse_login(q["user"][0])
                assert named and named[0] == TABLE, f"a link's login does not name its table: {line}"
                users[named[1]] = q["pass"][0]
            started = re.search(r"started (\S+) \(pid (\d+)\)", line)
            if started:
                pids[started.group(1)] = int(started.group(2))
        assert "controller" in pids and len(users) == 1 + len(PLAYERS), "".join(output)
        with CredentialStore(tmp / "table.db") as store:
            users["controller"] = store.get(TABLE, "controller") or ""
        t = Table(proc, ports, users, pids, tmp / "table.db", tmp, output)
        _wait_online(t)
        yield t
    finally:
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(timeout=5)


@pytest.fixture(scope="package")
def table(tmp_path_factory) -> Iterator[Table]:
    tmp = tmp_path_factory.mktemp("attacked-table")
    ports = {k: free_port() for k in ("http", "mqtt", "ws", "pub", "cmd", "ctl", "vis", "cam", "shp")}
    with running_table(tmp, ports, _config(tmp, ports), "--simulate") as t:
        yield t


def _wait_online(t: Table, timeout: float = 60) -> None:
    c = Login(t, "display")
    try:
        assert c.wait_connected(timeout), "the display login was refused"
        c.subscribe(f"{t.base}/availability")
        c.subscribe(f"{t.base}/state")
        c.wait_for(lambda m: m.topic.endswith("/availability") and json.loads(m.payload) == "online", timeout)
        c.wait_for(lambda m: m.topic.endswith("/state"), timeout)
    finally:
        c.close()


class Login:
    """A paho client logged in as one user of the table (or none), collecting what it receives. A role
    (`red`, also as the client id) is that role's login at the table, `table-1/red`, unless `exact`."""

    def __init__(
        self,
        t: Table,
        user: str | None,
        password: str | None = None,
        client_id: str = "",
        protocol: mqtt.MQTTProtocolVersion = mqtt.MQTTv5,
        port: int | None = None,
        exact: bool = False,
    ) -> None:
        def named(who: str) -> str:
            return login(TABLE, who) if who in ROLES and not exact else who

        self.client = mqtt.Client(
            mqtt.CallbackAPIVersion.VERSION2, client_id=named(client_id), protocol=protocol
        )
        if user is not None:
            self.client.username_pw_set(named(user), password if password is not None else t.users[user])
        self.messages: queue.Queue = queue.Queue()
        self.history: list[mqtt.MQTTMessage] = []
        self.rc: object = None
        self.disconnects: list[object] = []
        self._connected = threading.Event()
        self.client.on_connect = self._on_connect
        self.client.on_disconnect = lambda _c, _u, _f, rc, _p=None: self.disconnects.append(rc)
        self.client.on_message = self._on_message
        self.client.connect("127.0.0.1", port or t.ports["mqtt"], keepalive=30)
        self.client.loop_start()

    def _on_connect(self, _c, _u, _f, rc, _p=None) -> None:
        self.rc = rc
        self._connected.set()

    def _on_message(self, _c, _u, msg) -> None:
        self.history.append(msg)
        self.messages.put(msg)

    def wait_connected(self, timeout: float = 30) -> bool:
        if not self._connected.wait(timeout):
            raise TimeoutError("no CONNACK")
        return not getattr(self.rc, "is_failure", bool(self.rc))

    def subscribe(self, topic: str) -> None:
        done = threading.Event()
        self.client.on_subscribe = lambda *_a: done.set()
        self.client.subscribe(topic, qos=1)
        assert done.wait(30), f"no SUBACK for {topic}"

    def publish(self, topic: str, payload: str | bytes, retain: bool = False) -> None:
        self.client.publish(topic, payload, qos=1, retain=retain).wait_for_publish(30)

    def wait_for(self, predicate, timeout: float = 30):
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("no matching message")
            try:
                msg = self.messages.get(timeout=left)
            except queue.Empty:
                raise TimeoutError("no matching message") from None
            if predicate(msg):
                return msg

    def collect(self, seconds: float, until=None, timeout: float = 30) -> list:
        """What arrives within `seconds` (the window in which something that must not arrive would show);
        with `until`, it goes on collecting (up to `timeout`) until until(messages) holds, so what must
        arrive is waited for, however slow the machine."""
        out, deadline = [], time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            try:
                out.append(self.messages.get(timeout=left))
            except queue.Empty:
                break
        deadline = time.monotonic() + timeout
        while until is not None and not until(out) and (left := deadline - time.monotonic()) > 0:
            try:
                out.append(self.messages.get(timeout=left))
            except queue.Empty:
                break
        return out

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()
