"""The reference firmware's logic: break-beam entry/exit, colour classification, jam and quiet
detection, hall-sensor squares, and the protocol (through the shared `wire` and `device` modules).

Hardware-free: every sensor is read through the `hal` object it is given, so the very same file runs
on the RP2040 under MicroPython (`main.py` supplies the real pins) and on the host under CPython, where
the tests drive it with a fake HAL against the real bridge. MicroPython subset only (see wire.py). It
must not know the game's rules: it counts and classifies, nothing more.

HAL interface (all cheap, non-blocking):
  beam_entry() -> bool, beam_exit() -> bool      True while the beam is broken
  read_colour() -> (r, g, b, clear)              raises OSError if the sensor does not answer
  read_squares() -> list of bool (rows*cols)     hall sensors, row-major
  read_harbor() -> list of bool
  led(r, g, b, pattern, period_ms), buzzer(freq_hz, ms), save_references(list)   outputs
"""

try:
    from firmware_bridge import wire
    from firmware_bridge.device import DeviceLink, DeviceState, emit_item, run_commands
except ImportError:  # on the board the modules sit side by side
    import wire  # type: ignore[no-redef, import-not-found]
    from device import (  # type: ignore[no-redef, import-not-found]
        DeviceLink,
        DeviceState,
        emit_item,
        run_commands,
    )

# Typical TCS34725 readings (r, g, b, clear) of each colour class under the tower's LED, gain 4x,
# 24 ms integration; replaced per class by CMD_CALIBRATE.
DEFAULT_REFERENCES = [
    (400, 400, 400, 1300),
    (120, 110, 100, 350),
    (1800, 420, 380, 2700),
    (300, 600, 1700, 2600),
    (450, 1600, 600, 2700),
    (2200, 1900, 500, 4700),
    (900, 400, 1300, 2700),
    (2400, 2400, 2300, 7200),
]

FAULT_JAM = 1
FAULT_SENSOR = 2
SENSOR_COLOUR = 3


def _features(raw) -> tuple:
    # Chromaticity (share of each channel) separates hues whatever the distance to the sensor;
    # brightness (clear channel, log-ish) separates black and white from the rest.
    r, g, b, c = raw
    total = r + g + b
    if total <= 0:
        return (0.0, 0.0, 0.0, 0.0)
    bright = c / 8000.0
    return (r / total, g / total, b / total, bright if bright < 1.0 else 1.0)


class ColourClassifier:
    """Nearest reference in (chromaticity, brightness); confidence from the margin to the runner-up."""

    def __init__(self, references=None) -> None:
        self.references = list(references or DEFAULT_REFERENCES)
        self._features = [_features(ref) for ref in self.references]

    def set_reference(self, colour: int, raw) -> None:
        self.references[colour] = tuple(raw)
        self._features[colour] = _features(raw)

    def classify(self, raw) -> tuple:
        """Returns (colour class, confidence 0..255). Class 0 (unknown) is never chosen: it only marks
        a failed reading."""
        f = _features(raw)
        best, best_d, second_d = 0, 1e9, 1e9
        for i in range(1, len(self._features)):
            ref = self._features[i]
            d = (
                (f[0] - ref[0]) ** 2
                + (f[1] - ref[1]) ** 2
                + (f[2] - ref[2]) ** 2
                + 0.5 * (f[3] - ref[3]) ** 2
            )
            if d < best_d:
                best, best_d, second_d = i, d, best_d
            elif d < second_d:
                second_d = d
        if second_d <= 0:
            return best, 0
        confidence = int(255 * (1.0 - (best_d / second_d) ** 0.5))
        return best, max(0, min(255, confidence))


