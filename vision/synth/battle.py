"""Synthetic camera images of the battle board with cubes, and the exact reading they should give.

Owns the battle-board scene: printed board art (wood rails, parchment zone wells, busy ink, markers,
swatch spots), cube placement by a simple physical model, camera, light and image degradations.
Cubes rest in one of three ways, as real dropped cubes do on a board with raised rails:
  * flat in a zone well (anywhere, possibly pressed against the wall or against other cubes),
  * leaning: bottom edge on the zone floor, tipped 26-50 degrees against the rail's top corner,
  * on a rail: lying flat on top of a rail or the frame, touching no zone (must be re-dropped).
The truth is computed from that physical state, never from a reader.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from vision.battle_board.layout import BoardLayout
from vision.geometry import square_corners
from vision.synth.common import (
    BoxLook,
    Lighting,
    PinholeCamera,
    add_noise,
    apply_blur,
    apply_distortion,
    apply_lighting,
    box_vertices,
    darken_polygons,
    draw_aruco,
    draw_boxes,
    draw_hand,
    jpeg_roundtrip,
    look_at_camera,
    project_texture,
    random_lighting,
    shadow_polygon,
)

TEXTURE_PX_PER_MM = 4.0

# Nominal cube paint (BGR); each scene varies it a little, as dye lots and plastics do.
CUBE_COLORS_BGR: dict[str, tuple[int, int, int]] = {
    "red": (38, 36, 192),
    "blue": (168, 84, 28),
    "green": (62, 148, 36),
    "yellow": (36, 198, 228),
    "black": (34, 33, 36),
}


class PlacementError(ValueError):
    """A requested cube cannot be placed (zone full, unknown zone)."""


@dataclass(slots=True)
class PlacedCube:
    color: str
    state: str  # "flat", "lean" or "rail"
    zone: str | None
    center_mm: np.ndarray  # footprint centre
    yaw_deg: float
    footprint: np.ndarray  # (4, 2) flat footprint square (for lean: the untilted base square)
    verts: np.ndarray  # (8, 3) world vertices


# ---------------------------------------------------------------- board art


_TEXTURE_CACHE: dict[tuple[str, int], np.ndarray] = {}


def board_texture(layout: BoardLayout, art_seed: int = 0) -> np.ndarray:
    """The printed board at TEXTURE_PX_PER_MM, cached per (layout name, art seed)."""
    key = (layout.name + repr(layout.size_mm) + str(len(layout.zones)), int(art_seed))
    if key not in _TEXTURE_CACHE:
        if len(_TEXTURE_CACHE) > 16:
            _TEXTURE_CACHE.clear()
        _TEXTURE_CACHE[key] = _paint_board(layout, np.random.default_rng(art_seed))
    return _TEXTURE_CACHE[key]


def _pts(poly_mm: np.ndarray) -> np.ndarray:
    return np.round(np.asarray(poly_mm) * TEXTURE_PX_PER_MM * 16).astype(np.int32)


def _paint_board(layout: BoardLayout, rng: np.random.Generator) -> np.ndarray:
    s = TEXTURE_PX_PER_MM
    w, h = int(math.ceil(layout.size_mm[0] * s)), int(math.ceil(layout.size_mm[1] * s))
    # Wood rails and frame: warm brown with grain.
    wood = np.array([58, 92, 128], np.float32) * rng.uniform(0.85, 1.2)
    img = np.empty((h, w, 3), np.float32)
    img[:] = wood
    grain = cv2.resize(rng.normal(0, 1, (h // 8 + 1, 3)).astype(np.float32), (3, h))[:, :1]
    img += grain[:, :, None] * 9
    img += rng.normal(0, 4, (h, w, 1)).astype(np.float32)
    for _ in range(int(w * h / 6000)):
        y = int(rng.integers(0, h))
        cv2.line(img, (0, y), (w, y + int(rng.integers(-6, 7))), (wood * 0.82).tolist(), 1, cv2.LINE_AA)
    img = np.clip(img, 0, 255).astype(np.uint8)

    paper = np.array([168, 204, 226], np.float32)
    ink = (38, 58, 88)
    for zone in layout.zones:
        tint = (
            paper
            + rng.normal(0, 8, 3).astype(np.float32)
            + {
                "exploding": (0, -8, 6),
                "plunder": (-14, 0, 6),
                "damage": (-4, -10, 4),
                "strength": (6, 4, -6),
                "miss": (12, 8, 0),
            }[zone.kind]
        )
        mask = np.zeros((h, w), np.uint8)
        cv2.fillPoly(mask, [_pts(zone.polygon_mm)], 255, cv2.LINE_AA, shift=4)
        x0, y0 = np.floor(zone.polygon_mm.min(axis=0) * s).astype(int)
        x1, y1 = np.ceil(zone.polygon_mm.max(axis=0) * s).astype(int)
        patch = np.empty((y1 - y0, x1 - x0, 3), np.float32)
        patch[:] = tint
        patch += rng.normal(0, 3, patch.shape[:2] + (1,)).astype(np.float32)
        patch = np.clip(patch, 0, 255).astype(np.uint8)
        _busy_art(patch, zone, rng, ink)
        region = img[y0:y1, x0:x1].astype(np.float32)
        a = (mask[y0:y1, x0:x1].astype(np.float32) / 255.0)[..., None]
        img[y0:y1, x0:x1] = np.clip(region * (1 - a) + patch.astype(np.float32) * a, 0, 255).astype(np.uint8)
        # Shade along the wall: the rail casts a soft line into the well.
        cv2.polylines(img, [_pts(zone.polygon_mm)], True, (70, 92, 112), 3, cv2.LINE_AA, shift=4)
    for sw in layout.swatches:
        c = tuple(int(v) for v in np.round(sw.center_mm * s * 16))
        cv2.circle(img, c, int(7.5 * s * 16), (150, 160, 165), -1, cv2.LINE_AA, shift=4)
        cv2.circle(img, c, int(7.5 * s * 16), (40, 50, 60), 2, cv2.LINE_AA, shift=4)
    for m in layout.markers:
        quiet = square_corners(
            m.corners_mm.mean(axis=0),
            float(np.linalg.norm(m.corners_mm[1] - m.corners_mm[0])) + 5,
            math.degrees(math.atan2(*(m.corners_mm[1] - m.corners_mm[0])[::-1])),
        )
        cv2.fillPoly(img, [_pts(quiet)], (236, 240, 242), cv2.LINE_AA, shift=4)
        draw_aruco(img, layout.aruco_dictionary, m.id, m.corners_mm * s)
    return img


def _busy_art(patch: np.ndarray, zone: Any, rng: np.random.Generator, ink: tuple[int, int, int]) -> None:
    """Printed decoration in a zone well: waves, hatching, a glyph and a label in thin dark ink."""
    ph, pw = patch.shape[:2]
    s = TEXTURE_PX_PER_MM
    for _ in range(int(rng.integers(3, 8))):  # waves
        y = rng.uniform(0, ph)
        xs = np.arange(0, pw, 4)
        ys = y + np.sin(xs / rng.uniform(10, 30) + rng.uniform(0, 6)) * rng.uniform(2, 8)
        pts = np.stack([xs, ys], 1).astype(np.int32)
        cv2.polylines(patch, [pts], False, (120, 140, 150), 1, cv2.LINE_AA)
    for _ in range(int(rng.integers(0, 12))):  # hatching
        x, y = rng.uniform(0, pw), rng.uniform(0, ph)
        d = rng.uniform(3, 9) * s
        cv2.line(patch, (int(x), int(y)), (int(x + d), int(y + d * rng.uniform(-1, 1))), ink, 1, cv2.LINE_AA)
    cx, cy = int(pw * rng.uniform(0.3, 0.7)), int(ph * rng.uniform(0.3, 0.7))
    r = int(min(pw, ph) * rng.uniform(0.15, 0.3))
    glyph = zone.kind
    if glyph == "exploding":
        for k in range(12):
            a = k * math.pi / 6
            cv2.line(
                patch, (cx, cy), (int(cx + r * math.cos(a)), int(cy + r * math.sin(a))), ink, 2, cv2.LINE_AA
            )
    elif glyph == "plunder":
        cv2.ellipse(patch, (cx, cy), (r, int(r * 0.6)), 0, 0, 360, ink, 2, cv2.LINE_AA)
        cv2.rectangle(patch, (cx - r // 2, cy - r // 3), (cx + r // 2, cy + r // 3), ink, 1, cv2.LINE_AA)
    elif glyph == "damage":
        cv2.line(patch, (cx - r, cy - r), (cx + r, cy + r), ink, 2, cv2.LINE_AA)
        cv2.line(patch, (cx + r, cy - r), (cx - r, cy + r), ink, 2, cv2.LINE_AA)
    elif glyph == "strength":
        for k in range(int(zone.extra.get("strength", 1))):
            cv2.circle(patch, (cx + (k * 2 - 1) * r // 2, cy), r // 2, ink, 2, cv2.LINE_AA)
    else:
        cv2.circle(patch, (cx, cy), r, (110, 120, 128), 1, cv2.LINE_AA)
    cv2.putText(
        patch,
        zone.id.upper(),
        (int(pw * 0.06), int(ph * 0.9)),
        cv2.FONT_HERSHEY_SIMPLEX,
        rng.uniform(0.5, 0.9),
        ink,
        1,
        cv2.LINE_AA,
    )


# ---------------------------------------------------------------- placement


def _zone_poly(layout: BoardLayout, zone_id: str) -> np.ndarray:
    try:
        return layout.zone(zone_id).polygon_mm
    except KeyError:
        raise PlacementError(
            f"unknown zone {zone_id!r}; the layout has {', '.join(z.id for z in layout.zones)}"
        ) from None


def _inside(poly: np.ndarray, pts: np.ndarray | Sequence[np.ndarray], margin: float = 0.0) -> bool:
    c = poly.astype(np.float32).reshape(-1, 1, 2)
    return all(cv2.pointPolygonTest(c, (float(p[0]), float(p[1])), True) >= margin for p in pts)


def _dense(square: np.ndarray) -> np.ndarray:
    """Corners plus edge points of a footprint square (for containment tests on non-convex shapes)."""
    out = [square]
    for i in range(4):
        a, b = square[i], square[(i + 1) % 4]
        out.append(np.array([a + (b - a) * t for t in (0.25, 0.5, 0.75)]))
    return np.concatenate(out)


def _overlaps(square: np.ndarray, placed: list[PlacedCube], gap: float = 0.3) -> bool:
    grown = square_corners(
        square.mean(axis=0),
        float(np.linalg.norm(square[1] - square[0])) + gap,
        math.degrees(math.atan2(*(square[1] - square[0])[::-1])),
    )
    for other in placed:
        if np.linalg.norm(other.center_mm - square.mean(axis=0)) > 16:
            continue
        area, _ = cv2.intersectConvexConvex(grown.astype(np.float32), other.footprint.astype(np.float32))
        if area > 0.01:
            return True
    return False


def _distance_to_zones(layout: BoardLayout, pts: np.ndarray) -> float:
    """Smallest signed distance from the zones to any of `pts` (negative: inside a zone)."""
    best = math.inf
    for z in layout.zones:
        c = z.polygon_mm.astype(np.float32).reshape(-1, 1, 2)
        for p in pts:
            best = min(best, -cv2.pointPolygonTest(c, (float(p[0]), float(p[1])), True))
    return best


def _marker_keepout(layout: BoardLayout, pts: np.ndarray) -> bool:
    """True when a footprint would lie on a marker or its quiet zone (cubes do not rest on stickers
    in our scenes; the reader does not look for cubes there)."""
    centre = pts.mean(axis=0)
    for m in layout.markers:
        lo, hi = m.corners_mm.min(axis=0) - 4, m.corners_mm.max(axis=0) + 4
        if np.any(np.all((pts >= lo) & (pts <= hi), axis=1)):
            return True
        half = float(np.linalg.norm(m.corners_mm[1] - m.corners_mm[0])) / 2
        if np.all(np.abs(centre - m.corners_mm.mean(axis=0)) < half + 8):
            return True
    return False


def place_cubes(
    layout: BoardLayout,
    specs: list[dict[str, Any]],
    rng: np.random.Generator,
    touch_prob: float = 0.25,
    wall_prob: float = 0.2,
) -> list[PlacedCube]:
    """Turn cube requests into resting cubes. A request is `{"color", "zone"}` (zone id; `null` or
    "rail" for a cube lying on a rail), optionally `"lean": true`, or an explicit pose
    `{"color", "center_mm", "yaw_deg", "state", "zone"}`."""
    size = layout.cube_size_mm
    rail_h = layout.rail_height_mm
    placed: list[PlacedCube] = []
    for spec in specs:
        color = spec["color"]
        if "center_mm" in spec:
            state = spec.get("state", "flat")
            c = np.asarray(spec["center_mm"], np.float64)
            yaw = float(spec.get("yaw_deg", 0.0))
            base = -rail_h if state == "rail" else 0.0
            sq = square_corners(c, size, yaw)
            placed.append(
                PlacedCube(
                    color, state, spec.get("zone"), c, yaw, sq, box_vertices(tuple(c), size, yaw, base)
                )
            )
            continue
        zone = spec.get("zone")
        if zone in (None, "rail"):
            placed.append(_place_on_rail(layout, color, rng, placed))
        elif spec.get("lean"):
            placed.append(_place_leaning(layout, color, zone, rng, placed))
        else:
            placed.append(_place_flat(layout, color, zone, rng, placed, touch_prob, wall_prob))
    return placed


def _place_flat(
    layout: BoardLayout,
    color: str,
    zone: str,
    rng: np.random.Generator,
    placed: list[PlacedCube],
    touch_prob: float,
    wall_prob: float,
) -> PlacedCube:
    poly = _zone_poly(layout, zone)
    size = layout.cube_size_mm
    lo, hi = poly.min(axis=0), poly.max(axis=0)
    neighbours = [p for p in placed if p.zone == zone and p.state == "flat"]
    for attempt in range(400):
        if neighbours and attempt < 40 and rng.random() < touch_prob:
            # Pressed against another cube: same yaw, sharing a face.
            other = neighbours[int(rng.integers(len(neighbours)))]
            yaw = other.yaw_deg
            a = math.radians(yaw + 90 * int(rng.integers(4)))
            slide = rng.uniform(-0.4, 0.4) * size
            c = (
                other.center_mm
                + np.array([math.cos(a), math.sin(a)]) * (size + 0.35)
                + np.array([-math.sin(a), math.cos(a)]) * slide
            )
        elif attempt < 40 and rng.random() < wall_prob:
            # Pressed against the wall: square to the wall's edge, touching it.
            i = int(rng.integers(len(poly)))
            a_pt, b_pt = poly[i], poly[(i + 1) % len(poly)]
            edge = b_pt - a_pt
            length = float(np.linalg.norm(edge))
            if length < size + 1:
                continue
            u = edge / length
            normal = np.array([-u[1], u[0]])
            if not _inside(poly, [(a_pt + b_pt) / 2 + normal * 1.0]):
                normal = -normal
            yaw = math.degrees(math.atan2(u[1], u[0]))
            c = a_pt + u * rng.uniform(size / 2 + 0.5, length - size / 2 - 0.5) + normal * (size / 2 + 0.15)
        else:
            yaw = rng.uniform(0, 90)
            c = rng.uniform(lo, hi)
        sq = square_corners(c, size, yaw)
        if _inside(poly, _dense(sq), 0.1) and not _overlaps(sq, placed):
            return PlacedCube(color, "flat", zone, c, yaw, sq, box_vertices(tuple(c), size, yaw))
    raise PlacementError(f"zone {zone!r} has no room left for another cube")


def _place_leaning(
    layout: BoardLayout, color: str, zone: str, rng: np.random.Generator, placed: list[PlacedCube]
) -> PlacedCube:
    """Bottom edge on the well's floor, the cube tipped toward a wall and resting on the rail's corner."""
    poly = _zone_poly(layout, zone)
    size, rail_h = layout.cube_size_mm, layout.rail_height_mm
    min_tilt = math.degrees(math.asin(min(0.99, rail_h / size))) + 2.5
    for _ in range(400):
        i = int(rng.integers(len(poly)))
        a_pt, b_pt = poly[i], poly[(i + 1) % len(poly)]
        edge = b_pt - a_pt
        length = float(np.linalg.norm(edge))
        if length < size + 2:
            continue
        u = edge / length
        n_out = np.array([-u[1], u[0]])
        if _inside(poly, [(a_pt + b_pt) / 2 + n_out * 1.0]):
            n_out = -n_out
        tilt = rng.uniform(min_tilt, 50.0)
        x = rail_h / math.tan(math.radians(tilt))  # bottom edge's distance from the wall
        along = rng.uniform(size / 2 + 1, length - size / 2 - 1)
        pivot_xy = a_pt + u * along - n_out * x
        centre_flat = pivot_xy + n_out * size / 2  # the base square before tipping
        yaw = math.degrees(math.atan2(n_out[1], n_out[0]))
        verts = box_vertices(tuple(centre_flat), size, yaw)
        # Tip about the bottom edge (axis along the wall) so the far side lifts onto the rail.
        pivot = np.array([pivot_xy[0], pivot_xy[1], 0.0])
        axis_deg = math.degrees(math.atan2(u[1], u[0]))
        verts = _tilt(verts, pivot, axis_deg, tilt, n_out)
        foot = verts[:, :2]
        hull = cv2.convexHull(foot.astype(np.float32)).reshape(-1, 2).astype(np.float64)
        # Both ends of the bottom edge must rest on this zone's floor.
        if not _inside(poly, [pivot_xy + u * (size / 2 - 0.5), pivot_xy - u * (size / 2 - 0.5)], 0.3):
            continue
        # Neither touches another cube nor reaches across the rail to another zone.
        others = [z for z in layout.zones if z.id != zone]
        if any(not _far(z.polygon_mm, hull, 1.5) for z in others):
            continue
        if _overlaps(hull_square(hull), placed, gap=0.5):
            continue
        centre = hull.mean(axis=0)
        return PlacedCube(color, "lean", zone, centre, yaw, hull_square(hull), verts)
    raise PlacementError(f"no wall of zone {zone!r} has room for a leaning cube")


def hull_square(hull: np.ndarray) -> np.ndarray:
    """The minimum-area rectangle around a footprint hull, as 4 corners (used for overlap tests)."""
    rect = cv2.minAreaRect(hull.astype(np.float32))
    return cv2.boxPoints(rect).astype(np.float64)


def _far(poly: np.ndarray, pts: np.ndarray, margin: float) -> bool:
    c = poly.astype(np.float32).reshape(-1, 1, 2)
    return (
        all(cv2.pointPolygonTest(c, (float(p[0]), float(p[1])), True) < -margin for p in _dense(pts))
        if len(pts) == 4
        else all(cv2.pointPolygonTest(c, (float(p[0]), float(p[1])), True) < -margin for p in pts)
    )


def _tilt(
    verts: np.ndarray, pivot: np.ndarray, axis_deg: float, tilt_deg: float, n_out: np.ndarray
) -> np.ndarray:
    axis = np.array([math.cos(math.radians(axis_deg)), math.sin(math.radians(axis_deg)), 0.0])
    for sign in (1, -1):
        rot, _ = cv2.Rodrigues(axis * math.radians(tilt_deg) * sign)
        out = (verts - pivot) @ rot.T + pivot
        # The base corner farthest toward the wall must have lifted (z < 0 is up).
        far = int(np.argmax(verts[:4, :2] @ n_out))
        if out[far, 2] < -0.1:
            return out
    raise AssertionError("tilt direction")


def _place_on_rail(
    layout: BoardLayout, color: str, rng: np.random.Generator, placed: list[PlacedCube]
) -> PlacedCube:
    size, rail_h = layout.cube_size_mm, layout.rail_height_mm
    W, H = layout.size_mm
    for _ in range(2000):
        yaw = rng.uniform(0, 90) if rng.random() < 0.5 else rng.choice([0.0, 90.0]) + rng.normal(0, 3)
        c = rng.uniform([size, size], [W - size, H - size])
        sq = square_corners(c, size, yaw)
        dense = _dense(sq)
        if dense.min() < 2 or np.any(dense[:, 0] > W - 2) or np.any(dense[:, 1] > H - 2):
            continue
        if _distance_to_zones(layout, dense) < 2.0 or _marker_keepout(layout, sq):
            continue
        if _overlaps(sq, placed):
            continue
        return PlacedCube(color, "rail", None, c, yaw, sq, box_vertices(tuple(c), size, yaw, base_z=-rail_h))
    raise PlacementError("no room left on the rails for another cube")


# ---------------------------------------------------------------- scenes


def random_cube_specs(
    layout: BoardLayout,
    rng: np.random.Generator,
    n: int,
    colors: tuple[str, ...] = ("red", "blue", "green", "yellow", "black"),
    rail_prob: float = 0.04,
    lean_prob: float = 0.1,
) -> list[dict[str, Any]]:
    """Cube requests as a drop might leave them: zones chosen at random, a few on rails or leaning."""
    zone_ids = [z.id for z in layout.zones]
    n_colors = int(rng.integers(1, min(4, len(colors)) + 1))
    used = list(rng.choice(colors, size=n_colors, replace=False))
    specs: list[dict[str, Any]] = []
    for _ in range(n):
        color = str(used[int(rng.integers(len(used)))])
        r = rng.random()
        if r < rail_prob:
            specs.append({"color": color, "zone": None})
        elif r < rail_prob + lean_prob:
            specs.append({"color": color, "zone": str(rng.choice(zone_ids)), "lean": True})
        else:
            specs.append({"color": color, "zone": str(rng.choice(zone_ids))})
    return specs


def random_variation(
    rng: np.random.Generator, max_tilt_deg: float = 30.0, light_strength: float = 1.0
) -> dict[str, Any]:
    """A random camera, light and image quality within the stated ranges."""
    return {
        "tilt_deg": float(rng.uniform(0, max_tilt_deg)),
        "azimuth_deg": float(rng.uniform(0, 360)),
        "roll_deg": float(rng.normal(0, 4)),
        "hfov_deg": float(rng.uniform(52, 78)),
        "fill": float(rng.uniform(0.5, 0.8)),
        "k1": float(rng.uniform(-0.12, 0.04)),
        "lighting": random_lighting(rng, light_strength),
        "noise_sigma": float(rng.uniform(1.0, 4.0)),
        "blur_sigma": float(rng.uniform(0.3, 1.1)),
        "jpeg_quality": int(rng.integers(80, 96)),
        "art_seed": int(rng.integers(0, 6)),
        "cube_seed": int(rng.integers(0, 1000)),
        "color_jitter": 8.0,
        "shadows": True,
    }


def make_camera(
    layout: BoardLayout,
    size: tuple[int, int],
    tilt_deg: float,
    azimuth_deg: float,
    roll_deg: float,
    hfov_deg: float,
    fill: float,
    k1: float,
    rng: np.random.Generator,
) -> PinholeCamera:
    """A camera framing the whole board: `fill` is the share of the image width the board spans."""
    W, H = layout.size_mm
    target = (W / 2 + rng.normal(0, 6), H / 2 + rng.normal(0, 6))
    tanh = math.tan(math.radians(hfov_deg) / 2)
    distance = max(W / (fill * 2 * tanh), H * size[0] / size[1] / (fill * 2 * tanh))
    corners = np.array([[0, 0, 0], [W, 0, 0], [W, H, 0], [0, H, 0]], np.float64)
    for _ in range(30):
        cam = look_at_camera(
            target, distance, tilt_deg, azimuth_deg, roll_deg, hfov_deg, size, dist=(k1, 0.0, 0.0, 0.0, 0.0)
        )
        px = cam.project(corners, distort=True)
        margin = 0.03 * size[0]
        if px.min() > margin and px[:, 0].max() < size[0] - margin and px[:, 1].max() < size[1] - margin:
            return cam
        distance *= 1.08
    return cam


def render_battle_scene(
    layout: BoardLayout, cubes: list[dict[str, Any]], rng: np.random.Generator, **variation: Any
) -> tuple[np.ndarray, dict[str, Any]]:
    """Render `cubes` (see `place_cubes`) on `layout`; returns (BGR image, truth). Variation keys not
    given are drawn from `rng` (see `random_variation`); extra keys: size=(w, h), hide_markers=[ids],
    hand=bool, camera=PinholeCamera."""
    var = random_variation(rng, variation.get("max_tilt_deg", 30.0), variation.get("light_strength", 1.0))
    var.update({k: v for k, v in variation.items() if v is not None})
    size = tuple(var.get("size", (1920, 1080)))
    camera: PinholeCamera = var.get("camera") or make_camera(
        layout,
        size,
        var["tilt_deg"],
        var["azimuth_deg"],
        var["roll_deg"],
        var["hfov_deg"],
        var["fill"],
        var["k1"],
        rng,
    )
    light: Lighting = var["lighting"]
    placed = place_cubes(layout, cubes, rng)

    texture = board_texture(layout, var["art_seed"])
    hidden = list(var.get("hide_markers", []))
    if hidden:
        texture = texture.copy()
        for m in layout.markers:
            if m.id in hidden:  # a card or a coin lying over the marker
                lo = (m.corners_mm.min(axis=0) - 3) * TEXTURE_PX_PER_MM
                hi = (m.corners_mm.max(axis=0) + 3) * TEXTURE_PX_PER_MM
                cv2.rectangle(
                    texture, tuple(int(v) for v in lo), tuple(int(v) for v in hi), (120, 150, 170), -1
                )
    image = project_texture(camera, texture, TEXTURE_PX_PER_MM)

    if var.get("shadows", True) and placed:
        polys = []
        for cube in placed:
            ground = shadow_polygon(
                cube.verts, light, ground_z=-layout.rail_height_mm if cube.state == "rail" else 0.0
            )
            z = -layout.rail_height_mm if cube.state == "rail" else 0.0
            polys.append(camera.project(np.column_stack([ground, np.full(len(ground), z)])))
        image = darken_polygons(image, polys, light.shadow_strength, blur_px=3.0)

    jitter = float(var.get("color_jitter", 0.0))
    # The set of cubes is the same all session (fixed by `cube_seed`); each cube differs a little.
    paint_rng = np.random.default_rng(int(var.get("cube_seed", 0)))
    paint = {
        c: np.clip(
            np.array(v, np.float64) * paint_rng.uniform(0.85, 1.15) + paint_rng.normal(0, jitter, 3), 0, 255
        )
        for c, v in CUBE_COLORS_BGR.items()
    }
    boxes = [
        (
            cube.verts,
            BoxLook(
                tuple(
                    np.clip(
                        paint.get(cube.color, np.full(3, 128.0)) * rng.uniform(0.96, 1.04)
                        + rng.normal(0, 1.5, 3),
                        0,
                        255,
                    )
                )
            ),
        )
        for cube in placed
    ]
    draw_boxes(image, camera, boxes, light)
    if var.get("hand"):
        draw_hand(image, rng, reach=float(var.get("hand_reach", 0.5)))

    image = apply_lighting(image, light)
    image = apply_distortion(camera, image)
    image = apply_blur(image, var["blur_sigma"], var.get("motion_px", 0.0), var.get("motion_angle", 0.0))
    image = add_noise(image, rng, var["noise_sigma"])
    if var.get("jpeg_quality"):
        image = jpeg_roundtrip(image, var["jpeg_quality"])
    return image, scene_truth(placed, camera, hidden)


def scene_truth(placed: list[PlacedCube], camera: PinholeCamera, hidden_markers: list[int]) -> dict[str, Any]:
    """The reading a perfect reader gives (cube order: as placed)."""
    cubes = []
    counts: dict[str, dict[str | None, int]] = {}  # None: an explicit pose given off the rail without a zone
    redrop = []
    for i, cube in enumerate(placed):
        on_rail = cube.state == "rail"
        cubes.append(
            {
                "color": cube.color,
                "zone": None if on_rail else cube.zone,
                "center_mm": [round(float(v), 2) for v in cube.center_mm],
                "on_rail": on_rail,
                "state": cube.state,
            }
        )
        if on_rail:
            redrop.append(i)
        else:
            counts.setdefault(cube.color, {}).setdefault(cube.zone, 0)
            counts[cube.color][cube.zone] += 1
    return {
        "status": "redrop" if redrop else "ok",
        "cubes": cubes,
        "counts": counts,
        "redrop": redrop,
        "ambiguous": [],
        "camera": camera.as_json(),
        "hidden_markers": hidden_markers,
    }


def swatch_cubes(
    layout: BoardLayout, rng: np.random.Generator, jitter_mm: float = 1.0
) -> list[dict[str, Any]]:
    """One cube on each colour swatch, as a user places them for `calibrate colors`."""
    return [
        {
            "color": sw.color,
            "center_mm": (sw.center_mm + rng.normal(0, jitter_mm, 2)).tolist(),
            "yaw_deg": float(rng.uniform(-15, 15)),
            "state": "rail",
            "zone": None,
        }
        for sw in layout.swatches
    ]


@dataclass
class LightSession:
    """One benchmark light session: a board print, cube paints and a light drawn from one seed, the
    calibration image of the swatches under it, and its scenes (`scenes`: (cube specs, image, truth), each
    with a camera of its own). The benchmark and the tests draw them here, so a session and scene number
    always name the same image."""

    fixed: dict[str, Any]
    calibration: np.ndarray
    scenes: Iterator[tuple[list[dict[str, Any]], np.ndarray, dict[str, Any]]]
    # The board before the first drop (the swatch cubes lifted), through the calibration's camera under
    # its light: the optional second calibration photo. Rendered when called (the same draws as the
    # calibration photo's camera, from a copy of the generator), so the scenes stay those of the seed.
    bare_photo: Callable[[], np.ndarray] = field(default=lambda: np.zeros((1, 1, 3), np.uint8))


def light_session(
    layout: BoardLayout, seed: int, size: tuple[int, int] = (1920, 1080), max_cubes: int = 24
) -> LightSession:
    rng = np.random.default_rng(seed)
    var = random_variation(rng)
    fixed = {k: var[k] for k in ("lighting", "art_seed", "color_jitter", "cube_seed")}
    on_swatches = swatch_cubes(layout, rng)
    before = copy.deepcopy(rng)
    calibration, _ = render_battle_scene(layout, on_swatches, rng, size=size, **fixed)

    def bare_photo() -> np.ndarray:
        return render_battle_scene(layout, [], copy.deepcopy(before), size=size, **fixed)[0]

    def scenes() -> Iterator[tuple[list[dict[str, Any]], np.ndarray, dict[str, Any]]]:
        while True:
            specs = random_cube_specs(layout, rng, int(rng.integers(0, max_cubes + 1)))
            image, truth = render_battle_scene(layout, specs, rng, size=size, **fixed)
            yield specs, image, truth

    return LightSession(fixed, calibration, scenes(), bare_photo)
