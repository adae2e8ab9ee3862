"""The bridge: one serial link (`firmware_bridge.port` driving a `firmware_bridge.session.LinkSession`)
with its ZeroMQ shell: events and health on a PUB socket, the controller's commands on a REP socket.

Owns: binding and serving the two sockets, handing each message to the in-process consumers (callback,
queue), and the blocking `command()` call. The protocol lives in `session.py`, the port in `port.py`.
Must not know the game's rules; it only moves messages.
"""

from __future__ import annotations

import json
import logging
import queue
import threading
import time
from collections.abc import Callable
from typing import Any

import zmq

from contracts import topics
from firmware_bridge.port import BridgeError, PortLink, check_device, resolve_device
from firmware_bridge.session import Command, Health, LinkSession, parse_command

__all__ = [
    "DEFAULT_CMD",
    "DEFAULT_PUB",
    "TOPIC_EVENT",
    "TOPIC_HEALTH",
    "Bridge",
    "BridgeError",
    "Health",
    "check_device",
    "parse_command",
    "resolve_device",
]

log = logging.getLogger(__name__)

DEFAULT_PUB = "tcp://127.0.0.1:5590"
DEFAULT_CMD = "tcp://127.0.0.1:5591"
TOPIC_EVENT = topics.BRIDGE_EVENT
TOPIC_HEALTH = topics.BRIDGE_HEALTH


