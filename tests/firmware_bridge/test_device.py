"""The device side of the protocol (firmware_bridge.device) frame by frame, without a port."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from firmware_bridge import wire
from firmware_bridge.device import DeviceLink, DeviceState, emit_item, run_commands


class App:
    def __init__(self) -> None:
        self.leds: list[tuple] = []

    def led(self, *args: int) -> int:
        self.leds.append(args)
        return 0

    def buzzer(self, *args: int) -> int:
        return 0

    def calibrate(self, colour: int) -> int:
        return 0


def _device(window: int = 4) -> tuple[DeviceLink, list[wire.Frame]]:
    out: list[wire.Frame] = []
    reader = wire.FrameReader()
    link = DeviceLink(lambda b: out.extend(reader.feed(b)), boot=258, uid=b"u" * 8, window=window, rto_ms=100)
    return link, out


def _host(msg_type: int, ack: int, payload: bytes = b"", epoch: int = 2) -> wire.Frame:
    (frame,) = wire.FrameReader().feed(wire.encode_frame(msg_type, ack, payload, wire.FLAG_FROM_HOST, epoch))
    return frame


def test_window_ack_resend_and_timeout() -> None:
    link, out = _device(window=4)
    state = DeviceState()
    for i in range(4):
        emit_item(link, state, ("quiet", 100 + i), now_ms=i)
    assert not link.has_room() and [f.seq for f in out] == [1, 2, 3, 4]
    assert all(f.flags == wire.FLAG_EVENT and f.epoch == 258 & 0xFF for f in out)
    out.clear()
    link.on_frame(_host(wire.ACK, 2), now_ms=10)
    assert link.acked == 2 and link.has_room() and out == []
    link.on_frame(_host(wire.RESEND, 2, wire.P_RESEND.pack(4, 1)), now_ms=20)
    assert [(f.seq, f.flags) for f in out] == [(4, wire.FLAG_EVENT | wire.FLAG_RETRANSMIT)]
    out.clear()
    link.tick(now_ms=110)  # seq 3 was last sent at t=2: past rto; seq 4 was resent at t=20: not yet
    assert [f.seq for f in out] == [3]


def test_a_host_from_another_boot_gets_a_hello_not_an_ack() -> None:
    link, out = _device()
    emit_item(link, DeviceState(), ("quiet", 1), now_ms=0)
    out.clear()
    link.on_frame(_host(wire.ACK, 1, epoch=1), now_ms=500)  # wrong epoch
    assert [f.type for f in out] == [wire.HELLO] and link.acked == 0
    out.clear()
    link.on_frame(_host(wire.ACK, 99), now_ms=1000)  # acknowledges events never sent
    assert [f.type for f in out] == [wire.HELLO] and link.acked == 0
    hello = wire.P_HELLO.unpack(out[0].payload)
    assert hello[6] == 258 and out[0].seq == 1  # boot counter, last seq given out


def test_a_repeated_command_is_answered_but_not_executed_twice() -> None:
    link, out = _device()
    app, state = App(), DeviceState()
    led = _host(wire.CMD_LED, 0, wire.P_LED.pack(42, 1, 2, 3, 1, 0))
    for _ in range(3):
        link.on_frame(led, now_ms=0)
        run_commands(link, state, app, 0)
    assert app.leds == [(1, 2, 3, 1, 0)]
    acks = [wire.P_CMD_ACK.unpack(f.payload) for f in out if f.type == wire.CMD_ACK]
    assert acks == [(42, 0)] * 3
    out.clear()
    link.on_frame(_host(wire.CMD_LED, 0, wire.P_LED.pack(43, 1, 2, 3, 9, 0)), now_ms=0)  # pattern 9: bad
    run_commands(link, state, app, 0)
    assert wire.P_CMD_ACK.unpack(out[0].payload) == (43, 2) and len(app.leds) == 1


frames = st.builds(
    lambda t, flags, epoch, seq, payload: (t, flags, epoch, seq, payload),
    st.sampled_from([*range(0x00, 0x0A), *range(0x40, 0x44), *range(0x50, 0x56), 0xFF]),
    st.integers(0, 255),
    st.sampled_from([2, 3]),
    st.integers(0, 2**32 - 1),
    st.binary(max_size=24),
)


@given(st.lists(frames, max_size=30))
@settings(max_examples=200, deadline=None)
def test_the_device_survives_any_host_frames(sequence: list[tuple]) -> None:
    link, out = _device(window=4)
    state, app = DeviceState(), App()
    for i, (t, flags, epoch, seq, payload) in enumerate(sequence):
        emit_item(link, state, ("quiet", i), now_ms=i) if link.has_room() else link.tick(i * 100)
        (frame,) = wire.FrameReader().feed(wire.encode_frame(t, seq, payload, flags, epoch))
        link.on_frame(frame, now_ms=i)
        run_commands(link, state, app, i)
        assert 0 <= link.acked <= link.last_seq and len(link.unacked) <= 4
        assert [e[0] for e in link.unacked] == list(range(link.acked + 1, link.last_seq + 1))


quiet_events = st.builds(
    lambda seq, flags: (wire.TOWER_QUIET, flags, 2, seq, wire.pack_quiet(seq, 400, 1)),
    st.integers(1, 8),
    st.sampled_from([wire.FLAG_EVENT, wire.FLAG_EVENT | wire.FLAG_RETRANSMIT]),
)
hellos = st.builds(
    lambda boot, acked, last: (
        wire.HELLO,
        0,
        boot & 0xFF,
        last,
        wire.pack_hello((1, 0, 0), 1, 3, b"u" * 8, boot, 0x7F, acked, 64),
    ),
    st.sampled_from([2, 3]),
    st.integers(0, 4),
    st.integers(0, 12),
)


@given(st.lists(st.one_of(frames, quiet_events, quiet_events, hellos), max_size=60))
@settings(max_examples=300, deadline=None)
def test_the_host_survives_any_device_frames_and_delivers_only_in_order(sequence: list[tuple]) -> None:
    from firmware_bridge.session import LinkSession

    got: list[dict] = []
    session = LinkSession(lambda data: True, got.append)  # no port: frames go straight in
    session.opened(0.0)
    first = (wire.HELLO, 0, 2, 0, wire.pack_hello((1, 0, 0), 1, 3, b"u" * 8, 2, 0x7F, 0, 64))
    for i, (t, flags, epoch, seq, payload) in enumerate([first, *sequence]):
        session.feed(wire.encode_frame(t, seq, payload, flags, epoch), float(i))
        session.tick(float(i))
    kinds = ("cube_dropped", "tower_quiet", "zone_state", "fault")
    events = [m for m in got if m["type"] in kinds]
    previous = None
    for m in got:
        if m["type"] == "hello" and m["rebooted"]:
            previous = None  # a new life of the device: numbering restarts from its HELLO
        elif m["type"] in kinds:
            assert previous is None or m["seq"] == previous + 1  # exactly once, in order
            previous = m["seq"]
    # Every delivered event is one that was sent, intact.
    sent = {(seq, payload) for t, _, _, seq, payload in sequence if t == wire.TOWER_QUIET}
    assert all((m["seq"], wire.pack_quiet(m["t_ms"], m["quiet_ms"], m["cubes"])) in sent for m in events)
