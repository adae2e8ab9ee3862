"""The venue's PostgreSQL store: schema migrations and idempotent writes of what the tables publish.

Migrations are plain versioned SQL files (`venue/migrations/NNN_name.sql`), applied in order, each in its
own transaction with its number recorded in `venue_schema`, so `migrate()` on a database of any earlier
version brings it to the latest and on the latest does nothing. Every write is idempotent: an event is
keyed by (table, game, seq), a state only moves a table forward (a newer game or a higher seq), a result
is kept once per game; a message the broker delivers twice changes nothing the second time.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import psycopg
from psycopg.types.json import Jsonb

MIGRATIONS = Path(__file__).resolve().parent / "migrations"


def migrations() -> list[tuple[int, Path]]:
    """(version, file) of every migration, in order; a file not named NNN_*.sql is an error."""
    found = []
    for path in sorted(MIGRATIONS.glob("*.sql")):
        m = re.fullmatch(r"(\d{3})_[a-z0-9_]+\.sql", path.name)
        if m is None:
            raise ValueError(f"migration {path.name}: name it NNN_what_it_does.sql (three digits first)")
        found.append((int(m.group(1)), path))
    return found


class VenueStore:
    """One connection to the venue database (autocommit off: each write is one transaction)."""

    def __init__(self, dsn: str) -> None:
        self.dsn = dsn
        self.conn = psycopg.connect(dsn, connect_timeout=5)

    def close(self) -> None:
        self.conn.close()

    def migrate(self) -> int:
        """Apply every migration not yet applied; returns the schema version now."""
        with self.conn.transaction():
            self.conn.execute(
                "CREATE TABLE IF NOT EXISTS venue_schema (version INTEGER PRIMARY KEY, "
                "applied_at TIMESTAMPTZ NOT NULL DEFAULT now())"
            )
        for version, path in migrations():
            with self.conn.transaction():
                # One migrator at a time: a second venue service starting at once waits here.
                self.conn.execute("LOCK TABLE venue_schema IN EXCLUSIVE MODE")
                done = self.conn.execute("SELECT 1 FROM venue_schema WHERE version=%s", (version,)).fetchone()
                if done is None:
                    self.conn.execute(path.read_text())  # type: ignore[call-overload]  # trusted file
                    self.conn.execute("INSERT INTO venue_schema (version) VALUES (%s)", (version,))
        return self.version()

    def version(self) -> int:
        row = self.conn.execute("SELECT COALESCE(MAX(version), 0) FROM venue_schema").fetchone()
        self.conn.commit()
        return int(row[0]) if row else 0

    # -- writes ----------------------------------------------------------------------------------------

    def record(self, table_id: str, kind: str, payload: Any) -> None:
        """Store one message a table published (`kind`: the topic after `table/<tid>/`)."""
        self.record_many([statements(table_id, kind, payload)])

    def record_many(self, messages: list[list[Statement]]) -> None:
        """Store many messages' statements (statements()) in one transaction, pipelined: one round trip to
        the database for a batch instead of a few per message (docs/venue.md, the load test)."""
        with self.conn.transaction(), self.conn.pipeline():
            for stmts in messages:
                for sql, params in stmts:
                    self.conn.execute(sql, params)

    def missing(self, table_id: str, index: dict[str, Any]) -> list[tuple[str, list[int]]]:
        """A table's refill index (venue/refill.py): keep the results of its finished games, and return per
        game the seqs whose events the venue lacks (what to ask the table for)."""
        lacking: list[tuple[str, list[int]]] = []
        with self.conn.transaction():
            for game in index["games"]:
                epoch, seqs = str(game["epoch"]), {int(s) for s in game["seqs"]}
                if game.get("finished") and game.get("result"):
                    self.conn.execute(
                        "INSERT INTO venue_results (table_id, epoch, scores, players) VALUES (%s,%s,%s,%s) "
                        "ON CONFLICT DO NOTHING",
                        (table_id, epoch, Jsonb(game["result"]), Jsonb(game.get("players"))),
                    )
                rows = self.conn.execute(
                    "SELECT seq FROM venue_events WHERE table_id=%s AND epoch=%s", (table_id, epoch)
                ).fetchall()
                todo = sorted(seqs - {int(r[0]) for r in rows})
                if todo:
                    lacking.append((epoch, todo))
        return lacking

    # -- reads -----------------------------------------------------------------------------------------

    def tables(self) -> list[dict[str, Any]]:
        """Every table the venue has heard of: id, game, seq, phase, players, turn, link."""
        rows = self.conn.execute(
            "SELECT table_id, epoch, seq, phase, players, turn, link FROM venue_tables ORDER BY table_id"
        ).fetchall()
        self.conn.commit()
        keys = ("table_id", "epoch", "seq", "phase", "players", "turn", "link")
        return [dict(zip(keys, row, strict=True)) for row in rows]

    def events(self, table_id: str, epoch: str) -> list[tuple[int, Any]]:
        rows = self.conn.execute(
            "SELECT seq, events FROM venue_events WHERE table_id=%s AND epoch=%s ORDER BY seq",
            (table_id, epoch),
        ).fetchall()
        self.conn.commit()
        return [(int(seq), events) for seq, events in rows]

    def results(self) -> list[dict[str, Any]]:
        rows = self.conn.execute(
            "SELECT table_id, epoch, scores, players FROM venue_results ORDER BY finished_at"
        ).fetchall()
        self.conn.commit()
        return [{"table_id": t, "epoch": e, "scores": s, "players": p} for t, e, s, p in rows]


Statement = tuple[Any, tuple[Any, ...]]  # (SQL, parameters)


def statements(table_id: str, kind: str, payload: Any) -> list[Statement]:
    """The SQL that stores one message a table published (`kind`: the topic after `table/<tid>/`), made
    before touching the database: a message lacking its fields raises KeyError, TypeError or ValueError
    here, so it never spoils the transaction of the messages stored with it."""
    if kind in ("events", "refill/events"):
        return [
            (
                "INSERT INTO venue_events (table_id, epoch, seq, events) VALUES (%s,%s,%s,%s) "
                "ON CONFLICT DO NOTHING",
                (table_id, str(payload["epoch"]), int(payload["seq"]), Jsonb(payload.get("events", []))),
            )
        ]
    if kind == "state":
        return _state(table_id, payload)
    if kind == "venue":
        link = "live" if str(payload).strip('"') == "1" else "offline"
        return [
            (
                "INSERT INTO venue_tables (table_id, link) VALUES (%s,%s) "
                "ON CONFLICT (table_id) DO UPDATE SET link=EXCLUDED.link, updated_at=now()",
                (table_id, link),
            )
        ]
    raise ValueError(f"the venue does not store {kind!r} messages")


def _state(table_id: str, payload: dict[str, Any]) -> list[Statement]:
    view = payload.get("view") or {}
    if not isinstance(view, dict):
        raise TypeError("the state's view is not an object")
    epoch, seq = str(payload["epoch"]), int(payload["seq"])
    turn = view.get("turn")
    # A table moves forward only: a redelivered older state (same game, lower seq) changes nothing.
    out: list[Statement] = [
        (
            "INSERT INTO venue_tables (table_id, epoch, seq, phase, players, turn, state, link) "
            "VALUES (%s,%s,%s,%s,%s,%s,%s,'live') "
            "ON CONFLICT (table_id) DO UPDATE SET epoch=EXCLUDED.epoch, seq=EXCLUDED.seq, "
            "phase=EXCLUDED.phase, players=EXCLUDED.players, turn=EXCLUDED.turn, state=EXCLUDED.state, "
            "updated_at=now() "
            "WHERE venue_tables.epoch IS DISTINCT FROM EXCLUDED.epoch OR venue_tables.seq < EXCLUDED.seq",
            (
                table_id,
                epoch,
                seq,
                None if view.get("phase") is None else str(view["phase"]),
                Jsonb(view.get("players")),
                None if turn is None else int(turn),
                Jsonb(payload),
            ),
        )
    ]
    if view.get("scores"):
        out.append(
            (
                "INSERT INTO venue_results (table_id, epoch, scores, players) VALUES (%s,%s,%s,%s) "
                "ON CONFLICT DO NOTHING",
                (table_id, epoch, Jsonb(view["scores"]), Jsonb(view.get("players"))),
            )
        )
    return out


def parse(payload: bytes | bytearray) -> Any:
    """A message's JSON; a message that is not JSON raises ValueError naming what it was."""
    try:
        return json.loads(payload)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"not JSON ({exc}): {payload[:60]!r}") from None
