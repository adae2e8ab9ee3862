"""The durable game log: every accepted event in SQLite, written before anything is published.

Owns the database schema and its transactions: games (several games and tables in one file), the
accepted commands and the events they produced (one transaction per accepted command, so a command's
events are all there or none), periodic state snapshots for a fast resume, the battle session's
inputs (so a battle resumes mid-way after a crash, and its result can still be corrected after one)
with the camera's crops of each drop, and the tower health records (every drop, jams,
tower/camera disagreements). WAL + synchronous=FULL: a commit survives SIGKILL and power loss.
It knows nothing of the rules: states and events are opaque JSON here.
"""

from __future__ import annotations

import json
import sqlite3
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any


def connect(path: Path, schema: str) -> sqlite3.Connection:
    """The table's SQLite file as each store in it opens it: several processes may (WAL, one writer, each
    waiting up to 30 s for it), every commit on disk (synchronous=FULL), the store's `schema` created
    where missing; no implicit transactions (isolation_level=None: the store begins and commits its own)."""
    db = sqlite3.connect(str(path), isolation_level=None, timeout=30, check_same_thread=False)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute("PRAGMA synchronous=FULL")
    db.execute("PRAGMA busy_timeout=30000")
    db.executescript(schema)
    return db


SCHEMA = """
CREATE TABLE IF NOT EXISTS games (
    game_id   TEXT PRIMARY KEY,
    table_id  TEXT NOT NULL,
    players   TEXT NOT NULL,          -- JSON list of colours
    seed      INTEGER NOT NULL,
    options   TEXT NOT NULL,          -- JSON object given to rules.api.new_game
    created   REAL NOT NULL,
    finished  REAL,                   -- NULL while the game runs
    result    TEXT                    -- JSON (final scores) once finished
);
CREATE INDEX IF NOT EXISTS games_table ON games (table_id, created);
CREATE TABLE IF NOT EXISTS commands (
    game_id   TEXT NOT NULL,
    n_after   INTEGER NOT NULL,       -- events in the log after this command
    seq       INTEGER NOT NULL,       -- state.seq after this command
    player    TEXT,
    command   TEXT NOT NULL,          -- JSON command as applied
    ts        REAL NOT NULL,
    PRIMARY KEY (game_id, n_after)
);
CREATE TABLE IF NOT EXISTS events (
    game_id   TEXT NOT NULL,
    n         INTEGER NOT NULL,       -- 1-based position in the game's event list
    seq       INTEGER NOT NULL,       -- state.seq after the command that produced it
    event     TEXT NOT NULL,
    ts        REAL NOT NULL,
    PRIMARY KEY (game_id, n)
);
CREATE TABLE IF NOT EXISTS snapshots (
    game_id   TEXT NOT NULL,
    n         INTEGER NOT NULL,       -- events folded into this state
    seq       INTEGER NOT NULL,
    state     TEXT NOT NULL,          -- rules.api.state_to_json
    PRIMARY KEY (game_id, n)
);
CREATE TABLE IF NOT EXISTS session_inputs (
    game_id   TEXT NOT NULL,
    battle_id TEXT NOT NULL,
    i         INTEGER NOT NULL,
    input     TEXT NOT NULL,          -- JSON input given to the battle session, in order
    ts        REAL NOT NULL,
    PRIMARY KEY (game_id, battle_id, i)
);
CREATE TABLE IF NOT EXISTS battle_crops (
    game_id   TEXT NOT NULL,
    battle_id TEXT NOT NULL,
    step      INTEGER NOT NULL,       -- the drop step the camera reading was for
    crops     TEXT NOT NULL,          -- JSON {cube index: base64 JPEG}, the latest reading's for that step
    PRIMARY KEY (game_id, battle_id, step)
);
CREATE TABLE IF NOT EXISTS drops (
    id        INTEGER PRIMARY KEY,
    table_id  TEXT NOT NULL,
    game_id   TEXT,
    battle_id TEXT,
    ts        REAL NOT NULL,
    colour    TEXT NOT NULL,
    zone      TEXT NOT NULL           -- battle-board zone id the camera read, or "off" for off the board
);
CREATE INDEX IF NOT EXISTS drops_table ON drops (table_id, ts);
CREATE TABLE IF NOT EXISTS tower_incidents (
    id        INTEGER PRIMARY KEY,
    table_id  TEXT NOT NULL,
    game_id   TEXT,
    battle_id TEXT,
    ts        REAL NOT NULL,
    kind      TEXT NOT NULL,          -- "jam" | "disagreement"
    detail    TEXT NOT NULL           -- JSON
);
"""


