"""The Great Sea's table layout: `smart-table/table-layout@1` with `"game": "great-sea"`, the Main Board
side, its regions as polygons (board millimetres) and the pieces' colours and sizes. Parsing and
validation; every error is one sentence naming the field.

Region ids are the rules engine's (`rules.great_sea.map.spec`): vision reads only the map's ids from the
engine, never a rule.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from contracts import sea_regions as contract
from rules.great_sea.map import spec
from vision import fields
from vision.geometry import GeometryError, aruco_dictionary, polygon_is_simple

DATA = Path(__file__).parent.parent / "data"


def default_layout_path(side: str = "4") -> Path:
    """The shipped layout of one Main Board side (vision/data/great-sea-<side>.json)."""
    return DATA / f"great-sea-{side}.json"


class LayoutError(ValueError):
    """A Great Sea table layout that cannot be used; the message names the offending field."""


@dataclass(frozen=True)
class Marker:
    id: int
    corners_mm: np.ndarray  # (4, 2), ArUco order: TL, TR, BR, BL


@dataclass(frozen=True)
class Region:
    id: str
    polygon_mm: np.ndarray  # (N, 2) float32


@dataclass(frozen=True)
class PieceSize:
    """A piece standing as it does when whole: footprint length and width, height (mm)."""

    length: float
    width: float
    height: float


@dataclass(frozen=True)
class SeaLayout:
    name: str
    side: str
    size_mm: tuple[float, float]
    aruco_dictionary: str
    markers: list[Marker]
    regions: list[Region]
    players: dict[str, tuple[int, int, int]]  # player colour name -> printed colour (B, G, R)
    pieces: dict[str, PieceSize]  # contract.PIECE_KINDS
    raw: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    def region(self, region_id: str) -> Region:
        for r in self.regions:
            if r.id == region_id:
                return r
        raise KeyError(region_id)

    @property
    def map_box_mm(self) -> tuple[float, float, float, float]:
        """x0, y0, x1, y1 around every region."""
        allp = np.concatenate([r.polygon_mm for r in self.regions])
        x0, y0 = allp.min(axis=0)
        x1, y1 = allp.max(axis=0)
        return float(x0), float(y0), float(x1), float(y1)


def _fail(fieldname: str, what: str) -> LayoutError:
    return LayoutError(f"Great Sea table layout field '{fieldname}' {what}")


def _points(value: Any, fieldname: str, count: int | None = None) -> np.ndarray:
    arr = fields.points(value, fieldname, _fail, count, 3).astype(np.float32)
    if abs(cv2.contourArea(arr)) < 1.0:
        raise _fail(fieldname, "encloses no area")
    return arr


def _colour(value: Any, fieldname: str) -> tuple[int, int, int]:
    if not isinstance(value, str) or len(value) != 7 or value[0] != "#":
        raise _fail(fieldname, f'must be a colour "#rrggbb", got {value!r}')
    try:
        r, g, b = (int(value[i : i + 2], 16) for i in (1, 3, 5))
    except ValueError:
        raise _fail(fieldname, f'must be a colour "#rrggbb", got {value!r}') from None
    return (b, g, r)


def _read(source: str | Path) -> Any:
    path = Path(source)
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise LayoutError(f"table layout file {path} does not exist") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise LayoutError(f"table layout file {path} cannot be read: {exc}") from None
    except json.JSONDecodeError as exc:
        raise LayoutError(
            f"table layout file {path} is not valid JSON (line {exc.lineno}: {exc.msg})"
        ) from None


def load_sea_layout(source: str | Path | dict[str, Any] | SeaLayout) -> SeaLayout:
    """Parse and validate a Great Sea table layout from a path or an already-loaded dict."""
    # A flat list of field checks in the file's order, one error each; split, it would scatter the schema.
    if isinstance(source, SeaLayout):
        return source
    data = _read(source) if isinstance(source, (str, Path)) else source
    if not isinstance(data, dict):
        raise LayoutError("table layout must be a JSON object")
    if data.get("schema") != contract.TABLE_LAYOUT_FORMAT:
        raise _fail("schema", f'must be "{contract.TABLE_LAYOUT_FORMAT}", got {data.get("schema")!r}')
    if data.get("game") != contract.GAME:
        raise _fail(
            "game",
            f'must be "{contract.GAME}" for a Great Sea map, got {data.get("game")!r} '
            "(a Dead Reckoning table is read by `smart-table vision ships`)",
        )
    side = data.get("map")
    if side not in contract.SIDES:
        raise _fail("map", f'must be the Main Board side for 2, 3 or 4 players ("2", "3", "4"), got {side!r}')
    name = data.get("name", f"great-sea-{side}")
    if not isinstance(name, str):
        raise _fail("name", "must be a string")
    size = data.get("size_mm")
    if not isinstance(size, list) or len(size) != 2:
        raise _fail("size_mm", "must be [width, height] in millimetres")
    width = fields.number(size[0], "size_mm[0]", _fail, True)
    height = fields.number(size[1], "size_mm[1]", _fail, True)
    dictionary = data.get("aruco_dictionary")
    try:
        aruco_dictionary(dictionary)  # type: ignore[arg-type]
    except (GeometryError, TypeError):
        raise _fail(
            "aruco_dictionary",
            f"must name an OpenCV ArUco dictionary such as DICT_4X4_50, got {dictionary!r}",
        ) from None
    limit = int(str(dictionary).rsplit("_", 1)[1])

    raw_markers = data.get("markers")
    if not isinstance(raw_markers, list) or len(raw_markers) < 3:
        raise _fail("markers", "must list at least 3 frame markers around the map (4 or more recommended)")
    markers: list[Marker] = []
    for i, m in enumerate(raw_markers):
        if not isinstance(m, dict):
            raise _fail(f"markers[{i}]", "must be an object with id and corners_mm")
        mid = m.get("id")
        if isinstance(mid, bool) or not isinstance(mid, int) or not 0 <= mid < limit:
            raise _fail(f"markers[{i}].id", f"must be a marker id from 0 to {limit - 1}, got {mid!r}")
        if any(k.id == mid for k in markers):
            raise _fail(f"markers[{i}].id", f"repeats marker id {mid}")
        markers.append(Marker(mid, _points(m.get("corners_mm"), f"markers[{i}].corners_mm", count=4)))

    engine_ids = list(spec(side)["regions"])
    raw_regions = data.get("regions")
    if not isinstance(raw_regions, list):
        raise _fail("regions", f"must list the {len(engine_ids)} regions of the {side}-player map side")
    regions: list[Region] = []
    for i, r in enumerate(raw_regions):
        if not isinstance(r, dict):
            raise _fail(f"regions[{i}]", "must be an object with id and polygon_mm")
        rid = r.get("id")
        if rid not in engine_ids:
            raise _fail(
                f"regions[{i}].id",
                f"must be a region of the {side}-player map "
                f"({engine_ids[0]} .. {engine_ids[-1]}), got {rid!r}",
            )
        if any(k.id == rid for k in regions):
            raise _fail(f"regions[{i}].id", f"repeats region {rid}")
        poly = _points(r.get("polygon_mm"), f"regions[{i}].polygon_mm")
        if not polygon_is_simple(poly):
            raise _fail(f"regions[{i}].polygon_mm", "crosses itself: list the outline's corners in order")
        regions.append(Region(str(rid), poly))
    missing = [rid for rid in engine_ids if not any(r.id == rid for r in regions)]
    if missing:
        raise _fail(
            "regions", f"misses region {missing[0]} of the {side}-player map ({len(missing)} missing)"
        )
    regions.sort(key=lambda r: engine_ids.index(r.id))

    raw_players = data.get("players")
    if not isinstance(raw_players, dict) or not raw_players:
        raise _fail("players", 'must map each player colour to its pieces\' colour, e.g. {"red": "#b3262e"}')
    players = {str(k): _colour(v, f"players.{k}") for k, v in raw_players.items()}

    raw_pieces = data.get("pieces")
    if not isinstance(raw_pieces, dict):
        raise _fail(
            "pieces", f"must give size_mm [length, width, height] for {', '.join(contract.PIECE_KINDS)}"
        )
    pieces: dict[str, PieceSize] = {}
    for kind in contract.PIECE_KINDS:
        p = raw_pieces.get(kind)
        s = p.get("size_mm") if isinstance(p, dict) else None
        if not isinstance(s, list) or len(s) != 3:
            raise _fail(f"pieces.{kind}.size_mm", "must be [length, width, height] in millimetres")
        vals = [fields.number(v, f"pieces.{kind}.size_mm[{j}]", _fail, True) for j, v in enumerate(s)]
        if vals[1] > vals[0]:
            raise _fail(f"pieces.{kind}.size_mm", "must give the length first (length >= width)")
        pieces[kind] = PieceSize(*vals)
    unknown = sorted(set(raw_pieces) - set(contract.PIECE_KINDS))
    if unknown:
        raise _fail(
            f"pieces.{unknown[0]}", f"is not a piece of The Great Sea ({', '.join(contract.PIECE_KINDS)})"
        )

    return SeaLayout(
        name=name,
        side=side,
        size_mm=(width, height),
        aruco_dictionary=str(dictionary),
        markers=markers,
        regions=regions,
        players=players,
        pieces=pieces,
        raw=data,
    )


def locate(layout: SeaLayout, x: float, y: float) -> tuple[str | None, float]:
    """The region a board point lies in and its distance to that region's edge; (None, distance to the
    nearest edge) outside every region."""
    best = -1e9
    for r in layout.regions:
        d = float(cv2.pointPolygonTest(r.polygon_mm.reshape(-1, 1, 2), (float(x), float(y)), True))
        if d >= 0:
            return r.id, d
        best = max(best, d)
    return None, abs(best)
