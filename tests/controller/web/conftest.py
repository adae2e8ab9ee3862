"""Fixtures for the display tests: Debian's headless Chromium (never downloaded), a real Mosquitto with
the deploy/ ACL (controller/testing.py), the display's HTTP server, and a real controller process.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import pytest

from controller.testing import MOSQUITTO, Broker, Client, running_mosquitto
from controller.web.server import DisplayHandle, serve_display
from tests.support.browser import CHROMIUM, CHROMIUM_ARGS  # noqa: F401 - the display tests' Chromium

REPO = Path(__file__).resolve().parents[3]
TABLE = "t1"
TABLET = {"width": 1024, "height": 768}
PHONE = {"width": 390, "height": 844}


@pytest.fixture
def broker() -> Iterator[Broker]:
    with running_mosquitto(tables=(TABLE,)) as b:
        yield b
        # a broker a test restarted is a new process: kill it too
        proc = getattr(b, "restarted", None)
        if proc is not None:
            proc.kill()
            proc.wait(timeout=5)


def restart_broker(b: Broker) -> None:
    """Kill the broker and start a fresh one on the same ports (no retained state survives)."""
    current = getattr(b, "restarted", None) or b.process
    current.kill()
    current.wait(timeout=5)
    time.sleep(0.3)
    proc = subprocess.Popen(
        [MOSQUITTO, "-c", str(b.directory / "mosquitto.conf")],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    b.restarted = proc  # type: ignore[attr-defined]


def kill_broker(b: Broker) -> None:
    current = getattr(b, "restarted", None) or b.process
    current.kill()
    current.wait(timeout=5)


@pytest.fixture
def display(broker: Broker) -> Iterator[DisplayHandle]:
    handle = serve_display("127.0.0.1", 0, {"table": TABLE, "ws": f"ws://127.0.0.1:{broker.ws_port}"})
    yield handle
    handle.stop()


def page_url(display: DisplayHandle, broker: Broker, player: str | None = None) -> str:
    user = player or "display"
    params = {
        "table": TABLE,
        **({"player": player} if player else {"view": "table"}),
        "user": user,
        "pass": broker.users[user],
        "ws": f"ws://127.0.0.1:{broker.ws_port}",
    }
    return display.url + "?" + urlencode(params)


@contextmanager
def open_page(browser, display: DisplayHandle, broker: Broker, player: str | None = None, viewport=TABLET):
    ctx = browser.new_context(viewport=viewport)
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.errors = errors  # type: ignore[attr-defined]
    page.goto(page_url(display, broker, player))
    try:
        yield page
    finally:
        ctx.close()
    assert not errors, f"JavaScript errors in the page: {errors}"


def state_payload(
    state: Any, battle: dict[str, Any] | None = None, warning: str | None = None
) -> dict[str, Any]:
    """The public state payload (table/<id>/state) the controller would publish for `state`, for a test that
    publishes a game of its own."""
    from rules import api

    return {
        "epoch": "e1",
        "seq": state.seq,
        "view": api.public_view(state),
        "battle": battle,
        "tower": {"warning": warning},
        "ts": time.time(),
    }


def private_payload(state: Any, player: str) -> dict[str, Any]:
    """A player's state payload (table/<id>/player/<colour>/state) as the controller would publish it."""
    from rules import api

    return {
        "epoch": "e1",
        "seq": state.seq,
        "view": api.private_view(state, player),
        "legal_actions": api.legal_actions(state, player),
    }


def ready(pages: list[Any]) -> None:
    """Each page connected live to the broker and showing a state."""
    for page in pages:
        page.wait_for_selector("#conn[data-status=live]", timeout=60_000)
        page.wait_for_function(
            "Number(document.getElementById('main').dataset.seq || -1) >= 0", timeout=30_000
        )


def open_table(
    stack: ExitStack, browser: Any, display: DisplayHandle, broker: Broker, players: list[str]
) -> tuple[Any, dict[str, Any]]:
    """A group at the table: the table view on a tablet and each player's page (the first on a tablet, the
    others on phones), open until `stack` closes, each ready."""
    table = stack.enter_context(open_page(browser, display, broker))
    seats = {
        p: stack.enter_context(open_page(browser, display, broker, player=p, viewport=PHONE if i else TABLET))
        for i, p in enumerate(players)
    }
    ready([table, *seats.values()])
    return table, seats


@dataclass
class ControllerProc:
    """The real controller process (`python -m controller.service`, no simulation), resumable from its log."""

    broker: Broker
    db: Path
    players: tuple[str, ...] = ("red", "blue")
    seed: int = 5
    watcher_user: str = "yellow"  # a login the pages under test do not use (one connection per username)
    proc: subprocess.Popen | None = field(default=None, repr=False)

    def config(self) -> dict:
        return {
            "table": {
                "id": TABLE,
                "players": list(self.players),
                "seed": self.seed,
                "database": str(self.db),
            },
            "mqtt": {
                "host": self.broker.host,
                "port": self.broker.port,
                "embedded": False,
                "username": "controller",
                "password": self.broker.users["controller"],
            },
        }

    def start(self, timeout: float = 20.0) -> None:
        env = {**os.environ, "PYTHONPATH": str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", "")}
        watcher = Client(self.broker, self.watcher_user)
        try:
            assert watcher.wait_connected()
            watcher.subscribe(f"table/{TABLE}/availability")
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "controller.service", "--config-json", json.dumps(self.config())],
                cwd=REPO,
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                start_new_session=True,
            )
            try:
                watcher.wait_for(lambda m: json.loads(m.payload) == "online", timeout=timeout)
            except TimeoutError:
                self.kill()
                raise RuntimeError("the controller did not come online") from None
        finally:
            watcher.close()

    def kill(self) -> None:
        """SIGKILL, as a crash: the broker publishes the controller's Last Will."""
        if self.proc is None:
            return
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait(timeout=5)
        if self.proc.stderr:
            self.proc.stderr.close()
        self.proc = None


@pytest.fixture
def controller(broker: Broker, tmp_path: Path) -> Iterator[ControllerProc]:
    c = ControllerProc(broker, tmp_path / "table.db")
    c.start()
    yield c
    c.kill()
