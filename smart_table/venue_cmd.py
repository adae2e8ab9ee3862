"""`smart-table venue`: the venue service (venue/), storing every bridged table in PostgreSQL; `venue league`
(leagues across tables) and `venue campaign` (Deep Legends campaigns moving between tables)."""

from __future__ import annotations

import argparse
import json
import os
import signal
import threading
from typing import Any

from smart_table.errors import CliError
from smart_table.files import read_json


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
    sub = p.add_subparsers(dest="venue_command", metavar="league|campaign")
    _register_leagues(sub)
    _register_campaigns(sub)


def dsn(p: argparse.ArgumentParser) -> None:
    # SUPPRESS: `smart-table venue --dsn X league ...` keeps X (a subparser's default would replace it).
    p.add_argument("--dsn", default=argparse.SUPPRESS, help="PostgreSQL connection string (as for venue)")


def _register_campaigns(sub: argparse._SubParsersAction) -> None:
    """`smart-table venue campaign ...`: Deep Legends campaigns kept at the venue (venue/campaigns.py)."""
    campaign = sub.add_parser("campaign", help="Deep Legends campaigns a group continues at another table")
    g = campaign.add_subparsers(dest="campaign_command", metavar="SUBCOMMAND", required=True)

    def table_db(p: argparse.ArgumentParser) -> None:
        p.add_argument("--config", help="the table's TOML config (table.id, table.database)")
        p.add_argument("--db", help="the table's database file (overrides table.database)")
        p.add_argument("--table", help="this table's id (default: table.id)")
        p.add_argument("--force", action="store_true", help="replace a copy with more games recorded")
        dsn(p)

    p = g.add_parser("push", help="keep this table's campaign at the venue (as `campaign export` writes it)")
    p.add_argument("name", nargs="?", help="the campaign's name (`smart-table campaign list`)")
    p.add_argument("--file", help="push this export file instead of the table's database")
    table_db(p)
    p.set_defaults(func=cmd_campaign_push)
    p = g.add_parser("pull", help="bring the venue's copy of a campaign to this table, to play on")
    p.add_argument("name")
    p.add_argument("--out", help="write the export to this file (for `campaign import`) instead")
    table_db(p)
    p.set_defaults(func=cmd_campaign_pull)
    p = g.add_parser("list", help="the campaigns the venue keeps")
    p.add_argument("--json", action="store_true", help="one JSON object a line")
    dsn(p)
    p.set_defaults(func=cmd_campaign_list)


def _register_leagues(sub: argparse._SubParsersAction) -> None:
    """`smart-table venue league ...`: leagues played across the venue's tables (venue/leagues.py)."""
    league = sub.add_parser("league", help="leagues whose games are played at the venue's tables")
    g = league.add_subparsers(dest="league_command", metavar="SUBCOMMAND", required=True)

    p = g.add_parser("new", help="make a league")
    p.add_argument("name")
    dsn(p)
    p.set_defaults(func=cmd_league_new)
    p = g.add_parser("list", help="the venue's leagues, one a line")
    dsn(p)
    p.set_defaults(func=cmd_league_list)
    p = g.add_parser("game", help="who sits where at a table for a league game (its next game, or --game)")
    p.add_argument("league")
    p.add_argument("--table", required=True, help="the table's id, e.g. table-3")
    p.add_argument("--seat", action="append", default=[], metavar="COLOUR=NAME", help="e.g. --seat red=Ann")
    p.add_argument("--game", help="the game's id (default: the table's next game to start)")
    dsn(p)
    p.set_defaults(func=cmd_league_game)
    p = g.add_parser("standings", help="the league's standings from the tables' results")
    p.add_argument("league")
    p.add_argument("--json", action="store_true", help="one JSON object instead of a table")
    dsn(p)
    p.set_defaults(func=cmd_league_standings)


def _league_store(args: argparse.Namespace) -> Any:
    import psycopg

    from venue.store import VenueStore

    try:
        store = VenueStore(args.dsn)
        store.migrate()
    except psycopg.OperationalError as exc:
        raise CliError(f"cannot reach the venue database ({args.dsn}): {exc}; check --dsn", code=1) from None
    return store


def _store_call(args: argparse.Namespace, fn: Any, refusal: type[Exception]) -> Any:
    """`fn` on the venue's store, closed after; a `refusal` it raises ends the command with its sentence."""
    store = _league_store(args)
    try:
        return fn(store)
    except refusal as exc:
        raise CliError(str(exc)) from None
    finally:
        store.close()


def _league_call(args: argparse.Namespace, fn: Any) -> Any:
    from venue.leagues import LeagueError

    return _store_call(args, fn, LeagueError)


def _campaign_call(args: argparse.Namespace, fn: Any) -> Any:
    from venue.campaigns import VenueCampaignError

    return _store_call(args, fn, VenueCampaignError)


def _table(args: argparse.Namespace) -> tuple[str, Any]:
    """This table's id and its database path (from --table/--db, else the config)."""
    from pathlib import Path

    from controller import config

    try:
        cfg = config.load(args.config)
    except config.ConfigError as exc:
        raise CliError(str(exc)) from None
    return args.table or cfg["table"]["id"], Path(args.db) if args.db else cfg.database_path()


