"""A throwaway PostgreSQL cluster for tests: Debian's initdb/pg_ctl in a temporary folder, loopback only.

PostgreSQL refuses to run as root; as root the cluster belongs to the `postgres` user that Debian's
package creates (`runuser`). `running_postgres()` yields a DSN; `stop()`/`start()` let a test take the
database away in the middle and bring it back with its data.
"""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from controller.testing import free_port


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
