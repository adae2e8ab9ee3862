"""The ocean grid read live: frames from a camera, a video or an image folder, each read with
`vision.table.read_table_detailed`, a reading published on ZeroMQ (topic `vision.table`) only once the
table has settled.

Owns: frame sources for the table camera, the table's settle gate, the PUB socket. Must not know the
rules: a board turning face up is published as seen; the controller makes it the exploration's outcome.

The gate (after the research notes: still frames and k identical readings, a hand pauses reading):
a frame counts only if it is still (downscaled difference to the previous frame below a threshold) and
its reading is "ok" (any hidden ship or board, a hand, glare: "ambiguous" pauses); a reading is
published after `settle_frames` such frames in a row agree, and only when it differs from the last one
published.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.table import TableLayout, load_table_layout, read_table_detailed

TOPIC = b"vision.table"
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff", ".webp")
# Mean absolute difference (0-255) of the 1/8-size grey frame above which the table is moving.
MOTION_THRESHOLD = 6.0


class SourceError(RuntimeError):
    """A frame source that cannot be opened; the message says what to check."""


def frames(source: int | str | Path) -> Iterator[np.ndarray]:
    """BGR frames from a camera index, a video file or a folder of images (name order)."""
    if isinstance(source, (str, Path)) and Path(source).is_dir():
        files = sorted(p for p in Path(source).iterdir() if p.suffix.lower() in IMAGE_SUFFIXES)
        if not files:
            raise SourceError(f"image folder {source} holds no images ({', '.join(IMAGE_SUFFIXES)})")

        def from_folder() -> Iterator[np.ndarray]:
            for p in files:
                img = cv2.imread(str(p), cv2.IMREAD_COLOR)
                if img is None:
                    continue  # a half-written or foreign file is skipped, not fatal
                yield img

        return from_folder()
    if isinstance(source, (str, Path)) and not Path(source).exists():
        raise SourceError(f"video {source} does not exist")
    cap = cv2.VideoCapture(int(source) if isinstance(source, int) else str(source))
    if not cap.isOpened():
        what = f"camera {source}" if isinstance(source, int) else f"video {source}"
        raise SourceError(f"{what} cannot be opened: check that it exists and nothing else holds it")

    def from_capture() -> Iterator[np.ndarray]:
        try:
            while True:
                ok, img = cap.read()
                if not ok:
                    return
                yield img
        finally:
            cap.release()

    return from_capture()


def reading_key(reading: dict[str, Any]) -> tuple:
    """What must stay the same for a reading to count as settled (confidences may wobble)."""
    return (tuple((s["ship"], s["square"]) for s in reading["ships"]),
            tuple((b["square"], b["face_up"], b["board"]) for b in reading["boards"]))


@dataclass
class TableSettleGate:
    settle_frames: int = 5
    motion_threshold: float = MOTION_THRESHOLD
    _prev_small: np.ndarray | None = None
    _key: tuple | None = None
    _count: int = 0
    _published: tuple | None = None
    paused_frames: int = 0
    history: list[str] = field(default_factory=list)

    def moving(self, image: np.ndarray) -> bool:
        small = cv2.resize(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), (image.shape[1] // 8, image.shape[0] // 8),
                           interpolation=cv2.INTER_AREA)
        prev, self._prev_small = self._prev_small, small
        if prev is None or prev.shape != small.shape:
            return False
        return float(cv2.absdiff(prev, small).mean()) > self.motion_threshold

    def offer(self, reading: dict[str, Any], moving: bool) -> bool:
        """Feed one frame's reading; True when it should be published now."""
        if moving or reading["status"] != "ok":
            self._key, self._count = None, 0
            self.paused_frames += 1
            self.history.append("moving" if moving else reading["status"])
            return False
        key = reading_key(reading)
        if key == self._key:
            self._count += 1
        else:
            self._key, self._count = key, 1
        self.history.append("ok")
        if self._count == self.settle_frames and key != self._published:
            self._published = key
            return True
        return False


def watch_table(source: int | str | Path, layout: TableLayout | dict | str, pub: str | None = "tcp://127.0.0.1:5561",
                camera: dict | None = None, ships_in_play: list[str] | None = None, settle_frames: int = 5,
                max_frames: int = 0, echo: Callable[[dict], None] | None = None,
                connect_grace_s: float = 0.3) -> int:
    """Read frames until the source ends (or `max_frames`); publish settled readings. Returns how many."""
    layout = load_table_layout(layout)
    stream = frames(source)
    sock = ctx = None
    if pub:
        import zmq

        ctx = zmq.Context.instance()
        sock = ctx.socket(zmq.PUB)
        sock.setsockopt(zmq.LINGER, 2000)
        try:
            sock.bind(pub)
        except zmq.ZMQError as exc:
            sock.close(0)
            raise SourceError(f"cannot publish on {pub}: {exc}") from None
        time.sleep(connect_grace_s)  # let subscribers connect before the first reading
    gate = TableSettleGate(settle_frames=settle_frames)
    published = 0
    try:
        for index, image in enumerate(stream):
            if max_frames and index >= max_frames:
                break
            moving = gate.moving(image)
            reading = read_table_detailed(image, layout, camera, ships_in_play).to_json()
            if gate.offer(reading, moving):
                published += 1
                message = {**reading, "seq": published, "frame": index}
                if sock is not None:
                    sock.send_multipart([TOPIC, json.dumps(message).encode()])
                if echo is not None:
                    echo(message)
    finally:
        if sock is not None:
            sock.close()
    return published
