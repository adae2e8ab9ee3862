"""The Great Sea's camera on the tablets, in real Chromium over a real Mosquitto: the table view says
whether the map camera is live, and the move the camera sees is a button on the player's tablet that
plays it when tapped (never before)."""

from __future__ import annotations

import time

import rules.api as api
from controller.mqtt import MqttLink
from controller.sea_camera import SeaCamera
from controller.testing import DEADLINE
from tests.controller.test_sea_camera import _game_at_a_move, _photo, _pieces, _regions_after
from tests.controller.web.conftest import PHONE, TABLE, open_page


def test_the_table_view_says_the_camera_is_live_and_the_tablet_confirms_its_move(
    browser, broker, display, tmp_path
) -> None:
    core, player, move = _game_at_a_move(tmp_path, TABLE)
    side = api.public_view(core.state)["map"]
    after = _regions_after(core, player, move)
    link = MqttLink(broker.host, broker.port, "controller", broker.users["controller"], table_id=TABLE)
    core.publisher = link
    link.start(core)
    try:
        core.publish_all()
        cam = SeaCamera(core, "great-sea", link.set_device)
        with (
            open_page(browser, display, broker) as table,
            open_page(browser, display, broker, player, viewport=PHONE) as tablet,
        ):
            table.wait_for_selector("#camera[data-camera=off]")  # no camera: play by hand
            cam.announce()
            table.wait_for_selector("#camera[data-camera=waiting]")
            seq = core.seq
            cam.handle(_photo(after, side))
            table.wait_for_selector("#camera[data-camera=live]")
            assert "live" in table.inner_text("#camera")
            yes = tablet.wait_for_selector(
                "section.prompt[data-kind=sea_camera_move] button[data-option=yes]"
            )
            assert "The camera sees" in tablet.inner_text("section.prompt[data-kind=sea_camera_move]")
            assert core.seq == seq  # offered, not played
            yes.click()
            deadline = time.monotonic() + DEADLINE
            while core.seq == seq and time.monotonic() < deadline:
                time.sleep(0.05)
            assert _pieces(api.public_view(core.state)["regions"]) == _pieces(after)
            tablet.wait_for_selector("section.prompt[data-kind=sea_camera_move]", state="detached")
    finally:
        link.stop()
