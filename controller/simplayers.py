"""Simulated players: pick a seeded random legal action for whoever may act, and submit it.

Owns only the choice. The pick is a function of (seed, the game's seed, state seq), so a simulated game
killed and resumed from the log carries on exactly as it would have. Battles are not chosen here:
the battle driver referees them from the (simulated) tower and camera.
"""

from __future__ import annotations

import logging
import random
import threading
import time
from dataclasses import dataclass
from typing import Any

from controller.core import Refusal, TableCore


def game_over(engine: Any, state: Any) -> bool:
    """The engine's own verdict (`is_over`), else the public view's `game_over` / phase."""
    if hasattr(engine, "is_over"):
        return bool(engine.is_over(state))
    view = engine.public_view(state)
    return bool(view.get("game_over")) or view.get("phase") in ("over", "game_over", "ended", "finished")


def active_player(state: Any) -> str | None:
    if hasattr(state, "active"):
        return state.active
    data = getattr(state, "data", None)
    return data.get("active") if isinstance(data, dict) else None


@dataclass
class SimLimits:
    max_turns: int = 0  # 0: no limit; a turn ends when the engine's active player changes
    duration: float = 0.0  # seconds; 0: no limit
    until_game_over: bool = False


class SimPlayers:
    def __init__(
        self,
        core: TableCore,
        seed: int,
        delay: float = 0.05,
        limits: SimLimits | None = None,
        table: Any = None,
        seats: list[str] | None = None,
        action_delay: float | None = None,
    ) -> None:
        self.core, self.seed, self.delay = core, seed, delay
        self.action_delay = delay if action_delay is None else action_delay  # after a bot's game action
        self.seats = seats  # the seats the built-in player takes; None: every seat (the demo)
        self.limits = limits or SimLimits()
        self.table = (
            table  # SimTable: referees battles through the session (players then never send outcomes)
        )
        self.turns = 0
        self.actions = 0
        self.waiting = 0.0  # when the battle last moved on (monotonic)
        self.stuck_after = 30.0
        self.done = threading.Event()
        self.reason = ""

    def choose(self) -> tuple[str, dict[str, Any]] | None:
        state, engine = self.core.state, self.core.engine
        rng = random.Random(f"{self.seed}:{self.core.game_seed}:{self.core.seq}")
        active = active_player(state)
        order = [active] if active in self.core.players else []
        order += [p for p in self.core.players if p != active]
        for player in order:
            if self.seats is not None and player not in self.seats:
                continue  # a person's seat: only its tablet acts for it
            actions = engine.legal_actions(state, player)
            if self.table is not None:
                # Battles go through the tower, the camera and the session, never a ready-made outcome.
                actions = [a for a in actions if a.get("type") != "resolve_battle"]
            actions = [a for a in actions if a.get("type") != "undo"]
            if actions:
                return player, rng.choice(actions)
        return None

    def step(self) -> bool:
        """One action; False when the simulation should stop."""
        with self.core.lock:
            if game_over(self.core.engine, self.core.state):
                self.reason = "game over"
                return False
            if self.table is not None and self.table.driver.busy():
                now = time.monotonic()
                if self.table.step() or not self.waiting:
                    self.waiting = now
                elif (
                    self.seats is None and now - self.waiting > self.stuck_after
                ):  # people may take their time
                    self.reason = f"the battle waited {self.stuck_after:g} s: " + "; ".join(
                        p.text for p in self.table.driver.session.prompts()
                    )
                    return False
                return True
            pick = self.choose()
            if pick is None and self.seats is not None:
                return True  # the bots wait for the people
            if pick is None:
                self.reason = "no player has a legal action"
                return False
            before = active_player(self.core.state)
            player, action = pick
            try:
                self.core.submit(player, action, self.core.seq)
            except Refusal as exc:  # the engine listed it, so this is an engine bug: say so and stop
                self.reason = f"the engine refused its own legal action {action} for {player}: {exc}"
                return False
            self.actions += 1
            if active_player(self.core.state) != before:
                self.turns += 1
        if self.limits.max_turns and self.turns >= self.limits.max_turns:
            self.reason = f"{self.turns} turns played"
            return False
        return True

    def run(self, stop: threading.Event) -> None:
        start = time.monotonic()
        try:
            while not stop.is_set():
                if self.limits.duration and time.monotonic() - start >= self.limits.duration:
                    self.reason = f"{self.limits.duration:g} s elapsed"
                    break
                before = self.actions
                if not self.step():
                    break
                pause = self.action_delay if self.actions != before else self.delay
                if pause:
                    stop.wait(pause)
        except Exception as exc:  # noqa: BLE001 - say what broke the simulation, then stop it
            logging.getLogger(__name__).exception("simulated players stopped")
            self.reason = f"the simulation broke: {type(exc).__name__}: {exc}"
        finally:
            self.done.set()
