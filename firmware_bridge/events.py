"""Typed JSON messages from decoded frames: the schema the bridge publishes and the simulator logs.

Host side only (CPython). One function turns a CRC-checked frame into the JSON-ready dict documented
in docs/protocol.md; the simulator logs the very same dicts, so `bridge --print` and `firmware-sim
--log` agree line for line. Knows nothing of the rules: colours are sensor classes, squares are grid
cells.
"""

from __future__ import annotations

from typing import Any

from firmware_bridge import wire
from firmware_bridge.wire import Frame, PayloadError

EVENT_NAMES = {
    wire.CUBE_DROPPED: "cube_dropped",
    wire.TOWER_QUIET: "tower_quiet",
    wire.ZONE_STATE: "zone_state",
    wire.FAULT: "fault",
}
SNAPSHOT_NAMES = {wire.HELLO: "hello", wire.HEARTBEAT: "heartbeat", wire.FULL_STATE: "full_state"}
COLOUR_INDEX = {name: i for i, name in enumerate(wire.COLOURS)}


def square_name(index: int, cols: int) -> str:
    return f"r{index // cols + 1}c{index % cols + 1}"


def square_index(name: str, rows: int, cols: int) -> int:
    """ "r2c3" -> its bit index; raises ValueError with a sentence if malformed or off the grid."""
    try:
        r_text, c_text = name[1:].split("c")
        r, c = int(r_text), int(c_text)
    except (ValueError, IndexError):
        raise ValueError(f"square {name!r} is not of the form r<row>c<column>, e.g. r1c2") from None
    if not name.startswith("r") or not (1 <= r <= rows and 1 <= c <= cols):
        raise ValueError(f"square {name!r} is off the {rows}x{cols} grid")
    return (r - 1) * cols + (c - 1)


def _exact(frame: Frame, layout: Any) -> tuple:
    if len(frame.payload) != layout.size:
        raise PayloadError(
            f"{len(frame.payload)}-byte payload for message type 0x{frame.type:02x}, expected {layout.size}"
        )
    return layout.unpack(frame.payload)


def _colour(index: int) -> str:
    if index >= wire.N_COLOURS:
        raise PayloadError(f"colour class {index} is not defined")
    return wire.COLOURS[index]


def _totals(values: tuple) -> dict[str, int]:
    return dict(zip(wire.COLOURS, values, strict=True))


def _zones(payload: bytes, offset: int) -> dict[str, Any]:
    rows, cols, squares, harbor, end = wire.unpack_zones(payload, offset)
    if end != len(payload):
        raise PayloadError(f"{len(payload) - end} stray bytes after the zone block")
    return {
        "rows": rows,
        "cols": cols,
        "squares": {square_name(i, cols): on for i, on in enumerate(squares)},
        "harbor": harbor,
    }


def decode(frame: Frame, boot: int) -> dict[str, Any]:
    """The JSON message of a device frame; raises PayloadError if the payload does not fit its type."""
    t = frame.type
    base: dict[str, Any] = {
        "type": EVENT_NAMES.get(t) or SNAPSHOT_NAMES.get(t, ""),
        "seq": frame.seq,
        "boot": boot,
    }
    if t == wire.CUBE_DROPPED:
        t_ms, colour, r, g, b, c, conf, transit, *totals = _exact(frame, wire.P_CUBE)
        base.update(
            t_ms=t_ms,
            colour=_colour(colour),
            raw={"r": r, "g": g, "b": b, "c": c},
            confidence=round(conf / 255, 3),
            transit_ms=transit,
            totals=_totals(tuple(totals)),
        )
    elif t == wire.TOWER_QUIET:
        t_ms, quiet_ms, cubes = _exact(frame, wire.P_QUIET)
        base.update(t_ms=t_ms, quiet_ms=quiet_ms, cubes=cubes)
    elif t == wire.ZONE_STATE:
        if len(frame.payload) < 4:
            raise PayloadError("zone_state payload too short")
        base["t_ms"] = wire.P_U32.unpack_from(frame.payload, 0)[0]
        base.update(_zones(frame.payload, 4))
    elif t == wire.FAULT:
        t_ms, kind, sensor, active, detail = _exact(frame, wire.P_FAULT)
        if kind not in wire.FAULT_KINDS or sensor not in wire.FAULT_SENSORS or active > 1:
            raise PayloadError(f"fault kind {kind} / sensor {sensor} / active {active} not defined")
        base.update(
            t_ms=t_ms,
            kind=wire.FAULT_KINDS[kind],
            sensor=wire.FAULT_SENSORS[sensor],
            active=bool(active),
            detail=detail,
        )
    elif t == wire.HELLO:
        major, minor, patch, proto, kind, uid, boot_counter, sensors, acked, window = _exact(
            frame, wire.P_HELLO
        )
        base.update(
            boot=boot_counter,
            firmware=f"{major}.{minor}.{patch}",
            protocol=proto,
            kind=wire.DEVICE_KINDS.get(kind, f"kind-{kind}"),
            uid=uid.hex(),
            sensors=[name for i, name in enumerate(wire.SENSOR_BITS) if sensors & (1 << i)],
            acked=acked,
            window=window,
        )
    elif t == wire.HEARTBEAT:
        uptime, boot_counter, in_tower, *totals = _exact(frame, wire.P_HEARTBEAT)
        base.update(boot=boot_counter, uptime_ms=uptime, in_tower=in_tower, totals=_totals(tuple(totals)))
    elif t == wire.FULL_STATE:
        size = wire.P_STATE_HEAD.size
        if len(frame.payload) < size:
            raise PayloadError("full_state payload too short")
        cmd_id, boot_counter, uptime, in_tower, *rest = wire.P_STATE_HEAD.unpack_from(frame.payload, 0)
        faults = rest[-1]
        base.update(
            boot=boot_counter,
            cmd_id=cmd_id,
            uptime_ms=uptime,
            in_tower=in_tower,
            totals=_totals(tuple(rest[:-1])),
            faults={"jam": bool(faults & 1), "sensor": bool(faults & 2)},
        )
        base.update(_zones(frame.payload, size))
    elif t == wire.CMD_ACK:
        cmd_id, status = _exact(frame, wire.P_CMD_ACK)
        base.update(type="cmd_ack", cmd_id=cmd_id, status=wire.CMD_STATUS.get(status, f"status-{status}"))
    elif t == wire.PONG:
        (nonce,) = _exact(frame, wire.P_U32)
        base.update(type="pong", nonce=nonce)
    else:
        raise PayloadError(f"unknown device message type 0x{t:02x}")
    return base
