"""Whole games played by tapping, in real Chromium (issue 13, "Done when"): `smart-table run` as a group
starts it (with `--simulate`, with no hardware at all, with two `--bots` seats) against a real Mosquitto, a
tablet per person's seat and the table view, and tests/support/tapping.py taps only what a person would tap
(buttons, prompts, the drawn ocean grid and battle board) until the score table is on every screen. Every
rendered text of the tablets is scanned for engine ids along the way.

The game with no hardware (battles entered by hand, the other side confirms) runs in the default suite; the
other two take minutes each on the shared machine and are marked `wholegame` (`pytest -m wholegame`).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path
from typing import Any

import pytest

from controller.testing import Broker, table_toml
from rules import api
from tests.controller.web.conftest import REPO, TABLE, open_table
from tests.controller.web.test_game_words import ENGINE_ID, SCAN_JS
from tests.support.screenshots import picture
from tests.support.tapping import Table

SHOTS = REPO / "docs" / "screenshots"


@contextmanager
def smart_table_run(
    broker: Broker,
    tmp: Path,
    players: list[str],
    seed: int,
    simulate: bool,
    bots: list[str] | None = None,
    table_extra: dict[str, Any] | None = None,
    game: str = "dead-reckoning",
) -> Iterator[Path]:
    """`python -m smart_table run [--simulate] [--bots ...]` (the README's command) on the test broker;
    yields the game database (a game already in it is resumed). The display is the test's own server (same
    static files); bots act without the person's-pace delay so the test does not wait 1.5 s per bot action."""
    db = tmp / "game.db"
    toml = tmp / "table.toml"
    toml.write_text(
        table_toml(
            {
                "table": {
                    "id": TABLE,
                    "players": players,
                    "seed": seed,
                    "database": str(db),
                    "bot_delay": 0.0,
                    **(table_extra or {}),
                    "game": game,
                },
                "mqtt": {"embedded": False, **broker.mqtt_login(), "ws_port": broker.ws_port},
                "display": {"enabled": False},
                "simulate": {"seed": seed, "delay": 0.0},
            }
        )
    )
    args = [sys.executable, "-m", "smart_table", "run", "--config", str(toml)]
    if simulate:
        args.append("--simulate")
    if bots:
        args += ["--bots", ",".join(bots)]
    env = {**os.environ, "PYTHONPATH": str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    log = (tmp / "run.log").open("w")
    proc = subprocess.Popen(
        args, cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True
    )
    try:
        yield db
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=5)
        log.close()


def state_events(db: Path) -> list[dict[str, Any]]:
    """The game's log as `smart-table games export` writes it."""
    from controller.gamelog import GameLog

    log = GameLog(db)
    try:
        game = log.games()[-1]
        return [json.loads(line) for line in log.export_lines(game.game_id)]
    finally:
        log.close()


def refereed_cubes(db: Path) -> list[dict[str, Any]]:
    """Every cube of every reading in the log's refereed battle records, as they reached the engine."""
    return [
        c
        for e in state_events(db)
        if e.get("type") == "resolve_battle"
        for step in e["action"]["record"]["steps"]
        for r in step.get("readings", [])
        for c in (r.get("reading") or {}).get("cubes", [])
    ]


def final_state(db: Path) -> Any:
    """The game as its log has it (read after the run, to check the pages showed the engine's scores)."""
    return api.replay(state_events(db))


class Scanner:
    """Every rendered text of every page, scanned for engine ids (the existing whole-game scan's pattern)."""

    def __init__(self) -> None:
        self.texts = 0
        self.found: dict[str, set[str]] = {"outside": set(), "battle": set()}

    def __call__(self, who: str, page: Any) -> None:
        for text, in_battle in page.evaluate(SCAN_JS):
            self.texts += 1
            for m in ENGINE_ID.finditer(text):
                self.found["battle" if in_battle else "outside"].add(
                    f"{who}: {m.group(0)!r} in {text[:80]!r}"
                )


