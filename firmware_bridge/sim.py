"""The firmware simulator: a battle tower and zone board speaking the protocol on a pseudo-terminal.

Owns the simulated device (counters, zones, LED/buzzer outputs), the pty it lives on (with a stable
symlink, the way udev gives a real board a stable name), fault injection on the line (dropped,
flipped, duplicated, delayed bytes), unplug/replug and reboot, scripted or seeded-random play, and a
ZeroMQ control socket for other processes. The protocol itself is NOT here: it runs the same
`firmware_bridge.wire` and `firmware_bridge.device` code as the reference firmware. Knows nothing of
the rules.
"""

from __future__ import annotations

import contextlib
import json
import os
import pty
import queue
import random
import select
import termios
import threading
import time
import tty
from collections import deque
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any, TextIO

from firmware_bridge import events, wire
from firmware_bridge.device import DeviceLink, DeviceState, emit_item, run_commands
from firmware_bridge.firmware.tower import DEFAULT_REFERENCES

# Synthetic cubes read like the firmware's default colour references (TCS34725 r, g, b, clear), ±10%.
_COLOUR_WEIGHTS = (0, 3, 3, 3, 3, 3, 1, 1)  # black and the player colours most often


@dataclass
class Faults:
    """Line faults: probabilities per byte (drop, flip), per frame (dup), and a delay per frame."""

    drop: float = 0.0
    flip: float = 0.0
    dup: float = 0.0
    delay_ms: float = 0.0


@dataclass
class Outputs:
    """What the host last asked the device to show or do (for tests and the table simulator)."""

    led: tuple[int, int, int, str, int] | None = None
    buzzes: list[tuple[int, int]] = field(default_factory=list)
    calibrations: list[str] = field(default_factory=list)
    resets: int = 0


class SimError(Exception):
    """A control command or script line that cannot be played; the message says why."""


class _Line:
    """Applies Faults to bytes in both directions, with its own seeded RNG."""

    def __init__(self, faults: Faults, seed: int) -> None:
        self.faults = faults
        self.rng = random.Random(seed)

    def _corrupt(self, data: bytes) -> bytes:
        f = self.faults
        if not (f.drop or f.flip):
            return data
        out = bytearray()
        rnd = self.rng.random
        for b in data:
            x = rnd()
            if x < f.drop:
                continue
            if x < f.drop + f.flip:
                b ^= self.rng.randrange(1, 256)
            out.append(b)
        return bytes(out)

    def outgoing(self, frame: bytes) -> bytes:
        if self.faults.dup and self.rng.random() < self.faults.dup:
            frame = frame + frame
        return self._corrupt(frame)

    def incoming(self, data: bytes) -> bytes:
        return self._corrupt(data)


class _PtyPort:
    """The device end of a pseudo-terminal; `link` is a symlink kept pointing at its slave."""

    def __init__(self, link: str | None) -> None:
        self.master, self.slave = pty.openpty()
        tty.setraw(self.slave)  # no echo or line editing before the host configures it
        os.set_blocking(self.master, False)
        self.path = os.ttyname(self.slave)
        self.link = link
        if link:
            tmp = f"{link}.tmp{os.getpid()}"
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)
            os.symlink(self.path, tmp)
            os.replace(tmp, link)

    @property
    def fd(self) -> int:
        return self.master

    def close(self) -> None:
        if self.link:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self.link)
        for fd in (self.master, self.slave):
            with contextlib.suppress(OSError):
                os.close(fd)


