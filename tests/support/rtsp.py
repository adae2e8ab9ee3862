"""A small RTSP server on loopback for the camera-source tests: serves a fixed list of BGR frames as an
MJPEG stream (RTP payload type 26, RFC 2435) interleaved over the RTSP TCP connection (RFC 2326 10.12),
which is what OpenCV's FFmpeg client reads. No RTSP server binary is installed on the build machine and
a phone or IP camera would speak the same protocol.

Requests answered: OPTIONS, DESCRIBE (an SDP with one JPEG video track), SETUP (TCP interleaved only;
a UDP transport gets 461 so the client falls back to TCP, as FFmpeg does), PLAY (frames are then sent
from a thread), GET_PARAMETER / SET_PARAMETER (keep-alives), TEARDOWN. `drop_after` closes the
connection after that many frames, so a test can watch a stream drop and the client reconnect; with
`down_tries` the camera then stays away for that many tries (each connection closed at once: `refused`).
"""

from __future__ import annotations

import socket
import struct
import threading
import time
from collections.abc import Sequence

import cv2
import numpy as np

RTP_JPEG = 26  # the static RTP payload type of JPEG (RFC 3551)
MAX_PAYLOAD = 1400


def jpeg_parts(jpeg: bytes) -> tuple[int, int, bytes, bytes]:
    """Width, height, the two 8-bit quantisation tables (128 bytes) and the entropy-coded scan of a
    baseline 4:2:0 JPEG, which is what RFC 2435 carries (the receiver rebuilds the headers)."""
    i, tables, width, height = 2, b"", 0, 0
    while i < len(jpeg):
        if jpeg[i] != 0xFF:
            raise ValueError("not a JPEG marker where one was expected")
        marker = jpeg[i + 1]
        length = struct.unpack(">H", jpeg[i + 2 : i + 4])[0]
        seg = jpeg[i + 4 : i + 2 + length]
        if marker == 0xDB:  # DQT: one or more (Pq/Tq, 64 bytes) tables
            k = 0
            while k < len(seg):
                if seg[k] >> 4:
                    raise ValueError("16-bit quantisation tables are not carried by RFC 2435")
                tables += seg[k + 1 : k + 65]
                k += 65
        elif marker == 0xC0:  # SOF0: baseline; precision, height, width, components
            height, width = struct.unpack(">HH", seg[1:5])
        elif marker == 0xDA:  # SOS: the scan follows its header, up to the EOI
            scan = jpeg[i + 2 + length :]
            if scan.endswith(b"\xff\xd9"):
                scan = scan[:-2]
            return width, height, tables, scan
        i += 2 + length
    raise ValueError("JPEG without a scan")


