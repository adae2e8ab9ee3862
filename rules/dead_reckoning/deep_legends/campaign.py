"""The six-game campaign (Deep Legends rulebook, "Campaign Specific Rules", "Using the Sea Dogs Cards with a
Saga Campaign", the FAQ on super-campaigns and dropping players, "Solo Campaign" and "Co-op Campaign").

A campaign is plain JSON data (`Campaign`), so the controller stores and exports it as it is; every
function here takes a campaign and returns a new one (the argument is never changed) or raises a
`RulesError` whose message says what was wrong. A Campaign Log (`Log`) per player holds what the printed
sheet holds: the memoir's name (A), the placement points of each game (G), the Achievements table
(D: a column per Achievement, filled top to bottom, at most 4 marks), the Sailor cards table (E: a row per
Sailor kind with two for Crew, filled left to right, at most 3 marks), the saga items owned, the
Campaign points from Saga (F), the Tenacity Bonuses taken and the Entire Game 6 Score (K).
Readings where the rulebook is silent are listed in docs/deep-legends.md.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any, NotRequired, TypedDict, cast

from rules.core.errors import Ambiguous, Illegal, Invalid
from rules.core.state import GameState
from rules.dead_reckoning.cards import ACHIEVEMENTS
from rules.dead_reckoning.model import State

FORMAT = "dead-reckoning/campaign@1"
GAMES = 6
ACHIEVEMENT_MARKS = 4  # "If a column in this table has been marked 4 times, you do not place marks"
SAILOR_MARKS = 3  # "If a row in this table has already been marked 3 times, you do not place marks"
# one row per Sailor kind of the starting deck, "only 1 row for Deck Hands and 1 row for Gunners" and
# "2 rows for Crew"
SAILOR_ROWS = (
    "captain",
    "purser",
    "first-mate",
    "bosun",
    "buccaneer",
    "gunner",
    "deck-hand",
    "crew-1",
    "crew-2",
)
TENACITY = ("ship_upgrade", "level_up", "coins", "cargo")
TENACITY_SEA_DOGS = ("ship_upgrade", "level_up", "coins", "sea_dog")
TENACITY_WORDS = {
    "ship_upgrade": "Gain a basic non-sail ship upgrade.",
    "level_up": "Gain a free level-up, any card.",
    "coins": "Gain 5 coin to your chest.",
    "cargo": "Gain 4 cargo to your Harbor.",
    "sea_dog": "Draw 3 Sea Dogs cards and keep 1. Keep it for the rest of the campaign.",
}
AI_SAGA_POINTS = 10  # "the AI gets 10 Saga Campaign points at the start of the campaign"
AI_SAILOR_POINTS = 6  # "the AI simply scores 6 Campaign points for the sailor chart"
AI_TENACITY_COINS = 5  # "it always just gets 5 extra at the start of the next game instead"
MODES = ("group", "solo", "coop")


class SagaEntry(TypedDict):
    points: int
    why: str
    game: int  # games recorded when they were gained (0: before the first)


class TenacityEntry(TypedDict):
    game: int  # the game it is gained for (2-5)
    bonus: str  # one of TENACITY / TENACITY_SEA_DOGS; "ai_coins" for the AI's +5


class Log(TypedDict):
    memoir: str  # "Voyages of __" (A)
    player: str  # who keeps the log now (a substitute may take the seat)
    ai: bool  # an AI opponent's log (solo, co-op, or a dropped player's seat)
    active: bool  # False once the player dropped out
    team: str | None  # co-op: "players" or "ai"
    placement: list[int]  # Campaign points for placement, one per game recorded (0 when absent)
    achievements: dict[str, int]  # marks per Achievement column, 0-4
    struck: list[str]  # columns scratched out (the AI's Master Merchant)
    sailors: dict[str, int]  # marks per Sailor row, 0-3
    saga_points: list[SagaEntry]
    start_items: list[str]  # saga items held when the campaign began: -2 each
    saga_items: list[str]  # saga items owned now
    tenacity: list[TenacityEntry]
    sea_dogs: list[str]  # Sea Dog cards kept for the campaign
    game6_score: int | None  # "Entire Game 6 Score" (K)
    notes: str


class GameRecord(TypedDict):
    number: int
    order: list[str]  # log ids of those who played, best first
    scores: dict[str, int]
    points: dict[str, int]  # placement Campaign points of this game
    achievements: dict[str, list[str]]
    level4: dict[str, list[str]]
    marked: dict[str, list[str]]  # Sailor rows actually marked (full rows take no mark)


class Campaign(TypedDict):
    format: str
    name: str
    mode: str  # "group", "solo" or "coop"
    saga: bool  # played with saga content (the AI's 10 points)
    sea_dogs: bool
    logs: dict[str, Log]  # log id -> log, in seating order
    games: list[GameRecord]
    tenacity_due: list[str]  # log ids that must choose a Tenacity Bonus before the next game
    sea_dogs_due: dict[str, int]  # log id -> Sea Dog cards dealt, until one is kept
    previous: str | None  # the campaign this one continues (a super-campaign)


class GameResult(TypedDict):
    """One finished game as the campaign needs it, by log id."""

    order: list[str]  # best first; ties on Coins settled by the base game's tie-break battle
    scores: dict[str, int]  # the game's total score (the Coins) per player
    achievements: dict[str, list[str]]  # Achievements with this player's marker at the end
    level4: dict[str, list[str]]  # the Sailor kind of each card ending the game at level 4
    saga_items: NotRequired[dict[str, list[str]]]  # saga items owned at the end (default: unchanged)
    winning_team: NotRequired[str]  # co-op: "players" or "ai"
    saga_points: NotRequired[dict[str, int]]  # Campaign points from Saga gained during the game


class PlayerSpec(TypedDict):
    id: str
    memoir: str
    player: NotRequired[str]
    saga_items: NotRequired[list[str]]


def _copy(c: Campaign) -> Campaign:
    return cast(Campaign, json.loads(json.dumps(c)))


def _log(memoir: str, player: str, ai: bool, team: str | None, items: list[str]) -> Log:
    return {
        "memoir": memoir,
        "player": player,
        "ai": ai,
        "active": True,
        "team": team,
        "placement": [],
        "achievements": {a: 0 for a in ACHIEVEMENTS},
        "struck": ["master_merchant"] if ai else [],
        "sailors": {r: 0 for r in SAILOR_ROWS},
        "saga_points": [],
        "start_items": list(items),
        "saga_items": list(items),
        "tenacity": [],
        "sea_dogs": [],
        "game6_score": None,
        "notes": "",
    }


def _ai_log(memoir: str, team: str | None, saga: bool) -> Log:
    log = _log(memoir, "AI", True, team, [])
    if saga:
        log["saga_points"].append({"points": AI_SAGA_POINTS, "why": "the AI's saga points", "game": 0})
    return log


def new_campaign(
    name: str,
    players: Sequence[PlayerSpec],
    mode: str = "group",
    saga: bool = True,
    sea_dogs: bool = False,
    previous: Campaign | None = None,
) -> Campaign:
    """A campaign before its first game. `players` name their memoirs ("Voyages of __"); saga items they
    already hold cost 2 Campaign points each. `solo` adds the AI's log; `coop` takes 2 players and adds
    2 AI logs. With `previous` (a super-campaign) each player keeps the saga items of their log there."""
    if not isinstance(name, str) or not name.strip():
        raise Invalid("give the campaign a name, e.g. 'autumn'.")
    if mode not in MODES:
        raise Invalid(f"campaign mode {mode!r} is unknown; use one of {', '.join(MODES)}.")
    # a group of 1 is a solo campaign (the AI keeps the other log)
    want = {"group": (2, 4), "solo": (1, 1), "coop": (2, 2)}[mode]
    if not want[0] <= len(players) <= want[1]:
        raise Invalid(
            f"a {mode} campaign takes {want[0]}-{want[1]} players, not {len(players)}."
            if want[0] != want[1]
            else f"a {mode} campaign takes {want[0]} player(s), not {len(players)}."
        )
    logs: dict[str, Log] = {}
    for spec in players:
        pid = spec.get("id")
        memoir = spec.get("memoir")
        if not isinstance(pid, str) or not pid.isidentifier() or pid in logs or pid.startswith("ai"):
            raise Invalid(f"player id {pid!r} must be a distinct single word not starting with 'ai'.")
        if not isinstance(memoir, str) or not memoir.strip():
            raise Invalid(f"{pid} must name their memoir (the 'Voyages of __' line of the Campaign Log).")
        items = list(spec.get("saga_items", []))
        if previous is not None and pid in previous["logs"]:
            items = list(previous["logs"][pid]["saga_items"])  # "let each player keep any Saga items"
        if not all(isinstance(i, str) for i in items):
            raise Invalid(f"{pid}'s saga items must be card numbers such as '1.07'.")
        team = "players" if mode == "coop" else None
        logs[pid] = _log(memoir.strip(), spec.get("player", pid), False, team, items)
    if mode == "solo":
        logs["ai"] = _ai_log("the AI", None, saga)
    if mode == "coop":
        logs["ai1"] = _ai_log("the first AI", "ai", saga)
        logs["ai2"] = _ai_log("the second AI", "ai", saga)
    return {
        "format": FORMAT,
        "name": name.strip(),
        "mode": mode,
        "saga": bool(saga),
        "sea_dogs": bool(sea_dogs),
        "logs": logs,
        "games": [],
        "tenacity_due": [],
        "sea_dogs_due": {},
        "previous": previous["name"] if previous is not None else None,
    }


def placement_points(seats: int, place: int, mode: str = "group") -> int:
    """Campaign points for a place (1 = won) in a game of `seats` players (AI seats count)."""
    if mode == "coop":
        return 4 if place == 1 else 0  # "Each member of the winning team gets 4 Campaign Points"
    table = {1: (6, 0), 2: (6, 0), 3: (6, 3, 0), 4: (6, 3, 1, 0)}[seats]
    return table[place - 1] if place - 1 < len(table) else 0


def _require(c: Campaign, log_id: str) -> Log:
    if log_id not in c["logs"]:
        raise Invalid(f"{log_id!r} has no Campaign Log here; logs: {', '.join(c['logs'])}.")
    return c["logs"][log_id]


def tenacity_options(c: Campaign, log_id: str) -> list[str]:
    """The Tenacity Bonuses this log may still choose ("You may not choose the same bonus twice")."""
    log = _require(c, log_id)
    taken = {t["bonus"] for t in log["tenacity"]}
    return [b for b in (TENACITY_SEA_DOGS if c["sea_dogs"] else TENACITY) if b not in taken]


def choose_tenacity(c: Campaign, log_id: str, bonus: str) -> Campaign:
    """The last-placed player (and 3rd of 4) marks a Tenacity Bonus before games 2-5."""
    _require(c, log_id)
    if log_id not in c["tenacity_due"]:
        raise Illegal(
            f"{log_id} gains no Tenacity Bonus now: only the last place of the prior game (and 3rd of 4) "
            "does, before games 2-5."
        )
    options = tenacity_options(c, log_id)
    if bonus not in options:
        raise Illegal(
            f"{log_id} cannot choose {bonus!r}: the same bonus may not be chosen twice; choose one of "
            f"{', '.join(options)}."
        )
    out = _copy(c)
    out["logs"][log_id]["tenacity"].append({"game": len(c["games"]) + 1, "bonus": bonus})
    out["tenacity_due"].remove(log_id)
    return out


def keep_sea_dog(c: Campaign, log_id: str, card: str) -> Campaign:
    """A player keeps one of the Sea Dogs dealt at the end of a game, for the rest of the campaign."""
    _require(c, log_id)
    if log_id not in c["sea_dogs_due"]:
        raise Illegal(f"{log_id} has no Sea Dogs dealt to choose from now.")
    if not isinstance(card, str) or not card:
        raise Invalid("name the Sea Dog card kept.")
    out = _copy(c)
    out["logs"][log_id]["sea_dogs"].append(card)
    del out["sea_dogs_due"][log_id]
    return out


def add_saga_points(c: Campaign, log_id: str, points: int, why: str) -> Campaign:
    """Campaign points from a saga item or an Encounter Book entry ("Campaign points from Saga")."""
    log = _require(c, log_id)
    if log["ai"]:
        raise Illegal("the AI scores no saga points during the campaign (it starts with 10).")
    if not isinstance(points, int) or isinstance(points, bool):
        raise Invalid("saga Campaign points must be a whole number.")
    out = _copy(c)
    out["logs"][log_id]["saga_points"].append({"points": points, "why": str(why), "game": len(c["games"])})
    return out


def set_saga_items(c: Campaign, log_id: str, items: Sequence[str]) -> Campaign:
    """Write down the saga items a log owns (the back of the Campaign Log)."""
    _require(c, log_id)
    if not all(isinstance(i, str) and i for i in items):
        raise Invalid("saga items are card numbers such as '1.07'.")
    out = _copy(c)
    out["logs"][log_id]["saga_items"] = list(items)
    return out


def substitute(c: Campaign, log_id: str, player: str) -> Campaign:
    """ "you can sub in a player in for another player": the log goes on with the new player."""
    log = _require(c, log_id)
    if log["ai"] or not log["active"]:
        raise Illegal(f"{log_id}'s seat is not a player's: nobody can be subbed in for it.")
    out = _copy(c)
    out["logs"][log_id]["player"] = str(player)
    return out


def drop_player(c: Campaign, log_id: str, fill_with_ai: bool = False, heir: str | None = None) -> Campaign:
    """A player drops out: their seat stays empty or an AI (solo rules) takes it; their saga items go to
    the player with the least current Campaign points (`heir` settles a tie)."""
    log = _require(c, log_id)
    if log["ai"] or not log["active"]:
        raise Illegal(f"{log_id} is not a player still in the campaign.")
    out = _copy(c)
    out["logs"][log_id]["active"] = False
    out["tenacity_due"] = [x for x in out["tenacity_due"] if x != log_id]
    out["sea_dogs_due"].pop(log_id, None)
    items = out["logs"][log_id]["saga_items"]
    if items:
        others = [k for k, v in out["logs"].items() if v["active"] and not v["ai"]]
        if others:
            now = {k: campaign_score(out, k)["total"] for k in others}
            low = min(now.values())
            least = [k for k in others if now[k] == low]
            if heir is None and len(least) > 1:
                raise Ambiguous(
                    f"{', '.join(least)} tie for the least Campaign points: say who gains {log_id}'s "
                    "saga items.",
                    least,
                )
            to = heir if heir is not None else least[0]
            if to not in least:
                raise Illegal(
                    f"{log_id}'s saga items go to the player with the least Campaign points: "
                    f"{', '.join(least)}."
                )
            out["logs"][to]["saga_items"] += items
            out["logs"][log_id]["saga_items"] = []
    if fill_with_ai:
        ai_id = f"ai_{log_id}"
        out["logs"][ai_id] = _ai_log(f"the AI in {log['memoir']}'s seat", log["team"], c["saga"])
    return out


def _seats_of(c: Campaign) -> list[str]:
    return [k for k, v in c["logs"].items() if v["active"]]


def record_game(c: Campaign, result: GameResult) -> Campaign:
    """Mark the Campaign Logs after a game ("After Each Game"): placement points, Achievements, Sailor
    cards at level 4, saga items; then who gains a Tenacity Bonus before the next game (games 2-5) and,
    with Sea Dogs, how many are dealt. After game 6 the Entire Game 6 Score is written too."""
    if len(c["games"]) >= GAMES:
        raise Illegal("the campaign's 6 games are all recorded; see the final scores.")
    if c["tenacity_due"]:
        raise Illegal(f"{', '.join(c['tenacity_due'])} must choose a Tenacity Bonus before this game.")
    if c["sea_dogs_due"]:
        raise Illegal(f"{', '.join(c['sea_dogs_due'])} must keep one of their Sea Dogs before the next game.")
    order = result.get("order")
    seats = _seats_of(c)
    if not isinstance(order, list) or len(set(order)) != len(order) or sorted(order) != sorted(seats):
        raise Invalid(
            f"the game's order must name every seat of the campaign once, best first: {', '.join(seats)}."
        )
    if not 1 <= len(order) <= 4:
        raise Invalid("a game has 1 to 4 seats.")
    for key in ("scores", "achievements", "level4"):
        part = result.get(key)
        if not isinstance(part, dict) or any(k not in seats for k in part):
            raise Invalid(f"the game's {key} must be given by log id ({', '.join(seats)}).")
    for who, achs in result["achievements"].items():
        bad = [a for a in achs if a not in ACHIEVEMENTS]
        if bad:
            raise Invalid(f"{who}: {bad[0]!r} is not an Achievement; one of {', '.join(ACHIEVEMENTS)}.")
    for who, kinds in result["level4"].items():
        bad = [k for k in kinds if k not in ("crew", *SAILOR_ROWS)]
        if bad:
            raise Invalid(f"{who}: {bad[0]!r} is not a Sailor kind.")
    out = _copy(c)
    n = len(c["games"]) + 1
    if c["mode"] == "coop":
        team = result.get("winning_team")
        if team not in ("players", "ai"):
            raise Invalid("a co-op game's result must say which team won: 'players' or 'ai'.")
        places = {k: 1 if c["logs"][k]["team"] == team else 2 for k in order}
    else:
        places = {k: i + 1 for i, k in enumerate(order)}
    points = {k: placement_points(len(order), places[k], c["mode"]) for k in order}
    marked: dict[str, list[str]] = {}
    for k, log in out["logs"].items():
        log["placement"].append(points.get(k, 0))
        if k not in order:
            continue
        for a in result["achievements"].get(k, []):
            if a not in log["struck"] and log["achievements"][a] < ACHIEVEMENT_MARKS:
                log["achievements"][a] += 1
        marked[k] = [] if log["ai"] else _mark_sailors(log, result["level4"].get(k, []))
        pts = result.get("saga_points", {}).get(k)
        if pts and not log["ai"]:
            log["saga_points"].append({"points": int(pts), "why": f"saga, game {n}", "game": n})
        if "saga_items" in result and k in result["saga_items"]:
            log["saga_items"] = list(result["saga_items"][k])
        if n == GAMES:
            log["game6_score"] = int(result["scores"].get(k, 0))
    out["games"].append(
        {
            "number": n,
            "order": list(order),
            "scores": {k: int(v) for k, v in result["scores"].items()},
            "points": points,
            "achievements": {k: list(v) for k, v in result["achievements"].items()},
            "level4": {k: list(v) for k, v in result["level4"].items()},
            "marked": marked,
        }
    )
    if 1 <= n <= 4:  # "Before games 2 through 5" (before the 6th game skip this step)
        if c["mode"] == "coop":
            due = [k for k in order if places[k] == 2]
        else:
            due = [order[-1]] if len(order) > 1 else []
            if len(order) == 4:
                due.insert(0, order[2])  # "and the player who got 3rd place if you are a group of 4"
        for k in due:
            if out["logs"][k]["ai"]:
                out["logs"][k]["tenacity"].append({"game": n + 1, "bonus": "ai_coins"})
            else:
                out["tenacity_due"].append(k)
    if c["sea_dogs"] and n < GAMES:  # "by game 6 each player will have 5 Sea Dogs cards"
        for k in order:
            if not out["logs"][k]["ai"]:
                out["sea_dogs_due"][k] = 5 if places[k] == 1 else 3
    return out


def _mark_sailors(log: Log, kinds: Sequence[str]) -> list[str]:
    """Mark the Sailor rows for the cards that ended the game at level 4: one mark per kind, Deck Hands
    and Gunners once however many, Crew once per Crew row for 2 or 3 (one Crew: the first row not full)."""
    rows: list[str] = []
    for kind in dict.fromkeys(k for k in kinds if k != "crew" and not k.startswith("crew-")):
        rows.append(kind)
    crews = sum(1 for k in kinds if k == "crew" or k.startswith("crew-"))
    if crews >= 2:
        rows += ["crew-1", "crew-2"]
    elif crews == 1:
        free = [r for r in ("crew-1", "crew-2") if log["sailors"][r] < SAILOR_MARKS]
        rows += free[:1]
    done = []
    for r in sorted(rows, key=SAILOR_ROWS.index):  # the sheet's row order, whatever order cards came in
        if log["sailors"][r] < SAILOR_MARKS:
            log["sailors"][r] += 1
            done.append(r)
    return done


def ai_extra_coins(c: Campaign, log_id: str, game: int) -> int:
    """The Coins an AI starts game `game` with instead of a Tenacity Bonus; kept apart from Capitalist."""
    log = _require(c, log_id)
    return sum(AI_TENACITY_COINS for t in log["tenacity"] if t["bonus"] == "ai_coins" and t["game"] == game)


class Score(TypedDict):
    saga: int  # F
    start_penalty: int
    placement: int  # G
    achievement_rows: int  # H
    achievement_columns: int  # I
    sailor_columns: int  # J
    game6: int  # K
    total: int  # L


def campaign_score(c: Campaign, log_id: str) -> Score:
    """A log's Campaign points as "After Game 6: Winning the Campaign" counts them (before game 6: the
    current points, with the Game 6 score still 0)."""
    log = _require(c, log_id)
    cols = [a for a in ACHIEVEMENTS if a not in log["struck"]]
    marks = [log["achievements"][a] for a in cols]
    rows_done = min(marks) if marks else 0  # a row is complete when every column reached it
    cols_done = sum(1 for m in marks if m >= ACHIEVEMENT_MARKS)
    if log["ai"]:
        sailor = AI_SAILOR_POINTS
    else:
        sailor = 3 * min(log["sailors"][r] for r in SAILOR_ROWS)  # rows fill left to right
    s: Score = {
        "saga": sum(e["points"] for e in log["saga_points"]),
        "start_penalty": -2 * len(log["start_items"]),
        "placement": sum(log["placement"]),
        "achievement_rows": 5 * rows_done,
        "achievement_columns": 3 * cols_done,
        "sailor_columns": sailor,
        "game6": log["game6_score"] or 0,
        "total": 0,
    }
    s["total"] = (
        s["saga"]
        + s["start_penalty"]
        + s["placement"]
        + s["achievement_rows"]
        + s["achievement_columns"]
        + s["sailor_columns"]
        + s["game6"]
    )
    return s


class Standings(TypedDict):
    finished: bool
    scores: dict[str, Score]
    winners: list[str]  # ties share the victory
    teams: NotRequired[dict[str, int]]
    winning_teams: NotRequired[list[str]]


def standings(c: Campaign) -> Standings:
    """Every log's Campaign points; once game 6 is recorded, the winners ("If two or more players tie,
    they share the victory"); in co-op the team totals decide. A dropped player cannot win."""
    scores = {k: campaign_score(c, k) for k in c["logs"]}
    eligible = [k for k, v in c["logs"].items() if v["active"]]
    finished = len(c["games"]) >= GAMES
    best = max((scores[k]["total"] for k in eligible), default=0)
    out: Standings = {
        "finished": finished,
        "scores": scores,
        "winners": [k for k in eligible if scores[k]["total"] == best] if finished else [],
    }
    if c["mode"] == "coop":
        teams: dict[str, int] = {"players": 0, "ai": 0}
        for k, log in c["logs"].items():
            teams[log["team"] or "players"] += scores[k]["total"]
        out["teams"] = teams
        top = max(teams.values())
        out["winning_teams"] = [t for t, v in teams.items() if v == top] if finished else []
    return out


