"""MQTT credentials for tablets, the display and the controller: stored logins and Mosquitto password files.

Owns the password-file format (`user:$7$<iterations>$<salt b64>$<hash b64>`, PBKDF2-SHA512, the same
as `mosquitto_passwd` writes), the tablet join link and the table's stored credentials
(`CredentialStore`: one login per role and table in the game database, kept across restarts until
rotated, so a seat's link and QR code stay valid), and the form of every broker login: `<table>/<role>`
(`login`), one place every part imports. The ACL that keys on these logins is rendered by
controller.broker.render_acl; a new password needs no ACL change, a new table does.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import os
import secrets
import sqlite3
import time
from pathlib import Path
from urllib.parse import urlencode

PLAYER_COLOURS = ("red", "blue", "green", "yellow")
# `spectator`: read-only like the display, but without the display's password, which opens /join.json.
# `tools`: the owner's command-line tools beside a running controller (`smart-table campaign publish`): the
# broker makes a login's username its client id, so a tool logged in as the controller would take the
# running controller's session over.
ROLES = ("controller", "display", "spectator", "tools", *PLAYER_COLOURS)
# A table's login at a VENUE broker (docs/venue.md): its bridge, `table-1/bridge`.
VENUE_ROLES = ("bridge",)
# Between a login's table and its role: a table id is one MQTT topic level, so it never holds '/'
# (config's TOPIC_NAME), and the split at the last '/' is unambiguous.
LOGIN_SEP = "/"


def login(table_id: str, role: str) -> str:
    """The broker login of `role` (controller, display, spectator or a seat colour) at `table_id`:
    `table-1/red`. The broker's ACL keys on both parts, so a login is good at its own table only."""
    if role not in ROLES and role not in VENUE_ROLES:
        raise ValueError(f"{role!r} is not a role at a table: one of {', '.join((*ROLES, *VENUE_ROLES))}")
    if not table_id or any(c in table_id for c in "/+#") or any(c.isspace() for c in table_id):
        raise ValueError(f"table id {table_id!r} must be one topic level without '/', '+', '#' or spaces")
    return f"{table_id}{LOGIN_SEP}{role}"


def parse_login(user: str) -> tuple[str, str] | None:
    """(table id, role) of a login made by `login`, or None for any other name."""
    table, sep, role = user.rpartition(LOGIN_SEP)
    if not sep or not table or role not in (*ROLES, *VENUE_ROLES) or any(c in table for c in "/+#"):
        return None
    return table, role


def resolve_user(table_id: str, user: str) -> str:
    """A bare role (`controller`, `red`: the config's mqtt.username, an old join link) means that role at
    `table_id`; any other name (a full login, a login of the owner's own choice) is used as it is."""
    return login(table_id, user) if user in ROLES or user in VENUE_ROLES else user


def table_logins(table_id: str, passwords: dict[str, str]) -> dict[str, str]:
    """role -> password (as CredentialStore keeps them) to login -> password (the broker's password file)."""
    return {login(table_id, role): pw for role, pw in passwords.items() if role in ROLES}


_ITERATIONS = 101  # mosquitto_passwd's default for $7$


def hash_password(password: str, salt: bytes | None = None, iterations: int = _ITERATIONS) -> str:
    """The `$7$...` string mosquitto 2.0 accepts in its password file."""
    salt = salt if salt is not None else os.urandom(12)
    digest = hashlib.pbkdf2_hmac("sha512", password.encode(), salt, iterations, 64)
    return f"$7${iterations}${base64.b64encode(salt).decode()}${base64.b64encode(digest).decode()}"


def check_password(password: str, hashed: str) -> bool:
    parts = hashed.split("$")
    if len(parts) != 5 or parts[1] != "7":
        return False
    salt = base64.b64decode(parts[3])
    digest = hashlib.pbkdf2_hmac("sha512", password.encode(), salt, int(parts[2]), 64)
    return hmac.compare_digest(base64.b64encode(digest).decode(), parts[4])


def new_password() -> str:
    # URL-safe so it fits in a join link without escaping surprises.
    return secrets.token_urlsafe(12)


