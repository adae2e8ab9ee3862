"""Sailing and exploring (rulebook: "Set Sails", "Move", "Explore"): counting the Sails (`sails_available`,
`set_sails`), moving square by square (`move`: Garrison fire on the way, provoked battles when stopping
among Pirate-mode ships), and revealing a face-down board (`reveal_board`, a chance outcome) with its
Explorer cube.
"""

from __future__ import annotations

from typing import Any

from contracts.grid import HARBOR, SQUARES, neighbours
from rules.core.actions import Action
from rules.core.errors import Ambiguous, Illegal, Invalid
from rules.core.events import notice
from rules.dead_reckoning.achievements import check_achievements, earn_cube, release_explorer_cubes
from rules.dead_reckoning.battles import next_battle
from rules.dead_reckoning.cards import BUILDINGS, catalog, played_icons
from rules.dead_reckoning.islands import island_at, pirates_at
from rules.dead_reckoning.model import State
from rules.dead_reckoning.phases import mark_acted, need_pending, require_active
from rules.dead_reckoning.ship import MAX_SAILS, ship_icon
from rules.dead_reckoning.sinking import deal_damage


def board_choices(d: State) -> list[str]:
    """Boards that may plausibly be under a face-down square. The face-down squares hold exactly
    `islands_left` island boards (which ones is unknown: the rest stayed in the box) and the in-play
    open seas."""
    revealed = {d["grid"][sq]["board"] for sq in SQUARES}
    face_down = sum(1 for sq in SQUARES if d["grid"][sq]["board"] is None)
    left = d["pool"]["islands_left"]
    islands = [b for b in d["pool"]["islands"] if b not in revealed] if left > 0 else []
    opens = [b for b in d["pool"]["open_seas"] if b not in revealed] if face_down > left else []
    return islands + opens


def check_reveal_board(d: State, player: str, a: dict[str, Any]) -> dict[str, Any]:
    req = need_pending(d, "reveal_board")
    if a.get("square") != req["square"]:
        raise Illegal(f"the board to reveal is at {req['square']}, not {a.get('square')}.")
    board = a.get("board")
    cat = catalog(d)
    if not isinstance(board, str) or board not in cat.boards:
        raise Invalid(f"{board!r} is not an Ocean board in this game's data; re-read the board.")
    if board not in board_choices(d):
        raise Illegal(
            f"{board} cannot be under {req['square']}: it is already on the table, not in play for "
            f"{len(d['players'])} players, or all the island boards are already revealed."
        )
    return {"type": "reveal_board", "square": req["square"], "board": board}


def do_reveal_board(d: State, player: str, a: dict[str, Any], out: list[dict[str, Any]]) -> None:
    cat = catalog(d)
    d["pending"].pop(0)
    sq, board = a["square"], a["board"]
    spec = cat.boards[board]
    d["grid"][sq]["board"] = board
    if spec["kind"] == "island":
        d["pool"]["islands_left"] -= 1
        d["grid"][sq]["island"] = {
            "cubes": [None] * spec["slots"],
            "permanent": {},
            "cargo": 0,
            "coins": 0,
            "controller": None,
            "buildings": {b: False for b in BUILDINGS},
            "strikes": {},
        }
    release_explorer_cubes(d, out)
    row = int(sq[1])
    if d["decks"][str(row)]:
        d["pending"].insert(0, {"kind": "draw_advancement", "square": sq, "row": row})


def sails_available(d: State, player: str) -> int:
    cat = catalog(d)
    p = d["p"][player]
    return min(
        MAX_SAILS,
        ship_icon(cat, d, player, "sail", True) + played_icons(cat, p, "sail") + d["turn"]["extra_sails"],
    )


def check_set_sails(d: State, player: str, a: dict[str, Any]) -> dict[str, Any]:
    require_active(d, player, "set Sails")
    if d["turn"]["sails_set"]:
        raise Illegal("Sails are set once per turn, and you have already set them.")
    return {"type": "set_sails", "sails": sails_available(d, player)}


