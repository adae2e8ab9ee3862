"""A deterministic workout of the firmware's protocol code (wire, device, tower) that prints every byte
it produces. tests/firmware_bridge/test_micropython.py runs it under CPython and under real MicroPython and
requires identical output: the code the board runs is the code the host tests. MicroPython subset."""

try:
    from firmware_bridge import device, wire
    from firmware_bridge.firmware import tower
except ImportError:  # MicroPython: the modules sit side by side, as on the board
    import device  # type: ignore[no-redef, import-not-found]
    import tower  # type: ignore[no-redef, import-not-found]
    import wire  # type: ignore[no-redef, import-not-found]


def hexs(data) -> str:
    return "".join(f"{b:02x}" for b in data)


def show(label: str, value) -> None:
    print(label + " " + str(value))


show("crc", hex(wire.crc16_mcrf4xx(b"123456789")))
for sample in (b"", b"\x00", b"\x11\x22\x00\x33", bytes(range(1, 255)) + b"\x00\x01", bytes(300)):
    enc = wire.cobs_encode(sample)
    show("cobs", hexs(enc))
    assert wire.cobs_decode(enc) == sample

totals = [0, 3, 1, 4, 1, 5, 9, 2]
payloads = [
    (wire.HELLO, wire.pack_hello((1, 2, 3), 1, 3, b"ABCDEFGH", 77, 0x7F, 5, 64)),
    (wire.HEARTBEAT, wire.pack_heartbeat(123456, 77, 2, totals)),
    (wire.CUBE_DROPPED, wire.pack_cube(4000000000, 2, (1800, 420, 380, 2700), 201, 88, totals)),
    (wire.TOWER_QUIET, wire.pack_quiet(10, 400, 6)),
    (wire.ZONE_STATE, wire.pack_zone_state(11, 4, 4, [i % 3 == 0 for i in range(16)], [True, False, True])),
    (wire.FAULT, wire.pack_fault(12, 1, 0, 1, 2)),
    (wire.FULL_STATE, wire.pack_full_state(9, 77, 13, 0, totals, 3, 2, 3, [True] * 6, [])),
]
stream = b"\x01\x02junk"
for i, (t, p) in enumerate(payloads):
    frame = wire.encode_frame(t, 1000 + i, p, wire.FLAG_EVENT if t in wire.EVENT_TYPES else 0, 77)
    show("frame", hexs(frame))
    stream += frame
reader = wire.FrameReader()
got = []
for i in range(0, len(stream), 7):
    got += reader.feed(stream[i : i + 7])
show("seqs", [f.seq for f in got])
show("errors", sorted(reader.errors.items()))
show("zones", wire.unpack_zones(payloads[4][1], 4))

# The device link: window, acknowledgements, resend, epoch check, commands, timeouts.
out = []  # type: list[bytes]
link = device.DeviceLink(out.append, boot=300, uid=b"12345678", window=3, rto_ms=50)
state = device.DeviceState(2, 2, 1)


class App:
    def led(self, r, g, b, pattern, period):
        print("app led " + str((r, g, b, pattern, period)))
        return 0

    def buzzer(self, freq, ms):
        print("app buzzer " + str((freq, ms)))
        return 0

    def calibrate(self, colour):
        return 0


def host(t, ack, payload=b"", epoch=300 & 0xFF):
    return wire.FrameReader().feed(wire.encode_frame(t, ack, payload, wire.FLAG_FROM_HOST, epoch))[0]


link.send_hello(0)
items = [
    ("cube", 2, (1, 2, 3, 4), 200, 90),
    ("cube", 5, (5, 6, 7, 8), 100, 70),
    ("quiet", 400),
    ("zones", {1: True, 3: True}, [True]),
    ("fault", 2, 3, 1, 0),
]
now = 0
for item in items:
    while not link.has_room():
        now += 10
        link.tick(now)
        link.on_frame(host(wire.ACK, link.acked + 1), now)
    device.emit_item(link, state, item, now)
link.on_frame(host(wire.RESEND, 3, wire.P_RESEND.pack(4, 0)), now)
link.on_frame(host(wire.ACK, 4, epoch=1), now + 300)
link.on_frame(host(wire.PING, 4, wire.P_U32.pack(99)), now)
for _ in range(2):
    link.on_frame(host(wire.CMD_LED, 4, wire.P_LED.pack(7, 1, 2, 3, 2, 500)), now)
    device.run_commands(link, state, App(), now)
link.on_frame(host(wire.CMD_REQUEST_STATE, 5, wire.P_U32.pack(8)), now)
device.run_commands(link, state, App(), now)
link.tick(now + 1000)
for chunk in out:
    show("dev", hexs(chunk))
show("acked", link.acked)


# The tower: beams, colour, jam, quiet, hall squares, through its HAL.
class Hal:
    def __init__(self):
        self.entry = False
        self.exit = False
        self.colour = (1800, 420, 380, 2700)
        self.squares = [False] * 16
        self.harbor = [False] * 4

    def beam_entry(self):
        return self.entry

    def beam_exit(self):
        return self.exit

    def read_colour(self):
        if self.colour is None:
            raise OSError("bus")
        return self.colour

    def read_squares(self):
        return list(self.squares)

    def read_harbor(self):
        return list(self.harbor)

    def led(self, *a):
        print("hal led " + str(a))

    def buzzer(self, *a):
        print("hal buzzer " + str(a))

    def save_references(self, refs):
        print("hal saved " + str(refs[3]))


hal = Hal()
tout = []  # type: list[bytes]
tw = tower.Tower(hal, tout.append, boot=5, uid=b"abcdefgh", quiet_ms=100, jam_ms=300)
tw.boot(0)
script = {
    10: ("entry", True),
    20: ("entry", False),
    80: ("exit", True),
    90: ("exit", False),
    100: ("colour", (300, 600, 1700, 2600)),
    110: ("entry", True),
    115: ("entry", False),
    170: ("exit", True),
    175: ("exit", False),
    400: ("square", 5),
    600: ("entry", True),
    610: ("entry", False),
    1000: ("colour", None),
    1010: ("exit", True),
    1020: ("exit", False),
}
for t in range(0, 1400):
    if t in script:
        what, value = script[t]
        if what == "entry":
            hal.entry = value
        elif what == "exit":
            hal.exit = value
        elif what == "colour":
            hal.colour = value
        else:
            hal.squares[value] = True
    if t == 700:
        tw.feed(
            wire.encode_frame(wire.CMD_CALIBRATE, 2, wire.P_CALIBRATE.pack(11, 3), wire.FLAG_FROM_HOST, 5), t
        )
    if t % 50 == 0:
        tw.feed(wire.encode_frame(wire.ACK, tw.link.last_seq, b"", wire.FLAG_FROM_HOST, 5), t)
    tw.step(t)
for chunk in tout:
    show("tower", hexs(chunk))
show("tower state", (tw.state.totals, tw.state.squares, tw.state.faults, tw.link.last_seq, tw.overflows))
print("classes", [tower.ColourClassifier().classify(ref)[0] for ref in tower.DEFAULT_REFERENCES[1:]])
