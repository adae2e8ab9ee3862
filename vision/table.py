"""The table layout (Harbor, the 3x4 ocean grid, frame markers, board and ship markers) and the reading
of a table image into "which Ocean board lies face up on which square, and where each ship stands".

Owns: `smart-table/table-layout@1` parsing and validation (errors name the field), `read_table`.
Must not: know the rules (no movement, no exploration logic) or import `rules`.
The JSON it returns is the `smart-table vision ships` contract (docs/table-layout.md).
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
    CameraPose,
    GeometryError,
    apply_homography,
    aruco_dictionary,
    default_intrinsics,
    fit_homography,
    merge_boxes,
    parallax_to_footprint,
    pose_from_points,
    undistort_pixels,
)

SCHEMA = "smart-table/table-layout@1"
DEFAULT_LAYOUT_PATH = Path(__file__).with_name("data") / "table.json"
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


# --- reading a frame ----------------------------------------------------------------------------

# A ship's mast foot within this distance of a square's edge is not placed (a guess either way).
EDGE_MARGIN_MM = 6.0
# A ship marker read at its height must measure its printed size within this fraction.
SIZE_TOLERANCE = 0.22
# Fraction of the board-marker patch that must look like the back art to call a board face down.
BACK_FRACTION = 0.8
# Replicated edge (px) around each board-marker crop: the detector drops candidates near a crop's border
# (3 px); 8 px also gives every crop pixel the adaptive threshold (13 px window) it had with 24, cheaper.
PAD = 8
# Share of the frame's samples covered (coloured or dark) above which an arm is over the table.
FRAME_COVERED = 0.008
# A board marker's (and, in the second look, a ship marker's) outline must measure this fraction of its
# expected perimeter in px (from the table homography), smallest to largest: tilt, lens distortion, a
# ship marker's height and a board lying a little off its spot stay well inside.
BOARD_PERIMETER_RANGE = (0.6, 1.6)
# Largest mean corner error (px) of the frame markers against one homography before it is refused.
MAX_FRAME_ERROR_PX = 4.0


@dataclass
class TableReading:
    """One frame's reading; `to_json()` is the `vision ships` contract, the rest is for diagnostics."""

    status: str
    boards: list[dict[str, Any]]
    ships: list[dict[str, Any]]
    reason: str | None = None
    homography: np.ndarray | None = None  # table mm -> ideal image px
    pose: CameraPose | None = None
    ship_positions_mm: dict[str, list[float]] = field(default_factory=dict)
    occluded: bool = False  # an arm or a hand crosses the table's frame (the live gate pauses)
    timings_ms: dict[str, float] = field(default_factory=dict)
    frame_ids: tuple[int, ...] = ()  # the frame markers the homography was fitted to

    def to_json(self) -> dict[str, Any]:
        return {"status": self.status, "boards": self.boards, "ships": self.ships}


_DETECTORS: dict[tuple[str, str], cv2.aruco.ArucoDetector] = {}
# The full-frame pass's marker perimeter limits, as rates of the frame's larger side.
_FRAME_PERIMETER_RATES = (0.03, 0.3)
# The half-size pass's smallest outline (rate of its larger side; 0.03 there is the full-frame pass's
# limit): the many small contours of the art cost ~17 % of that pass, and the few small tilted ship
# markers it then misses (3 of 842 markers in 160 scenes) are found by the second look at full size.
_COARSE_MIN_PERIMETER_RATE = 0.036
# Margin (mm) around the table's outline when the marker pass reuses the previous frame's registration.
LIVE_MARGIN_MM = 30.0


def _table_box(H: np.ndarray | None, layout: TableLayout, w: int, h: int) -> tuple[int, int, int, int] | None:
    """The table's outline under homography H, widened by LIVE_MARGIN_MM and 16 px, as a pixel box
    (x0, y0, x1, y1) clipped to the frame; None without H or when the box is degenerate."""
    if H is None:
        return None
    W, Ht = layout.size_mm
    m = LIVE_MARGIN_MM
    box = apply_homography(H, np.array([[-m, -m], [W + m, -m], [W + m, Ht + m], [-m, Ht + m]]))
    if not np.all(np.isfinite(box)):
        return None
    x0, y0 = (max(0, int(v) - 16) for v in np.floor(box.min(axis=0)))
    x1, y1 = min(w, int(np.ceil(box[:, 0].max())) + 16), min(h, int(np.ceil(box[:, 1].max())) + 16)
    if x1 - x0 < 64 or y1 - y0 < 64:
        return None
    return x0, y0, x1, y1


