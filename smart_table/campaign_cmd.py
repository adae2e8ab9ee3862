"""`smart-table campaign new|show|list|export|import|record|tenacity|saga-points|play|publish`: Deep Legends
campaigns kept in the controller's database (docs/deep-legends.md)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from smart_table.errors import CliError
from smart_table.files import read_json


def register(top: argparse._SubParsersAction, groups: dict[str, argparse._SubParsersAction]) -> None:
    # Long on purpose: the argparse declarations of every campaign subcommand, one block each.
    gp = top.add_parser("campaign", help="Deep Legends six-game campaigns kept between evenings")
    g = gp.add_subparsers(dest="campaign_command", metavar="SUBCOMMAND")
    gp.set_defaults(func=lambda _a: (gp.print_help(sys.stderr), 2)[1])

    p = g.add_parser("new", help="start a campaign: each player names their memoir")
    _db_args(p)
    p.add_argument("name", help="the campaign's name, e.g. autumn")
    p.add_argument(
        "--player",
        action="append",
        default=[],
        metavar="ID=MEMOIR",
        help="a player and the memoir's name ('Voyages of __'), e.g. ana='Ana the Bold'; once per player",
    )
    p.add_argument("--mode", choices=("group", "solo", "coop"), default="group")
    p.add_argument("--no-saga", action="store_true", help="play the campaign without the saga content")
    p.add_argument("--sea-dogs", action="store_true", help="with the Sea Dogs expansion")
    p.add_argument(
        "--items",
        action="append",
        default=[],
        metavar="ID=1.07,1.12",
        help="saga items a player holds already (-2 Campaign points each)",
    )
    p.add_argument("--after", help="a finished campaign this one continues (a super-campaign)")
    p.add_argument("--reset-saga", action="store_true", help="with --after: start the saga content afresh")
    p.add_argument("--saga-file", help="the owner's saga file (default: the invented sample, for tests)")
    p.set_defaults(func=cmd_new)

    p = g.add_parser("show", help="the Campaign Logs and the Campaign points")
    _db_args(p)
    p.add_argument("name")
    p.add_argument("--json", action="store_true", help="the campaign, its standings and games as JSON")
    p.set_defaults(func=cmd_show)

    p = g.add_parser("list", help="campaigns in the database, one JSON object per line")
    _db_args(p)
    p.set_defaults(func=cmd_list)

    p = g.add_parser("export", help="a campaign, its saga state, games and journal as JSON")
    _db_args(p)
    p.add_argument("name")
    p.add_argument("--out", help="write to this file instead of stdout")
    p.set_defaults(func=cmd_export)

    p = g.add_parser("import", help="a campaign from `smart-table campaign export`")
    _db_args(p)
    p.add_argument("file")
    p.add_argument("--name", help="import it under this name")
    p.set_defaults(func=cmd_import)

    p = g.add_parser("record", help="record a finished game of the game log into the campaign")
    _db_args(p)
    p.add_argument("name")
    p.add_argument("game", help="game id from `smart-table games list`")
    p.add_argument("--seats", required=True, metavar="red=ana,blue=ben", help="each colour's Campaign Log")
    p.add_argument("--tie-order", metavar="blue,red", help="the tie-break battle's order of tied colours")
    p.set_defaults(func=cmd_record)

    p = g.add_parser("result", help="record a game played without the table's log (solo, co-op, by hand)")
    _db_args(p)
    p.add_argument("name")
    p.add_argument("--order", required=True, metavar="ana,ai,ben", help="every seat's log, best first")
    p.add_argument("--scores", metavar="ana=73,ai=60", default="", help="each player's game total")
    p.add_argument(
        "--achievements", action="append", default=[], metavar="ana=explorer,builder", help="once per player"
    )
    p.add_argument("--level4", action="append", default=[], metavar="ana=crew,gunner", help="once per player")
    p.add_argument(
        "--items", action="append", default=[], metavar="ana=1.04", help="saga items owned at the end"
    )
    p.add_argument("--winning-team", choices=("players", "ai"), help="co-op: the team that won")
    p.set_defaults(func=cmd_result)

    p = g.add_parser("tenacity", help="a player marks a Tenacity Bonus before games 2-5")
    _db_args(p)
    p.add_argument("name")
    p.add_argument("player")
    p.add_argument("bonus", help="ship_upgrade, level_up, coins, cargo (sea_dog with Sea Dogs)")
    p.set_defaults(func=cmd_tenacity)

    p = g.add_parser("saga-points", help="mark Campaign points from Saga")
    _db_args(p)
    p.add_argument("name")
    p.add_argument("player")
    p.add_argument("points", type=int)
    p.add_argument("why", help="the saga item or Book entry that gave them, e.g. 'Book 1.04'")
    p.set_defaults(func=cmd_saga_points)

    p = g.add_parser("saga", help="follow a saga instruction at the table and keep the saga state")
    _db_args(p)
    p.add_argument("name")
    p.add_argument("step", choices=("explore", "fortune", "read", "trade", "sink", "end-game"))
    p.add_argument(
        "target", nargs="?", help="the card (explore, fortune), Book entry (read) or item (trade, sink)"
    )
    p.add_argument("--player", help="who follows it (their Campaign Log id)")
    p.add_argument("--coins", type=int, default=0, help="Coins paid (explore) or asked (trade, up to 5)")
    p.add_argument("--cargo", type=int, default=0, help="Cargo paid for a saga item (trade)")
    p.add_argument("--roll", type=int, action="append", help="a face of the Saga die rolled, once per roll")
    p.add_argument(
        "--choose", type=int, action="append", help="the option chosen (0, 1, ...), once per choice"
    )
    p.add_argument("--seller")
    p.add_argument("--buyer")
    p.add_argument("--winner", help="the player who sank the Ship (sink)")
    p.add_argument("--loser", help="the player whose Ship sank (sink)")
    p.set_defaults(func=cmd_saga)

    p = g.add_parser("play", help="play campaign games with simulated players (random legal actions)")
    _db_args(p)
    p.add_argument("name")
    p.add_argument("--games", type=int, default=6, help="how many games to play now (default: the rest)")
    p.add_argument("--seed", type=int, default=1)
    p.set_defaults(func=cmd_play)

    p = g.add_parser("publish", help="show the campaign on the tablets (retained table/<tid>/campaign)")
    _db_args(p)
    p.add_argument("name", nargs="?", help="the campaign (omit with --clear)")
    p.add_argument("--seats", help="which log sits at which colour tonight, e.g. red=ana,blue=ben")
    p.add_argument("--clear", action="store_true", help="take the campaign off the tablets")
    p.add_argument("--table", help="the table id (overrides table.id)")
    p.add_argument("--host", help="MQTT host (overrides mqtt.host)")
    p.add_argument("--port", type=int, help="MQTT port (overrides mqtt.port)")
    p.add_argument(
        "--username", help="MQTT login (default: the table's `tools` login, never the controller's)"
    )
    p.add_argument("--password", help="its password (default: the table's stored one)")
    p.set_defaults(func=cmd_publish)


def _db_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--config", help="TOML config (table.database)")
    p.add_argument("--db", help="database file (overrides table.database)")


def _db_path(args: argparse.Namespace) -> Path:
    from controller import config

    if args.db:
        return Path(args.db)
    try:
        return config.load(args.config).database_path()
    except config.ConfigError as exc:
        raise CliError(str(exc)) from None


def _store(args: argparse.Namespace) -> Any:
    from controller.campaign import CampaignStore

    db = _db_path(args)
    try:
        return CampaignStore(db)
    except Exception as exc:  # noqa: BLE001 - sqlite3 errors on a file that is not a database
        raise CliError(f"{db} cannot be opened as the table's database ({exc}); give --db.") from None


def _run(fn: Any) -> Any:
    """Rules refusals and store conflicts become the CLI's one-line errors."""
    from controller.campaign import CampaignError
    from rules.errors import Ambiguous, RulesError

    try:
        return fn()
    except Ambiguous as exc:
        opts = ", ".join(str(o) for o in exc.options)
        raise CliError(f"{exc.message} One of: {opts}." if opts else exc.message) from None
    except RulesError as exc:
        raise CliError(exc.message) from None
    except KeyError as exc:
        raise CliError(f"missing {exc.args[0]!r}: see `smart-table campaign saga --help`.") from None
    except CampaignError as exc:
        raise CliError(str(exc)) from None


