"""A real Mosquitto for tests, benchmarks and the screenshot tool: free TCP + WebSocket ports, the deploy/
ACL, generated credentials; and a small MQTT client that collects what it receives.

Usage, as a context manager::

    from controller.testing import running_mosquitto
    with running_mosquitto() as broker:
        broker.host, broker.port, broker.ws_port, broker.users["red"]  # password of user "red"

or as a pytest fixture (tests/support/broker.py; import it into the test module or a conftest)::

    from tests.support.broker import mosquitto  # noqa: F401
    def test_x(mosquitto): ...

The broker config is deploy/mosquitto/mosquitto.conf with its listeners, password and ACL paths
rewritten for a temp dir by controller.broker (the same code that writes the embedded broker's files for
`smart-table run`); the ACL is rendered for `tables` (controller.broker.render_acl; `table-1` by default).
Users: every role of each table (`table-1/controller`, `table-1/red`, ...), each with a random password;
`broker.users["red"]` and `Client(broker, "red")` mean the first table's role. Killed at teardown.
It lives in the project, not in tests/, because the benchmarks (bench/) and controller/web/screenshots.py
need it too, and production code never imports from tests/.
"""

from __future__ import annotations

import contextlib
import json
import secrets
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from controller.broker import DEPLOY, render_config, write_broker_files
from controller.credentials import ROLES, login
from controller.mqtt import Transport

MOSQUITTO = shutil.which("mosquitto") or "/usr/sbin/mosquitto"
# How long a test waits for an event before it fails: generous, since it costs time only when the event
# never comes, and a machine shared by several test runs can take seconds to deliver one.
DEADLINE = 30.0


class Logins(dict[str, str]):
    """login -> clear password, where a bare role (`red`) means that role at the broker's first table."""

    def __init__(self, users: dict[str, str], table: str) -> None:
        super().__init__(users)
        self.table = table

    def __missing__(self, key: str) -> str:
        if key in ROLES:
            return dict.__getitem__(self, login(self.table, key))
        raise KeyError(key)


@dataclass
class Broker:
    host: str
    port: int  # MQTT over TCP
    ws_port: int  # MQTT over WebSockets
    users: dict[str, str]  # login -> clear password (Logins: a bare role is the first table's)
    directory: Path
    process: subprocess.Popen = field(repr=False)
    tables: tuple[str, ...] = ("table-1",)

    def __post_init__(self) -> None:
        if not isinstance(self.users, Logins):
            self.users = Logins(self.users, self.tables[0])

    def mqtt_login(self, who: str = "controller") -> dict[str, Any]:
        """The [mqtt] keys with which `who` (a role at the first table) logs in to this broker."""
        return {"host": self.host, "port": self.port, "username": who, "password": self.users[who]}

    def login(self, who: str, table: str | None = None) -> str:
        """The login of a role at `table` (the broker's first table by default); a full login, or a name this
        broker knows as it is (a venue broker's `spectator`), as it is."""
        if who in ROLES and (table is not None or not dict.__contains__(self.users, who)):
            return login(table or self.tables[0], who)
        return who

    @property
    def log(self) -> str:
        path = self.directory / "mosquitto.log"
        return path.read_text() if path.exists() else ""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# Every ZeroMQ endpoint a table binds or connects to, (config section, key), by the short name tests and
# benchmarks give its port.
ENDPOINTS = {
    "pub": ("bridge", "events"),
    "cmd": ("bridge", "commands"),
    "vis": ("vision", "events"),
    "shp": ("vision", "ships_events"),
    "ctl": ("simulate", "tower_control"),
    "cam": ("simulate", "camera_control"),
}


