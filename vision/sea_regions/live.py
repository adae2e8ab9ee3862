"""The Great Sea's map read live: frames from a camera, a video or an image folder, read with
`vision.sea_regions.reader.read_regions_detailed` once the table is still, a reading published on ZeroMQ
(topic `vision.regions`) when it has settled.

Owns: `RegionsWatcher` (the region reader in `vision.live.SettledWatcher`, whose settle gate, confirmation
and message are shared with the ocean grid's); the source and PUB loop around it are
`vision.settled_publisher`'s. Frame sources and the gate are `vision.live`'s, shared with the battle board.
Knows no rules: the controller (controller/sea_camera.py) compares the reading with the game.

Gate: a frame is read only when the table has been still for `still_frames` frames in a row; lost frame
markers (an arm across the table's edge, the camera knocked) pause it; `confirm` identical readings in a
row are needed, and a state is published once (a hand passing over an unchanged map does not publish it
again). A still map whose reading stays "ambiguous" is published as it is: its unsure regions become
"check by hand" on the tablets, never guesses.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from contracts import topics
from vision.live import SettledEvent, SettledWatcher, SourceError
from vision.sea_regions.bare_map import BareMap, BareMapError
from vision.sea_regions.layout import SeaLayout, load_sea_layout
from vision.sea_regions.reader import read_regions_detailed
from vision.settled_publisher import watch_settled

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


# What the map's watcher made of one frame (the name callers import).
RegionsWatchEvent = SettledEvent


class RegionsWatcher(SettledWatcher):
    """Feed frames; get a message to publish each time the map settles on a new state."""

    topic = TOPIC
    extra = {"settled": True}

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
        super().__init__(still_frames, confirm, source, clock)
        self.layout = load_sea_layout(layout)
        self.camera = camera
        self.bare_map = bare_map

    def read(self, frame: np.ndarray) -> tuple[dict[str, Any], Any] | str:
        try:
            reading = read_regions_detailed(frame, self.layout, self.camera, self.bare_map)
        except BareMapError as exc:  # a bare map of another camera size: say so, never stop the watch
            return str(exc)
        if reading.status == "no-table":
            return reading.reason or "the map is not in view"
        data = reading.to_json()
        return data, reading_key(data)


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
    watcher = RegionsWatcher(layout, camera, still_frames, confirm, source=str(source), bare_map=bare_map)
    return watch_settled(
        source,
        watcher,
        TOPIC,
        pub,
        max_frames,
        echo,
        connect_grace_s,
        loop=loop,
        reconnect_s=reconnect_s,
        note=note,
    )
