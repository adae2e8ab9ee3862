"""Driving a real controller core into a battle with seeded random legal actions."""

from __future__ import annotations

import random

from controller.battles import BattleDriver
from controller.core import TableCore


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
