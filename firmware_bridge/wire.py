"""The wire format of the serial link: COBS framing, CRC-16/MCRF4XX, the frame header, every message's
payload layout, and a resynchronising frame reader.

This module is the ONE copy of the protocol: the host (`firmware_bridge.host`), the simulator
(`firmware_bridge.sim`) and the reference firmware (`firmware_bridge/firmware/`, copied onto the board
next to `device.py`) all import it. It is therefore written in the subset of Python that MicroPython
runs: no dataclasses, enum, typing or format-spec-heavy f-strings, no imports beyond `struct`,
annotations only as plain names. It owns bytes only; it must not do I/O, read clocks or know the game's rules.
See docs/protocol.md for the normative description.
"""

import struct

try:
    _Struct = struct.Struct
except AttributeError:  # MicroPython's struct has the functions but not the class

    class _Struct:  # type: ignore[no-redef]
        def __init__(self, fmt: str) -> None:
            self.format = fmt
            self.size = struct.calcsize(fmt)

        def pack(self, *values) -> bytes:
            return struct.pack(self.format, *values)

        def unpack(self, data) -> tuple:
            return struct.unpack(self.format, data)

        def unpack_from(self, data, offset: int = 0) -> tuple:
            return struct.unpack_from(self.format, data, offset)


PROTOCOL_VERSION = 1

# Header: version u8, flags u8, epoch u8 (boot counter & 0xFF), type u8, seq u32; then payload, CRC u16.
HEADER = _Struct("<BBBBI")
HEADER_SIZE = 8
CRC_SIZE = 2
MAX_PAYLOAD = 200
MAX_FRAME = HEADER_SIZE + MAX_PAYLOAD + CRC_SIZE  # decoded bytes
MAX_ENCODED = MAX_FRAME + 2  # COBS adds one code byte per 254 bytes plus one; the 0x00 delimiter is extra

# Flags.
FLAG_EVENT = 0x01  # seq numbers this frame as a reliable event (device to host only)
FLAG_RETRANSMIT = 0x02  # this event frame is a retransmission
FLAG_FROM_HOST = 0x04  # set on every host-to-device frame

# Device to host.
HELLO = 0x01
HEARTBEAT = 0x02
CUBE_DROPPED = 0x03
TOWER_QUIET = 0x04
ZONE_STATE = 0x05
FAULT = 0x06
FULL_STATE = 0x07
CMD_ACK = 0x08
PONG = 0x09

# Host to device.
ACK = 0x40
RESEND = 0x41
HELLO_REQUEST = 0x42
PING = 0x43
CMD_LED = 0x50
CMD_BUZZER = 0x51
CMD_RESET_COUNTERS = 0x52
CMD_CALIBRATE = 0x53
CMD_REQUEST_STATE = 0x54

EVENT_TYPES = (CUBE_DROPPED, TOWER_QUIET, ZONE_STATE, FAULT)
COMMAND_TYPES = (CMD_LED, CMD_BUZZER, CMD_RESET_COUNTERS, CMD_CALIBRATE, CMD_REQUEST_STATE)

# Colour classes reported by the colour sensor; index = class number on the wire.
COLOURS = ("unknown", "black", "red", "blue", "green", "yellow", "purple", "white")
N_COLOURS = 8

DEVICE_KINDS = {1: "battle_tower", 2: "zone_board", 3: "combined"}
# Sensor/actuator capability bits in HELLO.
SENSOR_BITS = ("beam_entry", "beam_exit", "colour", "hall_grid", "harbor", "led_ring", "buzzer")
FAULT_KINDS = {1: "jam", 2: "sensor"}
FAULT_SENSORS = {0: "none", 1: "beam_entry", 2: "beam_exit", 3: "colour", 4: "hall_grid", 5: "harbor"}
LED_PATTERNS = ("off", "solid", "blink", "pulse", "spin")
CMD_STATUS = {0: "ok", 1: "unknown_command", 2: "bad_arguments", 3: "busy"}

# Fixed payload layouts (little-endian). Variable-length ones are described next to their pack function.
P_HELLO = _Struct("<BBBBB8sIHIB")  # fw major/minor/patch, proto, kind, uid, boot, sensors, acked, window
P_HEARTBEAT = _Struct("<IIB8H")  # uptime_ms, boot, in_tower, totals[8]
P_CUBE = _Struct("<IB4HBH8H")  # t_ms, colour, r, g, b, clear, confidence, transit_ms, totals[8]
P_QUIET = _Struct("<IIH")  # t_ms, quiet_ms, cubes since last quiet
P_FAULT = _Struct("<IBBBH")  # t_ms, kind, sensor, active, detail
P_CMD_ACK = _Struct("<IB")  # cmd_id, status
P_U32 = _Struct("<I")  # PONG/PING nonce, command id
P_RESEND = _Struct("<IH")  # from_seq, count (0 = every unacknowledged event from from_seq)
P_LED = _Struct("<IBBBBH")  # cmd_id, r, g, b, pattern, period_ms
P_BUZZER = _Struct("<IHH")  # cmd_id, freq_hz, duration_ms
P_CALIBRATE = _Struct("<IB")  # cmd_id, colour class
P_STATE_HEAD = _Struct("<IIIB8HB")  # cmd_id, boot, uptime_ms, in_tower, totals[8], faults bitmask


