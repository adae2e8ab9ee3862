"""Temple Points and flipping Action Cards (rulebook: "Temple Points", "Flipping Action Cards").

"Each Temple Region can provide a maximum of 2 Temple Points": 1 for Controlling it, 1 for owning its
Trade Post. "Actions Cards must be flipped to their reverse side ... when gaining ownership of the
associated Temple Trade Post", and turned back when losing it. `recheck` recounts both after anything
that can change Control or ownership (the rulebook: "they can always recount").
"""

from __future__ import annotations

from typing import Any

from rules.core.events import notice
from rules.great_sea.control import players_present
from rules.great_sea.model import State


def temple_points(d: State, color: str) -> int:
    return all_temple_points(d).get(color, 0)


def all_temple_points(d: State) -> dict[str, int]:
    """Every player's Temple Points in one pass over the Temple regions."""
    pts = dict.fromkeys(d["p"], 0)
    for reg in d["regions"].values():
        if reg["temple"] is None:
            continue
        post = reg["post"]
        owner = post[0] if post is not None else None
        if owner is not None:
            pts[owner] += 1
        there = players_present(reg)
        for c in there:
            if c == owner or len(there) == 1 or reg["home"] == c:
                pts[c] += 1  # Control (control.controls): present, and owning the Trade Post or alone there
        if reg["home"] is not None and reg["home"] not in there:
            pts[reg["home"]] += 1  # a home region is never lost
    return pts


def flipped_numbers(d: State, color: str) -> set[int]:
    return {
        reg["temple"]
        for reg in d["regions"].values()
        if reg["temple"] is not None and reg["post"] is not None and reg["post"][0] == color
    }


def recheck(d: State, out: list[dict[str, Any]]) -> None:
    every = all_temple_points(d)
    for color, p in d["p"].items():
        pts = every[color]
        if pts != p["temple"]:
            notice(out, "temple_points", player=color, points=pts, was=p["temple"])
            p["temple"] = pts
        flips = flipped_numbers(d, color)
        cards = p["cards"]
        if any(cards[str(n)]["flipped"] != (n in flips) for n in range(1, 7)):
            # copy-on-write: the core shares a player's "cards" between copies of the state
            p["cards"] = {k: {"id": c["id"], "flipped": int(k) in flips} for k, c in cards.items()}
            notice(out, "cards_flipped", player=color, flipped=sorted(flips))
