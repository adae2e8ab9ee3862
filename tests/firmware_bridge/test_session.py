"""The host side of the protocol (firmware_bridge.session) frame by frame, with a fake clock and no port."""

from __future__ import annotations

import random
from typing import Any

from firmware_bridge import wire
from firmware_bridge.device import DeviceLink, DeviceState, emit_item, run_commands
from firmware_bridge.session import Command, LinkSession, parse_command

UID = b"u" * 8


class Host:
    """A session whose written frames are decoded into `out`; messages land in `got`, health in `healths`."""

    def __init__(self, **timings: Any) -> None:
        self.out: list[wire.Frame] = []
        self.got: list[dict[str, Any]] = []
        self.healths: list[dict[str, Any]] = []
        self.port_ok = True
        self._reader = wire.FrameReader()
        self.s = LinkSession(self._write, self.got.append, self.healths.append, first_cmd_id=100, **timings)

    def _write(self, data: bytes) -> bool:
        self.out.extend(self._reader.feed(data))
        return self.port_ok

    def sent(self) -> list[wire.Frame]:
        """The frames written since the last call."""
        frames, self.out = self.out, []
        return frames

    def events(self) -> list[int]:
        return [m["seq"] for m in self.got if m["type"] == "tower_quiet"]

    def command(self, cmd: dict[str, Any], deadline: float) -> Command:
        return self.s.submit(Command(*parse_command(cmd), deadline))


def hello(boot: int = 1, acked: int = 0, last: int = 0) -> bytes:
    payload = wire.pack_hello((1, 0, 0), wire.PROTOCOL_VERSION, 3, UID, boot, 0x7F, acked, 64)
    return wire.encode_frame(wire.HELLO, last, payload, 0, boot)


def quiet(seq: int, boot: int = 1, retransmit: bool = False) -> bytes:
    flags = wire.FLAG_EVENT | (wire.FLAG_RETRANSMIT if retransmit else 0)
    return wire.encode_frame(wire.TOWER_QUIET, seq, wire.pack_quiet(seq, 400, 1), flags, boot)


def cmd_ack(cmd_id: int, status: int = 0, last: int = 0, boot: int = 1) -> bytes:
    return wire.encode_frame(wire.CMD_ACK, last, wire.P_CMD_ACK.pack(cmd_id, status), 0, boot)


def full_state(cmd_id: int, last: int = 0, boot: int = 1) -> bytes:
    payload = wire.pack_full_state(
        cmd_id, boot, 1000, 0, [0, 3] + [0] * 6, 0, 4, 4, [False] * 16, [False] * 4
    )
    return wire.encode_frame(wire.FULL_STATE, last, payload, 0, boot)


def heartbeat(last: int, boot: int = 1) -> bytes:
    return wire.encode_frame(wire.HEARTBEAT, last, wire.pack_heartbeat(1000, boot, 0, [0] * 8), 0, boot)


def resend_ranges(frame: wire.Frame) -> list[tuple[int, int]]:
    size = wire.P_RESEND.size
    return [wire.P_RESEND.unpack_from(frame.payload, i) for i in range(0, len(frame.payload), size)]


def synced(boot: int = 1, now: float = 0.0) -> Host:
    """A host past HELLO whose resynchronising request_state has been answered."""
    host = Host()
    host.s.opened(now, "/dev/fake")
    host.s.feed(hello(boot), now)
    host.s.tick(now)
    (request,) = [f for f in host.sent() if f.type == wire.CMD_REQUEST_STATE]
    host.s.feed(full_state(wire.P_U32.unpack_from(request.payload, 0)[0], boot=boot), now)
    host.got.clear()
    return host


def test_opening_asks_for_hello_and_nothing_counts_before_it() -> None:
    host = Host()
    host.s.opened(0.0, "/dev/fake")
    assert [f.type for f in host.sent()] == [wire.HELLO_REQUEST]
    assert host.s.health(0.0)["link"] == "waiting_hello" and host.s.health(0.0)["reconnects"] == 1
    host.s.feed(quiet(1), 0.01)  # before HELLO nobody knows which boot this belongs to: dropped
    assert host.got == [] and not host.s.synced
    host.s.tick(0.1)
    assert host.sent() == []  # the HELLO request is repeated every hello_interval, not every tick
    host.s.tick(0.3)
    assert [f.type for f in host.sent()] == [wire.HELLO_REQUEST]


