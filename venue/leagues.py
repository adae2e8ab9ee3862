"""Leagues at the venue: fixtures (who sat in which colour at which table) and standings from the results.

A league's games are played at any table, on any evening; the venue service stores each finished game's
result (venue_results). A fixture names its game (`epoch`) or, left open, takes its table's first game that
the venue saw start after the fixture was registered (the earliest `received_at` of its events), so an
organiser registers the seating when the players sit down, before the game has an id. Each game counts
for one fixture at most.

Standings: in each game a person scores one league point per player they beat on the game's totals (4
players: 3, 2, 1, 0; a tie shares the better place), and a win when they beat everyone (the game's
`winner`, the rulebook's tie-breaks, decides a tie for first). Ranked by league points, then wins, then the
sum of their game totals, then name. Storage: migration 002_leagues.sql.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from psycopg.types.json import Jsonb

from venue.store import VenueStore


class LeagueError(ValueError):
    """A league command that cannot be done; the message says why and what to do."""


@dataclass
class Standing:
    person: str
    played: int = 0
    wins: int = 0
    points: int = 0
    game_total: int = 0
    games: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "person": self.person,
            "played": self.played,
            "wins": self.wins,
            "points": self.points,
            "game_total": self.game_total,
        }


def new_league(store: VenueStore, league: str) -> None:
    if not league.strip():
        raise LeagueError("name the league, e.g. `autumn-2026`")
    with store.conn.transaction():
        cur = store.conn.execute(
            "INSERT INTO venue_leagues (league) VALUES (%s) ON CONFLICT DO NOTHING", (league,)
        )
        if cur.rowcount == 0:
            raise LeagueError(f"there is already a league {league!r}; pick another name")


def leagues(store: VenueStore) -> list[str]:
    rows = store.conn.execute("SELECT league FROM venue_leagues ORDER BY created_at, league").fetchall()
    store.conn.commit()
    return [r[0] for r in rows]


def add_fixture(
    store: VenueStore, league: str, table_id: str, seats: dict[str, str], epoch: str | None = None
) -> int:
    """Register who sits where at `table_id` for `league`; returns the fixture's number."""
    if len(seats) < 2:
        raise LeagueError("a league game needs at least two seats: --seat red=Ann --seat blue=Bob")
    if len(set(seats.values())) != len(seats):
        raise LeagueError("one person sits in one colour per game: the --seat names repeat")
    with store.conn.transaction():
        if store.conn.execute("SELECT 1 FROM venue_leagues WHERE league=%s", (league,)).fetchone() is None:
            raise LeagueError(f"there is no league {league!r}; make it with `smart-table venue league new`")
        if epoch is not None:
            taken = store.conn.execute(
                "SELECT league FROM venue_league_fixtures WHERE table_id=%s AND epoch=%s", (table_id, epoch)
            ).fetchone()
            if taken is not None:
                raise LeagueError(f"game {epoch} at {table_id} already counts for league {taken[0]!r}")
        row = store.conn.execute(
            "INSERT INTO venue_league_fixtures (league, table_id, seats, epoch) VALUES (%s,%s,%s,%s) "
            "RETURNING fixture_id",
            (league, table_id, Jsonb(seats), epoch),
        ).fetchone()
    assert row is not None
    return int(row[0])


def _bind_open_fixtures(store: VenueStore) -> None:
    """Give each open fixture its table's first game seen starting after it was registered (and not
    counted for another fixture), in the order the fixtures were registered."""
    with store.conn.transaction():
        open_ = store.conn.execute(
            "SELECT fixture_id, table_id, created_at FROM venue_league_fixtures WHERE epoch IS NULL "
            "ORDER BY fixture_id FOR UPDATE"
        ).fetchall()
        for fixture_id, table_id, created_at in open_:
            game = store.conn.execute(
                "SELECT e.epoch FROM venue_events e WHERE e.table_id=%s GROUP BY e.epoch "
                "HAVING MIN(e.received_at) >= %s AND NOT EXISTS (SELECT 1 FROM venue_league_fixtures f "
                "WHERE f.table_id=%s AND f.epoch=e.epoch) ORDER BY MIN(e.received_at) LIMIT 1",
                (table_id, created_at, table_id),
            ).fetchone()
            if game is not None:
                store.conn.execute(
                    "UPDATE venue_league_fixtures SET epoch=%s WHERE fixture_id=%s", (game[0], fixture_id)
                )


def totals_of(scores: Any) -> tuple[dict[str, float], str | None]:
    """(colour -> game total, winner) from a stored result: the engine's {"totals", "winner"} or a plain
    {colour: number}."""
    if isinstance(scores, dict) and isinstance(scores.get("totals"), dict):
        winner = scores.get("winner")
        return {str(k): float(v) for k, v in scores["totals"].items()}, winner if isinstance(
            winner, str
        ) else None
    if isinstance(scores, dict):
        return {str(k): float(v) for k, v in scores.items() if isinstance(v, int | float)}, None
    return {}, None


def standings(store: VenueStore, league: str) -> tuple[list[Standing], dict[str, int]]:
    """The league's table, best first, and counts of its fixtures: {"finished", "playing", "waiting"}."""
    if store.conn.execute("SELECT 1 FROM venue_leagues WHERE league=%s", (league,)).fetchone() is None:
        store.conn.commit()
        raise LeagueError(f"there is no league {league!r}; `smart-table venue league list` shows them")
    _bind_open_fixtures(store)
    rows = store.conn.execute(
        "SELECT f.table_id, f.epoch, f.seats, r.scores FROM venue_league_fixtures f "
        "LEFT JOIN venue_results r ON r.table_id=f.table_id AND r.epoch=f.epoch "
        "WHERE f.league=%s ORDER BY f.fixture_id",
        (league,),
    ).fetchall()
    store.conn.commit()
    table: dict[str, Standing] = {}
    counts = {"finished": 0, "playing": 0, "waiting": 0}
    for table_id, epoch, seats, scores in rows:
        if epoch is None:
            counts["waiting"] += 1
            continue
        if scores is None:
            counts["playing"] += 1
            continue
        counts["finished"] += 1
        totals, winner = totals_of(scores)
        seated = {colour: person for colour, person in seats.items() if colour in totals}
        for colour, person in seated.items():
            s = table.setdefault(person, Standing(person))
            beaten = sum(1 for other in seated if other != colour and totals[other] < totals[colour])
            best = all(totals[other] <= totals[colour] for other in seated)
            s.played += 1
            s.points += beaten
            s.wins += int(best and (winner is None or winner == colour))
            s.game_total += int(totals[colour])
            s.games.append(f"{table_id}/{epoch}")
    ranked = sorted(table.values(), key=lambda s: (-s.points, -s.wins, -s.game_total, s.person))
    return ranked, counts
