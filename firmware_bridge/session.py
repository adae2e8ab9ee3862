"""The host side of the serial protocol as a pure session: bytes and a clock in, frames and messages out.

Owns: waiting for HELLO, acknowledging events, delivering them exactly once and in order, asking for
missed ones, resynchronising after a reconnect or reboot, stop-and-wait commands with retry and
deadlines, PING round trips and link health. It does no I/O and reads no clock of its own: bytes leave
through the `write` callable it is given, messages through `emit` and `publish_health`, and time
arrives as seconds in every call (the mirror of `firmware_bridge.device` on the other end). The port
and ZeroMQ shells live in `firmware_bridge.port` and `firmware_bridge.host`. It must not know the
game's rules; it only moves messages.
"""

from __future__ import annotations

import collections
import random
import statistics
import threading
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from firmware_bridge import events, wire
from firmware_bridge.wire import Frame, PayloadError

NEVER = float("-inf")  # "long ago" for every timer, whatever clock the caller uses


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
class Command:
    """One command on its way to the device; `done` is set once `result` holds the answer."""

    name: str
    msg_type: int
    args: bytes  # payload after the command id
    deadline: float
    done: threading.Event = field(default_factory=threading.Event)
    result: dict[str, Any] | None = None
    cmd_id: int = 0
    attempts: int = 0
    last_sent: float = NEVER
    first_sent: float | None = None
    internal: bool = False  # the session's own resynchronisation request, dropped if the link goes down


def _hex_rgb(value: Any) -> tuple[int, int, int]:
    if isinstance(value, str) and value.startswith("#") and len(value) == 7:
        return int(value[1:3], 16), int(value[3:5], 16), int(value[5:7], 16)
    if (
        isinstance(value, list | tuple)
        and len(value) == 3
        and all(isinstance(v, int) and 0 <= v <= 255 for v in value)
    ):
        return int(value[0]), int(value[1]), int(value[2])
    raise ValueError(f'LED colour {value!r} must be [r, g, b] with 0..255 each or "#rrggbb"')


def parse_command(cmd: Any) -> tuple[str, int, bytes]:
    """Validate a command object from the controller; returns (name, message type, arguments) or raises
    ValueError with a sentence saying what is wrong."""
    if not isinstance(cmd, dict) or not isinstance(cmd.get("cmd"), str):
        raise ValueError(
            'a command is a JSON object with "cmd": one of led, buzzer, reset_counters, calibrate, '
            "request_state"
        )
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
        return (
            name,
            wire.CMD_LED,
            bytes([r, g, b, wire.LED_PATTERNS.index(pattern)]) + period.to_bytes(2, "little"),
        )
    if name == "buzzer":
        freq, ms = num("freq_hz", 880, 20000), num("ms", 200, 10000)
        return name, wire.CMD_BUZZER, freq.to_bytes(2, "little") + ms.to_bytes(2, "little")
    if name == "reset_counters":
        return name, wire.CMD_RESET_COUNTERS, b""
    if name == "calibrate":
        colour = cmd.get("colour")
        if colour not in events.COLOUR_INDEX:
            raise ValueError(f'calibrate needs "colour": one of {list(wire.COLOURS)}, not {colour!r}')
        return name, wire.CMD_CALIBRATE, bytes([events.COLOUR_INDEX[colour]])
    if name == "request_state":
        return name, wire.CMD_REQUEST_STATE, b""
    raise ValueError(f"unknown command {name!r}: use led, buzzer, reset_counters, calibrate or request_state")