def result_from_game(
    d: State, seats: Mapping[str, str], tie_order: Sequence[str] | None = None
) -> GameResult:
    """A finished engine game as a `GameResult`: `seats` maps each colour to its log id. The order is
    the game's scores, best first; a tie on Coins is settled by the base game's tie-break battle, whose
    result (`tie_order`: the tied colours, best first) the table reports."""
    if d["phase"] != "over" or not d["scores"]:
        raise Illegal("the game is not over yet: a campaign records finished games only.")
    if sorted(seats) != sorted(d["players"]):
        raise Invalid(f"give the campaign log of every colour of the game: {', '.join(d['players'])}.")
    totals: dict[str, int] = d["scores"]["totals"]
    rank = {c: i for i, c in enumerate(tie_order or [])}
    colours = sorted(d["players"], key=lambda c: (-totals[c], rank.get(c, len(rank))))
    for a, b in zip(colours, colours[1:], strict=False):
        if totals[a] == totals[b] and not (a in rank and b in rank):
            tied = [c for c in colours if totals[c] == totals[a]]
            raise Ambiguous(
                f"{' and '.join(tied)} tie on {totals[a]} Coins: settle it with the tie-break battle and "
                "give their order.",
                tied,
            )
    out: GameResult = {
        "order": [seats[c] for c in colours],
        "scores": {seats[c]: totals[c] for c in colours},
        "achievements": {seats[c]: [a for a in ACHIEVEMENTS if c in d["achievements"][a]] for c in colours},
        "level4": {
            seats[c]: sorted(card["sailor"] for card in d["p"][c]["cards"].values() if card["level"] == 4)
            for c in colours
        },
    }
    dl = cast(dict[str, Any], d).get("deep_legends")
    if dl is not None:  # a Deep Legends game: the saga items each player owns at its end
        owned: dict[str, list[str]] = {seats[c]: [] for c in colours}
        for item, owner in sorted(dl["items"].items()):
            owned[seats[owner]].append(item)
        out["saga_items"] = owned
        if dl.get("campaign_points"):
            out["saga_points"] = {seats[c]: n for c, n in sorted(dl["campaign_points"].items())}
    return out


