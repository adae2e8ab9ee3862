"""The venue fills a gap longer than the bridge's queue from the table's own SQLite log (venue/refill.py):
a real table Mosquitto bridged to a real venue Mosquitto, the venue service on a real PostgreSQL, the
controller's MQTT link answering from a real game log of bot games."""

from __future__ import annotations

import json
import random
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from controller.broker import venue_bridge, write_broker_files
from controller.credentials import login
from controller.gamelog import GameLog
from controller.mqtt import MqttLink
from controller.testing import Client, free_port
from rules import api
from tests.support.postgres import Postgres, empty_database, shared_postgres
from tests.support.venue import make_venue, mosquitto_at, start_venue
from venue.refill import TableRefill
from venue.service import VenueService
from venue.store import VenueStore

TABLE = "table-1"
PLAYERS = ["red", "blue"]


@pytest.fixture
def postgres(postgres_cluster: Postgres) -> Postgres:
    return shared_postgres(postgres_cluster)


def _play(log: GameLog, seed: int, commands: int) -> tuple[str, list[int]]:
    """A bot game logged as the controller logs it; returns its id and the seqs its events carry."""
    state = api.new_game(PLAYERS, seed)
    game_id = log.create_game(TABLE, PLAYERS, seed, {}, [], api.state_to_json(state), state.seq)
    rng = random.Random(seed)
    for _ in range(commands):
        who = state.active or "table"
        command = {"seq": state.seq, "player": who, "action": rng.choice(api.legal_actions(state, who))}
        state, events = api.apply(state, command)
        log.append(game_id, command, events, state.seq)
    return game_id, sorted({seq for seq, _ in log.events_by_seq(game_id)})


def _until(check: Callable[[], bool], timeout: float, what: str) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.1)


def test_a_table_back_after_more_than_its_queue_fills_the_venue_from_its_log(
    postgres: Postgres, tmp_path: Path
) -> None:
    log = GameLog(tmp_path / "table.db")
    finished, finished_seqs = _play(log, 1, 40)
    log.finish(finished, {"red": 12, "blue": 9})
    running, running_seqs = _play(log, 2, 30)
    empty_database(postgres.dsn)
    store = VenueStore(postgres.dsn)
    store.migrate()
    # What the venue got live before the link dropped: the running game's first five commands.
    for seq in running_seqs[:5]:
        store.record(TABLE, "events", {"epoch": running, "seq": seq, "events": []})

    venue_cfg = make_venue(tmp_path / "venue", [TABLE])
    stop = threading.Event()
    with start_venue(venue_cfg) as venue:
        service = VenueService(
            venue.host,
            venue.port,
            "venue",
            venue.users["venue"],
            postgres.dsn,
            client_id="venue-svc",
            retry=0.2,
        )
        runner = threading.Thread(target=service.run, args=(stop,))
        runner.start()
        try:
            assert service.wait_connected(30)
            asks = Client(venue, "venue", venue.users["venue"], protocol="3.1.1")  # client id `venue` too
            assert asks.wait_connected()
            asks.subscribe(f"table/{TABLE}/refill/ask")

            # The table comes back: its broker bridges to the venue, its controller answers from the log.
            users = {login(TABLE, "controller"): "c-secret"}
            port, ws = free_port(), free_port()
            bridge = venue_bridge(
                TABLE,
                {"host": "127.0.0.1", "port": venue.port, "password": venue.users[login(TABLE, "bridge")]},
            )
            conf = write_broker_files(
                tmp_path / "table", users, "127.0.0.1", port, ws, "127.0.0.1", extra=bridge
            )
            with mosquitto_at(conf, tmp_path / "table", port, ws, users):
                link = MqttLink("127.0.0.1", port, "controller", "c-secret", table_id=TABLE, protocol="3.1.1")
                refill = TableRefill(log, TABLE, link.publish, api.event_view)
                link.handlers.update(refill.handlers())
                link.start(None)
                try:
                    _until(
                        lambda: (
                            [s for s, _ in store.events(TABLE, finished)] == finished_seqs
                            and [s for s, _ in store.events(TABLE, running)] == running_seqs
                        ),
                        60,
                        "both games' events to be refilled from the table's log",
                    )
                    # The venue asked only for what it lacked.
                    # (Its first broker session is new, so it may also have asked for the index again,
                    # `{"index": true}`, and then twice for the same seqs: harmless, idempotent.)
                    asked = [json.loads(m.payload) for m in asks.history]
                    asked_running = {s for a in asked if a.get("epoch") == running for s in a["seqs"]}
                    assert asked_running == set(running_seqs[5:])
                    # A refilled event is the public event the table published, not the log's raw one.
                    first = store.events(TABLE, finished)[1][1]
                    assert first and all(set(e) >= {"type"} for e in first)
                    # The finished game's result came with the index.
                    assert [r["scores"] for r in store.results() if r["epoch"] == finished] == [
                        {"red": 12, "blue": 9}
                    ]

                    # Idempotent: every answer sent again, and the index again, store nothing twice.
                    before = service.stored
                    again = refill.answer(finished, set(finished_seqs))
                    refill.publish_index()
                    _until(lambda: service.stored >= before + again + 1, 30, "the repeats to be handled")
                    assert [s for s, _ in store.events(TABLE, finished)] == finished_seqs
                    assert len(store.results()) == 1

                    # A venue whose broker lost its session asks for the index again; the table sends it.
                    before = service.stored
                    asks.publish(f"table/{TABLE}/refill/ask", json.dumps({"index": True}))
                    _until(lambda: service.stored > before, 30, "the index asked for again")
                finally:
                    link.stop()
        finally:
            stop.set()
            runner.join(30)
            store.close()
            log.close()


def test_a_table_with_a_venue_serves_the_refill_and_one_without_does_not(tmp_path: Path) -> None:
    from controller import config
    from controller.service import ControllerService

    for host, served in (("venue.local", True), ("", False)):
        cfg = config.defaults()
        cfg.set("table.database", str(tmp_path / f"{host or 'none'}.db"))
        cfg.set("venue.host", host)
        svc = ControllerService(cfg)
        assert svc.mqtt is not None
        assert set(svc.mqtt.handlers) == ({"venue", "refill/ask"} if served else set())
        svc.gamelog.close()
