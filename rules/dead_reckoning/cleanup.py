"""Cleanup (rulebook: "Cleanup phase"): `end_turn` runs its five steps in order: Pirate or Mercantile,
sleeving set-aside Advancements, discarding, refilling the empty Advancement spaces, drawing up to the
hand limit; then the turn passes (`turn.after_chance`).
"""

from __future__ import annotations

from typing import Any

from contracts.grid import HARBOR, SQUARES
from rules.core.actions import Action
from rules.core.errors import Illegal, Invalid
from rules.core.events import notice
from rules.dead_reckoning.cards import catalog, played_icons
from rules.dead_reckoning.choices import leave_owed_cubes, settle_plunder
from rules.dead_reckoning.model import State
from rules.dead_reckoning.phases import require_active
from rules.dead_reckoning.sailors import DRAW, hand_limit, own_card, queue_draw
from rules.dead_reckoning.ship import return_owed
from rules.dead_reckoning.turn import after_chance


def check_end_turn(d: State, player: str, a: dict[str, Any]) -> dict[str, Any]:
    p = require_active(d, player, "end the turn")
    pirate = bool(a.get("pirate", False))
    if pirate and p["ship"]["at"] == HARBOR:
        raise Illegal("Ships in Harbor must be in Mercantile mode.")
    sleeve = a.get("sleeve", [])
    if not isinstance(sleeve, list):
        raise Invalid('\'sleeve\' must list {"advancement", "card"} pairs.')
    cat = catalog(d)
    taken: set[tuple[str, str]] = set()
    done: set[str] = set()
    for s in sleeve:
        adv, card = (s.get("advancement"), s.get("card")) if isinstance(s, dict) else (None, None)
        if adv not in p["set_aside"] or adv in done:
            raise Illegal(f"{adv!r} is not one of your set-aside Advancements.")
        if card not in p["played"]:
            raise Illegal(f"{card!r} was not played this turn: you can only sleeve onto a card you played.")
        slot = cat.cards[adv]["slot"]
        if p["cards"][card]["slots"][slot] or (card, slot) in taken:
            raise Illegal(f"{card}'s {slot} slot is taken: an Advancement may not cover another.")
        taken.add((card, slot))
        done.add(adv)
    rest = []
    for x in p["set_aside"]:
        if x not in done:
            rest.append(x)
    if len(rest) > 1:
        free = {
            (c, s)
            for c in p["played"]
            for s in ("top", "middle", "bottom")
            if not p["cards"][c]["slots"][s] and (c, s) not in taken
        }
        sleevable = [x for x in rest if any(s == cat.cards[x]["slot"] for _, s in free)]
        if sleevable:
            raise Illegal(
                f"at most 1 Advancement may stay set aside; sleeve {sleevable[0]} onto a played card "
                "with that slot free."
            )
    norm = []
    for s in sleeve:
        norm.append({"advancement": s["advancement"], "card": s["card"]})
    return {"type": "end_turn", "pirate": pirate, "sleeve": norm}


def do_end_turn(d: State, player: str, a: dict[str, Any], out: list[dict[str, Any]]) -> None:
    cat = catalog(d)
    p = d["p"][player]
    # 1. refill empty Advancement spaces on face-up boards
    for sq in SQUARES:
        g = d["grid"][sq]
        if g["board"] and g["card"] is None and d["decks"][sq[1]]:
            d["pending"].append({"kind": "draw_advancement", "square": sq, "row": int(sq[1])})
    # 2. Pirate or Mercantile mode
    p["ship"]["pirate"] = a["pirate"] and p["ship"]["at"] != HARBOR
    # 3. lose unspent Sails
    p["ship"]["sails"] = 0
    return_owed(d, player)  # gains that never found room on the Ship go back to the supply
    settle_plunder(d, out)  # plunder nobody placed: the battle's island if it may take it, else the supply
    if "cubes_owed" in p:
        leave_owed_cubes(d, player, out)  # achievement cubes the player did not take from an island
    # 4. sleeve Advancements
    for s in a["sleeve"]:
        adv = s["advancement"]
        own_card(p, s["card"])["slots"][cat.cards[adv]["slot"]] = adv
        p["set_aside"].remove(adv)
    # 5. discard and draw (the draw is a chance step)
    bonus = played_icons(cat, p, "bonus_draw")
    p["discard"] += p["played"]
    p["played"] = []
    want = max(0, min(DRAW + bonus, hand_limit(cat, d, player) - len(p["hand"])))
    queue_draw(d, player, want)
    notice(out, "cleanup", player=player, draw=want, pirate=p["ship"]["pirate"])
    d["after"] = "end_turn"
    if not d["pending"]:
        after_chance(d, out)


ACTIONS: tuple[Action[State], ...] = (Action("end_turn", check_end_turn, do_end_turn, undoable=False),)
