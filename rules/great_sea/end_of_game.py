"""The Point Tracks and the end of the game (rulebook: "Aim of the Game", "End of the Game", the Combat and
Trade Tracks' printed benefits).

"The game ends immediately once a player's Temple Marker reaches or exceeds the same space as either their
Combat or Trade Marker. The first player to achieve this is the winner!" The Temple Marker starts at the
right (`temple_start`, a sample value) and moves left one space per Temple Point; the Combat and Trade
Markers start at 0 and move right.
"""

from __future__ import annotations

from typing import Any

from rules.core.events import notice
from rules.great_sea.control import refresh_one
from rules.great_sea.data import board
from rules.great_sea.model import State, gain


def temple_space(d: State, color: str) -> int:
    start: int = board()["tracks"]["temple_start"]
    return start - d["p"][color]["temple"]


def reached(d: State, color: str) -> bool:
    p = d["p"][color]
    return temple_space(d, color) <= max(p["combat"], p["trade"])


def check_end(d: State, out: list[dict[str, Any]]) -> bool:
    """End the game the moment a marker condition holds. Several at once (one move changing two players'
    Temple Points): the first of them in turn order from the player whose turn it is (docs/great-sea.md)."""
    if d["phase"] == "over":
        return True
    start: int = board()["tracks"]["temple_start"]
    for q in d["p"].values():
        space = start - q["temple"]
        if space <= q["combat"] or space <= q["trade"]:
            break
    else:
        return False  # the common case, checked after every action: nobody has reached it
    order = d["players"]
    start = order.index(d["turn_player"]) if d["turn_player"] in order else 0
    for color in order[start:] + order[:start]:
        if reached(d, color):
            d["phase"] = "over"
            d["winner"] = color
            d["active"] = None
            d["combat"] = None
            p = d["p"][color]
            notice(
                out,
                "game_over",
                winner=color,
                temple_space=temple_space(d, color),
                combat=p["combat"],
                trade=p["trade"],
            )
            return True
    return False


def advance(d: State, color: str, track: str, n: int, out: list[dict[str, Any]]) -> None:
    """Move the Combat or Trade Marker `n` spaces right, gaining each printed benefit crossed (sample
    benefits: Resources, a Neutral Worker, refreshing a Trade Post, Coin income)."""
    from rules.great_sea.trade import income  # the Trade action owns income

    p = d["p"][color]
    rewards: dict[str, dict[str, Any]] = board()["tracks"][f"{track}_rewards"]
    for _ in range(n):
        if track == "combat":
            p["combat"] += 1
            space = p["combat"]
        else:
            p["trade"] += 1
            space = p["trade"]
        reward = rewards.get(str(space))
        if not reward:
            continue
        for k, v in reward.items():
            if k in ("wood", "coins", "neutral"):
                gain(p, k, v)
            elif k == "refresh":
                refresh_one(d, color)
            elif k == "income":
                gain(p, v, income(d, color, v))
        notice(out, "track_reward", player=color, track=track, space=space, gain=reward)
