"""Ships moved on the table: the camera's grid reading and the zone sensors become the active player's
move."""

from __future__ import annotations

import json

import rules.api as api
from controller.core import TableCore
from controller.gamelog import GameLog
from controller.ships import ShipWatcher


def _table(tmp_path):
    core = TableCore(GameLog(tmp_path / "s.db"), "s")
    core.open_game(["red", "blue"], seed=3)
    active = core.state.active
    sails = next(a for a in api.legal_actions(core.state, active) if a["type"] == "set_sails")
    core.submit(active, sails, core.seq)
    moves = [a for a in api.legal_actions(core.state, active) if a["type"] == "move" and len(a["path"]) == 1]
    assert moves
    return core, active, moves[0]["path"][0]


def _reading(positions: dict[str, str]) -> dict:
    return {
        "status": "ok",
        "boards": [],
        "ships": [{"ship": s, "square": sq, "confidence": 0.95} for s, sq in positions.items()],
    }


def test_camera_and_sensors_agreeing_move_the_active_ship(tmp_path):
    core, active, target = _table(tmp_path)
    other = next(p for p in core.players if p != active)
    watcher = ShipWatcher(core)
    seq = core.seq
    watcher.zones({"type": "zone_state", "squares": {target: True}, "harbor": [True, False, False, False]})
    watcher.camera({"topic": "vision.table", "reading": _reading({active: target, other: "harbor"})})
    assert watcher.moves == 1 and core.seq > seq
    assert api.public_view(core.state)["p"][active]["ship"]["at"] == target
    assert core.log.commands(core.game_id)[-1]["action"]["type"] == "move"


def test_disagreement_is_a_prompt_answered_from_a_tablet(tmp_path):
    core, active, target = _table(tmp_path)
    other = next(p for p in core.players if p != active)
    watcher = ShipWatcher(core)
    seq = core.seq
    # The camera sees the ship moved; the sensors feel nothing there: ask, do not move.
    watcher.zones({"type": "zone_state", "squares": {target: False}, "harbor": [True, True, False, False]})
    watcher.camera({"reading": _reading({active: target, other: "harbor"})})
    assert core.seq == seq and watcher.moves == 0
    asks = [p for p in core.prompts.values() if p.id.startswith("ships:")]
    assert asks and all(p.kind == "sensor_disagree" for p in asks)
    ask = next(p for p in asks if p.data.get("ship") == active)
    reply = core.handle_command(
        active,
        json.dumps({"request_id": "q1", "prompt_id": ask.id, "answer": {"ship": active, "square": target}}),
    )
    assert reply["accepted"], reply
    assert api.public_view(core.state)["p"][active]["ship"]["at"] == target


def test_a_move_out_of_turn_is_not_applied(tmp_path):
    core, active, target = _table(tmp_path)
    other = next(p for p in core.players if p != active)
    watcher = ShipWatcher(core)
    seq = core.seq
    watcher.camera({"reading": _reading({active: "harbor", other: target})})
    assert core.seq == seq
    assert any("out of turn" in p.text for p in core.prompts.values())