def test_hello_syncs_the_link_and_asks_for_a_full_state_first() -> None:
    host = Host()
    host.s.opened(0.0)
    host.sent()
    host.s.feed(hello(boot=7, acked=0, last=0), 0.01)
    assert host.s.synced and host.s.health(0.01)["link"] == "up"
    assert [(m["type"], m["rebooted"]) for m in host.got] == [("hello", False)]
    host.s.tick(0.02)
    frames = host.sent()
    assert frames[0].type == wire.ACK and all(f.flags & wire.FLAG_FROM_HOST and f.epoch == 7 for f in frames)
    (request,) = [f for f in frames if f.type == wire.CMD_REQUEST_STATE]
    assert wire.P_U32.unpack_from(request.payload, 0)[0] == 100
    host.s.feed(full_state(100, boot=7), 0.03)
    assert host.got[-1]["type"] == "full_state" and host.got[-1]["totals"]["black"] == 3


def test_events_are_delivered_once_in_order_and_acknowledged() -> None:
    host = synced()
    host.sent()
    host.s.feed(quiet(1) + quiet(2), 1.0)
    host.s.feed(quiet(2, retransmit=True), 1.01)
    assert host.events() == [1, 2]
    health = host.s.health(1.01)
    assert health["duplicates"] == 1 and health["retransmissions"] == 1 and health["delivered_seq"] == 2
    acks = [f for f in host.sent() if f.type == wire.ACK]
    assert acks and acks[-1].seq == 2  # every host frame's seq is the cumulative acknowledgement


def test_a_gap_is_asked_for_once_per_interval_and_filled_in_order() -> None:
    host = synced()
    host.sent()
    host.s.feed(quiet(1) + quiet(3) + quiet(4), 1.0)
    assert host.events() == [1]  # 3 and 4 wait for 2
    (resend,) = [f for f in host.sent() if f.type == wire.RESEND]
    assert resend_ranges(resend) == [(2, 1)]
    host.s.tick(1.01)
    assert not [f for f in host.sent() if f.type == wire.RESEND]  # not again before resend_interval
    host.s.tick(1.03)
    assert [resend_ranges(f) for f in host.sent() if f.type == wire.RESEND] == [[(2, 1)]]
    host.s.feed(quiet(2, retransmit=True), 1.04)
    assert host.events() == [1, 2, 3, 4]
    assert host.s.health(1.04)["resend_requests"] == 2


def test_a_lost_tail_is_asked_for_when_a_later_frame_reveals_it() -> None:
    host = synced()
    host.s.feed(quiet(1), 1.0)
    host.sent()
    host.s.feed(heartbeat(last=4), 1.5)  # the device has sent up to 4; 2..4 never arrived
    assert [resend_ranges(f) for f in host.sent() if f.type == wire.RESEND] == [[(2, 3)]]
    assert [m["type"] for m in host.got] == ["tower_quiet", "heartbeat"]


def test_a_command_is_retried_until_acknowledged_and_reports_its_attempts() -> None:
    host = synced()
    host.sent()
    cmd = host.command({"cmd": "buzzer", "freq_hz": 440, "ms": 50}, deadline=4.0)
    host.s.tick(1.0)
    (first,) = [f for f in host.sent() if f.type == wire.CMD_BUZZER]
    cmd_id = wire.P_U32.unpack_from(first.payload, 0)[0]
    assert first.payload == wire.P_BUZZER.pack(cmd_id, 440, 50)
    host.s.tick(1.05)
    assert not [
        f for f in host.sent() if f.type == wire.CMD_BUZZER
    ]  # stop-and-wait: not before command_retry
    host.s.tick(1.11)
    (again,) = [f for f in host.sent() if f.type == wire.CMD_BUZZER]
    assert again.payload == first.payload  # the same id, so the device executes it once
    host.s.feed(cmd_ack(cmd_id), 1.12)
    assert cmd.done.is_set() and cmd.result is not None
    assert cmd.result == {"ok": True, "cmd": "buzzer", "status": "ok", "attempts": 2, "rtt_ms": 10.0}
    assert host.s.health(1.12)["command_retries"] == 1


