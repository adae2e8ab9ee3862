"""Every sensor can fail: on a table whose chance is observed (physical decks and boards), every chance
outcome the Dead Reckoning engine can wait for has a way in from a tablet when no sensor reads it, and the
ocean-grid camera's reading of a board still wins while it is live.

Rulebook (Dead Reckoning, "Exploring"): "When a Ship moves onto a square with a face-down Ocean board, the
Ship must stop and the board is revealed." At a table with no camera live, the game waited for that board
forever: only the camera reported it (found last round).
"""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from controller import games
from controller.battles import BattleDriver
from controller.core import TableCore, tablet_may_send
from controller.gamelog import GameLog
from controller.liveness import CAMERA_SILENT_S
from controller.mqtt import MqttLink
from controller.ships import CAMERA_REVEAL_WAIT_S, ShipWatcher
from controller.testing import Client
from rules.dead_reckoning.game import game_for
from tests.controller.test_manual_battle import finish_by_hand
from tests.support.broker import mosquitto  # noqa: F401
from tests.support.game import quick_log

TABLE = "bh"
DR = games.by_name("dead-reckoning")
# Every variant of the Dead Reckoning engine a table can play: the base game, Letters of Marque, Deep Legends'
# saga, both together.
VARIANTS = ("base", "letters-of-marque", "deep-legends", "both")


def options_of(variant: str) -> dict[str, Any]:
    """A new game's options for a variant (Deep Legends with the sample saga and accelerated discovery)."""
    from rules.dead_reckoning.deep_legends import saga

    out: dict[str, Any] = {}
    if variant in ("letters-of-marque", "both"):
        out["expansions"] = ["letters-of-marque"]
    if variant in ("deep-legends", "both"):
        out["deep_legends"] = {"saga": saga.new_saga_state(saga.load_saga()), "accelerate": True}
    return out


def engine_chance_kinds(options: dict[str, Any]) -> set[str]:
    """The chance kinds the engine itself declares (its actions marked `chance`), not a hand list."""
    return {t for t, a in game_for(options).actions.items() if a.chance}


@pytest.mark.parametrize("variant", VARIANTS)
def test_every_chance_kind_of_the_engine_has_a_by_hand_route(variant: str) -> None:
    """Each chance kind the engine can wait for is one a seated player's tablet may report when no sensor
    is live: open (any seat), secret (the drawing player's own tablet) or read by the camera while it is
    live and by a tablet while it is not. A new chance kind without a route fails here."""
    kinds = engine_chance_kinds(options_of(variant))
    assert {"reveal_board", "draw_advancement", "draw_sailors"} <= kinds, kinds
    routes = DR.open_chance | DR.secret_chance | DR.camera_chance
    assert kinds <= routes, f"no by-hand route for {sorted(kinds - routes)}"
    for kind in sorted(kinds):
        pending = {"kind": kind, "player": "red"}
        assert tablet_may_send({"type": kind}, "red", True, pending, DR, ocean_camera_live=False), kind
        # Never from a tablet where the engine draws its own chance (simulation, digital play).
        assert not tablet_may_send({"type": kind}, "red", False, pending, DR), kind
    for kind in DR.camera_chance:
        # The camera's reading wins while it is live.
        assert not tablet_may_send({"type": kind}, "red", True, None, DR, ocean_camera_live=True)


def test_the_great_sea_s_chance_kinds_each_have_a_by_hand_route_too() -> None:
    """The other game the table plays, by its own declaration: no camera reads its chance (who goes first, the
    last Special Action Card Pile's deal), so each is open to any seated player's tablet."""
    from rules.great_sea.game import GAME

    sea = games.by_name("great-sea")
    kinds = {t for t, a in GAME.actions.items() if a.chance}
    assert kinds and kinds <= sea.open_chance | sea.secret_chance | sea.camera_chance, kinds
    for kind in kinds:
        assert tablet_may_send({"type": kind}, "red", True, {"kind": kind, "player": "red"}, sea)


