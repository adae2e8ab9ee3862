"""Deep Legends at the table, by taps only (issue 20): a person explores a Non-Merchant Encounter, encounters
a Fortune Encounter (tapping the face the Saga die shows) and buys a saga item, which the seller accepts on
their own tablet. The Book entries read are shown with their story on every tablet, and the saga items each
player owns follow the trade.

Real Mosquitto, the controller's core and MQTT link in this process, real headless Chromium. The game is laid
out close to its saga moment with the rules tests' set-up shortcuts (the two saga cards on the island where
the active Ship stands: tests/controller/web/saga_setup.py); every action after that is a tap on a page, and
the controller's core decides whether it is accepted.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

from controller.core import TableCore
from rules import api
from rules.dead_reckoning.deep_legends import saga as sg
from tests.controller.web.conftest import PHONE, REPO, open_page
from tests.controller.web.saga_setup import ITEM, lay_saga_moment, saga_options
from tests.controller.web.test_game_words import live, table_core
from tests.controller.web.test_letters_of_marque import engine_ids, tap, wait_mine
from tests.support.screenshots import picture

PLAYERS = ["red", "blue", "green"]
SHOTS = REPO / "docs" / "screenshots"


def saga_core(broker: Any, tmp_path: Path, seed: int = 4) -> AbstractContextManager[TableCore]:
    return table_core(broker, tmp_path, PLAYERS, seed, saga_options(PLAYERS))


def confirm(page: Any, selector: str) -> None:
    """Tap a button that asks first, then 'Yes' (the tap the table answers)."""
    page.locator(selector).first.click(timeout=5_000)
    tap(page, "button.confirm-yes")


def test_a_person_explores_an_encounter_meets_a_fortune_and_trades_a_saga_item_by_taps(
    browser, broker, display, tmp_path
) -> None:
    """ "you may pay the indicated Coins cost to explore them. After you pay the cost (and NOT BEFORE), you
    turn the Encounter over and read out loud what it says on the other side"; "The specific condition to
    encounter a Fortune Encounter will be spelled out on it"; "The active player may buy or sell Saga items
    to/from any other player ... The price paid will be any amount of Cargo and/or up to 5 Coins"."""
    book = sg.load_saga()
    with saga_core(broker, tmp_path) as core:
        while core.state.phase != "main" or core.state.data["pending"]:  # the set-up's draws
            core.submit("red", api.legal_actions(core.state, "red")[0], core.seq)
        me = lay_saga_moment(core.state)
        seller = PLAYERS[1] if me != PLAYERS[1] else PLAYERS[2]
        core.state.data["deep_legends"]["items"] = {ITEM: seller}
        core.state.data["p"][me]["dock"] = 2
        core.publish_all()
        with (
            open_page(browser, display, broker, player=me, viewport=PHONE) as mine,
            open_page(browser, display, broker, player=seller, viewport=PHONE) as theirs,
        ):
            for page in (mine, theirs):
                live(page)
                wait_mine(page, core.seq)
                page.wait_for_selector("section.saga", timeout=15_000)
            # each tablet shows who owns which saga item, with its words
            owned = theirs.locator(f"section.saga .saga-items li[data-owner='{seller}']").inner_text()
            assert "Pearl of the Deep" in owned and book["by_id"][ITEM]["text"] in owned
            assert "Drifting Longboat" in mine.locator("section.saga .saga-board").inner_text()

            # 1. explore the Non-Merchant Encounter: pay its Coins, then its back is read aloud
            chest = core.state.data["p"][me]["chest"]
            sel = "section.saga button.saga-action[data-action='explore_encounter']"
            assert "pay 2 Coins" in mine.locator(sel).inner_text()
            confirm(mine, sel)
            assert core.state.data["p"][me]["chest"] == chest - 2
            story = book["book"]["1.01"]["story"]
            for page in (mine, theirs):
                wait_mine(page, core.seq)
                page.wait_for_selector("section.saga .saga-book li[data-entry='1.01']", timeout=15_000)
                assert story in page.locator("section.saga .saga-book").inner_text()

            # 2. the Fortune Encounter: its condition shown, the Saga die's face tapped as it fell
            group = "section.saga button.saga-open[data-saga-group='fortune:1.00-b']"
            mine.locator(group).click()
            answers = mine.locator("section.saga .saga-group.open button.saga-action")
            faces = answers.all_inner_texts()
            assert faces == [f"The Saga die shows {f}" for f in sorted(set(book["die"]))], faces
            assert (
                book["by_id"]["1.00-b"]["condition"]
                in mine.locator("section.saga .saga-group.open").inner_text()
            )
            confirm(mine, "section.saga .saga-group.open button.saga-action >> text='The Saga die shows 2'")
            assert "1.06" in core.state.data["deep_legends"]["rows"]["2"]  # Book 1.02: add 1.06 to Row 2
            assert core.state.data["deep_legends"]["campaign_points"] == {me: 1}
            mine.wait_for_selector("section.saga .saga-book li[data-entry='1.02']", timeout=15_000)

            # 3. buy the seller's saga item for 2 Cargo; nothing changes hands until they accept
            wait_mine(mine, core.seq)
            mine.locator(f"section.saga button.saga-open[data-saga-group='trade:{ITEM}:{seller}']").click()
            tap(mine, "section.saga .saga-group.open button.saga-action >> text=/^For 2 Cargo/")
            assert core.state.data["deep_legends"]["items"][ITEM] == seller
            assert "Waiting for" in mine.locator("section.saga .saga-waiting").inner_text()
            wait_mine(theirs, core.seq)
            prompt = theirs.locator("section.saga-offer")
            prompt.wait_for(timeout=15_000)
            assert "2 Cargo" in prompt.inner_text() and "Pearl of the Deep" in prompt.inner_text()
            dock = core.state.data["p"][seller]["dock"]
            confirm(theirs, "section.saga-offer button[data-action='answer_saga_trade'] >> text=/^Accept/")
            assert core.state.data["deep_legends"]["items"][ITEM] == me
            assert core.state.data["p"][seller]["dock"] == dock + 2
            for page in (mine, theirs):
                wait_mine(page, core.seq)
                mine_line = page.locator(f"section.saga .saga-items li[data-owner='{me}']").inner_text()
                assert "Pearl of the Deep" in mine_line
                assert not page.locator("section.saga-offer").count()
                assert not engine_ids(page), engine_ids(page)
            picture(mine.locator("section.saga"), path=str(SHOTS / "deep-legends-player-phone.png"))