class Tower:
    """One board: the battle tower's beams and colour sensor plus the squares' hall sensors."""

    def __init__(
        self,
        hal,
        write,
        boot: int,
        uid: bytes,
        rows: int = 4,
        cols: int = 4,
        harbor_slots: int = 4,
        window: int = 64,
        rto_ms: int = 400,
        queue_max: int = 64,
        quiet_ms: int = 400,
        jam_ms: int = 2000,
        zone_poll_ms: int = 20,
        zone_stable: int = 3,
        heartbeat_ms: int = 1000,
        references=None,
    ) -> None:
        self.hal = hal
        self.state = DeviceState(rows, cols, harbor_slots)
        self.link = DeviceLink(write, boot, uid, kind=3, sensors=0x7F, window=window, rto_ms=rto_ms)
        self.reader = wire.FrameReader()
        self.classifier = ColourClassifier(references)
        self.queue = []  # type: list[tuple]
        self.queue_max = queue_max
        self.overflows = 0
        self.quiet_ms, self.jam_ms = quiet_ms, jam_ms
        self.zone_poll_ms, self.zone_stable = zone_poll_ms, zone_stable
        self.heartbeat_ms = heartbeat_ms
        self._entry = False
        self._exit = False
        self._entries = []  # type: list[int]  # entry times of cubes not yet out
        self._last_cube_ms = 0
        self._cubes_since_quiet = 0
        self._jam = False
        self._sensor_fault = False
        self._calibrate = -1  # colour class the next cube calibrates
        self._next_zone_poll = 0
        self._candidate = None  # type: tuple[list[bool], list[bool]] | None
        self._candidate_count = 0
        self._next_heartbeat = 0
        self._zones_known = None  # type: tuple[list[bool], list[bool]] | None

    # -- lifecycle ------------------------------------------------------------------------------------------
    def boot(self, now_ms: int) -> None:
        """Announce ourselves; the squares as sensed now are the state (no event for the initial read)."""
        self.state.squares = list(self.hal.read_squares())
        self.state.harbor = list(self.hal.read_harbor())
        self._zones_known = (list(self.state.squares), list(self.state.harbor))
        self.link.write(b"\x00")
        self.link.send_hello(now_ms)

    def feed(self, data, now_ms: int) -> None:
        """Bytes from the host."""
        for frame in self.reader.feed(data):
            self.link.on_frame(frame, now_ms)
        run_commands(self.link, self.state, self, now_ms)

    def step(self, now_ms: int) -> None:
        """Poll the sensors and keep the link going; call every millisecond or so."""
        self._poll_beams(now_ms)
        if now_ms >= self._next_zone_poll:
            self._next_zone_poll = now_ms + self.zone_poll_ms
            self._poll_zones()
        while self.queue and self.link.has_room():
            emit_item(self.link, self.state, self.queue.pop(0), now_ms)
        self.link.tick(now_ms)
        if now_ms >= self._next_heartbeat:
            self._next_heartbeat = now_ms + self.heartbeat_ms
            self.link.send_heartbeat(now_ms, self.state)

    # -- sensing --------------------------------------------------------------------------------------------
    def _enqueue(self, item: tuple) -> None:
        if len(self.queue) < self.queue_max:
            self.queue.append(item)
            return
        # Queue full (host gone for long): keep the counters right, the next FULL_STATE tells the host.
        self.overflows += 1
        if item[0] == "cube":
            self.state.count_cube(item[1])
        elif item[0] == "zones":
            for index, on in item[1].items():
                self.state.squares[index] = on

    def _poll_beams(self, now_ms: int) -> None:
        entry, exit_ = self.hal.beam_entry(), self.hal.beam_exit()
        if entry and not self._entry:
            self._entries.append(now_ms)
        if exit_ and not self._exit:
            self._cube_out(now_ms)
        self._entry, self._exit = entry, exit_
        self.state.in_tower = len(self._entries)
        if self._entries and not self._jam and now_ms - self._entries[0] > self.jam_ms:
            self._jam = True
            self._enqueue(("fault", FAULT_JAM, 0, 1, len(self._entries)))
        if self._cubes_since_quiet and not self._entries and now_ms - self._last_cube_ms >= self.quiet_ms:
            self._cubes_since_quiet = 0
            self._enqueue(("quiet", self.quiet_ms))

    def _cube_out(self, now_ms: int) -> None:
        transit = now_ms - self._entries.pop(0) if self._entries else 0
        try:
            raw = self.hal.read_colour()
            colour, confidence = self.classifier.classify(raw)
            if self._sensor_fault:
                self._sensor_fault = False
                self._enqueue(("fault", FAULT_SENSOR, SENSOR_COLOUR, 0, 0))
        except OSError:
            raw, colour, confidence = (0, 0, 0, 0), 0, 0
            if not self._sensor_fault:
                self._sensor_fault = True
                self._enqueue(("fault", FAULT_SENSOR, SENSOR_COLOUR, 1, 0))
        if self._calibrate > 0 and colour != 0:
            self.classifier.set_reference(self._calibrate, raw)
            self.hal.save_references(self.classifier.references)
            colour, confidence, self._calibrate = self._calibrate, 255, -1
        self._enqueue(("cube", colour, raw, confidence, min(transit, 0xFFFF)))
        self._last_cube_ms = now_ms
        self._cubes_since_quiet += 1
        if self._jam and not self._entries:
            self._jam = False
            self._enqueue(("fault", FAULT_JAM, 0, 0, 0))

    def _poll_zones(self) -> None:
        reading = (list(self.hal.read_squares()), list(self.hal.read_harbor()))
        if reading == self._zones_known:
            self._candidate, self._candidate_count = None, 0
            return
        # A magnet sliding over a sensor flickers: report only a reading stable for zone_stable polls.
        if reading != self._candidate:
            self._candidate, self._candidate_count = reading, 1
            return
        self._candidate_count += 1
        if self._candidate_count >= self.zone_stable:
            old = self._zones_known
            changes = {i: on for i, on in enumerate(reading[0]) if old is None or old[0][i] != on}
            self._enqueue(("zones", changes, reading[1]))
            self._zones_known = reading
            self._candidate, self._candidate_count = None, 0

    # -- command hooks (run_commands) -------------------------------------------------------------------
    def led(self, r: int, g: int, b: int, pattern: int, period: int) -> int:
        self.hal.led(r, g, b, pattern, period)
        return 0

    def buzzer(self, freq: int, duration: int) -> int:
        self.hal.buzzer(freq, duration)
        return 0

    def calibrate(self, colour: int) -> int:
        if colour == 0:
            return 2  # "unknown" has no reference
        self._calibrate = colour
        return 0
