"""The Great Sea's map read live: frames from a camera, a video or an image folder, read with
`vision.sea_regions.reader.read_regions_detailed` once the table is still, a reading published on ZeroMQ
(topic `vision.regions`) when it has settled.

Owns: `RegionsWatcher` (`vision.live.SettleGate` + the region reader + confirmation); the PUB loop around
it is `vision.settled_publisher`'s. Frame sources and the gate are `vision.live`'s, shared with the battle
board and the ocean grid. Knows no rules: the controller (controller/sea_camera.py) compares the reading
with the game.

Gate: a frame is read only when the table has been still for `still_frames` frames in a row; lost frame
markers (an arm across the table's edge, the camera knocked) pause it; `confirm` identical readings in a
row are needed, and a state is published once (a hand passing over an unchanged map does not publish it
again). A still map whose reading stays "ambiguous" is published as it is: its unsure regions become
"check by hand" on the tablets, never guesses.
"""

from __future__ import annotations

import itertools
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from contracts import topics
from vision.live import Confirmation, SettleGate, SourceError, iter_frames
from vision.sea_regions.bare_map import BareMap, BareMapError
from vision.sea_regions.layout import SeaLayout, load_sea_layout
from vision.sea_regions.reader import read_regions_detailed
from vision.settled_publisher import publish_settled

TOPIC = topics.VISION_REGIONS.decode()

__all__ = ["TOPIC", "RegionsWatcher", "SourceError", "reading_key", "watch_regions"]


def reading_key(reading: dict[str, Any]) -> tuple[Any, ...]:
    """What must repeat for two readings to confirm each other (confidences and positions may wobble)."""
    return (
        reading["status"],
        tuple(
            (rid, reg["complete"], tuple((p["owner"], p["kind"], p["damaged"]) for p in reg["pieces"]))
            for rid, reg in sorted(reading["regions"].items())
        ),
    )


@dataclass
class RegionsWatchEvent:
    frame: int
    state: str  # "moving", "settling", "paused" (with `reason`), "confirming", "settled" or "published"
    reason: str = ""
    message: dict[str, Any] | None = None


class RegionsWatcher:
    """Feed frames; get a message to publish each time the map settles on a new state."""

    def __init__(
        self,
        layout: SeaLayout | dict[str, Any] | str,
        camera: Any = None,
        still_frames: int = 5,
        confirm: int = 2,
        source: str = "",
        clock: Callable[[], float] = time.time,
        bare_map: BareMap | None = None,
    ) -> None:
        self.layout = load_sea_layout(layout)
        self.camera = camera
        self.bare_map = bare_map
        self.gate = SettleGate(still_frames=still_frames)
        self.confirmation = Confirmation(max(1, confirm))
        self.source = source
        self.clock = clock
        self.frame_id = 0
        self.published = 0

    def process(self, frame: np.ndarray) -> RegionsWatchEvent:
        fid = self.frame_id
        self.frame_id += 1
        state = self.gate.update(frame)
        if state in ("moving", "settling"):
            if state == "moving":
                self.confirmation.reset()
            return RegionsWatchEvent(fid, state)
        try:
            reading = read_regions_detailed(frame, self.layout, self.camera, self.bare_map)
        except BareMapError as exc:  # a bare map of another camera size: say so, never stop the watch
            self.gate.still_count, self.gate.state = 0, "paused"
            self.confirmation.reset()
            return RegionsWatchEvent(fid, "paused", str(exc))
        if reading.status == "no-table":
            self.gate.still_count, self.gate.state = 0, "paused"
            self.confirmation.reset()
            return RegionsWatchEvent(fid, "paused", reading.reason or "the map is not in view")
        data = reading.to_json()
        key = reading_key(data)
        step = self.confirmation.offer(key)
        if step != "publish":
            return RegionsWatchEvent(fid, step)
        self.published += 1
        message = {
            "topic": TOPIC,
            "seq": self.published,
            "frame": fid,
            "timestamp": round(float(self.clock()), 3),
            "source": self.source,
            "settled": True,
            "reading": data,
        }
        return RegionsWatchEvent(fid, "published", message=message)


def watch_regions(
    source: int | str | Path,
    layout: SeaLayout | dict[str, Any] | str,
    pub: str | None = "tcp://127.0.0.1:5561",
    camera: Any = None,
    still_frames: int = 5,
    confirm: int = 2,
    max_frames: int = 0,
    echo: Callable[[dict[str, Any]], None] | None = None,
    connect_grace_s: float = 0.3,
    loop: bool = False,
    bare_map: BareMap | None = None,
    reconnect_s: float = 0.0,
    note: Callable[[str], None] | None = None,
) -> int:
    """Read frames until the source ends (or `max_frames`; `loop`: an image folder replayed until stopped;
    a live source that drops is reopened for `reconnect_s`, each step said to `note`), publishing settled
    readings as `[b"vision.regions", JSON]`. Returns how many were published. Raises `SourceError`."""
    src = source if isinstance(source, int) else str(source)
    frames = iter_frames(src, loop=loop, reconnect_s=reconnect_s, note=note)
    first = next(frames, None)  # a source that cannot be opened fails here, before the socket binds
    if first is None:
        return 0
    stream = itertools.chain([first], frames)
    watcher = RegionsWatcher(layout, camera, still_frames, confirm, source=str(source), bare_map=bare_map)
    return publish_settled(stream, watcher, TOPIC, pub, max_frames, echo, connect_grace_s)