def _detector(dictionary_name: str, kind: str) -> cv2.aruco.ArucoDetector:
    """Detectors tuned for speed: one adaptive-threshold window (the research notes: each extra window
    costs a full pass), a minimum perimeter that still admits a 25 mm ship marker at 1 px/mm."""
    key = (dictionary_name, kind)
    det = _DETECTORS.get(key)
    if det is None:
        # "frame-crop": the frame detector for a crop; its perimeter rates are set per call, so it
        # is a separate object and the full-frame detector keeps its own.
        # "fine": the same for the strip of full-resolution crops around half-size candidates;
        # "coarse-crop": the half-size detector for the table's outline (live mode).
        kind = {"frame-crop": "frame", "fine": "frame", "coarse-crop": "coarse"}.get(kind, kind)
        p = cv2.aruco.DetectorParameters()
        # "retry": a small window keeps a thin quiet zone white when dark art touches a ship's plate.
        p.adaptiveThreshWinSizeMin = 7 if kind == "retry" else 13
        p.adaptiveThreshWinSizeMax = 7 if kind == "retry" else 13
        p.adaptiveThreshWinSizeStep = 10
        if kind == "coarse":
            # The half-size look of the full-frame pass: the smallest window keeps the thin white plate
            # of a small ship marker apart from dark art (7 px, the 13 px window's size there, loses
            # 5 % of the ship markers; 3 px loses none of them in 40 scenes and is no slower).
            p.adaptiveThreshWinSizeMin = p.adaptiveThreshWinSizeMax = 3
        # (Rates are of the image's larger side; the boards' strip of crops is long and thin.)
        p.minMarkerPerimeterRate = {
            "frame": _FRAME_PERIMETER_RATES[0],
            "coarse": _COARSE_MIN_PERIMETER_RATE,
            "retry": 0.04,
        }.get(kind, 0.02)
        p.maxMarkerPerimeterRate = {
            "frame": _FRAME_PERIMETER_RATES[1],
            "coarse": _FRAME_PERIMETER_RATES[1],
            "retry": 0.5,
        }.get(kind, 4.0)
        # More samples per bit: a 25 mm ship marker can be ~20 px in a tilted view.
        p.perspectiveRemovePixelPerCell = 8
        p.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
        p.cornerRefinementWinSize = 3
        if kind == "coarse":  # its corners only place the full-resolution crops
            p.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_NONE
        # Fewer corrected bits for the ships: a misread id would put a ship on a wrong square. Board
        # markers are small and often soft, and a misread there is caught (only known ids, only at the
        # marker's place, never two squares with one board).
        p.errorCorrectionRate = 0.6 if kind == "board" else 0.3
        det = cv2.aruco.ArucoDetector(aruco_dictionary(dictionary_name), p)
        _DETECTORS[key] = det
    return det


def _detect(
    gray: np.ndarray, dictionary_name: str, kind: str, perimeter_rates: tuple[float, float] | None = None
) -> dict[int, list[np.ndarray]]:
    """Markers of one dictionary; `perimeter_rates` (min, max, of the image's larger side) replace the
    detector's own limits for this call when the marker's size in pixels is known."""
    det = _detector(dictionary_name, kind)
    if perimeter_rates is not None:
        p = det.getDetectorParameters()
        p.minMarkerPerimeterRate, p.maxMarkerPerimeterRate = perimeter_rates
        det.setDetectorParameters(p)
    corners, ids, _ = det.detectMarkers(gray)
    found: dict[int, list[np.ndarray]] = {}
    if ids is not None:
        for c, i in zip(corners, ids.reshape(-1), strict=True):
            found.setdefault(int(i), []).append(c.reshape(4, 2).astype(np.float64))
    return found


# Margin (px, full resolution) around a half-size candidate's box for its full-resolution look: the
# adaptive threshold's window (13 px), the detector's border distance (3 px) and the half-size corners'
# error (up to ~4 px) stay inside, so a marker found there gets exactly the full-frame pass's corners.
COARSE_MARGIN_PX = 32
# ... and at least this fraction of the candidate's perimeter: the crop's own edge is an outline too,
# and the detector merges outlines whose corners lie within 0.125 perimeters of each other (keeping the
# crop's, which then fails to decode).
COARSE_MARGIN_RATE = 0.15


