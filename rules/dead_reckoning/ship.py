"""The Ship board (rulebook: "Ship board" and "Ship Upgrades"): the two holds and their room, the four hull
spaces and the icons they give (a hold's space only while that hold is empty, except when setting Sails
in Harbor or at your own island), gains that go onto the Ship, and the action fields that name holds.
"""

from __future__ import annotations

from typing import Any

from contracts.grid import HARBOR
from rules.core.errors import Invalid
from rules.core.events import notice
from rules.dead_reckoning.cards import Catalog
from rules.dead_reckoning.islands import controlled_by
from rules.dead_reckoning.model import PlayerBoard, State

HOLD_CAP = (4, 3)


HOLD_SPACE = (0, 3)  # hull spaces that carry a hold


BASE_HULL: tuple[dict[str, int], ...] = ({"sail": 1}, {}, {}, {"sail": 1})


MAX_SAILS = 8


def board_of(d: State, color: str) -> PlayerBoard:
    return d["p"][color]


def hold_load(h: list[int]) -> int:
    return h[0] + h[1]


def ship_cargo(p: PlayerBoard) -> int:
    return sum(h[0] for h in p["ship"]["holds"])


def ship_coins(p: PlayerBoard) -> int:
    return sum(h[1] for h in p["ship"]["holds"])


def hull_icons(cat: Catalog, p: PlayerBoard, space: int) -> dict[str, int]:
    tiles = p["ship"]["hull"][space]
    return cat.upgrades[tiles[-1]]["icons"] if tiles else BASE_HULL[space]


def ship_icon(cat: Catalog, d: State, color: str, icon: str, setting_sails: bool = False) -> int:
    """Icons on the Ship board: a hull space with a hold gives its benefit only while that hold is empty
    (except when setting Sails in Harbor or at an island you control)."""
    p = d["p"][color]
    ship = p["ship"]
    free = setting_sails and (ship["at"] == HARBOR or controlled_by(d, ship["at"]) == color)
    n = 1 if icon == "cannon" else 0  # the Cannon printed on the Ship board
    if "extra_icons" in p:
        n += p["extra_icons"].get(icon, 0)
    other = ship.get("other")
    holds, hull, tiles_of = ship["holds"], ship["hull"], cat.upgrades
    for space in range(4):  # (`hull_icons` and `hold_load` inline: this runs for every Sails, Cannon count)
        if space in HOLD_SPACE and not free:
            h = HOLD_SPACE.index(space)
            hold = holds[h]
            if hold[0] + hold[1] or (other and other[h]):
                continue
        tiles = hull[space]
        n += (tiles_of[tiles[-1]]["icons"] if tiles else BASE_HULL[space]).get(icon, 0)
    return n


def int_field(a: dict[str, Any], key: str, default: int = 0, lo: int = 0, hi: int = 999) -> int:
    v = a.get(key, default)
    if not isinstance(v, int) or isinstance(v, bool) or not lo <= v <= hi:
        raise Invalid(f"field {key!r} must be a whole number from {lo} to {hi}, not {v!r}.")
    return v


def hold_index(a: dict[str, Any], key: str = "hold") -> int:
    h = a.get(key, 0)
    if isinstance(h, bool) or h not in (0, 1):
        raise Invalid(f"field {key!r} must be 0 (the hold of 4) or 1 (the hold of 3).")
    hold: int = h
    return hold


def room_in_hold(p: PlayerBoard, h: int) -> int:
    other = p["ship"].get("other")
    return HOLD_CAP[h] - hold_load(p["ship"]["holds"][h]) - (other[h] if other else 0)


def ship_after(p: PlayerBoard, norm: dict[str, Any]) -> dict[str, Any]:
    pay = norm.get("pay", {"holds": [0, 0]})
    return {"holds": [[p["ship"]["holds"][i][0] - pay["holds"][i], 0] for i in (0, 1)]}


def owe_gain(d: State, color: str, what: str, n: int, out: list[dict[str, Any]]) -> None:
    """n Cargo/Coins gained onto a Ship with no room for them: "if you cannot fit it onto your Ship then you
    either have to jettison or unload it (or other Cargo/Coins) to make space". They stay out of the supply,
    owed to the player (`owed`), until room is made (`take_owed`) or the player's turn ends."""
    p = d["p"][color]
    owed = dict(p.get("owed") or {"cargo": 0, "coins": 0})
    owed[what] += n
    p["owed"] = owed
    notice(
        out,
        "gain_owed",
        player=color,
        what=what,
        amount=n,
        message=(
            f"{n} {what} did not fit on {color}'s Ship: jettison or unload to make room for them, "
            "or they go back to the supply at the end of the turn."
        ),
    )


def take_owed(d: State, color: str, out: list[dict[str, Any]]) -> None:
    """Room was made: the owed Cargo/Coins go aboard, as many as now fit (Coins first: they score)."""
    p = d["p"][color]
    owed = p.get("owed")
    if not owed:
        return
    left = {w: gain_to_ship(d, p, w, owed[w]) if owed[w] else 0 for w in ("coins", "cargo")}
    taken = {w: owed[w] - left[w] for w in left}
    if any(taken.values()):
        notice(out, "owed_taken_aboard", player=color, cargo=taken["cargo"], coins=taken["coins"])
    if any(left.values()):
        p["owed"] = {"cargo": left["cargo"], "coins": left["coins"]}
    else:
        del p["owed"]


def return_owed(d: State, color: str) -> None:
    """The turn ended with no room made: what was owed goes back to the supply."""
    owed = d["p"][color].pop("owed", None)
    if owed:
        d["supply"]["cargo"] += owed["cargo"]
        d["supply"]["coins"] += owed["coins"]


def gain_to_ship(d: State, p: PlayerBoard, what: str, n: int) -> int:
    """Put n Cargo/Coins into holds with room; returns what did not fit."""
    idx = 0 if what == "cargo" else 1
    for h in (0, 1):
        put = min(n, room_in_hold(p, h))
        p["ship"]["holds"][h][idx] += put
        n -= put
    return n
