"""The reference firmware's logic (firmware_bridge/firmware/tower.py, with the shared wire/device code)
run under CPython on a real pty against the real bridge; only the pins are fake (no board here)."""

from __future__ import annotations

import os
import pty
import queue
import select
import threading
import time
import tty
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from firmware_bridge.firmware.tower import ColourClassifier, Tower
from firmware_bridge.host import Bridge

RED, BLUE, YELLOW = (1800, 420, 380, 2700), (300, 600, 1700, 2600), (2200, 1900, 500, 4700)


class FakeHal:
    """Pins the test sets; outputs it records. The firmware reads these exactly as it reads the board."""

    def __init__(self) -> None:
        self.entry = False
        self.exit = False
        self.colour: tuple[int, int, int, int] | None = RED
        self.squares = [False] * 16
        self.harbor = [False] * 4
        self.leds: list[tuple] = []
        self.buzzes: list[tuple] = []
        self.saved: list[list] = []

    def beam_entry(self) -> bool:
        return self.entry

    def beam_exit(self) -> bool:
        return self.exit

    def read_colour(self) -> tuple[int, int, int, int]:
        if self.colour is None:
            raise OSError("I2C bus error")
        return self.colour

    def read_squares(self) -> list[bool]:
        return list(self.squares)

    def read_harbor(self) -> list[bool]:
        return list(self.harbor)

    def led(self, *args: int) -> None:
        self.leds.append(args)

    def buzzer(self, *args: int) -> None:
        self.buzzes.append(args)

    def save_references(self, refs: list) -> None:
        self.saved.append(list(refs))


class Rig:
    """The firmware loop on the device end of a pty; the bridge on the other end."""

    def __init__(self, tmp: str) -> None:
        self.hal = FakeHal()
        self.master, self.slave = pty.openpty()
        tty.setraw(self.slave)
        self.link = os.path.join(tmp, "tower")
        os.symlink(os.ttyname(self.slave), self.link)
        self.t0 = time.monotonic()
        self.skip_ms = 0  # firmware time that steps() played ahead of the wall clock
        self.lock = threading.Lock()
        self.tower = Tower(
            self.hal, lambda b: os.write(self.master, b), boot=7, uid=b"\x01" * 8, quiet_ms=150, jam_ms=300
        )
        self.tower.boot(0)
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._loop, daemon=True)
        self.thread.start()
        self.q: queue.Queue[dict[str, Any]] = queue.Queue()
        self.got: list[dict[str, Any]] = []
        self.bridge = Bridge(self.link, events=self.q).start()

    def now(self) -> int:
        return int((time.monotonic() - self.t0) * 1000) + self.skip_ms

    def steps(self, *pins: tuple[int, Callable[[], None]]) -> None:
        """Set pins and step the firmware at exact firmware times (ms after now), holding the loop off, so
        a loaded machine cannot stretch a 15 ms beam into a jam or a gap between cubes into a quiet."""
        with self.lock:
            start = self.now()
            for at, change in pins:
                change()
                self.tower.step(start + at)
            self.skip_ms = max(self.skip_ms, self.skip_ms + start + pins[-1][0] - self.now())

    def _loop(self) -> None:
        while not self.stop.is_set():
            ready, _, _ = select.select([self.master], [], [], 0.001)
            with self.lock:
                if ready:
                    self.tower.feed(os.read(self.master, 4096), self.now())
                self.tower.step(self.now())

    def events(self, kind: str | None = None) -> list[dict[str, Any]]:
        while not self.q.empty():
            self.got.append(self.q.get())
        return [
            m
            for m in self.got
            if m["type"] in ("cube_dropped", "tower_quiet", "zone_state", "fault")
            and (kind is None or m["type"] == kind)
        ]

    def wait_for(self, predicate: Callable[[], bool], timeout: float = 30.0) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if predicate():
                return True
            time.sleep(0.01)
        return predicate()

    def cube(self, *colours: tuple[int, int, int, int] | None, transit_ms: int = 60) -> None:
        """Cubes through the tower one after another: beam 15 ms, transit, exit beam 15 ms, 15 ms gap."""
        hal = self.hal
        pins: list[tuple[int, Callable[[], None]]] = []
        for i, colour in enumerate(colours):
            t = i * (transit_ms + 45)

            def enter(colour: tuple[int, int, int, int] | None = colour) -> None:
                hal.colour, hal.entry = colour, True

            pins += [
                (t, enter),
                (t + 15, lambda: setattr(hal, "entry", False)),
                (t + 15 + transit_ms, lambda: setattr(hal, "exit", True)),
                (t + 30 + transit_ms, lambda: setattr(hal, "exit", False)),
                (t + 45 + transit_ms, lambda: None),
            ]
        self.steps(*pins)

    def close(self) -> None:
        self.bridge.stop()
        self.stop.set()
        self.thread.join(2)
        for fd in (self.master, self.slave):
            os.close(fd)


