"""Whether a table camera's process is still there: the watchers (vision.settled_publisher) send a heartbeat
on their topic every second while they read frames, and a camera whose process has said nothing for
`CAMERA_SILENT_S` is shown as not live (the tablets enter what it would have read); its next message makes
it live again. Shared by the ocean-grid camera (controller/ships.py) and The Great Sea's map camera
(controller/sea_camera.py).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

# Five missed heartbeats (vision.settled_publisher.HEARTBEAT_S = 1 s): a loaded machine may delay a few.
CAMERA_SILENT_S = 5.0


def is_heartbeat(msg: dict[str, Any]) -> bool:
    """A watcher's "still reading frames" message: it carries no reading."""
    return msg.get("heartbeat") is True


def is_health(msg: dict[str, Any]) -> bool:
    """A table camera's `vision.health` message (vision.settled_publisher.CameraHealth: its stream dropped
    and is being reopened, or is back), routed to its reader by controller/zmqin.py: no reading."""
    return "online" in msg and "reading" not in msg and not is_heartbeat(msg)


class Heartbeat:
    """When a camera process last spoke (a reading or a heartbeat), by `clock`. Only a process that has sent
    a heartbeat is judged by its silence: one that never does (an older watcher, a test) stays as it was."""

    def __init__(self, clock: Callable[[], float], silent_s: float = CAMERA_SILENT_S) -> None:
        self.clock = clock
        self.silent_s = silent_s
        self.last: float | None = None
        self.beats = 0
        self.gone_silent = False  # silent() said so and nothing has been heard since

    def heard(self, msg: dict[str, Any]) -> bool:
        """Note a message; True when it ends a silence (the camera is live again)."""
        self.last = self.clock()
        if is_heartbeat(msg):
            self.beats += 1
        back, self.gone_silent = self.gone_silent, False
        return back

    def down(self) -> None:
        """The process said its camera is down (a dropped stream): shown offline now, not after `silent_s`;
        the next message it sends once frames come again ends it, as after a silence."""
        self.gone_silent = True

    def silent(self) -> bool:
        """True once, when a heartbeating process has said nothing for `silent_s`."""
        if self.gone_silent or not self.beats or self.last is None:
            return False
        if self.clock() - self.last < self.silent_s:
            return False
        self.gone_silent = True
        return True
