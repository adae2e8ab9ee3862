"""Frame sources for the live readers: a V4L2 device, a camera index, a video file or image folder, an
RTSP stream, an HTTP MJPEG stream (a phone's camera app) and, on a Raspberry Pi, Picamera2 when it is
installed. Owns opening, reading, reconnecting a live source that dropped, and locking exposure and white
balance after calibration where the source allows it; knows nothing of what the frames show.

Source strings: `0` or `/dev/video0` (V4L2), `rtsp://...`, `http://.../video` (multipart MJPEG),
`picamera2` (or `picamera2:1` for a second camera), anything else a file or folder path.
"""

from __future__ import annotations

import time
import urllib.request
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import cv2
import numpy as np

LIVE_KINDS = ("v4l2", "rtsp", "mjpeg", "picamera2")


class SourceError(ValueError):
    """A frame source that cannot be opened or read; the message says what to check."""


def kind_of(source: str | int) -> str:
    """ "v4l2", "rtsp", "mjpeg", "picamera2" or "file" for a source string."""
    s = str(source)
    if s.isdigit() or s.startswith("/dev/video"):
        return "v4l2"
    if s.startswith(("rtsp://", "rtsps://")):
        return "rtsp"
    if s.startswith(("http://", "https://")):
        return "mjpeg"
    if s.split(":", 1)[0] == "picamera2":
        return "picamera2"
    return "file"


def _ignore(_: str) -> None:
    return None


