"""The ocean grid read live: frames from a camera, a video or an image folder, read with
`vision.ocean_grid.reader.read_table_detailed` once the table is still, a reading published on ZeroMQ (topic
`vision.table`) when it has settled.

Owns: `TableWatcher` (the battle board's `vision.live.SettleGate` + the table reader + confirmation); the
PUB loop around it is `vision.settled_publisher`'s. Frame sources and the gate are `vision.live`'s, shared
with the battle board.
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

import itertools
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from contracts import topics
from vision.live import Confirmation, SettleGate, SourceError, iter_frames
from vision.ocean_grid.calibration import TableCalibration
from vision.ocean_grid.layout import TableLayout, load_table_layout
from vision.ocean_grid.reader import TableReading, read_table_detailed
from vision.settled_publisher import publish_settled

TOPIC = topics.VISION_TABLE.decode()

__all__ = ["TOPIC", "SourceError", "TableWatcher", "TableWatchEvent", "reading_key", "watch_table"]


def reading_key(reading: dict[str, Any]) -> tuple:
    """What must repeat for two readings to confirm each other (confidences may wobble)."""
    return (
        reading["status"],
        tuple((s["ship"], s["square"]) for s in reading["ships"]),
        tuple((b["square"], b["face_up"], b["board"]) for b in reading["boards"]),
    )


@dataclass
class TableWatchEvent:
    frame: int
    state: str  # the gate's state, "paused" (with `reason`), "confirming", "settled" or "published"
    reason: str = ""
    message: dict[str, Any] | None = None


class TableWatcher:
    """Feed frames; get a message to publish each time the table settles on a new, readable state."""

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
        self.layout = load_table_layout(layout)
        self.table_calibration = table_calibration
        self.camera = camera
        self.ships_in_play = ships_in_play
        self.gate = SettleGate(still_frames=still_frames)
        self.confirmation = Confirmation(max(1, confirm))
        self.source = source
        self.clock = clock
        self.frame_id = 0
        self.published = 0
        # The last reading that registered the table: the next frame's marker pass covers only the
        # table's outline there (the reader falls back to the whole frame when the camera moved).
        self._registered: TableReading | None = None

    def process(self, frame: np.ndarray) -> TableWatchEvent:
        fid = self.frame_id
        self.frame_id += 1
        state = self.gate.update(frame)
        if state in ("moving", "settling"):
            if state == "moving":
                self.confirmation.reset()
            return TableWatchEvent(fid, state)
        reading = read_table_detailed(
            frame,
            self.layout,
            self.camera,
            self.ships_in_play,
            previous=self._registered,
            calibration=self.table_calibration,
        )
        self._registered = reading if reading.homography is not None else None
        data = reading.to_json()
        if reading.occluded or reading.status == "no-table":
            # An arm over the table or the markers lost: pause rather than publish a partial table.
            self.gate.still_count, self.gate.state = 0, "paused"
            self.confirmation.reset()
            return TableWatchEvent(fid, "paused", reading.reason or "the table is not in view")
        key = reading_key(data)
        step = self.confirmation.offer(key)
        if step != "publish":
            return TableWatchEvent(fid, step)
        self.published += 1
        message = {
            "topic": TOPIC,
            "seq": self.published,
            "frame": fid,
            "timestamp": round(float(self.clock()), 3),
            "source": self.source,
            "reading": data,
        }
        return TableWatchEvent(fid, "published", message=message)


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
    src = source if isinstance(source, int) else str(source)
    frames = iter_frames(src, reconnect_s=reconnect_s, note=note)
    first = next(frames, None)  # a source that cannot be opened fails here, before the socket binds
    if first is None:
        return 0
    stream = itertools.chain([first], frames)
    watcher = TableWatcher(
        layout,
        camera,
        ships_in_play,
        still_frames,
        confirm,
        source=str(source),
        table_calibration=table_calibration,
    )
    return publish_settled(stream, watcher, TOPIC, pub, max_frames, echo, connect_grace_s)