def _tablet_actions(core: TableCore) -> list[tuple[str, dict[str, Any]]]:
    """What each seated player's tablet is offered now (the controller's filter of the engine's list): the
    legal actions of the latest state the core published for that player, where a `Latest` publisher
    keeps them, else built afresh."""
    pub = core.publisher
    out = []
    for p in core.players:
        payload = pub.latest.get(f"{core.topic}/player/{p}/state") if isinstance(pub, Latest) else None
        if payload is None or payload.get("seq") != core.seq:
            payload = core.private_payload(p)
        out += [(p, a) for a in payload["legal_actions"] if a.get("type") != "resolve_battle"]
    return out


class Latest:
    """A publisher keeping the latest payload per topic (what a subscriber would hold), no broker."""

    def __init__(self) -> None:
        self.latest: dict[str, Any] = {}

    def publish(self, topic: str, payload: Any, retain: bool = False) -> None:
        self.latest[topic] = payload


@pytest.mark.parametrize("variant", VARIANTS)
def test_an_observed_game_with_no_sensor_never_waits_for_what_no_tablet_can_report(
    variant: str, tmp_path: Path
) -> None:
    """Seeded play of only what the tablets are offered (battles entered by hand), no camera, no tower: at
    every step some tablet can act, and the chance the engine waited for was reported from tablets."""
    core = TableCore(quick_log(tmp_path / "w.db"), "w", publisher=Latest())
    core.open_game(["red", "blue", "green"], 7, {"auto_chance": False, **options_of(variant)})
    driver = BattleDriver(core, sensors={"tower": False, "camera": False})
    driver.sync()
    rng = random.Random(3)
    reported: set[str] = set()
    kinds = engine_chance_kinds(options_of(variant))
    try:
        for _ in range(400):
            if core.engine.is_over(core.state):
                break
            if driver.session is not None:
                finish_by_hand(core, driver, driver.session.setup.battle_id)
                continue
            offered = _tablet_actions(core)
            pending = core.state.data["pending"]
            assert offered, f"no tablet can act at seq {core.seq}; the game waits for {pending[:1]}"
            chance = [(p, a) for p, a in offered if a["type"] in kinds]
            if pending:
                assert chance, f"the game waits for {pending[0]} and no tablet is offered it"
            player, action = rng.choice(chance or offered)
            reply = core.handle_command(
                player, json.dumps({"request_id": "x", "seq": core.seq, "action": action})
            )
            assert reply["accepted"], reply
            if action["type"] in kinds:
                reported.add(action["type"])
        # Setup alone waits for boards, cards, Sailor draws and the first player: all came from tablets.
        assert {"reveal_board", "draw_advancement", "draw_sailors", "choose_first_player"} <= reported
    finally:
        core.log.close()


def _explore_by_tablets(
    core: TableCore, driver: BattleDriver, rng: random.Random, ask: Any
) -> dict[str, Any]:
    """Tablet play (only what each tablet is offered, sent through `ask`; a battle entered by hand) until a
    ship has sailed onto a face-down board in the main phase; returns the reveal the engine waits for."""
    for _ in range(600):
        pending = core.state.data["pending"]
        if pending and pending[0]["kind"] == "reveal_board" and core.state.data["phase"] == "main":
            return dict(pending[0])
        if driver.session is not None:
            finish_by_hand(core, driver, driver.session.setup.battle_id)
            continue
        offered = _tablet_actions(core)
        assert offered, f"no tablet can act at seq {core.seq}"
        chance = [(p, a) for p, a in offered if a["type"] in core.game.open_chance | core.game.secret_chance]
        reveals = [(p, a) for p, a in offered if a["type"] == "reveal_board"]
        moves = [(p, a) for p, a in offered if a["type"] in ("move", "set_sails")]
        ends = [(p, a) for p, a in offered if a["type"] == "end_turn"]
        player, action = rng.choice(reveals or chance or moves or ends or offered)
        ask(player, action)
    raise AssertionError("no ship explored a face-down board in 600 tablet actions")