@dataclass(frozen=True, slots=True)
class GameRow:
    game_id: str
    table_id: str
    players: list[str]
    seed: int
    options: dict[str, Any]
    created: float
    finished: float | None
    result: Any
    events: int = 0
    seq: int = 0

    def to_json(self) -> dict[str, Any]:
        return {
            "game_id": self.game_id,
            "table_id": self.table_id,
            "players": self.players,
            "seed": self.seed,
            "options": self.options,
            "created": self.created,
            "finished": self.finished,
            "result": self.result,
            "events": self.events,
            "seq": self.seq,
        }


@dataclass(frozen=True, slots=True)
class Snapshot:
    n: int
    seq: int
    state: dict[str, Any]


class GameLog:
    """One SQLite file; safe to open from several processes (WAL), one writer at a time."""

    def __init__(self, path: str | Path, snapshot_every: int = 50) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.snapshot_every = max(1, snapshot_every)
        # isolation_level=None: we issue BEGIN IMMEDIATE / COMMIT ourselves, one per accepted command.
        self.db = connect(self.path, SCHEMA)
        # One lock around every use of the connection: closing it while another thread is inside a
        # statement crashes the interpreter (seen at shutdown, with simulated players still writing).
        self._lock = threading.RLock()
        self._closed = False

    def close(self) -> None:
        """Close the file; idempotent. Any later use raises GameLogClosed instead of touching it."""
        with self._lock:
            if not self._closed:
                self._closed = True
                self.db.close()

    # -- games --------------------------------------------------------------------------------

    def create_game(
        self,
        table_id: str,
        players: list[str],
        seed: int,
        options: dict[str, Any],
        genesis_events: list[dict[str, Any]],
        state: dict[str, Any],
        seq: int,
    ) -> str:
        """A new game with the events that set it up and its initial snapshot, in one transaction."""
        game_id = f"{table_id}-{time.strftime('%Y%m%d-%H%M%S')}-{uuid.uuid4().hex[:6]}"
        now = time.time()
        with self._tx():
            self._run(
                "INSERT INTO games VALUES (?,?,?,?,?,?,NULL,NULL)",
                (game_id, table_id, json.dumps(players), seed, json.dumps(options), now),
            )
            for n, event in enumerate(genesis_events, start=1):
                self._run("INSERT INTO events VALUES (?,?,?,?,?)", (game_id, n, seq, _dump(event), now))
            self._run(
                "INSERT INTO snapshots VALUES (?,?,?,?)", (game_id, len(genesis_events), seq, _dump(state))
            )
        return game_id

    def active_game(self, table_id: str) -> GameRow | None:
        """The table's latest game that has not finished, the one to resume."""
        row = self._one(
            "SELECT game_id FROM games WHERE table_id=? AND finished IS NULL ORDER BY created DESC, rowid "
            "DESC LIMIT 1",
            (table_id,),
        )
        return self.game(row[0]) if row else None

    def game(self, game_id: str) -> GameRow | None:
        row = self._one(
            "SELECT game_id, table_id, players, seed, options, created, finished, result FROM games WHERE "
            "game_id=?",
            (game_id,),
        )
        if row is None:
            return None
        n, seq = self._one(
            "SELECT COALESCE(MAX(n),0), COALESCE(MAX(seq),0) FROM events WHERE game_id=?", (game_id,)
        )
        return GameRow(
            row[0],
            row[1],
            json.loads(row[2]),
            row[3],
            json.loads(row[4]),
            row[5],
            row[6],
            json.loads(row[7]) if row[7] else None,
            n,
            seq,
        )

    def games(self, table_id: str | None = None) -> list[GameRow]:
        sql = (
            "SELECT game_id FROM games"
            + (" WHERE table_id=?" if table_id else "")
            + " ORDER BY created, rowid"
        )
        ids = [r[0] for r in self._all(sql, (table_id,) if table_id else ())]
        return [g for g in (self.game(i) for i in ids) if g is not None]

    def finish(self, game_id: str, result: Any) -> None:
        with self._tx():
            self._run(
                "UPDATE games SET finished=?, result=? WHERE game_id=?", (time.time(), _dump(result), game_id)
            )

    # -- events -------------------------------------------------------------------------------

    def append(
        self,
        game_id: str,
        command: dict[str, Any],
        events: list[dict[str, Any]],
        seq: int,
        state: dict[str, Any] | Callable[[], dict[str, Any]] | None = None,
        session_input: tuple[str, dict[str, Any]] | None = None,
    ) -> int:
        """Log one accepted command and its events durably; returns the game's event count after it.

        `state` (the state after the command, or a function making it, called only when needed) is
        stored as a snapshot when the count crosses a multiple of `snapshot_every`. `session_input`
        (battle_id, input) logs a battle session input
        in the same transaction, so the session and the game never disagree after a crash.
        """
        now = time.time()
        with self._tx():
            (n,) = self._one("SELECT COALESCE(MAX(n),0) FROM events WHERE game_id=?", (game_id,))
            start = n
            for event in events:
                n += 1
                self._run("INSERT INTO events VALUES (?,?,?,?,?)", (game_id, n, seq, _dump(event), now))
            self._run(
                "INSERT OR REPLACE INTO commands VALUES (?,?,?,?,?,?)",
                (game_id, n, seq, command.get("player"), _dump(command), now),
            )
            if state is not None and n // self.snapshot_every > start // self.snapshot_every:
                snap = state() if callable(state) else state
                self._run("INSERT OR REPLACE INTO snapshots VALUES (?,?,?,?)", (game_id, n, seq, _dump(snap)))
            if session_input is not None:
                self._session_input(game_id, *session_input, now)
        return n

    def add_session_input(self, game_id: str, battle_id: str, data: dict[str, Any]) -> None:
        with self._tx():
            self._session_input(game_id, battle_id, data, time.time())

    def _session_input(self, game_id: str, battle_id: str, data: dict[str, Any], now: float) -> None:
        (i,) = self._one(
            "SELECT COALESCE(MAX(i),0) FROM session_inputs WHERE game_id=? AND battle_id=?",
            (game_id, battle_id),
        )
        self._run(
            "INSERT INTO session_inputs VALUES (?,?,?,?,?)", (game_id, battle_id, i + 1, _dump(data), now)
        )

    def session_inputs(self, game_id: str, battle_id: str) -> list[dict[str, Any]]:
        return [
            json.loads(r[0])
            for r in self._all(
                "SELECT input FROM session_inputs WHERE game_id=? AND battle_id=? ORDER BY i",
                (game_id, battle_id),
            )
        ]

    def last_session_input(self, game_id: str, op: str) -> tuple[str, dict[str, Any]] | None:
        """(battle_id, input) of the game's latest session input whose "op" is `op`, or None."""
        row = self._one(
            "SELECT battle_id, input FROM session_inputs WHERE game_id=? AND "
            "json_extract(input, '$.op')=? ORDER BY ts DESC, rowid DESC LIMIT 1",
            (game_id, op),
        )
        return None if row is None else (row[0], json.loads(row[1]))

    def set_step_crops(self, game_id: str, battle_id: str, step: int, crops: dict[int, str]) -> None:
        """The camera's crop of each cube of the latest reading for drop `step` (replacing an earlier one)."""
        with self._tx():
            self._run(
                "INSERT OR REPLACE INTO battle_crops VALUES (?,?,?,?)",
                (game_id, battle_id, step, _dump({str(i): c for i, c in crops.items()})),
            )

    def step_crops(self, game_id: str, battle_id: str) -> dict[int, dict[int, str]]:
        return {
            step: {int(i): c for i, c in json.loads(crops).items()}
            for step, crops in self._all(
                "SELECT step, crops FROM battle_crops WHERE game_id=? AND battle_id=?", (game_id, battle_id)
            )
        }

    def events(self, game_id: str, after: int = 0) -> list[dict[str, Any]]:
        return [
            json.loads(r[0])
            for r in self._all(
                "SELECT event FROM events WHERE game_id=? AND n>? ORDER BY n", (game_id, after)
            )
        ]

    def events_by_seq(self, game_id: str) -> list[tuple[int, dict[str, Any]]]:
        """(seq, event) in order; `seq` is the state's seq after the command that made the event, the seq
        its events were published with (venue/refill.py re-sends a venue's gap by it)."""
        return [
            (int(r[0]), json.loads(r[1]))
            for r in self._all("SELECT seq, event FROM events WHERE game_id=? ORDER BY n", (game_id,))
        ]

    def commands(self, game_id: str) -> list[dict[str, Any]]:
        return [
            json.loads(r[0])
            for r in self._all("SELECT command FROM commands WHERE game_id=? ORDER BY n_after", (game_id,))
        ]

    def latest_snapshot(self, game_id: str) -> Snapshot | None:
        row = self._one(
            "SELECT n, seq, state FROM snapshots WHERE game_id=? ORDER BY n DESC LIMIT 1", (game_id,)
        )
        return Snapshot(row[0], row[1], json.loads(row[2])) if row else None

    def export_lines(self, game_id: str) -> Iterator[str]:
        """The game as JSON lines, one event per line in order: what `smart-table rules replay` reads."""
        if self.game(game_id) is None:
            raise KeyError(game_id)
        for r in self._all("SELECT n, seq, event, ts FROM events WHERE game_id=? ORDER BY n", (game_id,)):
            yield json.dumps(json.loads(r[2]), sort_keys=True)

    # -- tower health --------------------------------------------------------------------------

    def record_drops(
        self,
        table_id: str,
        game_id: str | None,
        battle_id: str | None,
        landings: list[tuple[str, str]],
        ts: float | None = None,
    ) -> None:
        """Every cube of one drop: (colour, zone) pairs as finally read."""
        ts = ts if ts is not None else time.time()
        with self._tx():
            self._open_db().executemany(
                "INSERT INTO drops (table_id, game_id, battle_id, ts, colour, zone) VALUES (?,?,?,?,?,?)",
                [(table_id, game_id, battle_id, ts, c, z) for c, z in landings],
            )

    def record_incident(
        self,
        table_id: str,
        game_id: str | None,
        battle_id: str | None,
        kind: str,
        detail: dict[str, Any],
        ts: float | None = None,
    ) -> None:
        with self._tx():
            self._run(
                "INSERT INTO tower_incidents (table_id, game_id, battle_id, ts, kind, detail) "
                "VALUES (?,?,?,?,?,?)",
                (table_id, game_id, battle_id, ts if ts is not None else time.time(), kind, _dump(detail)),
            )

    def drops(
        self, table_id: str, since: float | None = None, until: float | None = None
    ) -> list[tuple[float, str, str]]:
        return list(
            self._all(
                "SELECT ts, colour, zone FROM drops WHERE table_id=? AND ts>=? AND ts<? ORDER BY ts, id",
                (
                    table_id,
                    since if since is not None else float("-inf"),
                    until if until is not None else float("inf"),
                ),
            )
        )

    def incidents(self, table_id: str, since: float | None = None) -> list[tuple[float, str, dict[str, Any]]]:
        return [
            (r[0], r[1], json.loads(r[2]))
            for r in self._all(
                "SELECT ts, kind, detail FROM tower_incidents WHERE table_id=? AND ts>=? ORDER BY ts, id",
                (table_id, since if since is not None else float("-inf")),
            )
        ]

    def tables(self) -> list[str]:
        return [
            r[0] for r in self._all("SELECT table_id FROM games UNION SELECT table_id FROM drops ORDER BY 1")
        ]

    # -- internals -----------------------------------------------------------------------------

    def _open_db(self) -> sqlite3.Connection:
        if self._closed:
            raise GameLogClosed(f"the game log {self.path} is closed (the table is shutting down)")
        return self.db

    def _one(self, sql: str, params: tuple[Any, ...] = ()) -> Any:
        with self._lock:
            return self._open_db().execute(sql, params).fetchone()

    def _all(self, sql: str, params: tuple[Any, ...] = ()) -> list[Any]:
        with self._lock:
            return self._open_db().execute(sql, params).fetchall()

    def _run(self, sql: str, params: tuple[Any, ...] = ()) -> None:
        with self._lock:
            self._open_db().execute(sql, params)

    def _tx(self) -> _Transaction:
        return _Transaction(self)


class GameLogClosed(RuntimeError):
    """The log was used after close(): a thread still working while the table shuts down."""


class _Transaction:
    """BEGIN IMMEDIATE ... COMMIT (or ROLLBACK on an exception), holding the log's lock throughout."""

    def __init__(self, log: GameLog) -> None:
        self.log = log

    def __enter__(self) -> None:
        self.log._lock.acquire()
        try:
            self.log._open_db().execute("BEGIN IMMEDIATE")
        except BaseException:
            self.log._lock.release()
            raise

    def __exit__(self, exc_type: object, exc: object, tb: object) -> None:
        try:
            self.log.db.execute("COMMIT" if exc_type is None else "ROLLBACK")
        finally:
            self.log._lock.release()


def _dump(value: Any) -> str:
    return json.dumps(value, separators=(",", ":"), sort_keys=True)
