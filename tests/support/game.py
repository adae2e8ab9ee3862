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