def test_commands_go_one_at_a_time_and_an_old_acknowledgement_is_ignored() -> None:
    host = synced()
    host.sent()
    a = host.command({"cmd": "reset_counters"}, deadline=9.0)
    b = host.command({"cmd": "calibrate", "colour": "red"}, deadline=9.0)
    host.s.tick(1.0)
    (sent_a,) = [f for f in host.sent() if f.type in wire.COMMAND_TYPES]
    id_a = wire.P_U32.unpack_from(sent_a.payload, 0)[0]
    host.s.feed(cmd_ack(id_a - 1), 1.01)  # an answer to an earlier command changes nothing
    assert not a.done.is_set()
    host.s.feed(cmd_ack(id_a), 1.02)
    host.s.tick(1.03)
    (sent_b,) = [f for f in host.sent() if f.type in wire.COMMAND_TYPES]
    assert sent_b.type == wire.CMD_CALIBRATE and wire.P_U32.unpack_from(sent_b.payload, 0)[0] == id_a + 1
    host.s.feed(cmd_ack(id_a + 1, status=2), 1.04)
    assert (
        b.result is not None
        and not b.result["ok"]
        and "refused calibrate: bad_arguments" in b.result["error"]
    )
    assert host.s.health(1.04)["commands_failed"] == 1


def test_a_command_waits_while_the_link_is_down_and_fails_at_its_deadline() -> None:
    host = Host()
    cmd = host.command({"cmd": "buzzer"}, deadline=0.5)
    host.s.tick(0.2)
    assert not cmd.done.is_set() and host.sent() == []
    host.s.tick(0.6)
    assert (
        cmd.result is not None
        and not cmd.result["ok"]
        and "not sent in time: the link was down" in cmd.result["error"]
    )
    assert host.s.health(0.6)["commands_failed"] == 1


def test_an_unanswered_command_fails_clearly_after_its_retries() -> None:
    host = synced()
    cmd = host.command({"cmd": "led", "rgb": "#ff0000"}, deadline=1.5)
    t = 1.0
    while t < 1.6:
        host.s.tick(t)
        t += 0.05
    assert cmd.result is not None and not cmd.result["ok"]
    assert "not acknowledged by the device in time (no acknowledgement)" in cmd.result["error"]
    assert cmd.result["attempts"] == 5
    assert len([f for f in host.sent() if f.type == wire.CMD_LED]) == 5


def test_a_reboot_restarts_the_numbering_and_resynchronises() -> None:
    host = synced(boot=1)
    host.s.feed(quiet(1) + quiet(2) + quiet(3), 1.0)
    host.sent()
    host.s.feed(hello(boot=2, acked=0, last=0), 2.0)
    assert host.got[-1]["type"] == "hello" and host.got[-1]["rebooted"]
    host.s.tick(2.0)
    assert any(f.type == wire.CMD_REQUEST_STATE and f.epoch == 2 for f in host.sent())
    host.s.feed(quiet(1, boot=2), 2.1)
    assert host.events() == [1, 2, 3, 1]
    assert host.got[-1]["boot"] == 2
    health = host.s.health(2.1)
    assert (health["reboots"], health["resyncs"], health["boot"]) == (1, 2, 2)


def test_frames_of_a_previous_boot_are_not_delivered_and_prompt_a_hello_request() -> None:
    host = synced(boot=1)
    host.sent()
    host.s.feed(quiet(1, boot=9), 1.0)
    assert host.events() == []
    assert [f.type for f in host.sent()] == [wire.HELLO_REQUEST]


def test_a_reconnect_to_the_same_boot_resumes_from_what_was_delivered() -> None:
    host = synced(boot=1)
    host.s.feed(quiet(1) + quiet(2), 1.0)
    host.s.lost(1.5)
    assert host.s.health(1.5)["link"] == "down" and not host.s.synced
    host.s.opened(2.0)
    host.s.feed(hello(boot=1, acked=1, last=3), 2.01)  # the device missed our last ACK and sent 3 meanwhile
    assert not host.got[-1]["rebooted"]
    resends = [resend_ranges(f) for f in host.sent() if f.type == wire.RESEND]
    assert resends == [[(3, 1)]]
    host.s.feed(quiet(2, retransmit=True) + quiet(3, retransmit=True), 2.02)
    assert host.events() == [1, 2, 3]
    assert host.s.health(2.02)["reconnects"] == 2


def test_a_failed_write_takes_the_link_down_and_drops_only_the_internal_resync() -> None:
    host = Host()
    host.s.opened(0.0)
    host.s.feed(hello(), 0.01)
    controller = host.command({"cmd": "buzzer"}, deadline=5.0)
    host.port_ok = False
    host.s.tick(0.02)  # the first write fails: the port is gone
    assert not host.s.synced and host.s.health(0.02)["link"] == "down"
    assert not controller.done.is_set()  # the controller's command waits for the link to come back
    assert [c.name for c in host.s._commands] == ["buzzer"]


