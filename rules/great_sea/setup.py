"""Setup (rulebook: "Setup", "Main Board Setup", "Player Board Setup", "Final Setup Steps", "Starting
Resources and Pips").

`set_up` lays out the Main Board side for the player count, the Temples, the Special Action Card Piles and
the Upgrade Tile grid (mixed and shuffled from the game's seed, so a replay lays them out the same), each
player's pieces, home region, Ships and Combat Cards. Then: the first player (`choose_first_player`, a
chance outcome); "in reverse turn order ... each player selects a Special Action Card" (`choose_special`);
the unselected Pile dealt 1 card each (`deal_special`, chance); starting Wood and Coins by turn order ("if
only 2 players, the 2nd player gains the 3rd player resources and pips instead") and the starting pips
(`setup_pips`: "the first pip that players gain during Setup must always be applied to their Develop Die").
"""

from __future__ import annotations

from typing import Any

from rules.core.actions import Action
from rules.core.errors import Illegal, Invalid
from rules.core.events import notice
from rules.core.state import rng_below
from rules.great_sea.combat_cards import hand
from rules.great_sea.data import CLASSES, DICE, FORTS, PARTS, board
from rules.great_sea.dice import check_pip, gain_pip
from rules.great_sea.map import spec
from rules.great_sea.model import Player, State
from rules.great_sea.special_actions import PLAYER_CARDS, by_number, specials
from rules.great_sea.temples import recheck
from rules.great_sea.upgrades import tile_types
from rules.great_sea.worker import start_turn


def shuffle(d: State, items: list[Any]) -> list[Any]:
    out = list(items)
    for i in range(len(out) - 1, 0, -1):
        j = rng_below(d, i + 1)
        out[i], out[j] = out[j], out[i]
    return out


def set_up(d: State, action: dict[str, Any], out: list[dict[str, Any]]) -> None:
    players, opts = action["players"], action["options"]
    side = str(len(players))
    m = spec(side)
    d.clear()  # type: ignore[attr-defined]  # a fold into empty data: game_created starts from nothing
    d.update(
        {
            "seq": 0,
            "players": list(players),
            "options": opts,
            "rng": action["seed"] & ((1 << 64) - 1),
            "phase": "setup",
            "stage": "first",
            "active": None,
            "turn_player": None,
            "order": [],
            "map": side,
            "regions": {},
            "p": {},
            "specials": {},
            "piles": {},
            "rows": {},
            "discards": {},
            "turn": {"start_done": False, "placed": 0, "used": [], "open": None},
            "combat": None,
            "pending": [{"type": "choose_first_player"}],
            "winner": None,
            "turn_no": 0,
            "turn_base": None,
            "turn_log": [],
            "created": {"players": list(players), "seed": action["seed"], "options": opts},
        }
    )
    for r, v in m["regions"].items():
        home = players[v["home_seat"]] if "home_seat" in v else None
        d["regions"][r] = {
            "post": None,
            "forts": [],
            "ships": [],
            "temple": None,
            "foundations": list(v["foundations"]),
            "home": home,
        }
    # "Mix up the Temples, and place 1 faceup onto each Temple space. Return any extra Temples to the box."
    spaces = sorted(r for r, v in m["regions"].items() if v["temple_space"])
    for r, n in zip(spaces, shuffle(d, list(range(1, 7))), strict=False):
        d["regions"][r]["temple"] = n
        # "Find the 4 Special Action Cards of the associated number for each Temple ... Shuffle each set"
        d["specials"][str(n)] = shuffle(d, by_number(n))
    # the Upgrade Tile grid: every Pile shuffled, the Piles of a row in a random order
    rows: dict[str, list[str]] = {}
    for t, v in tile_types().items():
        d["piles"][t] = shuffle(d, [f"{t}:{i}" for i in range(len(v["tiles"]))])
        rows.setdefault(v["row"], []).append(t)
    d["rows"] = {row: shuffle(d, piles) for row, piles in rows.items()}
    b = board()
    for seat, color in enumerate(players):
        home = next(r for r, v in m["regions"].items() if v.get("home_seat") == seat)
        p: Player = {
            "seat": seat,
            "home": home,
            "dice": [1] * 6,
            "cards": {str(i + 1): {"id": PLAYER_CARDS[i], "flipped": False} for i in range(6)},
            "wood": 0,
            "coins": 0,
            "neutral": 0,
            "ships": {c: b["ship_classes"][c]["count"] for c in CLASSES},
            "classes": dict.fromkeys(CLASSES, 0),
            "fleet": 0,
            "forts": {f: b["forts"][f]["count"] - 1 for f in FORTS},
            "forts_supply": dict.fromkeys(FORTS, 0),
            "posts": b["trade_posts"]["count"] - 1,
            "posts_supply": 0,
            "ship_tiles": {c: dict.fromkeys(PARTS, None) for c in CLASSES},
            "fort_tiles": {f: [] for f in FORTS},
            "fort_places": {f: [] for f in FORTS},
            "hand": hand(opts["combat_cards"]),
            "lost": [],
            "temple": 0,
            "combat": 0,
            "trade": 0,
        }
        d["p"][color] = p
        reg = d["regions"][home]
        # "Place 1 of their Trade Posts facedown ... on the outlined space of their home region (if only 2
        # players, instead return this Trade Post to the box)."
        if len(players) > 2:
            reg["post"] = [color, True]
        reg["forts"] = [[color, "stronghold"], [color, "outpost"]]
        for r, v in m["regions"].items():
            ss = v.get("start_ships")
            if ss and ss["seat"] == seat:
                for cls in ss["ships"]:
                    d["regions"][r]["ships"].append(
                        {"owner": color, "cls": cls, "damaged": False, "moved": False}
                    )
                    p["ships"][cls] -= 1
    recheck(d, [])


