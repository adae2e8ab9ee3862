"""A throwaway PostgreSQL cluster for tests (venue.testing, shared with bench/venue_load.py)."""

from venue.testing import Postgres, empty_database, pg_bin, running_postgres

__all__ = ["Postgres", "empty_database", "pg_bin", "running_postgres"]
