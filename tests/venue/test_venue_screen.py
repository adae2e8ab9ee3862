"""The venue screen and the spectator's view, in real Chromium against a real venue Mosquitto: what a
spectator taps (a table's Watch link) and sees (every table, its players and turn, live or offline)."""

from __future__ import annotations

import json
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import pytest

from controller.testing import Broker, Client
from controller.web.server import serve_display
from tests.support.venue import make_venue, start_venue


@pytest.fixture
def venue() -> Iterator[Broker]:
    with tempfile.TemporaryDirectory(prefix="venue-") as tmp:
        with start_venue(make_venue(Path(tmp), ["table-1", "table-2"])) as broker:
            yield broker


def _state(players: list[str], turn: int) -> str:
    view = {"phase": "main", "players": players, "turn": turn, "scores": None, "p": {}, "grid": {}}
    return json.dumps({"epoch": "g1", "seq": turn * 3, "view": view, "battle": None, "ts": 0})


def test_a_spectator_sees_every_table_and_watches_one(venue: Broker, browser: Any) -> None:
    from playwright.sync_api import expect

    for table, players, turn in (("table-1", ["red", "blue"], 4), ("table-2", ["green", "yellow", "red"], 9)):
        t = Client(venue, f"{table}/bridge", protocol="3.1.1")  # the table's bridge login
        assert t.wait_connected()
        t.publish(f"table/{table}/state", _state(players, turn), retain=True)
        t.publish(f"table/{table}/venue", "1", retain=True)
    # table-2's bridge dropped: its Last Will at the venue says so.
    Client(venue, "table-2/bridge", protocol="3.1.1").publish("table/table-2/venue", "0", retain=True)

    screen = serve_display("127.0.0.1", 0, {"ws": f"ws://127.0.0.1:{venue.ws_port}"})
    page = browser.new_page()
    try:
        ws = f"ws://127.0.0.1:{venue.ws_port}"
        page.goto(
            f"{screen.url}venue.html?"
            + urlencode({"ws": ws, "user": "spectator", "pass": venue.users["spectator"]})
        )
        row1 = page.locator('tr[data-table="table-1"]')
        row2 = page.locator('tr[data-table="table-2"]')
        expect(row1).to_contain_text("turn 4", timeout=20_000)
        expect(row1).to_contain_text("R red, B blue")
        expect(row1.locator("td.live")).to_have_text("live")
        expect(row2).to_contain_text("turn 9", timeout=20_000)
        expect(row2.locator("td.live")).to_have_text("offline", timeout=20_000)
        row1.get_by_role("link", name="Watch table-1").click()
        # The table view, read-only with the spectator login: table-1's public state, no join screen.
        expect(page.locator("#main")).to_have_attribute("data-seq", "12", timeout=20_000)
        assert "table-1" in page.url and "spectate=1" in page.url
        seen = page.evaluate("window.__seenTopics")
        assert seen, "the spectator's table view received nothing"
        assert all(t.startswith("table/table-1/") and "/player/" not in t for t in seen), seen
    finally:
        page.close()
        screen.stop()
