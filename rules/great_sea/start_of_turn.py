"""Start-of-Turn Action (rulebook: "Start-of-Turn Action"): "Before using Workers to take actions, players
may perform at most 1 start-of-turn action":

1. Exhaust 1 Trade Post to move 1 Ship to an adjacent region with a Shipyard or from a Shipyard to an
   adjacent region (`start_move`).
2. Exhaust 1 Trade Post or spend 2 Wood to repair any 1 Damaged Ship (`start_repair`).
3. Exhaust 2 Trade Posts or spend 4 Coins to gain 1 pip (`start_pip`).
4. Exhaust 3 Trade Posts to gain a Neutral Worker (`start_worker`).
"""

from __future__ import annotations

from typing import Any

from rules.core.actions import Action
from rules.core.errors import Illegal, Invalid
from rules.core.events import notice
from rules.great_sea.control import exhaust, refreshed_posts
from rules.great_sea.data import CLASSES
from rules.great_sea.develop import fleet_limit, fleet_used, size
from rules.great_sea.dice import check_pip, gain_pip
from rules.great_sea.map import adjacent
from rules.great_sea.model import Player, State
from rules.great_sea.temples import recheck
from rules.great_sea.upgrades import is_shipyard
from rules.great_sea.worker import require_turn


def _start(d: State, player: str, posts: int) -> Player:
    p = require_turn(d, player)
    if d["turn"]["start_done"]:
        raise Illegal("at most 1 start-of-turn action, and only before placing a Worker.")
    if posts and len(refreshed_posts(d, player)) < posts:
        raise Illegal(f"that needs {posts} refreshed Trade Post(s) on the Map to exhaust.")
    return p


def region(d: State, r: object) -> str:
    if not isinstance(r, str) or r not in d["regions"]:
        raise Invalid(f"'{r}' is not a region of this Map; regions are {', '.join(sorted(d['regions']))}.")
    return r


def ship_class(c: object) -> str:
    if c not in CLASSES:
        raise Invalid(f"'{c}' is not a Ship class; say small, medium or large.")
    return str(c)


def check_start_move(d: State, player: str, action: dict[str, Any]) -> dict[str, Any]:
    p = _start(d, player, 1)
    return {"type": "start_move", **check_shipyard_move(d, player, p, action)}


def check_shipyard_move(d: State, player: str, p: Player, action: dict[str, Any]) -> dict[str, str]:
    """ "Move 1 Ship to an adjacent region with a Shipyard or from a Shipyard to an adjacent region": the
    start-of-turn action's move, also a Special Action Card effect."""
    a, b, cls = region(d, action.get("from")), region(d, action.get("to")), ship_class(action.get("cls"))
    if not adjacent(d["map"], a, b):
        raise Illegal(f"{b} is not adjacent to {a}.")
    ra, rb = d["regions"][a], d["regions"][b]
    if not (is_shipyard(ra, p, player, cls) or is_shipyard(rb, p, player, cls)):
        raise Illegal("the move must be to or from a region where you have a Shipyard.")
    if not any(s["owner"] == player and s["cls"] == cls and not s["damaged"] for s in ra["ships"]):
        raise Illegal(f"you have no undamaged {cls} Ship in {a}.")
    if rb["home"] not in (None, player):
        raise Illegal("players may never move Ships into an opponent's home region.")
    lim = fleet_limit(rb, p, player)
    if lim is not None and fleet_used(rb, p, player) + size(p, cls) > lim:
        raise Illegal(f"that would exceed your Fleet Limit of {lim} in {b}.")
    return {"from": a, "to": b, "cls": cls}


def start_move(d: State, player: str, a: dict[str, Any], out: list[dict[str, Any]]) -> None:
    d["turn"]["start_done"] = True
    exhaust(d, player, 1)
    move_ship(d, player, a["from"], a["to"], a["cls"])
    recheck(d, out)


def move_ship(d: State, player: str, a: str, b: str, cls: str, mark: bool = False) -> None:
    ships = d["regions"][a]["ships"]
    for i, s in enumerate(ships):
        if s["owner"] == player and s["cls"] == cls and not s["damaged"] and not s["moved"]:
            ship = ships.pop(i)
            ship["moved"] = mark
            d["regions"][b]["ships"].append(ship)
            return
    raise AssertionError("checked: a movable ship is there")


def check_start_repair(d: State, player: str, action: dict[str, Any]) -> dict[str, Any]:
    pay = action.get("pay", "wood")
    if pay not in ("post", "wood"):
        raise Invalid("pay with 'post' (exhaust 1 Trade Post) or 'wood' (2 Wood).")
    p = _start(d, player, 1 if pay == "post" else 0)
    if pay == "wood" and p["wood"] < 2:
        raise Illegal(f"a repair costs 2 Wood and you have {p['wood']}.")
    r, cls = region(d, action.get("region")), ship_class(action.get("cls"))
    if not any(s["owner"] == player and s["cls"] == cls and s["damaged"] for s in d["regions"][r]["ships"]):
        raise Illegal(f"you have no Damaged {cls} Ship in {r}.")
    return {"type": "start_repair", "region": r, "cls": cls, "pay": pay}


def start_repair(d: State, player: str, a: dict[str, Any], out: list[dict[str, Any]]) -> None:
    d["turn"]["start_done"] = True
    if a["pay"] == "post":
        exhaust(d, player, 1)
    else:
        d["p"][player]["wood"] -= 2
    for s in d["regions"][a["region"]]["ships"]:
        if s["owner"] == player and s["cls"] == a["cls"] and s["damaged"]:
            s["damaged"] = False
            break
    notice(out, "ship_repaired", player=player, region=a["region"], cls=a["cls"])


def check_start_pip(d: State, player: str, action: dict[str, Any]) -> dict[str, Any]:
    pay = action.get("pay", "coins")
    if pay not in ("posts", "coins"):
        raise Invalid("pay with 'posts' (exhaust 2 Trade Posts) or 'coins' (4 Coins).")
    p = _start(d, player, 2 if pay == "posts" else 0)
    if pay == "coins" and p["coins"] < 4:
        raise Illegal(f"a pip costs 4 Coins and you have {p['coins']}.")
    return {"type": "start_pip", "die": check_pip(p, action.get("die")), "pay": pay}


def start_pip(d: State, player: str, a: dict[str, Any], out: list[dict[str, Any]]) -> None:
    d["turn"]["start_done"] = True
    if a["pay"] == "posts":
        exhaust(d, player, 2)
    else:
        d["p"][player]["coins"] -= 4
    gain_pip(d["p"][player], a["die"])


def check_start_worker(d: State, player: str, action: dict[str, Any]) -> dict[str, Any]:
    _start(d, player, 3)
    return {"type": "start_worker"}


def start_worker(d: State, player: str, a: dict[str, Any], out: list[dict[str, Any]]) -> None:
    d["turn"]["start_done"] = True
    exhaust(d, player, 3)
    d["p"][player]["neutral"] += 1


ACTIONS = (
    Action("start_move", check_start_move, start_move),
    Action("start_repair", check_start_repair, start_repair),
    Action("start_pip", check_start_pip, start_pip),
    Action("start_worker", check_start_worker, start_worker),
)
