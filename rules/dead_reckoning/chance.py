"""Chance outcomes drawn from the seeded generator kept in the state (simulation and digital play only):
which board is under a square, which card is drawn, which Sailors, who goes first, which Bonus tokens.
The table reports them instead when `auto_chance` is off.
"""

from __future__ import annotations

from typing import Any

from rules.core.errors import Invalid
from rules.core.state import rng_below
from rules.dead_reckoning.model import State
from rules.dead_reckoning.sailing import board_choices


def draw_chance(d: State, req: dict[str, Any]) -> dict[str, Any]:
    """Draw a chance outcome from the seeded RNG (simulation and digital play only). Advances d['rng']."""
    kind = req["kind"]
    if kind == "reveal_board":
        choices = board_choices(d)
        return {"type": "reveal_board", "square": req["square"], "board": choices[rng_below(d, len(choices))]}
    if kind == "draw_advancement":
        deck = d["decks"][str(req["row"])]
        return {"type": "draw_advancement", "square": req["square"], "card": deck[rng_below(d, len(deck))]}
    if kind == "draw_sailors":
        pile = list(d["p"][req["player"]]["deck"])
        cards = []
        for _ in range(req["count"]):
            cards.append(pile.pop(rng_below(d, len(pile))))
        return {"type": "draw_sailors", "player_drawing": req["player"], "cards": cards}
    if kind == "choose_first_player":
        return {"type": "choose_first_player", "first": d["players"][rng_below(d, len(d["players"]))]}
    if kind == "deal_bonus":
        pool = list(d["bonus_pool"])
        a = pool.pop(rng_below(d, len(pool)))
        b = pool.pop(rng_below(d, len(pool)))
        return {"type": "deal_bonus", "player_dealt": req["player"], "tokens": [a, b]}
    raise Invalid(f"unknown chance request {kind!r}.")
