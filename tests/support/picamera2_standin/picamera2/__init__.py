"""A stand-in for the `picamera2` package (Raspberry Pi OS only; no Pi camera on the build machine), so
the tests run `vision.camera_source`'s Picamera2 adapter up to the frames. It keeps what matters to the
adapter from picamera2's manual: `Picamera2(num)`, `create_video_configuration(main={"format": ...})`,
`configure`, `start`, `capture_array("main")`, `capture_metadata()`, `set_controls`, `stop`, `close`;
the formats' memory order ("RGB888" is B, G, R per pixel, "BGR888" is R, G, B, "XRGB8888" B, G, R, 255);
auto exposure that settles over the first frames and holds once `AeEnable` is False.

Frames come from the PNG files in the folder named by $PICAMERA2_STANDIN_FRAMES (sorted, repeated);
every `set_controls` is appended as a JSON line to $PICAMERA2_STANDIN_LOG when that is set.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import cv2
import numpy as np

__all__ = ["Picamera2"]


class Picamera2:
    cameras = 1

    def __init__(self, camera_num: int = 0) -> None:
        if camera_num >= self.cameras:
            raise IndexError("list index out of range")  # what picamera2 raises for a camera not there
        folder = Path(os.environ.get("PICAMERA2_STANDIN_FRAMES", ""))
        self._files = sorted(folder.glob("*.png")) if folder.is_dir() else []
        self._format = "XBGR8888"
        self._started = False
        self._n = 0
        self.controls: dict[str, Any] = {"AeEnable": True, "AwbEnable": True}
        self._meta: dict[str, Any] = {"ExposureTime": 33000, "AnalogueGain": 4.0, "ColourGains": (1.2, 2.1)}

    def create_video_configuration(self, main: dict[str, Any] | None = None, **_: Any) -> dict[str, Any]:
        return {"use_case": "video", "main": {"format": "XBGR8888", "size": (1280, 720), **(main or {})}}

    def configure(self, config: dict[str, Any]) -> None:
        self._format = config["main"]["format"]

    def start(self) -> None:
        self._started = True

    def stop(self) -> None:
        self._started = False

    def close(self) -> None:
        self._started = False

    def capture_metadata(self) -> dict[str, Any]:
        return dict(self._meta)

    def set_controls(self, controls: dict[str, Any]) -> None:
        self.controls.update(controls)
        for key in ("ExposureTime", "AnalogueGain", "ColourGains"):
            if key in controls:
                self._meta[key] = controls[key]
        log = os.environ.get("PICAMERA2_STANDIN_LOG")
        if log:
            with open(log, "a", encoding="utf-8") as f:
                f.write(
                    json.dumps({k: list(v) if isinstance(v, tuple) else v for k, v in controls.items()})
                    + "\n"
                )

    def capture_array(self, name: str = "main") -> np.ndarray:
        if not self._started:
            raise RuntimeError("Camera must be started before capture")
        if not self._files:
            raise RuntimeError("no frames: set PICAMERA2_STANDIN_FRAMES to a folder of PNG files")
        bgr = cv2.imread(str(self._files[self._n % len(self._files)]), cv2.IMREAD_COLOR)
        if bgr is None:
            raise RuntimeError(f"stand-in frame {self._files[self._n % len(self._files)]} is not an image")
        self._n += 1
        if self.controls.get("AeEnable", True):
            # Auto exposure and white balance settle on the scene over the first frames.
            k = min(1.0, self._n / 5)
            self._meta["ExposureTime"] = int(33000 + (12000 - 33000) * k)
            self._meta["AnalogueGain"] = round(4.0 + (2.0 - 4.0) * k, 3)
            self._meta["ColourGains"] = (round(1.2 + 0.6 * k, 3), round(2.1 - 0.6 * k, 3))
        if self._format == "RGB888":
            return bgr
        if self._format == "BGR888":
            return np.ascontiguousarray(bgr[..., ::-1])
        alpha = np.full(bgr.shape[:2] + (1,), 255, np.uint8)
        if self._format == "XRGB8888":
            return np.concatenate([bgr, alpha], axis=2)
        return np.concatenate([bgr[..., ::-1], alpha], axis=2)  # XBGR8888: R, G, B, 255