class FrameError(Exception):
    """A frame failed a check; `kind` is one of "cobs", "short", "crc", "version", "overlong"."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


class PayloadError(Exception):
    """A frame passed its CRC but its payload does not match its message type's layout."""


def _crc_table() -> list:
    table = []
    for i in range(256):
        c = i
        for _ in range(8):
            c = (c >> 1) ^ 0x8408 if c & 1 else c >> 1
        table.append(c)
    return table


_CRC_TABLE = _crc_table()


def crc16_mcrf4xx(data, crc: int = 0xFFFF) -> int:
    """CRC-16/MCRF4XX: poly 0x1021 reflected (0x8408), init 0xFFFF, no final XOR; "123456789" -> 0x6F91."""
    table = _CRC_TABLE
    for b in data:
        crc = (crc >> 8) ^ table[(crc ^ b) & 0xFF]
    return crc


def cobs_encode(data) -> bytes:
    """Consistent Overhead Byte Stuffing: the result holds no 0x00, so 0x00 can end every frame."""
    out = bytearray()
    for part in bytes(data).split(b"\x00"):
        while len(part) >= 254:
            out.append(0xFF)
            out += part[:254]
            part = part[254:]
        out.append(len(part) + 1)
        out += part
    return bytes(out)


def cobs_decode(enc) -> bytes:
    """Inverse of cobs_encode; raises FrameError("cobs") on a zero byte or a code running past the end."""
    n = len(enc)
    out = bytearray()
    i = 0
    while i < n:
        code = enc[i]
        if code == 0:
            raise FrameError("cobs", "zero byte inside a COBS block")
        end = i + code
        if end > n:
            raise FrameError("cobs", "COBS block runs past the end of the frame")
        block = enc[i + 1 : end]
        if block.find(b"\x00") >= 0:
            raise FrameError("cobs", "zero byte inside a COBS block")
        out += block
        i = end
        if code != 0xFF and i < n:
            out.append(0)
    return bytes(out)


class Frame:
    """One decoded, CRC-checked frame."""

    __slots__ = ("flags", "epoch", "type", "seq", "payload")

    def __init__(self, flags: int, epoch: int, type: int, seq: int, payload: bytes) -> None:
        self.flags = flags
        self.epoch = epoch
        self.type = type
        self.seq = seq
        self.payload = payload

    def __repr__(self) -> str:
        return (
            "Frame(type="
            + hex(self.type)
            + ", seq="
            + str(self.seq)
            + ", flags="
            + hex(self.flags)
            + ", epoch="
            + str(self.epoch)
            + ", "
            + str(len(self.payload))
            + " bytes)"
        )


def encode_frame(msg_type: int, seq: int, payload=b"", flags: int = 0, epoch: int = 0) -> bytes:
    """Header + payload + CRC, COBS-encoded, with the trailing 0x00 delimiter: ready for the wire."""
    if len(payload) > MAX_PAYLOAD:
        raise ValueError(f"payload of {len(payload)} bytes exceeds {MAX_PAYLOAD}")
    body = bytearray(HEADER.pack(PROTOCOL_VERSION, flags, epoch & 0xFF, msg_type, seq & 0xFFFFFFFF))
    body += payload
    crc = crc16_mcrf4xx(body)
    body.append(crc & 0xFF)
    body.append(crc >> 8)
    return cobs_encode(body) + b"\x00"


def decode_frame(enc) -> Frame:
    """Decode one COBS-encoded frame (without its delimiter); raises FrameError on any failed check."""
    if len(enc) > MAX_ENCODED:
        raise FrameError("overlong", f"frame of {len(enc)} encoded bytes exceeds {MAX_ENCODED}")
    body = cobs_decode(enc)
    if len(body) < HEADER_SIZE + CRC_SIZE:
        raise FrameError("short", f"frame of {len(body)} bytes is shorter than header and CRC")
    crc = body[-2] | (body[-1] << 8)
    if crc16_mcrf4xx(memoryview(body)[:-2]) != crc:
        raise FrameError("crc", "CRC mismatch")
    version, flags, epoch, msg_type, seq = HEADER.unpack_from(body, 0)
    if version != PROTOCOL_VERSION:
        raise FrameError("version", f"protocol version {version}, expected {PROTOCOL_VERSION}")
    return Frame(flags, epoch, msg_type, seq, bytes(body[HEADER_SIZE:-2]))


