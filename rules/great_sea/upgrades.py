"""Upgrade Tiles (rulebook: "Upgrade Tiles", "Gaining Upgrade Tiles", "Upgrades affect all Ships or Forts of
their Class") as data (rules/data/great_sea/upgrades.json), and the stats of a Ship or Fort class.

A tile is "type:index". Ship tiles cover one part (stern, hull, bow) of a class and replace the icons
printed there; "flipping" turns one to its opposite side (Sterns +1 Shield, Hulls +1 Strength, Bows +1
Mobility). Fort tiles stack on a Fort class's grid and add their icons; the grid geometry (overhang, the
starting Health space) is not modelled (docs/great-sea.md).
"""

from __future__ import annotations

from functools import cache
from typing import Any

from rules.great_sea.data import PARTS, board, load
from rules.great_sea.model import Player, Region, State, Stats


@cache
def tile_types() -> dict[str, dict[str, Any]]:
    types: dict[str, dict[str, Any]] = load("upgrades.json")["types"]
    return types


def tile_row(tile: str) -> str:
    row: str = tile_types()[tile.split(":")[0]]["row"]
    return row


def icons(tile: str, flipped: bool = False) -> Stats:
    t, i = tile.split(":")
    spec = tile_types()[t]["tiles"][int(i)]
    out: Stats = spec["flipped"] if flipped and "flipped" in spec else spec["icons"]
    return out


def add(into: Stats, more: Stats, k: int = 1) -> None:
    for key, v in more.items():
        into[key] = into.get(key, 0) + k * v


def ship_stats(p: Player, cls: str) -> Stats:
    """All icons of one Ship of class `cls`: its three parts (tile or printed) and its Class Tile's
    Strength."""
    spec = board()["ship_classes"][cls]
    out: Stats = {}
    for part in PARTS:
        t = p["ship_tiles"][cls][part]
        add(out, icons(t["tile"], t["flipped"]) if t else spec["parts"][part])
    out["strength"] = out.get("strength", 0) + spec["stages"][p["classes"][cls]]["strength"]
    return out


def fort_stats(p: Player, cls: str) -> Stats:
    out: Stats = dict(board()["forts"][cls]["base"])
    for t in p["fort_tiles"][cls]:
        add(out, icons(t))
    return out


def is_shipyard(reg: Region, p: Player, color: str, cls: str) -> bool:
    """Home regions have a Shipyard; a Ship tile with a Shipyard icon lets that class use Strongholds as
    Shipyards, a Fort tile with one makes that Fort class a Shipyard for every class."""
    if reg["home"] == color:
        return True
    mine = {f[1] for f in reg["forts"] if f[0] == color}
    if not mine:
        return False
    if "stronghold" in mine and ship_stats(p, cls).get("shipyard", 0):
        return True
    return any(fort_stats(p, f).get("shipyard", 0) for f in mine)


def shipyards(d: State, color: str, cls: str) -> list[str]:
    p = d["p"][color]
    return [r for r, reg in d["regions"].items() if is_shipyard(reg, p, color, cls)]


def tile_cost(d: State, pile: str) -> int:
    """The column's Coin cost (5, 4, 3 from the left; 2 for the Small Fort Pile), 1 fewer for a tile with a
    Shipyard icon."""
    b = board()
    tiles = d["piles"][pile]
    row: str = tile_types()[pile]["row"]
    if row == "small_fort":
        cost: int = b["small_fort_cost"]
    else:
        cost = b["upgrade_columns"][d["rows"][row].index(pile)]
    if tiles and icons(tiles[0]).get("shipyard", 0):
        cost -= 1
    return cost


def top(d: State, pile: str) -> str | None:
    tiles = d["piles"][pile]
    if not tiles:
        # "Should a Pile ever run out, shuffle any discards of that type to form a new Pile"
        if d["discards"].get(pile):
            tiles.extend(d["discards"][pile])
            d["discards"][pile] = []
    return tiles[0] if tiles else None


def take(d: State, pile: str) -> str:
    """Take the top tile and move the Pile to the far left of its row ("the entire Pile ... is moved to the
    far left of its row in the grid"; the others slide right)."""
    tile = d["piles"][pile].pop(0)
    for row in d["rows"].values():
        if pile in row:
            row.remove(pile)
            row.insert(0, pile)
    return tile


def place_ship_tile(p: Player, cls: str, tile: str) -> str | None:
    """Cover the tile's part of class `cls`; returns a covered tile (removed from the game)."""
    part = tile_row(tile)
    old = p["ship_tiles"][cls][part]
    p["ship_tiles"][cls][part] = {"tile": tile, "flipped": False}
    return old["tile"] if old else None
