"""`smart-table run`, `games list|export`, `tablets add [--rotate]`, `tower stats`: the controller's commands.

Parsing, files and exit codes only; the work is in controller/ (supervisor, gamelog, credentials,
towerhealth). Every failure is a CliError with one sentence.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
from pathlib import Path

from smart_table.errors import CliError


def register(top: argparse._SubParsersAction, groups: dict[str, argparse._SubParsersAction]) -> None:
    p = top.add_parser(
        "run", help="run the whole table (bridge, vision, controller, broker, display) from a config"
    )
    p.add_argument("--config", help="TOML config (every option: deploy/smart-table.example.toml)")
    p.add_argument(
        "--simulate",
        action="store_true",
        help="simulate the hardware only (firmware on a pseudo-terminal, synthetic camera); people play",
    )
    p.add_argument(
        "--bots",
        metavar="SEATS",
        help="comma-separated seats the built-in player takes, e.g. blue,yellow (the rest are people's)",
    )
    p.add_argument(
        "--demo", action="store_true", help="every seat a bot, hardware simulated: today's all-bots game"
    )
    p.add_argument("--max-turns", type=int, default=0, help="simulation: stop after this many turns")
    p.add_argument("--duration", type=float, default=0.0, help="simulation: stop after this many seconds")
    p.add_argument("--until-game-over", action="store_true", help="simulation: stop when the game ends")
    p.add_argument("--db", help="game log database (overrides table.database)")
    p.add_argument("--http-port", type=int, help="display port (overrides display.port)")
    p.add_argument("--mqtt-port", type=int, help="MQTT port (overrides mqtt.port)")
    p.add_argument("--ws-port", type=int, help="MQTT WebSocket port (overrides mqtt.ws_port)")
    p.add_argument("--seed", type=int, help="simulation seed (overrides simulate.seed and table.seed)")
    p.set_defaults(func=cmd_run)

    g = groups["games"]
    p = g.add_parser("list", help="games in the log, one JSON object per line")
    _db_args(p)
    p.add_argument("--table", help="only this table's games")
    p.set_defaults(func=cmd_games_list)
    p = g.add_parser("export", help="a game's events as JSON lines (what `smart-table rules replay` reads)")
    _db_args(p)
    p.add_argument("game", help="game id from `smart-table games list`, or 'latest'")
    p.add_argument("--out", help="write to this file instead of stdout")
    p.set_defaults(func=cmd_games_export)

    g = groups["tablets"]
    p = g.add_parser("add", help="print a seat's join link and QR code (its stored login, made on first use)")
    p.add_argument(
        "player", help="player colour: red, blue, green or yellow; or 'display' for the table view"
    )
    p.add_argument("--config", help="TOML config (table.database, mqtt.password_file, hosts and ports)")
    p.add_argument("--db", help="game database holding the table's logins (overrides table.database)")
    p.add_argument("--password-file", help="mosquitto password file to update (overrides mqtt.password_file)")
    p.add_argument("--host", help="host name or address the tablets reach (overrides display.public_host)")
    p.add_argument(
        "--rotate",
        action="store_true",
        help="make a new password: the seat's old link and QR code stop working",
    )
    p.add_argument("--password", help="use this password instead of the stored or a random one")
    p.add_argument("--no-qr", action="store_true", help="print the link only")
    p.set_defaults(func=cmd_tablets_add)
    p = g.add_parser(
        "acl",
        help="print the Mosquitto ACL for these tables (a system broker, or one shared by several tables)",
    )
    p.add_argument("--config", help="TOML config (table.id, when no --table is given)")
    p.add_argument(
        "--table", action="append", default=[], help="a table the broker serves (repeat; default: table.id)"
    )
    p.add_argument(
        "--venue", action="store_true", help="the venue broker's ACL (tables' bridges, docs/venue.md)"
    )
    p.set_defaults(func=cmd_tablets_acl)

    g = groups["tower"]
    p = g.add_parser("stats", help="battle tower health: landings per zone and colour, jams, chi-square test")
    _db_args(p)
    p.add_argument("--table", help="table id (default: table.id)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=cmd_tower_stats)


def _db_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--config", help="TOML config (table.database)")
    p.add_argument("--db", help="game log database (overrides table.database)")


def _config(path: str | None):
    from controller import config

    try:
        return config.load(path)
    except config.ConfigError as exc:
        raise CliError(str(exc)) from None


def _open_log(args: argparse.Namespace, must_exist: bool = True):
    from controller.gamelog import GameLog

    cfg = _config(args.config)
    db = Path(args.db) if args.db else cfg.database_path()
    if must_exist and not db.exists():
        raise CliError(f"game log {db} does not exist; give --db or run a game first (smart-table run).")
    try:
        return cfg, GameLog(db)
    except Exception as exc:  # noqa: BLE001 - sqlite3 errors on a file that is not a database
        raise CliError(f"{db} cannot be opened as a game log ({exc}).") from None


# -- run -----------------------------------------------------------------------------------------


def cmd_run(args: argparse.Namespace) -> int:
    from controller import config
    from controller.supervisor import Supervisor, SupervisorError

    cfg = _config(args.config)
    try:
        for key, value in (
            ("table.database", args.db),
            ("display.port", args.http_port),
            ("mqtt.port", args.mqtt_port),
            ("mqtt.ws_port", args.ws_port),
            ("simulate.seed", args.seed),
            ("table.seed", args.seed),
        ):
            if value is not None:
                section, name = key.split(".")
                cfg.set(key, config.check(section, name, value))
        config.validate(cfg)
    except config.ConfigError as exc:
        raise CliError(str(exc)) from None
    if args.bots is not None:
        seats = [b.strip() for b in args.bots.split(",") if b.strip()]
        bad = [b for b in seats if b not in cfg["table"]["players"]]
        if bad or not seats:
            raise CliError(
                f"--bots {args.bots!r}: name seats of this table ({', '.join(cfg['table']['players'])}), "
                "separated by commas, e.g. --bots blue,yellow."
            )
        cfg.set("table.bots", seats)
    if args.demo:
        cfg.set("table.demo", True)
        args.simulate = True
    if cfg.path is None and args.db is None:
        cfg.set("table.database", str(Path.cwd() / cfg["table"]["database"]))
    if not args.simulate:
        cfg.set("simulate.tower_control", "")
    # A part that cannot start is named with `smart-table doctor`'s line and its fix; without the broker
    # nothing reaches the tablets, so that one stops the run, the others run on (the table goes on by hand).
    from controller import doctor

    problems = doctor.preflight(cfg, args.simulate)
    for check in problems:
        print(f"smart-table: {check.line()}", file=sys.stderr, flush=True)
    if any(c.name == "broker" for c in problems):
        return 1
    limits = {"max_turns": args.max_turns, "duration": args.duration, "until_game_over": args.until_game_over}
    sup = Supervisor(cfg, args.simulate, limits)
    previous = {
        sig: signal.signal(sig, lambda *_: sup.stopping.set()) for sig in (signal.SIGTERM, signal.SIGINT)
    }
    try:
        return sup.run()
    except SupervisorError as exc:
        raise CliError(str(exc), code=1) from None
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


# -- games ---------------------------------------------------------------------------------------


def cmd_games_list(args: argparse.Namespace) -> int:
    _cfg, log = _open_log(args)
    for game in log.games(args.table):
        print(json.dumps(game.to_json(), sort_keys=True))
    log.close()
    return 0


def cmd_games_export(args: argparse.Namespace) -> int:
    _cfg, log = _open_log(args)
    game_id = args.game
    if game_id == "latest":
        games = log.games()
        if not games:
            raise CliError("the game log holds no games yet.")
        game_id = games[-1].game_id
    if log.game(game_id) is None:
        raise CliError(f"no game {game_id!r} in the log; `smart-table games list` shows the ids.")
    lines = log.export_lines(game_id)
    if args.out:
        Path(args.out).write_text("".join(line + "\n" for line in lines))
    else:
        for line in lines:
            sys.stdout.write(line + "\n")
    log.close()
    return 0


# -- tablets -------------------------------------------------------------------------------------


def cmd_tablets_add(args: argparse.Namespace) -> int:
    from controller import credentials

    cfg = _config(args.config)
    who = args.player
    if who not in (*credentials.PLAYER_COLOURS, "display", "spectator", "tools"):
        raise CliError(
            f"{who!r} is not a tablet: use red, blue, green, yellow, display, spectator or tools (the CLI's)."
        )
    if args.rotate and args.password:
        raise CliError("give either --rotate (a new random password) or --password, not both.")
    db = Path(args.db) if args.db else cfg.database_path()
    table = cfg["table"]["id"]
    try:
        with credentials.CredentialStore(db) as store:
            # Stable: the stored password until someone asks for a new one, so printed links keep working.
            if args.password:
                store.set(table, who, args.password)
                password = args.password
            elif args.rotate:
                password = store.rotate(table, who)
            else:
                password = store.ensure(table, [who])[who]
    except Exception as exc:  # noqa: BLE001 - sqlite3 errors on a file that is not a database
        raise CliError(f"cannot keep the login in the game database {db} ({exc}); give --db.") from None
    path = Path(args.password_file) if args.password_file else cfg.password_file()
    user = credentials.login(table, who)  # `table-1/red`: the ACL keys on the table and the seat
    try:
        credentials.set_user(path, user, password)
    except (OSError, ValueError) as exc:
        raise CliError(f"cannot write the password file {path} ({exc}); give --password-file.") from None
    host = args.host or cfg["display"]["public_host"] or cfg["display"]["host"]
    link = credentials.join_link(
        host,
        cfg["display"]["port"],
        cfg["mqtt"]["ws_port"],
        table,
        None if who in ("display", "spectator") else who,
        user,
        password,
    )
    if host in ("127.0.0.1", "localhost", "0.0.0.0", ""):
        print(
            f"note: the link names {host or 'no host'}, which a tablet cannot reach; give --host with this "
            "machine's address on the table's network (or set display.public_host).",
            file=sys.stderr,
        )
    print(
        f"{who}: user {user}, password {password} ({'new, ' if args.rotate else ''}kept in {db}; added to "
        f"{path})"
    )
    print(f"join link: {link}")
    if not args.no_qr:
        import io

        import qrcode

        qr = qrcode.QRCode(border=1)
        qr.add_data(link)
        buf = io.StringIO()
        qr.print_ascii(out=buf, invert=True)
        print(buf.getvalue(), end="")
    print(
        "A running `smart-table run` with its own broker takes the new login within a second; a system "
        "Mosquitto rereads the password file on `systemctl reload mosquitto` (or SIGHUP).",
        file=sys.stderr,
    )
    return 0


def cmd_tablets_acl(args: argparse.Namespace) -> int:
    from controller.broker import render_acl, render_venue_acl
    from controller.config import TOPIC_NAME

    tables = args.table or [_config(args.config)["table"]["id"]]
    bad = [t for t in tables if not TOPIC_NAME.ok(t)]
    if bad:
        raise CliError(f"--table {bad[0]!r} is not a table id: {TOPIC_NAME.describe()}.")
    sys.stdout.write(render_venue_acl(tables) if args.venue else render_acl(tables))
    return 0


# -- tower ---------------------------------------------------------------------------------------


def cmd_tower_stats(args: argparse.Namespace) -> int:
    from controller import towerhealth

    cfg, log = _open_log(args)
    table = args.table or cfg["table"]["id"]
    stats = towerhealth.compute(log, table, cfg["tower"]["window"], cfg["tower"]["alpha"])
    log.close()
    if args.json:
        print(json.dumps(stats.to_json(), sort_keys=True))
        return 0
    print(
        f"tower of table {table}: {stats.drops} cubes landed, {stats.jams} jams, "
        f"{stats.disagreements} tower/camera disagreements"
    )
    zones = sorted({z for per in stats.by_colour.values() for z in per})
    if zones:
        width = max(len(z) for z in zones) + 2
        print("zone".ljust(width) + "".join(c.rjust(8) for c in sorted(stats.by_colour)) + "   share")
        total = max(1, stats.drops)
        for z in zones:
            row = [stats.by_colour[c].get(z, 0) for c in sorted(stats.by_colour)]
            print(z.ljust(width) + "".join(str(n).rjust(8) for n in row) + f"   {sum(row) / total:6.1%}")
    t = stats.test
    if t is None:
        print("chi-square: not enough drops yet (needs 20 before the last window and 10 in it)")
    else:
        print(
            f"chi-square (last {t.recent} cubes vs the {t.baseline} before): statistic {t.statistic}, "
            f"dof {t.dof}, p = {t.p_value:.3g} ({'UNUSUAL' if t.p_value < stats.alpha else 'consistent'} "
            f"at alpha {stats.alpha})"
        )
    print(f"warning: {stats.warning}" if stats.warning else "warning: none")
    return 0
