"""The ZeroMQ PUB loop of the table cameras (the ocean grid's `vision.table`, The Great Sea's
`vision.regions`): frames go through a watcher, each settled reading it makes is published once.

Owns only the source and the transport around a watcher (`watch_settled`: a source opened, its frames
published); the watchers (vision.ships_live, vision.sea_regions.live, on `vision.live.SettledWatcher`) own
the gate, the reader and what a message holds. Between readings it sends a heartbeat on the same topic every
`HEARTBEAT_S` while frames keep coming (`{"topic", "heartbeat": true, "frame", "published", "timestamp"}`,
no `reading`), so the controller can tell a quiet table from a camera process that died
(controller/liveness.py). A live source that drops and is reopened is said on `vision.health` as the battle
board's `vision watch` says it (`CameraHealth`: offline with the reason at once, online when it is back),
with `camera` naming the topic of its readings so the controller sets this camera's state, not the board's.
"""

from __future__ import annotations

import itertools
import json
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from contracts import topics
from vision.live import SourceError, iter_frames

if TYPE_CHECKING:
    import zmq

# A camera process that reads frames says so this often when nothing new is published.
HEARTBEAT_S = 1.0


class CameraHealth:
    """The `vision.health` messages of a table camera: each step of reopening a dropped source (the lines
    `vision.camera_source.CameraSource` says) goes to `note` and, once the PUB socket is bound (`sock`),
    out as `{"online", "ts", "source", "camera": <the readings' topic>}`, offline with `reason` while the
    source is being reopened, online when it is back: the message `vision watch` sends for the board."""

    def __init__(self, topic: str, source: str, note: Callable[[str], None] | None = None) -> None:
        self.topic = topic
        self.source = source
        self.note = note
        self.sock: zmq.Socket[bytes] | None = None

    def __call__(self, text: str) -> None:
        if self.note is not None:
            self.note(text)
        if self.sock is None:
            return
        online = "reconnecting" not in text
        msg: dict[str, Any] = {"online": online, "ts": round(time.time(), 3), "source": self.source}
        msg["camera"] = self.topic
        if not online:
            msg["reason"] = text
        self.sock.send_multipart([topics.VISION_HEALTH, json.dumps(msg).encode()])


class Watcher(Protocol):
    frame_id: int
    published: int

    def process(self, frame: np.ndarray) -> Any: ...


def publish_settled(
    frames: Iterable[np.ndarray],
    watcher: Watcher,
    topic: str,
    pub: str | None,
    max_frames: int = 0,
    echo: Callable[[dict[str, Any]], None] | None = None,
    connect_grace_s: float = 0.3,
    heartbeat_s: float = HEARTBEAT_S,
    health: CameraHealth | None = None,
) -> int:
    """Feed `frames` to `watcher` (up to `max_frames`), publishing each message it makes as
    `[topic, JSON]` on a PUB socket bound at `pub` (none: `echo` only), and `health`'s messages on the same
    socket. Returns how many it published. Raises `SourceError` when `pub` cannot be bound."""
    sock: zmq.Socket[bytes] | None = None
    if pub:
        import zmq

        sock = zmq.Context.instance().socket(zmq.PUB)
        sock.setsockopt(zmq.LINGER, 2000)
        try:
            sock.bind(pub)
        except zmq.ZMQError as exc:
            sock.close(0)
            raise SourceError(f"cannot publish on {pub}: {exc}") from None
        time.sleep(connect_grace_s)  # let subscribers connect before the first reading
        if health is not None:
            health.sock = sock
    last_sent = time.monotonic()
    try:
        for frame in frames:
            if max_frames and watcher.frame_id >= max_frames:
                break
            message = watcher.process(frame).message
            now = time.monotonic()
            if message is not None:
                if sock is not None:
                    sock.send_multipart([topic.encode(), json.dumps(message).encode()])
                    last_sent = now
                if echo is not None:
                    echo(message)
            elif sock is not None and now - last_sent >= heartbeat_s:
                beat = {
                    "topic": topic,
                    "heartbeat": True,
                    "frame": watcher.frame_id,
                    "published": watcher.published,
                    "timestamp": round(time.time(), 3),
                }
                sock.send_multipart([topic.encode(), json.dumps(beat).encode()])
                last_sent = now
    finally:
        if health is not None:
            health.sock = None
        if sock is not None:
            sock.close()
    return watcher.published


def watch_settled(
    source: int | str | Path,
    watcher: Watcher,
    topic: str,
    pub: str | None,
    max_frames: int = 0,
    echo: Callable[[dict[str, Any]], None] | None = None,
    connect_grace_s: float = 0.3,
    loop: bool = False,
    reconnect_s: float = 0.0,
    note: Callable[[str], None] | None = None,
) -> int:
    """Reads `source` (`vision.live.iter_frames`: `loop` replays an image folder, a live source that drops is
    reopened for `reconnect_s`, each step said to `note` and on `vision.health`) through `watcher` into
    `publish_settled`. Returns how many readings were published. Raises `SourceError`: a source that cannot be
    opened fails before the socket binds."""
    src = source if isinstance(source, int) else str(source)
    health = CameraHealth(topic, str(src), note)
    frames = iter_frames(src, loop=loop, reconnect_s=reconnect_s, note=health)
    first = next(frames, None)
    if first is None:
        return 0
    stream = itertools.chain([first], frames)
    return publish_settled(stream, watcher, topic, pub, max_frames, echo, connect_grace_s, health=health)