def test_a_silent_line_goes_stale_and_any_frame_brings_it_back() -> None:
    host = synced(now=0.0)
    host.s.tick(3.5)
    assert host.s.health(3.5)["link"] == "stale" and host.s.health(3.5)["last_rx_age_s"] == 3.5
    assert wire.HELLO_REQUEST in [f.type for f in host.sent()]
    host.s.feed(heartbeat(last=0), 3.6)
    host.s.tick(3.6)
    assert host.s.health(3.6)["link"] == "up"
    assert [h["link"] for h in host.healths if h["link"] != host.healths[0]["link"]][-2:] == ["stale", "up"]


def test_ping_round_trips_are_measured() -> None:
    host = synced(now=0.0)
    host.sent()
    host.s.tick(1.0)
    (ping,) = [f for f in host.sent() if f.type == wire.PING]
    host.s.feed(wire.encode_frame(wire.PONG, 0, ping.payload, 0, 1), 1.004)
    host.s.tick(2.0)
    assert host.s.health(2.0)["rtt_ms"] == 4.0


def test_a_device_and_a_session_over_a_lossy_line_deliver_every_event_once_in_order() -> None:
    # The whole protocol in one process with a fake clock: the device side (firmware_bridge.device)
    # and the host session, joined by a line that drops and flips bytes and duplicates frames.
    rng = random.Random(5)

    def lossy(data: bytes) -> bytes:
        out = bytearray()
        for byte in data:
            r = rng.random()
            if r < 0.004:
                continue
            out.append(byte ^ (1 << rng.randrange(8)) if r < 0.008 else byte)
        return bytes(out) * (2 if rng.random() < 0.02 else 1)

    class App:
        buzzes: list[int] = []

        def led(self, *args: int) -> int:
            return 0

        def buzzer(self, freq: int, ms: int) -> int:
            self.buzzes.append(freq)
            return 0

        def calibrate(self, colour: int) -> int:
            return 0

    to_host: list[bytes] = []
    to_device: list[bytes] = []
    device = DeviceLink(lambda b: to_host.append(lossy(b)), boot=3, uid=UID, window=32, rto_ms=400)
    state, app, device_reader = DeviceState(), App(), wire.FrameReader()
    got: list[dict[str, Any]] = []

    def host_writes(data: bytes) -> bool:
        to_device.append(lossy(data))
        return True

    session = LinkSession(host_writes, got.append, first_cmd_id=1)
    session.opened(0.0)
    commands: list[Command] = []
    for ms in range(60_000):
        now = ms / 1000
        if session.synced and device.has_room() and device.last_seq < 2000 and ms % 2 == 0:
            emit_item(device, state, ("quiet", 400), ms)
        if ms % 500 == 250 and len(commands) < 10:
            commands.append(
                session.submit(
                    Command(*parse_command({"cmd": "buzzer", "freq_hz": 100 + ms // 500}), now + 20)
                )
            )
        for chunk in to_device:
            for frame in device_reader.feed(chunk):
                device.on_frame(frame, ms)
        to_device.clear()
        run_commands(device, state, app, ms)
        device.tick(ms)
        session.feed(b"".join(to_host), now)
        to_host.clear()
        session.tick(now)
        if device.last_seq == 2000 and device.all_acked() and all(c.done.is_set() for c in commands):
            break
    events = [m["seq"] for m in got if m["type"] == "tower_quiet"]
    assert events == list(range(1, 2001))
    assert all(c.result is not None and c.result["ok"] for c in commands)
    assert app.buzzes == [100 + (250 + 500 * i) // 500 for i in range(10)]  # each executed exactly once
    health = session.health(now)
    assert health["crc_errors"] > 20 and health["resend_requests"] > 20 and health["duplicates"] > 5


def test_a_payload_that_does_not_fit_its_frame_type_is_counted_and_dropped() -> None:
    """A frame whose CRC is good but whose payload is too short for its type (an event, a heartbeat, a HELLO)
    is no message: nothing is delivered or answered from it, and each counts as malformed in the health."""
    host = synced()
    host.s.feed(wire.encode_frame(wire.TOWER_QUIET, 1, b"\x01", wire.FLAG_EVENT, 1), 1.0)
    host.s.feed(wire.encode_frame(wire.HEARTBEAT, 0, b"\x01", 0, 1), 1.01)
    host.s.feed(wire.encode_frame(wire.HELLO, 0, b"\x01", 0, 1), 1.02)
    assert host.got == [] and host.s.health(1.02)["malformed"] == 3
    host.s.feed(quiet(1), 1.03)  # the link itself is fine: the next good event is delivered
    assert host.events() == [1]
