"""The tablets' new-game screen chooses Dead Reckoning's expansions (issue 19: "an option chosen at setup
(`smart-table rules new --expansion letters-of-marque`, the table's config and the tablets' new-game
screen)"), in real Chromium against `smart-table run` and a real Mosquitto: a finished game on the table, a
player ticks Letters of Marque beside Dead Reckoning on their tablet and taps it; the new game is set up
with the expansion (its Empire tracks on every screen) and the table view says which expansion is in play."""

from __future__ import annotations

import time
from contextlib import ExitStack
from typing import Any

import pytest

from rules import api
from tests.controller.web.conftest import PHONE, open_page, ready
from tests.controller.web.test_great_sea_tablets import log_game, seeded_commands
from tests.controller.web.test_whole_game import SHOTS, final_state, smart_table_run
from tests.support.screenshots import picture

PROMPT = "#main section.prompt[data-kind=new_game]"


@pytest.mark.timeout(300)
def test_a_tablet_taps_a_new_game_with_letters_of_marque_and_the_empire_tracks_appear(
    browser: Any, broker: Any, display: Any, tmp_path: Any
) -> None:
    players = ["red", "blue"]
    # The table's log holds a finished game of The Great Sea (a seeded game's commands, as tablets sent them).
    state = log_game(tmp_path / "game.db", players, 3, seeded_commands(players, 3))
    assert api.is_over(state)
    with smart_table_run(broker, tmp_path, players, 3, simulate=False) as db, ExitStack() as st:
        table = st.enter_context(open_page(browser, display, broker))
        red = st.enter_context(open_page(browser, display, broker, player="red", viewport=PHONE))
        ready([table, red])
        red.wait_for_selector(PROMPT, timeout=20_000)
        box = red.locator(PROMPT)
        assert box.locator("button").all_inner_texts() == ["Dead Reckoning", "The Great Sea"]
        dr = box.locator(".newgame[data-game='dead-reckoning']")
        # The table's config names no expansion: both boxes start unticked, in the rulebooks' names.
        assert dr.locator("label.choice").all_inner_texts() == ["Letters of Marque", "Deep Legends"]
        lom = dr.locator("label.choice[data-choice='letters-of-marque'] input")
        assert not lom.is_checked()
        assert not dr.locator("label.choice[data-choice='deep-legends'] input").is_checked()
        assert not box.locator(".newgame[data-game='great-sea'] label.choice").count()  # it has none
        dr.locator("label.choice[data-choice='letters-of-marque']").click()  # a person taps the words
        assert lom.is_checked()
        picture(red, path=str(SHOTS / "new-game-screen-phone.png"), full_page=True)
        t0 = time.monotonic()
        dr.locator("button[data-option='dead-reckoning']").click()
        for page in (table, red):
            page.wait_for_function(
                "document.getElementById('main').dataset.game === 'dead-reckoning'", timeout=20_000
            )
            # Both Empire tracks of the expansion's panel, drawn from the new game's view.
            page.wait_for_function(
                "document.querySelectorAll('#main section.lom div.empire').length === 2", timeout=20_000
            )
            assert "with Letters of Marque" in page.inner_text("#turn .in-play")
        print(f"NEW GAME WITH LETTERS OF MARQUE: drawn {time.monotonic() - t0:.1f} s after the tap")
        assert not red.locator(PROMPT).count()  # the screen is gone with the finished game
        assert table.inner_text("#title") == "Dead Reckoning"
        picture(table, path=str(SHOTS / "new-game-letters-of-marque-table-tablet.png"))
    new = final_state(db)
    assert new.data["options"]["expansions"] == ["letters-of-marque"]
    assert "deep_legends" not in new.data["options"]
