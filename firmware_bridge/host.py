"""The host side of the serial link: owns the port, delivers events exactly once and in order,
publishes them on ZeroMQ, and carries the controller's commands to the device with retry.

Owns: opening the port (pyserial, exclusive, read timeouts; by path or by USB VID:PID), noticing an
unplug and reopening when the device returns, waiting for HELLO after open, acknowledging events,
asking for missed ones, resynchronising after a reconnect or reboot, link health, the ZeroMQ PUB
(events, health) and command (REP) sockets. Must not know the game's rules; it only moves messages.
"""

from __future__ import annotations

import collections
import contextlib
import json
import logging
import os
import queue
import random
import stat
import statistics
import threading
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

import serial
import serial.tools.list_ports
import zmq

from firmware_bridge import events, wire
from firmware_bridge.wire import Frame, PayloadError

log = logging.getLogger("smart_table.bridge")

DEFAULT_PUB = "tcp://127.0.0.1:5590"
DEFAULT_CMD = "tcp://127.0.0.1:5591"
TOPIC_EVENT = b"bridge.event"
TOPIC_HEALTH = b"bridge.health"


class BridgeError(Exception):
    """The port or a socket cannot be used; the message says what was wrong and what to do."""


@dataclass
class Health:
    """Link health, published on bridge.health and returned by Bridge.health()."""

    link: str = "down"  # down | waiting_hello | up | stale
    port: str | None = None
    boot: int | None = None
    delivered_seq: int = 0
    events: int = 0
    crc_errors: int = 0
    framing_errors: int = 0  # COBS, short, overlong, wrong version
    malformed: int = 0  # CRC fine but the payload does not fit its type
    duplicates: int = 0
    retransmissions: int = 0  # event frames the device marked as resent
    resend_requests: int = 0
    resyncs: int = 0  # full-state resynchronisations (every HELLO: connect, reconnect, reboot)
    reboots: int = 0
    reconnects: int = 0
    command_retries: int = 0
    commands_failed: int = 0
    rtt_ms: float | None = None  # median PING round trip over the last 50
    rtt_p99_ms: float | None = None
    last_rx_age_s: float | None = None


@dataclass
class _Command:
    name: str
    msg_type: int
    args: bytes  # payload after the command id
    deadline: float
    done: threading.Event = field(default_factory=threading.Event)
    result: dict[str, Any] | None = None
    cmd_id: int = 0
    attempts: int = 0
    last_sent: float = 0.0
    first_sent: float = 0.0
    internal: bool = False  # the bridge's own resynchronisation request, dropped if the link goes down


def _hex_rgb(value: Any) -> tuple[int, int, int]:
    if isinstance(value, str) and value.startswith("#") and len(value) == 7:
        return int(value[1:3], 16), int(value[3:5], 16), int(value[5:7], 16)
    if isinstance(value, list | tuple) and len(value) == 3 and all(isinstance(v, int) and 0 <= v <= 255 for v in value):
        return int(value[0]), int(value[1]), int(value[2])
    raise ValueError(f"LED colour {value!r} must be [r, g, b] with 0..255 each or \"#rrggbb\"")


