"""Campaigns kept between evenings: the Deep Legends campaign, its Campaign Logs and the saga state in
SQLite, and a campaign game played by simulated players with its events in the controller's game log.

Storage: its own tables (created if missing) in the controller's database file by default, beside the
game log's. A campaign is one row holding the campaign JSON (`rules.dead_reckoning.deep_legends.campaign`)
and the saga state JSON, with a version counted up by every change; each change is one transaction that
writes the new JSON, a journal line (`campaign_steps`) and, for a game, its row in `campaign_games`.
WAL + synchronous=FULL, as the game log: a committed change survives SIGKILL and power loss. The rules
live in `rules`; this module only stores, links games to campaigns and drives the simulated players.
"""

from __future__ import annotations

import json
import random
import sqlite3
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from controller.gamelog import connect
from rules import api
from rules.dead_reckoning.cards import ACHIEVEMENTS
from rules.dead_reckoning.deep_legends import campaign as cp
from rules.errors import RulesError

EXPORT_FORMAT = "smart-table/campaign-export@1"
COLOURS = ("red", "blue", "green", "yellow")

SCHEMA = """
CREATE TABLE IF NOT EXISTS campaigns (
    campaign_id TEXT PRIMARY KEY,
    name        TEXT NOT NULL UNIQUE,
    created     REAL NOT NULL,
    updated     REAL NOT NULL,
    version     INTEGER NOT NULL,     -- counts every change: a writer that read an older one is refused
    data        TEXT NOT NULL,        -- the campaign JSON (Campaign Logs, games recorded, bonuses due)
    saga        TEXT NOT NULL         -- the saga state JSON (tuck box, rows, eliminated, saga items)
);
CREATE TABLE IF NOT EXISTS campaign_games (
    campaign_id TEXT NOT NULL,
    number      INTEGER NOT NULL,     -- 1-6
    game_id     TEXT,                 -- the game in the controller's game log (NULL: not linked yet)
    seats       TEXT NOT NULL,        -- JSON {colour: log id}
    seed        INTEGER NOT NULL,
    started     REAL NOT NULL,
    recorded    REAL,                 -- NULL while the game is being played
    result      TEXT,                 -- JSON GameResult once recorded
    PRIMARY KEY (campaign_id, number)
);
CREATE TABLE IF NOT EXISTS campaign_steps (
    campaign_id TEXT NOT NULL,
    version     INTEGER NOT NULL,     -- the campaign's version after this step
    kind        TEXT NOT NULL,        -- new, import, record_game, tenacity, saga_points, ...
    detail      TEXT NOT NULL,        -- JSON: what the step was given
    ts          REAL NOT NULL,
    PRIMARY KEY (campaign_id, version)
);
"""


class CampaignError(Exception):
    """A campaign request that cannot be done; the message says what was wrong and what to do."""


@dataclass(frozen=True, slots=True)
class CampaignRow:
    campaign_id: str
    name: str
    created: float
    updated: float
    version: int
    data: cp.Campaign
    saga: dict[str, Any]

    def summary(self) -> dict[str, Any]:
        st = cp.standings(self.data)
        return {
            "campaign_id": self.campaign_id,
            "name": self.name,
            "mode": self.data["mode"],
            "games": len(self.data["games"]),
            "players": list(self.data["logs"]),
            "finished": st["finished"],
            "winners": st["winners"],
            "version": self.version,
            "updated": self.updated,
        }


