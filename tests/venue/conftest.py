"""The venue tests' PostgreSQL: the session's one throwaway cluster (tests/support/postgres.py), each test
starting alone on it (`shared_postgres` ends other connections and restarts a cluster a test left stopped)."""

from __future__ import annotations

import pytest

from tests.support.postgres import Postgres, shared_postgres


@pytest.fixture
def postgres(postgres_cluster: Postgres) -> Postgres:
    return shared_postgres(postgres_cluster)
