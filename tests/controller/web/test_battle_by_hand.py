"""A whole battle with no hardware at all, in real Chromium against the real controller process: the two
players tap where each cube landed on the drawn battle board, the other side confirms, they pass their
Battle abilities, and the table view shows the result. The script taps only what a person would tap.

The game is brought to its first battle beforehand by seeded legal actions on the same game log; the
controller (`python -m controller.service`, bridge and vision configured but neither running) then resumes
it, so both sensors count as entered by hand.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

from controller.battles import BattleDriver
from controller.core import TableCore
from tests.controller.web.conftest import PHONE, TABLE, TABLET, ControllerProc, open_page
from tests.support.game import play_until_battle, quick_log
from tests.support.screenshots import picture

SHOTS = Path(__file__).resolve().parents[3] / "docs" / "screenshots"
# Engine ids a person must never read: zone ids, squares, card ids.
IDS = re.compile(r"\b(str-\d\w?|dmg-\d|miss-\d|plunder-\w+|explode|r\d+c\d+|crew-\d+)\b")


def prepared_log(db: Path) -> tuple[str, str, str, str]:
    """The game log of a 2-player game at the start of its first battle: (attacker, defender, colours)."""
    log = quick_log(db)  # the table's set-up: no fsync per command
    core = TableCore(log, TABLE)
    core.open_game(["red", "blue"], 5)
    driver = BattleDriver(core)
    play_until_battle(core, driver, seed=5)
    setup = driver.session.setup
    out = (setup.attacker.name, setup.defender.name, setup.attacker.cube_color, setup.defender.cube_color)
    log.close()
    return out


def place(page, zone: str) -> None:
    """Tap the zone low in its well (the placed cubes sit at its top)."""
    target = page.locator(f"[data-kind='enter_drop'] g.bzone[data-zone='{zone}']")
    target.scroll_into_view_if_needed()
    box = target.locator("polygon").bounding_box()
    assert box is not None
    target.click(position={"x": box["width"] / 2, "y": box["height"] - 3})


def enter_cubes(page, zones: dict[str, str]) -> None:
    """Tap each cube of the tray, then the zone it landed in (by colour), then send."""
    prompt = page.locator("[data-kind='enter_drop']")
    n = prompt.locator(".tray-cube").count()
    for i in range(n):
        chip = page.locator(f"[data-kind='enter_drop'] .tray-cube[data-slot='{i}']")
        color = chip.get_attribute("data-color")
        chip.click()
        place(page, zones[color])
        page.wait_for_selector(f"[data-kind='enter_drop'] .tray-cube.placed[data-slot='{i}']", timeout=5_000)
    page.locator("[data-kind='enter_drop'] button[data-answer='send-entry']").click()


def test_a_whole_battle_entered_by_hand_on_the_tablets(browser, broker, display, tmp_path: Path) -> None:
    db = tmp_path / "hand.db"
    attacker, defender, a_col, d_col = prepared_log(db)
    ctl = ControllerProc(broker, db)
    ctl.start()
    try:
        with (
            open_page(browser, display, broker) as table,
            open_page(browser, display, broker, player=attacker, viewport=PHONE) as att,
            open_page(browser, display, broker, player=defender, viewport=TABLET) as dfd,
        ):
            # The table says both sensors are entered by hand; both players are asked to tap the drop.
            table.wait_for_selector(
                "#battle p.sensors[data-tower='manual'][data-camera='manual']", timeout=15_000
            )
            assert "Tower: entered by hand" in table.inner_text("#battle p.sensors")
            att.wait_for_selector("[data-kind='enter_drop'] svg.battle-board", timeout=10_000)
            dfd.wait_for_selector("[data-kind='enter_drop']", timeout=10_000)
            text = att.inner_text("[data-kind='enter_drop']")
            assert "Strength 2" in text and not IDS.search(text), text
            picture(att, path=str(SHOTS / "battle-enter-by-hand-phone.png"), full_page=True)
            # The attacker's cubes landed in a Strength 2 zone, the defender's in a Miss zone.
            enter_cubes(att, {a_col: "str-2a", d_col: "miss-1"})
            att.wait_for_selector(
                "[data-kind='enter_drop'] h3:has-text('Waiting for the other side')", timeout=10_000
            )
            confirm = dfd.locator("[data-kind='confirm_drop']")
            confirm.wait_for(timeout=10_000)
            assert not IDS.search(confirm.inner_text())
            picture(dfd, path=str(SHOTS / "battle-confirm-by-hand-tablet.png"), full_page=True)
            confirm.locator("button[data-answer='confirm']").click()
            # Then each side passes its Battle abilities until the battle is over.
            deadline = time.monotonic() + 60
            while not table.locator("#battle.over").count():
                assert time.monotonic() < deadline, "the battle did not end"
                for page in (att, dfd):
                    button = page.locator("[data-kind='battle_ability'] button.pass")
                    if button.count():
                        button.first.click()
                        page.wait_for_selector("#reply.ok", timeout=5_000)
                table.wait_for_timeout(200)
            table.wait_for_selector("#battle.over p.result[data-winner='attacker']", timeout=10_000)
            assert table.inner_text("#battle.over [data-fact='strength']").startswith("2")
            picture(table, path=str(SHOTS / "table-battle-by-hand-tablet.png"), full_page=True)
            # After the result the correction form is offered to the battle's two players only.
            att.wait_for_selector("[data-kind='confirm_reading'] .review", timeout=10_000)
            assert not IDS.search(att.inner_text("[data-kind='confirm_reading'] .review .fix >> nth=0"))
    finally:
        ctl.kill()
