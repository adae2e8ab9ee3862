"""Upgrade Tiles (rulebook: "Upgrade Tiles", "Gaining Upgrade Tiles", "Upgrades affect all Ships or Forts of
their Class") as data (rules/data/great_sea/upgrades.json), and the stats of a Ship or Fort class.

A tile is "type:index". Ship tiles cover one part (stern, hull, bow) of a class and replace the icons
printed there; "flipping" turns one to its opposite side (Sterns +1 Shield, Hulls +1 Strength, Bows +1
Mobility). Fort tiles go on a Fort class's grid (`board.json` `fort_grid`): a Large one covers 2
neighbouring spaces, a Small one 1; "Upgrade Tiles may be stacked on top of others here, but they can never
be overhanging the edges of the grid, or placed in a way that they are uneven" (every space under a tile at
the same height) and "players may never cover the starting Health space of each grid". A Fort class's
stats are its printed base plus the icons left visible on its grid (a covered icon, printed or on a tile,
counts no more).
"""

from __future__ import annotations

from functools import cache, lru_cache
from typing import Any

from rules.core.errors import Illegal, Invalid
from rules.great_sea.data import CLASSES, FORTS, PARTS, board, load
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
    Strength (a shared mapping: read it, never write to it)."""
    # by name, never in the dict's order: a state loaded from the game log has its keys sorted
    tiles = p["ship_tiles"][cls]
    stern, hull, bow = (tiles[part] for part in PARTS)
    return _ship_stats(
        cls,
        p["classes"][cls],
        (stern["tile"], stern["flipped"]) if stern else None,
        (hull["tile"], hull["flipped"]) if hull else None,
        (bow["tile"], bow["flipped"]) if bow else None,
    )


@lru_cache(maxsize=4096)
def _ship_stats(cls: str, stage: int, *tiles: tuple[str, bool] | None) -> Stats:
    # cached: a Ship class changes a few times a game and its stats are read for every move and Combat
    spec = board()["ship_classes"][cls]
    out: Stats = {}
    for part, t in zip(PARTS, tiles, strict=True):
        add(out, icons(t[0], t[1]) if t else spec["parts"][part])
    out["strength"] = out.get("strength", 0) + spec["stages"][stage]["strength"]
    return out


def fort_stats(p: Player, cls: str) -> Stats:
    """The stats of one Fort of class `cls`: its printed base and the visible icons of its grid (a shared
    mapping: read it, never write to it)."""
    tiles = p["fort_tiles"][cls]
    if not tiles:
        return _grid_stats(cls, (), ())
    return _grid_stats(cls, tuple(tiles), tuple(map(tuple, p["fort_places"][cls])))


Place = tuple[int, ...]  # (row, col) of a Small tile; (row, col, row2, col2) of a Large one, left half first


@lru_cache(maxsize=4096)
def _grid_stats(cls: str, tiles: tuple[str, ...], places: tuple[Place, ...]) -> Stats:
    # cached: a grid changes a few times a game and its stats are read on every move and Combat
    out: Stats = dict(board()["forts"][cls]["base"])
    for cell in visible_icons(tiles, places).values():
        add(out, cell)
    return out


def visible_icons(tiles: tuple[str, ...], places: tuple[Place, ...]) -> dict[tuple[int, int], Stats]:
    """The icons showing on each grid space: the printed ones, covered by each tile in the order placed."""
    grid = board()["fort_grid"]
    top: dict[tuple[int, int], Stats] = {
        (r, c): grid["printed"][r][c] for r in range(grid["rows"]) for c in range(grid["cols"])
    }
    for tile, place in zip(tiles, places, strict=True):
        for cell, half in zip(cells(place), halves(tile), strict=True):
            top[cell] = half
    return top


def halves(tile: str) -> list[Stats]:
    t, i = tile.split(":")
    h: list[Stats] = tile_types()[t]["tiles"][int(i)]["halves"]
    return h


def cells(place: Place) -> list[tuple[int, int]]:
    return [(place[0], place[1])] + ([(place[2], place[3])] if len(place) == 4 else [])


def heights(p: Player, cls: str) -> dict[tuple[int, int], int]:
    h: dict[tuple[int, int], int] = {}
    for place in p["fort_places"][cls]:
        for cell in cells(tuple(place)):
            h[cell] = h.get(cell, 0) + 1
    return h


def fort_place_problem(p: Player, cls: str, tile: str, place: object) -> str | None:
    """Why `place` cannot take `tile` on the `cls` grid (None: it can)."""
    n = len(halves(tile))
    if (
        not isinstance(place, list | tuple)
        or len(place) != 2 * n
        or not all(isinstance(x, int) and not isinstance(x, bool) for x in place)
    ):
        shape = "[row, col, row2, col2] (its left half first)" if n == 2 else "[row, col]"
        return f"say where the tile goes on your {cls} grid: place {shape}."
    grid = board()["fort_grid"]
    cs = cells(tuple(place))
    if any(not (0 <= r < grid["rows"] and 0 <= c < grid["cols"]) for r, c in cs):
        return "Fort Upgrade Tiles can never be overhanging the edges of the grid."
    if n == 2 and abs(cs[0][0] - cs[1][0]) + abs(cs[0][1] - cs[1][1]) != 1:
        return "a Large Fort Upgrade Tile covers 2 neighbouring spaces of the grid."
    if any(list(c) in grid["locked"] for c in cs):
        return "players may never cover the starting Health space of each grid."
    h = heights(p, cls)
    if len({h.get(c, 0) for c in cs}) > 1:
        return "a Fort Upgrade Tile may not be placed uneven (hanging off the edge of other Upgrade Tiles)."
    return None


def fort_places_for(p: Player, cls: str, tile: str) -> list[list[int]]:
    """Every legal place of `tile` on the `cls` grid, those covering fewer visible icons first (then the
    lowest, then in reading order): the first is the engine's default when the player names none."""
    places = _places(len(halves(tile)), tuple(p["fort_tiles"][cls]), tuple(map(tuple, p["fort_places"][cls])))
    return [list(pl) for pl in places]


