"""The venue tests' PostgreSQL: one throwaway cluster per test module (venue.testing.running_postgres)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.support.postgres import Postgres, running_postgres


@pytest.fixture(scope="module")
def postgres() -> Iterator[Postgres]:
    with running_postgres() as pg:
        yield pg
