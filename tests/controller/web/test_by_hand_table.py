"""A person's path at a table whose chance is observed (physical decks and Ocean boards) with no camera and no
tower live: `smart-table run` with `observed_chance = true`, tablets in real Chromium, and the tapping script
of tests/support/tapping.py tapping only what a person would, from setup past the first Ocean board turned up
mid-game and a battle entered by hand.

"Every sensor can fail: the table always lets people go on by hand, and says which sensors are live."
Rulebook (Dead Reckoning, "Exploring"): "When a Ship moves onto a square with a face-down Ocean board, the
Ship must stop and the board is revealed."
"""

from __future__ import annotations

import json
import sqlite3
from contextlib import ExitStack
from pathlib import Path
from typing import Any

import pytest

from tests.controller.web.conftest import open_table
from tests.controller.web.test_whole_game import Scanner, refereed_cubes, smart_table_run
from tests.support.tapping import Table


def logged_commands(db: Path) -> list[dict[str, Any]]:
    """The accepted commands in order, read from the controller's log as it runs (read-only)."""
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=5)
    try:
        return [json.loads(r[0]) for r in con.execute("SELECT command FROM commands ORDER BY rowid")]
    except sqlite3.OperationalError:  # the controller has not created its tables yet
        return []
    finally:
        con.close()


SEED = 7  # the table's seed and the tapping person's
PLAY_S = 420  # deadline for the tapping


class Progress:
    """Whether the game got past a board turned up on a tablet after setup and a battle entered by hand
    (looked up in the log only when the tapping changed something)."""

    def __init__(self, db: Path) -> None:
        self.db, self.seen_taps, self.done = db, -1, False
        self.commands: list[dict[str, Any]] = []

    def __call__(self, table: Table) -> bool:
        if self.done or table.tally.taps == self.seen_taps:
            return self.done
        self.seen_taps = table.tally.taps
        self.commands = logged_commands(self.db)
        types = [c.get("action", {}).get("type") for c in self.commands]
        if "choose_first_player" not in types:
            return False
        after_setup = types[types.index("choose_first_player") :]
        battle = table.tally.kinds["confirm_drop"] >= 1 and "resolve_battle" in after_setup
        self.done = "reveal_board" in after_setup and battle
        return self.done


@pytest.mark.timeout(600)
def test_observed_chance_no_camera_no_tower_played_by_hand_past_a_board_and_a_battle(
    browser, broker, display, tmp_path
) -> None:
    players = ["red", "blue"]
    scanner = Scanner()
    with (
        smart_table_run(
            broker, tmp_path, players, seed=SEED, simulate=False, table_extra={"observed_chance": True}
        ) as db,
        ExitStack() as stack,
    ):
        table, seats = open_table(stack, browser, display, broker, players)
        # The table view says the ocean camera, the tower and the battle-board camera are entered by hand.
        line = table.wait_for_selector("#main p.table-sensors", timeout=15_000)
        text = line.inner_text()
        for name in ("Ocean camera", "Battle tower", "Battle-board camera"):
            assert f"{name}: by hand on the tablets" in text, text
        # Setup waits for the first Ocean board: both tablets ask which board was turned up, in the game's
        # words, offering the boards that can be there.
        for page in seats.values():
            box = page.wait_for_selector("#main section.prompt[data-kind=reveal_board]", timeout=15_000)
            heading = box.inner_text()
            assert "Ocean board at row 1" in heading and "was turned up" in heading, heading
        progress = Progress(db)
        # Half the cubes tapped as lying on a line ("If any part of a cube is touching a zone"): entered in
        # both zones, they reach the refereed record with both. People eager to fight: an attack offered is
        # nearly always taken.
        tapper = Table(
            table,
            seats,
            seed=SEED,
            scan=scanner,
            two_zone_chance=0.5,
            weights={"attack": 60.0, "attack_merchant": 60.0, "attack_building": 60.0},
        )
        seconds = tapper.play(timeout=PLAY_S, until=progress)
        tapper.scan_all()
    commands = progress.commands
    by = {c["action"]["type"]: c.get("player") for c in commands}
    first = [c["action"]["type"] for c in commands].index("choose_first_player")
    mid = [c for c in commands[first:] if c["action"]["type"] == "reveal_board"]
    assert mid and mid[0].get("player") in players, mid  # a board turned up mid-game, from a tablet
    assert by["draw_sailors"] in players and by["choose_first_player"] in players, by
    # Each player tapped the Sailor cards that came up from their own deck: the engine took those.
    assert tapper.tally.kinds["pick a Sailor card"] >= 8, dict(tapper.tally.kinds)
    t = tapper.tally
    assert t.kinds["enter_drop"] >= 1 and t.kinds["confirm_drop"] >= 1, dict(t.kinds)
    readings = refereed_cubes(db)
    assert t.two_zone_cubes >= 1 and any(len(c.get("zones") or []) > 1 for c in readings), readings
    print(
        "BY HAND",
        json.dumps({"taps": t.taps, "seconds": round(seconds, 1), "kinds": dict(t.kinds.most_common())}),
    )
    assert not scanner.found["outside"], sorted(scanner.found["outside"])[:20]
    assert not scanner.found["battle"], sorted(scanner.found["battle"])[:20]