@pytest.fixture
def rig(tmp_path) -> Iterator[Rig]:
    r = Rig(str(tmp_path))
    assert r.bridge.wait_synced(5)
    yield r
    r.close()


def test_cubes_are_classified_counted_and_followed_by_quiet(rig: Rig) -> None:
    rig.cube(RED, BLUE, YELLOW, RED)
    assert rig.wait_for(lambda: len(rig.events("tower_quiet")) == 1)
    cubes = rig.events("cube_dropped")
    assert [c["colour"] for c in cubes] == ["red", "blue", "yellow", "red"]
    assert [c["seq"] for c in rig.events()] == [1, 2, 3, 4, 5] and all(c["boot"] == 7 for c in cubes)
    assert cubes[-1]["totals"]["red"] == 2 and cubes[-1]["totals"]["yellow"] == 1
    assert all(40 <= c["transit_ms"] <= 400 and c["confidence"] > 0.3 for c in cubes)
    assert cubes[0]["raw"] == {"r": 1800, "g": 420, "b": 380, "c": 2700}
    assert rig.events("tower_quiet")[0]["cubes"] == 4


def test_a_cube_that_does_not_come_out_is_a_jam_until_it_does(rig: Rig) -> None:
    rig.steps((0, lambda: setattr(rig.hal, "entry", True)), (20, lambda: setattr(rig.hal, "entry", False)))
    assert rig.wait_for(lambda: len(rig.events("fault")) == 1)
    jam = rig.events("fault")[0]
    assert (jam["kind"], jam["active"], jam["detail"]) == ("jam", True, 1)
    rig.hal.colour = BLUE
    rig.hal.exit = True
    assert rig.wait_for(lambda: len(rig.events("fault")) == 2)
    assert [m["type"] for m in rig.events()][:3] == ["fault", "cube_dropped", "fault"]
    assert rig.events("fault")[1]["active"] is False


def test_hall_sensors_report_a_stable_move_and_ignore_a_flicker(rig: Rig) -> None:
    # A flicker seen by at most 2 polls (they are 20 ms apart), fewer than the 3 a report needs: no event.
    rig.steps(
        (0, lambda: rig.hal.squares.__setitem__(0, True)),
        (20, lambda: None),
        (40, lambda: rig.hal.squares.__setitem__(0, False)),
    )
    rig.hal.squares[5] = True
    rig.hal.harbor[2] = True
    assert rig.wait_for(lambda: len(rig.events("zone_state")) == 1)
    zone = rig.events("zone_state")[0]  # events come in order: a reported flicker would be this one
    assert (
        zone["squares"]["r2c2"]
        and not zone["squares"]["r1c1"]
        and zone["harbor"] == [False, False, True, False]
    )


def test_commands_reach_the_pins_and_calibration_sets_a_reference(rig: Rig) -> None:
    assert rig.bridge.command({"cmd": "led", "rgb": [0, 255, 0], "pattern": "blink", "period_ms": 400})["ok"]
    assert rig.bridge.command({"cmd": "buzzer", "freq_hz": 2000, "ms": 50})["ok"]
    assert rig.hal.leds == [(0, 255, 0, 2, 400)] and rig.hal.buzzes == [(2000, 50)]
    odd_green = (500, 1400, 900, 2900)
    assert rig.bridge.command({"cmd": "calibrate", "colour": "green"})["ok"]
    rig.cube(odd_green)
    assert rig.wait_for(lambda: len(rig.events("cube_dropped")) == 1)
    first = rig.events("cube_dropped")[0]
    assert first["colour"] == "green" and first["confidence"] == 1.0
    assert rig.hal.saved and rig.hal.saved[-1][4] == odd_green
    r = rig.bridge.command({"cmd": "calibrate", "colour": "unknown"})
    assert not r["ok"] and "bad_arguments" in r["error"]


def test_a_silent_colour_sensor_is_a_fault_and_the_cube_still_counts(rig: Rig) -> None:
    rig.cube(None, RED)
    # Both cubes' events, not only the two faults: under load the second cube arrives after them.
    assert rig.wait_for(lambda: len(rig.events("fault")) == 2 and len(rig.events("cube_dropped")) == 2)
    kinds = [(m["type"], m.get("sensor"), m.get("active"), m.get("colour")) for m in rig.events()]
    assert kinds[:4] == [
        ("fault", "colour", True, None),
        ("cube_dropped", None, None, "unknown"),
        ("fault", "colour", False, None),
        ("cube_dropped", None, None, "red"),
    ]
    state = rig.bridge.command({"cmd": "request_state"})["state"]
    assert state["totals"]["unknown"] == 1 and state["totals"]["red"] == 1


def test_the_classifier_separates_the_default_classes_under_noise() -> None:
    import random

    classifier = ColourClassifier()
    rng = random.Random(5)
    for colour, ref in enumerate(classifier.references[1:], start=1):
        for _ in range(100):
            raw = tuple(int(v * rng.uniform(0.88, 1.12)) for v in ref)
            assert classifier.classify(raw)[0] == colour
