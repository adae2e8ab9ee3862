"""The offers that read where the player's Ships are (rules/great_sea/legal.py's helpers): one scan of the map
for the Ships by region and class and the space they take, the room under the Fleet Limit per region, one
Mobilise pip's moves and the start-of-turn move, each built from its check's own tests."""

from __future__ import annotations

from typing import Any

from rules.great_sea.data import CLASSES, board
from rules.great_sea.develop import fleet_used, sizes
from rules.great_sea.map import adjacency, reachable
from rules.great_sea.mobilise import blocked
from rules.great_sea.model import Player, State
from rules.great_sea.upgrades import fort_stats, ship_stats, shipyard_regions

Fleet = dict[tuple[str, str], int]  # (region, class) -> how many of the player's Ships


class Room:
    """The room left under the player's Fleet Limit in each region (None: a home region), read lazily; the
    limit's parts (the Fleet Tile, each Fort class's Fleet icons) are read once, and the space the player's
    Ships take in each region too when the caller has counted it (`used`)."""

    __slots__ = ("regions", "p", "player", "left", "limit", "bonus", "used")

    def __init__(self, d: State, p: Player, player: str, used: dict[str, int] | None = None) -> None:
        self.regions, self.p, self.player, self.used = d["regions"], p, player, used
        self.left: dict[str, int | None] = {}
        self.limit: int = board()["fleet"]["limits"][p["fleet"]]
        self.bonus: dict[str, int] = {}

    def __call__(self, r: str) -> int | None:
        if r in self.left:
            return self.left[r]
        reg = self.regions[r]
        player = self.player
        if reg["home"] == player:
            self.left[r] = None  # develop.fleet_limit: home regions have none
            return None
        lim = self.limit
        for f in reg["forts"]:
            if f[0] == player:
                cls = f[1]
                if cls not in self.bonus:
                    self.bonus[cls] = fort_stats(self.p, cls).get("fleet", 0)
                lim += self.bonus[cls]
        used = self.used
        left = lim - (fleet_used(reg, self.p, player) if used is None else used.get(r, 0))
        self.left[r] = left
        return left


def scan(d: State, player: str, p: Player, movable: bool) -> tuple[Fleet, dict[str, int]]:
    """One pass over the map: the player's undamaged Ships by region and class (`movable`: also not moved
    this action), and the space all their Ships take in each region (develop.fleet_used)."""
    table, stage = sizes(), p["classes"]
    size_of = {c: table[c][stage[c]] for c in CLASSES}
    ships: Fleet = {}
    used: dict[str, int] = {}
    for r, reg in d["regions"].items():
        for s in reg["ships"]:
            if s["owner"] == player:
                cls = s["cls"]
                used[r] = used.get(r, 0) + size_of[cls]
                if not s["damaged"] and not (movable and s["moved"]):
                    k = (r, cls)
                    ships[k] = ships.get(k, 0) + 1
    return ships, used


def move_candidates(
    d: State, player: str, p: Player, scanned: tuple[Fleet, dict[str, int]] | None = None
) -> list[dict[str, Any]]:
    """One pip's moves, built from `mobilise.check_moves`' own tests (an undamaged Ship not yet moved this
    action, a destination within its Speed that is not an opponent's home region, the Fleet Limit there):
    every single-Ship move, and for each region the Ships that can reach it gathered there and the Ships of
    each region sent there together (as many as fit, in map order). Other groups may be sent. `scanned`:
    the caller's `scan` of the map (movable Ships)."""
    out: list[dict[str, Any]] = []
    ships, used = scan(d, player, p, movable=True) if scanned is None else scanned
    if not ships:
        return out
    regions = d["regions"]
    side = d["map"]
    block = blocked(d, player)
    room = Room(d, p, player, used)
    known = room.left
    table, stage = sizes(), p["classes"]
    size_of: dict[str, int] = {}
    base: dict[str, int] = {}
    fort_speed: dict[str, int] = {}
    extra: dict[str, int] = {}
    into: dict[str, list[tuple[str, str, int]]] = {}  # destination -> (from, class, count) that fit alone
    for (r, cls), n in ships.items():
        if r not in extra:
            e = 0
            for f in regions[r]["forts"]:
                if f[0] == player:
                    fc = f[1]
                    if fc not in fort_speed:
                        fort_speed[fc] = fort_stats(p, fc).get("speed", 0)
                    e += fort_speed[fc]
            extra[r] = e
        if cls not in base:
            base[cls] = ship_stats(p, cls).get("speed", 0)
            size_of[cls] = table[cls][stage[cls]]
        need = size_of[cls]
        for dest in reachable(side, r, base[cls] + extra[r], block):
            if dest == r:
                continue
            left = known[dest] if dest in known else room(dest)
            if left is None or need <= left:
                out.append({"type": "move", "region": dest, "moves": [[r, dest, cls]]})
                group = into.get(dest)
                if group is None:
                    into[dest] = [(r, cls, n)]
                else:
                    group.append((r, cls, n))

    def fill(dest: str, group: list[tuple[str, str, int]]) -> list[list[str]]:
        left = known[dest]
        moves = []
        for r, cls, n in group:
            need = size_of[cls]
            for _ in range(n):
                if left is not None:
                    if need > left:
                        break
                    left -= need
                moves.append([r, dest, cls])
        return moves

    for dest, group in into.items():
        if len(group) == 1 and group[0][2] == 1:
            continue
        moves = fill(dest, group)
        if len(moves) > 1:
            out.append({"type": "move", "region": dest, "moves": moves})
        by_source: dict[str, list[tuple[str, str, int]]] = {}
        for g in group:
            if g[0] in by_source:
                by_source[g[0]].append(g)
            else:
                by_source[g[0]] = [g]
        if len(by_source) == 1:
            continue  # sending them out of their one region is the same move
        for src, mine in by_source.items():
            if len(mine) > 1 or mine[0][2] > 1:
                moves = fill(dest, mine)
                if len(moves) > 1:
                    out.append({"type": "move", "region": src, "moves": moves})
    return out


def shipyard_moves(
    d: State, player: str, p: Player, scanned: tuple[Fleet, dict[str, int]] | None = None
) -> list[dict[str, str]]:
    """`start_of_turn.check_shipyard_move`'s moves: 1 undamaged Ship across 1 border, to or from a region
    where the player has a Shipyard for its class, never into an opponent's home, within the Fleet Limit.
    `scanned`: the caller's `scan` of the map (undamaged Ships, moved or not)."""
    ships, used = scan(d, player, p, movable=False) if scanned is None else scanned
    if not ships:
        return []
    regions = d["regions"]
    adj = adjacency(d["map"])
    yards = shipyard_regions(d, player)
    room = Room(d, p, player, used)
    table, stage = sizes(), p["classes"]
    out: list[dict[str, str]] = []
    for r, cls in ships:
        mine = yards[cls]
        here = r in mine
        n = table[cls][stage[cls]]
        for b in adj[r]:
            home = regions[b]["home"]
            if (home is not None and home != player) or not (here or b in mine):
                continue
            left = room(b)
            if left is None or n <= left:
                out.append({"from": r, "to": b, "cls": cls})
    return out
