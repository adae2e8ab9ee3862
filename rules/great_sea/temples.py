"""Temple Points and flipping Action Cards (rulebook: "Temple Points", "Flipping Action Cards").

"Each Temple Region can provide a maximum of 2 Temple Points": 1 for Controlling it, 1 for owning its
Trade Post. "Actions Cards must be flipped to their reverse side ... when gaining ownership of the
associated Temple Trade Post", and turned back when losing it. `recheck` recounts both after anything
that can change Control or ownership (the rulebook: "they can always recount").
"""

from __future__ import annotations

from typing import Any

from rules.core.events import notice
from rules.great_sea.map import temple_spaces
from rules.great_sea.model import State


def temple_points(d: State, color: str) -> int:
    return all_temple_points(d).get(color, 0)


def all_temple_points(d: State) -> dict[str, int]:
    """Every player's Temple Points in one pass over the Temple regions."""
    return _count(d)[0]


def _count(d: State) -> tuple[dict[str, int], dict[str, set[int]]]:
    """Every player's Temple Points and the numbers of the Temple Trade Posts they own (players owning none
    are left out), in one pass over the map's Temple spaces (the only regions a Temple lies on)."""
    pts = dict.fromkeys(d["p"], 0)
    flips: dict[str, set[int]] = {}
    regions = d["regions"]
    for r in temple_spaces(d["map"]):
        reg = regions[r]
        n = reg["temple"]
        if n is None:
            continue
        post = reg["post"]
        owner = None
        if post is not None:
            owner = post[0]
            pts[owner] += 1
            if owner in flips:
                flips[owner].add(n)
            else:
                flips[owner] = {n}
        home = reg["home"]
        there = set()
        for s in reg["ships"]:
            there.add(s["owner"])
        for f in reg["forts"]:
            there.add(f[0])
        # Control (control.controls): present, and owning the Trade Post, alone there or at home
        if len(there) == 1:
            for c in there:
                pts[c] += 1
        else:
            for c in there:
                if c == owner or c == home:
                    pts[c] += 1
        if home is not None and home not in there:
            pts[home] += 1  # a home region is never lost
    return pts, flips


def flipped_numbers(d: State, color: str) -> set[int]:
    return _count(d)[1].get(color, set())


_NUMBERS = tuple((str(n), n) for n in range(1, 7))
_NONE: frozenset[int] = frozenset()


def recheck(d: State, out: list[dict[str, Any]]) -> None:
    every, flipped = _count(d)
    # in seat order, never the dict's (a state loaded from the game log has its keys sorted)
    for color in d["created"]["players"]:
        p = d["p"][color]
        pts = every[color]
        if pts != p["temple"]:
            notice(out, "temple_points", player=color, points=pts, was=p["temple"])
            p["temple"] = pts
        flips = flipped.get(color, _NONE)
        cards = p["cards"]
        for k, n in _NUMBERS:
            if cards[k]["flipped"] != (n in flips):
                # copy-on-write: the core shares a player's "cards" between copies of the state
                p["cards"] = {k: {"id": c["id"], "flipped": int(k) in flips} for k, c in cards.items()}
                notice(out, "cards_flipped", player=color, flipped=sorted(flips))
                break
