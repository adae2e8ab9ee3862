"""The Great Sea's camera in the controller: a settled reading of the map (rendered from the engine's
positions by the tuning renderer, read by the real region reader) becomes a proposal the player whose
turn it is confirms on the tablet; anything else is asked, never applied silently."""

from __future__ import annotations

import io
import json
import random
import time
from functools import cache
from typing import Any

import rules.api as api
from controller.core import TableCore
from controller.gamelog import GameLog
from controller.sea_camera import DEVICE, SeaCamera
from controller.testing import free_port
from vision.sea_regions.reader import read_regions
from vision.synth.sea import positions_scene


def _game_at_a_move(tmp_path, table: str = "gs") -> tuple[TableCore, str, dict[str, Any]]:
    """A 2-player game played by seeded random actions until the player who may act can move a Ship."""
    core = TableCore(GameLog(tmp_path / "gs.db"), table)
    core.open_game(["red", "yellow"], seed=3, options={"game": "great-sea"})
    rng = random.Random(1)
    for _ in range(400):
        view = api.public_view(core.state)
        player = view.get("active") or view["turn_player"]
        legal = api.legal_actions(core.state, player)
        moves = [a for a in legal if a["type"] == "move" and len(a["moves"]) == 1]
        if moves:
            return core, player, moves[0]
        core.submit(player, rng.choice(legal))
    raise AssertionError("no move reached")


def _regions_after(core: TableCore, player: str, action: dict[str, Any]) -> dict[str, Any]:
    state, _ = api.apply(core.state, {"seq": core.seq, "player": player, "action": action})
    return api.public_view(state)["regions"]


@cache
def _reading(regions_json: str, side: str, seed: int) -> dict[str, Any]:
    image, _, layout = positions_scene(json.loads(regions_json), side, seed)
    return read_regions(image, layout)


def _photo(regions: dict[str, Any], side: str, seed: int = 1) -> dict[str, Any]:
    """The simulated camera's published message for these positions (a settled, confirmed reading)."""
    reading = _reading(json.dumps(regions, sort_keys=True), side, seed)
    return {"topic": "vision.regions", "settled": True, "reading": reading}


def _pieces(regions: dict[str, Any]) -> dict[str, list[Any]]:
    return {
        rid: sorted([s["owner"], s["cls"], s["damaged"]] for s in r["ships"]) + sorted(r["forts"])
        for rid, r in regions.items()
    }


def _mine(core: TableCore, kind: str | None = None) -> list[Any]:
    return [
        p for k, p in core.prompts.items() if k.startswith("sea-camera:") and (kind is None or p.kind == kind)
    ]


def test_a_move_the_camera_sees_is_offered_to_the_player_and_applied_when_confirmed(tmp_path) -> None:
    core, player, move = _game_at_a_move(tmp_path)
    side = api.public_view(core.state)["map"]
    devices: list[tuple[str, bool]] = []
    cam = SeaCamera(core, "great-sea", lambda name, online, **_: devices.append((name, online)))
    cam.announce()
    assert devices == [(DEVICE, False)]  # configured, not read yet: the table view says so
    # The map as the engine has it: nothing to propose.
    cam.handle(_photo(api.public_view(core.state)["regions"], side))
    assert devices[-1] == (DEVICE, True)
    assert not _mine(core, "sea_camera_move") and not _mine(core, "sea_camera_which")
    # The player moves a Ship on the table: offered to that player, not applied yet.
    after = _regions_after(core, player, move)
    seq = core.seq
    cam.handle(_photo(after, side))
    assert core.seq == seq
    (offer,) = _mine(core, "sea_camera_move")
    assert offer.player == player and offer.data["action"]["type"] == "move"
    assert [list(m) for m in offer.data["action"]["moves"]] == [list(m) for m in move["moves"]]
    reply = core.handle_command(
        player, json.dumps({"request_id": "c1", "prompt_id": offer.id, "answer": {"accept": True}})
    )
    assert reply["accepted"], reply
    assert _pieces(api.public_view(core.state)["regions"]) == _pieces(after)
    assert cam.applied == 1 and not _mine(core, "sea_camera_move")  # the map and the game agree again
    assert core.game_id is not None
    assert core.log.commands(core.game_id)[-1]["action"]["type"] == "move"


