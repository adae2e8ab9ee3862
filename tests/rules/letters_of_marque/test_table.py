"""The expansion at the table's controller (in process, no broker): a game set up with it, played by the
simulated players through `TableCore`, logged, published with its view and words, and resumed from the log."""

from __future__ import annotations

import json

from controller.core import TableCore
from controller.gamelog import GameLog
from controller.simplayers import SimPlayers
from rules import api
from tests.rules.letters_of_marque.helpers import LOM


class Recorder:
    def __init__(self) -> None:
        self.messages: list[tuple[str, dict, bool]] = []

    def publish(self, topic, payload, retain=False):
        json.dumps(payload)
        self.messages.append((topic, payload, retain))


def test_the_table_plays_logs_publishes_and_resumes_a_letters_of_marque_game(tmp_path):
    log = GameLog(tmp_path / "l.db", snapshot_every=20)
    rec = Recorder()
    core = TableCore(log, "lom", publisher=rec)
    core.open_game(["red", "blue", "green"], seed=4, options=dict(LOM))
    sim = SimPlayers(core, seed=4, delay=0)
    for _ in range(250):
        assert sim.step()
    core.publish_state()
    public = [p for t, p, _r in rec.messages if t == "table/lom/state"]
    assert public and "letters-of-marque" in json.dumps(public[-1])
    types = {c["action"]["type"] for c in log.commands(core.game_id)}
    assert types & {"discover_prime_cargo", "load_prime", "discard_prime", "claim", "decline"}
    again = TableCore(GameLog(tmp_path / "l.db"), "lom")
    assert again.open_game(["red", "blue", "green"], seed=4)  # resumed, with its own options
    assert api.state_to_json(again.state) == api.state_to_json(core.state)
    log.close()
