"""The Great Sea at the table, through the tablets in real Chromium (issue 21, "At the table" and "Done
when"): `smart-table run` with `table.game = "great-sea"` on a real Mosquitto, one page per seat and the table
view, tapped by tests/support/tapping.py (only what a person taps: the buttons the engine's legal actions
became, confirmations, the new-game screen) until the end of the game is on every screen.

In the default suite: a 2-player game set up near its end (the log holds a seeded game's first moves; the
controller resumes it and the tablets play it out), then the new-game screen starts Dead Reckoning; a Combat
whose cards are chosen secretly on each tablet and revealed together. Under `wholegame`: a 2-player and a
4-player game from their first move to their end.
"""

from __future__ import annotations

import json
import random
import time
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest

from controller.core import TableCore
from controller.gamelog import GameLog
from controller.testing import Broker
from rules import api
from tests.controller.web.conftest import TABLE, open_page, open_table, ready
from tests.controller.web.test_game_words import ENGINE_ID, SCAN_JS
from tests.controller.web.test_whole_game import SHOTS, final_state, smart_table_run
from tests.support.game import quick_log
from tests.support.screenshots import picture
from tests.support.tapping import Table

SEA = {"game": "great-sea"}


def turn_start(state: Any) -> bool:
    d = state.data
    t = d["turn"]
    return bool(
        d["phase"] == "main"
        and d["combat"] is None
        and t is not None
        and t["open"] is None
        and not t["placed"]
        and not t["start_done"]
    )


def seeded_commands(players: list[str], seed: int) -> list[dict[str, Any]]:
    """A whole seeded random game's commands (the engine's own legal actions, picked by a seeded RNG)."""
    state = api.new_game(players, seed, SEA)
    rng = random.Random(seed)
    out = []
    while not api.is_over(state):
        p = state.data["active"]
        action = rng.choice(api.legal_actions(state, p))
        out.append({"player": p, "action": action})
        state, _ = api.apply(state, {"seq": state.seq, "player": p, "action": action})
    return out


def log_game(db: Path, players: list[str], seed: int, commands: list[dict[str, Any]]) -> Any:
    """The table's log holding a game of The Great Sea after `commands` (as if tablets had sent them),
    written without an fsync per command (the table's set-up, not the log under test)."""
    log = quick_log(db)
    try:
        core = TableCore(log, TABLE)
        core.open_game(players, seed, dict(SEA))
        for c in commands:
            core.submit(c["player"], c["action"], core.seq)
        return core.state
    finally:
        log.close()


def near_the_end(db: Path, players: list[str], seed: int, margin: int) -> Any:
    """The seeded game logged up to the start of the last turn at least `margin` actions before its end."""
    commands = seeded_commands(players, seed)
    state = api.new_game(players, seed, SEA)
    cut = 0
    for i, c in enumerate(commands[: len(commands) - margin]):
        if turn_start(state):
            cut = i
        state, _ = api.apply(state, {"seq": state.seq, **c})
    return log_game(db, players, seed, commands[:cut])


def before_a_combat(db: Path, players: list[str], seed: int) -> Any:
    """A seeded game logged up to a Combat just started: both sides must now choose a Combat Card."""
    state = api.new_game(players, seed, SEA)
    rng = random.Random(seed)
    commands = []
    while not api.is_over(state):
        p = state.data["active"]
        legal = api.legal_actions(state, p)
        attack = [a for a in legal if a["type"] == "initiate_combat"]
        action = attack[0] if attack else rng.choice(legal)
        commands.append({"player": p, "action": action})
        state, _ = api.apply(state, {"seq": state.seq, "player": p, "action": action})
        if attack:
            return log_game(db, players, seed, commands)
    raise AssertionError("no Combat in this seeded game")


