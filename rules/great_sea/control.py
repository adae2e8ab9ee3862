"""Control (rulebook: "Control"): presence, Control of a region, the Trade Posts owned.

"Players have Control of a region when both these conditions are true: They have at least 1 Ship or Fort
present in the region. Either they own the Trade Post in that region, or are the only player present
there." A player never loses Control of their home region.
"""

from __future__ import annotations

from rules.great_sea.model import Region, State


def present(reg: Region, color: str) -> bool:
    return any(s["owner"] == color for s in reg["ships"]) or any(f[0] == color for f in reg["forts"])


def players_present(reg: Region) -> set[str]:
    return {s["owner"] for s in reg["ships"]} | {f[0] for f in reg["forts"]}


def controls(reg: Region, color: str) -> bool:
    if reg["home"] == color:
        return True
    if not present(reg, color):
        return False
    post = reg["post"]
    if post is not None and post[0] == color:
        return True
    return players_present(reg) == {color}


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
