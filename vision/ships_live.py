"""The ocean grid read live: frames from a camera, a video or an image folder, read with
`vision.ocean_grid.reader.read_table_detailed` once the table is still, a reading published on ZeroMQ (topic
`vision.table`) when it has settled.

Owns: `TableWatcher` (the table reader in `vision.live.SettledWatcher`, whose settle gate, confirmation and
message are shared with The Great Sea's map); the source and PUB loop around it are
`vision.settled_publisher`'s. Frame sources and the gate are `vision.live`'s, shared with the battle board.
Must not know the rules: a board turning face up is published as seen; the controller makes it the
outcome of the exploration.

Gate: a frame is read only when the gate says the table has been still for `still_frames` frames; an
arm or hand over the table (it crosses the table's white frame) or lost frame markers pause the gate
instead of publishing; `confirm` identical readings in a row are needed, and a state is published once
(a hand passing over an unchanged table does not publish it again). A still table with no hand whose
reading stays "ambiguous" (a ship standing on a board's marker, a glare spot) is published as it is:
its nulls become questions on a tablet, never guesses.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from contracts import topics
from vision.live import SettledEvent, SettledWatcher, SourceError
from vision.ocean_grid.calibration import TableCalibration
from vision.ocean_grid.layout import TableLayout, load_table_layout
from vision.ocean_grid.reader import TableReading, read_table_detailed
from vision.settled_publisher import watch_settled

TOPIC = topics.VISION_TABLE.decode()

__all__ = ["TOPIC", "SourceError", "TableWatcher", "TableWatchEvent", "reading_key", "watch_table"]


def reading_key(reading: dict[str, Any]) -> tuple:
    """What must repeat for two readings to confirm each other (confidences may wobble)."""
    return (
        reading["status"],
        tuple((s["ship"], s["square"]) for s in reading["ships"]),
        tuple((b["square"], b["face_up"], b["board"]) for b in reading["boards"]),
    )


# What the table's watcher made of one frame (the name callers import).
TableWatchEvent = SettledEvent


class TableWatcher(SettledWatcher):
    """Feed frames; get a message to publish each time the table settles on a new, readable state."""

    topic = TOPIC

    def __init__(
        self,
        layout: TableLayout | dict | str,
        camera: Any = None,
        ships_in_play: list[str] | None = None,
        still_frames: int = 5,
        confirm: int = 2,
        source: str = "",
        clock: Callable[[], float] = time.time,
        table_calibration: TableCalibration | None = None,
    ) -> None:
        super().__init__(still_frames, confirm, source, clock)
        self.layout = load_table_layout(layout)
        self.table_calibration = table_calibration
        self.camera = camera
        self.ships_in_play = ships_in_play
        # The last reading that registered the table: the next frame's marker pass covers only the
        # table's outline there (the reader falls back to the whole frame when the camera moved).
        self._registered: TableReading | None = None

    def read(self, frame: np.ndarray) -> tuple[dict[str, Any], Any] | str:
        reading = read_table_detailed(
            frame,
            self.layout,
            self.camera,
            self.ships_in_play,
            previous=self._registered,
            calibration=self.table_calibration,
        )
        self._registered = reading if reading.homography is not None else None
        if reading.occluded or reading.status == "no-table":
            # An arm over the table or the markers lost: pause rather than publish a partial table.
            return reading.reason or "the table is not in view"
        data = reading.to_json()
        return data, reading_key(data)


def watch_table(
    source: int | str | Path,
    layout: TableLayout | dict | str,
    pub: str | None = "tcp://127.0.0.1:5561",
    camera: Any = None,
    ships_in_play: list[str] | None = None,
    still_frames: int = 5,
    confirm: int = 2,
    max_frames: int = 0,
    echo: Callable[[dict], None] | None = None,
    connect_grace_s: float = 0.3,
    table_calibration: TableCalibration | None = None,
    reconnect_s: float = 0.0,
    note: Callable[[str], None] | None = None,
) -> int:
    """Read frames until the source ends (or `max_frames`; a live source that drops is reopened for
    `reconnect_s`, each step said to `note`), publishing settled readings as `[b"vision.table", JSON]`.
    Returns how many were published. Raises `SourceError`."""
    watcher = TableWatcher(
        layout,
        camera,
        ships_in_play,
        still_frames,
        confirm,
        source=str(source),
        table_calibration=table_calibration,
    )
    return watch_settled(
        source,
        watcher,
        TOPIC,
        pub,
        max_frames,
        echo,
        connect_grace_s,
        reconnect_s=reconnect_s,
        note=note,
    )
