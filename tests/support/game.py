"""Driving a real controller core into a battle with seeded random legal actions."""

from __future__ import annotations

import random
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from controller.battles import BattleDriver
from controller.core import TableCore
from controller.gamelog import GameLog
from controller.mqtt import MqttLink


def play_until_battle(core: TableCore, driver: BattleDriver, seed: int, limit: int = 400) -> None:
    """Seeded random legal actions (never a battle's result) until the engine starts a battle."""
    rng = random.Random(seed)
    for _ in range(limit):
        if driver.busy():
            return
        state = core.state
        for player in [state.active, *[p for p in core.players if p != state.active]]:
            actions = [a for a in core.engine.legal_actions(state, player) if a["type"] != "resolve_battle"]
            if actions:
                core.submit(player, rng.choice(actions), core.seq)
                break
    raise AssertionError(f"no battle within {limit} actions")


@contextmanager
def table_in_battle(
    broker: Any, db: Path, table_id: str, seed: int = 5
) -> Iterator[tuple[TableCore, BattleDriver]]:
    """A 2-player controller core published on `broker` (a controller.testing.Broker), played into a
    battle."""
    log = GameLog(db)
    link = MqttLink(broker.host, broker.port, "controller", broker.users["controller"], table_id=table_id)
    core = TableCore(log, table_id=table_id, publisher=link)
    core.open_game(["red", "blue"], seed)
    driver = BattleDriver(core)
    link.start(core)
    try:
        play_until_battle(core, driver, seed=seed)
        yield core, driver
    finally:
        link.stop()
        log.close()


def quick_log(db: Path) -> GameLog:
    """A game log for setting a test's table up: written without an fsync per command (the log's durability
    is tested on its own, tests/controller/test_crash.py); the controller under test opens it as usual."""
    log = GameLog(db)
    log.db.execute("PRAGMA synchronous=OFF")
    return log


def seeded_commands(players: list[str], seed: int, turn_actions: int = 8) -> list[dict[str, Any]]:
    """A whole seeded game's commands, the engine drawing its own chance (the engine's legal actions picked by
    a seeded RNG, the active player first; the turn ended after `turn_actions` actions)."""
    from rules import api

    state = api.new_game(players, seed)
    rng = random.Random(seed)
    out: list[dict[str, Any]] = []
    in_turn = 0
    while not api.is_over(state):
        order = [state.active, *[p for p in players if p != state.active]] if state.active else players
        for player in [*order, "table"]:
            actions = api.legal_actions(state, player)
            if actions:
                break
        ends = [a for a in actions if a["type"] == "end_turn"]
        others = [a for a in actions if a["type"] != "end_turn"]
        action = rng.choice(ends) if ends and (in_turn >= turn_actions or not others) else rng.choice(others)
        in_turn = 0 if action["type"] == "end_turn" else in_turn + 1
        out.append({"player": player, "action": action})
        state, _ = api.apply(state, {"seq": state.seq, "player": player, "action": action})
    return out


def log_near_the_end(db: Path, table_id: str, players: list[str], seed: int) -> Any:
    """The table's log holding a seeded game up to the first turn after its end was triggered (the final
    turns left to play, as if the tablets had sent the rest): a controller started on `db` resumes it.
    Returns the state logged."""
    from rules import api

    commands = seeded_commands(players, seed)
    state = api.new_game(players, seed)
    cut = None
    for i, c in enumerate(commands):
        d = state.data
        turn = d["turn"] or {}
        if d["final"] and not (d["pending"] or d["battle"] or turn.get("acted") or turn.get("sails_set")):
            cut = i
            break
        state, _ = api.apply(state, {"seq": state.seq, **c})
    assert cut is not None, f"seed {seed}'s game has no turn after its end was triggered"
    log = quick_log(db)
    try:
        core = TableCore(log, table_id=table_id)
        core.open_game(players, seed)
        for c in commands[:cut]:
            core.submit(c["player"], c["action"], core.seq)
        return core.state
    finally:
        log.close()