def _pairs(items: list[str], what: str) -> dict[str, str]:
    out: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip() or not value.strip():
            raise CliError(f"{what} {item!r}: write ID=VALUE, e.g. ana='Ana the Bold'.")
        out[key.strip()] = value.strip()
    return out


def cmd_new(args: argparse.Namespace) -> int:
    from rules.dead_reckoning.deep_legends import campaign as cp
    from rules.dead_reckoning.deep_legends import saga

    store = _store(args)
    memoirs = _pairs(args.player, "--player")
    items = {k: [i for i in v.split(",") if i] for k, v in _pairs(args.items, "--items").items()}
    unknown = set(items) - set(memoirs)
    if unknown:
        raise CliError(f"--items names {', '.join(sorted(unknown))}, who is not a --player.")
    specs: list[cp.PlayerSpec] = [
        {"id": k, "memoir": v, "saga_items": items.get(k, [])} for k, v in memoirs.items()
    ]
    # a reset saga puts every card back in the box: no saga item is carried over then
    previous = _run(lambda: store.get(args.after)).data if args.after and not args.reset_saga else None
    prev_saga = _run(lambda: store.get(args.after)).saga if args.after else None
    data = _run(
        lambda: cp.new_campaign(args.name, specs, args.mode, not args.no_saga, args.sea_dogs, previous)
    )
    saga_state: Any = {} if args.reset_saga else (prev_saga or {})
    if not saga_state and not args.no_saga:
        fresh = _run(lambda: saga.new_saga_state(saga.load_saga(args.saga_file), args.saga_file))
        saga_state = saga.assign_items(fresh, {i: k for k, v in items.items() for i in v})
    row = _run(lambda: store.create(data, saga_state))
    print(f"campaign {row.name!r} started ({row.campaign_id}): {', '.join(row.data['logs'])}.")
    store.close()
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    from rules.dead_reckoning.deep_legends import campaign as cp

    store = _store(args)
    row = _run(lambda: store.get(args.name))
    st = cp.standings(row.data)
    if args.json:
        doc = {**row.summary(), "campaign": row.data, "standings": st, "games": store.games(row.campaign_id)}
        print(json.dumps(doc, sort_keys=True, indent=1))
        store.close()
        return 0
    c = row.data
    print(f"Campaign {row.name!r} ({c['mode']}), {len(c['games'])} of {cp.GAMES} games played")
    cols = ["saga", "start_penalty", "placement", "achievement_rows", "achievement_columns"]
    cols += ["sailor_columns", "game6", "total"]
    heads = ["log", "memoir", "saga F", "-2/item", "placing G", "ach.rows H", "ach.cols I", "sailors J"]
    heads += ["game 6 K", "total L"]
    print("  ".join(heads))
    for k, log in c["logs"].items():
        s: Any = st["scores"][k]
        flag = "" if log["active"] else " (dropped)"
        print(
            "  ".join(
                [f"{k}{flag}", f"Voyages of {log['memoir']}", str(s["saga"]), str(s["start_penalty"])]
                + [str(s[x]) for x in cols[2:]]
            )
        )
    for k, log in c["logs"].items():
        taken = ", ".join(f"game {t['game']}: {t['bonus']}" for t in log["tenacity"]) or "none"
        print(f"{k}: saga items {', '.join(log['saga_items']) or 'none'}; Tenacity Bonuses {taken}")
    if c["tenacity_due"]:
        print(f"before the next game, a Tenacity Bonus to choose: {', '.join(c['tenacity_due'])}")
    if st["winners"]:
        print(f"campaign won by {' and '.join(st['winners'])}")
    store.close()
    return 0