def _coarse_to_fine(
    gray: np.ndarray, layout: TableLayout, in_play: set[str], box: tuple[int, int, int, int] | None = None
) -> dict[int, list[np.ndarray]] | None:
    """The full-frame marker pass (frame markers and ships, one dictionary) at about half its cost:
    candidates are found and decoded on an exact half-size copy; the frame markers found there get
    their corners refined at full resolution; every ship marker decoded there, every outline of a ship
    marker's size that failed to decode there (small markers often do; only while a ship in play is not
    decoded at half size: the same rule as the second look), and every frame marker the half-size pass
    missed, where the rough table homography puts it, are read again at full resolution, in crops laid
    side by side (one detector call with the full-frame pass's parameters and perimeter limits in px):
    a marker found there has the corners the full-frame pass would give it. None (the caller runs the
    full-frame pass) when the half-size pass does not find 3 frame markers spanning the table, or when
    the ships use another dictionary.

    `box` (x0, y0, x1, y1; live mode: the table's outline in the previous frame) limits the half-size
    pass to that part of the frame; its half-size pixels are the whole frame's there."""
    if layout.ships.aruco_dictionary != layout.aruco_dictionary:
        return None
    h, w = gray.shape[:2]
    x0, y0, x1, y1 = (0, 0, w, h) if box is None else box
    x0, y0 = x0 - x0 % 2, y0 - y0 % 2
    hh, hw = (y1 - y0) // 2, (x1 - x0) // 2
    if hh < 64 or hw < 64:
        return None
    # Exactly half (even size and origin): INTER_AREA then averages 2x2 blocks, its fast path.
    half = cv2.resize(gray[y0 : y0 + 2 * hh, x0 : x0 + 2 * hw], (hw, hh), interpolation=cv2.INTER_AREA)
    if box is None:
        det = _detector(layout.aruco_dictionary, "coarse")
    else:
        # The whole frame's perimeter limits in px, as rates of this image's larger side (a detector
        # of its own: changing a detector's parameters makes its next call slower).
        det = _detector(layout.aruco_dictionary, "coarse-crop")
        scale = max(w // 2, h // 2) / float(max(hw, hh))
        p = det.getDetectorParameters()
        p.minMarkerPerimeterRate = _COARSE_MIN_PERIMETER_RATE * scale
        p.maxMarkerPerimeterRate = _FRAME_PERIMETER_RATES[1] * scale
        det.setDetectorParameters(p)
    corners, ids, rejected = det.detectMarkers(half)
    # Half-size px -> full px (pixel centres: half pixel i covers full pixels 2i and 2i+1).
    origin = np.array([x0 + 0.5, y0 + 0.5])
    quads: dict[int, list[np.ndarray]] = {}
    if ids is not None:
        for c, i in zip(corners, ids.reshape(-1), strict=True):
            quads.setdefault(int(i), []).append(c.reshape(4, 2).astype(np.float64) * 2 + origin)
    frame = [(m, quads[m.id][0]) for m in layout.markers if len(quads.get(m.id, [])) == 1]
    if not _spread_ok(layout, [m for m, _ in frame]):
        return None
    try:
        H = fit_homography(
            np.concatenate([m.corners_mm for m, _ in frame]), np.concatenate([q for _, q in frame])
        )
        Hinv = np.linalg.inv(H)
    except (GeometryError, np.linalg.LinAlgError):
        return None
    # Frame markers decoded at half size keep that id (a misread one disagrees with the others and the
    # homography fit drops it) and their half-size corners: the caller settles every frame marker's
    # corners at full resolution (`_settle_corners`). The ships are read again at full resolution (a
    # misread id there would put a ship on a wrong square).
    found: dict[int, list[np.ndarray]] = {m.id: [q] for m, q in frame}
    frame_ids = {m.id for m in layout.markers}
    ship_ids = set(layout.ships.ids.values())
    boxes: list[np.ndarray] = [q for mid, qs in quads.items() if mid in ship_ids for q in qs]
    boxes += [q for mid, qs in quads.items() if mid in frame_ids and len(qs) > 1 for q in qs]
    boxes += [apply_homography(H, m.corners_mm) for m in layout.markers if m.id not in quads]
    unseen = [mid for name, mid in layout.ships.ids.items() if name in in_play and mid not in quads]
    if unseen and len(rejected):
        # Undecoded outlines of a ship marker's size (0.6-1.6x the perimeter the homography predicts
        # where they lie) on or near the table.
        W, Ht = layout.size_mm
        rq = np.array(rejected, dtype=np.float64).reshape(-1, 4, 2) * 2 + origin
        per = _perimeters(rq)
        where = apply_homography(Hinv, rq.mean(axis=1))
        half_mm = layout.ships.marker_size_mm / 2
        sq = (where[:, None, :] + half_mm * np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]])).reshape(-1, 2)
        expect = _perimeters(apply_homography(H, sq).reshape(-1, 4, 2))
        keep = (
            (where[:, 0] >= -40.0)
            & (where[:, 0] <= W + 40.0)
            & (where[:, 1] >= -40.0)
            & (where[:, 1] <= Ht + 40.0)
            & (per >= BOARD_PERIMETER_RANGE[0] * expect)
            & (per <= BOARD_PERIMETER_RANGE[1] * expect)
        )
        boxes += list(rq[keep])
    # Pixel boxes around the candidates, merged where they overlap (a marker must not be found twice).
    raw: list[list[int]] = []
    if boxes:
        qs = np.array(boxes, dtype=np.float64).reshape(-1, 4, 2)
        qs = qs[np.isfinite(qs).all(axis=(1, 2))]
        m = np.maximum(COARSE_MARGIN_PX, np.ceil(COARSE_MARGIN_RATE * _perimeters(qs)))[:, None]
        lo = np.maximum(np.floor(qs.min(axis=1)) - m, 0).astype(int)
        hi = np.minimum(np.ceil(qs.max(axis=1)) + m + 1, [w, h]).astype(int)
        ok = ((hi - lo) >= 16).all(axis=1)
        raw = np.concatenate([lo, hi], axis=1)[ok].tolist()
    rects = merge_boxes([(x0, y0, x1, y1) for x0, y0, x1, y1 in raw])
    if not rects:
        return found
    crops = [gray[y0:y1, x0:x1] for x0, y0, x1, y1 in rects]
    tall = max(c.shape[0] for c in crops)
    # Shorter crops padded with plain white: a replicated edge draws streaks that cost contours.
    strip = np.hstack(
        [cv2.copyMakeBorder(c, 0, tall - c.shape[0], 0, 0, cv2.BORDER_CONSTANT, value=255) for c in crops]
    )
    starts = np.cumsum([0] + [c.shape[1] for c in crops])
    side = float(max(strip.shape[:2]))
    full = float(max(w, h))
    rates = (_FRAME_PERIMETER_RATES[0] * full / side, _FRAME_PERIMETER_RATES[1] * full / side)
    border = _detector(layout.aruco_dictionary, "frame").getDetectorParameters().minDistanceToBorder
    for mid, strip_qs in _detect(strip, layout.aruco_dictionary, "fine", rates).items():
        for strip_q in strip_qs:
            k = int(np.searchsorted(starts, strip_q[:, 0].mean(), side="right")) - 1
            x0, y0 = rects[k][0], rects[k][1]
            q = strip_q + np.array([x0 - starts[k], y0], dtype=np.float64)
            # As the full-frame pass: nothing touching the frame's edge (a crop's edge is not one).
            if q.min() < border or np.any(q.max(axis=0) > np.array([w - 1 - border, h - 1 - border])):
                continue
            # A frame marker kept from the half-size pass, met again in an outline's crop: one marker.
            if any(np.linalg.norm(o.mean(axis=0) - q.mean(axis=0)) < 8.0 for o in found.get(mid, [])):
                continue
            found.setdefault(mid, []).append(q)
    return found