def need_stage(d: State, stage: str, player: str | None = None) -> None:
    if d["phase"] != "setup" or d["stage"] != stage:
        raise Illegal("that is a setup step, and setup is not at it now.")
    if player is not None and player != d["active"]:
        raise Illegal(f"it is {d['active']}'s turn to choose.")


def table_only(player: str) -> None:
    if player != "table":
        raise Illegal(
            "chance outcomes (the first player, the dealt cards) are reported by the table, not a player."
        )


def check_first(d: State, player: str, action: dict[str, Any]) -> dict[str, Any]:
    table_only(player)
    need_stage(d, "first")
    if action.get("first") not in d["players"]:
        raise Invalid(f"the first player must be one of {', '.join(d['players'])}.")
    return {"type": "choose_first_player", "first": action["first"]}


def choose_first(d: State, player: str, a: dict[str, Any], out: list[dict[str, Any]]) -> None:
    d["pending"] = []
    ps = d["players"]
    i = ps.index(a["first"])
    d["players"] = ps[i:] + ps[:i]
    # "in reverse turn order (counterclockwise from the player seated to the right of the first player)"
    d["order"] = list(reversed(d["players"]))
    d["stage"] = "special"
    d["active"] = d["order"][0]
    notice(out, "first_player", player=a["first"], choosing=d["order"])


def check_choose_special(d: State, player: str, action: dict[str, Any]) -> dict[str, Any]:
    need_stage(d, "special", player)
    pile = str(action.get("pile"))
    if pile not in d["specials"]:
        raise Invalid(f"choose one of the Piles still available: {', '.join(sorted(d['specials']))}.")
    return {"type": "choose_special", "pile": pile}


def swap_in(d: State, color: str, card: str) -> None:
    """Swap a Special Action Card (faceup) for the Player Action Card of the same number."""
    p = d["p"][color]
    n = str(specials()[card]["number"])
    p["cards"] = {**p["cards"], n: {"id": card, "flipped": False}}  # copy-on-write