class LinkSession:
    """The protocol state of one link, driven by `opened`, `feed`, `tick` and `lost`.

    `write(frame_bytes) -> bool` sends bytes to the device (False: the port failed, the session goes
    down). `emit(message)` receives every message for the controller (events exactly once and in
    order, hello, heartbeat, full_state); `publish_health(health)` receives health on change and every
    `health_interval`. `submit` may be called from any thread (it only appends to a deque); everything
    else belongs to the one thread that drives the session.
    """

    def __init__(
        self,
        write: Callable[[bytes], bool],
        emit: Callable[[dict[str, Any]], None],
        publish_health: Callable[[dict[str, Any]], None] | None = None,
        *,
        port: str | None = None,
        health_interval: float = 1.0,
        hello_interval: float = 0.25,
        resend_interval: float = 0.02,
        command_retry: float = 0.1,
        stale_after: float = 3.0,
        ack_repeat: float = 0.03,
        first_cmd_id: int | None = None,
    ) -> None:
        self._write_bytes = write
        self._emit = emit
        self._publish = publish_health
        self.health_interval = health_interval
        self.hello_interval = hello_interval
        self.resend_interval = resend_interval
        self.command_retry = command_retry
        self.stale_after = stale_after
        self.ack_repeat = ack_repeat
        self.h = Health(port=port)
        self.connected = False  # a port is open: frames can be written
        self.synced = False  # a HELLO of the current connection has been taken
        self._reader = wire.FrameReader()
        self._errors_base = dict.fromkeys(self._reader.errors, 0)
        self._epoch = 0
        self._delivered = 0
        self._ooo: dict[int, dict[str, Any]] = {}
        self._need_ack = False
        self._last_ack = NEVER
        self._known_last = 0  # highest event seq any device frame has shown
        self._asked: dict[int, float] = {}  # missing seq -> when we last asked for it
        self._last_hello_req = NEVER
        self._last_rx: float | None = None
        self._last_health = NEVER
        self._last_ping = NEVER
        self._pings: dict[int, float] = {}
        self._rtts: collections.deque[float] = collections.deque(maxlen=50)
        self._commands: collections.deque[Command] = collections.deque()
        self._current: Command | None = None
        # Not game chance: a fresh id space per run, so a device never mistakes a new command for a repeat.
        self._next_cmd_id = (
            first_cmd_id if first_cmd_id is not None else random.SystemRandom().randrange(1, 2**31)
        )

    # -- driven by the port shell ------------------------------------------------------------------------
    def opened(self, now: float, port: str | None = None) -> None:
        """A port was (re)opened: forget half-read bytes and ask the device who it is."""
        for k, v in self._reader.errors.items():
            self._errors_base[k] += v
        self._reader = wire.FrameReader()
        self.connected = True
        if port is not None:
            self.h.port = port
        self.h.reconnects += 1
        self._set_link("waiting_hello", now)
        self._request_hello(now)

    def lost(self, now: float) -> None:
        """The port went away (unplug, I/O error). Controller commands keep waiting for the next HELLO."""
        self.connected = False
        self.synced = False
        self._ooo.clear()
        # The resynchronisation is asked again after the next HELLO.
        if self._current is not None and self._current.internal:
            self._finish(
                self._current, {"ok": False, "cmd": "request_state", "error": "link lost"}, now, count=False
            )
        for cmd in [
            c for c in list(self._commands) if c.internal
        ]:  # list(): a snapshot, other threads append
            self._commands.remove(cmd)
        self._set_link("down", now)

    def feed(self, data: bytes, now: float) -> None:
        """Bytes arrived from the device (any split: frames may straddle calls)."""
        if not data:
            return
        self._last_rx = now
        for frame in self._reader.feed(data):
            self._on_frame(frame, now)
        self._sync_error_counts()
        if self._need_ack and self.synced:
            self._need_ack = False
            self._write(wire.ACK, now)

    def submit(self, command: Command) -> Command:
        """Queue a command (thread-safe); its `done` is set when it is acknowledged, refused or late."""
        self._commands.append(command)
        return command

    def health(self, now: float) -> dict[str, Any]:
        h = asdict(self.h)
        h["type"] = "health"
        h["last_rx_age_s"] = round(now - self._last_rx, 3) if self._last_rx is not None else None
        return h

    def tick(self, now: float) -> None:
        """Run the timers: HELLO requests, staleness, command retry and deadlines, resends, ACK repeat,
        PING and health."""
        synced = self.synced
        if self.connected and not synced and now - self._last_hello_req >= self.hello_interval:
            self._request_hello(now)
        if synced and self._last_rx is not None and now - self._last_rx > self.stale_after:
            self._set_link("stale", now)
            if now - self._last_hello_req >= 1.0:
                self._request_hello(now)
        elif synced and self.h.link == "stale":
            self._set_link("up", now)
        self._run_commands(now)
        if synced and self._known_last > self._delivered:
            self._recover(now)
        if (
            synced
            and self._last_rx is not None
            and now - self._last_rx < 0.5
            and now - self._last_ack >= self.ack_repeat
        ):
            self._write(wire.ACK, now)  # repeat it while traffic flows: a lost ACK would stall a full window
        if synced and now - self._last_ping >= self.health_interval:
            self._last_ping = now
            nonce = int(now * 1000) & 0xFFFFFFFF
            self._pings = {k: v for k, v in self._pings.items() if now - v < 10}
            self._pings[nonce] = now
            self._write(wire.PING, now, wire.P_U32.pack(nonce))
        if now - self._last_health >= self.health_interval:
            self._publish_health(now)

    # -- frames out ---------------------------------------------------------------------------------------
    def _write(self, msg_type: int, now: float, payload: bytes = b"", lead: bool = False) -> None:
        if not self.connected:
            return
        frame = wire.encode_frame(msg_type, self._delivered, payload, wire.FLAG_FROM_HOST, self._epoch)
        self._last_ack = now  # every host frame carries the cumulative acknowledgement
        if not self._write_bytes(b"\x00" + frame if lead else frame):
            self.lost(now)

    def _request_hello(self, now: float) -> None:
        self._last_hello_req = now
        self._write(wire.HELLO_REQUEST, now, lead=True)  # the leading 0x00 ends any half-frame on the line

    def _set_link(self, state: str, now: float) -> None:
        if self.h.link != state:
            self.h.link = state
            self._publish_health(now)

    # -- frames in ----------------------------------------------------------------------------------------
    def _sync_error_counts(self) -> None:
        e = self._reader.errors
        b = self._errors_base
        self.h.crc_errors = e["crc"] + b["crc"]
        self.h.framing_errors = sum(e[k] + b[k] for k in ("cobs", "short", "overlong", "version"))

    def _on_frame(self, frame: Frame, now: float) -> None:
        if frame.flags & wire.FLAG_FROM_HOST:
            return  # our own bytes echoed by a misconfigured line
        if frame.type == wire.HELLO:
            self._on_hello(frame, now)
            return
        if not self.synced:
            return  # before HELLO we do not know which boot this belongs to; it will be resent
        if frame.epoch != self._epoch:
            if now - self._last_hello_req > self.hello_interval:
                self._request_hello(now)
            return
        if frame.flags & wire.FLAG_EVENT and frame.type in events.EVENT_NAMES:
            self._on_event_frame(frame, now)
            return
        msg = self._decode(frame, self.h.boot or 0)
        if msg is None:
            return
        if frame.seq > self._known_last:
            self._known_last = frame.seq  # the tail of the stream went missing
            self._recover(now)
        t = frame.type
        if t == wire.HEARTBEAT:
            if msg["boot"] != self.h.boot:
                self._request_hello(now)  # rebooted and its HELLO was lost
                return
            self._emit(msg)
        elif t == wire.FULL_STATE:
            cur = self._current
            if cur is not None and cur.msg_type == wire.CMD_REQUEST_STATE and msg["cmd_id"] == cur.cmd_id:
                self._finish(cur, {"ok": True, "cmd": cur.name, "status": "ok", "state": msg}, now)
            elif msg["cmd_id"] != 0:
                return  # an answer to a request already answered
            self._emit(msg)
        elif t == wire.CMD_ACK:
            cur = self._current
            if cur is not None and msg["cmd_id"] == cur.cmd_id:
                ok = msg["status"] == "ok"
                refusal = {} if ok else {"error": f"the device refused {cur.name}: {msg['status']}"}
                self._finish(cur, {"ok": ok, "cmd": cur.name, "status": msg["status"]} | refusal, now)
        elif t == wire.PONG:
            sent = self._pings.pop(msg["nonce"], None)
            if sent is not None:
                self._rtts.append((now - sent) * 1000)

    def _on_event_frame(self, frame: Frame, now: float) -> None:
        seq = frame.seq
        if frame.flags & wire.FLAG_RETRANSMIT:
            self.h.retransmissions += 1
        if seq <= self._delivered or seq in self._ooo:
            self.h.duplicates += 1
            self._need_ack = True
            return
        msg = self._decode(frame, self.h.boot or 0)
        if msg is None:
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
        interval = max(self.resend_interval, 2e-3 * self.h.rtt_ms) if self.h.rtt_ms else self.resend_interval
        while seq <= self._known_last and len(ranges) < 16:
            if seq not in self._ooo and now - asked.get(seq, NEVER) >= interval:
                asked[seq] = now
                if ranges and ranges[-1][0] + ranges[-1][1] == seq:
                    ranges[-1] = (ranges[-1][0], ranges[-1][1] + 1)
                else:
                    ranges.append((seq, 1))
            seq += 1
            if seq - self._delivered > 256:
                break
        if ranges:
            self.h.resend_requests += 1
            self._write(wire.RESEND, now, b"".join(wire.P_RESEND.pack(a, n) for a, n in ranges))
        if len(asked) > 1024:
            self._asked = {k: v for k, v in asked.items() if k > self._delivered}

    def _decode(self, frame: Frame, boot: int) -> dict[str, Any] | None:
        """The frame's message; None for a payload that does not fit its type, counted as malformed."""
        try:
            return events.decode(frame, boot)
        except PayloadError:
            self.h.malformed += 1
            return None

    def _deliver(self, msg: dict[str, Any]) -> None:
        self._delivered = msg["seq"]
        self.h.delivered_seq = self._delivered
        self.h.events += 1
        self._emit(msg)

    def _on_hello(self, frame: Frame, now: float) -> None:
        msg = self._decode(frame, 0)
        if msg is None:
            return
        boot, acked, last_seq = msg["boot"], msg["acked"], frame.seq
        rebooted = self.h.boot is not None and boot != self.h.boot
        if self.synced and not rebooted:
            self._known_last = max(self._known_last, last_seq)
            self._recover(now)
            return  # a repeated HELLO on a link already in sync
        if self.h.boot is None or rebooted or last_seq < self._delivered or acked > self._delivered:
            # A new device, a reboot (its sequence restarted), or a device that lost what we hold:
            # continue from what it says is acknowledged.
            self._delivered = acked
            self._ooo.clear()
        if rebooted:
            self.h.reboots += 1
        self.h.boot = boot
        self.h.delivered_seq = self._delivered
        self._epoch = frame.epoch
        self.h.resyncs += 1
        self.synced = True
        msg["rebooted"] = rebooted
        self._emit(msg)
        self._set_link("up", now)
        self._write(wire.ACK, now)
        self._known_last = last_seq
        self._asked.clear()
        self._recover(now)
        # Resynchronise from a full state; it jumps the queue of controller commands.
        if not (self._current is not None and self._current.msg_type == wire.CMD_REQUEST_STATE):
            self._commands.appendleft(
                Command("request_state", wire.CMD_REQUEST_STATE, b"", now + 10.0, internal=True)
            )

    # -- commands -----------------------------------------------------------------------------------------
    def _run_commands(self, now: float) -> None:
        """One command in flight, stop-and-wait with retry; those that waited too long fail clearly."""
        synced = self.synced
        for cmd in [c for c in list(self._commands) if now > c.deadline]:
            self._commands.remove(cmd)
            self._finish(
                cmd,
                {
                    "ok": False,
                    "cmd": cmd.name,
                    "attempts": 0,
                    "error": f"{cmd.name} not sent in time: the link was "
                    f"{'down' if not synced else 'busy'}; check the bridge's health",
                },
                now,
            )
        if self._current is None and self._commands:
            self._current = self._commands.popleft()
            self._current.cmd_id = self._next_cmd_id
            self._next_cmd_id = self._next_cmd_id % 0xFFFFFFFE + 1
        cur = self._current
        if cur is None:
            return
        if now > cur.deadline:
            state = "link down" if not synced else "no acknowledgement"
            error = (
                (
                    f"{cur.name} not acknowledged by the device in time ({state}); check the cable and the "
                    f"bridge's health"
                )
                if cur.attempts
                else (
                    f"{cur.name} not sent in time: the link was {'down' if not synced else 'busy'}; "
                    f"check the bridge's health"
                )
            )
            self._finish(cur, {"ok": False, "cmd": cur.name, "attempts": cur.attempts, "error": error}, now)
        elif synced and now - cur.last_sent >= self.command_retry:
            if cur.attempts:
                self.h.command_retries += 1
            cur.attempts += 1
            cur.last_sent = now
            if cur.first_sent is None:
                cur.first_sent = now
            self._write(cur.msg_type, now, wire.P_U32.pack(cur.cmd_id) + cur.args)

    def _finish(self, cmd: Command, result: dict[str, Any], now: float, count: bool = True) -> None:
        if cmd.first_sent is not None:
            result.setdefault("attempts", cmd.attempts)
            result.setdefault("rtt_ms", round((now - cmd.last_sent) * 1000, 2))
        if not result.get("ok") and count:
            self.h.commands_failed += 1
        cmd.result = result
        if self._current is cmd:
            self._current = None
        cmd.done.set()

    # -- health -------------------------------------------------------------------------------------------
    def _publish_health(self, now: float) -> None:
        self._last_health = now
        if self._rtts:
            ordered = sorted(self._rtts)
            self.h.rtt_ms = round(statistics.median(ordered), 3)
            self.h.rtt_p99_ms = round(ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))], 3)
        if self._publish is not None:
            self._publish(self.health(now))