def cmd_list(args: argparse.Namespace) -> int:
    store = _store(args)
    for row in store.all():
        print(json.dumps(row.summary(), sort_keys=True))
    store.close()
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    store = _store(args)
    doc = _run(lambda: store.export(args.name))
    text = json.dumps(doc, sort_keys=True, indent=1) + "\n"
    if args.out:
        Path(args.out).write_text(text)
    else:
        sys.stdout.write(text)
    store.close()
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    doc = read_json(args.file)
    store = _store(args)
    row = _run(lambda: store.import_(doc, args.name))
    print(f"campaign {row.name!r} imported ({row.campaign_id}), {len(row.data['games'])} games recorded.")
    store.close()
    return 0


def cmd_record(args: argparse.Namespace) -> int:
    from controller.gamelog import GameLog
    from rules import api
    from rules.dead_reckoning.deep_legends import campaign as cp

    store = _store(args)
    row = _run(lambda: store.get(args.name))
    seats = {k: v for k, v in (p.split("=", 1) for p in args.seats.split(",") if "=" in p)}
    log = GameLog(_db_path(args))
    if log.game(args.game) is None:
        raise CliError(f"no game {args.game!r} in the log; `smart-table games list` shows the ids.")
    done = [g["number"] for g in store.games(row.campaign_id) if g["game_id"] == args.game and g["recorded"]]
    if done:
        raise CliError(f"game {args.game} is already recorded as game {done[0]} of {row.name!r}.")
    state = api.replay(list(log.events(args.game)))
    tie = [t for t in (args.tie_order or "").split(",") if t]
    result = _run(lambda: cp.result_from_state(state, seats, tie or None))
    number = len(row.data["games"]) + 1
    store.start_game(row, number, seats, int(state.data["created"]["seed"]))
    store.link_game(row, number, args.game)
    new = _run(lambda: cp.record_game(row.data, result))
    _run(
        lambda: store.update(
            row, "record_game", {"number": number, "game_id": args.game}, new, game=(number, dict(result))
        )
    )
    print(f"game {number} recorded: {', '.join(f'{k} +{v}' for k, v in new['games'][-1]['points'].items())}.")
    log.close()
    store.close()
    return 0


