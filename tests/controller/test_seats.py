"""Seats and modes: people on every seat by default, the built-in player only on the seats named with
--bots (at a person's pace), every seat a bot with --demo; the public state says who sits where."""

from __future__ import annotations

from pathlib import Path

from controller import config
from controller.core import TableCore
from controller.gamelog import GameLog
from controller.service import ControllerService
from controller.simplayers import SimPlayers, active_player
from tests.smart_table.test_controller_cmd import st


def _cfg(tmp_path: Path, **table: object) -> config.Config:
    cfg = config.defaults()
    cfg.set("table.database", str(tmp_path / "s.db"))
    cfg.set("table.players", ["red", "blue"])
    cfg.set("bridge.enabled", False)
    cfg.set("vision.enabled", False)
    for key, value in table.items():
        cfg.set(f"table.{key}", value)
    return cfg


def test_the_public_state_says_who_sits_where(tmp_path: Path) -> None:
    svc = ControllerService(_cfg(tmp_path), mqtt_enabled=False)
    svc.open()
    assert svc.core.public_payload()["seats"] == {"red": "person", "blue": "person"}
    svc.close()
    (tmp_path / "b").mkdir()
    svc = ControllerService(_cfg(tmp_path / "b", bots=["blue"]), mqtt_enabled=False)
    svc.open()
    assert svc.core.public_payload()["seats"] == {"red": "person", "blue": "bot"}
    assert svc.battles is not None and svc.battles.bots == {"blue"}
    svc.close()
    (tmp_path / "d").mkdir()
    svc = ControllerService(_cfg(tmp_path / "d", demo=True), mqtt_enabled=False)
    assert svc.core.seats == {"red": "bot", "blue": "bot"}
    svc.gamelog.close()


def test_a_bot_plays_only_its_own_seat_and_waits_for_the_people(tmp_path: Path) -> None:
    core = TableCore(GameLog(tmp_path / "w.db"), "w")
    core.open_game(["red", "blue"], seed=2)
    bot = SimPlayers(core, seed=1, delay=0, seats=["blue"])
    acted_for: list[str] = []
    submit = core.submit
    core.submit = lambda player, *a, **k: (acted_for.append(player), submit(player, *a, **k))[1]  # type: ignore
    for _ in range(200):
        before = core.seq
        assert bot.step(), bot.reason
        if core.seq == before and active_player(core.state) == "red":
            break  # red's turn and nothing for blue to do: the bot waits, however long it takes
    assert set(acted_for) == {"blue"} and active_player(core.state) == "red"
    seq = core.seq
    for _ in range(20):
        assert bot.step()  # never gives up on a person, never acts for red
    assert core.seq == seq


def test_bots_names_only_seats_of_the_table(tmp_path: Path) -> None:
    r = st("run", "--bots", "purple", "--db", str(tmp_path / "x.db"), "--duration", "1")
    assert r.returncode != 0 and "--bots" in r.stderr and "purple" in r.stderr and "Traceback" not in r.stderr


def test_simulate_runs_the_hardware_while_a_person_plays_beside_a_bot(tmp_path: Path) -> None:
    """`run --simulate --bots blue`: the simulated tower and camera handle the drops of red's battles; red's
    own choices (actions, Battle abilities) come only from red's tablet, here this test."""
    import random
    import threading
    import time

    cfg = _cfg(tmp_path, bots=["blue"], bot_delay=0.0, seed=2)
    cfg.set("simulate.delay", 0.0)
    cfg.set("simulate.camera", "model")
    svc = ControllerService(cfg, simulate=True, mqtt_enabled=False)
    runner = threading.Thread(target=svc.run, daemon=True)
    runner.start()
    rng = random.Random(3)
    resolved, hand_prompts = 0, 0
    # A deadline only for a table that never gets there: battles take seconds on a loaded machine.
    deadline = time.monotonic() + 240
    try:
        while resolved < 2 and time.monotonic() < deadline:
            with svc.core.lock:
                if svc.core.state is not None and svc.battles is not None:
                    hand_prompts += _play_red(svc, rng)
                    resolved = svc.battles.resolved
            # Red looks at the table now and then, as a person would; never holding the lock in a loop.
            time.sleep(0.02)
        open_prompts = [(p.kind, p.player) for p in svc.core.prompts.values()]
        assert resolved >= 2, (
            f"only {resolved} battles resolved; the sim says: {svc.sim.reason if svc.sim else '-'}; "
            f"open prompts: {open_prompts}; battle busy: {svc.battles is not None and svc.battles.busy()}"
        )
        assert hand_prompts == 0  # the simulated hardware read every drop: nobody was asked to tap it
        commands = svc.gamelog.commands(svc.core.open_game_id)
        records = [c["action"]["record"] for c in commands if c["action"].get("type") == "resolve_battle"]
        assert len(records) >= 2
        for record in records:
            for step in record["steps"]:
                if step["step"] == "drop":
                    assert all(r.get("reading", {}).get("source") != "hand" for r in step["readings"])
        # Every game action came from red's tablet (this test), blue's bot or the table itself.
        assert {c["player"] for c in commands} <= {"red", "blue", "table"}
    finally:
        svc.stop_event.set()
        runner.join(timeout=10)


def _play_red(svc: ControllerService, rng) -> int:
    """Red's tablet, once: pass a Battle ability offered, else take a legal action when no battle is on.
    Returns how many prompts asked someone to enter or confirm a drop by hand."""
    import json

    core = svc.core
    assert svc.battles is not None
    hand = sum(p.kind in ("enter_drop", "confirm_drop") for p in core.prompts.values())
    mine = [p for p in core.prompts.values() if p.player == "red" and p.kind == "battle_ability"]
    legal = [
        a for a in core.engine.legal_actions(core.state, "red") if a["type"] not in ("resolve_battle", "undo")
    ]
    if mine:
        r = core.handle_command(
            "red", json.dumps({"request_id": "p", "prompt_id": mine[0].id, "answer": {"pass": True}})
        )
        assert r["accepted"], r
    elif legal and not svc.battles.busy():
        r = core.handle_command(
            "red", json.dumps({"request_id": "a", "seq": core.seq, "action": rng.choice(legal)})
        )
        assert r["accepted"] or r["kind"] == "stale", r
    return hand
