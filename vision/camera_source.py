"""Frame sources for the live readers: a V4L2 device, a camera index, a video file or image folder, an
RTSP stream, an HTTP MJPEG stream (a phone's camera app) and, on a Raspberry Pi, Picamera2 when it is
installed. Owns opening, reading and locking exposure and white balance after calibration where the
source allows it; knows nothing of what the frames show.

Source strings: `0` or `/dev/video0` (V4L2), `rtsp://...`, `http://.../video` (multipart MJPEG),
`picamera2` (or `picamera2:1` for a second camera), anything else a file or folder path.
"""

from __future__ import annotations

import urllib.request
from collections.abc import Iterator
from pathlib import Path

import cv2
import numpy as np


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


class CameraSource:
    """An open source: iterate for BGR frames; `lock()` after calibration fixes exposure and white
    balance where the source allows it and says what it did."""

    def __init__(self, source: str | int, timeout_s: float = 10.0) -> None:
        self.source = str(source)
        self.kind = kind_of(source)
        self.timeout_s = timeout_s
        self._cap: cv2.VideoCapture | None = None
        self._picam = None
        if self.kind == "v4l2":
            index = int(self.source) if self.source.isdigit() else self.source
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
            cap = cv2.VideoCapture(self.source, cv2.CAP_FFMPEG)
            if not cap.isOpened():
                raise SourceError(
                    f"cannot open stream {self.source}; check the address and that the camera "
                    "is streaming (RTSP needs OpenCV built with FFmpeg)"
                )
            self._cap = cap
        elif self.kind == "picamera2":
            try:
                from picamera2 import Picamera2  # type: ignore[import-not-found]
            except ImportError as exc:
                raise SourceError(
                    "source 'picamera2' needs the picamera2 package (Raspberry Pi OS: "
                    "apt install python3-picamera2)"
                ) from exc
            num = int(self.source.split(":", 1)[1]) if ":" in self.source else 0
            cam = Picamera2(num)
            cam.configure(cam.create_video_configuration(main={"format": "BGR888"}))
            cam.start()
            self._picam = cam

    def __iter__(self) -> Iterator[np.ndarray]:
        if self.kind == "mjpeg":
            yield from mjpeg_frames(self.source, self.timeout_s)
        elif self._picam is not None:
            while True:
                yield np.ascontiguousarray(self._picam.capture_array("main")[..., :3])
        elif self._cap is not None:
            try:
                while True:
                    ok, frame = self._cap.read()
                    if not ok or frame is None:
                        return
                    yield frame
            finally:
                self._cap.release()
        else:
            from vision.live import iter_frames

            yield from iter_frames(self.source)

    def lock(self) -> str:
        """Fix exposure and white balance at their present values (after calibration), so the palette
        stays valid; returns a sentence saying what was done or why it could not be."""
        if self._picam is not None:
            meta = self._picam.capture_metadata()
            self._picam.set_controls(
                {
                    "AeEnable": False,
                    "AwbEnable": False,
                    "ExposureTime": meta.get("ExposureTime", 10000),
                    "AnalogueGain": meta.get("AnalogueGain", 1.0),
                    "ColourGains": meta.get("ColourGains", (1.0, 1.0)),
                }
            )
            return "exposure and white balance locked (Picamera2)"
        if self.kind == "v4l2" and self._cap is not None:
            # V4L2 through OpenCV: 1 = manual exposure (0.25 on some drivers), auto white balance off.
            done = [
                self._cap.set(cv2.CAP_PROP_AUTO_EXPOSURE, 1)
                or self._cap.set(cv2.CAP_PROP_AUTO_EXPOSURE, 0.25),
                self._cap.set(cv2.CAP_PROP_AUTO_WB, 0),
            ]
            if all(done):
                return "exposure and white balance locked (V4L2)"
            return (
                "the camera driver refused to lock exposure or white balance: lock them in its own settings"
            )
        return (
            f"a {self.kind} source cannot be locked from here: lock exposure and white balance in the "
            "camera's own app or settings"
        )


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
            chunk = resp.read(65536) if not hasattr(resp, "read1") else resp.read1(65536)
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
