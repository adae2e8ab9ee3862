"""The embedded broker: a Mosquitto child of `smart-table run` when no system broker is configured.

Owns turning deploy/mosquitto/ (the production config) into the files of one run: the same
`mosquitto.conf` with its listeners, password file and ACL paths rewritten, the ACL rendered for the
tables the broker serves (`render_acl`: every line names its table and login; deploy/mosquitto/acl is its
rendering for `table-1`), and a Mosquitto password file made from the table's stored credentials
(controller.credentials),
so the embedded broker and a system Mosquitto configured from deploy/mosquitto/ behave the same and accept
the same logins. Every file is written 0600 into a folder only the table's user can enter; nothing
secret reaches Mosquitto's command line (`mosquitto -c <conf>`). controller/testing.py (the tests'
Mosquitto) uses the same functions, so the tests exercise the configuration the table runs.

Mosquitto 2.0 binds a WebSocket listener on every interface when given an address, but honours an
interface name: a loopback WebSocket listener is written `listener <port> lo` (see docs/mqtt.md).
"""

from __future__ import annotations

import os
import pwd
import re
import shutil
from collections.abc import Iterable
from pathlib import Path

from contracts.topics import MQTT_CAMPAIGN, MQTT_PUBLIC, VENUE_REFILL_IN, VENUE_REFILL_OUT
from controller.credentials import PLAYER_COLOURS, login, parse_login, write_passwd

REPO = Path(__file__).resolve().parents[1]
DEPLOY = REPO / "deploy" / "mosquitto"
LOOPBACK = ("127.0.0.1", "localhost", "::1", "lo")


def mosquitto_binary() -> str | None:
    """The mosquitto program, or None when it is not installed."""
    found = shutil.which("mosquitto")
    if found:
        return found
    for path in ("/usr/sbin/mosquitto", "/usr/local/sbin/mosquitto"):
        if os.access(path, os.X_OK):
            return path
    return None


def ws_bind(host: str) -> str:
    """What follows the WebSocket listener's port: `lo` for a loopback host (the only form Mosquitto 2.0
    honours for WebSockets), nothing (every interface) otherwise."""
    return "lo" if host in LOOPBACK or host.startswith("127.") else ""


def render_config(
    template: str,
    directory: Path,
    host: str,
    port: int,
    ws_port: int,
    ws_host: str,
    extra: list[str] | None = None,
) -> str:
    """deploy/mosquitto/mosquitto.conf for one run: the TCP listener on host:port, the WebSocket listener
    on ws_port (loopback only when ws_host is loopback), the password file and ACL in `directory`."""
    tcp_host = "127.0.0.1" if host == "localhost" else host
    text = re.sub(r"^listener 1883.*$", f"listener {port} {tcp_host}".rstrip(), template, flags=re.M)
    text = re.sub(r"^listener 9001.*$", f"listener {ws_port} {ws_bind(ws_host)}".rstrip(), text, flags=re.M)
    text = re.sub(r"^password_file .*$", f"password_file {directory / 'passwd'}", text, flags=re.M)
    text = re.sub(r"^acl_file .*$", f"acl_file {directory / 'acl'}", text, flags=re.M)
    lines = list(extra or [])
    # Started as root Mosquitto drops to the `mosquitto` user, who cannot read the table's 0600 files:
    # it stays the table's own user instead.
    lines.append(f"user {pwd.getpwuid(os.geteuid()).pw_name}")
    return text + "\n# Added for this run by controller/broker.py\n" + "\n".join(lines) + "\n"


# A seat's private subtree `table/<tid>/player/<seat>/<suffix>`: what its login reads and what it writes.
SEAT_READ = ("state", "prompts", "reply")
SEAT_WRITE = ("cmd", "presence")

ACL_HEADER = """\
# Access control for the smart table (mosquitto acl_file), rendered by controller/broker.py render_acl for
# the tables this broker serves; regenerate it when a table is added:
#   smart-table tablets acl --table table-1 [--table table-2 ...] > /etc/mosquitto/smart-table/acl
# Every login names its table, `<table>/<role>` (controller.credentials.login), and every line below names
# the login's table (and seat): a login of table-1 reads and writes nothing of table-2, even on one shared
# broker. No `pattern` lines: Mosquitto's %u cannot be split into a table and a seat.
#   <table>/controller      the table's controller: reads and writes the table's whole tree
#   <table>/display         the table's screen: reads the table's public tree
#   <table>/spectator       someone watching: reads the public tree (without the display's join codes)
#   <table>/<colour>        one tablet per seat: the public tree, its own private subtree, its own commands
#   <table>/tools           the owner's command-line tools (campaign publish): writes the retained campaign
# mosquitto.conf sets use_username_as_clientid, so a login's client id is its username: no login takes over
# another's session, and the ACL never trusts a client id.
"""


def render_acl(tables: Iterable[str]) -> str:
    """The broker's ACL for these tables (docs/mqtt.md, "Who may read and write what"): per table, the
    controller, display, spectator and each seat colour; the public topics are contracts.topics.MQTT_PUBLIC.
    """
    out = [ACL_HEADER]
    for tid in dict.fromkeys(tables):
        base = f"table/{tid}"
        public = [f"topic read {base}/{suffix}" for suffix in MQTT_PUBLIC]
        out += [f"\n# --- table {tid}", f"user {login(tid, 'controller')}", f"topic readwrite {base}/#", ""]
        for role in ("display", "spectator"):
            out += [f"user {login(tid, role)}", *public, ""]
        out += [f"user {login(tid, 'tools')}", f"topic write {base}/{MQTT_CAMPAIGN}", ""]
        for seat in PLAYER_COLOURS:
            out += [f"user {login(tid, seat)}", *public]
            out += [f"topic read {base}/player/{seat}/{suffix}" for suffix in SEAT_READ]
            out += [f"topic write {base}/player/{seat}/{suffix}" for suffix in SEAT_WRITE]
            out.append("")
    return "\n".join(out).rstrip("\n") + "\n"


