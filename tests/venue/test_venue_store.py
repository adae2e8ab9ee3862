"""The venue's PostgreSQL store and service against a real PostgreSQL and a real venue Mosquitto."""

from __future__ import annotations

import contextlib
import json
import socket
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from controller.testing import Client
from tests.support.postgres import Postgres, empty_database
from tests.support.venue import make_venue, start_venue
from venue.service import VenueService
from venue.store import VenueStore, migrations
from venue.testing import until


@pytest.fixture
def store(postgres: Postgres) -> Iterator[VenueStore]:
    empty_database(postgres.dsn)
    s = VenueStore(postgres.dsn)
    yield s
    s.close()


def _state(epoch: str, seq: int, scores: object = None) -> dict[str, object]:
    view = {"phase": "main", "players": ["red", "blue"], "turn": seq // 3, "scores": scores}
    return {"epoch": epoch, "seq": seq, "view": view}


def test_migrations_bring_any_database_to_the_latest_and_then_do_nothing(store: VenueStore) -> None:
    latest = migrations()[-1][0]
    assert store.migrate() == latest
    assert store.migrate() == latest
    (count,) = store.conn.execute("SELECT COUNT(*) FROM venue_schema").fetchone() or (0,)
    assert count == len(migrations())


def test_a_message_delivered_twice_is_stored_once(store: VenueStore) -> None:
    store.migrate()
    events = {"epoch": "g1", "seq": 4, "events": [{"type": "set_sails"}]}
    store.record("table-1", "events", events)
    store.record("table-1", "events", events)
    assert store.events("table-1", "g1") == [(4, [{"type": "set_sails"}])]
    final = _state("g1", 9, scores={"red": 31, "blue": 28})
    store.record("table-1", "state", final)
    store.record("table-1", "state", final)
    assert [r["scores"] for r in store.results()] == [{"red": 31, "blue": 28}]


def test_a_table_only_moves_forward(store: VenueStore) -> None:
    store.migrate()
    store.record("table-1", "state", _state("g1", 7))
    store.record("table-1", "state", _state("g1", 5))  # a late redelivery of an older state
    assert store.tables()[0]["seq"] == 7
    store.record("table-1", "state", _state("g2", 1))  # a new game starts at seq 1
    assert (store.tables()[0]["epoch"], store.tables()[0]["seq"]) == ("g2", 1)


def _events(seq: int) -> str:
    return json.dumps({"epoch": "g1", "seq": seq, "events": []})


@contextlib.contextmanager
def _service_and_table(postgres: Postgres, delay: float = 0.0) -> Iterator[tuple[VenueService, Client]]:
    """A venue broker, the venue service listening on it (through a _SlowUpstream of `delay` seconds when
    given) and table-1's bridge login connected to it."""
    with tempfile.TemporaryDirectory(prefix="venue-") as tmp:
        venue_files = make_venue(Path(tmp), ["table-1"])
        with start_venue(venue_files) as venue:
            slow = _SlowUpstream(venue.port, delay) if delay else None
            port = slow.port if slow is not None else venue.port
            service = VenueService(venue.host, port, "venue", venue.users["venue"], postgres.dsn, retry=0.2)
            stop = threading.Event()
            runner = threading.Thread(target=service.run, args=(stop,))
            runner.start()
            try:
                assert service.wait_connected(30)
                table = Client(venue, "table-1/bridge", protocol="3.1.1")
                assert table.wait_connected()
                yield service, table
            finally:
                stop.set()
                runner.join(30)
                if slow is not None:
                    slow.close()


def test_nothing_is_lost_when_the_database_goes_away_in_the_middle(
    postgres: Postgres, store: VenueStore
) -> None:
    with _service_and_table(postgres) as (service, table):
        for seq in range(1, 6):
            table.publish("table/table-1/events", _events(seq))
        until(lambda: len(store.events("table-1", "g1")) == 5, 30, "the first five events")
        postgres.stop()
        for seq in range(6, 11):
            table.publish("table/table-1/events", _events(seq))
        table.publish("table/table-1/events", b"not json")
        postgres.start()
        store.conn = type(store.conn).connect(postgres.dsn)
        until(lambda: len(store.events("table-1", "g1")) == 10, 60, "the events sent while down")
        assert [seq for seq, _ in store.events("table-1", "g1")] == list(range(1, 11))
        until(lambda: service.rejected == 1, 30, "the garbled message to be refused")


class _SlowUpstream:
    """A loopback TCP proxy in front of a broker passing what its client sends `delay` seconds late (the
    broker's answers at once): the service's SUBSCRIBE reaches the broker well after its CONNACK came back,
    as it may on a loaded machine when the client's network thread is not scheduled."""

    def __init__(self, port: int, delay: float) -> None:
        self.target, self.delay = port, delay
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.sockets: list[socket.socket] = [self.listener]
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.listener.accept()
            except OSError:
                return
            upstream = socket.create_connection(("127.0.0.1", self.target))
            self.sockets += [conn, upstream]
            threading.Thread(target=self._pipe, args=(conn, upstream, self.delay), daemon=True).start()
            threading.Thread(target=self._pipe, args=(upstream, conn, 0.0), daemon=True).start()

    @staticmethod
    def _pipe(src: socket.socket, dst: socket.socket, delay: float) -> None:
        try:
            while data := src.recv(65536):
                time.sleep(delay)  # the latency this proxy simulates, not a wait for an event
                dst.sendall(data)
            dst.shutdown(socket.SHUT_WR)
        except OSError:
            pass

    def close(self) -> None:
        for s in self.sockets:
            s.close()


def test_the_service_says_it_is_connected_only_once_it_listens(postgres: Postgres, store: VenueStore) -> None:
    """`wait_connected` returns once the broker acknowledged the subscriptions: an event a table publishes
    the moment after is stored (it said so at the CONNACK before, and on a new session such an event was
    lost: the store test's "first five events" timed out once at load ~20)."""
    with _service_and_table(postgres, delay=1.5) as (_service, table):
        table.publish("table/table-1/events", _events(1))
        until(lambda: len(store.events("table-1", "g1")) == 1, 30, "the event published at once")