class _TtyPort:
    """An existing tty (a socat pty, a USB-serial adapter looped to the host) opened raw."""

    def __init__(self, path: str, baud: int) -> None:
        self.path = path
        self._fd = os.open(path, os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
        tty.setraw(self._fd)
        attrs = termios.tcgetattr(self._fd)
        speed = getattr(termios, f"B{baud}", termios.B115200)
        attrs[4] = attrs[5] = speed
        termios.tcsetattr(self._fd, termios.TCSANOW, attrs)

    @property
    def fd(self) -> int:
        return self._fd

    def close(self) -> None:
        with contextlib.suppress(OSError):
            os.close(self._fd)


def _uid_for(seed: int) -> bytes:
    return random.Random(f"uid-{seed}").randbytes(8)


class FirmwareSim:
    """A simulated tower + zone board. Thread-safe controls; the device runs on its own thread.

    Use: `sim = FirmwareSim(link="/tmp/x/tower"); path = sim.start(); sim.drop({"red": 3}); ...;
    sim.stop()`. `sent` holds every event message it gave a sequence number (what --log writes).
    """

    def __init__(
        self,
        *,
        link: str | None = None,
        device: str | None = None,
        faults: Faults | None = None,
        seed: int = 0,
        log: str | None = None,
        rows: int = 4,
        cols: int = 4,
        harbor_slots: int = 4,
        window: int = 64,
        rto_ms: int | None = None,
        heartbeat_ms: int = 1000,
        quiet_ms: int = 400,
        baud: int | None = None,
        boot_counter: int = 1,
        interval_ms: float = 0.0,
    ) -> None:
        self.link_path = link
        self.device = device
        self.faults = faults or Faults()
        self.seed = seed
        self.rows, self.cols, self.harbor_slots = rows, cols, harbor_slots
        if rto_ms is None:
            # Longer than the line needs to drain a full window (48 bytes an event, 10 bits a byte), so a
            # timeout means loss, not a slow line; a pty has no baud limit.
            rto_ms = max(40, int(1.5 * window * 48 * 10 * 1000 / baud)) if baud else 40
            rto_ms += int(2 * (faults.delay_ms if faults else 0))  # the delay counts both ways
        self.window, self.rto_ms, self.heartbeat_ms, self.quiet_ms = window, rto_ms, heartbeat_ms, quiet_ms
        self.baud = baud
        self.interval_ms = interval_ms
        self.boot = boot_counter
        self.uid = _uid_for(seed)
        self.outputs = Outputs()
        self.sent: list[dict[str, Any]] = []
        self.write_times: dict[tuple[int, int], float] = {}  # (boot, seq) -> monotonic time of first write
        self._log_path = log
        self._log: TextIO | None = None
        self._rng = random.Random(seed)
        self._line = _Line(self.faults, seed + 1)
        self._controls: queue.Queue[tuple[str, Any]] = queue.Queue()
        self._pending: deque[tuple] = deque()
        self._source: Iterator[tuple] | None = None
        self._source_done = True
        self._thread: threading.Thread | None = None
        self._stop = threading.Event()
        self._port: _PtyPort | _TtyPort | None = None
        self._out: deque[tuple[float, bytes]] = deque()  # (due time, bytes) not yet written
        self._replug_at: float | None = None
        self._quiet_at: float | None = None
        self._next_emit = 0.0
        self._tokens, self._tokens_at = 0.0, time.monotonic()
        self._lock = threading.Lock()
        self.unplugs = 0
        self.reboots = 0
        self.path: str | None = None
        self._boot_device()

    # -- device lifecycle -------------------------------------------------------------------------------
    def _boot_device(self) -> None:
        self._t0 = time.monotonic()
        self.state = (
            self._rebooted_state()
            if hasattr(self, "state")
            else DeviceState(self.rows, self.cols, self.harbor_slots)
        )
        self.link = DeviceLink(
            self._write_frame, self.boot, self.uid, kind=3, window=self.window, rto_ms=self.rto_ms
        )
        self._next_heartbeat = 0
        self._host_synced = False  # a host has answered this boot's HELLO (a script's wait_host)

    def _rebooted_state(self) -> DeviceState:
        # RAM is gone, but the ships still sit on their squares: the hall sensors read them again.
        fresh = DeviceState(self.rows, self.cols, self.harbor_slots)
        fresh.squares = list(self.state.squares)
        fresh.harbor = list(self.state.harbor)
        return fresh

    def _now_ms(self) -> int:
        return int((time.monotonic() - self._t0) * 1000)

    def _open_port(self) -> None:
        self._port = _TtyPort(self.device, self.baud or 115200) if self.device else _PtyPort(self.link_path)
        self.path = self.device if self.device else (self.link_path or self._port.path)
        self._out.clear()
        self._write_raw(b"\x00")  # flush any half frame the host may hold
        self.link.send_hello(self._now_ms())

    def _close_port(self) -> None:
        if self._port is not None:
            self._port.close()
            self._port = None
            self._out.clear()
        self._host_synced = False

    # -- public API (thread-safe) -----------------------------------------------------------------------
    def start(self) -> str:
        """Open the port (creating the pty), start the device thread; returns the path the host opens."""
        if self._log_path:
            self._log = open(self._log_path, "w", encoding="utf-8")  # noqa: SIM115 - closed in stop()
        self._open_port()
        self._thread = threading.Thread(target=self._run, name="firmware-sim", daemon=True)
        self._thread.start()
        assert self.path is not None
        return self.path

    def stop(self) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
        self._close_port()
        if self._log is not None:
            self._log.close()
            self._log = None

    def play_random(self, count: int) -> None:
        """Queue `count` events chosen by the seeded RNG: bursts of drops, quiet, ship moves, jams."""
        self._controls.put(("source", self._random_events(count)))

    def play_script(self, lines: list[dict[str, Any]]) -> None:
        for item in lines:
            self._validate(item)
        self._controls.put(("source", self._script_events(lines)))

    def control(self, command: dict[str, Any]) -> None:
        """Apply one control command (the --control socket's JSON): drop, zones, move, jam, sensor_fault,
        unplug, reboot. Raises SimError with a sentence if it cannot be played."""
        self._validate(command)
        self._controls.put(("command", command))

    def drop(self, colours: dict[str, int]) -> None:
        self.control({"drop": colours})

    def set_zones(self, zones: dict[str, Any]) -> None:
        self.control({"zones": zones})

    def unplug(self, ms: float, reboot: bool = False) -> None:
        self.control({"unplug": ms, "reboot": reboot})

    def reboot(self) -> None:
        self.control({"reboot": True})

    def done(self) -> bool:
        """Every queued event sent and acknowledged, and the script/random source exhausted."""
        with self._lock:
            return (
                self._source_done
                and not self._pending
                and self._controls.empty()
                and self.link.all_acked()
                and self._replug_at is None
                and self._quiet_at is None
            )

    def wait_done(self, timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.done():
                return True
            time.sleep(0.01)
        return self.done()

    def status(self) -> dict[str, Any]:
        with self._lock:
            return {
                "path": self.path,
                "boot": self.boot,
                "last_seq": self.link.last_seq,
                "acked": self.link.acked,
                "pending": len(self._pending),
                "unacked": len(self.link.unacked),
                "plugged": self._port is not None,
                "unplugs": self.unplugs,
                "reboots": self.reboots,
                "retransmissions": self.link.retransmissions,
                "led": self.outputs.led,
                "totals": events._totals(tuple(self.state.totals)),
            }

    def serve_control(self, address: str, context: Any = None) -> str:
        """Take control commands from other processes on a ZeroMQ REP socket (JSON in, JSON out):
        {"drop": {"red": 3}}, {"zones": {"r1c1": true}}, {"move": {"from": "r1c1", "to": "r2c1"}},
        {"jam": true}, {"sensor_fault": "colour"}, {"unplug": 1500, "reboot": false}, {"reboot": true},
        {"status": true}. Replies {"ok": true, "status": {...}} or {"ok": false, "error": sentence}.
        Returns the bound endpoint."""
        import zmq

        ctx = context or zmq.Context.instance()
        sock = ctx.socket(zmq.REP)
        sock.setsockopt(zmq.LINGER, 0)
        sock.bind(address)
        endpoint = sock.getsockopt_string(zmq.LAST_ENDPOINT)

        def serve() -> None:
            poller = zmq.Poller()
            poller.register(sock, zmq.POLLIN)
            while not self._stop.is_set():
                if not poller.poll(100):
                    continue
                raw = sock.recv()
                try:
                    cmd = json.loads(raw)
                    if not (isinstance(cmd, dict) and set(cmd) == {"status"}):
                        self.control(cmd)
                    reply: dict[str, Any] = {"ok": True, "status": self.status()}
                except ValueError:
                    reply = {"ok": False, "error": "the control command is not valid JSON"}
                except SimError as exc:
                    reply = {"ok": False, "error": str(exc)}
                sock.send(json.dumps(reply).encode())
            sock.close(0)

        threading.Thread(target=serve, name="firmware-sim-control", daemon=True).start()
        return endpoint

    # -- validation and sources -------------------------------------------------------------------------
    def _validate(self, cmd: Any) -> None:
        if not isinstance(cmd, dict) or len(cmd) == 0:
            raise SimError(f'control command {cmd!r} is not a JSON object such as {{"drop": {{"red": 3}}}}')
        known = {
            "drop",
            "zones",
            "move",
            "jam",
            "sensor_fault",
            "unplug",
            "reboot",
            "wait",
            "wait_host",
            "quiet",
        }
        keys = set(cmd) - {"reboot"} if "unplug" in cmd else set(cmd)
        unknown = keys - known
        if unknown or len(keys) != 1:
            raise SimError(f"control command {json.dumps(cmd)} needs exactly one of {sorted(known)}")
        if "drop" in cmd:
            drop = cmd["drop"]
            if not isinstance(drop, dict) or not drop:
                raise SimError('"drop" takes an object of colour -> count, e.g. {"drop": {"red": 3}}')
            for colour, n in drop.items():
                if colour not in events.COLOUR_INDEX:
                    raise SimError(f"colour {colour!r} is not one of {list(wire.COLOURS)}")
                if not isinstance(n, int) or isinstance(n, bool) or not 0 <= n <= 1000:
                    raise SimError(f"cube count for {colour} must be an integer 0..1000, not {n!r}")
        if "zones" in cmd:
            zones = cmd["zones"]
            if not isinstance(zones, dict):
                raise SimError('"zones" takes an object such as {"r1c1": true, "harbor": [true, false]}')
            for name, on in zones.items():
                if name == "harbor":
                    if not isinstance(on, list) or len(on) > self.harbor_slots:
                        raise SimError(f'"harbor" takes a list of at most {self.harbor_slots} booleans')
                    continue
                try:
                    events.square_index(name, self.rows, self.cols)
                except ValueError as exc:
                    raise SimError(str(exc)) from None
                if not isinstance(on, bool):
                    raise SimError(f"occupancy of {name} must be true or false, not {on!r}")
        if "move" in cmd:
            move = cmd["move"]
            if not isinstance(move, dict) or set(move) != {"from", "to"}:
                raise SimError('"move" takes {"from": "r1c1", "to": "r1c2"}')
            for name in move.values():
                try:
                    events.square_index(str(name), self.rows, self.cols)
                except ValueError as exc:
                    raise SimError(str(exc)) from None
        for key in ("unplug", "wait", "wait_host"):
            if key in cmd and (not isinstance(cmd[key], int | float) or not 0 <= cmd[key] <= 60000):
                raise SimError(f'"{key}" takes a duration in milliseconds, 0..60000')

    def _random_events(self, count: int) -> Iterator[tuple]:
        rng = random.Random(self.seed)
        made = 0
        colours = list(range(wire.N_COLOURS))
        while made < count:
            r = rng.random()
            if r < 0.75:
                for _ in range(rng.randint(1, 6)):
                    if made >= count:
                        return
                    yield self._cube_item(rng, rng.choices(colours, _COLOUR_WEIGHTS)[0])
                    made += 1
                if made < count:
                    yield ("quiet", rng.randint(300, 900))
                    made += 1
            elif r < 0.97:
                a, b = rng.randrange(self.rows * self.cols), rng.randrange(self.rows * self.cols)
                yield ("zones", {a: False, b: True}, None)
                made += 1
            else:
                yield ("fault", 1, 0, 1, rng.randint(1, 3))
                made += 1
                if made < count:
                    yield ("fault", 1, 0, 0, 0)
                    made += 1

    def _script_events(self, lines: list[dict[str, Any]]) -> Iterator[tuple]:
        for item in lines:
            if "wait" in item:
                yield ("wait", float(item["wait"]))
            elif "wait_host" in item:
                yield ("wait_host", float(item["wait_host"]))
            else:
                yield ("command", item)

    def _cube_item(self, rng: random.Random, colour: int) -> tuple:
        raw = tuple(max(0, min(65535, int(v * rng.uniform(0.9, 1.1)))) for v in DEFAULT_REFERENCES[colour])
        return ("cube", colour, raw, rng.randint(170, 255), rng.randint(60, 140))

    def _apply_command(self, cmd: dict[str, Any]) -> None:
        """Turn a validated control command into queued items or device actions (device thread)."""
        if "drop" in cmd:
            for colour, n in cmd["drop"].items():
                for _ in range(n):
                    self._pending.append(self._cube_item(self._rng, events.COLOUR_INDEX[colour]))
            self._quiet_at = time.monotonic() + self.quiet_ms / 1000
        elif "zones" in cmd:
            changes = {
                events.square_index(k, self.rows, self.cols): v
                for k, v in cmd["zones"].items()
                if k != "harbor"
            }
            self._pending.append(("zones", changes, cmd["zones"].get("harbor")))
        elif "move" in cmd:
            a = events.square_index(cmd["move"]["from"], self.rows, self.cols)
            b = events.square_index(cmd["move"]["to"], self.rows, self.cols)
            self._pending.append(("zones", {a: False, b: True}, None))
        elif "jam" in cmd:
            self._pending.append(("fault", 1, 0, 1 if cmd["jam"] else 0, 1))
        elif "sensor_fault" in cmd:
            sensor = {v: k for k, v in wire.FAULT_SENSORS.items()}.get(str(cmd["sensor_fault"]), 3)
            self._pending.append(("fault", 2, sensor, 1, 0))
        elif "quiet" in cmd:
            self._pending.append(("quiet", int(cmd["quiet"]) if cmd["quiet"] is not True else self.quiet_ms))
        elif "unplug" in cmd:
            self.unplugs += 1
            self._close_port()
            self._replug_at = time.monotonic() + float(cmd["unplug"]) / 1000
            if cmd.get("reboot"):
                self._reboot_now(reopen=False)
        elif "reboot" in cmd and cmd["reboot"]:
            self._reboot_now(reopen=True)

    def _reboot_now(self, reopen: bool) -> None:
        # Everything in RAM is gone: unacknowledged and unsent events included (the log keeps them).
        self.reboots += 1
        self.boot += 1
        self._pending.clear()
        self._quiet_at = None
        self._boot_device()
        if reopen and self._port is not None:
            self._write_raw(b"\x00")
            self.link.send_hello(self._now_ms())

    # -- the device thread ------------------------------------------------------------------------------
    def _write_frame(self, frame: bytes) -> None:
        if self._port is None:
            return  # unplugged: the bytes go nowhere; unacknowledged events are resent later
        self._write_raw(self._line.outgoing(frame))

    def _write_raw(self, data: bytes) -> None:
        due = time.monotonic() + self.faults.delay_ms / 1000
        self._out.append((due, data))

    def _flush(self, now: float) -> None:
        if self._port is None:
            return
        limit: int | None = None
        if self.baud:
            # Pace writes to the UART rate (10 bits a byte) so benchmarks see the real line limit.
            self._tokens = min(self._tokens + (now - self._tokens_at) * self.baud / 10, 256.0)
            self._tokens_at = now
            limit = int(self._tokens)
        while self._out and self._out[0][0] <= now:
            due, data = self._out[0]
            chunk = data if limit is None else data[:limit]
            if not chunk:
                break
            try:
                n = os.write(self._port.fd, chunk)
            except BlockingIOError:
                n = 0
            except OSError:
                return
            if limit is not None:
                limit -= n
                self._tokens -= n
            if n < len(data):
                self._out[0] = (due, data[n:])
                break  # the kernel buffer is full or the line budget is spent
            self._out.popleft()

    def _emit(self, item: tuple) -> None:
        now_ms = self._now_ms()
        seq, msg_type, payload = emit_item(self.link, self.state, item, now_ms)
        self.write_times[(self.boot, seq)] = time.monotonic()
        message = events.decode(
            wire.Frame(wire.FLAG_EVENT, self.boot & 0xFF, msg_type, seq, payload), self.boot
        )
        self.sent.append(message)
        if self._log is not None:
            self._log.write(json.dumps(message, separators=(",", ":")) + "\n")
            self._log.flush()

    # Application hooks called by run_commands.
    def led(self, r: int, g: int, b: int, pattern: int, period: int) -> int:
        self.outputs.led = (r, g, b, wire.LED_PATTERNS[pattern], period)
        return 0

    def buzzer(self, freq: int, duration: int) -> int:
        self.outputs.buzzes.append((freq, duration))
        return 0

    def calibrate(self, colour: int) -> int:
        self.outputs.calibrations.append(wire.COLOURS[colour])
        return 0

    def _run(self) -> None:
        self._tokens, self._tokens_at = 0.0, time.monotonic()
        reader = wire.FrameReader()
        wait_until = 0.0
        wait_for_host = False  # a script's wait_host: the wait ends early once a host is in sync
        while not self._stop.is_set():
            now = time.monotonic()
            with self._lock:
                while True:
                    try:
                        what, value = self._controls.get_nowait()
                    except queue.Empty:
                        break
                    if what == "source":
                        self._source, self._source_done = value, False
                    else:
                        self._apply_command(value)
                if self._replug_at is not None and now >= self._replug_at:
                    self._replug_at = None
                    self._open_port()
                    reader = wire.FrameReader()
                # Pull from the script/random source while nothing is waiting.
                if wait_for_host and self._host_synced:
                    wait_until, wait_for_host = now, False
                while self._source is not None and len(self._pending) < 2 * self.window and now >= wait_until:
                    item = next(self._source, None)
                    if item is None:
                        self._source, self._source_done = None, True
                    elif item[0] == "wait":
                        wait_until = now + item[1] / 1000
                    elif item[0] == "wait_host":
                        wait_until, wait_for_host = now + item[1] / 1000, not self._host_synced
                    elif item[0] == "command":
                        self._apply_command(item[1])
                    else:
                        self._pending.append(item)
                if self._quiet_at is not None and now >= self._quiet_at and not self._pending:
                    self._quiet_at = None
                    self._pending.append(("quiet", self.quiet_ms))
                while self._pending and self.link.has_room() and now >= self._next_emit:
                    self._emit(self._pending.popleft())
                    if self.interval_ms:
                        self._next_emit = now + self.interval_ms / 1000
                now_ms = self._now_ms()
                if self._port is not None:
                    self.link.tick(now_ms)
                    if now_ms >= self._next_heartbeat:
                        self._next_heartbeat = now_ms + self.heartbeat_ms
                        self.link.send_heartbeat(now_ms, self.state)
                self._flush(now)
            port = self._port
            if port is None:
                time.sleep(0.005)
                continue
            try:
                ready, _, _ = select.select([port.fd], [], [], 0.002 if self._out else 0.005)
            except (OSError, ValueError):
                ready = []
            if not ready:
                continue
            try:
                data = os.read(port.fd, 4096)
            except BlockingIOError:
                continue
            except OSError:
                # The host closed its end of a real tty, or the pty is gone: keep running.
                time.sleep(0.005)
                continue
            data = self._line.incoming(data)
            with self._lock:
                now_ms = self._now_ms()
                for frame in reader.feed(data):
                    self.link.on_frame(frame, now_ms)
                    # A host frame of this boot's epoch: the host has taken our HELLO and is in sync.
                    if frame.flags & wire.FLAG_FROM_HOST and frame.epoch == self.link.epoch:
                        self._host_synced = True
                run_commands(self.link, self.state, self, now_ms)
