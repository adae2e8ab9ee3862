"""Frame sources (`vision.camera_source`): an HTTP MJPEG stream and an RTSP stream (tests/support/rtsp.py,
RTP/JPEG over TCP, read by OpenCV's FFmpeg client) served on loopback from rendered frames, a stream that
drops and comes back, a video file, the Picamera2 adapter against a stand-in module (no Pi camera here),
`calibrate colors --camera` and `vision watch` on those sources with the exposure lock, and the one-sentence
errors for sources that cannot be opened."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import cv2
import numpy as np
import pytest

from tests.support.rtsp import RtspServer
from vision.camera_source import CameraSource, SourceError, kind_of
from vision.live import iter_frames
from vision.synth.common import add_noise

REPO = Path(__file__).resolve().parents[2]
LAYOUT = REPO / "vision" / "data" / "battle-board.json"
STANDIN = REPO / "tests" / "support" / "picamera2_standin"
A_CUBES = [{"color": "red", "zone": "dmg-1"}, {"color": "blue", "zone": "str-2a"}]


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


def _close(got: np.ndarray, want: np.ndarray, tol: float = 3.0) -> bool:
    return got.shape == want.shape and float(np.abs(got.astype(int) - want.astype(int)).mean()) < tol


def test_an_rtsp_stream_gives_every_frame_in_order() -> None:
    want = _frames(6)
    with RtspServer(want, fps=50) as server:
        src = CameraSource(server.url)
        got = list(src)
        assert server.requests[:4] == ["OPTIONS", "DESCRIBE", "SETUP", "PLAY"]
    assert len(got) == len(want)
    assert all(_close(g, w) for g, w in zip(got, want, strict=True))  # JPEG quality 92
    assert "cannot be locked" in src.lock() and src.locked is None


def test_a_dropped_rtsp_stream_is_said_and_reopened() -> None:
    want = _frames(4)
    notes: list[str] = []
    with RtspServer(want, fps=50, loop=True, drop_after=3) as server:
        src = CameraSource(server.url, reconnect_s=10, note=notes.append)
        got = []
        for frame in src:
            got.append(frame)
            if len(got) == 7:
                break
        src.close()
        assert server.sessions >= 3  # dropped after frames 3 and 6: two reconnects
    assert src.reconnects >= 2
    assert notes[0] == f"rtsp source {server.url} stopped giving frames after 3; reconnecting (try 1)"
    assert "reconnected" in notes
    # After each reconnect the stream starts over (this server replays its list from the first frame).
    assert all(_close(g, w) for g, w in zip(got, [*want[:3], *want[:3], want[0]], strict=True))


def test_a_stream_that_stays_gone_says_what_to_check() -> None:
    notes: list[str] = []
    server = RtspServer(_frames(2), fps=50)
    src = CameraSource(server.url, reconnect_s=1.5, timeout_s=2, note=notes.append)
    frames = iter(src)
    next(frames)
    next(frames)
    server.close()  # the camera is switched off: nothing listens any more
    with pytest.raises(SourceError, match=r"stopped giving frames after 2 and did not come back in 1.5 s"):
        next(frames)
    assert len(notes) >= 2 and all("reconnecting" in n for n in notes)


def test_picamera2_adapter_gives_bgr_frames_and_locks(tmp_path: Path, monkeypatch) -> None:
    """Against the stand-in: the frames arrive in OpenCV's B, G, R order (picamera2's "RGB888"), and
    `lock` fixes the settled exposure, gain and colour gains with AE and AWB off."""
    frames = _frames(3)
    for i, f in enumerate(frames):
        cv2.imwrite(str(tmp_path / f"{i}.png"), f)
    monkeypatch.setenv("PICAMERA2_STANDIN_FRAMES", str(tmp_path))
    monkeypatch.syspath_prepend(str(STANDIN))
    monkeypatch.delitem(sys.modules, "picamera2", raising=False)
    src = CameraSource("picamera2")
    it = iter(src)
    got = [next(it) for _ in range(6)]
    assert all(np.array_equal(g, frames[i % 3]) for i, g in enumerate(got))  # red stays red
    said = src.lock()
    assert said == "exposure and white balance locked at their present values (Picamera2)"
    cam = src._picam
    assert cam.controls["AeEnable"] is False and cam.controls["AwbEnable"] is False
    assert src.locked == {"ExposureTime": 12000, "AnalogueGain": 2.0, "ColourGains": [1.8, 1.5]}
    assert src.lock({"ExposureTime": 9000, "AnalogueGain": 1.5, "ColourGains": [1.6, 1.4]}).endswith(
        "locked at the calibration's values (Picamera2)"
    )
    assert src.settings() == {"ExposureTime": 9000, "AnalogueGain": 1.5, "ColourGains": [1.6, 1.4]}
    src.close()
    with pytest.raises(SourceError, match="cannot open the Pi camera 1: .*rpicam-hello --list-cameras"):
        CameraSource("picamera2:1")


def _cli(
    *args: str, env: dict[str, str] | None = None, timeout: float = 120
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "smart_table", *args],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=timeout,
        env={**os.environ, **(env or {})},
    )


def _scene(session, n: int, seed: int) -> list[np.ndarray]:
    base, _ = session.render(A_CUBES, seed=21)
    rng = np.random.default_rng(seed)
    return [add_noise(base, rng, 2.0) for _ in range(n)]


def _published(out: str) -> list[dict]:
    return [json.loads(line) for line in out.splitlines() if line.startswith("{")]


def test_calibrate_and_watch_an_rtsp_camera(session, tmp_path: Path) -> None:
    """The table's camera as a phone or IP camera streaming RTSP: calibrate colours from its stream, then
    watch it to a published reading; a stream cannot be locked from here and both commands say so."""
    pal = tmp_path / "palette.json"
    # 100 fps: FFmpeg's open probes the first frames (~0.2 s here, ~0.85 s at 25); the rate is not tested.
    with RtspServer([session.calibration_image], fps=100, loop=True) as server:
        cal = _cli(
            "calibrate", "colors", "--layout", str(LAYOUT), "--camera", server.url, "--out", str(pal),
            "--warmup-frames", "2", "--yes",
        )  # fmt: skip
    assert cal.returncode == 0, cal.stderr
    assert "cannot be locked from here" in json.loads(cal.stdout.splitlines()[-1])["camera_lock"]
    stored = json.loads(pal.read_text())["camera"]
    assert stored["source"] == server.url and stored["kind"] == "rtsp" and stored["locked"] is False
    with RtspServer(_scene(session, 6, 5), fps=50, loop=True) as server:
        watch = _cli(
            "vision", "watch", "--video", server.url, "--layout", str(LAYOUT), "--palette", str(pal),
            "--settle-frames", "3", "--max-frames", "12", "--lock-after", "2",
        )  # fmt: skip
    assert watch.returncode == 0, watch.stderr
    assert f"camera {server.url}: a rtsp source cannot be locked from here" in watch.stderr
    readings = _published(watch.stdout)
    assert readings and readings[0]["reading"]["counts"] == {"red": {"dmg-1": 1}, "blue": {"str-2a": 1}}
    assert readings[0]["source"] == server.url


def test_calibrate_and_watch_a_pi_camera(session, tmp_path: Path) -> None:
    """Picamera2 (stand-in module on the path): calibration locks exposure and white balance once auto
    exposure settled and stores the values with the palette; `vision watch` locks the camera at those
    values and reads the board with its colours right."""
    calib_dir, scene_dir, log = tmp_path / "calib", tmp_path / "scene", tmp_path / "controls.jsonl"
    calib_dir.mkdir()
    scene_dir.mkdir()
    cv2.imwrite(str(calib_dir / "0.png"), session.calibration_image)
    for i, f in enumerate(_scene(session, 6, 6)):
        cv2.imwrite(str(scene_dir / f"{i}.png"), f)
    env = {
        "PYTHONPATH": os.pathsep.join([str(STANDIN), os.environ.get("PYTHONPATH", str(REPO))]),
        "PICAMERA2_STANDIN_LOG": str(log),
    }
    pal = tmp_path / "palette.json"
    cal = _cli(
        "calibrate", "colors", "--layout", str(LAYOUT), "--camera", "picamera2", "--out", str(pal), "--yes",
        env={**env, "PICAMERA2_STANDIN_FRAMES": str(calib_dir)},
    )  # fmt: skip
    assert cal.returncode == 0, cal.stderr
    assert "locked at their present values (Picamera2)" in cal.stderr
    stored = json.loads(pal.read_text())["camera"]
    assert stored["locked"] is True
    assert stored["settings"] == {"ExposureTime": 12000, "AnalogueGain": 2.0, "ColourGains": [1.8, 1.5]}
    log.unlink()
    watch = _cli(
        "vision", "watch", "--video", "picamera2", "--layout", str(LAYOUT), "--palette", str(pal),
        "--settle-frames", "3", "--max-frames", "10", "--lock-after", "1",
        env={**env, "PICAMERA2_STANDIN_FRAMES": str(scene_dir)},
    )  # fmt: skip
    assert watch.returncode == 0, watch.stderr
    assert "camera picamera2: exposure and white balance locked at the calibration's values" in watch.stderr
    controls = [json.loads(line) for line in log.read_text().splitlines()]
    assert controls == [
        {
            "AeEnable": False,
            "AwbEnable": False,
            "ExposureTime": 12000,
            "AnalogueGain": 2.0,
            "ColourGains": [1.8, 1.5],
        }
    ]
    readings = _published(watch.stdout)
    assert readings and readings[0]["reading"]["counts"] == {"red": {"dmg-1": 1}, "blue": {"str-2a": 1}}