VENUE_ACL_HEADER = """\
# Access control of the VENUE broker (deploy/mosquitto/venue.conf, docs/venue.md), rendered by
# controller/broker.py render_venue_acl for the venue's tables; regenerate it when a table joins:
#   smart-table tablets acl --venue --table table-1 [--table table-2 ...] > /etc/mosquitto/venue/venue-acl
# A table's bridge logs in as `<table>/bridge` (controller.credentials.login) and may write only its own
# table's public topics, so one table cannot forge another's state; no login anywhere reads a player's
# private topics (the tables never send them). `venue` (the venue service) and `spectator` are the venue's
# own logins, over every table: the service reads everything and asks tables for gaps, spectators only read.
"""


def render_venue_acl(tables: Iterable[str]) -> str:
    """The venue broker's ACL: the venue service, spectators, and per table its bridge (docs/venue.md)."""
    public = (*MQTT_PUBLIC, "venue")
    out = [VENUE_ACL_HEADER, "user venue", "topic read table/#"]
    out += ["# The gap refill (docs/venue.md): the venue service asks a table for what it lacks."]
    out += [f"topic write table/+/{VENUE_REFILL_IN}", ""]
    out += ["# Spectators and the venue screen: read-only, every table's public tree.", "user spectator"]
    out += [f"topic read table/+/{suffix}" for suffix in public]
    for tid in dict.fromkeys(tables):
        out += [
            "",
            f"# --- table {tid}: its bridge sends its public tree and the refill, and takes the venue's asks",
        ]
        out.append(f"user {login(tid, 'bridge')}")
        out += [f"topic write table/{tid}/{suffix}" for suffix in (*public, *VENUE_REFILL_OUT)]
        out.append(f"topic read table/{tid}/{VENUE_REFILL_IN}")
    return "\n".join(out) + "\n"


def tables_of(users: Iterable[str]) -> list[str]:
    """The tables named by these logins (`<table>/<role>`), in order of first appearance."""
    found = (parse_login(u) for u in users)
    return list(dict.fromkeys(p[0] for p in found if p is not None))


def venue_bridge(table_id: str, venue: dict[str, object]) -> list[str]:
    """Mosquitto bridge lines sending this table's public topics to the venue broker ([venue] config); an
    empty list when no venue host is set.

    Only `table/<tid>/<public>` topics are named (contracts.topics.MQTT_PUBLIC), out, QoS 1, with the
    venue's gap refill (VENUE_REFILL_OUT out, VENUE_REFILL_IN in): a player's private topics and the
    tablets' commands never cross. `cleansession false` with a fixed
    client id keeps the bridge's session at the venue, and the table's broker queues what is published
    while the venue is unreachable, so it flows when the link comes back.
    """
    host = str(venue.get("host") or "")
    if not host:
        return []
    # The table's login at the venue names its table: `<table>/bridge` unless the config names another.
    username = str(venue.get("username") or login(table_id, "bridge"))
    lines = [
        f"connection venue-{table_id}",
        f"address {host}:{venue.get('port', 8883)}",
        f"remote_clientid smart-table-{table_id}",
        "cleansession false",
        "start_type automatic",
        # Reconnect after 1 s, backing off to 15 s: a venue back from a restart gets the table quickly.
        "restart_timeout 1 15",
        "bridge_protocol_version mqttv311",
        "try_private true",
        # "1"/"0" on both brokers (a Last Will at the venue): the venue screen shows the table offline.
        "notifications true",
        f"notification_topic table/{table_id}/venue",
    ]
    lines.append(f"remote_username {username}")
    if venue.get("password"):
        lines.append(f"remote_password {venue['password']}")
    if venue.get("cafile"):
        lines.append(f"bridge_cafile {venue['cafile']}")
    lines += [f"topic table/{table_id}/{suffix} out 1" for suffix in (*MQTT_PUBLIC, *VENUE_REFILL_OUT)]
    # The venue's asks for what it lacks come in; the table answers from its log (venue/refill.py).
    lines.append(f"topic table/{table_id}/{VENUE_REFILL_IN} in 1")
    return lines


def write_broker_files(
    directory: Path,
    users: dict[str, str],
    host: str,
    port: int,
    ws_port: int,
    ws_host: str,
    extra: list[str] | None = None,
    tables: Iterable[str] | None = None,
) -> Path:
    """Write passwd, acl and mosquitto.conf (each 0600) into `directory` (made 0700); returns the conf.
    `users`: login -> clear password; the ACL is rendered for `tables`, by default the tables the logins
    name."""
    directory.mkdir(parents=True, exist_ok=True)
    directory.chmod(0o700)
    write_passwd(directory / "passwd", users)
    acl = directory / "acl"
    acl.write_text(render_acl(tables if tables is not None else tables_of(users)))
    acl.chmod(0o600)
    conf = directory / "mosquitto.conf"
    conf.write_text(
        render_config((DEPLOY / "mosquitto.conf").read_text(), directory, host, port, ws_port, ws_host, extra)
    )
    conf.chmod(0o600)
    return conf


def update_passwd(directory: Path, users: dict[str, str]) -> None:
    """Rewrite the run's password file (Mosquitto rereads it on SIGHUP)."""
    write_passwd(directory / "passwd", users)
