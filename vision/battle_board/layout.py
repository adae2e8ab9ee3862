"""Board layout files (`smart-table/board-layout@1`): loading and validation.

Owns the file format of a physical board (size, ArUco markers, zones, adjacency, colour swatches)
and its checks; every error names the field (`zones[3].polygon_mm`) and says what to fix.
Knows nothing of the rules beyond the five zone kinds the file may name.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from contracts.zones import ZONE_KINDS
from vision import fields
from vision.geometry import (
    GeometryError,
    aruco_dictionary,
    polygon_area,
    polygon_is_simple,
    rasterize_polygons,
)

SCHEMA = "smart-table/board-layout@1"
DEFAULT_LAYOUT_PATH = Path(__file__).parent.parent / "data" / "battle-board.json"


class LayoutError(ValueError):
    """A layout file that cannot be used; the message names the field and what to fix."""


@dataclass(frozen=True, slots=True)
class Marker:
    id: int
    corners_mm: np.ndarray  # (4, 2): top-left, top-right, bottom-right, bottom-left


@dataclass(frozen=True, slots=True)
class Zone:
    id: str
    kind: str
    polygon_mm: np.ndarray  # (N, 2)
    extra: dict[str, Any] = field(default_factory=dict)  # cargo, coins, strength and any other keys


@dataclass(frozen=True, slots=True)
class Swatch:
    color: str
    center_mm: np.ndarray  # (2,)


@dataclass(frozen=True, slots=True)
class BoardLayout:
    name: str
    size_mm: tuple[float, float]
    cube_size_mm: float
    aruco_dictionary: str
    markers: tuple[Marker, ...]
    zones: tuple[Zone, ...]
    adjacent: tuple[tuple[str, str], ...]
    swatches: tuple[Swatch, ...]
    raw: dict[str, Any]

    @property
    def rail_height_mm(self) -> float:
        """Height of the raised rails (optional key `rail_height_mm`, default 4)."""
        return float(self.raw.get("rail_height_mm", 4.0))

    def zone(self, zone_id: str) -> Zone:
        for z in self.zones:
            if z.id == zone_id:
                return z
        raise KeyError(zone_id)

    def marker_points(self, ids: list[int] | None = None) -> dict[int, np.ndarray]:
        return {m.id: m.corners_mm for m in self.markers if ids is None or m.id in ids}

    def to_json(self) -> dict[str, Any]:
        return json.loads(json.dumps(self.raw))


def _fail(path: str, message: str) -> LayoutError:
    return LayoutError(f"layout field '{path}': {message}")


def _number(value: Any, path: str, positive: bool = False) -> float:
    return fields.number(value, path, _fail, positive)


def _points(value: Any, path: str, count: int | None = None, minimum: int = 1) -> np.ndarray:
    return fields.points(value, path, _fail, count, minimum)


def _inside(pts: np.ndarray, size: tuple[float, float], path: str) -> None:
    eps = 1e-6
    bad = np.where(
        (pts[:, 0] < -eps) | (pts[:, 1] < -eps) | (pts[:, 0] > size[0] + eps) | (pts[:, 1] > size[1] + eps)
    )[0]
    if len(bad):
        i = int(bad[0])
        raise _fail(f"{path}[{i}]", f"point {pts[i].tolist()} lies outside the board (size_mm {list(size)})")


def load_board_layout(source: str | Path | dict[str, Any]) -> BoardLayout:
    """Read and validate a layout from a path or an already-parsed dict."""
    if isinstance(source, dict):
        data = source
    else:
        path = Path(source)
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise LayoutError(f"cannot read layout file {str(path)!r}: {exc.strerror or exc}") from exc
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise LayoutError(
                f"layout file {str(path)!r} is not valid JSON: {exc.msg} at line {exc.lineno} "
                f"column {exc.colno}"
            ) from exc
    return _validate(data)


def _validate(data: Any) -> BoardLayout:
    # A flat list of field checks in the file's order, one error each; split, it would only scatter the
    # schema.
    if not isinstance(data, dict):
        raise LayoutError("a layout must be a JSON object with 'schema', 'size_mm', 'markers' and 'zones'")
    if data.get("schema") != SCHEMA:
        raise _fail("schema", f"must be {SCHEMA!r}, got {data.get('schema')!r}")
    name = data.get("name", "board")
    if not isinstance(name, str) or not name:
        raise _fail("name", "must be a non-empty string")
    size = data.get("size_mm")
    if not isinstance(size, list) or len(size) != 2:
        raise _fail("size_mm", "must be [width, height] in millimetres")
    size_t = (_number(size[0], "size_mm[0]", True), _number(size[1], "size_mm[1]", True))
    cube = _number(data.get("cube_size_mm", 10), "cube_size_mm", True)
    dict_name = data.get("aruco_dictionary", "DICT_4X4_50")
    try:
        dictionary = aruco_dictionary(dict_name) if isinstance(dict_name, str) else None
    except GeometryError as exc:
        raise _fail("aruco_dictionary", str(exc)) from exc
    if dictionary is None:
        raise _fail("aruco_dictionary", "must be a dictionary name such as 'DICT_4X4_50'")
    n_ids = int(dictionary.bytesList.shape[0])
    if "rail_height_mm" in data:
        _number(data["rail_height_mm"], "rail_height_mm")

    raw_markers = data.get("markers")
    if not isinstance(raw_markers, list) or len(raw_markers) < 2:
        raise _fail("markers", "must list at least 2 markers (4 or more, spread over the board, read best)")
    markers: list[Marker] = []
    for i, m in enumerate(raw_markers):
        path = f"markers[{i}]"
        if not isinstance(m, dict):
            raise _fail(path, "must be an object {'id': ..., 'corners_mm': [...]}")
        mid = m.get("id")
        if isinstance(mid, bool) or not isinstance(mid, int) or not 0 <= mid < n_ids:
            raise _fail(
                f"{path}.id", f"must be a whole number from 0 to {n_ids - 1} for {dict_name}, got {mid!r}"
            )
        if any(x.id == mid for x in markers):
            raise _fail(f"{path}.id", f"marker id {mid} is listed twice")
        corners = _points(m.get("corners_mm"), f"{path}.corners_mm", count=4)
        _inside(corners, size_t, f"{path}.corners_mm")
        area = polygon_area(corners)
        if area <= 1.0 or not polygon_is_simple(corners):
            raise _fail(
                f"{path}.corners_mm",
                "must go clockwise on the board: top-left, top-right, bottom-right, "
                "bottom-left (as seen with y pointing down)",
            )
        markers.append(Marker(id=mid, corners_mm=corners))

    raw_zones = data.get("zones")
    if not isinstance(raw_zones, list) or not raw_zones:
        raise _fail("zones", "must be a non-empty list of zones")
    zones: list[Zone] = []
    for i, z in enumerate(raw_zones):
        path = f"zones[{i}]"
        if not isinstance(z, dict):
            raise _fail(path, "must be an object with 'id', 'kind' and 'polygon_mm'")
        zid = z.get("id")
        if not isinstance(zid, str) or not zid:
            raise _fail(f"{path}.id", "must be a non-empty string")
        if any(x.id == zid for x in zones):
            raise _fail(f"{path}.id", f"zone id {zid!r} is used twice")
        kind = z.get("kind")
        if kind not in ZONE_KINDS:
            raise _fail(f"{path}.kind", f"must be one of {', '.join(ZONE_KINDS)}, got {kind!r}")
        if kind == "plunder":
            for key in ("cargo", "coins"):
                v = z.get(key, 0)
                if isinstance(v, bool) or not isinstance(v, int) or v < 0:
                    raise _fail(f"{path}.{key}", f"must be a whole number 0 or more, got {v!r}")
            if z.get("cargo", 0) == 0 and z.get("coins", 0) == 0:
                raise _fail(path, "a plunder zone needs 'cargo' or 'coins' above 0")
        if kind == "strength":
            v = z.get("strength")
            if isinstance(v, bool) or not isinstance(v, int) or v < 1:
                raise _fail(f"{path}.strength", f"must be a whole number 1 or more, got {v!r}")
        poly = _points(z.get("polygon_mm"), f"{path}.polygon_mm", minimum=3)
        _inside(poly, size_t, f"{path}.polygon_mm")
        if abs(polygon_area(poly)) < 1.0 or not polygon_is_simple(poly):
            raise _fail(
                f"{path}.polygon_mm", "must be a simple polygon (edges that do not cross) with an area"
            )
        extra = {k: v for k, v in z.items() if k not in ("id", "kind", "polygon_mm")}
        zones.append(Zone(id=zid, kind=kind, polygon_mm=poly, extra=extra))
    _check_overlaps(zones, size_t)

    adjacent: list[tuple[str, str]] = []
    raw_adj = data.get("adjacent", [])
    if not isinstance(raw_adj, list):
        raise _fail("adjacent", "must be a list of [zone id, zone id] pairs")
    ids = {z.id for z in zones}
    for i, pair in enumerate(raw_adj):
        if not isinstance(pair, list) or len(pair) != 2 or not all(isinstance(p, str) for p in pair):
            raise _fail(f"adjacent[{i}]", f"must be a pair of zone ids, got {pair!r}")
        for j, p in enumerate(pair):
            if p not in ids:
                raise _fail(f"adjacent[{i}][{j}]", f"names zone {p!r}, which is not in 'zones'")
        if pair[0] == pair[1]:
            raise _fail(f"adjacent[{i}]", "a zone cannot be adjacent to itself")
        adjacent.append((pair[0], pair[1]))

    swatches: list[Swatch] = []
    raw_sw = data.get("swatches", [])
    if not isinstance(raw_sw, list):
        raise _fail("swatches", "must be a list of {'color': ..., 'center_mm': [x, y]}")
    for i, s in enumerate(raw_sw):
        path = f"swatches[{i}]"
        if not isinstance(s, dict) or not isinstance(s.get("color"), str) or not s["color"]:
            raise _fail(f"{path}.color", "must be a colour name such as 'red'")
        if any(x.color == s["color"] for x in swatches):
            raise _fail(f"{path}.color", f"colour {s['color']!r} has two swatches")
        c = _points([s.get("center_mm")], f"{path}.center_mm", count=1)
        _inside(c, size_t, f"{path}.center_mm")
        swatches.append(Swatch(color=s["color"], center_mm=c[0]))

    return BoardLayout(
        name=name,
        size_mm=size_t,
        cube_size_mm=cube,
        aruco_dictionary=dict_name,
        markers=tuple(markers),
        zones=tuple(zones),
        adjacent=tuple(adjacent),
        swatches=tuple(swatches),
        raw=json.loads(json.dumps(data)),
    )


def _check_overlaps(zones: list[Zone], size: tuple[float, float]) -> None:
    """Zones may touch but not overlap: checked on a 1 px/mm raster, each zone less its outer pixel (two
    zones sharing an edge both cover the pixels along it)."""
    w, h = int(np.ceil(size[0])) + 1, int(np.ceil(size[1])) + 1
    count = np.zeros((h, w), np.uint8)
    for z in zones:
        inner = cv2.erode(rasterize_polygons([z.polygon_mm], (w, h), 1.0, [1]), np.ones((3, 3), np.uint8))
        count += np.asarray(inner, np.uint8)
    if (count > 1).sum() > 0:
        ys, xs = np.nonzero(count > 1)
        x, y = float(xs[0]), float(ys[0])
        hits = [z.id for z in zones if rasterize_polygons([z.polygon_mm], (w, h), 1.0, [1])[int(y), int(x)]]
        raise _fail(
            "zones",
            f"zones {' and '.join(repr(h) for h in hits[:2])} overlap near [{x:.0f}, {y:.0f}] mm; "
            "zones may share an edge but not area",
        )


def default_layout() -> BoardLayout:
    """The shipped reconstruction of the game's battle board."""
    return load_board_layout(DEFAULT_LAYOUT_PATH)
