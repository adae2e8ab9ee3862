"""Fixtures for the bridge tests: a simulator on a real pty and a bridge on its other end."""

from __future__ import annotations

import queue
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from firmware_bridge.host import Bridge
from firmware_bridge.sim import Faults, FirmwareSim

EVENT_TYPES = ("cube_dropped", "tower_quiet", "zone_state", "fault")


class Link:
    """A simulator and a bridge joined by a pseudo-terminal; the bridge's messages collect in `got`."""

    def __init__(self, tmp: Path, faults: Faults | None = None, **sim_kwargs: Any) -> None:
        self.sim = FirmwareSim(link=str(tmp / "tower"), faults=faults, **sim_kwargs)
        self.path = self.sim.start()
        self.q: queue.Queue[dict[str, Any]] = queue.Queue()
        self.got: list[dict[str, Any]] = []
        self.link_states: list[str] = []  # every state the link went through, so a short one is not missed
        self.bridge = Bridge(self.path, events=self.q, on_health=self._on_health).start()

    def _on_health(self, health: dict[str, Any]) -> None:
        if not self.link_states or self.link_states[-1] != health["link"]:
            self.link_states.append(health["link"])

    def drain(self) -> list[dict[str, Any]]:
        while True:
            try:
                self.got.append(self.q.get_nowait())
            except queue.Empty:
                return self.got

    def events(self) -> list[dict[str, Any]]:
        return [m for m in self.drain() if m["type"] in EVENT_TYPES]

    def wait_for(self, predicate: Callable[[], bool], timeout: float) -> bool:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            self.drain()
            if predicate():
                return True
            time.sleep(0.01)
        self.drain()
        return predicate()

    def close(self) -> None:
        self.bridge.stop()
        self.sim.stop()


@pytest.fixture
def make_link(tmp_path: Path) -> Iterator[Callable[..., Link]]:
    links: list[Link] = []

    def make(faults: Faults | None = None, **kwargs: Any) -> Link:
        link = Link(tmp_path, faults, **kwargs)
        links.append(link)
        return link

    yield make
    for link in links:
        link.close()
