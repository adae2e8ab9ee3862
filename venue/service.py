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
import threading
from typing import Any

import paho.mqtt.client as mqtt
import psycopg

from venue.store import VenueStore, parse

log = logging.getLogger(__name__)

TOPICS = ("table/+/state", "table/+/events", "table/+/venue", "table/+/refill/index", "table/+/refill/events")
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
        self._db_lost = threading.Event()
        self._connected = threading.Event()
        self.client = mqtt.Client(
            mqtt.CallbackAPIVersion.VERSION2,
            client_id=client_id,
            clean_session=False,
            protocol=mqtt.MQTTv311,
            manual_ack=True,
        )
        self.client.username_pw_set(username, password)
        self.client.on_connect = self._on_connect
        self.client.on_disconnect = self._on_disconnect
        self.client.on_message = self._on_message
        self.host, self.port = host, port

    def run(self, stop: threading.Event) -> None:
        """Until `stop`: keep the database and the broker connected, reconnecting each as needed. The broker
        is connected only while the database is: what arrives meanwhile waits at the broker."""
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
            if self._db_lost.wait(0.2):
                log.warning("the venue database stopped answering: pausing the broker until it is back")
                self._stop_listening()
                listening = False
                self._close_store()
                self._db_lost.clear()
        if listening:
            self._stop_listening()
        if self.store is not None:
            self._close_store()

    def _stop_listening(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()

    def wait_connected(self, timeout: float) -> bool:
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

    def _on_connect(self, client: mqtt.Client, _u: Any, _flags: Any, reason: Any, _props: Any = None) -> None:
        if reason.is_failure:
            log.error("the venue broker refused the venue service's login: %s", reason)
            return
        for topic in TOPICS:
            client.subscribe(topic, qos=1)
        self._connected.set()

    def _on_disconnect(self, _c: mqtt.Client, _u: Any, _flags: Any, _reason: Any, _props: Any = None) -> None:
        self._connected.clear()

    def _on_message(self, client: mqtt.Client, _u: Any, msg: mqtt.MQTTMessage) -> None:
        parts = msg.topic.split("/")
        store = self.store
        if store is None or self._db_lost.is_set():
            return  # not acknowledged: the broker delivers it again after the reconnect
        kind = "/".join(parts[2:])
        try:
            payload = parse(msg.payload)
            if kind == "refill/index":
                self._ask(client, parts[1], store.missing(parts[1], payload))
            else:
                store.record(parts[1], kind, payload)
            self.stored += 1
        except psycopg.OperationalError:
            self._db_lost.set()
            return
        except (ValueError, KeyError, TypeError, psycopg.DataError) as exc:
            self.rejected += 1
            log.error("table %s sent a %s message the venue cannot store (%s); skipped", parts[1], kind, exc)
        client.ack(msg.mid, msg.qos)

    def _ask(self, client: mqtt.Client, table_id: str, lacking: list[tuple[str, list[int]]]) -> None:
        """Ask a table for the events the venue lacks (venue/refill.py answers from the table's log)."""
        for epoch, seqs in lacking:
            log.info("asking table %s for %d events of game %s the venue lacks", table_id, len(seqs), epoch)
            self.asked += len(seqs)
            for i in range(0, len(seqs), ASK_CHUNK):
                ask = json.dumps({"epoch": epoch, "seqs": seqs[i : i + ASK_CHUNK]})
                client.publish(f"table/{table_id}/refill/ask", ask, qos=1)
