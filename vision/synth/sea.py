"""The Great Sea's map on the table, rendered: the layout file (`smart-table/table-layout@1` with
`"game": "great-sea"`) for any Main Board side, its print, the pieces (Ships upright or laid down when
Damaged, Strongholds, Outposts) as solid wooden blocks, and the tuning set (`tuning_scene`).

Must not import the reader: the truth never leaks into reading. The held-out generator, with its own
print, light and camera distributions, is `vision/synth/sea_heldout.py`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from rules.great_sea.map import spec
from vision.synth.common import (
    BoxLook,
    Lighting,
    PinholeCamera,
    add_noise,
    apply_blur,
    apply_distortion,
    apply_lighting,
    darken_polygons,
    draw_aruco,
    draw_boxes,
    jpeg_roundtrip,
    look_at_camera,
    project_texture,
    shadow_polygon,
)

TEX_PX_PER_MM = 2.0
MARGIN_MM = 70.0  # white frame around the map, where the frame markers lie
MARKER_MM = 40.0
# The rulebook's four player colours, as printed paint (sRGB).
PLAYERS: dict[str, str] = {"red": "#b3262e", "yellow": "#e8b923", "purple": "#6a3d9a", "black": "#262626"}
# Wooden pieces (length, width, height in mm) as they stand when whole; a Damaged Ship lies on its side.
PIECES: dict[str, list[float]] = {
    "small": [22.0, 8.0, 16.0],
    "medium": [28.0, 8.0, 20.0],
    "large": [34.0, 10.0, 24.0],
    "stronghold": [16.0, 16.0, 20.0],
    "outpost": [12.0, 12.0, 12.0],
}
SHIPS = ("small", "medium", "large")


def layout_dict(side: str = "4", seed: int = 0, jitter: float = 14.0, cell: float = 100.0) -> dict[str, Any]:
    """A table layout of the `side`-player map: the engine's regions on its grid, their shared borders
    bent by `jitter` mm (seeded), the map on white paper with 8 frame markers around it."""
    m = spec(side)
    rows, cols = int(m["rows"]), int(m["cols"])
    rng = np.random.default_rng(seed)
    x0 = y0 = MARGIN_MM
    nodes = np.zeros((rows + 1, cols + 1, 2))
    for r in range(rows + 1):
        for c in range(cols + 1):
            j = rng.uniform(-jitter, jitter, 2) if 0 < r < rows and 0 < c < cols else np.zeros(2)
            nodes[r, c] = [x0 + c * cell + j[0], y0 + r * cell + j[1]]
    # Each border bends at its middle (the same point for both regions that share it).
    hmid: dict[tuple[int, int], np.ndarray] = {}
    vmid: dict[tuple[int, int], np.ndarray] = {}
    for r in range(rows + 1):
        for c in range(cols):
            mid = (nodes[r, c] + nodes[r, c + 1]) / 2
            if 0 < r < rows:
                mid = mid + np.array([0.0, rng.uniform(-jitter, jitter)])
            hmid[(r, c)] = mid
    for r in range(rows):
        for c in range(cols + 1):
            mid = (nodes[r, c] + nodes[r + 1, c]) / 2
            if 0 < c < cols:
                mid = mid + np.array([rng.uniform(-jitter, jitter), 0.0])
            vmid[(r, c)] = mid
    regions = []
    for rid in m["regions"]:
        r, c = int(rid[1 : rid.index("c")]), int(rid[rid.index("c") + 1 :])
        poly = [
            nodes[r, c],
            hmid[(r, c)],
            nodes[r, c + 1],
            vmid[(r, c + 1)],
            nodes[r + 1, c + 1],
            hmid[(r + 1, c)],
            nodes[r + 1, c],
            vmid[(r, c)],
        ]
        regions.append(
            {"id": rid, "polygon_mm": [[round(float(p[0]), 1), round(float(p[1]), 1)] for p in poly]}
        )
    width, height = 2 * MARGIN_MM + cols * cell, 2 * MARGIN_MM + rows * cell
    s, e = 15.0, 15.0 + MARKER_MM
    spots = [
        (s, s),
        (width / 2 - MARKER_MM / 2, s),
        (width - e, s),
        (width - e, height / 2 - MARKER_MM / 2),
        (width - e, height - e),
        (width / 2 - MARKER_MM / 2, height - e),
        (s, height - e),
        (s, height / 2 - MARKER_MM / 2),
    ]
    markers = [
        {
            "id": i,
            "corners_mm": [[x, y], [x + MARKER_MM, y], [x + MARKER_MM, y + MARKER_MM], [x, y + MARKER_MM]],
        }
        for i, (x, y) in enumerate(spots)
    ]
    return {
        "schema": "smart-table/table-layout@1",
        "game": "great-sea",
        "map": side,
        "name": f"great-sea-{side}",
        "_comment": "Millimetres, origin at the table area's top-left, x right, y down. Region ids are the "
        "rules engine's (rules/data/great_sea/maps.json). See docs/great-sea.md.",
        "size_mm": [width, height],
        "aruco_dictionary": "DICT_4X4_50",
        "markers": markers,
        "regions": regions,
        "players": dict(PLAYERS),
        "pieces": {k: {"size_mm": v} for k, v in PIECES.items()},
    }


@dataclass
class Piece:
    owner: str
    kind: str
    damaged: bool
    center: tuple[float, float]
    yaw_deg: float
    region: str

    def dims(self, pieces: dict[str, list[float]]) -> tuple[float, float, float]:
        length, width, height = pieces[self.kind]
        return (length, height, width) if self.damaged else (length, width, height)


def box(center: tuple[float, float], dims: tuple[float, float, float], yaw_deg: float) -> np.ndarray:
    """The 8 corners (world frame, z down) of a block on the table: bottom 0-3, top 4-7."""
    length, width, height = dims
    a = math.radians(yaw_deg)
    u = np.array([math.cos(a), math.sin(a)]) * length / 2
    v = np.array([-math.sin(a), math.cos(a)]) * width / 2
    c = np.asarray(center, np.float64)
    foot = np.array([c - u - v, c + u - v, c + u + v, c - u + v])
    return np.vstack([np.column_stack([foot, np.zeros(4)]), np.column_stack([foot, np.full(4, -height)])])


def footprint(piece: Piece, pieces: dict[str, list[float]]) -> np.ndarray:
    return box(piece.center, piece.dims(pieces), piece.yaw_deg)[:4, :2]


def place_pieces(
    layout: dict[str, Any],
    rng: np.random.Generator,
    players: list[str],
    per_region: tuple[int, int] = (0, 4),
    gap_mm: float = 5.0,
    margin_mm: float = 8.0,
    damaged_rate: float = 0.15,
    fill: float = 0.6,
) -> list[Piece]:
    """Random pieces on a share `fill` of the regions, 1-2 players per region, none touching another
    (at least `gap_mm` apart) nor nearer than `margin_mm` to a border."""
    pieces_mm: dict[str, list[float]] = {k: v["size_mm"] for k, v in layout["pieces"].items()}
    out: list[Piece] = []
    for reg in layout["regions"]:
        if rng.random() > fill:
            continue
        poly = np.array(reg["polygon_mm"], np.float32)
        who = list(rng.choice(players, size=min(len(players), int(rng.integers(1, 3))), replace=False))
        n = int(rng.integers(max(1, per_region[0]), per_region[1] + 1))
        placed: list[np.ndarray] = []
        for _ in range(n):
            owner = str(who[int(rng.integers(len(who)))])
            kind = str(
                rng.choice(
                    ["small", "medium", "large", "stronghold", "outpost"], p=[0.3, 0.2, 0.15, 0.2, 0.15]
                )
            )
            damaged = kind in SHIPS and bool(rng.random() < damaged_rate)
            for _try in range(40):
                x0, y0 = poly.min(axis=0)
                x1, y1 = poly.max(axis=0)
                p = Piece(
                    owner,
                    kind,
                    damaged,
                    (float(rng.uniform(x0, x1)), float(rng.uniform(y0, y1))),
                    float(rng.uniform(0, 180)),
                    reg["id"],
                )
                fp = footprint(p, pieces_mm).astype(np.float32)
                if (
                    min(
                        cv2.pointPolygonTest(poly.reshape(-1, 1, 2), (float(q[0]), float(q[1])), True)
                        for q in fp
                    )
                    < margin_mm
                ):
                    continue
                if any(_gap(fp, o) < gap_mm for o in placed):
                    continue
                placed.append(fp)
                out.append(p)
                break
    return out


def place_given(
    layout: dict[str, Any],
    wanted: dict[str, list[tuple[str, str, bool]]],
    rng: np.random.Generator,
    gap_mm: float = 8.0,
    margin_mm: float = 10.0,
) -> list[Piece]:
    """The pieces `wanted` per region (owner, kind, damaged) each at a random spot in its region, none
    nearer than `gap_mm` to another nor `margin_mm` to a border (ValueError when a region has no room)."""
    pieces_mm: dict[str, list[float]] = {k: v["size_mm"] for k, v in layout["pieces"].items()}
    out: list[Piece] = []
    polys = {r["id"]: np.array(r["polygon_mm"], np.float32) for r in layout["regions"]}
    for rid, items in wanted.items():
        poly = polys[rid]
        placed: list[np.ndarray] = []
        for owner, kind, damaged in items:
            for _try in range(400):
                x0, y0 = poly.min(axis=0)
                x1, y1 = poly.max(axis=0)
                p = Piece(
                    owner,
                    kind,
                    damaged,
                    (float(rng.uniform(x0, x1)), float(rng.uniform(y0, y1))),
                    float(rng.uniform(0, 180)),
                    rid,
                )
                fp = footprint(p, pieces_mm).astype(np.float32)
                inside = min(
                    cv2.pointPolygonTest(poly.reshape(-1, 1, 2), (float(q[0]), float(q[1])), True) for q in fp
                )
                if inside < margin_mm or any(_gap(fp, o) < gap_mm for o in placed):
                    continue
                placed.append(fp)
                out.append(p)
                break
            else:
                raise ValueError(f"no room for {owner}'s {kind} in region {rid}")
    return out


def positions_scene(
    regions: dict[str, dict[str, Any]], side: str, seed: int, tilt_deg: float = 8.0
) -> tuple[np.ndarray, dict[str, list[list[Any]]], dict[str, Any]]:
    """A photo of the engine's positions (`regions` as the public view gives them: `ships` of
    {"owner", "cls", "damaged"}, `forts` of [owner, cls]) on the shipped layout of `side`, by the tuning
    renderer under gentle light: the simulated camera of the controller's tests. Returns (image, truth,
    layout dict)."""
    rng = np.random.default_rng(30_000 + seed)
    layout = layout_dict(side)
    wanted = {
        rid: [(str(s["owner"]), str(s["cls"]), bool(s.get("damaged"))) for s in reg.get("ships", [])]
        + [(str(f[0]), str(f[1]), False) for f in reg.get("forts", [])]
        for rid, reg in regions.items()
    }
    pieces = place_given(layout, wanted, rng)
    texture = paint_map(layout, Print(), np.random.default_rng(1))
    w, h = layout["size_mm"]
    cam = framed_camera(layout, (w / 2, h / 2), tilt_deg, float(rng.uniform(0, 360)), 0.0, 60.0, (1920, 1080))
    light = Lighting(shadow_strength=0.2)
    return render(layout, texture, pieces, cam, light, rng), truth_of(pieces, layout), layout


def _gap(a: np.ndarray, b: np.ndarray) -> float:
    """Smallest distance between two convex footprints (0 when they overlap)."""
    ra, rb = a.reshape(-1, 1, 2), b.reshape(-1, 1, 2)
    if any(cv2.pointPolygonTest(rb, (float(p[0]), float(p[1])), False) >= 0 for p in a) or any(
        cv2.pointPolygonTest(ra, (float(p[0]), float(p[1])), False) >= 0 for p in b
    ):
        return 0.0
    d = [abs(cv2.pointPolygonTest(rb, (float(p[0]), float(p[1])), True)) for p in a]
    d += [abs(cv2.pointPolygonTest(ra, (float(p[0]), float(p[1])), True)) for p in b]
    return float(min(d))


def truth_of(pieces: list[Piece], layout: dict[str, Any]) -> dict[str, list[list[Any]]]:
    """Region id -> sorted [owner, kind, damaged] of the pieces in it (every region listed)."""
    out: dict[str, list[list[Any]]] = {r["id"]: [] for r in layout["regions"]}
    for p in pieces:
        out[p.region].append([p.owner, p.kind, p.damaged])
    return {k: sorted(v) for k, v in out.items()}


@dataclass
class Print:
    """How the map is printed (BGR colours)."""

    sea: tuple[int, int, int] = (150, 110, 45)
    sea_texture: float = 10.0
    island: tuple[int, int, int] = (150, 195, 215)
    border: tuple[int, int, int] = (50, 60, 70)
    border_mm: float = 2.0
    dash_mm: float = 0.0  # 0: a solid border
    icons: tuple[int, int, int] = (215, 215, 210)
    ship_icons: bool = False
    paper: tuple[int, int, int] = (238, 240, 240)


def paint_map(layout: dict[str, Any], look: Print, rng: np.random.Generator) -> np.ndarray:
    """The table's print (BGR uint8) at TEX_PX_PER_MM: paper, markers, sea, islands, icons, borders."""
    s = TEX_PX_PER_MM
    w, h = (int(round(v * s)) for v in layout["size_mm"])
    tex = np.zeros((h, w, 3), np.float32)
    tex[:] = look.paper
    m = spec(layout["map"])
    sea_mask = np.zeros((h, w), np.uint8)
    for reg in layout["regions"]:
        cv2.fillPoly(sea_mask, [np.round(np.array(reg["polygon_mm"]) * s).astype(np.int32)], 1)
    waves = cv2.GaussianBlur(rng.normal(0, 1, (h // 8 + 1, w // 8 + 1)).astype(np.float32), (0, 0), 1.5)
    waves = cv2.resize(waves, (w, h), interpolation=cv2.INTER_CUBIC)
    sea = np.array(look.sea, np.float32)[None, None, :] * (1 + look.sea_texture / 100.0 * waves[..., None])
    tex[sea_mask > 0] = sea[sea_mask > 0]
    for reg in layout["regions"]:
        poly = np.array(reg["polygon_mm"])
        c = poly.mean(axis=0)
        info = m["regions"][reg["id"]]
        # An island, its foundations (squares) and a Temple's disc: print, never a piece.
        axes = (int(rng.uniform(12, 26) * s), int(rng.uniform(8, 18) * s))
        ic = c + rng.uniform(-14, 14, 2)
        cv2.ellipse(
            tex,
            (int(ic[0] * s), int(ic[1] * s)),
            axes,
            float(rng.uniform(0, 180)),
            0,
            360,
            look.island,
            -1,
            cv2.LINE_AA,
        )
        for k, _ in enumerate(info.get("foundations", [])):
            fx, fy = ic + np.array([-8 + 10 * k, 4.0])
            cv2.rectangle(
                tex,
                (int((fx - 4) * s), int((fy - 4) * s)),
                (int((fx + 4) * s), int((fy + 4) * s)),
                look.icons,
                2,
            )
        if info.get("temple_space"):
            cv2.circle(tex, (int(ic[0] * s), int((ic[1] - 8) * s)), int(6 * s), look.icons, -1, cv2.LINE_AA)
        if look.ship_icons and "start_ships" in info:
            sx, sy = c + np.array([20.0, -25.0])
            cv2.rectangle(
                tex, (int(sx * s), int(sy * s)), (int((sx + 20) * s), int((sy + 7) * s)), look.icons, 2
            )
    for reg in layout["regions"]:
        pts = np.array(reg["polygon_mm"] + [reg["polygon_mm"][0]]) * s
        t = max(1, int(round(look.border_mm * s)))
        for a, b in zip(pts[:-1], pts[1:], strict=True):
            if look.dash_mm <= 0:
                cv2.line(tex, tuple(int(v) for v in a), tuple(int(v) for v in b), look.border, t, cv2.LINE_AA)
                continue
            n = max(1, int(np.linalg.norm(b - a) / (2 * look.dash_mm * s)))
            for k in range(n):
                p0, p1 = a + (b - a) * (2 * k) / (2 * n), a + (b - a) * (2 * k + 1) / (2 * n)
                cv2.line(
                    tex, tuple(int(v) for v in p0), tuple(int(v) for v in p1), look.border, t, cv2.LINE_AA
                )
    out = np.clip(tex, 0, 255).astype(np.uint8)
    for mk in layout["markers"]:
        draw_aruco(out, layout["aruco_dictionary"], mk["id"], np.array(mk["corners_mm"]) * s)
    return out


def _bgr(hex_colour: str) -> tuple[float, float, float]:
    return (float(int(hex_colour[5:7], 16)), float(int(hex_colour[3:5], 16)), float(int(hex_colour[1:3], 16)))


def render(
    layout: dict[str, Any],
    texture: np.ndarray,
    pieces: list[Piece],
    camera: PinholeCamera,
    light: Lighting,
    rng: np.random.Generator,
    noise: float = 2.0,
    jpeg: int = 0,
    blur: float = 0.5,
    stain: float = 0.04,
    paints: dict[str, tuple[float, float, float]] | None = None,
) -> np.ndarray:
    """The photo (BGR uint8): the print, the pieces' shadows, the pieces (each face shaded), light,
    lens, blur, noise and JPEG (`jpeg` 0: none)."""
    img = project_texture(camera, texture, TEX_PX_PER_MM, background=(40, 40, 45))
    sizes = {k: v["size_mm"] for k, v in layout["pieces"].items()}
    verts = [box(p.center, p.dims(sizes), p.yaw_deg) for p in pieces]
    shadows = [
        camera.project(np.column_stack([shadow_polygon(v, light), np.zeros(len(shadow_polygon(v, light)))]))
        for v in verts
    ]
    img = darken_polygons(img, shadows, light.shadow_strength, 2.0)
    colours = paints or {k: _bgr(v) for k, v in layout["players"].items()}
    boxes = []
    for p, v in zip(pieces, verts, strict=True):
        col = np.clip(np.array(colours[p.owner]) * (1 + rng.uniform(-stain, stain, 3)), 0, 255)
        boxes.append(
            (v, BoxLook(color_bgr=(float(col[0]), float(col[1]), float(col[2])), edge_darkening=0.2))
        )
    draw_boxes(img, camera, boxes, light)
    img = apply_lighting(img, light)
    img = apply_distortion(camera, img)
    img = apply_blur(img, blur)
    img = add_noise(img, rng, noise)
    return jpeg_roundtrip(img, jpeg) if jpeg else img


def framed_camera(
    layout: dict[str, Any],
    target: tuple[float, float],
    tilt_deg: float,
    azimuth_deg: float,
    roll_deg: float,
    hfov_deg: float,
    size: tuple[int, int],
    dist: tuple[float, ...] = (0.0, 0.0, 0.0, 0.0, 0.0),
    fill: float = 0.95,
) -> PinholeCamera:
    """The nearest camera of that aim that sees the whole table with a little room (`fill`)."""
    w, h = layout["size_mm"]
    corners = np.array([[0, 0, 0], [w, 0, 0], [w, h, 0], [0, h, 0]], np.float64)
    distance = 600.0
    while True:
        cam = look_at_camera(target, distance, tilt_deg, azimuth_deg, roll_deg, hfov_deg, size, dist)
        px = cam.project(corners)
        lo = (1 - fill) / 2
        if (
            np.all(px[:, 0] > size[0] * lo)
            and np.all(px[:, 0] < size[0] * (1 - lo))
            and np.all(px[:, 1] > size[1] * lo)
            and np.all(px[:, 1] < size[1] * (1 - lo))
        ) or distance > 4000:
            return cam
        distance *= 1.04


def tuning_pieces(seed: int, side: str = "4", rough: bool = False) -> list[Piece]:
    """The pieces of `tuning_scene(seed, side, rough)` with where they stand (for classifying errors)."""
    rng = np.random.default_rng((20_000 if rough else 10_000) + seed)
    return place_pieces(layout_dict(side), rng, list(PLAYERS)[: int(side)])


def tuning_scene(
    seed: int, side: str = "4", rough: bool = False
) -> tuple[np.ndarray, dict[str, list[list[Any]]], dict[str, Any]]:
    """One scene of the tuning set: the shipped layout's geometry, one print, gentle light, near-top
    views (tilt 0-20 degrees), 1920x1080. `rough` (the rough tuning set): paints off the declared colours,
    a coloured light half corrected, tilts to 28 degrees, more noise and JPEG, on the same print and
    layout. Returns (image, truth, layout dict)."""
    rng = np.random.default_rng((20_000 if rough else 10_000) + seed)
    layout = layout_dict(side)
    players = list(PLAYERS)[: int(side)]
    pieces = place_pieces(layout, rng, players)
    texture = paint_map(layout, Print(), np.random.default_rng(1))
    w, h = layout["size_mm"]
    cam = framed_camera(
        layout,
        (w / 2 + rng.uniform(-20, 20), h / 2 + rng.uniform(-20, 20)),
        tilt_deg=float(rng.uniform(0, 28 if rough else 20)),
        azimuth_deg=float(rng.uniform(0, 360)),
        roll_deg=float(rng.uniform(-3, 3)),
        hfov_deg=60.0,
        size=(1920, 1080),
    )
    cast = rng.uniform(0.85, 1.15, 3) if rough else np.ones(3)
    light = Lighting(
        gain=float(rng.uniform(0.75, 1.2) if rough else rng.uniform(0.9, 1.1)),
        gradient=(float(rng.uniform(-0.1, 0.1)), float(rng.uniform(-0.1, 0.1))),
        vignette=float(rng.uniform(0, 0.1)),
        direction=(float(rng.uniform(-0.4, 0.4)), float(rng.uniform(-0.4, 0.4)), 1.0),
        wb=(float(cast[0]), float(cast[1]), float(cast[2])),
        shadow_strength=float(rng.uniform(0.15, 0.3)),
    )
    paints = None
    if rough:
        paints = {}
        for name, hex_colour in layout["players"].items():
            c = np.clip(np.array(_bgr(hex_colour)) * rng.uniform(0.9, 1.1, 3), 0, 255)
            paints[name] = (float(c[0]), float(c[1]), float(c[2]))
    img = render(
        layout,
        texture,
        pieces,
        cam,
        light,
        rng,
        noise=float(rng.uniform(1, 5)) if rough else 2.0,
        jpeg=int(rng.integers(70, 96)) if rough else 0,
        blur=0.5,
        paints=paints,
    )
    return img, truth_of(pieces, layout), layout


def score(reading: dict[str, Any], truth: dict[str, list[list[Any]]]) -> dict[str, Any]:
    """A reading against the truth: pieces read right (owner, kind, damaged, region), pieces read wrong
    (a confident piece the truth does not have there), pieces left unsure, the scene exactly right."""
    right = wrong = 0
    for rid, want in truth.items():
        got = [
            [p["owner"], p["kind"], p["damaged"]] for p in reading["regions"].get(rid, {}).get("pieces", [])
        ]
        pool = [list(w) for w in want]
        for g in got:
            if g in pool:
                pool.remove(g)
                right += 1
            else:
                wrong += 1
    total = sum(len(v) for v in truth.values())
    exact = reading["status"] == "ok" and wrong == 0 and right == total
    return {
        "pieces": total,
        "right": right,
        "wrong": wrong,
        "unsure": len(reading.get("unsure", [])),
        "exact": exact,
        "wrong_yet_ok": reading["status"] == "ok" and not exact,
    }