def parse_command(cmd: Any) -> tuple[str, int, bytes]:
    """Validate a command object from the controller; returns (name, message type, arguments) or raises
    ValueError with a sentence saying what is wrong."""
    if not isinstance(cmd, dict) or not isinstance(cmd.get("cmd"), str):
        raise ValueError('a command is a JSON object with "cmd": one of led, buzzer, reset_counters, calibrate, '
                         'request_state')
    name = cmd["cmd"]

    def num(key: str, default: int, hi: int) -> int:
        v = cmd.get(key, default)
        if not isinstance(v, int) or isinstance(v, bool) or not 0 <= v <= hi:
            raise ValueError(f'"{key}" of {name} must be an integer 0..{hi}, not {v!r}')
        return v

    if name == "led":
        r, g, b = _hex_rgb(cmd.get("rgb", [0, 0, 0]))
        pattern = cmd.get("pattern", "solid")
        if pattern not in wire.LED_PATTERNS:
            raise ValueError(f"LED pattern {pattern!r} is not one of {list(wire.LED_PATTERNS)}")
        period = num("period_ms", 0, 0xFFFF)
        return name, wire.CMD_LED, bytes([r, g, b, wire.LED_PATTERNS.index(pattern)]) + period.to_bytes(2, "little")
    if name == "buzzer":
        freq, ms = num("freq_hz", 880, 20000), num("ms", 200, 10000)
        return name, wire.CMD_BUZZER, freq.to_bytes(2, "little") + ms.to_bytes(2, "little")
    if name == "reset_counters":
        return name, wire.CMD_RESET_COUNTERS, b""
    if name == "calibrate":
        colour = cmd.get("colour")
        if colour not in events.COLOUR_INDEX:
            raise ValueError(f"calibrate needs \"colour\": one of {list(wire.COLOURS)}, not {colour!r}")
        return name, wire.CMD_CALIBRATE, bytes([events.COLOUR_INDEX[colour]])
    if name == "request_state":
        return name, wire.CMD_REQUEST_STATE, b""
    raise ValueError(f"unknown command {name!r}: use led, buzzer, reset_counters, calibrate or request_state")


def resolve_device(device: str) -> str:
    """A path (a udev symlink is fine) or "usb:VID:PID[:SERIAL]" -> the path to open now.

    Raises BridgeError saying what is missing."""
    if device.startswith("usb:"):
        parts = device.split(":")
        if len(parts) not in (3, 4):
            raise BridgeError(f"--device {device!r}: write a USB id as usb:VID:PID or usb:VID:PID:SERIAL (hex)")
        try:
            vid, pid = int(parts[1], 16), int(parts[2], 16)
        except ValueError:
            raise BridgeError(f"--device {device!r}: VID and PID are hexadecimal, e.g. usb:2e8a:000a") from None
        for port in serial.tools.list_ports.comports():
            if port.vid == vid and port.pid == pid and (len(parts) == 3 or port.serial_number == parts[3]):
                return str(port.device)
        raise BridgeError(f"no USB serial device {device[4:]} is plugged in: check the cable (lsusb)")
    return device


