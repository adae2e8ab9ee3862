"""Actions only the table sends (a battle's result, chance outcomes) are refused from a tablet, at the broker.

The controller runs in this process (TableCore + MqttLink + BattleDriver, as controller.service wires
them) on a real Mosquitto with the deploy/ ACL; the tablet is a real MQTT client logged in as its player.
"""

from __future__ import annotations

import json
from pathlib import Path

from controller.core import TableCore
from controller.gamelog import GameLog
from controller.testing import Client
from tests.support.broker import mosquitto  # noqa: F401
from tests.support.game import table_in_battle

TABLE = "t1"


def test_a_tablet_cannot_report_a_battle_result_or_a_chance_outcome(mosquitto, tmp_path: Path) -> None:  # noqa: F811
    with table_in_battle(mosquitto, tmp_path / "t.db", TABLE) as (core, driver):
        attacker = driver.session.setup.attacker.name
        # The engine itself would take this from the active player in simulation: a ready, valid record.
        offered = [
            a for a in core.engine.legal_actions(core.state, attacker) if a["type"] == "resolve_battle"
        ]
        assert offered, "the engine offers the battle's result to the active player in simulation"
        tablet = Client(mosquitto, attacker)
        assert tablet.wait_connected()
        tablet.subscribe(f"table/{TABLE}/player/{attacker}/#")
        state_msg = tablet.wait_for(lambda m: m.topic.endswith(f"player/{attacker}/state"))
        legal = json.loads(state_msg.payload)["legal_actions"]
        assert all(a["type"] != "resolve_battle" for a in legal), (
            "a tablet is never offered the battle's result"
        )
        seq, n_events, inputs = core.seq, core.n_events, driver.inputs
        sends = {
            "rb": offered[0],
            "rv": {"type": "reveal_board", "square": "A1", "board": "any"},
            "ds": {"type": "draw_sailors", "cards": ["x", "y"]},
        }
        reasons = {}
        for rid, action in sends.items():
            reply = tablet.command(
                f"table/{TABLE}/player/{attacker}/cmd", {"request_id": rid, "seq": seq, "action": action}
            )
            assert reply["accepted"] is False and reply["kind"] == "illegal", reply
            assert "tablet" in reply["reason"] and reply["reason"].endswith("."), reply
            reasons[rid] = reply["reason"]
        assert (
            "battle" in reasons["rb"]
            and "chance outcome" in reasons["rv"]
            and "draw_sailors" in reasons["ds"]
        )
        # Nothing changed: same seq, nothing logged, the battle still waits for its cubes.
        assert (core.seq, core.n_events, driver.inputs) == (seq, n_events, inputs)
        assert core.engine.public_view(core.state)["battle"] is not None and driver.busy()
        tablet.close()


def test_at_a_physical_table_a_player_reports_only_their_own_sailor_draw(tmp_path: Path) -> None:
    """No camera sees a hand: the drawer's own tablet reports it, checked by the engine; nobody else may."""
    log = GameLog(tmp_path / "t.db")
    core = TableCore(log, table_id=TABLE)
    core.open_game(["red", "blue"], 5, {"auto_chance": False})
    try:
        assert core.observed_chance
        # A live ocean-grid camera reports the boards by the Harbor (the table's own input); a tablet may
        # not while it is live (with no camera live, any seat reports them: test_by_hand_chance.py).
        core.ocean_camera_live = True
        reveal = core.engine.legal_actions(core.state, "red")[0]
        assert reveal["type"] == "reveal_board"
        refused = core.handle_command(
            "red", json.dumps({"request_id": "v", "seq": core.seq, "action": reveal})
        )
        assert refused["accepted"] is False and refused["kind"] == "illegal"
        # The row-1 cards turned up from the box are open: any seated player's tablet reports them.
        while (kind := core.state.data["pending"][0]["kind"]) in ("reveal_board", "draw_advancement"):
            if kind == "reveal_board":
                core.submit("table", core.engine.legal_actions(core.state, "red")[0], core.seq)
                continue
            card = [a for a in core.private_payload("blue")["legal_actions"] if a["type"] == kind][0]
            reply = core.handle_command(
                "blue", json.dumps({"request_id": "a", "seq": core.seq, "action": card})
            )
            assert reply["accepted"] is True, reply
        assert core.state.data["pending"][0] == {"kind": "draw_sailors", "player": "red", "count": 4}
        offered = core.private_payload("red")["legal_actions"]
        assert any(a["type"] == "draw_sailors" for a in offered), "red's tablet is offered red's own draw"
        assert not any(a["type"] == "draw_sailors" for a in core.private_payload("blue")["legal_actions"])
        deck = core.engine.private_view(core.state, "red")
        red_cards = [a for a in offered if a["type"] == "draw_sailors"][0]["cards"]
        seq = core.seq
        as_blue = core.handle_command(
            "blue",
            json.dumps(
                {
                    "request_id": "b",
                    "seq": seq,
                    "action": {"type": "draw_sailors", "player_drawing": "red", "cards": red_cards},
                }
            ),
        )
        assert as_blue["accepted"] is False and as_blue["kind"] == "illegal" and core.seq == seq
        wrong = core.handle_command(
            "red",
            json.dumps(
                {
                    "request_id": "w",
                    "seq": seq,
                    "action": {"type": "draw_sailors", "cards": ["no-such-card"] * 4},
                }
            ),
        )
        assert wrong["accepted"] is False and core.seq == seq, wrong
        ok = core.handle_command(
            "red",
            json.dumps(
                {"request_id": "r", "seq": seq, "action": {"type": "draw_sailors", "cards": red_cards}}
            ),
        )
        assert ok["accepted"] is True, ok
        assert core.seq > seq and deck is not None
        assert set(core.engine.private_view(core.state, "red")["you"]["hand"]) == set(red_cards)
    finally:
        log.close()