def play_whole_game(
    browser: Any,
    broker: Broker,
    display: Any,
    tmp_path: Path,
    *,
    players: list[str],
    seed: int,
    simulate: bool,
    bots: list[str] | None = None,
    shot: str,
    timeout: float,
    table_extra: dict[str, Any] | None = None,
) -> dict[str, Any]:
    people = [p for p in players if p not in (bots or [])]
    scanner = Scanner()
    with (
        smart_table_run(broker, tmp_path, players, seed, simulate, bots, table_extra) as db,
        ExitStack() as stack,
    ):
        table, seats = open_table(stack, browser, display, broker, people)
        tapper = Table(table, seats, seed=seed, scan=scanner)
        seconds = tapper.play(timeout=timeout)
        tapper.scan_all()
        # The score table on the table view and every tablet, the winner named, every number the engine's.
        state = final_state(db)
        assert api.is_over(state)
        scores = api.public_view(state)["scores"]
        for page in (table, *seats.values()):
            page.wait_for_selector("#main #scores", timeout=15_000)
        table.locator("#main #scores").scroll_into_view_if_needed()
        picture(table, path=str(SHOTS / shot), full_page=True)
        text = table.inner_text("#main #scores")
        for colour in players:
            total = scores["totals"][colour] if "totals" in scores else None
            if total is not None:
                assert str(total) in text, (colour, total, text)
    t = tapper.tally
    waits = sorted(t.waits)
    readings = refereed_cubes(db)
    result = {
        "taps": t.taps,
        "seconds": round(seconds, 1),
        "per_tap_s": round(seconds / max(1, t.taps), 3),
        "wait_median_ms": round(1000 * waits[len(waits) // 2]) if waits else None,
        "wait_p90_ms": round(1000 * waits[int(len(waits) * 0.9)]) if waits else None,
        "kinds": dict(t.kinds.most_common()),
        "two_zone_cubes": t.two_zone_cubes,
        "two_zone_readings": sum(1 for c in readings if len(c.get("zones") or []) > 1),
        "refused": t.refused[:5],
        "missed": t.missed[:5],
        "missed_taps": len(t.missed),
        "totals": scores.get("totals"),
        "winner": scores.get("winner"),
        "texts_scanned": scanner.texts,
        "spent_s": {k: round(v, 1) for k, v in sorted(t.spent.items(), key=lambda kv: -kv[1])},
        "seq": state.seq,
    }
    print("WHOLE GAME", json.dumps(result))
    assert not scanner.found["outside"], sorted(scanner.found["outside"])[:20]
    assert not scanner.found["battle"], sorted(scanner.found["battle"])[:20]
    return result


@pytest.mark.timeout(600)
def test_two_players_tap_the_last_turns_of_a_game_with_no_hardware(
    browser, broker, display, tmp_path
) -> None:
    """The default suite's game to the score table (the whole one below is `wholegame`): a seeded 2-player
    game logged up to the first turn after its end was triggered, resumed by `smart-table run` with no
    hardware, its final turns tapped to the score table on every screen, the winner and every total the
    engine's.
    Its beginning and middle are tapped by test_by_hand_table.py (setup, a board turned up, a battle by
    hand)."""
    from tests.support.game import log_near_the_end

    logged = log_near_the_end(tmp_path / "game.db", TABLE, ["red", "blue"], seed=12)
    r = play_whole_game(
        browser,
        broker,
        display,
        tmp_path,
        players=["red", "blue"],
        seed=12,
        simulate=False,
        shot="whole-game-by-hand-scores-tablet.png",
        timeout=420,
    )
    assert r["seq"] > logged.seq and r["winner"], r


@pytest.mark.wholegame
@pytest.mark.timeout(900)
def test_two_players_tap_a_whole_game_with_no_hardware(browser, broker, display, tmp_path) -> None:
    """Issue 13: 'a script that taps only what a person would tap plays a whole 2-player game to its score
    table ... with no hardware at all (battles entered by hand)'."""
    r = play_whole_game(
        browser,
        broker,
        display,
        tmp_path,
        players=["red", "blue"],
        seed=12,
        simulate=False,
        shot="whole-game-by-hand-scores-tablet.png",
        timeout=780,
    )
    assert r["kinds"].get("enter_drop", 0) >= 1 and r["kinds"].get("confirm_drop", 0) >= 1, r
    # Cubes tapped as touching two zones reached the refereed record with both.
    assert r["two_zone_cubes"] >= 1 and r["two_zone_readings"] >= 1, r


@pytest.mark.wholegame
@pytest.mark.timeout(900)
def test_two_players_tap_a_whole_game_with_simulated_hardware(browser, broker, display, tmp_path) -> None:
    """Issue 13: the same with `--simulate`: the simulated tower and camera read every drop."""
    r = play_whole_game(
        browser,
        broker,
        display,
        tmp_path,
        players=["red", "blue"],
        seed=4,
        simulate=True,
        shot="whole-game-simulated-scores-tablet.png",
        timeout=780,
    )
    assert r["kinds"].get("enter_drop", 0) == 0, r


@pytest.mark.wholegame
@pytest.mark.timeout(900)
def test_four_players_two_of_them_bots_tap_a_whole_game(browser, broker, display, tmp_path) -> None:
    """Issue 13: 'a 4-player game with two --bots seats'."""
    play_whole_game(
        browser,
        broker,
        display,
        tmp_path,
        players=["red", "blue", "green", "yellow"],
        seed=5,
        simulate=True,
        bots=["green", "yellow"],
        shot="whole-game-bots-scores-tablet.png",
        timeout=780,
    )


def test_a_cube_touching_two_zones_is_entered_in_both(tmp_path: Path) -> None:
    """Issue 13: 'a cube touching two zones can be placed in both' (rulebook: "If any part of a cube is
    touching a zone"). The tablet's entry carries `zones` beside `zone` (its first); the manual entry passes
    it to the confirmation and into the reading the session referees; a malformed list is refused."""
    from tests.controller.test_manual_battle import answer, landed, prompts, to_battle

    core, driver = to_battle(tmp_path / "z.db", 2, {"tower": False, "camera": False})
    setup = driver.session.setup
    attacker, defender = setup.attacker.name, setup.defender.name
    enter = prompts(core, "enter_drop", attacker)[0]
    cubes = landed(driver)
    bad = [{**cubes[0], "zones": ["miss", "str-2"]}, *cubes[1:]]  # the first of zones must be its zone
    r = answer(core, attacker, enter, {"cubes": bad})
    assert (r["accepted"], r["kind"]) == (False, "invalid") and r["reason"].startswith("Cube 1 touches"), r
    bad = [{**cubes[0], "zones": ["str-2", "no-such-zone"]}, *cubes[1:]]
    assert not answer(core, attacker, enter, {"cubes": bad})["accepted"]
    both = [{**cubes[0], "zones": ["str-2", "dmg-1"]}, *cubes[1:]]
    assert answer(core, attacker, enter, {"cubes": both})["accepted"]
    confirm = prompts(core, "confirm_drop", defender)[0]
    assert confirm.data["entered"][0]["zones"] == ["str-2", "dmg-1"]
    assert answer(core, defender, confirm, {"confirm": True})["accepted"]
    fin = driver.finished
    session = driver.session if driver.session is not None else (fin or {})["session"]
    readings = [
        c
        for step in session.record["steps"]
        for r in step.get("readings", [])
        for c in (r.get("reading") or {}).get("cubes", [])
    ] + [c for c in (session._reading or {}).get("cubes", [])]
    assert any(c.get("zones") == ["str-2", "dmg-1"] for c in readings), readings