class FrameReader:
    """Splits a byte stream at 0x00 delimiters and decodes frames, skipping anything that fails.

    Garbage costs at most the frame it lands in: the next delimiter starts afresh. Bytes beyond
    MAX_ENCODED without a delimiter are discarded before any decoding is attempted.
    """

    def __init__(self) -> None:
        self._buf = bytearray()
        self._discarding = False
        self.frames = 0
        self.errors = {"cobs": 0, "short": 0, "crc": 0, "version": 0, "overlong": 0}

    def feed(self, data) -> list:
        frames = []
        data = bytes(data)
        start = 0
        n = len(data)
        while start <= n:
            z = data.find(b"\x00", start)
            chunk = data[start:] if z < 0 else data[start:z]
            if self._discarding:
                if z >= 0:
                    self._discarding = False
            elif len(self._buf) + len(chunk) > MAX_ENCODED:
                self.errors["overlong"] += 1
                self._buf = bytearray()
                self._discarding = z < 0
            elif z < 0:
                self._buf += chunk
            else:
                enc = bytes(self._buf) + chunk
                self._buf = bytearray()
                if enc:
                    try:
                        frames.append(decode_frame(enc))
                        self.frames += 1
                    except FrameError as exc:
                        self.errors[exc.kind] += 1
            if z < 0:
                break
            start = z + 1
        return frames


# ---- payloads ---------------------------------------------------------------------------------------


def _bits_pack(bits) -> bytes:
    out = bytearray((len(bits) + 7) // 8)
    for i, on in enumerate(bits):
        if on:
            out[i >> 3] |= 1 << (i & 7)
    return bytes(out)


def _bits_unpack(data, n: int) -> list:
    return [bool(data[i >> 3] & (1 << (i & 7))) for i in range(n)]


def pack_zones(rows: int, cols: int, squares, harbor) -> bytes:
    """rows u8, cols u8, square bits (row-major, LSB first), harbor count u8, harbor bits."""
    return bytes([rows, cols]) + _bits_pack(squares) + bytes([len(harbor)]) + _bits_pack(harbor)


def unpack_zones(data, offset: int = 0) -> tuple:
    """Returns (rows, cols, squares list, harbor list, end offset); raises PayloadError if short."""
    if len(data) < offset + 2:
        raise PayloadError("zone block too short")
    rows, cols = data[offset], data[offset + 1]
    nsq = (rows * cols + 7) // 8
    pos = offset + 2 + nsq
    if len(data) < pos + 1:
        raise PayloadError(f"zone block too short for {rows}x{cols} squares")
    squares = _bits_unpack(data[offset + 2 : pos], rows * cols)
    nh = data[pos]
    end = pos + 1 + (nh + 7) // 8
    if len(data) < end:
        raise PayloadError(f"zone block too short for {nh} harbor slots")
    return rows, cols, squares, _bits_unpack(data[pos + 1 : end], nh), end


def pack_hello(
    fw, proto: int, kind: int, uid: bytes, boot: int, sensors: int, acked: int, window: int
) -> bytes:
    return P_HELLO.pack(fw[0], fw[1], fw[2], proto, kind, uid, boot, sensors, acked, window)


def pack_heartbeat(uptime_ms: int, boot: int, in_tower: int, totals) -> bytes:
    return P_HEARTBEAT.pack(uptime_ms & 0xFFFFFFFF, boot, in_tower, *totals)


def pack_cube(t_ms: int, colour: int, raw, confidence: int, transit_ms: int, totals) -> bytes:
    return P_CUBE.pack(
        t_ms & 0xFFFFFFFF, colour, raw[0], raw[1], raw[2], raw[3], confidence, transit_ms, *totals
    )


def pack_quiet(t_ms: int, quiet_ms: int, cubes: int) -> bytes:
    return P_QUIET.pack(t_ms & 0xFFFFFFFF, quiet_ms, cubes)


def pack_zone_state(t_ms: int, rows: int, cols: int, squares, harbor) -> bytes:
    return P_U32.pack(t_ms & 0xFFFFFFFF) + pack_zones(rows, cols, squares, harbor)


def pack_fault(t_ms: int, kind: int, sensor: int, active: int, detail: int) -> bytes:
    return P_FAULT.pack(t_ms & 0xFFFFFFFF, kind, sensor, active, detail)


def pack_full_state(
    cmd_id: int,
    boot: int,
    uptime_ms: int,
    in_tower: int,
    totals,
    faults: int,
    rows: int,
    cols: int,
    squares,
    harbor,
) -> bytes:
    head = P_STATE_HEAD.pack(cmd_id, boot, uptime_ms & 0xFFFFFFFF, in_tower, *totals, faults)
    return head + pack_zones(rows, cols, squares, harbor)