def table_toml(sections: dict[str, dict[str, Any]], ports: Mapping[str, int] | None = None) -> str:
    """A table's config file for a test or a benchmark: `sections` as TOML, with each of the table's ZeroMQ
    endpoints (ENDPOINTS) on loopback at its port in `ports` (a free one where `ports` names none), so that
    tables side by side, and a real one, never share a port. Values are JSON, which TOML reads the same
    for strings, numbers, booleans and arrays."""
    merged = {name: dict(keys) for name, keys in sections.items()}
    for short, (section, key) in ENDPOINTS.items():
        port = (ports or {}).get(short) or free_port()
        merged.setdefault(section, {}).setdefault(key, f"tcp://127.0.0.1:{port}")
    return "".join(
        f"[{name}]\n" + "".join(f"{key} = {json.dumps(value)}\n" for key, value in keys.items())
        for name, keys in merged.items()
    )


def _config(text: str, directory: Path, port: int, ws_port: int) -> str:
    """The broker's mosquitto.conf for a test (loopback listeners, a log file); a hook tests may wrap."""
    return render_config(
        text,
        directory,
        "127.0.0.1",
        port,
        ws_port,
        "127.0.0.1",
        extra=[f"log_dest file {directory / 'mosquitto.log'}", "log_type all"],
    )


@contextlib.contextmanager
def running_mosquitto(
    users: dict[str, str] | None = None,
    timeout: float = DEADLINE,
    passwd_file: Path | None = None,
    tables: tuple[str, ...] = ("table-1",),
) -> Iterator[Broker]:
    """`passwd_file`: use this mosquitto password file as it is (e.g. one `smart-table tablets add` wrote).
    `users`: login (or bare role, at the first table) -> password; by default every role of every table."""
    if users is None:
        users = {login(t, role): secrets.token_urlsafe(9) for t in tables for role in ROLES}
    users = Logins({(login(tables[0], u) if u in ROLES else u): pw for u, pw in users.items()}, tables[0])
    with tempfile.TemporaryDirectory(prefix="mosq-") as tmp:
        directory = Path(tmp)
        port, ws_port = free_port(), free_port()
        conf = write_broker_files(directory, users, "127.0.0.1", port, ws_port, "127.0.0.1", tables=tables)
        conf.write_text(_config((DEPLOY / "mosquitto.conf").read_text(), directory, port, ws_port))
        if passwd_file is not None:
            shutil.copy(passwd_file, directory / "passwd")
        with mosquitto_at(conf, directory, port, ws_port, users, tuple(tables), timeout) as broker:
            yield broker


