"""SIGKILL the controller 20 times at random points of a simulated game: nothing accepted is lost.

A real controller process plays a seeded simulated game, publishing to a real Mosquitto; a subscriber
notes the highest seq ever published. After each kill the log must hold at least that seq (the log
is written before publishing), the state rebuilt from snapshot + events must equal a full replay of
the log, and re-applying every logged command from a new game must give the same events (chance is
recorded, nothing is re-rolled differently). The game then resumes and finishes.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

from controller.core import TableCore
from controller.gamelog import GameLog
from tests.controller import toy_engine as toy
from tests.support.broker import Client, running_mosquitto

REPO = Path(__file__).resolve().parents[2]
PLAYERS = ["red", "blue", "green"]


def _config(broker, db: Path) -> str:
    return json.dumps({
        "table": {"id": "crash", "database": str(db), "engine": "tests.controller.toy_engine",
                  "players": PLAYERS, "snapshot_every": 5, "seed": 3},
        "mqtt": {"host": broker.host, "port": broker.port, "username": "controller",
                 "password": broker.users["controller"], "protocol": "5"},
        "simulate": {"delay": 0.01, "seed": 11},
    })


def test_sigkill_twenty_times_loses_nothing(tmp_path, monkeypatch):
    monkeypatch.setenv("TOY_GOAL", "150")
    monkeypatch.setattr(toy, "GOAL", 150)
    db = tmp_path / "crash.db"
    rng = random.Random(2026)
    with running_mosquitto() as broker:
        watcher = Client(broker, "display")
        assert watcher.wait_connected()
        watcher.subscribe("table/crash/state")
        cfg = _config(broker, db)
        env = {**os.environ, "PYTHONPATH": str(REPO)}
        published_max = 0
        kills = 0
        finished = False
        for _round in range(40):
            proc = subprocess.Popen([sys.executable, "-m", "controller.service", "--config-json", cfg,
                                     "--simulate", "--until-game-over"], cwd=REPO, env=env,
                                    stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            # Wait until it plays (a fresh state on the broker), then kill at a random moment.
            floor = published_max
            try:
                first = watcher.wait_for(lambda m, floor=floor: json.loads(m.payload)["seq"] > floor, timeout=20)
                published_max = max(published_max, json.loads(first.payload)["seq"])
            except TimeoutError:
                pass
            time.sleep(rng.uniform(0.0, 0.15))
            alive = proc.poll() is None
            if alive and kills < 20:
                proc.send_signal(signal.SIGKILL)
                kills += 1
            proc.wait(timeout=10)
            err = proc.stderr.read().decode()
            proc.stderr.close()
            if not alive:
                assert proc.returncode == 0, err
            for m in watcher.collect(0.2):
                published_max = max(published_max, json.loads(m.payload)["seq"])

            log = GameLog(db)
            (game,) = log.games("crash")
            assert game.seq >= published_max, f"published seq {published_max} but the log ends at {game.seq}"
            resumed, n = TableCore(log, "crash", engine=toy).rebuild(game.game_id)
            events = log.events(game.game_id)
            assert n == len(events)
            initial = toy.new_game(PLAYERS, 3)
            assert resumed == toy.replay(events, initial)
            # every logged command, re-applied from the start, yields exactly the logged events
            state, again = initial, []
            for command in log.commands(game.game_id):
                state, evs = toy.apply(state, command)
                again += evs
            assert again == events and state == resumed
            finished = game.finished is not None
            log.close()
            if finished:
                break
        watcher.close()
    assert kills >= 20 and finished