class CampaignStore:
    """The campaign tables of one SQLite file; several processes may open it (WAL, one writer)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.db = connect(self.path, SCHEMA)
        self._lock = threading.RLock()

    def close(self) -> None:
        with self._lock:
            self.db.close()

    @contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            self.db.execute("BEGIN IMMEDIATE")
            try:
                yield self.db
            except BaseException:
                self.db.execute("ROLLBACK")
                raise
            self.db.execute("COMMIT")

    # -- reading ---------------------------------------------------------------------------------

    def get(self, name_or_id: str) -> CampaignRow:
        with self._lock:
            row = self.db.execute(
                "SELECT campaign_id, name, created, updated, version, data, saga FROM campaigns "
                "WHERE name=? OR campaign_id=?",
                (name_or_id, name_or_id),
            ).fetchone()
        if row is None:
            raise CampaignError(f"no campaign {name_or_id!r}; `smart-table campaign list` shows them.")
        return CampaignRow(row[0], row[1], row[2], row[3], row[4], json.loads(row[5]), json.loads(row[6]))

    def all(self) -> list[CampaignRow]:
        with self._lock:
            names = [
                r[0] for r in self.db.execute("SELECT campaign_id FROM campaigns ORDER BY created, rowid")
            ]
        return [self.get(n) for n in names]

    def games(self, campaign_id: str) -> list[dict[str, Any]]:
        with self._lock:
            rows = self.db.execute(
                "SELECT number, game_id, seats, seed, started, recorded, result FROM campaign_games "
                "WHERE campaign_id=? ORDER BY number",
                (campaign_id,),
            ).fetchall()
        return [
            {
                "number": r[0],
                "game_id": r[1],
                "seats": json.loads(r[2]),
                "seed": r[3],
                "started": r[4],
                "recorded": r[5],
                "result": json.loads(r[6]) if r[6] else None,
            }
            for r in rows
        ]

    def steps(self, campaign_id: str) -> list[dict[str, Any]]:
        with self._lock:
            rows = self.db.execute(
                "SELECT version, kind, detail, ts FROM campaign_steps WHERE campaign_id=? ORDER BY version",
                (campaign_id,),
            ).fetchall()
        return [{"version": r[0], "kind": r[1], "detail": json.loads(r[2]), "ts": r[3]} for r in rows]

    # -- writing ---------------------------------------------------------------------------------

    def create(self, data: cp.Campaign, saga: Any = None, kind: str = "new") -> CampaignRow:
        name = data["name"]
        now = time.time()
        campaign_id = f"{_slug(name)}-{uuid.uuid4().hex[:8]}"
        with self._tx() as db:
            if db.execute("SELECT 1 FROM campaigns WHERE name=?", (name,)).fetchone():
                raise CampaignError(f"a campaign named {name!r} exists already; choose another name.")
            db.execute(
                "INSERT INTO campaigns VALUES (?,?,?,?,?,?,?)",
                (campaign_id, name, now, now, 1, _dump(data), _dump(saga or {})),
            )
            db.execute(
                "INSERT INTO campaign_steps VALUES (?,?,?,?,?)",
                (campaign_id, 1, kind, _dump({"name": name}), now),
            )
        return self.get(campaign_id)

    def update(
        self,
        row: CampaignRow,
        kind: str,
        detail: dict[str, Any],
        data: cp.Campaign,
        saga: Any = None,
        game: tuple[int, dict[str, Any]] | None = None,
    ) -> CampaignRow:
        """Write a change made to `row` (as read): refused if another writer changed it since."""
        now = time.time()
        with self._tx() as db:
            got = db.execute(
                "SELECT version FROM campaigns WHERE campaign_id=?", (row.campaign_id,)
            ).fetchone()
            if got is None or got[0] != row.version:
                raise CampaignError(f"campaign {row.name!r} was changed meanwhile; read it again and retry.")
            version = row.version + 1
            db.execute(
                "UPDATE campaigns SET data=?, saga=?, version=?, updated=? WHERE campaign_id=?",
                (_dump(data), _dump(row.saga if saga is None else saga), version, now, row.campaign_id),
            )
            db.execute(
                "INSERT INTO campaign_steps VALUES (?,?,?,?,?)",
                (row.campaign_id, version, kind, _dump(detail), now),
            )
            if game is not None:
                number, result = game
                db.execute(
                    "UPDATE campaign_games SET recorded=?, result=? WHERE campaign_id=? AND number=?",
                    (now, _dump(result), row.campaign_id, number),
                )
        return self.get(row.campaign_id)

    def start_game(self, row: CampaignRow, number: int, seats: dict[str, str], seed: int) -> None:
        """Note that game `number` is being played with these seats (before its game log exists)."""
        with self._tx() as db:
            db.execute(
                "INSERT OR IGNORE INTO campaign_games VALUES (?,?,NULL,?,?,?,NULL,NULL)",
                (row.campaign_id, number, _dump(seats), seed, time.time()),
            )

    def link_game(self, row: CampaignRow, number: int, game_id: str) -> None:
        with self._tx() as db:
            db.execute(
                "UPDATE campaign_games SET game_id=? WHERE campaign_id=? AND number=?",
                (game_id, row.campaign_id, number),
            )

    def delete(self, name_or_id: str) -> None:
        """Remove a campaign, its games and journal (a newer copy pulled from the venue replaces it)."""
        row = self.get(name_or_id)
        with self._tx() as db:
            for table in ("campaign_steps", "campaign_games", "campaigns"):
                db.execute(f"DELETE FROM {table} WHERE campaign_id=?", (row.campaign_id,))  # noqa: S608

    # -- export / import -------------------------------------------------------------------------

    def export(self, name_or_id: str) -> dict[str, Any]:
        row = self.get(name_or_id)
        return {
            "format": EXPORT_FORMAT,
            "name": row.name,
            "campaign": row.data,
            "saga": row.saga,
            "games": self.games(row.campaign_id),
            "steps": self.steps(row.campaign_id),
        }

    def import_(self, doc: Any, name: str | None = None) -> CampaignRow:
        """A campaign from an export (under `name` if given); its games and journal come along."""
        if not isinstance(doc, dict) or doc.get("format") != EXPORT_FORMAT:
            raise CampaignError(f"not a campaign export: expected an object with format {EXPORT_FORMAT!r}.")
        data = doc.get("campaign")
        if (
            not isinstance(data, dict)
            or data.get("format") != cp.FORMAT
            or not isinstance(data.get("logs"), dict)
        ):
            raise CampaignError(f"the export's 'campaign' is not a {cp.FORMAT} campaign.")
        try:
            for log_id in data["logs"]:
                cp.campaign_score(data, log_id)  # type: ignore[arg-type]
        except (KeyError, TypeError, ValueError, RulesError) as exc:
            raise CampaignError(f"the export's campaign is damaged ({exc!r}); export it again.") from None
        if name:
            data = {**data, "name": name}
        row = self.create(data, doc.get("saga") or {}, kind="import")  # type: ignore[arg-type]
        with self._tx() as db:
            for g in doc.get("games", []):
                db.execute(
                    "INSERT INTO campaign_games VALUES (?,?,?,?,?,?,?,?)",
                    (
                        row.campaign_id,
                        int(g["number"]),
                        g.get("game_id"),
                        _dump(g.get("seats", {})),
                        int(g.get("seed", 0)),
                        float(g.get("started", 0)),
                        g.get("recorded"),
                        _dump(g["result"]) if g.get("result") is not None else None,
                    ),
                )
        return row


def _dump(x: Any) -> str:
    return json.dumps(x, sort_keys=True, separators=(",", ":"))


def _slug(name: str) -> str:
    s = "".join(ch if ch.isalnum() else "-" for ch in name.lower()).strip("-")
    return s[:24] or "campaign"


# -- a campaign played by simulated players ------------------------------------------------------


def bot_choice(seed: int, number: int, seq: int, actions: list[dict[str, Any]]) -> dict[str, Any]:
    """A random legal action drawn from (campaign seed, game, state.seq) alone, so a game resumed after a
    crash continues exactly as it would have."""
    # in a canonical order: a state reloaded from the log (keys sorted) may list the same actions in
    # another order
    ordered = sorted(actions, key=lambda a: json.dumps(a, sort_keys=True))
    return random.Random(f"{seed}:{number}:{seq}").choice(ordered)


def bot_command(state: Any, seed: int, number: int) -> dict[str, Any]:
    """The next command of a simulated table: the active player's (or the table's chance) random legal
    action; first, a player who sank the active player's Ship takes one of their saga items (the rulebook's
    "may": simulated players always do)."""
    who = state.active or "table"
    dl = state.data.get("deep_legends") or {}
    for chance in dl.get("may_take", ()):
        if chance["winner"] != who and not state.data["pending"]:
            # a defender who sank the attacker takes one of their saga items before play goes on
            takes = [a for a in api.legal_actions(state, chance["winner"]) if a["type"] == "take_saga_item"]
            if takes:
                return {
                    "seq": state.seq,
                    "player": chance["winner"],
                    "action": bot_choice(seed, number, state.seq, takes),
                }
    # simulated players agree a trade at once (`trade_saga_item`); the offer a tablet makes to a person
    # (`offer_saga_trade`) is left to people
    acts = [a for a in api.legal_actions(state, who) if a["type"] != "offer_saga_trade"]
    return {"seq": state.seq, "player": who, "action": bot_choice(seed, number, state.seq, acts)}


def bot_result(state: Any, seats: dict[str, str], seed: int, number: int) -> cp.GameResult:
    """The finished game's result; a tie on Coins is settled by a simulated tie-break battle (a seeded
    shuffle of the colours), standing in for the battle the table would drop."""
    tied = sorted(seats)
    random.Random(f"{seed}:{number}:tie").shuffle(tied)
    return cp.result_from_state(state, seats, tie_order=tied)


def bot_between_games(c: cp.Campaign) -> list[tuple[str, dict[str, Any], cp.Campaign]]:
    """What simulated players decide between games: each owed Tenacity Bonus (the first still open) and
    each Sea Dog kept; (step kind, detail, campaign after it) in order."""
    steps: list[tuple[str, dict[str, Any], cp.Campaign]] = []
    for k in list(c["tenacity_due"]):
        bonus = cp.tenacity_options(c, k)[0]
        c = cp.choose_tenacity(c, k, bonus)
        steps.append(("tenacity", {"log": k, "bonus": bonus}, c))
    for k in list(c["sea_dogs_due"]):
        card = f"sea-dog-{len(c['games'])}-{k}"
        c = cp.keep_sea_dog(c, k, card)
        steps.append(("sea_dog", {"log": k, "card": card}, c))
    return steps


def game_seats(c: cp.Campaign) -> dict[str, str]:
    seats_logs = [k for k, v in c["logs"].items() if v["active"]]
    if not 2 <= len(seats_logs) <= 4:
        raise CampaignError("a simulated campaign game needs 2 to 4 players in the campaign.")
    return dict(zip(COLOURS, seats_logs, strict=False))


def saga_after(saga: dict[str, Any], state: Any, result: cp.GameResult) -> dict[str, Any]:
    """The campaign's saga state after a game: what the game's saga instructions changed, buried cards
    back into their Row decks, each item with its owner at the end."""
    from rules.dead_reckoning.deep_legends import saga as sg

    dl = state.data.get("deep_legends") or {}
    if saga and "saga" in dl:
        saga = dict(sg.end_game(sg.load_saga(dl["saga"].get("file")), dl["saga"]))
    return _saga_items_after(saga, result)


def simulate(
    c: cp.Campaign,
    seed: int,
    games: int = cp.GAMES,
    max_actions: int = 50_000,
    saga: dict[str, Any] | None = None,
    watch: Callable[[int, dict[str, Any], list[dict[str, Any]]], None] | None = None,
) -> cp.Campaign:
    """The same games as `play`, in memory and unstored (what a stored run must end with; `saga`: the
    campaign's saga state before them; `watch(game, command, events)` sees every command applied)."""
    return simulate_with_saga(c, seed, games, max_actions, saga, watch)[0]


def simulate_with_saga(
    c: cp.Campaign,
    seed: int,
    games: int = cp.GAMES,
    max_actions: int = 50_000,
    saga: dict[str, Any] | None = None,
    watch: Callable[[int, dict[str, Any], list[dict[str, Any]]], None] | None = None,
) -> tuple[cp.Campaign, dict[str, Any]]:
    """`simulate`, returning the saga state after the games too (what an export of them holds)."""
    saga = dict(saga or {})
    if c["mode"] != "group":
        raise CampaignError("simulated players play group campaigns only (the engine has no solo AI yet).")
    for _ in range(games):
        if len(c["games"]) >= cp.GAMES:
            break
        steps = bot_between_games(c)
        c = steps[-1][2] if steps else c
        number = len(c["games"]) + 1
        seats = game_seats(c)
        state = api.new_game(list(seats), seed * 100 + number, cp.game_options(c, seats, saga))
        for _ in range(max_actions):
            if state.phase == "over":
                break
            command = bot_command(state, seed, number)
            state, events = api.apply(state, command, inplace=True)
            if watch is not None:
                watch(number, command, events)
        if state.phase != "over":
            raise CampaignError(f"game {number} did not end within {max_actions} actions.")
        result = bot_result(state, seats, seed, number)
        c = cp.record_game(c, result)
        saga = saga_after(saga, state, result)
    return c, saga


def play(
    store: CampaignStore,
    log: Any,
    name: str,
    seed: int,
    games: int = cp.GAMES,
    on_command: Callable[[int, int], None] | None = None,
    max_actions: int = 50_000,
) -> CampaignRow:
    """Play up to `games` more games of a group campaign with random legal players through `rules.api`,
    each to the engine's own end; every accepted command goes into the game log (`log`, a
    `controller.gamelog.GameLog`) before the next, and each finished game is recorded into the campaign
    in one transaction. Safe to kill at any moment and call again: it resumes where the files say."""
    row = store.get(name)
    if row.data["mode"] != "group":
        raise CampaignError("simulated players play group campaigns only (the engine has no solo AI yet).")
    for _ in range(games):
        row = store.get(name)
        if len(row.data["games"]) >= cp.GAMES:
            break
        for kind, detail, after in bot_between_games(row.data):
            row = store.update(row, kind, detail, after)
        _finish_recorded(store, log, row)
        number = len(row.data["games"]) + 1
        row = _play_one(store, log, row, number, seed, on_command, max_actions)
    _finish_recorded(store, log, row)
    return store.get(name)


def _saga_items_after(saga: dict[str, Any], result: cp.GameResult) -> dict[str, Any]:
    """The saga state with each item's owner as the game ended (an item may change hands in a game)."""
    if not saga or "items" not in saga or "saga_items" not in result:
        return saga
    played = set(result["saga_items"])
    items = {i: o for i, o in saga["items"].items() if o not in played}
    for log_id, owned in result["saga_items"].items():
        items.update({i: log_id for i in owned})
    return {**saga, "items": items}


def _finish_recorded(store: CampaignStore, log: Any, row: CampaignRow) -> None:
    """A game recorded into the campaign whose game-log row a crash left open is closed now."""
    for g in store.games(row.campaign_id):
        if g["recorded"] is not None and g["game_id"]:
            game = log.game(g["game_id"])
            if game is not None and game.finished is None:
                log.finish(g["game_id"], {"totals": g["result"]["scores"]})


def _play_one(
    store: CampaignStore,
    log: Any,
    row: CampaignRow,
    number: int,
    seed: int,
    on_command: Callable[[int, int], None] | None,
    max_actions: int,
) -> CampaignRow:
    seats = game_seats(row.data)
    game_seed = seed * 100 + number
    store.start_game(row, number, seats, game_seed)
    table_id = f"campaign-{row.campaign_id}-{number}"  # one game-log table per campaign game: found again
    game = log.active_game(table_id)
    if game is None:
        done = log.games(table_id)
        game = done[-1] if done else None
    if game is None:
        options = cp.game_options(row.data, seats, row.saga)
        state, events = api.new_game_with_events(list(seats), game_seed, options)
        game_id = log.create_game(
            table_id, list(seats), game_seed, options, events, api.state_to_json(state), state.seq
        )
    else:
        game_id = game.game_id
        snap = log.latest_snapshot(game_id)
        state = api.state_from_json(snap.state)
        for event in log.events(game_id, after=snap.n):
            state = api.fold(state, event)
    store.link_game(row, number, game_id)
    n = 0
    while state.phase != "over":
        if n >= max_actions:
            raise CampaignError(f"game {number} did not end within {max_actions} actions.")
        command = bot_command(state, seed, number)
        state, events = api.apply(state, command)
        log.append(game_id, command, events, state.seq, state=lambda s=state: api.state_to_json(s))
        n += 1
        if on_command is not None:
            on_command(number, state.seq)
    result = bot_result(state, seats, seed, number)
    row = store.get(row.campaign_id)
    if len(row.data["games"]) < number:
        row = store.update(
            row,
            "record_game",
            {"number": number, "game_id": game_id},
            cp.record_game(row.data, result),
            saga=saga_after(row.saga, state, result),
            game=(number, dict(result)),
        )
    return row


# -- the saga at the table -------------------------------------------------------------------------

SAGA_STEPS = ("explore", "fortune", "read", "trade", "sink", "end_game")


def saga_step(
    store: CampaignStore, name: str, step: str, **args: Any
) -> tuple[CampaignRow, list[dict[str, Any]]]:
    """One saga instruction followed at the table, stored with the campaign in one transaction: the saga
    state changes (`rules.dead_reckoning.deep_legends.saga`), Campaign points from Saga go onto the
    player's Campaign Log and each log's saga items follow the saga state. Players are named by their
    Campaign Log ids. Returns the stored campaign and what the table reads and does (the notices)."""
    from rules.dead_reckoning.deep_legends import saga as sg

    row = store.get(name)
    if not row.saga:
        raise CampaignError(f"campaign {row.name!r} is played without the saga content.")
    book = sg.load_saga(row.saga.get("file"))
    st: sg.SagaState = row.saga  # type: ignore[assignment]
    who = args.get("player") or ""
    rolls, choices = list(args.get("rolls") or []), list(args.get("choices") or [])
    if step in ("explore", "fortune", "read") and who not in row.data["logs"]:
        raise CampaignError(f"name the player by their Campaign Log: one of {', '.join(row.data['logs'])}.")
    out: Any
    if step == "explore":
        out = sg.explore(book, st, args["card"], who, int(args.get("coins", 0)), rolls, choices)
    elif step == "fortune":
        spec = book["by_id"].get(args["card"])
        if spec is None or spec["kind"] != "fortune":
            raise CampaignError(f"{args['card']!r} is not a Fortune Encounter of this saga.")
        out = sg.resolve(book, st, spec["effects"], who, this=args["card"], rolls=rolls, choices=choices)
    elif step == "read":
        out = sg.resolve(
            book, st, [{"do": "read", "entry": args["entry"]}], who, rolls=rolls, choices=choices
        )
    elif step == "trade":
        new = sg.trade(
            st,
            args["seller"],
            args["buyer"],
            args["item"],
            int(args.get("cargo", 0)),
            int(args.get("coins", 0)),
            active=args.get("active") or args["buyer"],
        )
        out = {
            "state": new,
            "notices": [{"type": "traded", **{k: args.get(k) for k in ("item", "seller", "buyer")}}],
        }
    elif step == "sink":
        new = sg.take_on_sinking(st, args["winner"], args["loser"], args["item"])
        out = {
            "state": new,
            "notices": [{"type": "taken", **{k: args.get(k) for k in ("item", "winner", "loser")}}],
        }
    elif step == "end_game":
        out = {"state": sg.end_game(book, st), "notices": [{"type": "saga_end_game"}]}
    else:
        raise CampaignError(f"unknown saga step {step!r}; one of {', '.join(SAGA_STEPS)}.")
    c = row.data
    for n in out["notices"]:
        if n["type"] == "campaign_points" and n["player"] in c["logs"] and not c["logs"][n["player"]]["ai"]:
            c = cp.add_saga_points(
                c, n["player"], n["points"], f"saga: {step} {args.get('card') or args.get('entry')}"
            )
    new_state = out["state"]
    for log_id in c["logs"]:
        owned = sorted(i for i, owner in new_state["items"].items() if owner == log_id)
        if owned != sorted(c["logs"][log_id]["saga_items"]):
            c = cp.set_saga_items(c, log_id, owned)
    detail = {"step": step, **{k: v for k, v in args.items() if v is not None}}
    row = store.update(row, f"saga_{step}", detail, c, saga=new_state)
    return row, list(out["notices"])


# -- the campaign on the tablets -------------------------------------------------------------------

VIEW_FORMAT = "smart-table/campaign-view@1"


def campaign_view(row: CampaignRow, seats: dict[str, str] | None = None) -> dict[str, Any]:
    """The retained `table/<tid>/campaign` payload (contracts.topics.MQTT_CAMPAIGN): every Campaign Log as
    the sheets show it, the standings, and which log sits at which colour tonight (`seats`, default: the
    active logs in seating order). Public, like the sheets on the table; the saga's hidden cards are not in
    it (only the saga items each log owns)."""
    c = row.data
    seats = dict(seats) if seats else game_seats_or_none(c)
    unknown = sorted(set(seats.values()) - set(c["logs"]))
    if unknown:
        raise CampaignError(
            f"{unknown[0]!r} is not a Campaign Log of {row.name!r}: one of {', '.join(c['logs'])}."
        )
    st = cp.standings(c)
    logs: dict[str, Any] = {}
    for k, log in c["logs"].items():
        logs[k] = {
            "memoir": log["memoir"],
            "player": log["player"],
            "ai": log["ai"],
            "active": log["active"],
            "team": log["team"],
            "placement": list(log["placement"]),
            "achievements": {a: log["achievements"].get(a, 0) for a in ACHIEVEMENTS},
            "struck": list(log["struck"]),
            "sailors": {r: log["sailors"].get(r, 0) for r in cp.SAILOR_ROWS},
            "saga_points": [dict(e) for e in log["saga_points"]],
            "saga_items": list(log["saga_items"]),
            "start_items": list(log["start_items"]),
            "tenacity": [
                {
                    "game": t["game"],
                    "bonus": t["bonus"],
                    "words": cp.TENACITY_WORDS.get(t["bonus"], t["bonus"]),
                }
                for t in log["tenacity"]
            ],
            "sea_dogs": list(log["sea_dogs"]),
            "score": dict(st["scores"][k]),
        }
    order = sorted(c["logs"], key=lambda k: (-st["scores"][k]["total"], list(c["logs"]).index(k)))
    standings: dict[str, Any] = {"finished": st["finished"], "winners": st["winners"], "order": order}
    if "teams" in st:
        standings["teams"] = st["teams"]
        standings["winning_teams"] = st.get("winning_teams", [])
    return {
        "format": VIEW_FORMAT,
        "items": _item_words(row),
        "name": row.name,
        "campaign_id": row.campaign_id,
        "version": row.version,
        "mode": c["mode"],
        "games_played": len(c["games"]),
        "games": cp.GAMES,
        "seats": seats,
        "logs": logs,
        "standings": standings,
        "due": {"tenacity": list(c["tenacity_due"]), "sea_dogs": sorted(c["sea_dogs_due"])},
        "ts": time.time(),
    }


def _item_words(row: CampaignRow) -> dict[str, dict[str, str]]:
    """Each saga item some log owns: its name and its words ("they will tell you how and when they can be
    used"), from the campaign's saga file; empty when the campaign has no saga."""
    from rules.dead_reckoning.deep_legends import saga as sg

    owned = {i for log in row.data["logs"].values() for i in log["saga_items"]}
    if not owned or not row.saga:
        return {}
    try:
        book = sg.load_saga(row.saga.get("file"))
    except RulesError:
        return {}  # the owner's file moved: the tablets show the numbers alone
    out: dict[str, dict[str, str]] = {}
    for i in sorted(owned):
        spec = book["by_id"].get(i, {})
        out[i] = {"name": str(spec.get("name", i)), "text": str(spec.get("text", ""))}
    return out


def game_seats_or_none(c: cp.Campaign) -> dict[str, str]:
    """The colours of the campaign's next game (the active logs in seating order), or none if it has not
    2 to 4 players (a solo campaign's AI sits at no colour of the engine's game)."""
    try:
        return game_seats(c)
    except CampaignError:
        return {}


def publish_view(
    view: dict[str, Any] | None,
    table_id: str,
    host: str,
    port: int,
    username: str,
    password: str,
    timeout: float = 10.0,
) -> None:
    """Publish (retained, QoS 1) the campaign view on `table/<tid>/campaign` with a login (the table's
    `tools`); None clears it. Raises CampaignError with one sentence when the broker cannot be reached or
    refuses."""
    import paho.mqtt.client as mqtt

    from contracts.topics import MQTT_CAMPAIGN

    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=f"campaign-{uuid.uuid4().hex[:8]}")
    from controller.credentials import resolve_user

    client.username_pw_set(resolve_user(table_id, username), password or None)  # `controller`: this table's
    answers: list[Any] = []
    client.on_connect = lambda _c, _u, _f, reason, _p=None: answers.append(reason)
    try:
        client.connect(host, port, keepalive=10)
    except OSError as exc:
        raise CampaignError(
            f"cannot reach the table's MQTT broker at {host}:{port} ({exc.strerror or exc}); "
            "is the table running?"
        ) from None
    client.loop_start()
    try:
        deadline = time.monotonic() + timeout
        while not answers and time.monotonic() < deadline:
            time.sleep(0.02)
        if not answers or answers[0].is_failure or not client.is_connected():
            raise CampaignError(
                f"the MQTT broker at {host}:{port} refused the login {username!r}; give its password "
                "(--password; the table's `tools` login is stored by `smart-table tablets add tools`)."
            )
        payload = "" if view is None else json.dumps(view, separators=(",", ":"))
        info = client.publish(f"table/{table_id}/{MQTT_CAMPAIGN}", payload, qos=1, retain=True)
        info.wait_for_publish(timeout)
        if not info.is_published():
            raise CampaignError(
                f"the MQTT broker at {host}:{port} did not take the campaign in {timeout:.0f} s."
            )
    finally:
        client.disconnect()
        client.loop_stop()