def read_passwd(path: Path) -> dict[str, str]:
    """username -> hash; a missing file is an empty one."""
    users: dict[str, str] = {}
    if not path.exists():
        return users
    for line in path.read_text().splitlines():
        line = line.strip()
        if line and not line.startswith("#") and ":" in line:
            user, hashed = line.split(":", 1)
            users[user] = hashed
    return users


def set_user(path: Path, username: str, password: str) -> None:
    """Add or replace one user in a mosquitto password file (written atomically, mode 0640)."""
    if not username or ":" in username or any(c.isspace() for c in username):
        raise ValueError(f"username {username!r} must be non-empty without ':' or spaces")
    users = read_passwd(path)
    users[username] = hash_password(password)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text("".join(f"{u}:{h}\n" for u, h in users.items()))
    os.chmod(tmp, 0o640)
    os.replace(tmp, path)


def write_passwd(path: Path, users: dict[str, str]) -> None:
    """A fresh password file from username -> clear password (written atomically, mode 0600)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as f:
        f.write("".join(f"{u}:{hash_password(p)}\n" for u, p in users.items()))
    os.chmod(tmp, 0o600)
    os.replace(tmp, path)


def _private(path: Path) -> None:
    """Readable by the table's user only: the database holds clear passwords (the links must be reprinted)."""
    for p in (path, path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
        try:
            if p.exists() and p.stat().st_uid == os.geteuid():
                os.chmod(p, 0o600)
        except OSError:
            pass


class CredentialStore:
    """Passwords per table and role (role -> clear password), in the game database's `credentials` table;
    the broker login of a role is `login(table_id, role)`.

    Clear, not hashed, because `smart-table run` prints every seat's link again after a restart and
    the table view shows each open seat's QR code; the database file is made 0600 for that reason."""

    def __init__(self, db: Path) -> None:
        self.path = Path(db)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        if not self.path.exists():
            os.close(os.open(self.path, os.O_WRONLY | os.O_CREAT, 0o600))
        self.conn = sqlite3.connect(str(self.path), timeout=10, isolation_level=None)
        self.conn.execute(
            "CREATE TABLE IF NOT EXISTS credentials (table_id TEXT NOT NULL, user TEXT NOT NULL, "
            "password TEXT NOT NULL, created REAL NOT NULL, PRIMARY KEY (table_id, user))"
        )
        _private(self.path)

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> CredentialStore:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()

    def all(self, table_id: str) -> dict[str, str]:
        rows = self.conn.execute(
            "SELECT user, password FROM credentials WHERE table_id = ? ORDER BY user", (table_id,)
        ).fetchall()
        return dict(rows)

    def get(self, table_id: str, user: str) -> str | None:
        return self.all(table_id).get(user)

    def set(self, table_id: str, user: str, password: str) -> None:
        if not user or ":" in user or any(c.isspace() for c in user):
            raise ValueError(f"username {user!r} must be non-empty without ':' or spaces")
        self.conn.execute(
            "INSERT OR REPLACE INTO credentials VALUES (?, ?, ?, ?)", (table_id, user, password, time.time())
        )
        _private(self.path)

    def ensure(self, table_id: str, users: list[str] | tuple[str, ...]) -> dict[str, str]:
        """Every user's stored password, making one for a user who has none yet."""
        have = self.all(table_id)
        for u in users:
            if u not in have:
                self.set(table_id, u, new_password())
        return self.all(table_id)

    def rotate(self, table_id: str, user: str) -> str:
        password = new_password()
        self.set(table_id, user, password)
        return password


def join_link(
    host: str, http_port: int, ws_port: int, table_id: str, player: str | None, user: str, password: str
) -> str:
    """The URL a tablet opens (docs/mqtt.md); `player=None` gives the table display's link. `user` is the
    broker login (`login(table_id, role)`); a bare role is made that role's login at `table_id`."""
    user = resolve_user(table_id, user)
    params: dict[str, str] = {"table": table_id}
    if player is None:
        params["view"] = "table"
    else:
        params["player"] = player
    params.update({"user": user, "pass": password, "ws": f"ws://{host}:{ws_port}"})
    return f"http://{host}:{http_port}/?{urlencode(params, safe=':/')}"