def _local_campaigns(db: Any) -> Any:
    from controller.campaign import CampaignStore

    if not db.exists():
        raise CliError(f"the table's database {db} does not exist; give --db or --config.")
    try:
        return CampaignStore(db)
    except Exception as exc:  # noqa: BLE001 - sqlite3 errors on a file that is not a database
        raise CliError(f"{db} cannot be opened as the table's database ({exc}); give --db.") from None


def cmd_campaign_push(args: argparse.Namespace) -> int:
    from controller.campaign import CampaignError
    from venue.campaigns import push

    table, db = _table(args)
    if args.file:
        doc = read_json(args.file)
    elif not args.name:
        raise CliError("name the campaign to push (`smart-table campaign list`), or give --file.")
    else:
        local = _local_campaigns(db)
        try:
            doc = local.export(args.name)
        except CampaignError as exc:
            raise CliError(str(exc)) from None
        finally:
            local.close()
    done = _campaign_call(args, lambda store: push(store, doc, table, args.force))
    if done.changed:
        print(
            f"campaign {done.name!r} ({done.games} games recorded) is at the venue, "
            f"revision {done.revision}; "
            f"pull it at any table with `smart-table venue campaign pull {done.name!r}`."
        )
    else:
        print(f"campaign {done.name!r} is at the venue already, unchanged (revision {done.revision}).")
    return 0


def cmd_campaign_pull(args: argparse.Namespace) -> int:
    from pathlib import Path

    from venue.campaigns import VenueCampaignError, fetch, note_pull, pull_into

    doc, revision = _campaign_call(args, lambda store: fetch(store, args.name))
    if args.out:
        Path(args.out).write_text(json.dumps(doc, sort_keys=True, indent=1) + "\n")
        print(f"campaign {args.name!r} (revision {revision}) written to {args.out}")
        return 0
    table, db = _table(args)
    local = _local_campaigns(db) if db.exists() else None
    if local is None:
        from controller.campaign import CampaignStore

        local = CampaignStore(db)  # a table that never kept a campaign: its database starts here
    try:
        outcome = pull_into(local, doc, args.force)
    except VenueCampaignError as exc:
        raise CliError(str(exc)) from None
    finally:
        local.close()
    if outcome != "unchanged":
        _campaign_call(args, lambda store: note_pull(store, args.name, table, revision))
    games = len(doc["campaign"].get("games") or [])
    print(
        f"campaign {args.name!r} ({games} games recorded, revision {revision}) {outcome} at {table}"
        + ("" if outcome == "unchanged" else f"; play on with `smart-table campaign show {args.name!r}`")
        + "."
    )
    return 0


def cmd_campaign_list(args: argparse.Namespace) -> int:
    from venue.campaigns import campaigns

    rows = _campaign_call(args, campaigns)
    for c in rows:
        if args.json:
            print(json.dumps(c, sort_keys=True))
        else:
            pulled = f", last pulled to {c['pulled_to']}" if c["pulled_to"] else ""
            where = f"from {c['pushed_from']}{pulled}"
            print(f"{c['name']}: {c['games']} games, revision {c['revision']}, {where}")
    if not rows and not args.json:
        print("no campaigns at the venue yet; push one with `smart-table venue campaign push NAME`.")
    return 0


def cmd_league_new(args: argparse.Namespace) -> int:
    from venue.leagues import new_league

    _league_call(args, lambda store: new_league(store, args.name))
    print(f"league {args.name} made; seat its games with `smart-table venue league game {args.name} ...`")
    return 0


def cmd_league_list(args: argparse.Namespace) -> int:
    from venue.leagues import leagues

    for name in _league_call(args, leagues):
        print(name)
    return 0


def cmd_league_game(args: argparse.Namespace) -> int:
    from controller.credentials import PLAYER_COLOURS
    from venue.leagues import add_fixture

    seats: dict[str, str] = {}
    for item in args.seat:
        colour, sep, person = item.partition("=")
        if not sep or not person.strip() or colour not in PLAYER_COLOURS:
            raise CliError(f"--seat {item!r}: write COLOUR=NAME with a colour of {', '.join(PLAYER_COLOURS)}")
        if colour in seats:
            raise CliError(f"--seat: {colour} is given twice")
        seats[colour] = person.strip()
    n = _league_call(args, lambda store: add_fixture(store, args.league, args.table, seats, args.game))
    which = f"game {args.game}" if args.game else "next game"
    print(f"fixture {n}: {args.table}'s {which} counts for {args.league}")
    return 0


def cmd_league_standings(args: argparse.Namespace) -> int:
    from venue.leagues import standings

    ranked, counts = _league_call(args, lambda store: standings(store, args.league))
    if args.json:
        print(
            json.dumps({"league": args.league, "standings": [s.to_json() for s in ranked], "games": counts})
        )
        return 0
    print(
        f"{args.league}: {counts['finished']} games finished, {counts['playing']} playing, "
        f"{counts['waiting']} waiting"
    )
    print(f"{'#':>3}  {'player':20} {'played':>6} {'wins':>5} {'points':>6} {'game total':>10}")
    for i, s in enumerate(ranked, start=1):
        print(f"{i:>3}  {s.person:20} {s.played:>6} {s.wins:>5} {s.points:>6} {s.game_total:>10}")
    return 0


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