# -- a campaign played at the table by the controller ------------------------------------------------


class TableCampaign:
    """The campaign whose games the controller plays (config `table.campaign`): each game is set up with
    the campaign's options (saga items, Tenacity Bonuses, the saga's cards), linked to its number in the
    campaign, recorded into the campaign as soon as the engine ends it, and the campaign view published
    (retained) on `table/<tid>/campaign`, so the tablets' Campaign Logs follow without `campaign publish`.

    Everything it needs is in the controller's database (the game log and the campaign tables), so a
    controller restarted at any moment, even between a game's end and its record, records and publishes on
    start (`attach`). Colours are the table's `players` in seat order, taking the campaign's active logs in
    order."""

    def __init__(self, core: Any, db: str | Path, name: str, players: list[str], seed: int) -> None:
        self.core, self.name, self.players, self.seed = core, name, list(players), seed
        self.store = CampaignStore(db)
        row = self.store.get(name)  # CampaignError: no such campaign
        if row.data["mode"] != "group":
            raise CampaignError(
                f"campaign {name!r} is a {row.data['mode']} campaign: the table plays group campaigns (the "
                "engine has no solo AI); record its games with `smart-table campaign result`."
            )
        self.seats(row)  # refuses a seat count that does not match now
        self.note: str | None = None  # why the last finished game is not recorded yet (a tie to settle)
        self._lock = threading.RLock()

    def seats(self, row: CampaignRow) -> dict[str, str]:
        active = [k for k, v in row.data["logs"].items() if v["active"]]
        if len(active) != len(self.players):
            raise CampaignError(
                f"campaign {row.name!r} has {len(active)} active players but the table seats "
                f"{len(self.players)} ({', '.join(self.players)}); "
                f"set table.players to {len(active)} colours."
            )
        return dict(zip(self.players, active, strict=True))

    def options(self) -> dict[str, Any]:
        """The engine options of the campaign's next game (merged into the table's own by the service)."""
        row = self.store.get(self.name)
        if len(row.data["games"]) >= cp.GAMES:
            return {}  # the campaign is over: the table plays on without it
        return cp.game_options(row.data, self.seats(row), row.saga)

    def game_seed(self) -> int:
        return self.seed * 100 + len(self.store.get(self.name).data["games"]) + 1

    def attach(self) -> None:
        """After the table opened (or resumed) its game: link it, watch it, record it if already over."""
        self.core.listeners.append(self._after_command)
        self.core.new_game_listeners.append(self.link)
        self.link()
        self.record_if_over()

    def link(self) -> None:
        """The open game is the campaign's next game (or the one it was linked to before a restart)."""
        with self._lock:
            row = self.store.get(self.name)
            game_id = self.core.game_id
            if game_id is None or any(g["game_id"] == game_id for g in self.store.games(row.campaign_id)):
                return
            number = len(row.data["games"]) + 1
            if number > cp.GAMES or self.core.game.name != "dead-reckoning":
                return  # the campaign is over, or another game was chosen on the new-game screen
            self.store.start_game(row, number, self.seats(row), int(self.core.game_seed))
            self.store.link_game(row, number, game_id)

    def _after_command(self, _events: list[dict[str, Any]]) -> None:
        if getattr(self.core.state, "phase", None) == "over":
            self.record_if_over()

    def record_if_over(self) -> bool:
        """Record the open game into the campaign once it is over (once); then publish. True if recorded."""
        with self._lock:
            state = self.core.state
            row = self.store.get(self.name)
            game = next(
                (g for g in self.store.games(row.campaign_id) if g["game_id"] == self.core.game_id), None
            )
            if state is None or state.phase != "over" or game is None:
                return False
            return self._record(row, game, state)

    def catch_up(self) -> None:
        """Before the table opens its game: a campaign game that ended but was not recorded (the controller
        stopped in between, or a tie was settled meanwhile) is recorded from the game log now."""
        with self._lock:
            row = self.store.get(self.name)
            for game in self.store.games(row.campaign_id):
                if game["game_id"] and game["recorded"] is None and self.core.log.game(game["game_id"]):
                    state, _ = self.core.rebuild(game["game_id"])
                    if state.phase == "over":
                        self._record(row, game, state)
                        row = self.store.get(self.name)

    def _record(self, row: CampaignRow, game: dict[str, Any], state: Any) -> bool:
        if game["recorded"] is not None or len(row.data["games"]) >= game["number"]:
            return False
        winner = (state.data.get("scores") or {}).get("winner")
        try:
            result = cp.result_from_state(state, game["seats"], tie_order=[winner] if winner else None)
        except RulesError as exc:  # a tie the table settles: recorded by hand, with the order
            self.note = (
                f"{exc} Record it with `smart-table campaign record {row.name} {game['game_id']} --seats "
                + ",".join(f"{c}={k}" for c, k in game["seats"].items())
                + " --tie-order ...`."
            )
            self.publish()
            return False
        self.note = None
        self.store.update(
            row,
            "record_game",
            {"number": game["number"], "game_id": game["game_id"], "by": "controller"},
            cp.record_game(row.data, result),
            saga=saga_after(row.saga, state, result),
            game=(game["number"], dict(result)),
        )
        self.publish()
        return True

    def view(self) -> dict[str, Any]:
        row = self.store.get(self.name)
        out = campaign_view(row, self.seats(row))
        if self.note:
            out["note"] = self.note
        return out

    def publish(self) -> None:
        """The campaign view, retained, on table/<tid>/campaign with the controller's own link."""
        from contracts.topics import MQTT_CAMPAIGN

        self.core.publisher.publish(f"{self.core.topic}/{MQTT_CAMPAIGN}", self.view(), retain=True)

    def close(self) -> None:
        self.store.close()