class Bridge:
    """The link to one device. Thread-safe API; one thread owns the port, one serves commands.

    Events reach `on_event(message)` (called on the port thread: keep it quick), the optional `events`
    queue, and ZeroMQ PUB if `zmq_pub` is given. `command({"cmd": "led", ...})` blocks until the
    device acknowledges or the timeout passes.
    """

    def __init__(
        self,
        device: str,
        *,
        baudrate: int = 115200,
        zmq_pub: str | None = None,
        zmq_cmd: str | None = None,
        on_event: Callable[[dict[str, Any]], None] | None = None,
        on_health: Callable[[dict[str, Any]], None] | None = None,
        events: queue.Queue[dict[str, Any]] | None = None,
        zmq_context: zmq.Context[zmq.Socket[bytes]] | None = None,
        health_interval: float = 1.0,
        reopen_interval: float = 0.1,
        hello_interval: float = 0.25,
        resend_interval: float = 0.02,
        command_retry: float = 0.1,
        stale_after: float = 3.0,
        ack_repeat: float = 0.03,
    ) -> None:
        self.device = device
        self.on_event = on_event
        self.on_health = on_health
        self.events = events
        self._zmq_pub_addr, self._zmq_cmd_addr = zmq_pub, zmq_cmd
        self._ctx = zmq_context
        self._own_ctx = False
        self._pub: zmq.Socket[bytes] | None = None
        self._rep: zmq.Socket[bytes] | None = None
        self._stop = threading.Event()
        self._cmd_thread: threading.Thread | None = None
        self.session = LinkSession(
            self._write,
            self._emit,
            self._publish_health,
            port=device,
            health_interval=health_interval,
            hello_interval=hello_interval,
            resend_interval=resend_interval,
            command_retry=command_retry,
            stale_after=stale_after,
            ack_repeat=ack_repeat,
        )
        self.port = PortLink(device, self.session, baudrate=baudrate, reopen_interval=reopen_interval)
        self._started = False

    # -- lifecycle ---------------------------------------------------------------------------------------
    def start(self) -> Bridge:
        """Bind the ZeroMQ sockets (raising BridgeError if an address is taken) and start the threads."""
        if self._zmq_pub_addr or self._zmq_cmd_addr:
            if self._ctx is None:
                self._ctx, self._own_ctx = zmq.Context(), True
            try:
                if self._zmq_pub_addr:
                    self._pub = self._ctx.socket(zmq.PUB)
                    self._pub.setsockopt(zmq.SNDHWM, 100000)
                    self._pub.setsockopt(zmq.LINGER, 0)
                    self._pub.bind(self._zmq_pub_addr)
                if self._zmq_cmd_addr:
                    self._rep = self._ctx.socket(zmq.REP)
                    self._rep.setsockopt(zmq.LINGER, 0)
                    self._rep.bind(self._zmq_cmd_addr)
            except zmq.ZMQError as exc:
                self._close_sockets()
                raise BridgeError(
                    f"cannot bind ZeroMQ socket ({exc}): pick a free address with --zmq-pub/--zmq-cmd "
                    f"or stop the other bridge"
                ) from None
        self._started = True
        self.port.start()
        if self._rep is not None:
            self._cmd_thread = threading.Thread(target=self._serve_commands, name="bridge-cmd", daemon=True)
            self._cmd_thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        self.port.stop()
        if self._cmd_thread is not None:
            self._cmd_thread.join(timeout=5)
        self._close_sockets()

    def __enter__(self) -> Bridge:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _close_sockets(self) -> None:
        for sock in (self._pub, self._rep):
            if sock is not None:
                sock.close(0)
        self._pub = self._rep = None
        if self._own_ctx and self._ctx is not None:
            self._ctx.term()
            self._ctx = None

    # -- public API ------------------------------------------------------------------------------------
    @property
    def pub_address(self) -> str | None:
        """The bound PUB endpoint (resolves a wildcard port such as tcp://127.0.0.1:*)."""
        return self._pub.getsockopt_string(zmq.LAST_ENDPOINT) if self._pub is not None else None

    @property
    def cmd_address(self) -> str | None:
        return self._rep.getsockopt_string(zmq.LAST_ENDPOINT) if self._rep is not None else None

    def wait_synced(self, timeout: float) -> bool:
        return self.port.synced.wait(timeout)

    def health(self) -> dict[str, Any]:
        return self.session.health(time.monotonic())

    def command(self, cmd: dict[str, Any], timeout: float = 3.0) -> dict[str, Any]:
        """Send a command and wait for the device's acknowledgement (retrying on the way).

        Returns {"ok": true, "cmd": ..., "status": "ok", "attempts": n, "rtt_ms": x} or {"ok": false,
        "error": sentence}. A command waits for the link while it is down, up to `timeout`."""
        try:
            name, msg_type, args = parse_command(cmd)
        except ValueError as exc:
            result: dict[str, Any] = {"ok": False, "error": str(exc)}
        else:
            if threading.current_thread() is self.port.thread:
                raise RuntimeError(
                    "Bridge.command() called from on_event would wait for itself; "
                    "hand the event to another thread first"
                )
            pending = self.session.submit(Command(name, msg_type, args, time.monotonic() + timeout))
            pending.done.wait(timeout + 1.0)
            result = pending.result or {
                "ok": False,
                "cmd": name,
                "error": "the bridge stopped before an answer",
            }
        if isinstance(cmd, dict) and "id" in cmd:
            result["id"] = cmd["id"]
        return result

    # -- the session's outputs -----------------------------------------------------------------------------
    def _write(self, data: bytes) -> bool:
        return self.port.write(data)

    def _emit(self, msg: dict[str, Any]) -> None:
        if self._pub is not None:
            self._pub.send_multipart([TOPIC_EVENT, json.dumps(msg, separators=(",", ":")).encode()])
        if self.events is not None:
            self.events.put(msg)
        if self.on_event is not None:
            try:
                self.on_event(msg)
            except Exception:  # a consumer's bug must not stop the link; the event is published anyway
                log.exception("on_event callback failed for %s seq %s", msg.get("type"), msg.get("seq"))

    def _publish_health(self, h: dict[str, Any]) -> None:
        if self._pub is not None:
            self._pub.send_multipart([TOPIC_HEALTH, json.dumps(h, separators=(",", ":")).encode()])
        if self.on_health is not None:
            try:
                self.on_health(h)
            except Exception:
                log.exception("on_health callback failed")

    # -- command thread --------------------------------------------------------------------------------
    def _serve_commands(self) -> None:
        rep = self._rep
        assert rep is not None
        poller = zmq.Poller()
        poller.register(rep, zmq.POLLIN)
        while not self._stop.is_set():
            if not poller.poll(100):
                continue
            raw = rep.recv()
            try:
                cmd = json.loads(raw)
            except (ValueError, UnicodeDecodeError):
                reply: dict[str, Any] = {
                    "ok": False,
                    "error": "the command is not valid JSON; send an object "
                    'such as {"cmd": "buzzer", "ms": 200}',
                }
            else:
                timeout = cmd.get("timeout_s", 3.0) if isinstance(cmd, dict) else 3.0
                if not isinstance(timeout, int | float) or not 0 < timeout <= 60:
                    timeout = 3.0
                reply = self.command(cmd, timeout=float(timeout))
            rep.send(json.dumps(reply, separators=(",", ":")).encode())
