"""The pages driven through the real controller (TableCore + MqttLink in its own process) and rules.api.

A tap publishes the engine's own legal action on the player's command topic; the controller applies
it through the rules engine and republishes the state. Killing the broker or the controller and
starting it again brings the pages back to live with nobody touching them.
"""

from __future__ import annotations

import time

from tests.controller.web.conftest import PHONE, kill_broker, open_page, restart_broker


def seq_of(page) -> int:
    return int(page.evaluate("document.getElementById('main').dataset.seq || -1"))


def active_player(page) -> str:
    return page.evaluate("window.__display.store.state.view.active")


def test_a_tap_changes_the_state_and_a_refusal_shows_the_engines_sentence(
    browser, broker, display, controller
) -> None:
    with open_page(browser, display, broker) as table:
        table.wait_for_selector("#conn[data-status=live]", timeout=10_000)
        table.wait_for_function("document.getElementById('main').dataset.seq !== ''", timeout=10_000)
        before = seq_of(table)
        player = active_player(table)
        with open_page(browser, display, broker, player=player, viewport=PHONE) as page:
            page.wait_for_selector("#conn[data-status=live]", timeout=10_000)
            page.wait_for_selector("button.action", timeout=10_000)
            buttons = page.locator("button.action")
            # Prefer ending the turn: it always changes whose turn it is, on both views.
            end = page.locator("button.action[data-action='end_turn']")
            (end if end.count() else buttons.first).click()
            if end.count():  # ending the turn cannot be undone: the page asks first (docs/display.md)
                page.locator("#confirm button.confirm-yes").click()
            page.wait_for_selector("#reply.ok", timeout=5_000)
            table.wait_for_function(
                f"Number(document.getElementById('main').dataset.seq) > {before}", timeout=5_000
            )
            # A command the engine refuses: its sentence is shown, and nothing changed.
            now = seq_of(table)
            page.evaluate(
                "window.__display.send({seq: window.__display.store.me.seq, action: {type: "
                "'fly_to_the_moon'}}, 'Fly')"
            )
            page.wait_for_selector("#reply.refused", timeout=5_000)
            reason = page.inner_text("#reply")
            assert page.get_attribute("#reply", "data-kind") in ("invalid", "illegal")
            assert len(reason) > 10 and reason != "The table refused that."
            time.sleep(0.3)
            assert seq_of(table) == now


def test_pages_come_back_to_live_after_broker_and_controller_restarts(
    browser, broker, display, controller
) -> None:
    with (
        open_page(browser, display, broker) as table,
        open_page(browser, display, broker, player="red", viewport=PHONE) as red,
    ):
        for page in (table, red):
            page.wait_for_selector("#conn[data-status=live]", timeout=10_000)
        seq = seq_of(table)
        kill_broker(broker)
        for page in (table, red):
            page.wait_for_selector("#conn[data-status=reconnecting]", timeout=10_000)
            assert "stale since" in page.inner_text("#conn")
        restart_broker(broker)
        for page in (table, red):
            page.wait_for_selector("#conn[data-status=live]", timeout=15_000)
        assert seq_of(table) == seq
        red.wait_for_selector("#coins", timeout=5_000)

        controller.kill()  # SIGKILL: the broker publishes its Last Will
        for page in (table, red):
            page.wait_for_selector("#conn[data-status=stale]", timeout=30_000)
            assert "stale since" in page.inner_text("#conn")
        controller.start()  # resumes the same game from its log
        for page in (table, red):
            page.wait_for_selector("#conn[data-status=live]", timeout=15_000)
        assert seq_of(table) == seq
