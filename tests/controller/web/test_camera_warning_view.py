"""The table view shows the battle camera's light-drift warning (the public state's `camera.warning`) as a
re-calibrate prompt, beside the tower's, and nothing when there is none."""

from __future__ import annotations

import json
import time

from rules import api
from tests.controller.web.conftest import TABLE, open_page
from tests.controller.web.test_views import controller_client

BASE = f"table/{TABLE}"
DRIFT = (
    "the light changed since calibration (board 1.52, 1.49, 1.47 x as bright in B, G, R): "
    "run 'smart-table calibrate colors' again"
)


def _state(seq: int, state: object, warning: str | None) -> str:
    return json.dumps(
        {
            "epoch": "e1",
            "seq": seq,
            "view": api.public_view(state),  # type: ignore[arg-type]
            "battle": None,
            "tower": {"warning": None},
            "camera": {"warning": warning},
            "ts": time.time(),
        }
    )


def test_the_table_view_prompts_to_recalibrate_when_the_light_drifted(browser, broker, display) -> None:
    ctl = controller_client(broker)
    state = api.new_game(["red", "blue"], 5, None)
    ctl.publish(f"{BASE}/availability", json.dumps("online"), retain=True)
    ctl.publish(f"{BASE}/state", _state(state.seq, state, DRIFT), retain=True)
    with open_page(browser, display, broker) as page:
        page.wait_for_selector("#camera-warning", timeout=10_000)
        text = page.inner_text("#camera-warning")
        assert text.startswith("⚠ Camera: the light changed since calibration")
        assert "run 'smart-table calibrate colors' again" in text
        assert page.locator("#tower-warning").count() == 0
        ctl.publish(f"{BASE}/state", _state(state.seq + 1, state, None), retain=True)
        page.wait_for_selector("#camera-warning", state="detached", timeout=10_000)
    ctl.close()
