"""The battle driver: tablet answers to battle prompts, refusals, and a battle resumed from the log
mid-way."""

from __future__ import annotations

import json

from controller.battles import BattleDriver, landings
from controller.core import TableCore
from controller.gamelog import GameLog
from controller.simplayers import SimPlayers
from controller.simtable import SimTable


def _to_abilities(tmp_path):
    """A real game played until a battle waits for Battle abilities (drops done by the simulated table)."""
    log = GameLog(tmp_path / "b.db")
    core = TableCore(log, "b")
    core.open_game(["red", "blue", "green"], seed=2)
    driver = BattleDriver(core)
    driver.sync()
    table = SimTable(driver, seed=2, rail_chance=0.0)
    players = SimPlayers(core, seed=4, delay=0, table=table)
    for _ in range(5000):
        s = driver.session
        if s is not None and s.phase == "abilities" and any(p.kind == "ability" for p in s.prompts()):
            return log, core, driver
        assert players.step(), players.reason
    raise AssertionError("no battle reached its abilities in 5000 steps")


def test_tablets_answer_battle_prompts(tmp_path):
    log, core, driver = _to_abilities(tmp_path)
    prompt = next(p for p in core.prompts.values() if p.kind == "battle_ability")
    fighter = prompt.player
    assert fighter in core.players and prompt.data["options"] is not None
    # The board the abilities act on, cube by cube (an ability that picks a cube names it by this number).
    drops = [st for st in driver.session.record["steps"] if st.get("step") == "drop"]
    assert [(c["cube"], c["color"], c["zone"]) for c in prompt.data["cubes"]] == [
        (i, c["color"], c["zone"]) for i, c in enumerate(drops[-1]["board"])
    ] and prompt.data["cubes"]
    bystander = next(
        p
        for p in core.players
        if p not in (driver.session.setup.attacker.name, driver.session.setup.defender.name)
    )
    before = driver.inputs
    r = core.handle_command(
        bystander, json.dumps({"request_id": "x", "prompt_id": prompt.id, "answer": {"pass": True}})
    )
    assert (r["accepted"], r["kind"]) == (False, "illegal") and fighter in r["reason"]
    r = core.handle_command(
        fighter, json.dumps({"request_id": "y", "prompt_id": prompt.id, "answer": {"dance": 1}})
    )
    assert (r["accepted"], r["kind"]) == (False, "invalid")
    r = core.handle_command(
        fighter,
        json.dumps({"request_id": "z", "prompt_id": prompt.id, "answer": {"ability": "no-such-ability"}}),
    )
    assert (r["accepted"], r["kind"]) == (False, "illegal") and r["reason"]
    assert driver.inputs == before  # refusals changed nothing
    r = core.handle_command(
        fighter, json.dumps({"request_id": "ok", "prompt_id": prompt.id, "answer": {"pass": True}})
    )
    assert r["accepted"], r
    assert (
        driver.inputs == before + 1
        or driver.session is None
        or driver.session.setup.battle_id != prompt.data["battle_id"]
    )
    # The old prompt is closed now.
    r = core.handle_command(
        fighter, json.dumps({"request_id": "again", "prompt_id": prompt.id, "answer": {"pass": True}})
    )
    assert (r["accepted"], r["kind"]) == (False, "stale")
    log.close()


def test_battle_resumes_mid_way_from_the_log(tmp_path):
    log, core, driver = _to_abilities(tmp_path)
    view = driver.session.view()
    record = driver.session.record
    # A new controller on the same log (as after SIGKILL) rebuilds the same battle from its logged inputs.
    core2 = TableCore(GameLog(tmp_path / "b.db"), "b")
    assert core2.open_game([], 0) is True
    driver2 = BattleDriver(core2)
    driver2.sync()
    assert driver2.session is not None
    assert driver2.session.view() == view and driver2.session.record == record
    assert set(core2.prompts) == set(core.prompts)
    log.close()


def test_landings_are_the_cubes_each_drop_added():
    record = {
        "steps": [
            {"step": "drop", "board": [{"color": "red", "zone": "dmg-1"}, {"color": "black", "zone": None}]},
            {"step": "ability"},
            {
                "step": "drop",
                "board": [{"color": "red", "zone": "dmg-1"}, {"color": "black", "zone": "miss-1"}],
            },
        ]
    }
    assert sorted(landings(record)) == [("black", "miss-1"), ("black", "rail"), ("red", "dmg-1")]


def test_jams_from_the_firmware_and_from_a_cube_stuck_inside(tmp_path):
    from controller.zmqin import SensorWiring, ZmqInputs

    core = TableCore(GameLog(tmp_path / "j.db"), "j")
    core.open_game(["red", "blue"], seed=1)
    refreshed = []

    class Service:
        battles = None
        mqtt = None
        ships = None

        def refresh_tower_warning(self):
            refreshed.append(1)

    svc = Service()
    svc.core = core
    now = [100.0]
    wiring = SensorWiring(svc, jam_timeout=3.0, clock=lambda: now[0])
    inputs = ZmqInputs([], wiring.handlers())

    def send(msg):
        inputs.dispatch([b"bridge.event", json.dumps(msg).encode()])

    send({"type": "fault", "kind": "jam", "sensor": "exit", "active": True, "detail": 1})
    send(
        {"type": "fault", "kind": "jam", "sensor": "exit", "active": True, "detail": 1}
    )  # still the same jam
    send({"type": "fault", "kind": "jam", "sensor": "exit", "active": False, "detail": 0})
    for t, inside in ((100, 1), (101, 1), (103.5, 1), (104, 1), (105, 0), (106, 2), (108, 0)):
        now[0] = t
        send({"type": "heartbeat", "in_tower": inside, "totals": {}})
    inputs.dispatch([b"bridge.event", b"not json"])  # dropped with a log line, nothing else
    inputs.dispatch([b"bridge.event"])
    kinds = [(k, d.get("source")) for _t, k, d in core.log.incidents("j")]
    assert kinds == [("jam", "firmware"), ("jam", "in_tower")] and len(refreshed) == 2
    assert inputs.dropped == 2


def test_tower_warning_in_the_public_state_and_turn_limit(tmp_path):
    import subprocess
    import sys
    from pathlib import Path

    from controller import config
    from controller.service import ControllerService

    cfg = config.defaults()
    cfg.set("table.database", str(tmp_path / "w.db"))
    cfg.set("table.id", "w")
    svc = ControllerService(cfg, mqtt_enabled=False)
    svc.open()
    assert svc.core.public_payload()["tower"] == {"warning": None}
    svc.gamelog.record_drops(
        "w", None, None, [("red", z) for z in ("dmg-1", "str-1a", "miss-1", "explode")] * 100
    )
    svc.gamelog.record_drops("w", None, None, [("red", "dmg-1")] * 200)
    svc.refresh_tower_warning()
    assert "shifted" in svc.core.public_payload()["tower"]["warning"]
    svc.close()

    repo = Path(__file__).resolve().parents[2]
    cfg_json = json.dumps(
        {
            "table": {"database": str(tmp_path / "turns.db"), "players": ["red", "blue"], "demo": True},
            "bridge": {"enabled": False},
            "vision": {"enabled": False},
            "simulate": {"delay": 0.0, "camera": "model"},
        }
    )
    run = subprocess.run(
        [
            sys.executable,
            "-m",
            "controller.service",
            "--config-json",
            cfg_json,
            "--simulate",
            "--max-turns",
            "3",
            "--no-mqtt",
        ],
        cwd=repo,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert run.returncode == 0 and "simulation stopped: 3 turns played" in run.stderr, run.stderr
