"""The game log is shared by threads (MQTT, ZeroMQ, simulated players): closing it while another thread
writes must end that thread's write with a clear error, never crash the interpreter."""

from __future__ import annotations

import threading
from pathlib import Path

import pytest

from controller.gamelog import GameLog, GameLogClosed


def test_close_while_another_thread_appends_ends_its_writes_cleanly(tmp_path: Path) -> None:
    log = GameLog(tmp_path / "game.sqlite")
    game = log.create_game("t1", ["red", "blue"], 1, {}, [{"type": "setup"}], {"s": 0}, 0)
    errors: list[BaseException] = []
    written = threading.Event()

    def writer() -> None:
        try:
            for i in range(100_000):
                log.append(game, {"player": "red", "i": i}, [{"type": "tick", "i": i}], i, state={"i": i})
                written.set()
        except BaseException as exc:  # noqa: BLE001 - the test inspects what ended the loop
            errors.append(exc)

    thread = threading.Thread(target=writer)
    thread.start()
    assert written.wait(30), "the writer never wrote"
    log.close()
    thread.join(30)
    assert not thread.is_alive()
    assert len(errors) == 1 and isinstance(errors[0], GameLogClosed), errors
    log.close()  # closing twice is harmless


def test_a_closed_log_says_so(tmp_path: Path) -> None:
    log = GameLog(tmp_path / "game.sqlite")
    log.close()
    with pytest.raises(GameLogClosed, match="closed"):
        log.games()