def result_from_state(
    state: GameState, seats: Mapping[str, str], tie_order: Sequence[str] | None = None
) -> GameResult:
    """`result_from_game` of a `rules.api` game state."""
    return result_from_game(cast(State, state.data), seats, tie_order)


def game_options(
    c: Campaign, seats: Mapping[str, str], saga_state: Mapping[str, object] | None = None
) -> dict[str, object]:
    """The engine options of the campaign's next game (`rules.api.new_game`): each player's saga items and
    the Tenacity Bonus they chose for it ("Players will gain the selected Tenacity Bonus for the current
    game"). A Sea Dog is drawn at the table; an AI's +5 is kept apart (`ai_extra_coins`). Empty when there
    is nothing to carry: the game is then the base game."""
    game = len(c["games"]) + 1
    items: dict[str, list[str]] = {}
    tenacity: dict[str, dict[str, str]] = {}
    for colour, log_id in seats.items():
        log = c["logs"][log_id]
        if log["saga_items"]:
            items[colour] = list(log["saga_items"])
        for t in log["tenacity"]:
            if t["game"] == game and t["bonus"] in ("coins", "cargo", "level_up", "ship_upgrade"):
                tenacity[colour] = {"bonus": t["bonus"]}
    opt: dict[str, object] = {}
    if items:
        opt["items"] = items
    if tenacity:
        opt["tenacity"] = tenacity
    if saga_state:  # the saga's cards go into the Row decks (docs/deep-legends.md)
        opt["saga"] = dict(saga_state)
    return {"deep_legends": opt} if opt else {}