def cmd_result(args: argparse.Namespace) -> int:
    from rules.dead_reckoning.deep_legends import campaign as cp

    store = _store(args)
    row = _run(lambda: store.get(args.name))
    order = [k.strip() for k in args.order.split(",") if k.strip()]

    def lists(items: list[str], what: str) -> dict[str, list[str]]:
        return {k: [x for x in v.split(",") if x] for k, v in _pairs(items, what).items()}

    scores: dict[str, int] = {}
    for k, v in _pairs([p for p in args.scores.split(",") if p], "--scores").items():
        if not v.lstrip("-").isdigit():
            raise CliError(f"--scores {k}={v}: a score is a whole number, e.g. {k}=73.")
        scores[k] = int(v)
    result: cp.GameResult = {
        "order": order,
        "scores": scores,
        "achievements": lists(args.achievements, "--achievements"),
        "level4": lists(args.level4, "--level4"),
    }
    if args.items:
        result["saga_items"] = lists(args.items, "--items")
    if args.winning_team:
        result["winning_team"] = args.winning_team
    new = _run(lambda: cp.record_game(row.data, result))
    number = len(new["games"])
    store.start_game(row, number, {}, 0)
    detail = {"number": number, "by_hand": True}
    _run(lambda: store.update(row, "record_game", detail, new, game=(number, dict(result))))
    print(f"game {number} recorded: {', '.join(f'{k} +{v}' for k, v in new['games'][-1]['points'].items())}.")
    store.close()
    return 0


def cmd_tenacity(args: argparse.Namespace) -> int:
    from rules.dead_reckoning.deep_legends import campaign as cp

    store = _store(args)
    row = _run(lambda: store.get(args.name))
    new = _run(lambda: cp.choose_tenacity(row.data, args.player, args.bonus))
    _run(lambda: store.update(row, "tenacity", {"log": args.player, "bonus": args.bonus}, new))
    print(f"{args.player}: {cp.TENACITY_WORDS[args.bonus]}")
    store.close()
    return 0


def cmd_saga_points(args: argparse.Namespace) -> int:
    from rules.dead_reckoning.deep_legends import campaign as cp

    store = _store(args)
    row = _run(lambda: store.get(args.name))
    new = _run(lambda: cp.add_saga_points(row.data, args.player, args.points, args.why))
    detail = {"log": args.player, "points": args.points, "why": args.why}
    _run(lambda: store.update(row, "saga_points", detail, new))
    print(f"{args.player}: {args.points:+d} Campaign points from Saga ({args.why}).")
    store.close()
    return 0


