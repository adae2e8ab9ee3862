"""A throwaway venue for tests and bench/venue_load.py: a PostgreSQL cluster and a venue Mosquitto.

PostgreSQL: Debian's initdb/pg_ctl in a temporary folder, loopback only. PostgreSQL refuses to run as
root; as root the cluster belongs to the `postgres` user that Debian's package creates (`runuser`).
`running_postgres()` yields a Postgres whose `stop()`/`start()` take the database away and bring it back
with its data. The venue Mosquitto is deploy/mosquitto/venue.conf and venue-acl with loopback listeners,
restartable with its persisted data. It lives in the package, not in tests/, because the load benchmark
uses it too (benchmarks never import tests/), as controller/testing.py does for a table's broker.
"""

from __future__ import annotations

import contextlib
import glob
import os
import secrets
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from controller import testing
from controller.broker import DEPLOY, render_config, render_venue_acl
from controller.credentials import login, write_passwd
from controller.testing import Broker, Client, free_port


def pg_bin(name: str) -> str:
    found = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))
    if not found:
        raise RuntimeError(
            f"PostgreSQL's {name} is not installed: run `bash deploy/install-dev.sh` (it installs Debian's "
            "postgresql package)"
        )
    return found[-1]


def _as_owner(cmd: list[str]) -> list[str]:
    return ["runuser", "-u", "postgres", "--", *cmd] if os.geteuid() == 0 else cmd


@dataclass
class Postgres:
    directory: Path
    port: int

    @property
    def dsn(self) -> str:
        return f"host=127.0.0.1 port={self.port} user=postgres dbname=postgres"

    def start(self) -> None:
        subprocess.run(
            _as_owner(
                [
                    pg_bin("pg_ctl"),
                    "-D",
                    str(self.directory / "data"),
                    "-l",
                    str(self.directory / "log"),
                    "-w",
                    "-t",
                    "60",
                    "-o",
                    f"-p {self.port} -c listen_addresses=127.0.0.1 -k {self.directory} -c fsync=off",
                    "start",
                ]
            ),
            check=True,
            stdout=subprocess.DEVNULL,
        )

    def stop(self) -> None:
        subprocess.run(
            _as_owner([pg_bin("pg_ctl"), "-D", str(self.directory / "data"), "-m", "immediate", "stop"]),
            check=True,
            stdout=subprocess.DEVNULL,
        )


def empty_database(dsn: str) -> None:
    """Drop every table of the venue's schema (a test starting from an empty database)."""
    import psycopg

    with psycopg.connect(dsn, autocommit=True) as conn:
        conn.execute("DROP SCHEMA public CASCADE")
        conn.execute("CREATE SCHEMA public")


@contextlib.contextmanager
def running_postgres() -> Iterator[Postgres]:
    directory = Path(tempfile.mkdtemp(prefix="pg-"))
    try:
        if os.geteuid() == 0:
            shutil.chown(directory, "postgres", "postgres")
        subprocess.run(
            _as_owner([pg_bin("initdb"), "-D", str(directory / "data"), "-U", "postgres", "-A", "trust"]),
            check=True,
            stdout=subprocess.DEVNULL,
        )
        pg = Postgres(directory, free_port())
        pg.start()
        try:
            yield pg
        finally:
            with contextlib.suppress(subprocess.CalledProcessError):
                pg.stop()
    finally:
        shutil.rmtree(directory, ignore_errors=True)


@dataclass
class Venue:
    """How to (re)start the venue broker: its config and logins."""

    conf: Path
    directory: Path
    port: int
    ws_port: int
    users: dict[str, str]


def mosquitto_at(
    conf: Path, directory: Path, port: int, ws_port: int, users: dict[str, str]
) -> contextlib.AbstractContextManager[Broker]:
    """A venue's or a table's Mosquitto from its config file (controller.testing.mosquitto_at), listening
    within 10 s."""
    return testing.mosquitto_at(conf, directory, port, ws_port, users, timeout=10)


def venue_conf(directory: Path, port: int, ws_port: int, tables: list[str]) -> Path:
    """deploy/mosquitto/venue.conf and the venue ACL rendered for `tables` (broker.render_venue_acl) for a
    test: loopback listeners, a persistence folder."""
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "acl").write_text(render_venue_acl(tables))
    text = (DEPLOY / "venue.conf").read_text()
    text = text.replace("acl_file /etc/mosquitto/venue/venue-acl", "acl_file /etc/mosquitto/venue/acl")
    text = text.replace("persistence_location /var/lib/mosquitto/", f"persistence_location {directory}/")
    conf = directory / "mosquitto.conf"
    conf.write_text(
        render_config(
            text, directory, "127.0.0.1", port, ws_port, "127.0.0.1", [f"log_dest file {directory}/log"]
        )
    )
    return conf


def make_venue(directory: Path, tables: list[str]) -> Venue:
    """A venue broker's files with a login per table's bridge (`table-1/bridge`), `venue` and `spectator`."""
    users = {
        name: secrets.token_urlsafe(9)
        for name in [*(login(t, "bridge") for t in tables), "venue", "spectator"]
    }
    port, ws_port = free_port(), free_port()
    conf = venue_conf(directory, port, ws_port, tables)
    write_passwd(directory / "passwd", users)
    return Venue(conf, directory, port, ws_port, users)


def start_venue(venue: Venue) -> contextlib.AbstractContextManager[Broker]:
    return mosquitto_at(venue.conf, venue.directory, venue.port, venue.ws_port, venue.users)


def until(check: Callable[[], bool], timeout: float, what: str) -> None:
    """Returns once `check()` is true; fails naming `what` after `timeout` seconds (polled every 0.1 s)."""
    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.1)


def wait_for(client: Client, topic: str, payload: str, timeout: float = 30.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for msg in client.collect(0.2):
            if msg.topic == topic and msg.payload.decode() == payload:
                return True
    return False
