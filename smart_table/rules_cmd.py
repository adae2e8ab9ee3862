"""`smart-table rules new|apply|show|replay|legal`: play a whole game of Dead Reckoning from a shell.

Owns only parsing, files and printing; every rule is in `rules.api`. A game is two files: the state
(`game.json`, rewritten after each action) and its event log beside it (`game.log.jsonl`, appended).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from contracts.grid import SQUARES
from rules import api
from rules.dead_reckoning.expansions import EXPANSION_MODULES
from rules.errors import RulesError
from rules.great_sea.views import summary_lines as sea_summary
from smart_table.errors import CliError

DEFAULT_COLORS = ("red", "blue", "green", "yellow")


def register(top: argparse._SubParsersAction, groups: dict[str, argparse._SubParsersAction]) -> None:
    g = groups["rules"]
    p = g.add_parser("new", help="set up a new game and write its state")
    p.add_argument("--players", type=int, required=True, help="number of players, 2 to 4")
    p.add_argument("--seed", type=int, required=True, help="seed of the simulation RNG")
    p.add_argument(
        "--out", required=True, help="state file to write (the log goes beside it: NAME.log.jsonl)"
    )
    p.add_argument("--colors", help="comma-separated player colours (default red,blue,green,yellow)")
    p.add_argument(
        "--game",
        choices=api.GAMES,
        default="dead-reckoning",
        help="the game to set up (default dead-reckoning; great-sea: The Great Sea, docs/great-sea.md)",
    )
    p.add_argument(
        "--observed-chance",
        action="store_true",
        help="the table reports boards, cards and draws as actions (default: the seeded RNG draws them)",
    )
    p.add_argument("--bonus-tokens", action="store_true", help="deal the optional Bonus Achievement tokens")
    p.add_argument(
        "--cards", help="your Advancement/Encounter file instead of the sample set (docs/cards.md)"
    )
    p.add_argument("--boards", help="your Ocean board file instead of the sample set")
    p.add_argument("--upgrades", help="your Ship Upgrade tile file instead of the sample set")
    p.add_argument(
        "--expansion",
        action="append",
        default=[],
        metavar="NAME",
        help=f"play with an expansion (repeatable): {', '.join(EXPANSION_MODULES)}",
    )
    p.set_defaults(func=cmd_new)

    p = g.add_parser("apply", help="apply one action (or command) to a game, print its events")
    p.add_argument("game", help="state file written by 'rules new'")
    p.add_argument(
        "action",
        help='JSON file with an action {"type": ...} or a command {seq, player, action}; - for stdin',
    )
    p.add_argument(
        "--as", dest="player", help="the player sending it (default: the active player, or the table)"
    )
    p.set_defaults(func=cmd_apply)

    p = g.add_parser("show", help="print a readable summary of a game")
    p.add_argument("game")
    p.add_argument("--as", dest="player", help="show what this player sees (their chest and hand)")
    p.add_argument("--json", action="store_true", help="print the view as JSON")
    p.set_defaults(func=cmd_show)

    p = g.add_parser("replay", help="rebuild a game from its event log and print the result")
    p.add_argument("log", help="event log, one JSON event per line")
    p.add_argument("--json", action="store_true", help="print the rebuilt state as JSON")
    p.add_argument("--out", help="also write the rebuilt state to this file")
    p.set_defaults(func=cmd_replay)

    p = g.add_parser("legal", help="list the actions a player may take now")
    p.add_argument("game")
    p.add_argument("--as", dest="player", help="the player (default: the active player, or the table)")
    p.set_defaults(func=cmd_legal)


# --------------------------------------------------------------------------- files


def _log_path(game: str | Path) -> Path:
    g = Path(game)
    return g.with_name(g.stem + ".log.jsonl")


def _read_json(path: str, what: str) -> Any:
    try:
        text = sys.stdin.read() if path == "-" else Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise CliError(f"{what} {path} does not exist; check the path.") from None
    except OSError as exc:
        raise CliError(f"{what} {path} cannot be read ({exc.strerror}).") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise CliError(
            f"{what} {path} is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})."
        ) from None


def _load_game(path: str) -> api.GameState:
    try:
        return api.state_from_json(_read_json(path, "game file"))
    except RulesError as exc:
        raise CliError(f"{path}: {exc.message}") from None


def _write_atomic(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    try:
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
    except OSError as exc:
        raise CliError(
            f"cannot write {path} ({exc.strerror}); check the folder exists and is writable."
        ) from None


def _append_log(path: Path, events: list[dict[str, Any]], fresh: bool = False) -> None:
    try:
        with path.open("w" if fresh else "a", encoding="utf-8") as f:
            for ev in events:
                f.write(json.dumps(ev, separators=(",", ":")) + "\n")
    except OSError as exc:
        raise CliError(f"cannot write the event log {path} ({exc.strerror}).") from None


# --------------------------------------------------------------------------- commands


def cmd_new(args: argparse.Namespace) -> int:
    colors = args.colors.split(",") if args.colors else list(DEFAULT_COLORS)
    if not 2 <= args.players <= 4:
        raise CliError("--players must be 2, 3 or 4.")
    if len(colors) < args.players:
        raise CliError(f"--colors names {len(colors)} colours but --players is {args.players}.")
    options: dict[str, Any] = {
        "auto_chance": not args.observed_chance,
        "bonus_tokens": args.bonus_tokens,
        "cards_file": args.cards,
        "boards_file": args.boards,
        "upgrades_file": args.upgrades,
    }
    if args.expansion:
        if args.game != "dead-reckoning":
            raise CliError(f"--expansion is Dead Reckoning's, not {args.game}'s.")
        options["expansions"] = list(args.expansion)
    if args.game != "dead-reckoning":
        if args.bonus_tokens or args.cards or args.boards or args.upgrades:
            raise CliError(
                f"--bonus-tokens, --cards, --boards and --upgrades are Dead Reckoning's, not {args.game}'s."
            )
        options = {"game": args.game, "auto_chance": not args.observed_chance}
    try:
        state, events = api.new_game_with_events(colors[: args.players], args.seed, options)
    except RulesError as exc:
        raise CliError(exc.message) from None
    out = Path(args.out)
    _write_atomic(out, json.dumps(api.state_to_json(state)))
    _append_log(_log_path(out), events, fresh=True)
    print(
        f"new {args.players}-player {args.game} game (seed {args.seed}) written to {out}; "
        f"log {_log_path(out)}"
    )
    print(_summary(state, None))
    return 0


def cmd_apply(args: argparse.Namespace) -> int:
    state = _load_game(args.game)
    data = _read_json(args.action, "action file")
    if not isinstance(data, dict):
        raise CliError('the action file must hold a JSON object: an action {"type": ...} or a command.')
    if "action" in data:
        command = {
            "seq": data.get("seq", state.seq),
            "player": data.get("player", args.player),
            "action": data["action"],
        }
    else:
        command = {"seq": state.seq, "player": args.player, "action": data}
    if command["player"] is None:
        command["player"] = state.active if state.active and not state.data["pending"] else "table"
    try:
        state, events = api.apply(state, command)
    except RulesError as exc:
        raise CliError(f"{exc.kind}: {exc.message}") from None
    _write_atomic(Path(args.game), json.dumps(api.state_to_json(state)))
    _append_log(_log_path(args.game), events)
    for ev in events:
        print(json.dumps(api.event_view(ev, command["player"])))
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    state = _load_game(args.game)
    if args.player and args.player not in state.players:
        raise CliError(f"{args.player!r} is not a player in this game (players: {', '.join(state.players)}).")
    if args.json:
        view = api.private_view(state, args.player) if args.player else api.public_view(state)
        print(json.dumps(view, indent=1))
    else:
        print(_summary(state, args.player))
    return 0


def cmd_replay(args: argparse.Namespace) -> int:
    try:
        lines = Path(args.log).read_text(encoding="utf-8").splitlines()
    except FileNotFoundError:
        raise CliError(f"log {args.log} does not exist; check the path.") from None
    except OSError as exc:
        raise CliError(f"log {args.log} cannot be read ({exc.strerror}).") from None
    events = []
    for i, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            events.append(json.loads(line))
        except json.JSONDecodeError as exc:
            raise CliError(
                f"{args.log} line {i} is not valid JSON ({exc.msg}); the log is damaged there."
            ) from None
    try:
        state = api.replay(events)
    except RulesError as exc:
        raise CliError(f"{args.log}: {exc.message}") from None
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        raise CliError(
            f"{args.log}: an event is malformed ({type(exc).__name__}: {exc}); the log cannot be replayed."
        ) from None
    if args.out:
        _write_atomic(Path(args.out), json.dumps(api.state_to_json(state)))
    if args.json:
        print(json.dumps(api.state_to_json(state)))
    else:
        print(f"replayed {len(events)} events")
        print(_summary(state, None))
    return 0


def cmd_legal(args: argparse.Namespace) -> int:
    state = _load_game(args.game)
    who = args.player or (state.active if state.active and not state.data["pending"] else "table")
    for a in api.legal_actions(state, who):
        print(json.dumps(a))
    return 0


# --------------------------------------------------------------------------- summary


def _summary(state: api.GameState, player: str | None) -> str:
    v = api.private_view(state, player) if player else api.public_view(state)
    if v.get("game") == "great-sea":
        return "\n".join(sea_summary(v))
    lines = [f"seq {v['seq']}  phase {v['phase']}  turn {v['turn']}  active {v['active'] or '-'}"]
    if v["waiting_for"]:
        lines.append(
            "waiting for the table: "
            + ", ".join(
                r["kind"] + (f" {r.get('square') or r.get('player') or ''}".rstrip())
                for r in v["waiting_for"]
            )
        )
    if v["battle"]:
        b = v["battle"]
        lines.append(
            f"battle {b['battle_id']} ({b['kind']}) at {b['location']}: {b['attacker']['name']} "
            f"{b['attacker']['cubes']} cubes v {b['defender']['name']} {b['defender']['cubes']} cubes"
        )
    lines.append("ocean (row 1 is next to the Harbor):")
    for r in range(1, 5):
        cells = []
        for c in range(1, 4):
            sq = f"r{r}c{c}"
            g = v["grid"][sq]
            if not g["face_up"]:
                cells.append(f"{sq} [face down]")
                continue
            txt = f"{sq} {g['board']}"
            if g.get("card"):
                card = g["card"]
                txt += f" card {card['id']}({card['cost']}{' merchant' if card['merchant'] else ''})"
            isl = g.get("island")
            if isl:
                cubes = "".join((c[0] if c else ".") for c in isl["cubes"])
                txt += f" [{cubes}]"
                if isl["controller"]:
                    txt += f" ctl {isl['controller']}"
                if isl["buildings"]:
                    txt += " " + "+".join(isl["buildings"])
                if isl["cargo"] or isl["coins"]:
                    txt += f" {isl['cargo']}c/{isl['coins']}$"
            cells.append(txt)
        lines.append("  " + " | ".join(cells))
    for color in v["players"]:
        p = v["p"][color]
        s = p["ship"]
        holds = " ".join(f"{h['cargo']}c{h['coins']}$" for h in s["holds"])
        got = [a for a, who in v["achievements"].items() if color in who]
        lines.append(
            f"{color:7} at {s['at']:7} holds {holds}  sails {s['sails']}  damage {s['damage']}"
            f"{'  PIRATE' if s['pirate'] else ''}  dock {p['dock_cargo']}  hand {p['hand_size']}  "
            f"played {','.join(p['played']) or '-'}  achievements {','.join(got) or '-'}"
        )
    you = v.get("you")
    if you:
        hand = ", ".join(f"{c} ({x['sailor']} L{x['level']})" for c, x in you["hand"].items())
        lines.append(
            f"you ({you['player']}): chest {you['chest']}  hand {hand or '-'}  "
            f"set aside {', '.join(a['id'] for a in you['set_aside']) or '-'}"
        )
    if v["scores"]:
        lines.append("final coins: " + ", ".join(f"{c} {t}" for c, t in v["scores"]["totals"].items()))
        if v["scores"]["winner"]:
            lines.append(f"winner: {v['scores']['winner']}")
        elif v["scores"].get("shared_win"):
            shared = ", ".join(v["scores"]["shared_win"])
            lines.append(f"shared win (no cube to drop in the tie-break): {shared}")
        else:
            lines.append("tie: " + ", ".join(v["scores"]["tie_break_needed"]) + " play the tie-break battle")
    _ = SQUARES
    return "\n".join(lines)