def fort_room(p: Player, cls: str, n: int) -> bool:
    """Whether the `cls` grid has a place left for a tile of `n` spaces (`fort_places_for` is not empty)."""
    tiles = p["fort_tiles"][cls]
    if not tiles:
        return bool(_places(n, (), ()))
    return bool(_places(n, tuple(tiles), tuple(map(tuple, p["fort_places"][cls]))))


@lru_cache(maxsize=1024)
def _places(n: int, tiles: tuple[str, ...], placed: tuple[Place, ...]) -> tuple[Place, ...]:
    # cached like `_grid_stats`: the same grid is asked about at every Research offer
    grid = board()["fort_grid"]
    rows, cols = grid["rows"], grid["cols"]
    locked = {(r, c) for r, c in grid["locked"]}
    h: dict[tuple[int, int], int] = {}
    for place in placed:
        for cell in cells(place):
            h[cell] = h.get(cell, 0) + 1
    vis = visible_icons(tiles, placed)
    ok: list[Place] = []
    for r in range(rows):
        for c in range(cols):
            if (r, c) in locked:
                continue
            if n == 1:
                ok.append((r, c))
                continue
            for r2, c2 in ((r, c + 1), (r + 1, c), (r, c - 1), (r - 1, c)):
                if 0 <= r2 < rows and 0 <= c2 < cols and (r2, c2) not in locked:
                    if h.get((r, c), 0) == h.get((r2, c2), 0):
                        ok.append((r, c, r2, c2))
    ok.sort(key=lambda pl: (sum(bool(vis[x]) for x in cells(pl)), h.get((pl[0], pl[1]), 0)))
    return tuple(ok)


