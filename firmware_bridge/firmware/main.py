"""Reference firmware entry point for a Raspberry Pi Pico (RP2040) under MicroPython. Board-only.

Flashing (MicroPython 1.22+ on the Pico; mpremote from PyPI on the host):
    mpremote cp firmware_bridge/wire.py firmware_bridge/device.py :
    mpremote cp firmware_bridge/firmware/tower.py firmware_bridge/firmware/tcs34725.py :
    mpremote cp firmware_bridge/firmware/main.py :
    mpremote reset
The protocol then runs on the USB serial port (the REPL is switched off: Ctrl-C no longer breaks in;
hold GP15 low at power-up to get the REPL back for maintenance).

Wiring (3.3 V logic):
    GP2  entry break-beam receiver (open collector, pull-up; LOW while the beam is broken)
    GP3  exit break-beam receiver  (same)
    GP4/GP5  I2C0 SDA/SCL to the TCS34725 colour sensor (its LED on), at the exit chute
    GP6..GP21  16 hall sensors (A3144-type, LOW with a magnet) for squares r1c1..r4c4, row-major
    GP22, GP26, GP27, GP28  4 hall sensors for the harbor slots
    GP0  WS2812 LED ring data (12 pixels), GP1  piezo buzzer (PWM), GP15  maintenance jumper
"""

import select
import sys
import time

import machine
import micropython
import neopixel
import tcs34725
from tower import Tower

BEAM_PINS = (2, 3)
SQUARE_PINS = tuple(range(6, 22))
HARBOR_PINS = (22, 26, 27, 28)
LED_PIN, BUZZER_PIN, MAINT_PIN, PIXELS = 0, 1, 15, 12


def _load_boot_counter() -> int:
    # Kept in flash: a changed counter tells the host the device rebooted and its sequence restarted.
    try:
        with open("boot.cnt") as f:
            boot = int(f.read()) + 1
    except (OSError, ValueError):
        boot = 1
    with open("boot.cnt", "w") as f:
        f.write(str(boot))
    return boot


def _load_references():
    try:
        with open("colours.ref") as f:
            refs = [tuple(int(v) for v in line.split(",")) for line in f.read().split("\n") if line]
        return refs if len(refs) == 8 else None
    except (OSError, ValueError):
        return None


class PicoHal:
    def __init__(self) -> None:
        pull = machine.Pin.PULL_UP
        self.entry = machine.Pin(BEAM_PINS[0], machine.Pin.IN, pull)
        self.exit = machine.Pin(BEAM_PINS[1], machine.Pin.IN, pull)
        self.squares = [machine.Pin(p, machine.Pin.IN, pull) for p in SQUARE_PINS]
        self.harbor = [machine.Pin(p, machine.Pin.IN, pull) for p in HARBOR_PINS]
        self.i2c = machine.I2C(0, sda=machine.Pin(4), scl=machine.Pin(5), freq=400000)
        try:
            self.colour = tcs34725.TCS34725(self.i2c, integration_ms=24.0, gain=1)
        except OSError:
            self.colour = None  # reported as a sensor fault on the first cube
        self.ring = neopixel.NeoPixel(machine.Pin(LED_PIN), PIXELS)
        self.buzz = machine.PWM(machine.Pin(BUZZER_PIN))
        self.buzz.duty_u16(0)
        self.buzz_until = 0
        self.led_state = (0, 0, 0, 0, 0)

    def beam_entry(self) -> bool:
        return self.entry.value() == 0

    def beam_exit(self) -> bool:
        return self.exit.value() == 0

    def read_colour(self):
        if self.colour is None:
            raise OSError("no colour sensor")
        return self.colour.read()

    def read_squares(self):
        return [p.value() == 0 for p in self.squares]

    def read_harbor(self):
        return [p.value() == 0 for p in self.harbor]

    def led(self, r, g, b, pattern, period) -> None:
        self.led_state = (r, g, b, pattern, max(period, 100))

    def buzzer(self, freq, ms) -> None:
        self.buzz.freq(max(freq, 20))
        self.buzz.duty_u16(32768)
        self.buzz_until = time.ticks_add(time.ticks_ms(), ms)

    def save_references(self, refs) -> None:
        with open("colours.ref", "w") as f:
            f.write("\n".join(",".join(str(v) for v in ref) for ref in refs))

    def animate(self, now) -> None:
        # off, solid, blink, pulse, spin (see LED_PATTERNS in wire.py)
        r, g, b, pattern, period = self.led_state
        phase = (now % period) / period
        for i in range(PIXELS):
            k = 0.0
            if pattern == 1:
                k = 1.0
            elif pattern == 2:
                k = 1.0 if phase < 0.5 else 0.0
            elif pattern == 3:
                k = 1.0 - abs(2 * phase - 1)
            elif pattern == 4:
                k = 1.0 if i == int(phase * PIXELS) else 0.1
            self.ring[i] = (int(r * k), int(g * k), int(b * k))
        self.ring.write()
        if self.buzz_until and time.ticks_diff(now, self.buzz_until) >= 0:
            self.buzz.duty_u16(0)
            self.buzz_until = 0


def main() -> None:
    if machine.Pin(MAINT_PIN, machine.Pin.IN, machine.Pin.PULL_UP).value() == 0:
        return  # maintenance: leave the REPL alone
    micropython.kbd_intr(-1)  # 0x03 is data now, not Ctrl-C
    hal = PicoHal()
    out = sys.stdout.buffer
    uid = machine.unique_id()[:8]
    tower = Tower(hal, out.write, _load_boot_counter(), bytes(uid), references=_load_references())
    poll = select.poll()
    poll.register(sys.stdin, select.POLLIN)
    inp = sys.stdin.buffer
    start = time.ticks_ms()
    tower.boot(0)
    next_anim = 0
    while True:
        now = time.ticks_diff(time.ticks_ms(), start)  # ms since boot, as the protocol wants
        if poll.poll(0):
            data = inp.read(1)  # one byte is what select guarantees on the USB stdin
            if data:
                tower.feed(data, now)
        tower.step(now)
        if now >= next_anim:
            next_anim = now + 20
            hal.animate(now)
        time.sleep_us(200)


main()
