"""Leagues at the venue (venue/leagues.py, `smart-table venue league`) on a real PostgreSQL: games played at
different tables count for one league, and its standings come from the results the tables sent."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.postgres import Postgres, empty_database, shared_postgres
from venue.leagues import LeagueError, add_fixture, new_league, standings
from venue.store import VenueStore

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def postgres(postgres_cluster: Postgres) -> Postgres:
    return shared_postgres(postgres_cluster)


@pytest.fixture
def store(postgres: Postgres) -> Iterator[VenueStore]:
    empty_database(postgres.dsn)
    s = VenueStore(postgres.dsn)
    s.migrate()
    yield s
    s.close()


def _game(store: VenueStore, table: str, epoch: str, totals: dict[str, int] | None, winner: str = "") -> None:
    """What a table sends: its events as it plays, then its final state with the engine's scores."""
    store.record(table, "events", {"epoch": epoch, "seq": 1, "events": [{"type": "turn_started"}]})
    if totals is not None:
        scores = {"scores": {}, "totals": totals, "winner": winner, "tie_break_needed": []}
        store.record(table, "state", {"epoch": epoch, "seq": 9, "view": {"phase": "over", "scores": scores}})


def _cli(dsn: str, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "smart_table", "venue", "--dsn", dsn, "league", *args],
        cwd=ROOT,
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_games_at_different_tables_make_one_leagues_standings(store: VenueStore) -> None:
    new_league(store, "autumn")
    with pytest.raises(LeagueError, match="already a league"):
        new_league(store, "autumn")
    add_fixture(store, "autumn", "table-1", {"red": "Ann", "blue": "Bob"}, epoch="t1-g1")
    # A game already under way at table-2 when the organiser seats the league game there does not count.
    _game(store, "table-2", "t2-g6", None)
    add_fixture(store, "autumn", "table-2", {"red": "Cid", "blue": "Ann", "green": "Bob"})
    _game(store, "table-2", "t2-g6", {"red": 80, "blue": 1, "green": 1}, "red")
    _game(store, "table-2", "t2-g7", {"red": 30, "blue": 30, "green": 20}, "blue")
    _game(store, "table-1", "t1-g1", {"red": 55, "blue": 42}, "red")

    ranked, counts = standings(store, "autumn")
    assert counts == {"finished": 2, "playing": 0, "waiting": 0}
    got = [(s.person, s.played, s.wins, s.points, s.game_total) for s in ranked]
    # t1-g1: Ann beats Bob. t2-g7: Cid and Ann tie on 30 and both beat Bob; the game's tie-break gives Ann
    # the win, and each of them one league point.
    assert got == [("Ann", 2, 2, 2, 85), ("Cid", 1, 0, 1, 30), ("Bob", 2, 0, 0, 62)]

    with pytest.raises(LeagueError, match="already counts"):
        add_fixture(store, "autumn", "table-1", {"red": "Dee", "blue": "Eve"}, epoch="t1-g1")
    with pytest.raises(LeagueError, match="no league"):
        standings(store, "spring")


def test_the_venue_league_commands(postgres: Postgres, store: VenueStore) -> None:
    made = _cli(postgres.dsn, "new", "club")
    assert made.returncode == 0, made.stderr
    seated = _cli(
        postgres.dsn, "game", "club", "--table", "table-4", "--seat", "red=Ann", "--seat", "blue=Bob"
    )
    assert seated.returncode == 0, seated.stderr
    assert "table-4's next game counts for club" in seated.stdout
    _game(store, "table-4", "t4-g1", {"red": 10, "blue": 12}, "blue")
    shown = _cli(postgres.dsn, "standings", "club", "--json")
    assert shown.returncode == 0, shown.stderr
    out = json.loads(shown.stdout)
    assert [(s["person"], s["points"], s["wins"]) for s in out["standings"]] == [("Bob", 1, 1), ("Ann", 0, 0)]
    table = _cli(postgres.dsn, "standings", "club")
    assert table.stdout.splitlines()[0] == "club: 1 games finished, 0 playing, 0 waiting"
    assert _cli(postgres.dsn, "list").stdout.split() == ["club"]
    # Bad input: one clear line, no traceback.
    bad = _cli(postgres.dsn, "game", "club", "--table", "table-4", "--seat", "purple=Ann", "--seat", "red=B")
    assert bad.returncode == 2 and "COLOUR=NAME" in bad.stderr and "Traceback" not in bad.stderr
    missing = _cli(postgres.dsn, "standings", "winter")
    assert missing.returncode == 2 and "no league 'winter'" in missing.stderr
