"""Advancements and Encounters (rulebook: "Advancements and Encounters"): the card drawn from a row's box
onto a revealed board (`draw_advancement`, a chance outcome). Buying them is `buying`; fighting a
Merchant Encounter is `battles`.
"""

from __future__ import annotations

from typing import Any

from rules.core.actions import Action
from rules.core.errors import Illegal, Invalid
from rules.dead_reckoning.cards import catalog
from rules.dead_reckoning.model import State
from rules.dead_reckoning.phases import need_pending


def check_draw_advancement(d: State, player: str, a: dict[str, Any]) -> dict[str, Any]:
    req = need_pending(d, "draw_advancement")
    if a.get("square") != req["square"]:
        raise Illegal(f"the card to draw is for {req['square']}, not {a.get('square')}.")
    card = a.get("card")
    if not isinstance(card, str) or card not in catalog(d).cards:
        raise Invalid(f"{card!r} is not a card in this game's data; re-read the card.")
    if card not in d["decks"][str(req["row"])]:
        raise Illegal(
            f"{card} is not in the row {req['row']} box (it is in play, buried, or from another row)."
        )
    return {"type": "draw_advancement", "square": req["square"], "card": card}


def do_draw_advancement(d: State, player: str, a: dict[str, Any], out: list[dict[str, Any]]) -> None:
    req = d["pending"].pop(0)
    deck = d["decks"][str(req["row"])]
    deck.remove(a["card"])
    d["grid"][a["square"]]["card"] = a["card"]
    if not deck:  # that row's box is empty: other spaces of the row waiting for a card stay empty
        d["pending"] = [r for r in d["pending"] if r["kind"] != "draw_advancement" or r["row"] != req["row"]]


ACTIONS: tuple[Action[State], ...] = (
    Action("draw_advancement", check_draw_advancement, do_draw_advancement, chance=True),
)