def test_no_camera_the_tablets_report_the_ocean_board_turned_up_over_the_broker(
    mosquitto,  # noqa: F811
    tmp_path: Path,
) -> None:
    """A real Mosquitto with the deploy ACL, each tablet logged in with its own credentials: with no camera,
    the board a ship explores is reported by a seated player's tablet from the engine's options (the boards
    that can be there), the table view says the ocean camera is entered by hand; once the camera is live its
    reading wins and the tablets are no longer offered the board."""
    log = GameLog(tmp_path / "b.db")
    link = MqttLink(
        mosquitto.host, mosquitto.port, "controller", mosquitto.users["controller"], table_id=TABLE
    )
    core = TableCore(log, table_id=TABLE, publisher=link)
    core.open_game(["red", "blue"], 11, {"auto_chance": False})
    driver = BattleDriver(core, sensors={"tower": False, "camera": False})
    driver.sync()
    link.start(core)
    tablets = {p: Client(mosquitto, p) for p in core.players}
    table_view = Client(mosquitto, "display")
    try:
        for p, t in tablets.items():
            assert t.wait_connected()
            t.subscribe(f"table/{TABLE}/player/{p}/#")
        assert table_view.wait_connected()
        table_view.subscribe(f"table/{TABLE}/state")
        n = [0]

        def ask(player: str, action: dict[str, Any]) -> dict[str, Any]:
            """Tap: the player's tablet sends an action it was offered in its own state message."""
            n[0] += 1
            rid = f"r{n[0]}"
            return tablets[player].command(
                f"table/{TABLE}/player/{player}/cmd", {"request_id": rid, "seq": core.seq, "action": action}
            )

        def offered_on(player: str) -> list[dict[str, Any]]:
            """The legal actions of the player's latest state message at the core's seq (as its tablet has
            it: the state arrives before the reply, so it is looked up among the messages received)."""
            seq = core.seq

            def mine(m: Any) -> bool:
                return m.topic.endswith(f"player/{player}/state") and json.loads(m.payload)["seq"] == seq

            tablets[player].seen(mine)
            last = [m for m in tablets[player].history if mine(m)][-1]
            return list(json.loads(last.payload)["legal_actions"])

        # Setup's first board, from red's tablet (the defect: nothing could report it).
        first = offered_on("red")
        assert first and all(a["type"] == "reveal_board" for a in first), first
        reply = ask("red", first[0])
        assert reply["accepted"], reply
        state = json.loads(table_view.seen(lambda m: json.loads(m.payload)["seq"] == reply["seq"]).payload)
        assert state["sensors"]["ocean_camera"] == "manual", state["sensors"]

        def send(player: str, action: dict[str, Any]) -> None:
            r = ask(player, action)
            assert r["accepted"], r

        want = _explore_by_tablets(core, driver, random.Random(2), send)
        # Mid-game: a ship stopped on a face-down board; every seated tablet is offered the boards that can
        # be there, the engine's own options.
        boards = {p: [a for a in offered_on(p) if a["type"] == "reveal_board"] for p in core.players}
        engine = [a for a in core.engine.legal_actions(core.state, "table") if a["type"] == "reveal_board"]
        assert boards["red"] == boards["blue"] == engine and engine, boards
        assert all(a["square"] == want["square"] for a in engine)
        # The camera comes on: its reading wins, the tablets are offered the board no more and refused it.
        watcher = ShipWatcher(core)
        watcher.camera({"reading": {"status": "ok", "ships": [], "boards": []}})
        assert core.ocean_camera_live
        seq = core.seq
        tablets["blue"].wait_for(
            lambda m: (
                m.topic.endswith("player/blue/state")
                and json.loads(m.payload)["seq"] == seq
                and not [a for a in json.loads(m.payload)["legal_actions"] if a["type"] == "reveal_board"]
            )
        )
        refused = ask("blue", engine[0])
        assert refused["accepted"] is False and refused["kind"] == "illegal", refused
        seq = core.seq
        pick = engine[-1]
        watcher.camera(
            {
                "reading": {
                    "status": "ok",
                    "ships": [],
                    "boards": [{"square": pick["square"], "face_up": True, "board": pick["board"]}],
                }
            }
        )
        assert core.seq > seq and watcher.reveals == 1
        cell = core.engine.public_view(core.state)["grid"][pick["square"]]
        assert cell["face_up"], cell
        sensors = json.loads(table_view.seen(lambda m: json.loads(m.payload)["seq"] == core.seq).payload)[
            "sensors"
        ]
        assert sensors["ocean_camera"] == "live", sensors
    finally:
        for t in (*tablets.values(), table_view):
            t.close()
        link.stop()
        log.close()


