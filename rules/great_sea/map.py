"""The Map (rulebook: "Control", "Main Board Setup"): regions, borders, the 2-player reef, home regions,
Temple spaces, Foundations and Shipyards, as data per player count (rules/data/great_sea/maps.json)."""

from __future__ import annotations

from collections import deque
from functools import cache
from typing import Any

from rules.great_sea.data import load


@cache
def maps() -> dict[str, Any]:
    data: dict[str, Any] = load("maps.json")
    return data


def spec(side: str) -> dict[str, Any]:
    """The map of one Main Board side ("2", "3", "4"): {"regions": {id: {adjacent, foundations, ...}}}."""
    s: dict[str, Any] = maps()[side]
    return s


@cache
def adjacency(side: str) -> dict[str, tuple[str, ...]]:
    """Regions sharing a border (the 2-player reef already removes the borders it separates)."""
    return {r: tuple(v["adjacent"]) for r, v in spec(side)["regions"].items()}


def adjacent(side: str, a: str, b: str) -> bool:
    return b in adjacency(side)[a]


@cache
def reachable(side: str, start: str, speed: int, blocked: frozenset[str]) -> dict[str, int]:
    """Regions within `speed` borders of `start` (the distance of each), never entering a `blocked` region
    (opponents' home regions: "Players may never move Ships into an opponent's home region"). Memoised:
    the map never changes, so callers only read the result."""
    adj = adjacency(side)
    dist = {start: 0}
    todo = deque([start])
    while todo:
        r = todo.popleft()
        if dist[r] >= speed:
            continue
        for n in adj[r]:
            if n not in dist and n not in blocked:
                dist[n] = dist[r] + 1
                todo.append(n)
    return dist


@cache
def temple_spaces(side: str) -> tuple[str, ...]:
    """The regions with a Temple space, in map order: the only ones a Temple can lie on (setup)."""
    return tuple(r for r, v in spec(side)["regions"].items() if v["temple_space"])


@cache
def foundation_regions(side: str) -> tuple[str, ...]:
    """The regions printed with Foundations, in map order (a Fort only ever takes Foundations away)."""
    return tuple(r for r, v in spec(side)["regions"].items() if v["foundations"])
