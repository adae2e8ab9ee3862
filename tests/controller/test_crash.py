"""SIGKILL the controller 20 times at random points of a simulated game: nothing accepted is lost.

A real controller process plays a seeded simulated game of the real rules engine (battles refereed
through the battle session, its inputs logged), publishing to a real Mosquitto; a subscriber notes
the highest seq ever published. After each kill the log must hold at least that seq (the log is
written before publishing) and the state rebuilt from snapshot + events must equal a full replay
of the log. Kills aim at a battle in progress: every second one until three have landed in one (an aimed
kill can land just after the battle ends, when the machine is slow to pass on the state), then every
fourth. At the end the game finishes, and every logged command re-applied from a new game yields exactly
the logged events.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
from pathlib import Path

import rules.api as api
from controller.core import TableCore
from controller.gamelog import GameLog
from controller.testing import Client, running_mosquitto

REPO = Path(__file__).resolve().parents[2]
PLAYERS = ["red", "blue", "green"]  # three seats: a game long enough for twenty lives under load


def norm(state) -> dict:
    """The state as JSON sees it (the engine may hold tuples where a loaded snapshot holds lists)."""
    return json.loads(json.dumps(api.state_to_json(state), sort_keys=True))


def _config(broker, db: Path, delay: float) -> str:
    return json.dumps(
        {
            "table": {
                "id": "crash",
                "database": str(db),
                "players": PLAYERS,
                "snapshot_every": 25,
                "seed": 3,
                "demo": True,
            },
            "mqtt": {
                "host": broker.host,
                "port": broker.port,
                "username": "controller",
                "password": broker.users["controller"],
                "protocol": "5",
            },
            "simulate": {"delay": delay, "seed": 11, "camera": "model"},
            "bridge": {"enabled": False},
            "vision": {"enabled": False},
        }
    )


def test_sigkill_twenty_times_loses_nothing(tmp_path):
    db = tmp_path / "crash.db"
    rng = random.Random(2026)
    with running_mosquitto(tables=("crash",)) as broker:
        watcher = Client(broker, "display")
        assert watcher.wait_connected()
        watcher.subscribe("table/crash/state")
        env = {**os.environ, "PYTHONPATH": str(REPO)}
        published_max, kills, mid_battle, finished = 0, 0, 0, False
        for _round in range(60):
            # 0.03 s per action: the game must outlast twenty lives even when every fourth waits for a battle.
            cfg = _config(
                broker, db, 0.03 if kills < 20 else 0.0
            )  # after the last kill: play on at full speed
            proc = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "controller.service",
                    "--config-json",
                    cfg,
                    "--simulate",
                    "--until-game-over",
                ],
                cwd=REPO,
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
            )
            aim_battle = kills % 2 == 1 if mid_battle < 3 else kills % 4 == 3
            floor = published_max
            # Kill once it has published something new (and, every fourth time, while a battle is on).
            try:
                msg = watcher.wait_for(
                    lambda m, floor=floor, aim=aim_battle: (
                        (p := json.loads(m.payload))["seq"] > floor and (not aim or p["battle"] is not None)
                    ),
                    timeout=30,
                )
                published_max = max(published_max, json.loads(msg.payload)["seq"])
                if not aim_battle:
                    watcher.collect(rng.uniform(0.0, 0.1))
            except TimeoutError:
                pass
            if proc.poll() is None and kills < 20:
                proc.send_signal(signal.SIGKILL)
                kills += 1
            proc.wait(timeout=60)
            err = proc.stderr.read().decode()
            proc.stderr.close()
            assert proc.returncode in (0, -signal.SIGKILL), err
            for m in watcher.collect(0.1):
                published_max = max(published_max, json.loads(m.payload)["seq"])

            log = GameLog(db)
            (game,) = log.games("crash")
            assert game.seq >= published_max, f"published seq {published_max} but the log ends at {game.seq}"
            resumed, n = TableCore(log, "crash").rebuild(game.game_id)
            events = log.events(game.game_id)
            assert n == len(events) and norm(resumed) == norm(api.replay(events))
            if proc.returncode != 0 and api.public_view(resumed)["battle"] is not None:
                mid_battle += 1
            finished = game.finished is not None
            log.close()
            if finished:
                break
        watcher.close()
    assert kills == 20 and finished and mid_battle >= 3, (kills, finished, mid_battle)
    log = GameLog(db)
    (game,) = log.games("crash")
    events = log.events(game.game_id)
    state, again = api.new_game_with_events(PLAYERS, 3)
    for command in log.commands(game.game_id):
        state, evs = api.apply(state, command)
        again += evs
    assert json.loads(json.dumps(again)) == events and norm(state) == norm(api.replay(events))
    assert api.public_view(state)["phase"] == "over"
    log.close()