class Clock:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


@pytest.fixture
def camera_read_once(tmp_path: Path) -> Iterator[tuple[Clock, TableCore, ShipWatcher]]:
    """An observed 2-player game on a clock the test moves, whose ocean camera has read the table once."""
    clock = Clock()
    core = TableCore(GameLog(tmp_path / "s.db"), "s", clock=clock)
    core.open_game(["red", "blue"], 5, {"auto_chance": False})
    try:
        watcher = ShipWatcher(core)
        watcher.camera({"reading": {"status": "ok", "ships": [], "boards": []}})
        yield clock, core, watcher
    finally:
        core.log.close()


def test_a_live_camera_silent_while_a_board_waits_hands_it_to_the_tablets(
    camera_read_once: tuple[Clock, TableCore, ShipWatcher],
) -> None:
    """A camera that was live but says nothing while a board waits to be turned up counts as silent after
    CAMERA_REVEAL_WAIT_S: the tablets are asked; its next reading makes it live again."""
    clock, core, watcher = camera_read_once
    assert core.ocean_camera_live
    assert core.state.data["pending"][0]["kind"] == "reveal_board"
    assert not [a for a in core.private_payload("red")["legal_actions"] if a["type"] == "reveal_board"]
    watcher.tick()
    clock.t += CAMERA_REVEAL_WAIT_S - 1
    watcher.tick()
    assert core.ocean_camera_live
    clock.t += 2
    watcher.tick()
    assert not core.ocean_camera_live
    assert core.sensors()["ocean_camera"] == "manual"
    assert [a for a in core.private_payload("red")["legal_actions"] if a["type"] == "reveal_board"]
    watcher.camera({"reading": {"status": "ok", "ships": [], "boards": []}})
    assert core.ocean_camera_live and core.sensors()["zones"] == "manual"


def test_an_ocean_camera_whose_process_falls_silent_is_manual_until_it_speaks_again(
    camera_read_once: tuple[Clock, TableCore, ShipWatcher],
) -> None:
    """The brief: "Every sensor can fail: the table always lets people go on by hand, and says which
    sensors are live." A watcher that sends heartbeats (vision.settled_publisher) and then says nothing for
    CAMERA_SILENT_S is shown as entered by hand (before the reveal wait); its next heartbeat makes it live."""
    clock, core, watcher = camera_read_once
    beat = {"topic": "vision.table", "heartbeat": True, "frame": 9, "published": 1, "timestamp": 1.0}
    for _ in range(3):  # heartbeats keep a camera that reads nothing new live, and are not readings
        clock.t += CAMERA_SILENT_S - 1
        watcher.camera(beat)
        watcher.tick()
        assert core.ocean_camera_live and watcher.camera_reading == {
            "status": "ok",
            "ships": [],
            "boards": [],
        }
    clock.t += CAMERA_SILENT_S
    watcher.tick()
    assert not core.ocean_camera_live and core.sensors()["ocean_camera"] == "manual"
    assert [a for a in core.private_payload("red")["legal_actions"] if a["type"] == "reveal_board"]
    watcher.camera(beat)
    assert core.ocean_camera_live and core.sensors()["ocean_camera"] == "live"
