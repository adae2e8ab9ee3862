"""Live reading from a video stream: a settle gate, a pause while a hand is over the board, and
per-cube crops so a player can check a reading on a tablet.

Owns frame sources (camera index, video file, image folder), the reusable `SettleGate` (also used for
the ocean grid), `BoardWatcher` (gate + reader + confirmation) and the published message, and the table
cameras' `SettledWatcher` (gate + `Confirmation` + their numbered message; the ocean grid's and the map's
watchers give it their reader). Knows
nothing of the rules and nothing of the transport (the CLI wires ZeroMQ).
"""

from __future__ import annotations

import base64
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from contracts import topics
from vision.battle_board.reader import BoardReader, BoardReading
from vision.camera_source import CameraSource, SourceError, kind_of

__all__ = [
    "SourceError",
    "iter_frames",
    "BoardWatcher",
    "Confirmation",
    "SettleGate",
    "SettledEvent",
    "SettledWatcher",
]

TOPIC = topics.VISION_BOARD.decode()
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp")


# ---------------------------------------------------------------- frame sources


def iter_frames(
    source: str | int,
    loop: bool = False,
    reconnect_s: float = 0.0,
    note: Callable[[str], None] | None = None,
) -> Iterator[np.ndarray]:
    """BGR frames from a video file or a folder of images (sorted by name), or any live source
    `vision.camera_source` opens (a camera index, `/dev/videoN`, `rtsp://`, `http://` MJPEG, `picamera2`),
    which ends where the stream ends, or with `reconnect_s` is reopened for that long, each step said to
    `note` (`CameraSource`)."""
    if kind_of(source) != "file":
        if note is None:
            yield from CameraSource(source, reconnect_s=reconnect_s)
        else:
            yield from CameraSource(source, reconnect_s=reconnect_s, note=note)
        return
    path = Path(str(source))
    if path.is_dir():
        files = sorted(p for p in path.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
        if not files:
            raise SourceError(f"folder {str(path)!r} holds no images ({', '.join(IMAGE_SUFFIXES)})")
        while True:
            for f in files:
                img = cv2.imread(str(f), cv2.IMREAD_COLOR)
                if img is None:
                    raise SourceError(f"cannot read image {str(f)!r}: not an image file or damaged")
                yield img
            if not loop:
                return
    if not path.exists():
        raise SourceError(f"video source {str(path)!r} does not exist")
    cap = cv2.VideoCapture(str(path))
    if not cap.isOpened():
        raise SourceError(f"cannot open video {str(path)!r}: not a video file OpenCV can decode")
    yield from _from_capture(cap)


def _from_capture(cap: cv2.VideoCapture) -> Iterator[np.ndarray]:
    try:
        while True:
            ok, frame = cap.read()
            if not ok or frame is None:
                return
            yield frame
    finally:
        cap.release()


# ---------------------------------------------------------------- settle gate


def small_gray(frame: np.ndarray, width: int = 160) -> np.ndarray:
    """A small, slightly blurred grey copy: motion is measured on it (cheap and noise tolerant)."""
    g = cv2.cvtColor(frame, cv2.COLOR_BGR2GRAY) if frame.ndim == 3 else frame
    h = max(1, int(round(g.shape[0] * width / g.shape[1])))
    small = cv2.resize(g, (width, h), interpolation=cv2.INTER_AREA)
    return cv2.GaussianBlur(small, (3, 3), 0).astype(np.int16)


@dataclass(slots=True)
class Confirmation:
    """A settled table's readings confirmed before they are published: `confirm` identical readings in a
    row, and a state published once (a hand passing over an unchanged table does not publish it again).
    Shared by the ocean grid's and The Great Sea's watchers."""

    confirm: int = 2
    agree: list[Any] = field(default_factory=list)
    last_published: Any = None

    def reset(self) -> None:
        """Movement or a pause: the readings so far no longer agree with what comes next."""
        self.agree = []

    def offer(self, key: Any) -> str:
        """'settled' (already published), 'confirming', or 'publish' (now recorded as published)."""
        if key == self.last_published:
            return "settled"
        self.agree.append(key)
        if len(self.agree) < self.confirm or len(set(self.agree[-self.confirm :])) != 1:
            return "confirming"
        self.agree, self.last_published = [], key
        return "publish"


@dataclass(slots=True)
class SettleGate:
    """Says when a scene has been still for `still_frames` frames in a row.

    Motion is the share of small-image pixels changed by more than `pixel_threshold` grey levels,
    measured against the previous frame and against the first frame of the current still run (so a
    slow creep is caught too). `update` returns "moving", "settling", "settled" or "paused" (the
    caller reports an occlusion, e.g. a hand); `just_settled` is true on the frame the state turns
    "settled", once per still period.
    """

    still_frames: int = 8
    pixel_threshold: int = 14
    changed_share: float = 0.004
    width: int = 160
    state: str = "moving"
    still_count: int = 0
    just_settled: bool = False
    _prev: np.ndarray | None = field(default=None, repr=False)
    _anchor: np.ndarray | None = field(default=None, repr=False)
    last_motion: float = 0.0

    def motion(self, a: np.ndarray, b: np.ndarray) -> float:
        return float(np.count_nonzero(np.abs(a - b) > self.pixel_threshold)) / a.size

    def update(self, frame: np.ndarray, occluded: bool = False) -> str:
        small = small_gray(frame, self.width)
        self.just_settled = False
        moved = True
        if self._prev is not None and self._prev.shape == small.shape:
            m = max(
                self.motion(small, self._prev),
                self.motion(small, self._anchor) if self._anchor is not None else 0,
            )
            self.last_motion = m
            moved = m > self.changed_share
        self._prev = small
        if occluded:
            self.still_count, self._anchor, self.state = 0, None, "paused"
            return self.state
        if moved:
            self.still_count, self._anchor, self.state = 0, small, "moving"
            return self.state
        if self._anchor is None:
            self._anchor = small
        self.still_count += 1
        if self.still_count >= self.still_frames:
            self.just_settled = self.state != "settled"
            self.state = "settled"
        else:
            self.state = "settling"
        return self.state

    def reset(self) -> None:
        self.state, self.still_count, self._prev, self._anchor, self.just_settled = (
            "moving",
            0,
            None,
            None,
            False,
        )


# ---------------------------------------------------------------- table cameras


@dataclass
class SettledEvent:
    """What a table camera's watcher made of one frame."""

    frame: int
    state: (
        str  # the gate's "moving"/"settling", "paused" (with `reason`), "confirming", "settled", "published"
    )
    reason: str = ""
    message: dict[str, Any] | None = None  # set when a settled reading is published


class SettledWatcher:
    """The settle-and-publish loop of a table camera (the ocean grid's, The Great Sea's map): feed frames; a
    frame is read only once the gate says the table is still; a reading that cannot be used pauses the gate;
    `confirm` identical readings in a row are published once, numbered (`seq`).

    A camera's watcher gives its `topic`, `extra` (keys of its message besides the common ones) and `read`:
    the frame's reading as `(JSON, key)`, the key being what must repeat to confirm, or a `str`, the reason
    to pause instead."""

    topic = ""
    extra: dict[str, Any] = {}

    def __init__(self, still_frames: int, confirm: int, source: str, clock: Callable[[], float]) -> None:
        self.gate = SettleGate(still_frames=still_frames)
        self.confirmation = Confirmation(max(1, confirm))
        self.source = source
        self.clock = clock
        self.frame_id = 0
        self.published = 0

    def read(self, frame: np.ndarray) -> tuple[dict[str, Any], Any] | str:
        raise NotImplementedError

    def process(self, frame: np.ndarray) -> SettledEvent:
        fid = self.frame_id
        self.frame_id += 1
        state = self.gate.update(frame)
        if state in ("moving", "settling"):
            if state == "moving":
                self.confirmation.reset()
            return SettledEvent(fid, state)
        got = self.read(frame)
        if isinstance(got, str):  # pause rather than publish a partial table
            self.gate.still_count, self.gate.state = 0, "paused"
            self.confirmation.reset()
            return SettledEvent(fid, "paused", got)
        data, key = got
        step = self.confirmation.offer(key)
        if step != "publish":
            return SettledEvent(fid, step)
        self.published += 1
        message = {
            "topic": self.topic,
            "seq": self.published,
            "frame": fid,
            "timestamp": round(float(self.clock()), 3),
            "source": self.source,
            **self.extra,
            "reading": data,
        }
        return SettledEvent(fid, "published", message=message)


# ---------------------------------------------------------------- watcher


def crop_jpeg(
    frame: np.ndarray, bbox: tuple[int, int, int, int], max_side: int = 96, quality: int = 85
) -> str:
    """Base64 JPEG of one cube's box in the camera frame, at most `max_side` px."""
    x, y, w, h = bbox
    if w <= 0 or h <= 0:
        return ""
    crop = frame[y : y + h, x : x + w]
    scale = min(1.0, max_side / max(w, h))
    if scale < 1.0:
        crop = cv2.resize(
            crop, (max(1, int(w * scale)), max(1, int(h * scale))), interpolation=cv2.INTER_AREA
        )
    ok, buf = cv2.imencode(".jpg", crop, [cv2.IMWRITE_JPEG_QUALITY, quality])
    return base64.b64encode(buf.tobytes()).decode("ascii") if ok else ""


def reading_key(reading: dict[str, Any]) -> str:
    """What must repeat for two readings to confirm each other: status, counts, re-drops, ambiguity."""
    import json

    return json.dumps(
        [
            reading["status"],
            reading["counts"],
            len(reading["redrop"]),
            len(reading["ambiguous"]),
            sorted((c["color"], c["zone"]) for c in reading["cubes"]),
        ],
        sort_keys=True,
    )


@dataclass
class WatchEvent:
    frame: int
    state: str  # gate state after this frame, or "paused" with `reason`
    reason: str = ""
    message: dict[str, Any] | None = None  # set when a settled reading is published


class BoardWatcher:
    """Feed frames; get a message to publish each time the board settles on a readable, confirmed state.

    A frame is read only when the gate says the board is still; a reading that sees something other
    than cubes over the board (a hand) or loses the markers pauses instead of publishing. `confirm`
    identical readings in a row are needed before a publish; a new publish needs motion first.
    """

    def __init__(
        self,
        reader: BoardReader,
        still_frames: int = 8,
        confirm: int = 2,
        source: str = "",
        crops: bool = True,
        clock: Any = time.time,
    ) -> None:
        self.reader = reader
        self.gate = SettleGate(still_frames=still_frames)
        self.confirm = max(1, confirm)
        self.source = source
        self.crops = crops
        self.clock = clock
        self.frame_id = 0
        self._armed = True  # a publish is due at the next settled, confirmed reading
        self._agree: list[str] = []
        self._still_read = False  # the previous frame was read and the scene has been still since
        self.published = 0

    def process(self, frame: np.ndarray) -> WatchEvent:
        fid = self.frame_id
        self.frame_id += 1
        state = self.gate.update(frame)
        if state != "settled":
            self._still_read = False
        if state in ("moving", "settling"):
            if state == "moving":
                self._armed, self._agree = True, []
            return WatchEvent(fid, state)
        # Still: read (also while already settled, so a still hand arriving is noticed as a pause).
        # Still since the last read: the board has not moved, so its registration still holds.
        reading: BoardReading = self.reader.read(frame, crops=self.crops, reuse_pose=self._still_read)
        self._still_read = True
        if reading.occluded or reading.status == "no-board":
            self.gate.still_count, self.gate.state = 0, "paused"
            self._agree, self._armed = [], True
            return WatchEvent(fid, "paused", reading.reason)
        if not self._armed:
            return WatchEvent(fid, "settled")
        data = reading.to_json()
        self._agree.append(reading_key(data))
        if len(self._agree) < self.confirm or len(set(self._agree[-self.confirm :])) != 1:
            return WatchEvent(fid, "confirming")
        self._armed, self._agree = False, []
        self.published += 1
        message = {
            "topic": TOPIC,
            "frame": fid,
            "timestamp": round(float(self.clock()), 3),
            "source": self.source,
            "reading": data,
            "crops": [
                {"index": i, "jpeg_base64": crop_jpeg(frame, c.bbox_px)} for i, c in enumerate(reading.cubes)
            ]
            if self.crops
            else [],
        }
        return WatchEvent(fid, "published", message=message)