def test_a_declined_move_is_not_applied_nor_asked_again_until_the_map_changes(tmp_path) -> None:
    core, player, move = _game_at_a_move(tmp_path)
    side = api.public_view(core.state)["map"]
    cam = SeaCamera(core, "great-sea")
    photo = _photo(_regions_after(core, player, move), side)
    cam.handle(photo)
    (offer,) = _mine(core, "sea_camera_move")
    seq = core.seq
    other = next(p for p in core.players if p != player)
    refused = core.handle_command(
        other, json.dumps({"request_id": "x", "prompt_id": offer.id, "answer": {"accept": True}})
    )
    assert not refused["accepted"] and core.seq == seq  # only the player it is offered to answers
    reply = core.handle_command(
        player, json.dumps({"request_id": "n", "prompt_id": offer.id, "answer": {"accept": False}})
    )
    assert reply["accepted"] and core.seq == seq and not _mine(core, "sea_camera_move")
    cam.update()
    assert not _mine(core, "sea_camera_move")
    cam.handle(photo)  # a new settled reading of the map: asked again
    assert _mine(core, "sea_camera_move")


def test_a_ship_of_a_player_who_may_not_act_is_asked_back_never_applied(tmp_path) -> None:
    core, player, _ = _game_at_a_move(tmp_path)
    view = api.public_view(core.state)
    other = next(p for p in core.players if p != player)
    regions = json.loads(json.dumps(view["regions"]))
    start = next(r for r, reg in regions.items() if any(s["owner"] == other for s in reg["ships"]))
    ship = next(s for s in regions[start]["ships"] if s["owner"] == other)
    regions[start]["ships"].remove(ship)
    dest = next(r for r in api.public_view(core.state)["regions"] if r != start and not regions[r]["ships"])
    regions[dest]["ships"].append(ship)
    cam = SeaCamera(core, "great-sea")
    seq = core.seq
    cam.handle(_photo(regions, view["map"]))
    assert core.seq == seq and not _mine(core, "sea_camera_move")
    checks = _mine(core, "sea_camera_check")
    assert any(other in p.text and "put the pieces back" in p.text for p in checks), [p.text for p in checks]
    assert all(p.player is None for p in checks)  # every tablet sees it
    ask = next(p for p in checks if other in p.text)
    reply = core.handle_command(
        player, json.dumps({"request_id": "d", "prompt_id": ask.id, "answer": {"dismiss": True}})
    )
    assert reply["accepted"] and ask.id not in core.prompts and core.seq == seq


def test_another_game_is_left_alone(tmp_path) -> None:
    core = TableCore(GameLog(tmp_path / "dr.db"), "dr")
    core.open_game(["red", "blue"], seed=3)
    cam = SeaCamera(core, "great-sea")
    cam.handle({"reading": {"status": "ok", "map": "2", "regions": {}, "unsure": []}})
    assert not _mine(core)


def test_a_message_without_a_reading_is_dropped(tmp_path) -> None:
    core, _, _ = _game_at_a_move(tmp_path)
    cam = SeaCamera(core, "great-sea")
    cam.handle({"topic": "vision.regions", "reading": "nonsense"})
    assert cam.reading is None and not _mine(core)


def test_the_supervisor_starts_the_games_own_camera_on_the_table_camera(tmp_path) -> None:
    from controller.config import defaults
    from controller.supervisor import Supervisor

    def children(game: str) -> dict[str, list[str]]:
        cfg = defaults()
        cfg.set("table.database", str(tmp_path / "t.db"))
        cfg.set("table.game", game)
        cfg.set("table.players", ["red", "yellow"])
        cfg.set("vision.ships_camera", str(tmp_path / "table.mp4"))
        s = Supervisor(cfg, simulate=False, limits={}, out=io.StringIO())
        s._plan_cameras()
        return {c.name: c.argv for c in s.children}

    sea = children("great-sea")
    assert "ships-camera" not in sea
    argv = sea["map-camera"]
    assert argv[argv.index("vision") + 1] == "regions-watch"
    assert argv[argv.index("--layout") + 1].endswith("great-sea-2.json")
    assert argv[argv.index("--video") + 1] == str(tmp_path / "table.mp4")
    assert argv[argv.index("--pub") + 1] == "tcp://127.0.0.1:5561"
    assert "ships-watch" in children("dead-reckoning")["ships-camera"]


