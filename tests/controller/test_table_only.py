"""Actions only the table sends (a battle's result, chance outcomes) are refused from a tablet, at the broker.

The controller runs in this process (TableCore + MqttLink + BattleDriver, as controller.service wires
them) on a real Mosquitto with the deploy/ ACL; the tablet is a real MQTT client logged in as its player.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

from controller.battles import BattleDriver
from controller.core import TableCore
from controller.gamelog import GameLog
from controller.mqtt import MqttLink
from tests.support.broker import Client, mosquitto  # noqa: F401

TABLE = "t1"


def play_until_battle(core: TableCore, driver: BattleDriver, seed: int, limit: int = 400) -> None:
    """Seeded random legal actions (never the battle's result) until the engine starts a battle."""
    rng = random.Random(seed)
    for _ in range(limit):
        if driver.busy():
            return
        state = core.state
        for player in [state.active, *[p for p in core.players if p != state.active]]:
            actions = [a for a in core.engine.legal_actions(state, player) if a["type"] != "resolve_battle"]
            if actions:
                core.submit(player, rng.choice(actions), core.seq)
                break
    raise AssertionError(f"no battle within {limit} actions")


def test_a_tablet_cannot_report_a_battle_result_or_a_chance_outcome(mosquitto, tmp_path: Path) -> None:  # noqa: F811
    log = GameLog(tmp_path / "t.db")
    link = MqttLink(mosquitto.host, mosquitto.port, "controller", mosquitto.users["controller"], table_id=TABLE)
    core = TableCore(log, table_id=TABLE, publisher=link)
    core.open_game(["red", "blue"], 5)
    driver = BattleDriver(core)
    link.start(core)
    try:
        play_until_battle(core, driver, seed=5)
        attacker = driver.session.setup.attacker.name
        # The engine itself would take this from the active player in simulation: a ready, valid record.
        offered = [a for a in core.engine.legal_actions(core.state, attacker) if a["type"] == "resolve_battle"]
        assert offered, "the engine offers the battle's result to the active player in simulation"
        tablet = Client(mosquitto, attacker)
        assert tablet.wait_connected()
        tablet.subscribe(f"table/{TABLE}/player/{attacker}/#")
        state_msg = tablet.wait_for(lambda m: m.topic.endswith(f"player/{attacker}/state"))
        legal = json.loads(state_msg.payload)["legal_actions"]
        assert all(a["type"] != "resolve_battle" for a in legal), "a tablet is never offered the battle's result"
        seq, n_events, inputs = core.seq, core.n_events, driver.inputs
        sends = {"rb": offered[0], "rv": {"type": "reveal_board", "square": "A1", "board": "any"},
                 "ds": {"type": "draw_sailors", "cards": ["x", "y"]}}
        reasons = {}
        for rid, action in sends.items():
            tablet.publish(f"table/{TABLE}/player/{attacker}/cmd",
                           json.dumps({"request_id": rid, "seq": seq, "action": action}))
            reply = json.loads(tablet.wait_for(lambda m, r=rid: m.topic.endswith("/reply")
                                               and json.loads(m.payload)["request_id"] == r).payload)
            assert reply["accepted"] is False and reply["kind"] == "illegal", reply
            assert "tablet" in reply["reason"] and reply["reason"].endswith("."), reply
            reasons[rid] = reply["reason"]
        assert "battle" in reasons["rb"] and "chance outcome" in reasons["rv"] and "draw_sailors" in reasons["ds"]
        # Nothing changed: same seq, nothing logged, the battle still waits for its cubes.
        assert (core.seq, core.n_events, driver.inputs) == (seq, n_events, inputs)
        assert core.engine.public_view(core.state)["battle"] is not None and driver.busy()
        tablet.close()
    finally:
        link.stop()
        log.close()
