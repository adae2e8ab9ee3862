"""Setup (rulebook: "Setup"): the supply, the ocean grid face down with the three row-1 boards to reveal,
each player's board, deck and opening hand, the first player (`choose_first_player`, a chance outcome,
which also gives the seats their starting Cargo) and the optional Bonus tokens.
"""

from __future__ import annotations

from typing import Any

from contracts.grid import HARBOR, SQUARES
from rules.core.actions import Action
from rules.core.errors import Invalid
from rules.core.state import copy_data
from rules.dead_reckoning.cards import ACHIEVEMENTS, BUILDINGS, catalog
from rules.dead_reckoning.model import SailorCard, State
from rules.dead_reckoning.phases import fresh_turn, need_pending
from rules.dead_reckoning.sailors import DRAW

ISLANDS_BY_COUNT = {2: 8, 3: 9, 4: 10}


SUPPLY_START = {"cargo": 400, "coins": 800, "black": 20}


def set_up(d: State, action: dict[str, Any], out: list[dict[str, Any]]) -> None:
    players, opts = action["players"], action["options"]
    d.clear()  # type: ignore[attr-defined]  # a fold into empty data: game_created starts from nothing
    d.update(
        {
            "seq": 0,
            "players": list(players),
            "options": opts,
            "rng": action["seed"] & ((1 << 64) - 1),
            "phase": "setup",
            "active": None,
            "first": None,
            "turn_no": 0,
            "pending": [],
            "after": "start",
            "battle": None,
            "battle_queue": [],
            "final": None,
            "scores": None,
            "turn_base": None,
            "turn_log": [],
            "created": copy_data(action),
        }
    )
    cat = catalog(d)
    n = len(players)
    opens = [
        b
        for b, spec in cat.boards.items()
        if spec["kind"] == "open_sea" and (spec["players"] is None or n <= spec["players"])
    ]
    d["pool"] = {
        "islands_left": ISLANDS_BY_COUNT[n],
        "islands": sorted(b for b, s in cat.boards.items() if s["kind"] == "island"),
        "open_seas": sorted(opens),
    }
    d["grid"] = {sq: {"board": None, "card": None, "island": None} for sq in SQUARES}
    d["decks"] = {str(r): sorted(ids) for r, ids in cat.rows.items()}
    d["buried"] = {str(r): [] for r in cat.rows}
    d["supply"] = dict(SUPPLY_START)
    d["supply"].update({b: cat.building_supply[b] for b in BUILDINGS})
    d["upgrade_supply"] = {t: spec["count"] for t, spec in cat.upgrades.items()}
    d["achievements"] = {a: [] for a in ACHIEVEMENTS}
    d["achievement_cubes"] = {a: {} for a in ("legendary", "expert_sailors", "explorer")}
    d["bonus_pool"] = list(range(len(cat.bonus_tokens)))
    d["turn"] = fresh_turn()
    d["p"] = {}
    for color in players:
        cards: dict[str, SailorCard] = {}
        for kind, copies in cat.deck.items():
            for i in range(1, copies + 1):
                cid = kind if copies == 1 else f"{kind}-{i}"
                cards[cid] = {
                    "sailor": kind,
                    "level": 1,
                    "slots": {"top": None, "middle": None, "bottom": None},
                }
        d["p"][color] = {
            "chest": 15,
            "dock": 0,
            "cubes": 29,
            "markers": 6,  # one cube sits on the Sail track
            "ship": {
                "at": HARBOR,
                "holds": [[0, 0], [0, 0]],
                "sails": 0,
                "damage": 0,
                "pirate": False,
                "hull": [[], [], [], []],
            },
            "cards": cards,
            "deck": sorted(cards),
            "hand": [],
            "discard": [],
            "played": [],
            "set_aside": [],
            "level_up": False,
            "bonus": None,
            "bonus_offer": [],
            "sank": 0,
            "used": [],
            "cannons_used": 0,
            "flags_used": 0,
            "final_done": False,
        }
    for sq in ("r1c1", "r1c2", "r1c3"):
        _request(d, {"kind": "reveal_board", "square": sq})
    for color in players:
        _request(d, {"kind": "draw_sailors", "player": color, "count": DRAW})
    _request(d, {"kind": "choose_first_player"})
    if opts.get("bonus_tokens"):
        for color in players:
            _request(d, {"kind": "deal_bonus", "player": color})


def _request(d: State, req: dict[str, Any]) -> None:
    d["pending"].append(req)


def check_choose_first_player(d: State, player: str, a: dict[str, Any]) -> dict[str, Any]:
    need_pending(d, "choose_first_player")
    if a.get("first") not in d["players"]:
        raise Invalid(f"the first player must be one of {', '.join(d['players'])}.")
    return {"type": "choose_first_player", "first": a["first"]}


def do_choose_first_player(d: State, player: str, a: dict[str, Any], out: list[dict[str, Any]]) -> None:
    d["pending"].pop(0)
    d["first"] = a["first"]
    i = d["players"].index(a["first"])
    d["players"] = d["players"][i:] + d["players"][:i]  # seat order from the first player
    for seat, color in enumerate(d["players"]):
        p = d["p"][color]
        gain = (1, 2, 3, 2)[seat]
        p["dock"] += gain
        d["supply"]["cargo"] -= gain
        if seat == 3:
            p["level_up"] = True  # the 4th seat may level one card of the opening hand


ACTIONS: tuple[Action[State], ...] = (
    Action("choose_first_player", check_choose_first_player, do_choose_first_player, chance=True),
)