def test_a_board_turned_face_up_is_the_reveal_the_game_waits_for(tmp_path):
    core = TableCore(GameLog(tmp_path / "r.db"), "r")
    core.open_game(["red", "blue"], seed=3, options={"auto_chance": False})
    view = api.public_view(core.state)
    wait = next(w for w in view["waiting_for"] if w["kind"] == "reveal_board")
    square = wait["square"]
    offered = [a for a in api.legal_actions(core.state, "table") if a["type"] == "reveal_board"]
    board = offered[0]["board"]
    watcher = ShipWatcher(core)
    boards = [
        {"square": sq, "face_up": sq == square, "board": board if sq == square else None, "confidence": 0.99}
        for sq in view["grid"]
    ]
    watcher.camera({"reading": {"status": "ok", "boards": boards, "ships": []}})
    assert watcher.reveals == 1
    assert api.public_view(core.state)["grid"][square]["board"] == board
    assert core.log.commands(core.game_id)[-1] == {
        "seq": core.log.commands(core.game_id)[-1]["seq"],
        "player": "table",
        "action": {"type": "reveal_board", "square": square, "board": board},
    }
    # A board the game does not allow there is a prompt, not a change.
    seq = core.seq
    nxt = next((w for w in api.public_view(core.state)["waiting_for"] if w["kind"] == "reveal_board"), None)
    if nxt is not None:
        bad = [dict(b) for b in boards]
        for b in bad:
            if b["square"] == nxt["square"]:
                b.update(face_up=True, board="no-such-board")
        watcher.camera({"reading": {"status": "ok", "boards": bad, "ships": []}})
        assert core.seq == seq and any("refuses" in p.text for p in core.prompts.values())


def test_ways_that_differ_in_crossing_a_garrison_are_asked(tmp_path):
    """An opponent's Garrison on one of two shortest ways: the player is asked which way, nothing is
    guessed."""
    core, active, _ = _table(tmp_path)
    other = next(p for p in core.players if p != active)
    # The position (a saved game): the active ship on r1c1, the opponent's Garrison on the island of r1c2.
    saved = api.state_to_json(core.state)
    d = saved["data"]
    d["p"][active]["ship"]["at"] = "r1c1"
    d["grid"]["r1c2"]["island"]["controller"] = other
    d["grid"]["r1c2"]["island"]["buildings"]["garrison"] = True
    core.state = api.state_from_json(saved)
    watcher = ShipWatcher(core)
    seq = core.seq
    # r1c1 -> r2c2: by r1c2 (the Garrison fires) or by r2c1 (it does not).
    watcher.zones({"type": "zone_state", "squares": {"r2c2": True}, "harbor": [False, True, False, False]})
    watcher.camera({"reading": _reading({active: "r2c2", other: "harbor"})})
    assert core.seq == seq and watcher.moves == 0
    ask = next(p for p in core.prompts.values() if p.kind == "ship_path" and p.player == active)
    assert sorted(map(tuple, ask.data["options"])) == [("r1c1", "r1c2", "r2c2"), ("r1c1", "r2c1", "r2c2")]
    assert sorted(zip(map(tuple, ask.data["options"]), map(tuple, ask.data["crossings"]), strict=True)) == [
        (("r1c1", "r1c2", "r2c2"), ("r1c2",)),
        (("r1c1", "r2c1", "r2c2"), ()),
    ]
    # The tablet's answer (docs/mqtt.md: {"path": one of the options}); a way not offered is refused.
    bad = core.handle_command(
        active,
        json.dumps({"request_id": "x", "prompt_id": ask.id, "answer": {"path": ["r1c1", "r1c2", "r1c3"]}}),
    )
    assert (bad["accepted"], bad["kind"]) == (False, "invalid") and core.seq == seq
    way = core.handle_command(
        active,
        json.dumps({"request_id": "w", "prompt_id": ask.id, "answer": {"path": ["r1c1", "r2c1", "r2c2"]}}),
    )
    assert way["accepted"] is True and watcher.moves == 1, way  # the engine moved the ship that way
    # Without the Garrison the two ways are the same to the rules: no question.
    d["grid"]["r1c2"]["island"]["buildings"]["garrison"] = False
    core.state = api.state_from_json(saved)
    core.prompts.clear()
    calm = ShipWatcher(core)
    calm.zone_state, calm.camera_reading = watcher.zone_state, watcher.camera_reading
    calm.update()
    assert not any(p.kind == "ship_path" and p.data.get("options") for p in core.prompts.values())
    # ...the move went to the engine at once (applied, or refused with the engine's sentence as a prompt).
    assert calm.moves == 1 or any(p.id.endswith(":refused") for p in core.prompts.values())