def rtp_packets(jpeg: bytes, seq: int, timestamp: int, ssrc: int = 0x5EA7AB1E) -> list[bytes]:
    """One frame as RTP/JPEG packets (RFC 2435 section 3: type 1 = 4:2:0, Q 255 = tables in the first
    packet), the last one with the RTP marker bit."""
    width, height, tables, scan = jpeg_parts(jpeg)
    if width % 8 or height % 8 or width > 2040 or height > 2040:
        raise ValueError("RFC 2435 carries sizes that are multiples of 8 up to 2040 px")
    out: list[bytes] = []
    offset = 0
    while offset < len(scan) or not out:
        qhead = struct.pack(">BBH", 0, 0, len(tables)) + tables if offset == 0 else b""
        chunk = scan[offset : offset + MAX_PAYLOAD - len(qhead)]
        last = offset + len(chunk) >= len(scan)
        jpeg_head = (
            struct.pack(">B", 0) + offset.to_bytes(3, "big") + bytes([1, 255, width // 8, height // 8])
        )
        rtp = struct.pack(
            ">BBHII", 0x80, (0x80 if last else 0) | RTP_JPEG, (seq + len(out)) & 0xFFFF, timestamp, ssrc
        )
        out.append(rtp + jpeg_head + qhead + chunk)
        offset += len(chunk)
    return out


class RtspServer:
    """Serves `frames` at `fps` to each client that PLAYs `rtsp://127.0.0.1:<port>/<anything>`; with
    `loop` the frames repeat until the client leaves, else the connection closes after the last one."""

    def __init__(
        self,
        frames: Sequence[np.ndarray],
        fps: float = 25.0,
        loop: bool = False,
        drop_after: int | None = None,
        quality: int = 92,
        down_tries: int = 0,
    ) -> None:
        self.jpegs = [
            cv2.imencode(".jpg", f, [cv2.IMWRITE_JPEG_QUALITY, quality])[1].tobytes() for f in frames
        ]
        self.fps, self.loop, self.drop_after = fps, loop, drop_after
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.url = f"rtsp://127.0.0.1:{self.port}/table"
        self.sessions = 0  # clients that reached PLAY
        self.down_tries = down_tries
        self.refused = 0  # connections closed at once while the camera was away (`down_tries` after a drop)
        self._away = 0  # connections still to refuse after the last drop
        self.requests: list[str] = []
        self._stop = threading.Event()
        self._threads: list[threading.Thread] = []
        self._conns: list[socket.socket] = []
        self._accept = threading.Thread(target=self._serve, daemon=True)
        self._accept.start()

    def close(self) -> None:
        self._stop.set()
        self.sock.close()
        for c in list(self._conns):
            try:
                c.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
            c.close()
        for t in [self._accept, *self._threads]:
            t.join(timeout=5)

    def __enter__(self) -> RtspServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- connections -----------------------------------------------------------------------------

    def _serve(self) -> None:
        self.sock.settimeout(0.1)  # so `close` is noticed: closing a socket does not wake accept()
        while not self._stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            if self._away > 0:  # counted in tries, not seconds: a slow client notices a drop late
                self._away -= 1
                self.refused += 1
                conn.close()
                continue
            conn.settimeout(None)
            self._conns.append(conn)
            t = threading.Thread(target=self._client, args=(conn,), daemon=True)
            self._threads.append(t)
            t.start()

    def _client(self, conn: socket.socket) -> None:
        lock = threading.Lock()  # the RTSP replies and the frames share one socket
        buf = b""
        player: threading.Thread | None = None
        try:
            while not self._stop.is_set():
                data = conn.recv(65536)
                if not data:
                    return
                buf += data
                while buf:
                    if buf[:1] == b"$":  # the client's interleaved RTCP: read past it
                        if len(buf) < 4:
                            break
                        n = struct.unpack(">H", buf[2:4])[0]
                        if len(buf) < 4 + n:
                            break
                        buf = buf[4 + n :]
                        continue
                    end = buf.find(b"\r\n\r\n")
                    if end < 0:
                        break
                    head = buf[:end].decode("latin-1")
                    lines = head.split("\r\n")
                    headers = {
                        k.strip().lower(): v.strip() for k, _, v in (h.partition(":") for h in lines[1:])
                    }
                    body_len = int(headers.get("content-length", "0"))
                    if len(buf) < end + 4 + body_len:
                        break
                    buf = buf[end + 4 + body_len :]
                    method, url = lines[0].split(" ")[:2]
                    self.requests.append(method)
                    if self._answer(conn, lock, method, url, headers) and player is None:
                        self.sessions += 1
                        player = threading.Thread(target=self._play, args=(conn, lock), daemon=True)
                        player.start()
        except OSError:
            return
        finally:
            if player is not None:
                player.join(timeout=5)
            try:
                conn.close()
            except OSError:
                pass

    def _answer(
        self, conn: socket.socket, lock: threading.Lock, method: str, url: str, headers: dict[str, str]
    ) -> bool:
        """Replies to one request; True when it was PLAY."""
        extra: list[str] = []
        body = b""
        status = "200 OK"
        if method == "OPTIONS":
            extra.append("Public: OPTIONS, DESCRIBE, SETUP, PLAY, TEARDOWN, GET_PARAMETER, SET_PARAMETER")
        elif method == "DESCRIBE":
            body = (
                "v=0\r\no=- 0 0 IN IP4 127.0.0.1\r\ns=smart-table test camera\r\nc=IN IP4 127.0.0.1\r\n"
                f"t=0 0\r\nm=video 0 RTP/AVP {RTP_JPEG}\r\na=rtpmap:{RTP_JPEG} JPEG/90000\r\n"
                "a=control:track0\r\n"
            ).encode()
            base = url if url.endswith("/") else url + "/"
            extra += [f"Content-Base: {base}", "Content-Type: application/sdp"]
        elif method == "SETUP":
            if "interleaved" not in headers.get("transport", "") and "TCP" not in headers.get(
                "transport", ""
            ):
                status = "461 Unsupported Transport"
            else:
                extra += ["Transport: RTP/AVP/TCP;unicast;interleaved=0-1", "Session: 5EA7AB1E;timeout=60"]
        elif method == "PLAY":
            extra += ["Session: 5EA7AB1E", "Range: npt=0.000-"]
        elif method in ("TEARDOWN", "GET_PARAMETER", "SET_PARAMETER"):
            extra.append("Session: 5EA7AB1E")
        else:
            status = "501 Not Implemented"
        reply = [f"RTSP/1.0 {status}", f"CSeq: {headers.get('cseq', '0')}", *extra]
        reply.append(f"Content-Length: {len(body)}")
        with lock:
            conn.sendall(("\r\n".join(reply) + "\r\n\r\n").encode() + body)
        if method == "TEARDOWN":
            conn.shutdown(socket.SHUT_RDWR)
        return method == "PLAY" and status.startswith("200")

    def _play(self, conn: socket.socket, lock: threading.Lock) -> None:
        seq, sent, t0 = 0, 0, time.monotonic()
        try:
            while not self._stop.is_set():
                for jpeg in self.jpegs:
                    if self.drop_after is not None and sent >= self.drop_after:
                        self._away = self.down_tries
                        conn.shutdown(socket.SHUT_RDWR)  # the stream drops as a camera's Wi-Fi would
                        return
                    packets = rtp_packets(jpeg, seq, int(sent * 90000 / self.fps))
                    seq += len(packets)
                    with lock:
                        for p in packets:
                            conn.sendall(struct.pack(">BBH", ord("$"), 0, len(p)) + p)
                    sent += 1
                    # Paced as a camera would be, so the client never needs to buffer the whole list.
                    delay = t0 + sent / self.fps - time.monotonic()
                    if delay > 0 and self._stop.wait(delay):
                        return
                if not self.loop:
                    time.sleep(0.2)  # the last frame's packets reach the client before the end
                    conn.shutdown(socket.SHUT_RDWR)
                    return
        except OSError:
            return
