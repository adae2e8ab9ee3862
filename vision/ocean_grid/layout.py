"""The ocean grid's table layout (`smart-table/table-layout@1`): parsing, validation (errors name the
field) and which square a table point lies in.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from contracts import grid
from vision import fields
from vision.geometry import (
    GeometryError,
    aruco_dictionary,
)

SCHEMA = "smart-table/table-layout@1"
DEFAULT_LAYOUT_PATH = Path(__file__).parent.parent / "data" / "table.json"
GRID_ROWS = grid.ROWS
GRID_COLS = grid.COLS


class LayoutError(ValueError):
    """A table layout that cannot be used; the message names the offending field."""


@dataclass(frozen=True)
class Marker:
    id: int
    corners_mm: np.ndarray  # (4, 2) float32, ArUco order: TL, TR, BR, BL


@dataclass(frozen=True)
class Square:
    id: str
    row: int
    col: int
    polygon_mm: np.ndarray  # (N, 2) float32


@dataclass(frozen=True)
class MarkerSet:
    """A family of markers sharing a dictionary: the Ocean boards' or the ships'."""

    aruco_dictionary: str
    marker_size_mm: float
    ids: dict[str, int]  # name -> marker id
    marker_height_mm: float = 0.0

    def name_of(self, marker_id: int) -> str | None:
        for name, mid in self.ids.items():
            if mid == marker_id:
                return name
        return None


@dataclass(frozen=True)
class TableLayout:
    name: str
    size_mm: tuple[float, float]
    aruco_dictionary: str
    markers: list[Marker]
    harbor_mm: np.ndarray
    squares: list[Square]
    boards: MarkerSet
    ships: MarkerSet
    # Where the board's marker centre sits relative to the square's top-left corner (boards lie in a
    # fixed orientation); the reader looks for it around there.
    board_marker_offset_mm: tuple[float, float] = (27.0, 27.0)
    # Hue range (OpenCV degrees 0-180) and minimum saturation of the Ocean boards' back art.
    back_hue: tuple[float, float] = (128.0, 160.0)
    back_min_saturation: float = 70.0
    raw: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    def square(self, square_id: str) -> Square:
        for sq in self.squares:
            if sq.id == square_id:
                return sq
        raise KeyError(square_id)


def _fail(fieldname: str, what: str) -> LayoutError:
    return LayoutError(f"table layout field '{fieldname}' {what}")


def _number(value: Any, fieldname: str, positive: bool = False) -> float:
    return fields.number(value, fieldname, _fail, positive)


def _points(value: Any, fieldname: str, count: int | None = None, min_count: int = 3) -> np.ndarray:
    arr = fields.points(value, fieldname, _fail, count, min_count).astype(np.float32)
    if abs(cv2.contourArea(arr)) < 1.0:
        raise _fail(fieldname, "encloses no area")
    return arr


def _dictionary(value: Any, fieldname: str) -> str:
    try:
        aruco_dictionary(value)
    except (GeometryError, TypeError):
        raise _fail(
            fieldname, f"must name an OpenCV ArUco dictionary such as DICT_4X4_50, got {value!r}"
        ) from None
    return value


def _marker_set(data: Any, fieldname: str, need_height: bool) -> MarkerSet:
    if not isinstance(data, dict):
        raise _fail(fieldname, "must be an object with aruco_dictionary, marker_size_mm and ids")
    dictionary = _dictionary(data.get("aruco_dictionary"), f"{fieldname}.aruco_dictionary")
    size = _number(data.get("marker_size_mm"), f"{fieldname}.marker_size_mm", positive=True)
    height = 0.0
    if need_height:
        height = _number(data.get("marker_height_mm"), f"{fieldname}.marker_height_mm")
        if height < 0:
            raise _fail(f"{fieldname}.marker_height_mm", "must not be negative")
    ids = data.get("ids")
    if not isinstance(ids, dict) or not ids:
        raise _fail(f"{fieldname}.ids", "must be a non-empty object mapping a name to a marker id")
    limit = _dictionary_size(dictionary)
    seen: dict[int, str] = {}
    clean: dict[str, int] = {}
    for name, mid in ids.items():
        if isinstance(mid, bool) or not isinstance(mid, int) or not 0 <= mid < limit:
            raise _fail(f"{fieldname}.ids.{name}", f"must be a marker id from 0 to {limit - 1}, got {mid!r}")
        if mid in seen:
            raise _fail(f"{fieldname}.ids.{name}", f"reuses marker id {mid} of '{seen[mid]}'")
        seen[mid] = name
        clean[str(name)] = mid
    return MarkerSet(dictionary, size, clean, height)


def _dictionary_size(name: str) -> int:
    return int(name.rsplit("_", 1)[1])


def load_table_layout(source: str | Path | dict[str, Any] | TableLayout) -> TableLayout:
    """Parse and validate a table layout from a path or an already-loaded dict."""
    # A flat list of field checks in the file's order, one error each; split, it would only scatter the
    # schema.
    if isinstance(source, TableLayout):
        return source
    if isinstance(source, (str, Path)):
        path = Path(source)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise LayoutError(f"table layout file {path} does not exist") from None
        except (OSError, UnicodeDecodeError) as exc:
            raise LayoutError(f"table layout file {path} cannot be read: {exc}") from None
        except json.JSONDecodeError as exc:
            raise LayoutError(
                f"table layout file {path} is not valid JSON (line {exc.lineno}: {exc.msg})"
            ) from None
    else:
        data = source
    if not isinstance(data, dict):
        raise LayoutError("table layout must be a JSON object")
    if data.get("schema") != SCHEMA:
        raise _fail("schema", f'must be "{SCHEMA}", got {data.get("schema")!r}')
    name = data.get("name", "table")
    if not isinstance(name, str):
        raise _fail("name", "must be a string")
    size = data.get("size_mm")
    if not isinstance(size, list) or len(size) != 2:
        raise _fail("size_mm", "must be [width, height] in millimetres")
    width = _number(size[0], "size_mm[0]", positive=True)
    height = _number(size[1], "size_mm[1]", positive=True)
    frame_dict = _dictionary(data.get("aruco_dictionary"), "aruco_dictionary")

    raw_markers = data.get("markers")
    if not isinstance(raw_markers, list) or len(raw_markers) < 3:
        raise _fail("markers", "must list at least 3 frame markers around the table (4 or more recommended)")
    markers: list[Marker] = []
    frame_ids: set[int] = set()
    limit = _dictionary_size(frame_dict)
    for i, m in enumerate(raw_markers):
        if not isinstance(m, dict):
            raise _fail(f"markers[{i}]", "must be an object with id and corners_mm")
        mid = m.get("id")
        if isinstance(mid, bool) or not isinstance(mid, int) or not 0 <= mid < limit:
            raise _fail(f"markers[{i}].id", f"must be a marker id from 0 to {limit - 1}, got {mid!r}")
        if mid in frame_ids:
            raise _fail(f"markers[{i}].id", f"repeats marker id {mid}")
        frame_ids.add(mid)
        markers.append(Marker(mid, _points(m.get("corners_mm"), f"markers[{i}].corners_mm", count=4)))

    harbor = data.get("harbor")
    if not isinstance(harbor, dict):
        raise _fail("harbor", "must be an object with polygon_mm")
    harbor_mm = _points(harbor.get("polygon_mm"), "harbor.polygon_mm")

    raw_squares = data.get("squares")
    if not isinstance(raw_squares, list) or len(raw_squares) != GRID_ROWS * GRID_COLS:
        raise _fail("squares", f"must list the {GRID_ROWS * GRID_COLS} squares of the 4x3 ocean grid")
    squares: list[Square] = []
    seen_cells: set[tuple[int, int]] = set()
    for i, s in enumerate(raw_squares):
        if not isinstance(s, dict):
            raise _fail(f"squares[{i}]", "must be an object with id, row, col and polygon_mm")
        row, col = s.get("row"), s.get("col")
        if not isinstance(row, int) or isinstance(row, bool) or not 1 <= row <= GRID_ROWS:
            raise _fail(f"squares[{i}].row", f"must be 1 to {GRID_ROWS}, got {row!r}")
        if not isinstance(col, int) or isinstance(col, bool) or not 1 <= col <= GRID_COLS:
            raise _fail(f"squares[{i}].col", f"must be 1 to {GRID_COLS}, got {col!r}")
        if (row, col) in seen_cells:
            raise _fail(f"squares[{i}]", f"repeats row {row} col {col}")
        seen_cells.add((row, col))
        expected = f"r{row}c{col}"
        if s.get("id") != expected:
            raise _fail(
                f"squares[{i}].id", f'must be "{expected}" for row {row} col {col}, got {s.get("id")!r}'
            )
        squares.append(Square(expected, row, col, _points(s.get("polygon_mm"), f"squares[{i}].polygon_mm")))
    squares.sort(key=lambda sq: (sq.row, sq.col))

    boards = _marker_set(data.get("boards"), "boards", need_height=False)
    ships = _marker_set(data.get("ships"), "ships", need_height=True)
    if ships.aruco_dictionary == frame_dict:
        clash = sorted(frame_ids & set(ships.ids.values()))
        if clash:
            raise _fail("ships.ids", f"reuses frame marker id {clash[0]} of the same dictionary")
    if boards.aruco_dictionary == frame_dict:
        clash = sorted(frame_ids & set(boards.ids.values()))
        if clash:
            raise _fail("boards.ids", f"reuses frame marker id {clash[0]} of the same dictionary")
    if boards.aruco_dictionary == ships.aruco_dictionary:
        clash = sorted(set(boards.ids.values()) & set(ships.ids.values()))
        if clash:
            raise _fail("ships.ids", f"reuses board marker id {clash[0]} of the same dictionary")

    offset = data["boards"].get("marker_offset_mm", [27.0, 27.0])
    if not isinstance(offset, list) or len(offset) != 2:
        raise _fail("boards.marker_offset_mm", "must be [x, y] from the square's top-left corner")
    offset_t = (
        _number(offset[0], "boards.marker_offset_mm[0]"),
        _number(offset[1], "boards.marker_offset_mm[1]"),
    )
    back = data["boards"].get("back", {"hue": [128, 160], "min_saturation": 70})
    if not isinstance(back, dict):
        raise _fail("boards.back", "must be an object with hue [low, high] and min_saturation")
    hue = back.get("hue", [128, 160])
    if not isinstance(hue, list) or len(hue) != 2:
        raise _fail("boards.back.hue", "must be [low, high] in OpenCV hue degrees (0-180)")
    back_hue = (_number(hue[0], "boards.back.hue[0]"), _number(hue[1], "boards.back.hue[1]"))
    back_sat = _number(back.get("min_saturation", 70), "boards.back.min_saturation")

    return TableLayout(
        name=name,
        size_mm=(width, height),
        aruco_dictionary=frame_dict,
        markers=markers,
        harbor_mm=harbor_mm,
        squares=squares,
        boards=boards,
        ships=ships,
        board_marker_offset_mm=offset_t,
        back_hue=back_hue,
        back_min_saturation=back_sat,
        raw=data,
    )


def default_table_layout() -> TableLayout:
    return load_table_layout(DEFAULT_LAYOUT_PATH)


def _signed_distance(poly: np.ndarray, x: float, y: float) -> float:
    return float(cv2.pointPolygonTest(poly.reshape(-1, 1, 2), (float(x), float(y)), True))


def locate(layout: TableLayout, x: float, y: float) -> tuple[str | None, float]:
    """The place ("harbor", "r2c3") a table point lies in and its distance to that place's edge;
    (None, distance to the nearest edge) when it is outside all of them."""
    best: tuple[str | None, float] = (None, -1e9)
    for name, poly in [("harbor", layout.harbor_mm)] + [(sq.id, sq.polygon_mm) for sq in layout.squares]:
        d = _signed_distance(poly, x, y)
        if d >= 0:
            return name, d
        if d > best[1]:
            best = (None, d)
    return best[0], abs(best[1])
