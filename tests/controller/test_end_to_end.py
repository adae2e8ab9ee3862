"""End to end with real processes: `smart-table run --simulate` against a real Mosquitto.

The supervisor starts the firmware simulator on a pseudo-terminal, the bridge (ZeroMQ), and the
controller; simulated players play a seeded game to its end, every battle's cubes dropping through
the simulated tower and photographed by the simulated camera (rendered, then read by `vision.battle_board`),
with exploding shots and rail re-drops.
Subscribers with the display's and two players' credentials watch the whole game: the public state
is consistent (one epoch, seq never goes back, the last one equals a replay of the exported log) and
each player receives only their own private tree.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

import pytest

import rules.api as api
from controller.testing import Client, running_mosquitto, table_toml

REPO = Path(__file__).resolve().parents[2]
T = "table/e2e"


@pytest.fixture
def fast_dir(tmp_path):
    """The game log on tmpfs when there is one: this test is about the wiring, not about fsync (the crash
    test keeps its log on disk); a whole game is ~1,700 commits, each an fsync of several ms on disk."""
    if Path("/dev/shm").is_dir():
        d = Path(tempfile.mkdtemp(prefix="st-e2e-", dir="/dev/shm"))
        yield d
        shutil.rmtree(d, ignore_errors=True)
    else:
        yield tmp_path


def test_simulated_game_with_battles_over_real_mosquitto(tmp_path, fast_dir):
    with running_mosquitto(tables=("e2e",)) as broker:
        watchers = {who: Client(broker, who) for who in ("display", "red", "blue")}
        for c in watchers.values():
            assert c.wait_connected()
            c.subscribe(f"{T}/#")
        db = fast_dir / "e2e.db"
        (tmp_path / "table.toml").write_text(
            table_toml(
                {
                    "table": {
                        "id": "e2e",
                        "players": ["red", "blue", "green"],
                        "seed": 5,
                        "database": str(db),
                    },
                    "mqtt": {"embedded": False, **broker.mqtt_login(), "ws_port": broker.ws_port},
                    "display": {"enabled": False},
                    "simulate": {"seed": 3, "delay": 0.0, "rail_chance": 0.25},
                }
            )
        )
        env = {**os.environ, "PYTHONPATH": str(REPO)}
        run = subprocess.run(
            [
                sys.executable,
                "-m",
                "smart_table",
                "run",
                "--demo",
                "--config",
                str(tmp_path / "table.toml"),
                "--until-game-over",
            ],
            cwd=REPO,
            env=env,
            capture_output=True,
            text=True,
            timeout=240,
        )
        assert run.returncode == 0, run.stdout[-3000:] + run.stderr[-2000:]
        out = run.stdout
        assert "[firmware-sim]" in out and "[bridge]" in out and "game " in out and "over at seq" in out
        assert "[camera] simulated camera: control" in out  # the camera is its own process, like vision's
        # The tower's LED ring told the table to drop and to re-drop, through the bridge to the device.
        assert "tower LED: drop" in out and "tower LED: redrop" in out and "not shown" not in out
        export = subprocess.run(
            [sys.executable, "-m", "smart_table", "games", "export", "latest", "--db", str(db)],
            cwd=REPO,
            env=env,
            capture_output=True,
            text=True,
            check=True,
        )
        events = [json.loads(line) for line in export.stdout.splitlines()]
        final = api.replay(events)
        assert api.public_view(final)["phase"] == "over"
        # Everything published has arrived once each watcher has seen the final state of its tree.
        for who, c in watchers.items():
            topic = f"{T}/state" if who == "display" else f"{T}/player/{who}/state"
            c.seen(lambda m, t=topic: m.topic == t and json.loads(m.payload)["seq"] == final.seq)
        msgs = {who: list(c.history) for who, c in watchers.items()}
        for c in watchers.values():
            c.close()

    # Battles went through the tower and the camera, with rail and exploding-shot re-drops wherever the
    # board called for them. Where the simulated cubes land depends on when the sensors' events arrived,
    # so whether any landed in the exploding-shot zone differs from run to run: each re-drop is required
    # when a reading shows its cause (a cube on a rail; one in the exploding zone), not by count.
    reasons: Counter = Counter()
    causes: Counter = Counter()
    for e in events:
        if e["type"] != "resolve_battle":
            continue
        record = e["action"]["record"]
        zones = record["board"]["zones"]
        for step in record["steps"]:
            if step["step"] != "drop":
                continue
            reasons[step.get("reason")] += 1
            for cube in step["board"]:
                if cube["zone"] is None:
                    causes["rail"] += 1
                elif zones[cube["zone"]]["kind"] == "exploding":
                    causes["exploding"] += 1
    assert reasons["initial"] >= 3, reasons
    assert reasons["rail"] + reasons["exploding"] >= 1, (reasons, causes)  # a rail: 1 cube in 4
    for cause, seen in causes.items():
        assert reasons[cause] >= 1, f"{seen} cubes read as {cause} but no {cause} re-drop: {reasons}"
    towers = [
        step["tower_counts"]
        for e in events
        if e["type"] == "resolve_battle"
        for step in e["action"]["record"]["steps"]
        if step["step"] == "drop"
    ]
    assert all(sum(t.values()) > 0 for t in towers)
    # The readings came from rendered images read by vision's reader (cube positions on the board), sent by
    # the camera process as vision.board messages over ZeroMQ.
    boards = [
        c
        for e in events
        if e["type"] == "resolve_battle"
        for step in e["action"]["record"]["steps"]
        if step["step"] == "drop"
        for c in step["board"]
    ]
    assert boards and all("center_mm" in c for c in boards)

    # The display sees the public tree only; each player their own private tree and nobody else's.
    assert not [m.topic for m in msgs["display"] if "/player/" in m.topic]
    for who in ("red", "blue"):
        private = {m.topic.split("/")[3] for m in msgs[who] if "/player/" in m.topic}
        assert private == {who}, (who, private)
    # Public state: one epoch, seq never goes back, the last equals the replayed log.
    states = [json.loads(m.payload) for m in msgs["display"] if m.topic == f"{T}/state"]
    assert len(states) > 50 and len({s["epoch"] for s in states}) == 1
    seqs = [s["seq"] for s in states]
    assert seqs == sorted(seqs) and seqs[-1] == final.seq
    assert states[-1]["view"] == json.loads(json.dumps(api.public_view(final)))
    red_last = [json.loads(m.payload) for m in msgs["red"] if m.topic == f"{T}/player/red/state"][-1]
    assert red_last["seq"] == final.seq
    assert red_last["view"] == json.loads(json.dumps(api.private_view(final, "red")))
    assert any(s["battle"] is not None for s in states)  # battle views were published while they ran