def _settle_corners(gray: np.ndarray, quads: list[np.ndarray]) -> list[np.ndarray]:
    """Frame markers' corners moved to the fixed point of OpenCV's sub-pixel corner search (7x7
    window, as the detector's own refinement) at full resolution: from the detector's corners or from
    the half-size pass's (up to ~4 px off) each lands within 0.001 px of the same place, so a cold and
    a live reading of one frame fit the same homography. (One call for all: each corner is searched
    on its own.)"""
    if not quads:
        return []
    pts = cv2.cornerSubPix(
        gray,
        np.concatenate(quads).astype(np.float32).reshape(-1, 1, 2),
        (3, 3),
        (-1, -1),
        (cv2.TERM_CRITERIA_MAX_ITER | cv2.TERM_CRITERIA_EPS, 100, 1e-4),
    )
    return list(pts.reshape(-1, 4, 2).astype(np.float64))


def _perimeters(quads: np.ndarray) -> np.ndarray:
    """Perimeters of (N, 4, 2) quads."""
    return np.linalg.norm(quads - quads[:, [1, 2, 3, 0]], axis=2).sum(axis=1)


def _perimeter_px(H: np.ndarray, center_mm: tuple[float, float], size_mm: float) -> float:
    """Perimeter in px of a size_mm square lying on the table at center_mm, as the homography draws it."""
    x, y, half = center_mm[0], center_mm[1], size_mm / 2
    quad = apply_homography(
        H, np.array([[x - half, y - half], [x + half, y - half], [x + half, y + half], [x - half, y + half]])
    )
    return float(np.linalg.norm(quad - np.roll(quad, -1, axis=0), axis=1).sum())


def _camera_matrices(camera: Any, width: int, height: int) -> tuple[np.ndarray | None, np.ndarray | None]:
    """K and distortion for this frame size from a camera file (`smart-table calibrate camera`: a path,
    its dict or a `vision.camera.CameraModel`), or (None, None) without one."""
    if camera is None:
        return None, None
    from vision.camera import CameraModel  # raises vision.camera.CameraError on a bad file

    model = CameraModel.load(camera).scaled_to(width, height)
    return model.K, model.dist


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


_SPREAD: dict[tuple[int, tuple[int, ...]], bool] = {}


def _spread_ok(layout: TableLayout, markers: list[Marker]) -> bool:
    """At least 3 frame markers whose centres span a triangle of a tenth of the table's area or more."""
    if len(markers) < 3:
        return False
    key = (id(layout), tuple(m.id for m in markers))
    ok = _SPREAD.get(key)
    if ok is None:
        centres = np.array([m.corners_mm.mean(axis=0) for m in markers], dtype=np.float32)
        area = float(cv2.contourArea(cv2.convexHull(centres)))
        ok = _SPREAD[key] = area >= 0.1 * layout.size_mm[0] * layout.size_mm[1]
    return ok


_FRAME_SAMPLES: dict[int, np.ndarray] = {}


def _frame_samples(layout: TableLayout) -> np.ndarray:
    """Table points on the plain frame (outside the Harbor, the squares and the markers): the white
    reference for white balance."""
    key = id(layout)
    pts = _FRAME_SAMPLES.get(key)
    if pts is None:
        W, H = layout.size_mm
        xs, ys = np.meshgrid(np.arange(5, W - 4, 14.0), np.arange(5, H - 4, 14.0))
        cand = np.stack([xs.ravel(), ys.ravel()], axis=1)
        keep = []
        polys = (
            [layout.harbor_mm]
            + [sq.polygon_mm for sq in layout.squares]
            + [m.corners_mm for m in layout.markers]
        )
        for x, y in cand:
            if all(_signed_distance(p, x, y) < -8.0 for p in polys):
                keep.append((x, y))
        pts = np.array(keep, dtype=np.float64).reshape(-1, 2)
        _FRAME_SAMPLES[key] = pts
    return pts


