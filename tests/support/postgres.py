"""A throwaway PostgreSQL cluster for tests (venue.testing, shared with bench/venue_load.py).

`postgres_cluster` is one cluster for the whole test session (tests/conftest.py makes it visible
everywhere): initdb and a start cost seconds, and every venue test starts from `empty_database` anyway.
A venue test module's `postgres` fixture asks for it through `shared_postgres`, which starts the cluster
again when an earlier test stopped it on purpose and failed before its own restart.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from venue.testing import Postgres, empty_database, pg_bin, running_postgres

__all__ = ["Postgres", "empty_database", "pg_bin", "postgres_cluster", "running_postgres", "shared_postgres"]


@pytest.fixture(scope="session")
def postgres_cluster() -> Iterator[Postgres]:
    with running_postgres() as pg:
        yield pg


def shared_postgres(pg: Postgres) -> Postgres:
    """The session's cluster, accepting connections (started again if a test left it stopped)."""
    import psycopg

    try:
        conn = psycopg.connect(pg.dsn, connect_timeout=5, autocommit=True)
    except psycopg.OperationalError:
        pg.start()
        conn = psycopg.connect(pg.dsn, connect_timeout=5, autocommit=True)
    # A connection an earlier test left open would hold its locks into this test (empty_database's DROP
    # SCHEMA waits for them): each test starts alone, as it did on a cluster of its own.
    with conn:
        conn.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid <> pg_backend_pid()")
    return pg