def test_the_controller_reads_the_camera_its_game_declares(tmp_path) -> None:
    from contracts import topics
    from controller.config import defaults
    from controller.service import ControllerService

    cfg = defaults()
    cfg.set("table.database", str(tmp_path / "c.db"))
    cfg.set("table.game", "great-sea")
    cfg.set("table.players", ["red", "yellow"])
    cfg.set("bridge.enabled", False)
    cfg.set("vision.ships_events", f"tcp://127.0.0.1:{free_port()}")
    cfg.set("vision.events", f"tcp://127.0.0.1:{free_port()}")
    service = ControllerService(cfg, mqtt_enabled=False)
    try:
        service.open()
        service.start_inputs()
        (reader,) = service.game_cameras
        assert isinstance(reader, SeaCamera) and reader.playing
        assert service.inputs is not None and service.inputs.handlers[topics.VISION_REGIONS] == reader.handle
    finally:
        service.close()


def test_the_table_view_says_whether_the_map_camera_is_live(tmp_path) -> None:
    """The brief: "the table always lets people go on by hand, and says which sensors are live" — the map
    camera is on the table view's sensor line: manual until its first reading, live while it reads, manual
    again once its process has been silent (its heartbeats stopped)."""
    core, _, _ = _game_at_a_move(tmp_path)
    side = api.public_view(core.state)["map"]
    cam = SeaCamera(core, "great-sea", silent_s=0.05)
    assert core.public_payload()["sensors"]["map_camera"] == "manual"
    cam.handle({"topic": "vision.regions", "heartbeat": True})
    assert core.public_payload()["sensors"]["map_camera"] == "manual"  # alive, but no map read yet
    cam.handle(_photo(api.public_view(core.state)["regions"], side))
    assert core.public_payload()["sensors"]["map_camera"] == "live"
    deadline = time.monotonic() + 10
    while cam.live and time.monotonic() < deadline:
        cam.tick()
    assert core.public_payload()["sensors"]["map_camera"] == "manual"
    cam.handle({"topic": "vision.regions", "heartbeat": True})  # back: its last reading stands again
    assert core.public_payload()["sensors"]["map_camera"] == "live"


def test_a_map_camera_whose_stream_dropped_is_manual_at_once_and_says_why(tmp_path) -> None:
    """Its watch's `vision.health` offline (a dropped stream being reopened, routed here by
    controller/zmqin.py) makes the map camera manual at once, its device line says why; its next heartbeat
    makes it live."""
    core, _, _ = _game_at_a_move(tmp_path)
    side = api.public_view(core.state)["map"]
    said: list[tuple[str, bool, dict[str, Any]]] = []
    cam = SeaCamera(core, "great-sea", set_device=lambda name, online, **kw: said.append((name, online, kw)))
    cam.handle({"topic": "vision.regions", "heartbeat": True})
    cam.handle(_photo(api.public_view(core.state)["regions"], side))
    assert core.public_payload()["sensors"]["map_camera"] == "live"
    reason = "rtsp source rtsp://phone/map stopped giving frames after 812; reconnecting (try 1)"
    cam.handle(
        {
            "online": False,
            "ts": 1.0,
            "source": "rtsp://phone/map",
            "camera": "vision.regions",
            "reason": reason,
        }
    )
    assert core.public_payload()["sensors"]["map_camera"] == "manual" and cam.reading is not None
    assert said[-1][:2] == (DEVICE, False) and said[-1][2]["reason"] == f"{reason}; enter moves by hand"
    cam.handle({"online": True, "ts": 2.0, "source": "rtsp://phone/map", "camera": "vision.regions"})
    assert core.public_payload()["sensors"]["map_camera"] == "manual"  # live again with its frames
    cam.handle({"topic": "vision.regions", "heartbeat": True})
    assert core.public_payload()["sensors"]["map_camera"] == "live" and said[-1][:2] == (DEVICE, True)


def test_the_map_camera_is_not_on_another_games_sensor_line(tmp_path) -> None:
    core = TableCore(GameLog(tmp_path / "dr.db"), "dr")
    core.open_game(["red", "blue"], seed=3)
    SeaCamera(core, "great-sea")
    assert "map_camera" not in core.public_payload()["sensors"]
