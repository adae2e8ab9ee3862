"""The wire format: CRC variant, COBS, frames, and the decoder under arbitrary bytes (hypothesis)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from firmware_bridge import events, wire
from firmware_bridge.wire import Frame, FrameReader, PayloadError


def test_crc_is_mcrf4xx_with_its_check_value() -> None:
    assert wire.crc16_mcrf4xx(b"123456789") == 0x6F91
    assert wire.crc16_mcrf4xx(b"") == 0xFFFF


@given(st.binary(max_size=700))
@settings(max_examples=150, deadline=None)
def test_cobs_round_trip_has_no_zero(data: bytes) -> None:
    enc = wire.cobs_encode(data)
    assert 0 not in enc
    assert wire.cobs_decode(enc) == data


def test_frame_round_trip_and_layout() -> None:
    payload = wire.pack_cube(1234, 2, (10, 20, 30, 40), 200, 85, [0, 1, 2, 3, 4, 5, 6, 7])
    enc = wire.encode_frame(wire.CUBE_DROPPED, 77, payload, wire.FLAG_EVENT, 5)
    assert enc.endswith(b"\x00") and 0 not in enc[:-1]
    body = wire.cobs_decode(enc[:-1])
    assert body[:8] == bytes([1, wire.FLAG_EVENT, 5, wire.CUBE_DROPPED, 77, 0, 0, 0])
    assert body[-2:] == wire.crc16_mcrf4xx(body[:-2]).to_bytes(2, "little")
    (frame,) = FrameReader().feed(enc)
    msg = events.decode(frame, boot=5)
    assert msg["type"] == "cube_dropped" and msg["seq"] == 77 and msg["colour"] == "red"
    assert msg["raw"] == {"r": 10, "g": 20, "b": 30, "c": 40} and msg["totals"]["white"] == 7


def test_reader_resynchronises_after_garbage_and_split_reads() -> None:
    a = wire.encode_frame(wire.TOWER_QUIET, 1, wire.pack_quiet(5, 400, 3), wire.FLAG_EVENT, 1)
    b = wire.encode_frame(wire.TOWER_QUIET, 2, wire.pack_quiet(6, 400, 0), wire.FLAG_EVENT, 1)
    reader = FrameReader()
    stream = b"\x13\x37garbage\x00" + a + b"\xff\xfe" + b"\x00" + b
    got = []
    for i in range(0, len(stream), 5):  # arrives in small pieces
        got += reader.feed(stream[i : i + 5])
    assert [f.seq for f in got] == [1, 2]
    assert reader.errors["crc"] + reader.errors["cobs"] + reader.errors["short"] == 2


def test_overlong_frames_are_dropped_before_decoding() -> None:
    reader = FrameReader()
    good = wire.encode_frame(wire.ACK, 3, b"", wire.FLAG_FROM_HOST, 1)
    got = reader.feed(b"\x01" * (wire.MAX_ENCODED + 50)) + reader.feed(b"\x01" * 10 + b"\x00" + good)
    assert [f.seq for f in got] == [3]
    assert reader.errors["overlong"] == 1


def test_every_flipped_byte_is_caught() -> None:
    enc = wire.encode_frame(
        wire.CUBE_DROPPED, 9, wire.pack_cube(1, 1, (1, 2, 3, 4), 9, 9, [1] * 8), wire.FLAG_EVENT, 1
    )
    for i in range(len(enc) - 1):
        for mask in (0x01, 0x80, 0xFF):
            bad = bytearray(enc)
            bad[i] ^= mask
            # Whatever the flip does (even splitting the frame at a new 0x00), nothing passes.
            assert FrameReader().feed(bytes(bad)) == []


@given(st.lists(st.binary(max_size=300), max_size=12))
@settings(max_examples=300, deadline=None)
def test_arbitrary_bytes_never_crash_and_never_yield_a_bad_frame(chunks: list[bytes]) -> None:
    reader = FrameReader()
    for chunk in chunks:
        for frame in reader.feed(chunk):
            assert isinstance(frame, Frame)
            body = wire.HEADER.pack(wire.PROTOCOL_VERSION, frame.flags, frame.epoch, frame.type, frame.seq)
            body += frame.payload
            # The frame re-encodes to bytes whose CRC we recompute: it must be the CRC that was on the wire.
            enc = wire.encode_frame(frame.type, frame.seq, frame.payload, frame.flags, frame.epoch)
            assert wire.cobs_decode(enc[:-1])[:-2] == body
            assert len(frame.payload) <= wire.MAX_PAYLOAD


@given(st.binary(max_size=300), st.data())
@settings(max_examples=300, deadline=None)
def test_valid_frames_mixed_with_noise_come_through(noise: bytes, data: st.DataObject) -> None:
    seqs = data.draw(st.lists(st.integers(0, 2**32 - 1), min_size=1, max_size=5))
    frames = [
        wire.encode_frame(wire.TOWER_QUIET, s, wire.pack_quiet(1, 2, 3), wire.FLAG_EVENT, 1) for s in seqs
    ]
    stream = noise + b"\x00" + b"".join(frames)
    got = FrameReader().feed(stream)
    assert [f.seq for f in got][-len(seqs) :] == seqs


@given(st.integers(0, 255), st.integers(0, 255), st.binary(max_size=wire.MAX_PAYLOAD))
@settings(max_examples=400, deadline=None)
def test_payload_decoder_only_raises_payload_error(msg_type: int, flags: int, payload: bytes) -> None:
    frame = Frame(flags, 1, msg_type, 1, payload)
    try:
        msg = events.decode(frame, 1)
    except PayloadError:
        return
    assert msg["type"] and msg["seq"] == 1


def test_square_names() -> None:
    assert events.square_index("r2c3", 4, 4) == 6
    assert events.square_name(6, 4) == "r2c3"
    with pytest.raises(ValueError, match="off the 4x4 grid"):
        events.square_index("r5c1", 4, 4)
    with pytest.raises(ValueError, match="r<row>c<column>"):
        events.square_index("b2", 4, 4)
