"""The end-of-game tie-break at the table: the driver runs it from the engine's state like any battle (the
tower counts, the camera reads, the session resolves, the engine names the winner), with every tied player a
side. Rulebook: "In case of a tie, the tied players count up all the Cannons ... All at once, drop all those
cubes in the tower. ... The most Battle strength wins the game. If still tied, repeat the battle. A tied
battle like this may involve more than 2 players at the same time."
"""

from __future__ import annotations

import json
from typing import Any

from controller.battles import BattleDriver
from controller.core import TableCore
from controller.gamelog import GameLog
from controller.words import score_table


def _tied(tmp_path: Any, sensors: dict[str, bool] | None = None) -> tuple[GameLog, TableCore, BattleDriver]:
    """A 3-player game whose three players tie at its end (every achievement each), its tie-break begun
    (`sensors`: as BattleDriver takes them; all live by default)."""
    log = GameLog(tmp_path / "t.db")
    core = TableCore(log, "t")
    core.open_game(["red", "blue", "green"], seed=2)
    driver = BattleDriver(core, sensors=sensors)
    driver.sync()
    for c in core.state.data["players"]:
        for a in ("explorer", "settler", "builder", "capitalist"):
            core.state.data["achievements"][a].append(c)
    for _ in range(3):
        core.submit(core.state.data["active"], {"type": "end_turn", "pirate": False, "sleeve": []})
    return log, core, driver


def _drop(driver: BattleDriver, cubes: list[tuple[str, str]]) -> None:
    counts: dict[str, int] = {}
    for color, _ in cubes:
        counts[color] = counts.get(color, 0) + 1
    driver.input("tower", {"counts": counts})
    reading = {"status": "ok", "cubes": [{"color": c, "zone": z, "confidence": 0.99} for c, z in cubes]}
    driver.input("camera", {"reading": reading, "settled": True})


def test_the_tie_break_is_dropped_read_and_resolved_like_any_battle(tmp_path):
    log, core, driver = _tied(tmp_path)
    assert core.state.data["phase"] == "tiebreak"
    session = driver.session
    assert session is not None and session.setup.kind == "tiebreak"
    tied = [side.name for side in session.setup.sides()]
    assert sorted(tied) == ["blue", "green", "red"] and sorted(driver.fighters()) == sorted(tied)
    assert session.owed is not None and session.owed.dropped == {c: 1 for c in tied}
    a, b, c = tied
    _drop(driver, [(a, "str-2"), (b, "str-1a"), (c, "str-2")])
    # still tied between a and c: the engine starts the next round and the driver follows it
    assert core.state.data["phase"] == "tiebreak"
    assert driver.session is not None and driver.session.setup.battle_id == "tiebreak-2"
    assert [s.name for s in driver.session.setup.sides()] == [a, c]
    words = score_table(core.engine.public_view(core.state))
    assert words is not None and words["tied"] == [a, c] and "still tied" in words["verdict"]
    _drop(driver, [(a, "str-1a"), (c, "str-2")])
    assert core.state.data["phase"] == "over" and core.state.data["scores"]["winner"] == c
    words = score_table(core.engine.public_view(core.state))
    assert words is not None and words["winner"] == c and "tie-break" in words["verdict"]
    assert driver.finished is not None and driver.finished["view"]["result"]["winner_name"] == c
    log.close()


def test_without_tower_or_camera_the_tied_players_enter_the_tie_break_by_hand(tmp_path):
    # "All at once, drop all those cubes in the tower": with no sensor, one tied player taps where the cubes
    # landed and another tied player confirms it, as in any battle entered by hand.
    log, core, driver = _tied(tmp_path, sensors={"tower": False, "camera": False})
    session = driver.session
    assert session is not None and session.setup.kind == "tiebreak"
    a, b, c = [side.name for side in session.setup.sides()]
    enter = next(p for p in core.prompts.values() if p.kind == "enter_drop" and p.player == b)
    cubes = [{"color": a, "zone": "str-1a"}, {"color": b, "zone": "str-2"}, {"color": c, "zone": "miss"}]
    r = core.handle_command(
        b, json.dumps({"request_id": "e", "prompt_id": enter.id, "answer": {"cubes": cubes}})
    )
    assert r["accepted"], r
    confirm = next(p for p in core.prompts.values() if p.kind == "confirm_drop" and p.player == c)
    r = core.handle_command(
        c, json.dumps({"request_id": "c", "prompt_id": confirm.id, "answer": {"confirm": True}})
    )
    assert r["accepted"], r
    assert core.state.data["phase"] == "over" and core.state.data["scores"]["winner"] == b
    assert core.state.data["scores"]["tie_break"] == [
        {"battle_id": "tiebreak-1", "strength": {a: 1, b: 2, c: 0}}
    ]
    log.close()