class Scanner:
    """Every rendered text of every page, scanned for engine ids."""

    def __init__(self) -> None:
        self.texts = 0
        self.found: set[str] = set()

    def __call__(self, who: str, page: Any) -> None:
        for text, _in_battle in page.evaluate(SCAN_JS):
            self.texts += 1
            for m in ENGINE_ID.finditer(text):
                self.found.add(f"{who}: {m.group(0)!r} in {text[:80]!r}")


def tap_to_the_end(
    browser: Any,
    broker: Broker,
    display: Any,
    tmp_path: Path,
    players: list[str],
    seed: int,
    timeout: float,
    then_new_game: bool = False,
) -> dict[str, Any]:
    scanner = Scanner()
    with (
        smart_table_run(broker, tmp_path, players, seed, simulate=False, game="great-sea") as db,
        ExitStack() as st,
    ):
        table, seats = open_table(st, browser, display, broker, players)
        table.wait_for_selector("#main svg.seamap g.region", timeout=15_000)
        assert table.inner_text("#title") == "The Great Sea"
        if then_new_game:
            picture(table, path=str(SHOTS / "great-sea-table-tablet.png"), full_page=True)
            picture(seats[players[1]], path=str(SHOTS / "great-sea-player-phone.png"), full_page=True)
        tapper = Table(table, seats, seed=seed, scan=scanner, scan_every=25)
        seconds = tapper.play(timeout=timeout)
        tapper.scan_all()
        state = final_state(db)
        assert api.is_over(state)
        winner = state.data["winner"]
        for page in (table, *seats.values()):
            page.wait_for_selector("#main #scores", timeout=15_000)
            assert page.locator("#main #scores").get_attribute("data-winner") == winner
            assert f"{winner.capitalize()} wins" in page.inner_text("#main #scores")
        result = {
            "taps": tapper.tally.taps,
            "seconds": round(seconds, 1),
            "per_tap_s": round(seconds / max(1, tapper.tally.taps), 3),
            "kinds": dict(tapper.tally.kinds.most_common(8)),
            "refused": tapper.tally.refused[:5],
            "missed_taps": len(tapper.tally.missed),
            "seq": state.seq,
            "winner": winner,
            "texts_scanned": scanner.texts,
        }
        if then_new_game:
            # The new-game screen: a seated player taps the next game on their tablet; every page follows.
            first = seats[players[0]]
            first.wait_for_selector("#main section.prompt[data-kind=new_game]", timeout=15_000)
            labels = first.locator("#main section.prompt[data-kind=new_game] button").all_inner_texts()
            assert labels == ["Dead Reckoning", "The Great Sea"], labels
            first.locator(
                "#main section.prompt[data-kind=new_game] button[data-option='dead-reckoning']"
            ).click()
            for page in (table, *seats.values()):
                page.wait_for_function(
                    "document.getElementById('main').dataset.game === 'dead-reckoning'", timeout=15_000
                )
            table.wait_for_selector("#main svg.ocean", timeout=15_000)
            assert table.inner_text("#title") == "Dead Reckoning"
            assert not seats[players[1]].locator("#main #scores").count()
    print("GREAT SEA GAME", json.dumps(result))
    assert not scanner.found, sorted(scanner.found)[:20]
    return result


@pytest.mark.timeout(600)
def test_two_players_tap_a_great_sea_game_from_near_its_end_then_start_dead_reckoning(
    browser, broker, display, tmp_path
) -> None:
    """Issue 21: the game through the tablets to its end (here the last turns of a seeded game), the end on
    every screen, and "the tablets' new-game screen choose[s] the game"."""
    near_the_end(tmp_path / "game.db", ["red", "blue"], seed=3, margin=30)
    r = tap_to_the_end(
        browser, broker, display, tmp_path, ["red", "blue"], seed=3, timeout=420, then_new_game=True
    )
    assert r["taps"] >= 5, r


