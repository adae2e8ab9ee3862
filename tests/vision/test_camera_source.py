"""Frame sources (`vision.camera_source`): an HTTP MJPEG stream served on loopback from rendered frames,
a video file, and the one-sentence errors for sources that cannot be opened."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.camera_source import CameraSource, SourceError, kind_of
from vision.live import iter_frames


def _frames(n: int = 4) -> list[np.ndarray]:
    out = []
    for k in range(n):
        img = np.full((240, 320, 3), 40 + 40 * k, np.uint8)
        cv2.rectangle(img, (20 + 30 * k, 40), (80 + 30 * k, 100), (0, 0, 255), -1)
        out.append(img)
    return out


class _Mjpeg(BaseHTTPRequestHandler):
    frames: list[bytes] = []

    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        self.send_response(200)
        self.send_header("Content-Type", "multipart/x-mixed-replace; boundary=frame")
        self.end_headers()
        for jpg in self.frames:
            self.wfile.write(
                b"--frame\r\nContent-Type: image/jpeg\r\nContent-Length: "
                + str(len(jpg)).encode()
                + b"\r\n\r\n"
                + jpg
                + b"\r\n"
            )
        self.wfile.flush()

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture()
def mjpeg_server() -> Iterator[str]:
    frames = _frames()
    _Mjpeg.frames = [cv2.imencode(".jpg", f, [cv2.IMWRITE_JPEG_QUALITY, 95])[1].tobytes() for f in frames]
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Mjpeg)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/video"
    server.shutdown()
    server.server_close()
    thread.join(timeout=5)


def test_an_http_mjpeg_stream_gives_every_frame_in_order(mjpeg_server: str) -> None:
    want = _frames()
    got = list(iter_frames(mjpeg_server))
    assert len(got) == len(want)
    for g, w in zip(got, want, strict=True):
        assert g.shape == w.shape
        assert float(np.abs(g.astype(int) - w.astype(int)).mean()) < 3.0  # JPEG, quality 95
    src = CameraSource(mjpeg_server)
    assert "cannot be locked" in src.lock()


def test_a_video_file_is_a_source(tmp_path: Path) -> None:
    path = tmp_path / "clip.avi"
    writer = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"MJPG"), 5, (320, 240))
    for f in _frames():
        writer.write(f)
    writer.release()
    got = list(CameraSource(str(path)))
    assert len(got) == 4 and got[0].shape == (240, 320, 3)


def test_sources_that_cannot_open_say_what_to_check() -> None:
    assert (
        kind_of("/dev/video0") == "v4l2"
        and kind_of("rtsp://x/y") == "rtsp"
        and kind_of("picamera2") == "picamera2"
    )
    with pytest.raises(SourceError, match="cannot open stream"):
        list(iter_frames("http://127.0.0.1:9/video"))
    try:
        import picamera2  # type: ignore[import-not-found]  # noqa: F401
    except ImportError:
        with pytest.raises(SourceError, match="picamera2 package"):
            CameraSource("picamera2")
