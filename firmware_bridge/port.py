"""The serial port shell around the link session: finds and opens the port, reads what arrives, feeds it
to a `LinkSession` with the monotonic clock, writes what the session sends, notices an unplug and
reopens when the device returns.

Owns: pyserial (exclusive, short read timeouts; by path or by USB VID:PID) and the one thread that
drives the session. The protocol is in `firmware_bridge.session`; ZeroMQ is in `firmware_bridge.host`.
"""

from __future__ import annotations

import contextlib
import logging
import os
import stat
import threading
import time

import serial
import serial.tools.list_ports

from firmware_bridge.session import LinkSession

log = logging.getLogger(__name__)


class BridgeError(Exception):
    """The port or a socket cannot be used; the message says what was wrong and what to do."""


def resolve_device(device: str) -> str:
    """A path (a udev symlink is fine) or "usb:VID:PID[:SERIAL]" -> the path to open now.

    Raises BridgeError saying what is missing."""
    if device.startswith("usb:"):
        parts = device.split(":")
        if len(parts) not in (3, 4):
            raise BridgeError(
                f"--device {device!r}: write a USB id as usb:VID:PID or usb:VID:PID:SERIAL (hex)"
            )
        try:
            vid, pid = int(parts[1], 16), int(parts[2], 16)
        except ValueError:
            raise BridgeError(
                f"--device {device!r}: VID and PID are hexadecimal, e.g. usb:2e8a:000a"
            ) from None
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
        raise BridgeError(
            f"no serial device at {path}: plug the board in, check its udev name "
            f"(ls -l /dev/serial/by-id), or use --device usb:VID:PID"
        ) from None
    except OSError as exc:
        raise BridgeError(f"cannot look at {path}: {exc.strerror}") from None
    if not stat.S_ISCHR(mode):
        raise BridgeError(
            f"{path} is not a serial port (not a character device): pass the board's tty, "
            f"e.g. /dev/ttyACM0 or /dev/battle-tower"
        )
    if not os.access(path, os.R_OK | os.W_OK):
        raise BridgeError(
            f"no permission to open {path}: add your user to the dialout group (or install "
            f"deploy/udev/99-smart-table.rules) and log in again"
        )
    return path


class PortLink:
    """One thread that owns the serial port and drives `session` with what it reads and the clock.

    `synced` mirrors the session's state as a threading.Event so other threads can wait on it.
    """

    def __init__(
        self, device: str, session: LinkSession, *, baudrate: int = 115200, reopen_interval: float = 0.1
    ) -> None:
        self.device = device
        self.baudrate = baudrate
        self.reopen_interval = reopen_interval
        self.session = session
        self.synced = threading.Event()
        self._ser: serial.Serial | None = None
        self._write_lock = threading.Lock()
        self._stop = threading.Event()
        self.thread = threading.Thread(target=self._run, name="bridge-port", daemon=True)

    def start(self) -> None:
        self.thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self.thread.is_alive():
            self.thread.join(timeout=5)
        self._close()

    def write(self, data: bytes) -> bool:
        """The session's way out: False (and the port closed) when the device is gone."""
        ser = self._ser
        if ser is None:
            return False
        try:
            with self._write_lock:
                ser.write(data)
        except (serial.SerialException, OSError):
            self._close()
            return False
        return True

    def _close(self) -> None:
        ser, self._ser = self._ser, None
        if ser is not None:
            with contextlib.suppress(Exception):
                ser.close()

    def _lost(self) -> None:
        self._close()
        self.session.lost(time.monotonic())

    def _open(self) -> bool:
        try:
            path = resolve_device(self.device)
            ser = serial.Serial(path, self.baudrate, timeout=0.01, write_timeout=0.5, exclusive=True)
        except (BridgeError, serial.SerialException, OSError, ValueError):
            return False
        self._ser = ser
        self.session.opened(time.monotonic(), path)
        return True

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                self._step()
            except Exception:  # never let one bad moment end the link: log it, drop the port, go on
                log.exception("bridge port thread error; reopening the port")
                self._lost()
                self._stop.wait(self.reopen_interval)
            if self.session.synced:
                self.synced.set()
            else:
                self.synced.clear()

    def _step(self) -> None:
        """One turn of the port thread: (re)open, read what arrived, hand it over, run the timers."""
        if self._ser is None:
            if not self._open():
                self._stop.wait(self.reopen_interval)
                self.session.tick(time.monotonic())
                return
        ser = self._ser
        if ser is None:  # the first write after opening failed
            return
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
            self.session.feed(data, now)
        self.session.tick(now)
