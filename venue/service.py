"""The venue service: subscribes to every table's bridged public topics and stores them (venue.store).

Nothing is lost when the database or this service goes away: the service keeps a persistent MQTT
session (a fixed client id, clean session off) and acknowledges a message only after its transaction
commits. When the database stops answering it disconnects from the broker and waits for the database;
on reconnecting, the broker delivers again every message not acknowledged, and what was queued meanwhile,
and the store's idempotent writes make the repeats harmless.
"""

from __future__ import annotations

import json
import logging
import queue
import threading
from typing import Any

import paho.mqtt.client as mqtt
import psycopg

from venue.store import Statement, VenueStore, parse, statements

log = logging.getLogger(__name__)

TOPICS = ("table/+/state", "table/+/events", "table/+/venue", "table/+/refill/index", "table/+/refill/events")
# Messages stored in one transaction: one commit per message held the venue to ~70 rows/s on a loaded
# 2-core machine (docs/venue.md); the venue broker's max_inflight_messages bounds a batch too.
BATCH = 500
ASK_CHUNK = 2000  # seqs per ask: a message of some kilobytes, a long game in one or two


class VenueService:
    def __init__(
        self,
        host: str,
        port: int,
        username: str,
        password: str,
        dsn: str,
        client_id: str = "venue",
        retry: float = 1.0,
    ) -> None:
        self.dsn, self.retry = dsn, retry
        self.store: VenueStore | None = None
        self.stored = 0  # messages stored (or found already stored) and acknowledged
        self.rejected = 0  # messages that were not JSON or lacked their fields: logged, acknowledged
        self.asked = 0  # events asked of the tables' logs (the gap refill)
        self._inbox: queue.Queue[mqtt.MQTTMessage] = queue.Queue()
        self._fresh_session = threading.Event()
        # Set once the broker has acknowledged this connection's subscriptions, not at its CONNACK: a
        # message published between the two would reach no subscriber (lost for good on a new session).
        self._connected = threading.Event()
        self._subscribe_mid: int | None = None
        self.client = mqtt.Client(
            mqtt.CallbackAPIVersion.VERSION2,
            client_id=client_id,
            clean_session=False,
            protocol=mqtt.MQTTv311,
            manual_ack=True,
        )
        self.client.username_pw_set(username, password)
        self.client.on_connect = self._on_connect
        self.client.on_subscribe = self._on_subscribe
        # paho backs off to 2 minutes by default: a venue broker back from a restart would wait that long.
        self.client.reconnect_delay_set(1, 5)
        self.client.on_disconnect = self._on_disconnect
        self.client.on_message = self._on_message
        self.host, self.port = host, port

    def run(self, stop: threading.Event) -> None:
        """Until `stop`: keep the database and the broker connected, reconnecting each as needed, and store
        what arrives in batches. The broker is connected only while the database is: what arrives meanwhile
        waits at the broker."""
        listening = False
        while not stop.is_set():
            if self.store is None:
                self.store = self._open_store()
                if self.store is None:
                    stop.wait(self.retry)
                    continue
            if not listening:
                self.client.connect_async(self.host, self.port, keepalive=30)
                self.client.loop_start()
                listening = True
            if self._fresh_session.is_set() and self._connected.is_set():
                self._fresh_session.clear()
                self._ask_indexes()
            if not self._write_batch(0.2):
                log.warning("the venue database stopped answering: pausing the broker until it is back")
                self._stop_listening()
                listening = False
                # Received, not stored, not acknowledged: the broker delivers them again after the reconnect.
                while not self._inbox.empty():
                    self._inbox.get_nowait()
                self._close_store()
        if listening:
            self._stop_listening()
        if self.store is not None:
            self._close_store()

    def _write_batch(self, timeout: float) -> bool:
        """Store what has arrived (up to BATCH messages) in one transaction, then acknowledge it; False when
        the database stopped answering (nothing of the batch acknowledged)."""
        try:
            batch = [self._inbox.get(timeout=timeout)]
        except queue.Empty:
            return True
        while len(batch) < BATCH:
            try:
                batch.append(self._inbox.get_nowait())
            except queue.Empty:
                break
        store = self.store
        assert store is not None
        asks: list[tuple[str, list[tuple[str, list[int]]]]] = []
        writes: list[list[Statement]] = []
        indexes: list[tuple[str, Any]] = []
        stored = rejected = 0
        for msg in batch:
            parts = msg.topic.split("/")
            kind = "/".join(parts[2:])
            try:
                payload = parse(msg.payload)
                if kind == "refill/index":
                    indexes.append((parts[1], payload))
                else:
                    writes.append(statements(parts[1], kind, payload))
            except (ValueError, KeyError, TypeError) as exc:
                rejected += 1
                log.error(
                    "table %s sent a %s message the venue cannot store (%s); skipped", parts[1], kind, exc
                )
        try:
            try:
                store.record_many(writes)
            except psycopg.DataError:
                # One message the database refuses (a number out of range): store the others one by one.
                for stmts in writes:
                    try:
                        store.record_many([stmts])
                    except psycopg.DataError as exc:
                        rejected += 1
                        writes = [w for w in writes if w is not stmts]
                        log.error("a message the venue cannot store (%s); skipped", exc)
            stored += len(writes)
            for table_id, index in indexes:
                try:
                    asks.append((table_id, store.missing(table_id, index)))
                    stored += 1
                except (ValueError, KeyError, TypeError, psycopg.DataError) as exc:
                    rejected += 1
                    log.error(
                        "table %s sent a refill index the venue cannot read (%s); skipped", table_id, exc
                    )
        except (psycopg.OperationalError, psycopg.InterfaceError):
            return False
        for msg in batch:
            self.client.ack(msg.mid, msg.qos)
        self.stored += stored
        self.rejected += rejected
        for table_id, lacking in asks:
            self._ask(table_id, lacking)
        return True

    def _stop_listening(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()

    def wait_connected(self, timeout: float) -> bool:
        """Whether the service is listening within `timeout` seconds: connected, and its subscriptions
        acknowledged by the broker (what a table publishes from then on reaches it)."""
        return self._connected.wait(timeout)

    # -- internals ---------------------------------------------------------------------------------

    def _open_store(self) -> VenueStore | None:
        try:
            store = VenueStore(self.dsn)
            store.migrate()
            return store
        except psycopg.OperationalError as exc:
            log.warning("the venue database is not reachable (%s); trying again in %.0f s", exc, self.retry)
            return None

    def _close_store(self) -> None:
        assert self.store is not None
        try:
            self.store.close()
        finally:
            self.store = None

    def _on_connect(self, client: mqtt.Client, _u: Any, flags: Any, reason: Any, _props: Any = None) -> None:
        if reason.is_failure:
            log.error("the venue broker refused the venue service's login: %s", reason)
            return
        if not getattr(flags, "session_present", False):
            # A new session: the broker lost ours (it crashed, or this is the first start), and with it
            # whatever the tables sent before we subscribed, their refill index included: ask them again.
            self._fresh_session.set()
        # One SUBSCRIBE for every topic: its SUBACK (_on_subscribe) says the service is listening.
        self._subscribe_mid = client.subscribe([(topic, 1) for topic in TOPICS])[1]

    def _on_subscribe(self, _c: mqtt.Client, _u: Any, mid: int, reasons: Any, _props: Any = None) -> None:
        if mid != self._subscribe_mid:
            return
        refused = [t for t, r in zip(TOPICS, reasons, strict=False) if r.is_failure]
        if refused:
            log.error("the venue broker refused the venue service's subscriptions %s: check its ACL", refused)
        self._connected.set()

    def _on_disconnect(self, _c: mqtt.Client, _u: Any, _flags: Any, _reason: Any, _props: Any = None) -> None:
        self._connected.clear()

    def _on_message(self, _client: mqtt.Client, _u: Any, msg: mqtt.MQTTMessage) -> None:
        self._inbox.put(msg)  # stored and acknowledged by run()'s thread, the only one using the database

    def _ask_indexes(self) -> None:
        """Ask every table the venue knows for its refill index (`{"index": true}`, venue/refill.py)."""
        assert self.store is not None
        try:
            tables = [t["table_id"] for t in self.store.tables()]
        except (psycopg.OperationalError, psycopg.InterfaceError):
            self._fresh_session.set()  # asked again once the database is back
            return
        for table_id in tables:
            self.client.publish(f"table/{table_id}/refill/ask", json.dumps({"index": True}), qos=1)
        log.info("a new broker session: asked %d tables for what the venue may have missed", len(tables))

    def _ask(self, table_id: str, lacking: list[tuple[str, list[int]]]) -> None:
        """Ask a table for the events the venue lacks (venue/refill.py answers from the table's log)."""
        for epoch, seqs in lacking:
            log.info("asking table %s for %d events of game %s the venue lacks", table_id, len(seqs), epoch)
            self.asked += len(seqs)
            for i in range(0, len(seqs), ASK_CHUNK):
                ask = json.dumps({"epoch": epoch, "seqs": seqs[i : i + ASK_CHUNK]})
                self.client.publish(f"table/{table_id}/refill/ask", ask, qos=1)
