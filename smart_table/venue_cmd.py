"""`smart-table venue`: the venue service (venue/), storing every bridged table in PostgreSQL."""

from __future__ import annotations

import argparse
import json
import os
import signal
import threading

from smart_table.errors import CliError


def register(top: argparse._SubParsersAction, groups: dict[str, argparse._SubParsersAction]) -> None:
    p = top.add_parser(
        "venue",
        help="the venue service: store every table bridged to the venue broker in PostgreSQL (docs/venue.md)",
    )
    p.add_argument("--broker", default="127.0.0.1:1883", help="the venue broker, host:port (%(default)s)")
    p.add_argument("--username", default="venue", help="the venue service's login at the venue broker")
    p.add_argument(
        "--password-file",
        help="file holding that login's password (or $SMART_TABLE_VENUE_PASSWORD; never on a command line)",
    )
    p.add_argument(
        "--dsn",
        default=os.environ.get("SMART_TABLE_VENUE_DSN", "dbname=smart_table_venue"),
        help="PostgreSQL connection string (default: $SMART_TABLE_VENUE_DSN or %(default)s)",
    )
    p.add_argument(
        "--http-port", type=int, default=8090, help="serve the venue screen on this port (0: no screen)"
    )
    p.add_argument("--ws", help="the venue broker WebSocket URL for the pages (ws://<broker host>:9001)")
    p.add_argument(
        "--spectator-password-file",
        help="file holding the read-only `spectator` login's password, put in the venue screen's link "
        "(or $SMART_TABLE_SPECTATOR_PASSWORD)",
    )
    p.add_argument("--tables", action="store_true", help="print the tables the venue knows (JSON) and exit")
    p.set_defaults(func=cmd_venue)


def cmd_venue(args: argparse.Namespace) -> int:
    import psycopg

    from venue.service import VenueService
    from venue.store import VenueStore

    if args.tables:
        try:
            store = VenueStore(args.dsn)
        except psycopg.OperationalError as exc:
            raise CliError(f"cannot reach the venue database ({args.dsn}): {exc}; check --dsn") from None
        try:
            store.migrate()
            print(json.dumps(store.tables(), indent=2, default=str))
        finally:
            store.close()
        return 0
    host, _, port = args.broker.rpartition(":")
    if not host or not port.isdigit():
        raise CliError(f"--broker {args.broker!r}: write it host:port, e.g. venue.local:1883")
    password = _secret(args.password_file, "SMART_TABLE_VENUE_PASSWORD")
    service = VenueService(host, int(port), args.username, password, args.dsn)
    screen = None
    if args.http_port:
        from urllib.parse import urlencode

        from controller.web.server import DisplayNotBuilt, serve_display

        ws = args.ws or f"ws://{host}:9001"
        spectator = _secret(args.spectator_password_file, "SMART_TABLE_SPECTATOR_PASSWORD")
        try:
            screen = serve_display("0.0.0.0", args.http_port, {"ws": ws, "title": "The venue"})
        except (DisplayNotBuilt, OSError) as exc:
            raise CliError(f"cannot serve the venue screen on port {args.http_port}: {exc}") from None
        query = urlencode({"ws": ws, "user": "spectator", "pass": spectator})
        print(f"venue screen: http://{host}:{screen.port}/venue.html?{query}", flush=True)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    try:
        service.run(stop)
    finally:
        if screen is not None:
            screen.stop()
    return 0


def _secret(path: str | None, env: str) -> str:
    if path:
        try:
            return open(path).read().strip()
        except OSError as exc:
            raise CliError(f"cannot read {path}: {exc.strerror}") from None
    return os.environ.get(env, "")