@contextlib.contextmanager
def mosquitto_at(
    conf: Path,
    directory: Path,
    port: int,
    ws_port: int,
    users: dict[str, str],
    tables: tuple[str, ...] = ("table-1",),
    timeout: float = DEADLINE,
) -> Iterator[Broker]:
    """Mosquitto run with the config file `conf` (its files in `directory`, listening on `port` and
    `ws_port`, `users` its logins) until the block ends; killed then (a test's broker never outlives it)."""
    proc = subprocess.Popen(
        [MOSQUITTO, "-c", str(conf)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    broker = Broker("127.0.0.1", port, ws_port, users, directory, proc, tables)
    try:
        _wait_listening(broker, timeout)
        yield broker
    finally:
        proc.kill()
        proc.wait(timeout=5)
        if proc.stderr:
            proc.stderr.close()


def _wait_listening(broker: Broker, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    pending = [broker.port, broker.ws_port]
    while pending:
        if broker.process.poll() is not None:
            err = broker.process.stderr.read().decode() if broker.process.stderr else ""
            raise RuntimeError(f"mosquitto exited with {broker.process.returncode}: {err}{broker.log}")
        try:
            with socket.create_connection((broker.host, pending[0]), timeout=0.2):
                pending.pop(0)
        except OSError:
            if time.monotonic() > deadline:
                raise RuntimeError(
                    f"mosquitto did not listen on {pending} within {timeout}s: {broker.log}"
                ) from None
            time.sleep(0.02)


class Client:
    """A small paho-mqtt 2.x client for tests: connects as one user, collects messages in a list."""

    def __init__(
        self,
        broker: Broker,
        user: str | None,
        password: str | None = None,
        transport: Transport = "tcp",
        protocol: str = "5",
    ) -> None:
        import queue

        import paho.mqtt.client as mqtt

        self._mqtt = mqtt
        proto = mqtt.MQTTv5 if protocol == "5" else mqtt.MQTTv311
        self.client = mqtt.Client(
            mqtt.CallbackAPIVersion.VERSION2, client_id=user or "", protocol=proto, transport=transport
        )
        if user is not None:
            # A bare role is the broker's first table's login (`red` -> `table-1/red`).
            name = broker.login(user)
            self.client.username_pw_set(name, password if password is not None else broker.users[name])
        self.messages: queue.Queue = queue.Queue()
        self.connect_rc: object = None
        self._connected = __import__("threading").Event()
        self.client.on_connect = self._on_connect
        # every message ever received, in order (wait_for/collect consume the queue only)
        self.history: list = []
        self.client.on_message = self._on_message
        port = broker.ws_port if transport == "websockets" else broker.port
        self.client.connect(broker.host, port, keepalive=30)
        self.client.loop_start()

    def _on_message(self, _c, _u, msg) -> None:
        self.history.append(msg)
        self.messages.put(msg)

    def _on_connect(self, _c, _u, _flags, reason_code, _props=None) -> None:
        self.connect_rc = reason_code
        self._connected.set()

    def wait_connected(self, timeout: float = DEADLINE) -> bool:
        """True when the broker accepted the login; False when it refused it."""
        if not self._connected.wait(timeout):
            raise TimeoutError("no CONNACK from the broker")
        return not getattr(self.connect_rc, "is_failure", bool(self.connect_rc))

    def subscribe(self, topic: str, qos: int = 1) -> None:
        done = __import__("threading").Event()
        self.client.on_subscribe = lambda *a: done.set()
        self.client.subscribe(topic, qos)
        if not done.wait(DEADLINE):
            raise TimeoutError(f"no SUBACK for {topic}")

    def publish(self, topic: str, payload: str | bytes, qos: int = 1, retain: bool = False) -> None:
        self.client.publish(topic, payload, qos=qos, retain=retain).wait_for_publish(DEADLINE)

    def command(self, topic: str, body: dict[str, Any], timeout: float = DEADLINE) -> dict[str, Any]:
        """A tablet's command (`body`, with its request_id) published on `topic`, and the controller's reply
        to it (docs/mqtt.md: the reply names the request it answers)."""
        self.publish(topic, json.dumps(body))
        msg = self.wait_for(
            lambda m: (
                m.topic.endswith("/reply") and json.loads(m.payload)["request_id"] == body["request_id"]
            ),
            timeout,
        )
        return dict(json.loads(msg.payload))

    def collect(self, seconds: float) -> list:
        """Every message that arrives within `seconds` (and any already queued). Only for draining: a test
        that decides on what arrived waits with `until` (a marker message) or `wait_for` instead."""
        import queue

        out, deadline = [], time.monotonic() + seconds
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                break
            try:
                out.append(self.messages.get(timeout=left))
            except queue.Empty:
                break
        return out

    def until(self, predicate, timeout: float = DEADLINE) -> list:
        """Every message up to and including the first for which predicate(msg) is true, else TimeoutError.

        A barrier for "nothing else arrived": publish a marker after the messages that must not get
        through; Mosquitto hands one subscriber its messages in the order it accepted them, so anything
        let through would arrive before the marker."""
        import queue

        out: list = []
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"no matching message; got {[m.topic for m in out]}")
            try:
                msg = self.messages.get(timeout=left)
            except queue.Empty as exc:
                raise TimeoutError(f"no matching message; got {[m.topic for m in out]}") from exc
            out.append(msg)
            if predicate(msg):
                return out

    def wait_for(self, predicate, timeout: float = DEADLINE):
        """The first message for which predicate(msg) is true, else TimeoutError."""
        import queue

        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("no matching message")
            try:
                msg = self.messages.get(timeout=left)
            except queue.Empty as exc:
                raise TimeoutError("no matching message") from exc
            if predicate(msg):
                return msg

    def seen(self, predicate, timeout: float = DEADLINE):
        """Like wait_for, but a matching message already received (even if consumed) counts too."""
        for msg in list(self.history):
            if predicate(msg):
                return msg
        return self.wait_for(predicate, timeout)

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()