def check_device(device: str) -> str:
    """Fail early with one clear sentence when the device cannot be a serial port we can open."""
    path = resolve_device(device)
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        raise BridgeError(f"no serial device at {path}: plug the board in, check its udev name "
                          f"(ls -l /dev/serial/by-id), or use --device usb:VID:PID") from None
    except OSError as exc:
        raise BridgeError(f"cannot look at {path}: {exc.strerror}") from None
    if not stat.S_ISCHR(mode):
        raise BridgeError(f"{path} is not a serial port (not a character device): pass the board's tty, "
                          f"e.g. /dev/ttyACM0 or /dev/battle-tower")
    if not os.access(path, os.R_OK | os.W_OK):
        raise BridgeError(f"no permission to open {path}: add your user to the dialout group (or install "
                          f"deploy/udev/99-smart-table.rules) and log in again")
    return path


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
        zmq_context: zmq.Context | None = None,
        health_interval: float = 1.0,
        reopen_interval: float = 0.1,
        hello_interval: float = 0.25,
        resend_interval: float = 0.02,
        command_retry: float = 0.1,
        stale_after: float = 3.0,
        ack_repeat: float = 0.03,
    ) -> None:
        self.ack_repeat = ack_repeat
        self.device = device
        self.baudrate = baudrate
        self.on_event = on_event
        self.on_health = on_health
        self.events = events
        self.health_interval = health_interval
        self.reopen_interval = reopen_interval
        self.hello_interval = hello_interval
        self.resend_interval = resend_interval
        self.command_retry = command_retry
        self.stale_after = stale_after
        self._zmq_pub_addr, self._zmq_cmd_addr = zmq_pub, zmq_cmd
        self._ctx = zmq_context
        self._own_ctx = False
        self._pub: zmq.Socket | None = None
        self._rep: zmq.Socket | None = None
        self._ser: serial.Serial | None = None
        self._reader = wire.FrameReader()
        self._errors_base = dict.fromkeys(self._reader.errors, 0)
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self._write_lock = threading.Lock()
        self._h = Health(port=device)
        self._synced = threading.Event()
        self._epoch = 0
        self._delivered = 0
        self._ooo: dict[int, dict[str, Any]] = {}
        self._need_ack = False
        self._last_ack = 0.0
        self._known_last = 0  # highest event seq any device frame has shown
        self._asked: dict[int, float] = {}  # missing seq -> when we last asked for it
        self._last_hello_req = 0.0
        self._last_rx = 0.0
        self._last_health = 0.0
        self._last_ping = 0.0
        self._pings: dict[int, float] = {}
        self._rtts: collections.deque[float] = collections.deque(maxlen=50)
        self._commands: collections.deque[_Command] = collections.deque()
        self._current: _Command | None = None
        self._next_cmd_id = random.SystemRandom().randrange(1, 2**31)  # not game chance: a fresh id space per run
        self._resync_pending = False

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
                raise BridgeError(f"cannot bind ZeroMQ socket ({exc}): pick a free address with --zmq-pub/--zmq-cmd "
                                  f"or stop the other bridge") from None
        self._threads = [threading.Thread(target=self._run, name="bridge-port", daemon=True)]
        if self._rep is not None:
            self._threads.append(threading.Thread(target=self._serve_commands, name="bridge-cmd", daemon=True))
        for t in self._threads:
            t.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        for t in self._threads:
            t.join(timeout=5)
        self._close_port()
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
        return self._synced.wait(timeout)

    def health(self) -> dict[str, Any]:
        h = asdict(self._h)
        h["type"] = "health"
        h["last_rx_age_s"] = round(time.monotonic() - self._last_rx, 3) if self._last_rx else None
        return h

    def command(self, cmd: dict[str, Any], timeout: float = 3.0) -> dict[str, Any]:
        """Send a command and wait for the device's acknowledgement (retrying on the way).

        Returns {"ok": true, "cmd": ..., "status": "ok", "attempts": n, "rtt_ms": x} or {"ok": false,
        "error": sentence}. A command waits for the link while it is down, up to `timeout`."""
        try:
            name, msg_type, args = parse_command(cmd)
        except ValueError as exc:
            result: dict[str, Any] = {"ok": False, "error": str(exc)}
        else:
            if self._threads and threading.current_thread() is self._threads[0]:
                raise RuntimeError("Bridge.command() called from on_event would wait for itself; "
                                   "hand the event to another thread first")
            pending = _Command(name, msg_type, args, time.monotonic() + timeout)
            self._commands.append(pending)
            pending.done.wait(timeout + 1.0)
            result = pending.result or {"ok": False, "cmd": name, "error": "the bridge stopped before an answer"}
        if isinstance(cmd, dict) and "id" in cmd:
            result["id"] = cmd["id"]
        return result

    # -- port thread -------------------------------------------------------------------------------------
    def _close_port(self) -> None:
        if self._ser is not None:
            with contextlib.suppress(Exception):
                self._ser.close()
            self._ser = None

    def _open(self) -> bool:
        try:
            path = resolve_device(self.device)
            ser = serial.Serial(path, self.baudrate, timeout=0.01, write_timeout=0.5, exclusive=True)
        except (BridgeError, serial.SerialException, OSError, ValueError):
            return False
        self._ser = ser
        for k, v in self._reader.errors.items():
            self._errors_base[k] += v
        self._reader = wire.FrameReader()
        self._h.port = path
        self._h.reconnects += 1
        self._set_link("waiting_hello")
        self._request_hello(time.monotonic())
        return True

    def _lost(self) -> None:
        self._close_port()
        self._synced.clear()
        self._ooo.clear()
        # The resynchronisation is asked again after the next HELLO; controller commands keep waiting.
        if self._current is not None and self._current.internal:
            self._finish(self._current, {"ok": False, "cmd": "request_state", "error": "link lost"}, count=False)
        for cmd in [c for c in list(self._commands) if c.internal]:  # list(): a snapshot, other threads append
            self._commands.remove(cmd)
        self._set_link("down")

    def _set_link(self, state: str) -> None:
        if self._h.link != state:
            self._h.link = state
            self._publish_health()

    def _write(self, msg_type: int, payload: bytes = b"", lead: bool = False) -> None:
        ser = self._ser
        if ser is None:
            return
        frame = wire.encode_frame(msg_type, self._delivered, payload, wire.FLAG_FROM_HOST, self._epoch)
        self._last_ack = time.monotonic()  # every host frame carries the cumulative acknowledgement
        try:
            with self._write_lock:
                ser.write(b"\x00" + frame if lead else frame)
        except (serial.SerialException, OSError):
            self._lost()

    def _request_hello(self, now: float) -> None:
        self._last_hello_req = now
        self._write(wire.HELLO_REQUEST, lead=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self._step()
            except Exception:  # never let one bad moment end the link: log it, drop the port, go on
                log.exception("bridge port thread error; reopening the port")
                self._lost()
                self._stop.wait(self.reopen_interval)

    def _step(self) -> None:
        """One turn of the port thread: (re)open, read what arrived, handle it, run the timers."""
        if self._ser is None:
            if not self._open():
                self._stop.wait(self.reopen_interval)
                self._periodic(time.monotonic())
                return
        ser = self._ser
        assert ser is not None
        try:
            data = ser.read(1)
            if data and ser.in_waiting:
                data += ser.read(ser.in_waiting)
        except (serial.SerialException, OSError, TypeError):
            # Unplugged (EIO / "readiness to read but returned no data"): close at once, reopen later.
            self._lost()
            return
        now = time.monotonic()
        if data:
            self._last_rx = now
            for frame in self._reader.feed(data):
                self._on_frame(frame, now)
            self._sync_error_counts()
            if self._need_ack and self._synced.is_set():
                self._need_ack = False
                self._write(wire.ACK)
        self._periodic(now)

    def _sync_error_counts(self) -> None:
        e = self._reader.errors
        b = self._errors_base
        self._h.crc_errors = e["crc"] + b["crc"]
        self._h.framing_errors = sum(e[k] + b[k] for k in ("cobs", "short", "overlong", "version"))

    def _on_frame(self, frame: Frame, now: float) -> None:
        if frame.flags & wire.FLAG_FROM_HOST:
            return  # our own bytes echoed by a misconfigured line
        if frame.type == wire.HELLO:
            self._on_hello(frame, now)
            return
        if not self._synced.is_set():
            return  # before HELLO we do not know which boot this belongs to; it will be resent
        if frame.epoch != self._epoch:
            if now - self._last_hello_req > self.hello_interval:
                self._request_hello(now)
            return
        if frame.flags & wire.FLAG_EVENT and frame.type in events.EVENT_NAMES:
            self._on_event_frame(frame, now)
            return
        try:
            msg = events.decode(frame, self._h.boot or 0)
        except PayloadError:
            self._h.malformed += 1
            return
        if frame.seq > self._known_last:
            self._known_last = frame.seq  # the tail of the stream went missing
            self._recover(now)
        t = frame.type
        if t == wire.HEARTBEAT:
            if msg["boot"] != self._h.boot:
                self._request_hello(now)  # rebooted and its HELLO was lost
                return
            self._emit(msg)
        elif t == wire.FULL_STATE:
            cur = self._current
            if cur is not None and cur.msg_type == wire.CMD_REQUEST_STATE and msg["cmd_id"] == cur.cmd_id:
                self._finish(cur, {"ok": True, "cmd": cur.name, "status": "ok", "state": msg})
            elif msg["cmd_id"] != 0:
                return  # an answer to a request already answered
            self._emit(msg)
        elif t == wire.CMD_ACK:
            cur = self._current
            if cur is not None and msg["cmd_id"] == cur.cmd_id:
                self._finish(cur, {"ok": msg["status"] == "ok", "cmd": cur.name, "status": msg["status"]}
                             | ({} if msg["status"] == "ok" else {"error": f"the device refused {cur.name}: "
                                                                            f"{msg['status']}"}))
        elif t == wire.PONG:
            sent = self._pings.pop(msg["nonce"], None)
            if sent is not None:
                self._rtts.append((now - sent) * 1000)

    def _on_event_frame(self, frame: Frame, now: float) -> None:
        seq = frame.seq
        if frame.flags & wire.FLAG_RETRANSMIT:
            self._h.retransmissions += 1
        if seq <= self._delivered or seq in self._ooo:
            self._h.duplicates += 1
            self._need_ack = True
            return
        try:
            msg = events.decode(frame, self._h.boot or 0)
        except PayloadError:
            self._h.malformed += 1
            return
        self._known_last = max(self._known_last, seq)
        if seq == self._delivered + 1:
            self._deliver(msg)
            while self._delivered + 1 in self._ooo:
                self._deliver(self._ooo.pop(self._delivered + 1))
            self._need_ack = True
        elif seq - self._delivered < 4096:
            self._ooo[seq] = msg
        self._recover(now)

    def _recover(self, now: float) -> None:
        """Ask for every missing event we know of (a hole before a buffered one, or a tail a later frame
        revealed), each at most once per resend_interval; the device resends just those."""
        if self._known_last <= self._delivered:
            return
        ranges: list[tuple[int, int]] = []
        seq = self._delivered + 1
        asked = self._asked
        # Not faster than the round trip: asking again before an answer could arrive only adds duplicates.
        interval = max(self.resend_interval, 2e-3 * self._h.rtt_ms) if self._h.rtt_ms else self.resend_interval
        while seq <= self._known_last and len(ranges) < 16:
            if seq not in self._ooo and now - asked.get(seq, -1.0) >= interval:
                asked[seq] = now
                if ranges and ranges[-1][0] + ranges[-1][1] == seq:
                    ranges[-1] = (ranges[-1][0], ranges[-1][1] + 1)
                else:
                    ranges.append((seq, 1))
            seq += 1
            if seq - self._delivered > 256:
                break
        if ranges:
            self._h.resend_requests += 1
            self._write(wire.RESEND, b"".join(wire.P_RESEND.pack(a, n) for a, n in ranges))
        if len(asked) > 1024:
            self._asked = {k: v for k, v in asked.items() if k > self._delivered}

    def _deliver(self, msg: dict[str, Any]) -> None:
        self._delivered = msg["seq"]
        self._h.delivered_seq = self._delivered
        self._h.events += 1
        self._emit(msg)

    def _on_hello(self, frame: Frame, now: float) -> None:
        try:
            msg = events.decode(frame, 0)
        except PayloadError:
            self._h.malformed += 1
            return
        boot, acked, last_seq = msg["boot"], msg["acked"], frame.seq
        rebooted = self._h.boot is not None and boot != self._h.boot
        if self._synced.is_set() and not rebooted:
            self._known_last = max(self._known_last, last_seq)
            self._recover(now)
            return  # a repeated HELLO on a link already in sync
        if self._h.boot is None or rebooted or last_seq < self._delivered or acked > self._delivered:
            # A new device, a reboot (its sequence restarted), or a device that lost what we hold:
            # continue from what it says is acknowledged.
            self._delivered = acked
            self._ooo.clear()
        if rebooted:
            self._h.reboots += 1
        self._h.boot = boot
        self._h.delivered_seq = self._delivered
        self._epoch = frame.epoch
        self._h.resyncs += 1
        self._synced.set()
        msg["rebooted"] = rebooted
        self._emit(msg)
        self._set_link("up")
        self._write(wire.ACK)
        self._known_last = last_seq
        self._asked.clear()
        self._recover(now)
        # Resynchronise from a full state; it jumps the queue of controller commands.
        if not (self._current is not None and self._current.msg_type == wire.CMD_REQUEST_STATE):
            self._commands.appendleft(_Command("request_state", wire.CMD_REQUEST_STATE, b"", now + 10.0,
                                               internal=True))

    def _finish(self, cmd: _Command, result: dict[str, Any], count: bool = True) -> None:
        if cmd.first_sent:
            result.setdefault("attempts", cmd.attempts)
            result.setdefault("rtt_ms", round((time.monotonic() - cmd.last_sent) * 1000, 2))
        if not result.get("ok") and count:
            self._h.commands_failed += 1
        cmd.result = result
        if self._current is cmd:
            self._current = None
        cmd.done.set()

    def _periodic(self, now: float) -> None:
        synced = self._synced.is_set()
        if self._ser is not None and not synced and now - self._last_hello_req >= self.hello_interval:
            self._request_hello(now)
        if synced and self._last_rx and now - self._last_rx > self.stale_after:
            self._set_link("stale")
            if now - self._last_hello_req >= 1.0:
                self._request_hello(now)
        elif synced and self._h.link == "stale":
            self._set_link("up")
        # Commands: one in flight, stop-and-wait with retry; those that waited too long fail clearly.
        for cmd in [c for c in list(self._commands) if now > c.deadline]:
            self._commands.remove(cmd)
            self._finish(cmd, {"ok": False, "cmd": cmd.name, "attempts": 0,
                               "error": f"{cmd.name} not sent in time: the link was "
                                        f"{'down' if not synced else 'busy'}; check the bridge's health"})
        if self._current is None and self._commands:
            self._current = self._commands.popleft()
            self._current.cmd_id = self._next_cmd_id
            self._next_cmd_id = self._next_cmd_id % 0xFFFFFFFE + 1
        cur = self._current
        if cur is not None:
            if now > cur.deadline:
                state = "link down" if not synced else "no acknowledgement"
                self._finish(cur, {"ok": False, "cmd": cur.name, "attempts": cur.attempts,
                                   "error": f"{cur.name} not acknowledged by the device in time ({state}); "
                                            f"check the cable and the bridge's health"})
            elif synced and now - cur.last_sent >= self.command_retry:
                if cur.attempts:
                    self._h.command_retries += 1
                cur.attempts += 1
                cur.last_sent = now
                cur.first_sent = cur.first_sent or now
                self._write(cur.msg_type, wire.P_U32.pack(cur.cmd_id) + cur.args)
        if synced and self._known_last > self._delivered:
            self._recover(now)
        if synced and now - self._last_rx < 0.5 and now - self._last_ack >= self.ack_repeat:
            self._write(wire.ACK)  # repeat it while traffic flows: a lost ACK would stall a full window
        if synced and now - self._last_ping >= self.health_interval:
            self._last_ping = now
            nonce = int(now * 1000) & 0xFFFFFFFF
            self._pings = {k: v for k, v in self._pings.items() if now - v < 10}
            self._pings[nonce] = now
            self._write(wire.PING, wire.P_U32.pack(nonce))
        if now - self._last_health >= self.health_interval:
            self._publish_health()

    # -- output --------------------------------------------------------------------------------------------
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

    def _publish_health(self) -> None:
        self._last_health = time.monotonic()
        if self._rtts:
            ordered = sorted(self._rtts)
            self._h.rtt_ms = round(statistics.median(ordered), 3)
            self._h.rtt_p99_ms = round(ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))], 3)
        h = self.health()
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
                reply: dict[str, Any] = {"ok": False, "error": "the command is not valid JSON; send an object "
                                                               "such as {\"cmd\": \"buzzer\", \"ms\": 200}"}
            else:
                timeout = cmd.get("timeout_s", 3.0) if isinstance(cmd, dict) else 3.0
                if not isinstance(timeout, int | float) or not 0 < timeout <= 60:
                    timeout = 3.0
                reply = self.command(cmd, timeout=float(timeout))
            rep.send(json.dumps(reply, separators=(",", ":")).encode())
