"""What each seat may see of The Great Sea: the public view, private views, redacted events.

Secret: the Combat Cards in a hand and a Combat Card chosen but not yet revealed ("without yet revealing it
to their opponent"), the RNG, the order of facedown Special Action Card Piles below their top. Everything is
built fresh as JSON-ready dicts, so nothing secret leaks by reference.
"""

from __future__ import annotations

from typing import Any, cast

from rules.core.state import GameState, copy_data
from rules.great_sea.combat import retreat_targets, retreating
from rules.great_sea.data import DICE, FORTS, board
from rules.great_sea.dice import value
from rules.great_sea.end_of_game import temple_space
from rules.great_sea.map import spec
from rules.great_sea.model import Player, State
from rules.great_sea.upgrades import cells, tile_cost, visible_icons


def _fort_grids(p: Player) -> dict[str, list[list[dict[str, Any]]]]:
    """Each Fort class's grid as the player sees it: per space (rows of columns) the icons showing, how many
    tiles lie stacked there and the tile on top (None: the printed space)."""
    grid = board()["fort_grid"]
    out: dict[str, list[list[dict[str, Any]]]] = {}
    for cls in FORTS:
        tiles, places = p["fort_tiles"][cls], p["fort_places"][cls]
        shown = visible_icons(tuple(tiles), tuple(map(tuple, places)))  # the engine's own reading of the grid
        rows: list[list[dict[str, Any]]] = [
            [{"icons": dict(shown[(r, c)]), "height": 0, "tile": None} for c in range(grid["cols"])]
            for r in range(grid["rows"])
        ]
        for tile, place in zip(tiles, places, strict=True):
            for r, c in cells(tuple(place)):
                rows[r][c]["height"] += 1
                rows[r][c]["tile"] = tile
        for r, c in grid["locked"]:
            rows[r][c]["locked"] = True
        out[cls] = rows
    return out


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
        "fort_places": copy_data(p["fort_places"]),  # each Fort tile's place on its grid, in the order laid
        "fort_grids": _fort_grids(p),
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
    if c["stage"] == "retreat":
        # Who retreats, their Ships in the region (in order) and, per class, the Shipyards open to it.
        out["retreat"] = {
            "player": c["loser"],
            "ships": retreating(d, c),
            "shipyards": retreat_targets(d, c),
        }
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
        # The reef's borders (pairs of regions it separates), from the map's data (the 2-player side has one).
        "reef": [list(pair) for pair in spec(d["map"]).get("reef", [])],
        "regions": copy_data(d["regions"]),
        "p": {c: _player(d, c) for c in d["players"]},
        "special_piles": {k: {"top": v[0], "count": len(v)} for k, v in d["specials"].items() if v},
        "upgrade_grid": {
            row: [
                {
                    "pile": pl,
                    "top": d["piles"][pl][0] if d["piles"][pl] else None,
                    "count": len(d["piles"][pl]),
                    "cost": tile_cost(d, pl),
                }
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


def summary_lines(v: dict[str, Any]) -> list[str]:
    """A readable summary of a public or private view (the CLI's `rules show`)."""
    lines = [f"The Great Sea  seq {v['seq']}  phase {v['phase']} ({v['stage']})  active {v['active'] or '-'}"]
    if v["waiting_for"]:
        lines.append("waiting for the table: " + ", ".join(r["type"] for r in v["waiting_for"]))
    for r, reg in sorted(v["regions"].items()):
        bits = []
        if reg["home"]:
            bits.append(f"home of {reg['home']}")
        if reg["temple"]:
            bits.append(f"Temple {reg['temple']}")
        if reg["post"]:
            bits.append(f"post {reg['post'][0]}{' (exhausted)' if reg['post'][1] else ''}")
        bits += [f"{f[0]} {f[1]}" for f in reg["forts"]]
        bits += [f"{s['owner']} {s['cls']}{' (damaged)' if s['damaged'] else ''}" for s in reg["ships"]]
        if reg["foundations"]:
            bits.append("foundations " + ",".join(reg["foundations"]))
        if bits:
            lines.append(f"  {r}: " + "; ".join(bits))
    for color in v["players"]:
        p = v["p"][color]
        dice = " ".join(f"{k[:3]}{n}" for k, n in p["die_values"].items())
        pts = p["points"]
        lines.append(
            f"{color:7} dice {dice}  wood {p['wood']} coins {p['coins']}  temple {pts['temple']} (space "
            f"{p['temple_space']}) combat {pts['combat']} trade {pts['trade']}  hand {p['hand_size']}"
        )
    c = v["combat"]
    if c:
        lines.append(f"combat in {c['region']}: {c['attacker']} attacks {c['defender']} ({c['stage']})")
    if "you" in v:
        lines.append(f"you ({v['you']['player']}): combat cards {', '.join(v['you']['hand'])}")
    if v["winner"]:
        lines.append(f"winner: {v['winner']}")
    return lines