def check_fort_tile(p: Player, cls: object, pile: str, place: object) -> tuple[str, list[int]]:
    """The Fort class and the place a tile of `pile` goes to (the first of `fort_places_for` when the player
    names none); Invalid or Illegal with the reason otherwise."""
    if cls not in FORTS:
        raise Invalid("a Fort Upgrade Tile goes on a Fort grid: say fort 'stronghold' or 'outpost'.")
    fort = str(cls)
    sample = pile + ":0"  # every tile of a type has the same size
    if place is None:
        ok = fort_places_for(p, fort, sample)
        if not ok:
            raise Illegal(f"your {fort} grid has no even place left for this tile.")
        return fort, ok[0]
    why = fort_place_problem(p, fort, sample, place)
    if why is not None:
        raise (Invalid if why.startswith("say") else Illegal)(why)
    assert isinstance(place, list | tuple)
    return fort, [int(x) for x in place]


def place_fort_tile(p: Player, cls: str, tile: str, place: list[int]) -> None:
    p["fort_tiles"][cls] = [*p["fort_tiles"][cls], tile]
    p["fort_places"][cls] = [*p["fort_places"][cls], list(place)]


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


def shipyard_regions(d: State, color: str) -> dict[str, set[str]]:
    """`is_shipyard` for every region and class at once: class -> the regions with the player's Shipyard.
    The classes' Shipyard icons are read only once a region with the player's Fort is found."""
    p = d["p"][color]
    out: dict[str, set[str]] = {c: set() for c in CLASSES}
    fort_yard: set[str] | None = None
    ship_yard: tuple[str, ...] | None = None
    for r, reg in d["regions"].items():
        if reg["home"] == color:
            for c in CLASSES:
                out[c].add(r)
            continue
        forts = reg["forts"]
        if not forts:
            continue
        mine = yard = stronghold = False
        for owner, cls in forts:
            if owner == color:
                mine = True
                if fort_yard is None:
                    fort_yard = {f for f in FORTS if fort_stats(p, f).get("shipyard", 0)}
                if cls in fort_yard:
                    yard = True
                if cls == "stronghold":
                    stronghold = True
        if not mine:
            continue
        if yard:
            classes: tuple[str, ...] = CLASSES
        elif stronghold:
            if ship_yard is None:
                ship_yard = tuple(c for c in CLASSES if ship_stats(p, c).get("shipyard", 0))
            classes = ship_yard
        else:
            continue
        for c in classes:
            out[c].add(r)
    return out


def shipyards(d: State, color: str, cls: str) -> list[str]:
    p = d["p"][color]
    return [r for r, reg in d["regions"].items() if is_shipyard(reg, p, color, cls)]


@cache
def pile_table() -> dict[str, tuple[str, int]]:
    """Each Pile's grid row and how many grid spaces its tiles cover (2 Large, 1 Small; 0: a Ship tile)."""
    return {
        t: (v["row"], len(v["tiles"][0].get("halves", ())) if v["row"] in ("fort", "small_fort") else 0)
        for t, v in tile_types().items()
    }


@cache
def shipyard_tiles() -> frozenset[str]:
    """The tiles showing a Shipyard icon faceup (they cost 1 Coin less)."""
    return frozenset(
        f"{t}:{i}"
        for t, v in tile_types().items()
        for i, x in enumerate(v["tiles"])
        if x["icons"].get("shipyard")
    )


def tile_cost(d: State, pile: str) -> int:
    """The column's Coin cost (5, 4, 3 from the left; 2 for the Small Fort Pile), 1 fewer for a tile with a
    Shipyard icon."""
    b = board()
    row = pile_table()[pile][0]
    if row == "small_fort":
        cost: int = b["small_fort_cost"]
    else:
        cost = b["upgrade_columns"][d["rows"][row].index(pile)]
    tiles = d["piles"][pile]
    if tiles and tiles[0] in shipyard_tiles():
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
