"""Seats and modes: people on every seat by default, the built-in player only on the seats named with
--bots (at a person's pace), every seat a bot with --demo; the public state says who sits where."""

from __future__ import annotations

from pathlib import Path

from controller import config
from controller.core import TableCore
from controller.gamelog import GameLog
from controller.service import ControllerService
from controller.simplayers import SimPlayers, active_player
from tests.controller.test_cli import st


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