def do_set_sails(d: State, player: str, a: dict[str, Any], out: list[dict[str, Any]]) -> None:
    mark_acted(d, player)
    d["turn"]["sails_set"] = True
    d["p"][player]["ship"]["sails"] = a["sails"]


def check_move(d: State, player: str, a: dict[str, Any]) -> dict[str, Any]:
    p = require_active(d, player, "move")
    path = a.get("path")
    if isinstance(a.get("to"), str) and path is None:
        path = [a["to"]]
    if not isinstance(path, list) or not path or not all(isinstance(s, str) for s in path):
        raise Invalid('a move needs \'path\': the boards entered in order, e.g. ["r1c2", "r2c2"].')
    if not d["turn"]["sails_set"]:
        raise Illegal("set your Sails before moving.")
    if len(path) > p["ship"]["sails"]:
        raise Illegal(f"that move needs {len(path)} Sails and your Sail track shows {p['ship']['sails']}.")
    here = p["ship"]["at"]
    for sq in path:
        if sq != HARBOR and sq not in SQUARES:
            raise Invalid(f"{sq!r} is not a square (use r1c1..r4c3 or harbor).")
        if sq not in neighbours(here):
            raise Illegal(
                f"{sq} is not orthogonally next to {here}: ships move one board at a time, no diagonals."
            )
        here = sq
    last = path[-1]
    if last != HARBOR and d["grid"][last]["board"] is None and d["turn"]["explored"]:
        raise Illegal("you have already explored this turn: you may not stop on another unexplored board.")
    order = a.get("fight_order")
    pir = pirates_at(d, last, player)
    if order is None and len(pir) > 1:
        raise Ambiguous(
            f"several Pirate-mode ships are at {last}: say in which order you fight them ('fight_order').",
            pir,
        )
    if order is None:
        order = pir
    if not isinstance(order, list) or not all(isinstance(c, str) for c in order):
        raise Invalid("'fight_order' must list player colours.")
    if sorted(order) != sorted(pir):
        raise Invalid(f"fight_order must list the Pirate-mode ships at {last}: {', '.join(pir) or 'none'}.")
    return {"type": "move", "path": list(path), "fight_order": list(order), "cannons": a.get("cannons")}


def do_move(d: State, player: str, a: dict[str, Any], out: list[dict[str, Any]]) -> None:
    mark_acted(d, player)
    p = d["p"][player]
    for sq in a["path"]:
        p["ship"]["sails"] -= 1
        p["ship"]["at"] = sq
        isl = island_at(d, sq)
        if isl and isl["buildings"]["garrison"] and isl["controller"] not in (None, player):
            notice(out, "garrison_fire", player=player, square=sq, by=isl["controller"])
            if deal_damage(d, player, 1, isl["controller"], out):
                return  # sunk: back in Harbor, the move ends
    last = a["path"][-1]
    notice(out, "moved", player=player, path=a["path"])
    if last != HARBOR and d["grid"][last]["board"] is None:
        d["turn"]["explored"] = True
        if d["turn_log"]:
            d["turn_log"][-1] = {
                **d["turn_log"][-1],
                "revealed": True,
            }  # replaced, never edited: copies share it
        _explore_cube(d, player, out)
        d["pending"].append({"kind": "reveal_board", "square": last})
        return
    queue = [c for c in a["fight_order"]]
    if queue:
        d["battle_queue"] = [
            {"kind": "ship", "defender": c, "provoked": True, "cannons": a.get("cannons")} for c in queue
        ]
        next_battle(d, out)


def _explore_cube(d: State, player: str, out: list[dict[str, Any]]) -> None:
    if player in d["achievements"]["explorer"]:
        return
    earn_cube(d, player, "explorer", len(SQUARES), out)  # "Each time you explore an Ocean board"
    check_achievements(d, player, out)


ACTIONS: tuple[Action[State], ...] = (
    Action("reveal_board", check_reveal_board, do_reveal_board, chance=True),
    Action("set_sails", check_set_sails, do_set_sails),
    Action("move", check_move, do_move),
)
