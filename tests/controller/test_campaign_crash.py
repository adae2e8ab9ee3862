"""The last three games of a six-game campaign of simulated players, played by `smart-table campaign play`
and SIGKILLed again and again, right after a game was recorded and in the middle of games: nothing is lost.

The first three games are played in memory and brought in with `smart-table campaign import` (the
machine's fsync per accepted command makes six stored games take over a minute under load).

Each game is a whole base game to the engine's own end (4 Achievement markers, the final round, scoring)
with random legal actions through `rules.api`. After every kill the database must be whole: the campaign
records exactly the games its rows say, each recorded result is what its game log replays to, and the
journal has no gap. At the end the campaign equals the same six games played in memory without a kill.
"""

from __future__ import annotations

import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

from controller.campaign import EXPORT_FORMAT, CampaignStore, simulate
from controller.gamelog import GameLog
from rules import api
from rules.dead_reckoning.deep_legends import campaign as cp
from tests.support.cli import smart_table as st

REPO = Path(__file__).resolve().parents[2]
ENV = {**os.environ, "PYTHONPATH": str(REPO)}
SEED = 7


def counts(db: Path) -> tuple[int, int]:
    """(games recorded in the campaign, events in the game logs), read as another process would."""
    con = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=30)
    try:
        rec = con.execute("SELECT COUNT(*) FROM campaign_games WHERE recorded IS NOT NULL").fetchone()[0]
        ev = con.execute("SELECT COUNT(*) FROM events").fetchone()[0]
    except sqlite3.OperationalError:  # the tables are not created yet
        return 0, 0
    finally:
        con.close()
    return rec, ev


def wait_for(proc: subprocess.Popen, test, deadline: float) -> bool:
    """Poll until `test()` holds (True) or the process ends or the deadline passes (False)."""
    while time.monotonic() < deadline and proc.poll() is None:
        if test():
            return True
        time.sleep(0.01)
    return False


def check_whole(db: Path, imported: int) -> int:
    """The invariants after a kill; returns the number of games recorded."""
    store = CampaignStore(db)
    row = store.get("crash")
    games = store.games(row.campaign_id)
    recorded = [g for g in games if g["recorded"] is not None]
    assert len(row.data["games"]) == imported + len(recorded)
    assert [s["version"] for s in store.steps(row.campaign_id)] == list(range(1, row.version + 1))
    log = GameLog(db)
    for g in recorded:
        state = api.replay(log.events(g["game_id"]))
        assert state.phase == "over"
        assert g["result"]["scores"] == {g["seats"][c]: t for c, t in state.data["scores"]["totals"].items()}
        assert row.data["games"][g["number"] - 1]["order"] == g["result"]["order"]
    for g in games:  # one game in the log per campaign game, however often it was resumed
        if g["game_id"]:
            assert len(log.games(f"campaign-{row.campaign_id}-{g['number']}")) == 1
    log.close()
    store.close()
    return len(recorded)


def test_sigkill_between_and_during_campaign_games_loses_nothing(tmp_path):
    db = tmp_path / "table.db"
    specs: list[cp.PlayerSpec] = [
        {"id": "ana", "memoir": "Ana the Bold", "saga_items": []},
        {"id": "ben", "memoir": "Ben", "saga_items": ["1.04"]},
        {"id": "cai", "memoir": "Cai", "saga_items": []},
    ]
    start = cp.new_campaign("crash", specs)
    expected = simulate(start, SEED)
    first3 = simulate(start, SEED, games=3)
    doc = {"format": EXPORT_FORMAT, "name": "crash", "campaign": first3, "saga": {}, "games": [], "steps": []}
    (tmp_path / "first3.json").write_text(json.dumps(doc))
    made = st("campaign", "import", str(tmp_path / "first3.json"), "--db", str(db))
    assert made.returncode == 0, made.stderr
    rng = random.Random(20)
    kills = {"between": 0, "during": 0}
    finished = False
    for attempt in range(40):
        rec0, ev0 = counts(db)
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "smart_table",
                "campaign",
                "play",
                "crash",
                "--db",
                str(db),
                "--seed",
                str(SEED),
            ],
            cwd=REPO,
            env=ENV,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        deadline = time.monotonic() + 60
        if attempt % 3 == 0:  # right after the next game is recorded
            hit = wait_for(proc, lambda r=rec0: counts(db)[0] > r, deadline)
            mode = "between"
        else:  # some hundreds of events into a game
            step = rng.randint(50, 700)
            hit = wait_for(proc, lambda e=ev0, n=step: counts(db)[1] >= e + n, deadline)
            mode = "during"
        if hit and proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
            kills[mode] += 1
        out, err = proc.communicate(timeout=60)
        assert proc.returncode in (0, -signal.SIGKILL), err.decode()
        done = check_whole(db, 3)
        if proc.returncode == 0:
            assert json.loads(out)["finished"] and done == 3
            finished = True
            break
    assert finished and kills["between"] >= 2 and kills["during"] >= 3, kills
    store = CampaignStore(db)
    row = store.get("crash")
    for got, want in zip(row.data["games"], expected["games"], strict=True):
        assert got == want, got["number"]
    assert row.data == expected  # the same campaign as six games played without a kill
    st_ = cp.standings(row.data)
    assert st_["finished"] and st_["winners"]
    assert cp.campaign_score(row.data, "ben")["start_penalty"] == -2
    store.close()
    shown = st("campaign", "show", "crash", "--db", str(db))
    assert shown.returncode == 0 and "campaign won by" in shown.stdout
