"""What each seat may see: the public view, one private view per player, and redacted events.

Owns the line between public and secret. Secret: Treasure chest coins, the cards in a hand (and
their levels), the draw pile's contents, set-aside Advancements, Bonus Achievement tokens, the back
of an unrevealed Merchant ship, the RNG. Everything here is built fresh from the state as JSON-ready
dicts, so nothing secret can leak by reference.
"""

from __future__ import annotations

from typing import Any, cast

from contracts.grid import SQUARES
from rules.core.state import GameState
from rules.dead_reckoning.cards import catalog
from rules.dead_reckoning.choices import pending_choices
from rules.dead_reckoning.expansions import expansion, saga_part
from rules.dead_reckoning.game import expansions_of
from rules.dead_reckoning.islands import blockaded
from rules.dead_reckoning.model import SailorCard, State
from rules.dead_reckoning.sailing import sails_available
from rules.dead_reckoning.sailors import hand_limit


def _card_public(card: SailorCard) -> dict[str, Any]:
    return {"sailor": card["sailor"], "level": card["level"], "slots": dict(card["slots"])}


def _player_public(d: State, color: str) -> dict[str, Any]:
    p = d["p"][color]
    ship = p["ship"]
    return {
        "dock_cargo": p["dock"],
        "cubes": p["cubes"],
        "achievement_markers_left": p["markers"],
        "ship": {
            "at": ship["at"],
            "holds": [{"cargo": h[0], "coins": h[1]} for h in ship["holds"]],
            "sails": ship["sails"],
            "damage": ship["damage"],
            "pirate": ship["pirate"],
            "hull": [list(t) for t in ship["hull"]],
        },
        "hand_size": len(p["hand"]),
        "deck_size": len(p["deck"]),
        "discard": {c: _card_public(p["cards"][c]) for c in p["discard"]},
        "played": {c: _card_public(p["cards"][c]) for c in p["played"]},
        "set_aside_count": len(p["set_aside"]),
        "may_level_up": p["level_up"],
        "has_bonus_token": p["bonus"] is not None,
        "final_turn_taken": p["final_done"],
        # "At the end of the game each player reveals their token": its Achievements, once the game is over
        "bonus_token": catalog(d).bonus_tokens[p["bonus"]]
        if d["phase"] == "over" and p["bonus"] is not None
        else None,
    }


def public_view(state: GameState) -> dict[str, Any]:
    d = cast(State, state.data)  # the JSON edge: the core keeps plain data
    cat = catalog(d)
    grid = {}
    for sq in SQUARES:
        g = d["grid"][sq]
        cell: dict[str, Any] = {"board": g["board"], "face_up": g["board"] is not None}
        if g["card"]:
            c = cat.cards[g["card"]]
            cell["card"] = {
                "id": g["card"],
                "name": c["name"],
                "cost": c["cost"],
                "slot": c["slot"],
                "merchant": "encounter" in c,
            }
        if g["island"]:
            isl = g["island"]
            cell["island"] = {
                "cubes": list(isl["cubes"]),
                "permanent": dict(isl["permanent"]),
                "cargo": isl["cargo"],
                "coins": isl["coins"],
                "controller": isl["controller"],
                "buildings": [b for b, on in isl["buildings"].items() if on],
            }
        grid[sq] = cell
    view: dict[str, Any] = {
        "seq": d["seq"],
        "phase": d["phase"],
        "players": list(d["players"]),
        "active": d["active"],
        "turn": d["turn_no"],
        "grid": grid,
        "decks": {r: len(v) for r, v in d["decks"].items()},
        "buried": {r: list(v) for r, v in d["buried"].items()},
        "supply": dict(d["supply"]),
        "upgrade_supply": dict(d["upgrade_supply"]),
        "achievements": {a: list(v) for a, v in d["achievements"].items()},
        "achievement_cubes": {a: dict(v) for a, v in d["achievement_cubes"].items()},
        "waiting_for": [_public_request(r) for r in d["pending"]],
        "battle": d["battle"]["setup"] if d["battle"] else None,
        "final_round": dict(d["final"]) if d["final"] else None,
        "scores": d["scores"],
        "p": {c: _player_public(d, c) for c in d["players"]},
    }
    if d["active"] and d["phase"] == "main":
        t = d["turn"]
        view["this_turn"] = {
            "sails_set": t["sails_set"],
            "explored": t["explored"],
            "bought": t["bought"],
            "battled": list(t["battled"]),
            "blockaded": blockaded(d, d["p"][d["active"]]["ship"]["at"], d["active"]),
        }
    if "deep_legends" in d:  # the saga's cards and items on the table (docs/deep-legends.md)
        view["deep_legends"] = saga_part("views").saga_view(d)
    if "expansions" in d["options"]:
        view["expansions"] = {}
        for name in expansions_of(d["options"]):
            add = expansion(name).view
            if add is not None:
                add(d, view)
    return view


def _public_request(r: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in r.items()}  # requests name what is awaited, never the outcome


def private_view(state: GameState, player: str) -> dict[str, Any]:
    d = cast(State, state.data)  # the JSON edge: the core keeps plain data
    view = public_view(state)
    if player not in d["players"]:
        return view
    p = d["p"][player]
    cat = catalog(d)
    view["you"] = {
        "player": player,
        "chest": p["chest"],
        "hand": {c: _card_public(p["cards"][c]) for c in p["hand"]},
        "deck": sorted(p["deck"]),  # contents you know; the order is unknown to everyone
        "set_aside": [
            {"id": a, "name": cat.cards[a]["name"], "slot": cat.cards[a]["slot"]} for a in p["set_aside"]
        ],
        "bonus_token": cat.bonus_tokens[p["bonus"]] if p["bonus"] is not None else None,
        "bonus_offer": [cat.bonus_tokens[t] for t in p["bonus_offer"]],
        "hand_limit": hand_limit(cat, d, player),
        "sails_if_set_now": sails_available(d, player)
        if d["active"] == player and d["phase"] == "main"
        else None,
    }
    choices = pending_choices(d, player)
    if choices:  # only while one is pending (the view's JSON is otherwise unchanged)
        view["you"]["choices"] = choices
    return view


_SECRET_ACTION_FIELDS = {
    "draw_sailors": ("cards",),
    "deal_bonus": ("tokens",),
    "choose_bonus": ("token",),
    "level_up": ("card",),
}


def event_view(event: dict[str, Any], player: str | None = None) -> dict[str, Any]:
    """An event as `player` (None: the public) may see it: hidden draws become counts, the RNG goes."""
    ev = {k: v for k, v in event.items() if k not in ("rng", "revealed")}
    etype = ev.get("type")
    if etype == "game_created":  # the seed would let anyone predict simulated draws
        ev["action"] = {k: v for k, v in ev["action"].items() if k != "seed"}
        return ev
    action = ev.get("action")
    if isinstance(action, dict) and etype in _SECRET_ACTION_FIELDS:
        owner = action.get("player_drawing") or action.get("player_dealt") or ev.get("player")
        if owner != player:
            action = dict(action)
            for f in _SECRET_ACTION_FIELDS[etype]:
                if f in action:
                    v = action.pop(f)
                    if isinstance(v, list):
                        action[f"{f}_count"] = len(v)
            ev["action"] = action
    if etype == "correction":  # the corrected state holds every secret; the target and replacement stay
        ev.pop("state", None)
    return ev
