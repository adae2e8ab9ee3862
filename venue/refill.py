"""The venue's gap refill, the table's side: re-send from the table's own SQLite log what the venue lacks.

A table's broker queues what it publishes while the venue is unreachable, but only up to Mosquitto's
`max_queued_messages` (1000); a table offline for an hour, or one whose broker restarted, has more than
that only in its game log (controller.gamelog). So each time the table's bridge connects to the venue (the
bridge's notification `table/<tid>/venue` = `1` on the table's own broker), the controller publishes an
index of its recent games on `table/<tid>/refill/index`: each game's id, players, result once finished,
and the seqs its events were published with. The venue service compares it with what it stored and asks on
`table/<tid>/refill/ask` for the seqs it lacks; the table answers each on `table/<tid>/refill/events`, in
the shape of `table/<tid>/events` plus `"refill": true`. Both directions cross the bridge (controller.broker
names the topics). The venue stores events keyed by (table, game, seq), so an answer that also arrived
from the queue, or an index sent twice, changes nothing.

Payloads (docs/venue.md):
- index: {"games": [{"epoch", "players", "finished": bool, "result": scores|null, "seqs": [int, ...]}]}
- ask:   {"epoch": game id, "seqs": [int, ...]}, or {"index": true}: send the index again (the venue
         service asks every table it knows when its broker session is new, i.e. the broker lost it)
- answer: {"epoch", "seq", "events": [public events], "refill": true}
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable
from typing import Any

from contracts.topics import VENUE_REFILL_IN
from controller.gamelog import GameLog

log = logging.getLogger(__name__)

MAX_ASK = 20_000  # seqs answered per ask: a whole long game, while a forged ask cannot make it unbounded


def public_events(events: list[dict[str, Any]], view: Callable[..., dict[str, Any]] | None) -> list[Any]:
    """Events as the table published them (the engine's public view; without one, the types only, as
    controller.core.publish_events does)."""
    return [view(e, None) if view else {"type": e.get("type")} for e in events if isinstance(e, dict)]


class TableRefill:
    """Answers the venue from the table's game log; `publish(topic, payload)` is the MQTT link."""

    def __init__(
        self,
        gamelog: GameLog,
        table_id: str,
        publish: Callable[[str, Any], None],
        event_view: Callable[..., dict[str, Any]] | None = None,
        recent: int = 10,
    ) -> None:
        self.log, self.table_id, self.publish = gamelog, table_id, publish
        self.event_view, self.recent = event_view, recent
        self.answered = 0  # events messages re-sent
        self._lock = threading.Lock()  # one answer at a time, in the order asked

    def handlers(self) -> dict[str, Callable[[bytes], None]]:
        """Topic suffix (after `table/<tid>/`) -> handler, for the controller's MQTT link to subscribe."""
        return {"venue": self.on_link, VENUE_REFILL_IN: self.on_ask}

    def on_link(self, payload: bytes) -> None:
        if payload.strip().strip(b'"') == b"1":
            self._later(self.publish_index)

    def on_ask(self, payload: bytes) -> None:
        try:
            ask = json.loads(payload)
            if isinstance(ask, dict) and ask.get("index") is True:
                # The venue lost what we sent when the link came up (its broker restarted): the index again.
                self._later(self.publish_index)
                return
            epoch, seqs = ask["epoch"], ask["seqs"]
            if not isinstance(epoch, str) or not isinstance(seqs, list):
                raise TypeError("epoch must be a string and seqs a list")
            wanted = {int(s) for s in seqs[:MAX_ASK]}
        except (ValueError, KeyError, TypeError) as exc:
            log.warning("the venue's refill ask is not {epoch, seqs} (%s); ignored", exc)
            return
        self._later(lambda: None if self.answer(epoch, wanted) else None)

    def _later(self, job: Callable[[], None]) -> None:
        # Off the MQTT thread: a long answer must not hold up the players' commands.
        def run() -> None:
            with self._lock:
                try:
                    job()
                except Exception:  # noqa: BLE001 - the venue is a courtesy; the table plays on
                    log.exception("the venue refill failed")

        threading.Thread(target=run, name="venue-refill", daemon=True).start()

    def index(self) -> dict[str, Any]:
        games = self.log.games(self.table_id)[-self.recent :]
        return {
            "games": [
                {
                    "epoch": g.game_id,
                    "players": g.players,
                    "finished": g.finished is not None,
                    "result": g.result,
                    "seqs": sorted({seq for seq, _ in self.log.events_by_seq(g.game_id)}),
                }
                for g in games
            ]
        }

    def publish_index(self) -> None:
        self.publish(f"table/{self.table_id}/refill/index", self.index())

    def answer(self, epoch: str, seqs: set[int]) -> int:
        """Re-send the events of `seqs` of game `epoch` (this table's only); returns how many messages."""
        game = self.log.game(epoch)
        if game is None or game.table_id != self.table_id:
            log.warning("the venue asked for game %s, which this table does not have; ignored", epoch)
            return 0
        by_seq: dict[int, list[dict[str, Any]]] = {}
        for seq, event in self.log.events_by_seq(epoch):
            if seq in seqs:
                by_seq.setdefault(seq, []).append(event)
        for seq in sorted(by_seq):
            payload = {
                "epoch": epoch,
                "seq": seq,
                "events": public_events(by_seq[seq], self.event_view),
                "refill": True,
            }
            self.publish(f"table/{self.table_id}/refill/events", payload)
            self.answered += 1
        return len(by_seq)