def choose_special(d: State, player: str, a: dict[str, Any], out: list[dict[str, Any]]) -> None:
    # "a player takes the top Card of a chosen Pile, returning all others from that Pile to the box"
    card = d["specials"].pop(a["pile"])[0]
    swap_in(d, player, card)
    notice(out, "special_chosen", player=player, card=card)
    d["order"].pop(0)
    if d["order"]:
        d["active"] = d["order"][0]
        return
    d["stage"] = "deal"
    d["active"] = None
    d["pending"] = [{"type": "deal_special"}]


def check_deal(d: State, player: str, action: dict[str, Any]) -> dict[str, Any]:
    table_only(player)
    need_stage(d, "deal")
    (pile,) = d["specials"].values()
    cards = action.get("cards")
    if (
        not isinstance(cards, dict)
        or set(cards) != set(d["players"])
        or not all(isinstance(c, str) for c in cards.values())
        or len(set(cards.values())) != len(cards)
        or any(c not in pile for c in cards.values())
    ):
        raise Invalid(f"deal one different card of the last Pile ({', '.join(pile)}) to each player.")
    return {"type": "deal_special", "cards": dict(cards)}


def deal_special(d: State, player: str, a: dict[str, Any], out: list[dict[str, Any]]) -> None:
    d["pending"] = []
    for color, card in a["cards"].items():
        swap_in(d, color, card)
    d["specials"] = {}  # "return any undealt Special Action Cards from this Pile to the box"
    start = board()["starting"]
    n = len(d["players"])
    for i, color in enumerate(d["players"]):
        row = start[2 if n == 2 and i == 1 else i]
        p = d["p"][color]
        p["seat"] = i
        p["wood"] += row["wood"]
        p["coins"] += row["coins"]
    d["stage"] = "pips"
    d["order"] = list(d["players"])
    d["active"] = d["order"][0]
    notice(out, "specials_dealt", cards=dict(a["cards"]))


def pips_owed(d: State, color: str) -> int:
    n = len(d["players"])
    i = d["players"].index(color)
    owed: int = board()["starting"][2 if n == 2 and i == 1 else i]["pips"]
    return owed


def check_setup_pips(d: State, player: str, action: dict[str, Any]) -> dict[str, Any]:
    need_stage(d, "pips", player)
    dice = action.get("dice")
    n = pips_owed(d, player)
    if not isinstance(dice, list) or len(dice) != n:
        raise Invalid(f"you gain {n} pips: list the Die for each in order, e.g. dice ['develop', ...].")
    p = d["p"][player]
    trial: Player = {**p, "dice": list(p["dice"])}
    if dice[0] != "develop":
        raise Illegal(
            "the first pip that players gain during Setup must always be applied to their Develop Die."
        )
    for die in dice:
        gain_pip(trial, check_pip(trial, die))
    return {"type": "setup_pips", "dice": list(dice)}


def setup_pips(d: State, player: str, a: dict[str, Any], out: list[dict[str, Any]]) -> None:
    p = d["p"][player]
    for die in a["dice"]:
        gain_pip(p, die)
    d["order"].pop(0)
    if d["order"]:
        d["active"] = d["order"][0]
        return
    d["phase"] = "main"
    d["stage"] = "turn"
    start_turn(d, d["players"][0], out)


def draw_chance(d: State, req: dict[str, Any]) -> dict[str, Any]:
    if req["type"] == "choose_first_player":
        return {"type": "choose_first_player", "first": d["players"][rng_below(d, len(d["players"]))]}
    (pile,) = d["specials"].values()
    dealt = shuffle(d, pile)
    return {"type": "deal_special", "cards": dict(zip(d["players"], dealt, strict=False))}


ACTIONS = (
    Action("choose_first_player", check_first, choose_first, chance=True),
    Action("choose_special", check_choose_special, choose_special, undoable=False),
    Action("deal_special", check_deal, deal_special, chance=True),
    Action("setup_pips", check_setup_pips, setup_pips, undoable=False),
)

_ = DICE