class CameraSource:
    """An open source: iterate for BGR frames; `lock()` after calibration fixes exposure and white
    balance where the source allows it and says what it did.

    A live source (camera, stream) that stops giving frames is reopened for up to `reconnect_s` seconds,
    each step said in one sentence to `note`; then iteration raises SourceError saying what to check. A
    lock in force is applied again after a reconnect. With `reconnect_s` 0 (and for a file) the frames
    simply end where the source ends."""

    def __init__(
        self,
        source: str | int,
        timeout_s: float = 10.0,
        reconnect_s: float = 0.0,
        note: Callable[[str], None] = _ignore,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self.source = str(source)
        self.kind = kind_of(source)
        self.timeout_s = timeout_s
        self.reconnect_s = reconnect_s
        self.note = note
        self.sleep = sleep
        self.frames = 0  # frames given since the source was made, over every reconnect
        self.reconnects = 0
        self.locked: dict[str, Any] | None = None  # the settings fixed by `lock`, applied after a reconnect
        self._cap: cv2.VideoCapture | None = None
        self._picam: Any = None
        if self.kind != "mjpeg":  # an HTTP stream is opened when iterated (one request per iteration)
            self._open()

    # -- opening ---------------------------------------------------------------------------------

    def _open(self) -> None:
        if self.kind == "v4l2":
            index: int | str = int(self.source) if self.source.isdigit() else self.source
            cap = cv2.VideoCapture(index, cv2.CAP_V4L2)
            if not cap.isOpened():
                cap = cv2.VideoCapture(index)
            if not cap.isOpened():
                raise SourceError(
                    f"cannot open camera {self.source}; check it is plugged in and not used by "
                    "another program"
                )
            self._cap = cap
        elif self.kind == "rtsp":
            ms = int(self.timeout_s * 1000)
            # Timeouts so a camera that went away is noticed instead of hanging the reader forever.
            cap = cv2.VideoCapture(
                self.source,
                cv2.CAP_FFMPEG,
                [cv2.CAP_PROP_OPEN_TIMEOUT_MSEC, ms, cv2.CAP_PROP_READ_TIMEOUT_MSEC, ms],
            )
            if not cap.isOpened():
                raise SourceError(
                    f"cannot open stream {self.source}; check the address and that the camera "
                    "is streaming (RTSP needs OpenCV built with FFmpeg)"
                )
            self._cap = cap
        elif self.kind == "picamera2":
            try:
                from picamera2 import Picamera2  # type: ignore[import-not-found, unused-ignore]
            except ImportError as exc:
                raise SourceError(
                    "source 'picamera2' needs the picamera2 package (Raspberry Pi OS: "
                    "apt install python3-picamera2)"
                ) from exc
            num = int(self.source.split(":", 1)[1]) if ":" in self.source else 0
            try:
                cam = Picamera2(num)
                # Picamera2's "RGB888" is laid out B, G, R in memory: OpenCV's order ("BGR888" is R, G, B).
                cam.configure(cam.create_video_configuration(main={"format": "RGB888"}))
                cam.start()
            except (RuntimeError, IndexError, OSError) as exc:
                raise SourceError(
                    f"cannot open the Pi camera {num}: {exc}; check its ribbon cable and that no other "
                    "program uses it (rpicam-hello --list-cameras lists the cameras)"
                ) from exc
            self._picam = cam

    def close(self) -> None:
        if self._cap is not None:
            self._cap.release()
            self._cap = None
        if self._picam is not None:
            try:
                self._picam.stop()
                self._picam.close()
            except (RuntimeError, OSError):
                pass  # already gone (unplugged): nothing to release
            self._picam = None

    # -- frames ----------------------------------------------------------------------------------

    def __iter__(self) -> Iterator[np.ndarray]:
        if self.kind == "file":
            from vision.live import iter_frames

            yield from iter_frames(self.source)
            return
        try:
            while True:
                for frame in self._read_until_drop():
                    self.frames += 1
                    yield frame
                if self.reconnect_s <= 0:
                    return
                self._reconnect()
        finally:
            self.close()

    def _read_until_drop(self) -> Iterator[np.ndarray]:
        if self.kind == "mjpeg":
            yield from mjpeg_frames(self.source, self.timeout_s)
        elif self._picam is not None:
            while True:
                try:
                    arr = self._picam.capture_array("main")
                except (RuntimeError, OSError):
                    return
                yield np.ascontiguousarray(arr[..., :3])
        elif self._cap is not None:
            while True:
                ok, frame = self._cap.read()
                if not ok or frame is None:
                    return
                yield frame

    def _reconnect(self) -> None:
        """Reopens a live source that stopped giving frames, trying for `reconnect_s` seconds."""
        gone = f"{self.kind} source {self.source} stopped giving frames after {self.frames}"
        self.close()
        start, wait, tries = time.monotonic(), 0.5, 0
        while True:
            tries += 1
            self.note(f"{gone}; reconnecting (try {tries})")
            try:
                if self.kind != "mjpeg":
                    self._open()
                elif not _mjpeg_reachable(self.source, self.timeout_s):
                    raise SourceError("not reachable")
            except SourceError:
                if time.monotonic() - start + wait > self.reconnect_s:
                    raise SourceError(
                        f"{gone} and did not come back in {self.reconnect_s:g} s; check the camera is on "
                        "and reachable (power, cable, Wi-Fi), then start again"
                    ) from None
                self.sleep(wait)
                wait = min(wait * 2, 5.0)
                continue
            self.reconnects += 1
            if self.locked is not None:
                self.note(f"reconnected; {self.lock(self.locked)}")
            else:
                self.note("reconnected")
            return

    # -- exposure and white balance --------------------------------------------------------------

    def settings(self) -> dict[str, Any]:
        """The exposure and white balance the source uses now, as `lock` takes them back (empty where
        the source does not say): stored with the palette so play runs under the calibration's."""
        if self._picam is not None:
            meta = self._picam.capture_metadata()
            out = {k: meta[k] for k in ("ExposureTime", "AnalogueGain", "ColourGains") if k in meta}
            if "ColourGains" in out:
                out["ColourGains"] = [float(g) for g in out["ColourGains"]]
            return out
        if self.kind == "v4l2" and self._cap is not None:
            props = {
                "exposure": cv2.CAP_PROP_EXPOSURE,
                "gain": cv2.CAP_PROP_GAIN,
                "wb_temperature": cv2.CAP_PROP_WB_TEMPERATURE,
            }
            # OpenCV answers -1 or 0 for a property the driver does not have.
            return {k: float(v) for k, p in props.items() if (v := self._cap.get(p)) > 0}
        return {}

    def lock(self, settings: Mapping[str, Any] | None = None) -> str:
        """Fix exposure and white balance, at `settings` (those `settings()` gave at calibration) or at
        their present values, so the palette stays valid; returns a sentence saying what was done or why
        it could not be. `locked` is then set (None when the source cannot lock)."""
        want = dict(settings or {})
        if self._picam is not None:
            now = self.settings()
            gains = [float(g) for g in want.get("ColourGains", now.get("ColourGains", (1, 1)))]
            self.locked = {
                "ExposureTime": int(want.get("ExposureTime", now.get("ExposureTime", 10000))),
                "AnalogueGain": float(want.get("AnalogueGain", now.get("AnalogueGain", 1.0))),
                "ColourGains": gains,
            }
            self._picam.set_controls(
                {"AeEnable": False, "AwbEnable": False, **self.locked, "ColourGains": tuple(gains)}
            )
            how = "at the calibration's values" if settings else "at their present values"
            return f"exposure and white balance locked {how} (Picamera2)"
        if self.kind == "v4l2" and self._cap is not None:
            cap = self._cap
            # V4L2 through OpenCV: 1 = manual exposure (0.25 on some drivers), auto white balance off.
            done = [
                cap.set(cv2.CAP_PROP_AUTO_EXPOSURE, 1) or cap.set(cv2.CAP_PROP_AUTO_EXPOSURE, 0.25),
                cap.set(cv2.CAP_PROP_AUTO_WB, 0),
            ]
            props = {
                "exposure": cv2.CAP_PROP_EXPOSURE,
                "gain": cv2.CAP_PROP_GAIN,
                "wb_temperature": cv2.CAP_PROP_WB_TEMPERATURE,
            }
            for key, prop in props.items():
                if key in want:
                    done.append(cap.set(prop, float(want[key])))
            if all(done):
                self.locked = self.settings() or dict(want)
                how = "at the calibration's values" if settings else "at their present values"
                return f"exposure and white balance locked {how} (V4L2)"
            self.locked = None
            return (
                "the camera driver refused to lock exposure or white balance: lock them in its own settings"
            )
        self.locked = None
        return (
            f"a {self.kind} source cannot be locked from here: lock exposure and white balance in the "
            "camera's own app or settings"
        )


def _mjpeg_reachable(url: str, timeout_s: float) -> bool:
    try:
        urllib.request.urlopen(url, timeout=timeout_s).close()  # noqa: S310 (the user names the camera)
    except OSError:
        return False
    return True


def mjpeg_frames(url: str, timeout_s: float = 10.0) -> Iterator[np.ndarray]:
    """Frames of a multipart MJPEG stream over HTTP (each part one JPEG), read with the standard library
    so no FFmpeg build is needed."""
    try:
        resp = urllib.request.urlopen(url, timeout=timeout_s)  # noqa: S310 (the user names the camera)
    except OSError as exc:
        raise SourceError(
            f"cannot open stream {url}: {exc}; check the address and that the camera is streaming"
        ) from exc
    ctype = resp.headers.get("Content-Type", "")
    if "multipart" not in ctype:
        resp.close()
        raise SourceError(
            f"stream {url} is not MJPEG (Content-Type {ctype!r}); use the camera app's MJPEG address"
        )
    buf = b""
    try:
        while True:
            try:
                chunk = resp.read1(65536) if hasattr(resp, "read1") else resp.read(65536)
            except OSError:
                return  # a timeout or reset mid-stream: the stream dropped
            if not chunk:
                return
            buf += chunk
            while True:
                start = buf.find(b"\xff\xd8")
                end = buf.find(b"\xff\xd9", start + 2) if start >= 0 else -1
                if start < 0 or end < 0:
                    if start < 0:
                        buf = b""
                    break
                img = cv2.imdecode(np.frombuffer(buf[start : end + 2], np.uint8), cv2.IMREAD_COLOR)
                buf = buf[end + 2 :]
                if img is not None:
                    yield img
    finally:
        resp.close()


def is_path_source(source: str | int) -> bool:
    return kind_of(source) == "file" and Path(str(source)).exists()
