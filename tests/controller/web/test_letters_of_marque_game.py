"""A whole 3-player game with Letters of Marque tapped in Chromium (issue 19, "Done when a whole 3-player game
with the expansion plays to its scored end in a test driven through the tablets"): `smart-table run` with
`table.expansions = ["letters-of-marque"]` and no hardware (battles entered by hand), one page per seat and
the table view, tests/support/tapping.py tapping only what a person would tap (the expansion's actions, its
claim prompts) until the score table is on every screen; every rendered text scanned for engine ids.

Several minutes on the shared machine: marked `wholegame` (`pytest -m wholegame`);
tests/controller/web/test_letters_of_marque.py covers the new drawing and prompts in the default suite.
"""

from __future__ import annotations

import json

import pytest

from tests.controller.web.test_whole_game import play_whole_game, state_events

LOM_GAME_TYPES = ("discover_prime_cargo", "flip_prime_cargo", "load_prime", "trade_favour", "claim")


@pytest.mark.wholegame
@pytest.mark.timeout(2700)
def test_three_players_tap_a_whole_game_with_letters_of_marque(browser, broker, display, tmp_path) -> None:
    r = play_whole_game(
        browser,
        broker,
        display,
        tmp_path,
        players=["red", "blue", "green"],
        seed=21,
        simulate=False,
        shot="whole-game-letters-of-marque-scores-tablet.png",
        timeout=2400,
        table_extra={"expansions": ["letters-of-marque"]},
    )
    events = state_events(tmp_path / "game.db")
    assert events[0]["action"]["options"]["expansions"] == ["letters-of-marque"], events[0]
    used = {e.get("type") for e in events}
    lom_used = {t: sum(1 for e in events if e.get("type") == t) for t in LOM_GAME_TYPES}
    print("LOM GAME", json.dumps(lom_used))
    # The expansion was played, not just switched on: Prime Cargo discovered and loaded, Favor traded for.
    assert {"discover_prime_cargo", "flip_prime_cargo", "load_prime"} <= used, lom_used
    assert r["kinds"].get("discover_prime_cargo", 0) >= 1, r
