"""What each seat may see of The Great Sea: the public view, private views, redacted events.

Secret: the Combat Cards in a hand and a Combat Card chosen but not yet revealed ("without yet revealing it
to their opponent"), the RNG, the order of facedown Special Action Card Piles below their top. Everything is
built fresh as JSON-ready dicts, so nothing secret leaks by reference.
"""

from __future__ import annotations

from typing import Any, cast

from rules.core.state import GameState, copy_data
from rules.great_sea.data import DICE
from rules.great_sea.dice import value
from rules.great_sea.end_of_game import temple_space
from rules.great_sea.model import State
from rules.great_sea.upgrades import tile_cost


def _player(d: State, color: str) -> dict[str, Any]:
    p = d["p"][color]
    return {
        "seat": p["seat"],
        "home": p["home"],
        "dice": {DICE[i]: p["dice"][i] for i in range(6)},
        "die_values": {DICE[i]: value(p, i + 1) for i in range(6)},
        "cards": {k: dict(v) for k, v in p["cards"].items()},
        "wood": p["wood"],
        "coins": p["coins"],
        "neutral_workers": p["neutral"],
        "ships_left": dict(p["ships"]),
        "class_tiles": dict(p["classes"]),
        "fleet_tile": p["fleet"],
        "forts_left": dict(p["forts"]),
        "trade_posts_left": p["posts"],
        "ship_tiles": copy_data(p["ship_tiles"]),
        "fort_tiles": copy_data(p["fort_tiles"]),
        "hand_size": len(p["hand"]),
        "combat_cards_lost": list(p["lost"]),
        "points": {"temple": p["temple"], "combat": p["combat"], "trade": p["trade"]},
        "temple_space": temple_space(d, color),
    }


def _combat(d: State, viewer: str | None) -> dict[str, Any] | None:
    c = d["combat"]
    if c is None:
        return None
    out = {k: copy_data(v) for k, v in c.items() if k != "chosen"}
    if c["stage"] == "choose":
        out["chosen"] = {
            k: (dict(v) if v is not None and k == viewer else v is not None) for k, v in c["chosen"].items()
        }
    else:
        out["chosen"] = copy_data(c["chosen"])
    return out


def public_view(state: GameState, viewer: str | None = None) -> dict[str, Any]:
    d = cast(State, state.data)
    return {
        "game": "great-sea",
        "seq": d["seq"],
        "phase": d["phase"],
        "stage": d["stage"],
        "active": d["active"],
        "turn_player": d["turn_player"],
        "turn": copy_data(d["turn"]),
        "players": list(d["players"]),
        "map": d["map"],
        "regions": copy_data(d["regions"]),
        "p": {c: _player(d, c) for c in d["players"]},
        "special_piles": {k: {"top": v[0], "count": len(v)} for k, v in d["specials"].items() if v},
        "upgrade_grid": {
            row: [
                {"pile": pl, "top": d["piles"][pl][0] if d["piles"][pl] else None, "count": len(d["piles"][pl]),
                 "cost": tile_cost(d, pl)}
                for pl in piles
            ]
            for row, piles in d["rows"].items()
        },
        "combat": _combat(d, viewer),
        "waiting_for": [dict(r) for r in d["pending"]],
        "winner": d["winner"],
    }


def private_view(state: GameState, player: str) -> dict[str, Any]:
    d = cast(State, state.data)
    view = public_view(state, player)
    if player in d["p"]:
        view["you"] = {"player": player, "hand": list(d["p"][player]["hand"])}
    return view


def event_view(event: dict[str, Any], player: str | None = None) -> dict[str, Any]:
    ev = {k: v for k, v in event.items() if k != "rng"}
    if ev.get("type") == "play_combat_card" and ev.get("player") != player:
        ev["action"] = {"type": "play_combat_card"}  # the card stays secret until both are revealed
    return ev