@pytest.mark.timeout(300)
def test_combat_cards_are_chosen_in_secret_on_each_tablet_and_revealed_together(
    browser, broker, display, tmp_path
) -> None:
    """ "Each player secretly chooses a Combat Card from their hand ... without yet revealing it to their
    opponent" and "Both players reveal their Combat Cards simultaneously": the first chooser's tablet shows
    its own card, the other tablet and the table view only that a card was chosen; once the second is chosen
    both cards are on every screen."""
    state = before_a_combat(tmp_path / "game.db", ["red", "blue"], seed=1)
    combat = state.data["combat"]
    att, dfn = combat["attacker"], combat["defender"]
    with (
        smart_table_run(broker, tmp_path, ["red", "blue"], 1, simulate=False, game="great-sea"),
        ExitStack() as st,
    ):
        table = st.enter_context(open_page(browser, display, broker))
        pages = {p: st.enter_context(open_page(browser, display, broker, player=p)) for p in ("red", "blue")}
        ready([table, *pages.values()])
        for page in pages.values():
            page.wait_for_selector("#main button.combat-card", timeout=15_000)
        table.wait_for_selector("#main #combat", timeout=15_000)
        # The attacker taps the first card offered.
        first = pages[att].locator("#main button.combat-card").first
        name = first.inner_text().split(" — ")[0].removeprefix("Play ")
        first.click()
        pages[att].wait_for_selector(
            f"#main #combat .side[data-side={att}] .chosen[data-chosen='1']", timeout=15_000
        )
        assert "you chose " + name in pages[att].inner_text(f"#main #combat .side[data-side={att}] .chosen")
        for page in (pages[dfn], table):
            page.wait_for_selector(
                f"#main #combat .side[data-side={att}] .chosen[data-chosen='1']", timeout=15_000
            )
            side = page.inner_text(f"#main #combat .side[data-side={att}]")
            assert "has chosen a Combat Card" in side and name not in side, side
            assert not page.locator("#main #combat .cardtext").count()
        pages[dfn].locator("#main #combat").scroll_into_view_if_needed()
        picture(pages[dfn], path=str(SHOTS / "great-sea-combat-choice-tablet.png"))
        # The defender still chooses freely; then both are revealed on every screen.
        assert pages[dfn].locator("#main button.combat-card").count() >= 2
        pages[dfn].locator("#main button.combat-card").last.click()
        deadline = time.monotonic() + 30
        for page in (table, *pages.values()):
            page.wait_for_function(
                f"(() => {{ const el = document.querySelector('#main #combat .side[data-side={att}] .chosen')"
                " || document.querySelector('#main #scores'); return !el || /played/.test(el.textContent) ||"
                " !document.querySelector('#main #combat'); })()",
                timeout=max(1, deadline - time.monotonic()) * 1000,
            )
        log = GameLog(tmp_path / "game.db")
        try:
            events = [json.loads(x) for x in log.export_lines(log.games()[-1].game_id)]
        finally:
            log.close()
        revealed = [e for e in events if e.get("type") == "combat_revealed"]
        assert revealed and set(revealed[-1]["cards"]) == {att, dfn}


@pytest.mark.wholegame
@pytest.mark.timeout(1500)
def test_two_players_tap_a_whole_great_sea_game(browser, broker, display, tmp_path) -> None:
    """Issue 21, "Done when": a whole 2-player game played to its end through the tablets."""
    r = tap_to_the_end(browser, broker, display, tmp_path, ["red", "blue"], seed=2, timeout=1300)
    assert r["seq"] > 100, r


@pytest.mark.wholegame
@pytest.mark.timeout(2400)
def test_four_players_tap_a_whole_great_sea_game(browser, broker, display, tmp_path) -> None:
    """Issue 21, "Done when": a whole 4-player game played to its end through the tablets."""
    r = tap_to_the_end(
        browser, broker, display, tmp_path, ["red", "blue", "green", "yellow"], seed=1, timeout=2200
    )
    assert r["seq"] > 100, r