WORDS = {
    "explored": "{player} pays {coins} Coins and turns {card} over; read its back aloud.",
    "read_entry": "Read Book {entry} aloud: {story}",
    "gain_card": "{player} gains card {card} from the tuck box ({kind}).",
    "add_to_row": "Take card {card} from the tuck box and add it, unseen, to the middle of the Row {row} "
    "deck.",
    "bury": "Bury {card}: face up beneath its Row's deck box until the next game.",
    "eliminate": "Eliminate {card}: behind the Eliminated Cards divider in the tuck box.",
    "campaign_points": "{player} marks {points} Campaign points from Saga.",
    "gain": "{player} gains {amount} {what} ({to}).",
    "saga_die": "{player} rolled {face} on the Saga die.",
    "chose": "{player} chose: {option}.",
    "traded": "{buyer} now owns saga item {item} (from {seller}).",
    "taken": "{winner} takes saga item {item} from {loser}.",
    "saga_end_game": "Buried saga cards go back into their Row decks for the next game.",
}


def cmd_saga(args: argparse.Namespace) -> int:
    from controller import campaign

    store = _store(args)
    step = args.step.replace("-", "_")
    needs = {"explore": "card", "fortune": "card", "read": "entry", "trade": "item", "sink": "item"}
    if step in needs and not args.target:
        raise CliError(f"`campaign saga {args.step}` needs the {needs[step]}, e.g. 1.05.")
    fields = {
        "player": args.player,
        "coins": args.coins,
        "cargo": args.cargo,
        "rolls": args.roll,
        "choices": args.choose,
        "seller": args.seller,
        "buyer": args.buyer,
        "winner": args.winner,
        "loser": args.loser,
        "active": args.player,
    }
    if step in needs:
        fields[needs[step]] = args.target
    _row, notices = _run(lambda: campaign.saga_step(store, args.name, step, **fields))
    for n in notices:
        print(WORDS[n["type"]].format(**n) if n["type"] in WORDS else json.dumps(n))
    store.close()
    return 0


def cmd_play(args: argparse.Namespace) -> int:
    from controller import campaign
    from controller.gamelog import GameLog

    store = _store(args)
    log = GameLog(_db_path(args))
    row = _run(lambda: campaign.play(store, log, args.name, args.seed, args.games))
    print(json.dumps(row.summary(), sort_keys=True))
    log.close()
    store.close()
    return 0


def cmd_publish(args: argparse.Namespace) -> int:
    """Publish the campaign view (docs/deep-legends.md, "On the tablets") with the table's `tools` login (a
    running controller keeps its session: the broker makes a username the client id): the password given,
    else the one the table stored in its database (the config's mqtt.password is the controller's)."""
    from controller import campaign, config
    from controller.credentials import CredentialStore, parse_login

    if not args.clear and not args.name:
        raise CliError("name the campaign to show (`smart-table campaign list`), or give --clear.")
    try:
        cfg = config.load(args.config)
    except config.ConfigError as exc:
        raise CliError(str(exc)) from None
    table = args.table or cfg["table"]["id"]
    user = args.username or "tools"
    password = args.password
    if not password and user in ("controller", f"{table}/controller"):
        password = cfg["mqtt"]["password"]
    if not password:
        named = parse_login(user)  # `table-1/controller` is kept as the role `controller` of its table
        with CredentialStore(_db_path(args)) as creds:
            password = creds.get(named[0], named[1]) if named else creds.get(table, user)
            password = password or ""
    view = None
    if not args.clear:
        store = _store(args)
        row = _run(lambda: store.get(args.name))
        seats = _pairs(args.seats.split(","), "--seats") if args.seats else None
        view = _run(lambda: campaign.campaign_view(row, seats))
        store.close()
    host, port = args.host or cfg["mqtt"]["host"], args.port or cfg["mqtt"]["port"]
    _run(lambda: campaign.publish_view(view, table, host, port, user, password))
    print(
        f"campaign {args.name!r} is on the tablets of table {table}."
        if view
        else f"no campaign on table {table}."
    )
    return 0
