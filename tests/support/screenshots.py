"""Pictures of a live view: every screenshot the Chromium tests take goes through `picture`.

The table view and the tablets redraw on every retained message (a device's state, the game's), so an element
found can be replaced before its picture is taken: Playwright then fails with "Element is not attached to the
DOM" (or, removed between its steps, "Node is either not visible or not an HTMLElement"). CI failed once so
(tests/security/test_join_and_devices.py). `picture` takes the redrawn element again, only on those errors,
until a deadline; a page is pictured whole and needs no retry, but goes through the same door so no test
forgets.
"""

from __future__ import annotations

import time
from typing import Any

# What Playwright says when the element it found was replaced by a redraw before its picture was taken.
REDRAWN = ("Element is not attached to the DOM", "Node is either not visible or not an HTMLElement")


def picture(target: Any, deadline_s: float = 10.0, **options: Any) -> bytes:
    """The PNG of `target` (a Playwright `Page` or `Locator`) as drawn now; `options` as `screenshot` takes
    them (`path`, `full_page`, `timeout`, ...). A locator's element replaced while it is pictured is found
    and pictured again until `deadline_s`; any other error, or that one past the deadline, is raised."""
    from playwright.sync_api import Error, Locator

    if not isinstance(target, Locator):
        png: bytes = target.screenshot(**options)
        return png
    options.setdefault("timeout", 5_000)
    deadline = time.monotonic() + deadline_s
    while True:
        try:
            png = target.screenshot(**options)
            return png
        except Error as exc:
            if not any(text in str(exc) for text in REDRAWN) or time.monotonic() > deadline:
                raise
