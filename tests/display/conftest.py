"""Fixtures for the display tests: Debian's headless Chromium (never downloaded), a real Mosquitto with
the deploy/ ACL (tests/support/broker.py), the display's HTTP server, and a real controller process.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import urlencode

import pytest

from controller.web.server import DisplayHandle, serve_display
from tests.support.broker import MOSQUITTO, Broker, running_mosquitto

REPO = Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
TABLE = "t1"
TABLET = {"width": 1024, "height": 768}
PHONE = {"width": 390, "height": 844}


@pytest.fixture(scope="session")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        b = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield b
        finally:
            b.close()


@pytest.fixture
def broker() -> Iterator[Broker]:
    with running_mosquitto() as b:
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
    proc = subprocess.Popen([MOSQUITTO, "-c", str(b.directory / "mosquitto.conf")], stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)
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
    params = {"table": TABLE, **({"player": player} if player else {"view": "table"}),
              "user": user, "pass": broker.users[user], "ws": f"ws://127.0.0.1:{broker.ws_port}"}
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


@dataclass
class ControllerProc:
    """The real controller (TableCore + MqttLink) in its own process, resumable from its log."""

    broker: Broker
    db: Path
    players: tuple[str, ...] = ("red", "blue")
    seed: int = 5
    proc: subprocess.Popen | None = field(default=None, repr=False)

    def start(self, timeout: float = 20.0) -> None:
        env = {**os.environ, "PYTHONPATH": str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", "")}
        args = [sys.executable, str(REPO / "tests" / "display" / "run_controller.py"), str(self.db),
                self.broker.host, str(self.broker.port), self.broker.users["controller"], TABLE,
                ",".join(self.players), str(self.seed)]
        self.proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                                     start_new_session=True, text=True)
        line = self.proc.stdout.readline() if self.proc.stdout else ""
        if line.strip() != "ready":
            err = self.proc.stderr.read() if self.proc.stderr else ""
            self.kill()
            raise RuntimeError(f"the controller did not start: {line}{err}")

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
        if self.proc is not None:
            self.proc.wait(timeout=5)
            for s in (self.proc.stdout, self.proc.stderr):
                if s:
                    s.close()
        self.proc = None


@pytest.fixture
def controller(broker: Broker, tmp_path: Path) -> Iterator[ControllerProc]:
    c = ControllerProc(broker, tmp_path / "table.db")
    c.start()
    yield c
    c.kill()
