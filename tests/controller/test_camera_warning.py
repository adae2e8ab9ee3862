"""The battle camera's light-drift warning reaches the public state (the table view shows it as a
re-calibrate prompt): set by a `vision.board` reading that carries it, in or out of a battle, cleared by
the next reading without it, published once per change."""

from __future__ import annotations

import json

from controller.core import TableCore
from controller.gamelog import GameLog
from controller.zmqin import SensorWiring, ZmqInputs

DRIFT = (
    "the light changed since calibration (board 1.52, 1.49, 1.47 x as bright in B, G, R): "
    "run 'smart-table calibrate colors' again"
)


def test_a_reading_with_a_light_warning_shows_it_until_one_without(tmp_path) -> None:
    core = TableCore(GameLog(tmp_path / "c.db"), "c")
    core.open_game(["red", "blue"], seed=1)
    published: list[dict] = []
    core.publish_state = lambda: published.append(core.public_payload())  # type: ignore[method-assign]

    class Service:
        battles = None  # no battle on: the warning is shown all the same
        mqtt = None
        ships = None

    svc = Service()
    svc.core = core  # type: ignore[attr-defined]
    inputs = ZmqInputs([], SensorWiring(svc).handlers())

    def reading(**extra: object) -> None:
        body = {"topic": "vision.board", "reading": {"status": "ok", "cubes": [], "counts": {}, **extra}}
        inputs.dispatch([b"vision.board", json.dumps(body).encode()])

    assert core.public_payload()["camera"] == {"warning": None}
    reading(warning=DRIFT)
    reading(warning=DRIFT)
    assert core.public_payload()["camera"] == {"warning": DRIFT}
    assert [p["camera"]["warning"] for p in published] == [DRIFT]  # published once, not per reading
    reading()
    assert core.public_payload()["camera"] == {"warning": None}
    assert [p["camera"]["warning"] for p in published] == [DRIFT, None]