def _max3(a: np.ndarray) -> np.ndarray:
    """Largest of the last axis's 3 channels (numpy's max over a length-3 axis is several times slower)."""
    return np.maximum(np.maximum(a[..., 0], a[..., 1]), a[..., 2])


def _min3(a: np.ndarray) -> np.ndarray:
    return np.minimum(np.minimum(a[..., 0], a[..., 1]), a[..., 2])


def _frame_colour(image: np.ndarray, layout: TableLayout, H: np.ndarray) -> tuple[np.ndarray, float]:
    """Look at the plain white frame around the table: per-channel gains that make it neutral (median
    over unclipped samples), and the share of its samples covered by something coloured or dark: an arm
    reaching over the table crosses the frame, a ship never stands on it."""
    pts = _frame_samples(layout)
    if len(pts) < 10:
        return np.ones(3), 0.0
    px = np.round(apply_homography(H, pts)).astype(int)
    h, w = image.shape[:2]
    ok = (px[:, 0] >= 0) & (px[:, 0] < w) & (px[:, 1] >= 0) & (px[:, 1] < h)
    vals = image[px[ok, 1], px[ok, 0]].astype(np.float64)
    if len(vals) < 10:
        return np.ones(3), 0.0
    bright = _max3(vals)
    spread = bright - _min3(vals)
    white = (bright < 250) & (bright > 60) & (spread < 0.35 * bright)  # not glare, not a hand or shadow
    if white.sum() < 10:
        return np.ones(3), 1.0
    med = np.median(vals[white], axis=0)
    gains = med.mean() / np.maximum(med, 1.0)
    balanced = vals * gains
    b_bright = _max3(balanced)
    b_spread = b_bright - _min3(balanced)
    level = float(np.median(b_bright[white]))
    covered = (b_spread > 0.22 * np.maximum(b_bright, 1.0)) | (b_bright < 0.45 * level)
    return gains, float(covered.mean())


def _white_gains(image: np.ndarray, layout: TableLayout, H: np.ndarray) -> np.ndarray:
    return _frame_colour(image, layout, H)[0]


def _patch(
    image: np.ndarray, H: np.ndarray, center_mm: tuple[float, float], half_mm: float, n: int = 24
) -> np.ndarray:
    """A small n x n top-down colour patch of the table around `center_mm` (only n*n pixels are warped)."""
    step = 2 * half_mm / (n - 1)
    A = np.array([[step, 0, center_mm[0] - half_mm], [0, step, center_mm[1] - half_mm], [0, 0, 1.0]])
    return cv2.warpPerspective(
        image,
        H @ A,
        (n, n),
        flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
        borderMode=cv2.BORDER_CONSTANT,
        borderValue=(0, 0, 0),
    )


def _back_fractions(patches: list[np.ndarray], gains: np.ndarray, layout: TableLayout) -> list[float]:
    """`_back_fraction` of several equal-sized patches at once (one colour conversion)."""
    n = len(patches)
    return _back_mask(np.concatenate(patches, axis=0), gains, layout).reshape(n, -1).mean(axis=1).tolist()


def _back_fraction(patch_bgr: np.ndarray, gains: np.ndarray, layout: TableLayout) -> float:
    """Fraction of a patch that looks like the Ocean boards' back art (hue band, saturated, not clipped)."""
    return float(_back_mask(patch_bgr, gains, layout).mean())


def _back_mask(patch_bgr: np.ndarray, gains: np.ndarray, layout: TableLayout) -> np.ndarray:
    # (Gains are positive: only the top needs clipping. Hue compared as uint8: exact.)
    balanced = np.minimum(patch_bgr.astype(np.float32) * gains.astype(np.float32), 255).astype(np.uint8)
    hsv = cv2.cvtColor(balanced, cv2.COLOR_BGR2HSV)
    hue, sat, val = hsv[..., 0], hsv[..., 1], hsv[..., 2]
    lo, hi = layout.back_hue
    in_band = (hue >= lo) & (hue <= hi) if lo <= hi else (hue >= lo) | (hue <= hi)
    return in_band & (sat >= layout.back_min_saturation) & (val > 25) & (_max3(patch_bgr) < 250)


