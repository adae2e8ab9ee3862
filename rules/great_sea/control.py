"""Control (rulebook: "Control"): presence, Control of a region, the Trade Posts owned.

"Players have Control of a region when both these conditions are true: They have at least 1 Ship or Fort
present in the region. Either they own the Trade Post in that region, or are the only player present
there." A player never loses Control of their home region.
"""

from __future__ import annotations

from rules.great_sea.model import Region, State


def present(reg: Region, color: str) -> bool:
    # plain loops: this is read for every region on most offers and checks (a generator is a call each)
    for s in reg["ships"]:
        if s["owner"] == color:
            return True
    for f in reg["forts"]:
        if f[0] == color:
            return True
    return False


def players_present(reg: Region) -> set[str]:
    there = set()
    for s in reg["ships"]:
        there.add(s["owner"])
    for f in reg["forts"]:
        there.add(f[0])
    return there


def controls(reg: Region, color: str) -> bool:
    if reg["home"] == color:
        return True
    mine = other = False
    for s in reg["ships"]:
        if s["owner"] == color:
            mine = True
        else:
            other = True
    for f in reg["forts"]:
        if f[0] == color:
            mine = True
        else:
            other = True
    if not mine:
        return False
    post = reg["post"]
    if post is not None and post[0] == color:
        return True
    return not other  # the only player present


def controlled(d: State, color: str) -> list[str]:
    return [r for r, reg in d["regions"].items() if controls(reg, color)]


def posts_on_map(d: State, color: str) -> list[str]:
    return [r for r, reg in d["regions"].items() if reg["post"] is not None and reg["post"][0] == color]


def refreshed_posts(d: State, color: str) -> list[str]:
    return [r for r in posts_on_map(d, color) if not d["regions"][r]["post"][1]]  # type: ignore[index]


def exhausted_posts(d: State, color: str) -> list[str]:
    return [r for r in posts_on_map(d, color) if d["regions"][r]["post"][1]]  # type: ignore[index]


def exhaust(d: State, color: str, n: int) -> list[str]:
    """Turn `n` of the player's refreshed Trade Posts facedown (the first by region name: which ones is
    the player's choice at the table and changes nothing in the rules)."""
    chosen = refreshed_posts(d, color)[:n]
    for r in chosen:
        d["regions"][r]["post"][1] = True  # type: ignore[index]
    return chosen


def refresh_one(d: State, color: str, region: str | None = None) -> str | None:
    ex = exhausted_posts(d, color)
    if not ex:
        return None
    r = region if region in ex else ex[0]
    d["regions"][r]["post"][1] = False  # type: ignore[index]
    return r


def regions_present(d: State, color: str) -> list[str]:
    return [r for r, reg in d["regions"].items() if present(reg, color)]
