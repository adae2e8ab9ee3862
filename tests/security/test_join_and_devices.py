"""Joining (#13) and one seat on several devices (#14), in real headless Chromium against the default table:
the table view shows a QR code per open seat that decodes to that seat's link, a seat taken by a tablet
leaves the join screen, a second device with the same link is told the seat is taken and may take it
over (the first is then told, and the two never fight), and a wrong password is said as such."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import urlencode

import cv2
import numpy as np
import pytest

from controller.credentials import login
from tests.security.conftest import TABLE, Table
from tests.support.screenshots import picture

pytestmark = pytest.mark.integration

CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--no-first-run",
]


def _in_chromium(body: Callable[[Any], None]) -> None:
    """Run body(browser) on a thread of its own: another test package's Playwright may still hold this
    thread's event loop (the sync API refuses to start inside one)."""
    errors: list[BaseException] = []

    def run() -> None:
        from playwright.sync_api import sync_playwright

        try:
            with sync_playwright() as pw:
                b = pw.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
                try:
                    body(b)
                finally:
                    b.close()
        except BaseException as exc:  # noqa: BLE001 - handed to the test's thread below
            errors.append(exc)

    t = threading.Thread(target=run, name="chromium")
    t.start()
    t.join(240)
    assert not t.is_alive(), "the browser test did not finish within 240 s"
    if errors:
        raise errors[0]


def _url(table: Table, user: str, password: str | None = None) -> str:
    params = {
        "table": TABLE,
        **({"view": "table"} if user == "display" else {"player": user}),
        "user": login(TABLE, user),
        "pass": password if password is not None else table.users[user],
        "ws": f"ws://127.0.0.1:{table.ports['ws']}",
    }
    return f"http://127.0.0.1:{table.ports['http']}/?" + urlencode(params)


def _page(browser, url: str):
    ctx = browser.new_context(viewport={"width": 1280, "height": 800})  # its own storage: its own device id
    page = ctx.new_page()
    page.goto(url)
    return ctx, page


def _decode(png: bytes) -> str:
    img = cv2.imdecode(np.frombuffer(png, np.uint8), cv2.IMREAD_GRAYSCALE)
    assert img is not None, "the QR code is not a PNG"
    img = cv2.copyMakeBorder(img, 40, 40, 40, 40, cv2.BORDER_CONSTANT, value=255)
    text, _points, _raw = cv2.QRCodeDetector().detectAndDecode(img)
    return text


def test_join_screen_qr_codes_and_two_devices_on_one_seat(table: Table) -> None:
    _in_chromium(lambda browser: _join_and_devices(browser, table))


def _join_and_devices(browser, table: Table) -> None:
    view_ctx, view = _page(browser, _url(table, "display"))
    a_ctx = b_ctx = None
    try:
        view.wait_for_selector("#join:not([hidden]) .join-seat[data-seat=red] svg", timeout=20_000)
        seats = view.eval_on_selector_all("#join .join-seat", "els => els.map(e => e.dataset.seat)")
        assert set(seats) == {"red", "blue", "green", "yellow"}
        red_link = view.get_attribute(".join-seat[data-seat=red] a", "href")
        assert f"pass={table.users['red']}&" in red_link
        png = picture(view.locator(".join-seat[data-seat=red] svg"))
        assert _decode(png) == red_link, "the QR code does not read back as red's link"
        view.click("#join-toggle")  # folded away (the grid needs the room), and back
        view.wait_for_selector("#join-toggle:has-text('Show join codes (4 open seats)')", timeout=5_000)
        assert view.locator("#join .join-seat").count() == 0
        view.click("#join-toggle")
        view.wait_for_selector("#join .join-seat[data-seat=red] svg", timeout=5_000)

        # Red sits down on a tablet: live, and red's code leaves the join screen.
        a_ctx, a = _page(browser, red_link)
        a.wait_for_selector("#conn[data-status=live]", timeout=20_000)
        view.wait_for_function(
            "() => !document.querySelector('#join .join-seat[data-seat=red]')", timeout=10_000
        )

        # A second device opens red's link: told the seat is taken, offered to take it over; the first stays
        # live.
        b_ctx, b = _page(browser, red_link)
        b.wait_for_selector("#conn-overlay[data-code=taken] #conn-take-over", timeout=20_000)
        assert "open on another device" in b.inner_text("#conn-overlay")
        a.wait_for_selector("#conn[data-status=live]", timeout=10_000)

        # It takes the seat over: the second is live, the first is told so (its one reconnect, which learns
        # that, costs the second one blip of about a second), and it stays that way: no fight.
        b.click("#conn-take-over")
        a.wait_for_selector("#conn-overlay[data-code=taken]", timeout=20_000)
        b.wait_for_selector("#conn[data-status=live]", timeout=20_000)
        deadline = time.monotonic() + 6
        while time.monotonic() < deadline:
            assert b.get_attribute("#conn", "data-status") == "live"
            assert a.is_visible("#conn-overlay")
            time.sleep(0.5)
    finally:
        for ctx in (a_ctx, b_ctx, view_ctx):
            if ctx is not None:
                ctx.close()


def test_a_wrong_password_page_says_why_and_what_to_do(table: Table) -> None:
    _in_chromium(lambda browser: _refused(browser, table))


def _refused(browser, table: Table) -> None:
    ctx, page = _page(browser, _url(table, "blue", "an-old-password"))
    try:
        page.wait_for_selector("#conn-overlay[data-code=refused]", timeout=20_000)
        text = page.inner_text("#conn-overlay")
        assert "refused" in text and "QR code" in text and "tablets add blue" in text
        assert page.get_attribute("#conn", "data-status") == "refused"
    finally:
        ctx.close()