def read_table_detailed(
    image_bgr: np.ndarray,
    layout: TableLayout | dict | str,
    camera: Any = None,
    ships_in_play: list[str] | None = None,
    previous: TableReading | None = None,
) -> TableReading:
    """Read one frame: which board lies face up on each square and where each ship stands.

    A ship whose marker is hidden, misshapen or too close to a square's edge, and a square whose board
    marker is hidden (a hand, glare, a ship over it) are null and make the status "ambiguous": the
    reader never guesses. `ships_in_play` (default: every ship of the layout) names the ships expected
    on the table; an unseen ship that is not in play is null without making the reading ambiguous.

    `previous` (live mode: the last reading of the same camera) lets the marker pass cover only the
    table's outline where that reading registered it; when that pass does not find again every frame
    marker the previous one used (the camera moved, a hand), the whole frame is searched as without it."""
    import time

    t0 = time.perf_counter()
    layout = load_table_layout(layout)
    if not isinstance(image_bgr, np.ndarray) or image_bgr.dtype != np.uint8 or image_bgr.ndim not in (2, 3):
        raise ValueError("image must be an 8-bit grey or BGR array")
    if image_bgr.ndim == 2:
        image_bgr = cv2.cvtColor(image_bgr, cv2.COLOR_GRAY2BGR)
    h, w = image_bgr.shape[:2]
    in_play = set(layout.ships.ids) if ships_in_play is None else set(ships_in_play)
    K, dist = _camera_matrices(camera, w, h)
    gray = cv2.cvtColor(image_bgr, cv2.COLOR_BGR2GRAY)
    t1 = time.perf_counter()
    found: dict[int, list[np.ndarray]] | None = None
    ship_found: dict[int, list[np.ndarray]] = {}
    box = (
        _table_box(previous.homography, layout, w, h) if previous is not None and previous.frame_ids else None
    )
    if box is not None and previous is not None and layout.ships.aruco_dictionary == layout.aruco_dictionary:
        found = _coarse_to_fine(gray, layout, in_play, box)
        if found is not None and all(len(found.get(mid, [])) == 1 for mid in previous.frame_ids):
            ship_found = found
        else:
            found = None
    elif box is not None and previous is not None:
        xa, ya, xb, yb = box
        view, shift = gray[ya:yb, xa:xb], np.array([xa, ya], dtype=np.float64)
        # The whole frame's perimeter limits in px, as rates of the crop's larger side.
        scale = max(w, h) / float(max(xb - xa, yb - ya))
        rates = (_FRAME_PERIMETER_RATES[0] * scale, _FRAME_PERIMETER_RATES[1] * scale)

        def near(dictionary_name: str) -> dict[int, list[np.ndarray]]:
            got = _detect(view, dictionary_name, "frame-crop", rates)
            return {k: [q + shift for q in v] for k, v in got.items()}

        found = near(layout.aruco_dictionary)
        if all(len(found.get(mid, [])) == 1 for mid in previous.frame_ids):
            ship_found = (
                found
                if layout.ships.aruco_dictionary == layout.aruco_dictionary
                else near(layout.ships.aruco_dictionary)
            )
        else:
            found = None
    if found is None:
        found = _coarse_to_fine(gray, layout, in_play)
        if found is not None:
            ship_found = found
    if found is None:
        found = _detect(gray, layout.aruco_dictionary, "frame")
        ship_found = (
            found
            if layout.ships.aruco_dictionary == layout.aruco_dictionary
            else _detect(gray, layout.ships.aruco_dictionary, "frame")
        )
    t2 = time.perf_counter()

    def ideal(px: np.ndarray) -> np.ndarray:
        return undistort_pixels(px, K, dist) if K is not None and dist is not None and np.any(dist) else px

    def empty(status: str, reason: str) -> TableReading:
        boards = [
            {"square": sq.id, "face_up": None, "board": None, "confidence": 0.0} for sq in layout.squares
        ]
        ships = [{"ship": s, "square": None, "confidence": 0.0} for s in layout.ships.ids]
        return TableReading(
            status, boards, ships, reason=reason, timings_ms={"total": (time.perf_counter() - t0) * 1000}
        )

    # The table frame: one homography from every frame marker seen; drop a marker that disagrees. The
    # markers used must span the table (3 or more, not in a line): two markers on one edge would let
    # a small corner error swing the far side of the table by centimetres.
    used = [m for m in layout.markers if len(found.get(m.id, [])) == 1]
    frame = list(zip(used, _settle_corners(gray, [found[m.id][0] for m in used]), strict=True))
    H = None
    while _spread_ok(layout, [m for m, _ in frame]):
        board_pts = np.concatenate([m.corners_mm for m, _ in frame])
        image_pts = np.concatenate([ideal(c) for _, c in frame])
        try:
            H = fit_homography(board_pts, image_pts)
        except GeometryError:
            H = None
            break
        err = np.linalg.norm(apply_homography(H, board_pts) - image_pts, axis=1).reshape(-1, 4).mean(axis=1)
        worst = int(np.argmax(err))
        if err[worst] <= MAX_FRAME_ERROR_PX:
            break
        frame.pop(worst)
        H = None
    if H is None:
        if len(frame) < 3:
            return empty(
                "no-table",
                f"only {len(frame)} of the table's {len(layout.markers)} frame markers are "
                "visible (need 3 around the table): clear the table's edge or check the camera",
            )
        return empty(
            "no-table",
            "the frame markers seen do not agree on where the table is, or lie in a line: "
            "check the layout's marker corners and the view",
        )
    if K is None:
        K = default_intrinsics(w, h, H)
    try:
        pose = pose_from_points(board_pts, image_pts, K)
    except GeometryError as exc:
        return empty("no-table", str(exc))
    Hinv = np.linalg.inv(H)
    t3 = time.perf_counter()

    # A ship in play not seen: one more look over the play area with a smaller threshold window (a
    # thin white plate against dark art), only in frames that need it.
    missing = [mid for name, mid in layout.ships.ids.items() if name in in_play and mid not in ship_found]
    if missing:
        area = np.concatenate([layout.harbor_mm] + [sq.polygon_mm for sq in layout.squares])
        x0, y0 = area.min(axis=0) - 40.0
        x1, y1 = area.max(axis=0) + 40.0
        area_px = apply_homography(H, np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]]))
        xa, ya = (max(0, int(v)) for v in np.floor(area_px.min(axis=0)))
        xb, yb = min(w, int(np.ceil(area_px[:, 0].max()))), min(h, int(np.ceil(area_px[:, 1].max())))
        if xb - xa > 32 and yb - ya > 32:
            # Only outlines of about a ship marker's size where the play area lies (the reading refuses
            # one off by more than SIZE_TOLERANCE anyway): the small window finds many more contours.
            sm = layout.ships.marker_size_mm
            sizes = [_perimeter_px(H, (float(x), float(y)), sm) for x in (x0, x1) for y in (y0, y1)]
            side = float(max(xb - xa, yb - ya))
            rates = (
                BOARD_PERIMETER_RANGE[0] * min(sizes) / side,
                BOARD_PERIMETER_RANGE[1] * max(sizes) / side,
            )
            again = _detect(gray[ya:yb, xa:xb], layout.ships.aruco_dictionary, "retry", rates)
            ship_found = dict(ship_found)
            for mid in missing:
                if mid in again:
                    ship_found[mid] = [q + np.array([xa, ya]) for q in again[mid]]

    # Ships: the marker seen through the table homography, moved to the mast foot under it.
    ships_out: list[dict[str, Any]] = []
    positions: dict[str, list[float]] = {}
    ambiguous = False
    for name, mid in layout.ships.ids.items():
        entry: dict[str, Any] = {"ship": name, "square": None, "confidence": 0.0}
        seen = ship_found.get(mid, [])
        if len(seen) == 1:
            foot = parallax_to_footprint(
                apply_homography(Hinv, ideal(seen[0])), pose, layout.ships.marker_height_mm
            )
            sides = np.linalg.norm(foot - np.roll(foot, -1, axis=0), axis=1)
            size_ok = bool(np.all(np.abs(sides / layout.ships.marker_size_mm - 1) < SIZE_TOLERANCE))
            cx, cy = foot.mean(axis=0)
            place, margin = locate(layout, cx, cy)
            if size_ok and place is not None and margin >= EDGE_MARGIN_MM:
                conf = min(0.99, 0.8 + 0.19 * min(1.0, (margin - EDGE_MARGIN_MM) / 20.0))
                entry = {"ship": name, "square": place, "confidence": round(conf, 3)}
                positions[name] = [round(float(cx), 1), round(float(cy), 1)]
        if entry["square"] is None and (name in in_play or seen):
            ambiguous = True
        ships_out.append(entry)
    t4 = time.perf_counter()

    # Boards: look for a board marker where the layout puts it on each square; no marker there and
    # the spot shows the back art: face down; anything else: cannot tell.
    gains, frame_covered = _frame_colour(image_bgr, layout, H)
    occluded = frame_covered > FRAME_COVERED
    bsize = layout.boards.marker_size_mm
    roi_half = bsize / 2 + 4.0 + 12.0
    ox, oy = layout.board_marker_offset_mm
    seen_boards: dict[str, list[int]] = {}
    boards_out: list[dict[str, Any]] = []
    spots = [
        (float(sq.polygon_mm[:, 0].min() + ox), float(sq.polygon_mm[:, 1].min() + oy))
        for sq in layout.squares
    ]
    # The back art first (12 small warps, one colour conversion): where it fills the marker's spot there
    # is no marker to look for.
    fractions = _back_fractions([_patch(image_bgr, H, c, bsize / 2 + 8.0) for c in spots], gains, layout)
    # The marker's spot on every square that does not show the back, cut out with a replicated margin
    # (the detector drops candidates touching an image border) and laid side by side: one detector
    # call for all of them.
    crops: list[tuple[int, int, int, np.ndarray]] = []  # square index, crop x, crop y, padded crop
    perimeters: list[float] = []  # each looked-at marker's perimeter in px, as the homography draws it
    # Each spot's marker outline and look-around box in px, for all squares in one go.
    unit = np.array([[-1.0, -1.0], [1.0, -1.0], [1.0, 1.0], [-1.0, 1.0]])
    centres = np.array(spots, dtype=np.float64)[:, None, :]
    n_spots = len(spots)
    drawn = apply_homography(
        H, np.concatenate([centres + unit * (bsize / 2), centres + unit * roi_half]).reshape(-1, 2)
    ).reshape(2 * n_spots, 4, 2)
    spot_perimeters = _perimeters(drawn[:n_spots])
    for k in range(n_spots):
        if fractions[k] >= BACK_FRACTION:
            continue
        perimeters.append(float(spot_perimeters[k]))
        roi_px = drawn[n_spots + k]
        if dist is not None and np.any(dist):  # the crop is taken from the distorted image
            roi_px = cv2.projectPoints(
                np.column_stack([apply_homography(np.linalg.inv(K), roi_px), np.ones(4)]),
                np.zeros(3),
                np.zeros(3),
                K,
                dist,
            )[0].reshape(-1, 2)
        xa, ya = np.floor(roi_px.min(axis=0)).astype(int) - 2
        xb, yb = np.ceil(roi_px.max(axis=0)).astype(int) + 2
        xa, ya, xb, yb = max(xa, 0), max(ya, 0), min(xb, w), min(yb, h)
        if xb - xa >= 16 and yb - ya >= 16:
            crops.append(
                (k, xa, ya, cv2.copyMakeBorder(gray[ya:yb, xa:xb], PAD, PAD, PAD, PAD, cv2.BORDER_REPLICATE))
            )
    names: dict[int, set[str]] = {k: set() for k in range(len(layout.squares))}
    if crops:
        tall = max(cr.shape[0] for *_, cr in crops)
        strip = np.hstack(
            [cv2.copyMakeBorder(cr, 0, tall - cr.shape[0], 0, 0, cv2.BORDER_REPLICATE) for *_, cr in crops]
        )
        starts = np.cumsum([0] + [cr.shape[1] for *_, cr in crops])
        # Only outlines of about the board marker's size in this view are decoded: the busy art in the
        # crops yields hundreds of smaller and larger contours, each one a warp and a decode.
        side = float(max(strip.shape[:2]))
        perimeter_rates = (
            BOARD_PERIMETER_RANGE[0] * min(perimeters) / side,
            BOARD_PERIMETER_RANGE[1] * max(perimeters) / side,
        )
        hits = [
            (bname, q)
            for mid, quads in _detect(strip, layout.boards.aruco_dictionary, "board", perimeter_rates).items()
            if (bname := layout.boards.name_of(mid)) is not None
            for q in quads
        ]
        if hits:
            # Each marker's centre on the table (all of them through one homography call); it must lie
            # on the square whose spot it was cut from.
            qs = np.array([q for _, q in hits])
            where = np.searchsorted(starts, qs[:, :, 0].mean(axis=1), side="right") - 1
            offsets = np.array(
                [[starts[i] + PAD - crops[i][1], PAD - crops[i][2]] for i in where], dtype=np.float64
            )
            centres_mm = apply_homography(Hinv, ideal((qs - offsets[:, None, :]).reshape(-1, 2)))
            for (bname, _), i, (cx, cy) in zip(
                hits, where, centres_mm.reshape(-1, 4, 2).mean(axis=1), strict=True
            ):
                k = crops[i][0]
                if _signed_distance(layout.squares[k].polygon_mm, cx, cy) >= 0:
                    names[k].add(bname)
    for k, sq in enumerate(layout.squares):
        frac = fractions[k]
        entry = {"square": sq.id, "face_up": None, "board": None, "confidence": 0.0}
        if len(names[k]) == 1:
            bname = names[k].pop()
            entry = {"square": sq.id, "face_up": True, "board": bname, "confidence": 0.99}
            seen_boards.setdefault(bname, []).append(k)
        elif not names[k] and frac >= BACK_FRACTION:
            entry = {"square": sq.id, "face_up": False, "board": None, "confidence": round(frac, 3)}
        boards_out.append(entry)
    for _bname, where in seen_boards.items():
        if len(where) > 1:  # one physical board cannot lie on two squares: one of them is a misread
            for k in where:
                boards_out[k] = {
                    "square": layout.squares[k].id,
                    "face_up": None,
                    "board": None,
                    "confidence": 0.0,
                }
    if any(b["face_up"] is None for b in boards_out):
        ambiguous = True
    t5 = time.perf_counter()
    timings = {
        "prepare": (t1 - t0) * 1000,
        "markers": (t2 - t1) * 1000,
        "pose": (t3 - t2) * 1000,
        "ships": (t4 - t3) * 1000,
        "boards": (t5 - t4) * 1000,
        "total": (t5 - t0) * 1000,
    }
    reason = "an arm or a hand is over the table" if occluded else None
    return TableReading(
        "ambiguous" if ambiguous else "ok",
        boards_out,
        ships_out,
        reason=reason,
        homography=H,
        pose=pose,
        ship_positions_mm=positions,
        occluded=occluded,
        timings_ms=timings,
        frame_ids=tuple(m.id for m, _ in frame),
    )


def read_table(
    image_bgr: np.ndarray,
    layout: TableLayout | dict | str,
    camera: Any = None,
    ships_in_play: list[str] | None = None,
) -> dict[str, Any]:
    """The `vision ships` JSON for one frame (see `read_table_detailed`)."""
    return read_table_detailed(image_bgr, layout, camera, ships_in_play).to_json()
