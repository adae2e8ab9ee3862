"""Synthetic camera images of the whole table: the Harbor, the 3x4 ocean grid with Ocean boards face up
(busy art and their DICT_5X5 marker) or face down (back art, no marker), ships whose marker stands
`marker_height_mm` above the table on a mast, hands and arms, glare, varied light and camera pose.

Owns: table scene synthesis and its exact ground truth (used by tests, `bench/vision_ships.py` and the
controller's simulated camera). Builds on `vision.synth.common`; must not import the reader
(`vision.ocean_grid.reader.read_table`), so that truth never leaks into reading.
"""

from __future__ import annotations

import copy
import math
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from vision.ocean_grid.layout import TableLayout, load_table_layout
from vision.synth.common import (
    PinholeCamera,
    add_noise,
    apply_blur,
    apply_lighting,
    draw_aruco,
    draw_hand,
    fill_polygon_aa,
    look_at_camera,
    project_texture,
    random_lighting,
)

TEXTURE_PX_PER_MM = 2.0
SHIP_COLORS_BGR: dict[str, tuple[int, int, int]] = {
    "red": (40, 40, 200),
    "blue": (190, 90, 30),
    "green": (60, 160, 40),
    "yellow": (40, 200, 225),
    "white": (225, 225, 225),
    "black": (35, 35, 35),
    "purple": (150, 50, 130),
    "orange": (30, 130, 240),
}
BACK_BGR = (150, 40, 115)  # a saturated purple: OpenCV hue ~ 145, inside the default layout's back range
SHIP_LENGTH_MM = 50.0
SHIP_BEAM_MM = 22.0
HULL_HEIGHT_MM = 14.0
# How far from a square's edge (and from the board's marker) a ship's mast is put, in mm.
SHIP_EDGE_MARGIN_MM = 38.0
SHIP_MARKER_CLEARANCE_MM = 62.0
SHIP_SPACING_MM = 48.0


@dataclass(frozen=True)
class PlacedShip:
    name: str
    square: str | None  # "r1c2" or "harbor"; None for a spot given off every square
    x: float
    y: float
    heading_deg: float


def _draw_aruco_local(
    canvas: np.ndarray, dictionary_name: str, marker_id: int, corners_px: np.ndarray
) -> None:
    """`draw_aruco` on the marker's bounding box only (a view of the canvas): same result, far faster."""
    c = np.asarray(corners_px, np.float64).reshape(4, 2)
    h, w = canvas.shape[:2]
    x0, y0 = (max(0, int(v) - 2) for v in np.floor(c.min(axis=0)))
    x1, y1 = (int(v) + 3 for v in np.ceil(c.max(axis=0)))
    x1, y1 = min(w, x1), min(h, y1)
    if x1 <= x0 or y1 <= y0:
        return
    draw_aruco(canvas[y0:y1, x0:x1], dictionary_name, marker_id, c - np.array([x0, y0]))


def _rect_of(poly: np.ndarray) -> tuple[float, float, float, float]:
    x0, y0 = poly.min(axis=0)
    x1, y1 = poly.max(axis=0)
    return float(x0), float(y0), float(x1), float(y1)


def random_table_setup(
    layout: TableLayout,
    rng: np.random.Generator,
    n_ships: int | None = None,
    face_up_fraction: float | None = None,
) -> tuple[dict[str, str | None], dict[str, str]]:
    """A random deal: which board is face up on each square (None = face down) and each ship's square."""
    names = list(layout.boards.ids)
    rng.shuffle(names)
    frac = rng.uniform(0.25, 1.0) if face_up_fraction is None else face_up_fraction
    boards: dict[str, str | None] = {}
    for i, sq in enumerate(layout.squares):
        up = sq.row == 1 or rng.random() < frac
        boards[sq.id] = names[i % len(names)] if up else None
    ship_names = list(layout.ships.ids)
    n = len(ship_names) if n_ships is None else min(n_ships, len(ship_names))
    chosen = [ship_names[i] for i in sorted(rng.choice(len(ship_names), size=n, replace=False))]
    targets = ["harbor"] + [sq.id for sq in layout.squares]
    ships = {name: targets[int(rng.integers(len(targets)))] for name in chosen}
    return boards, ships


def place_ships(layout: TableLayout, ships: dict[str, Any], rng: np.random.Generator) -> list[PlacedShip]:
    """Put each ship at a spot of its square (or the Harbor) clear of edges, board markers and other ships."""
    placed: list[PlacedShip] = []
    for name, where in ships.items():
        heading = float(rng.uniform(0, 360))
        if isinstance(where, (tuple, list)):
            x, y = float(where[0]), float(where[1])
            placed.append(PlacedShip(name, _square_at(layout, x, y), x, y, heading))
            continue
        poly = layout.harbor_mm if where == "harbor" else layout.square(where).polygon_mm
        x0, y0, x1, y1 = _rect_of(poly)
        marker = None
        if where != "harbor":
            ox, oy = layout.board_marker_offset_mm
            marker = (x0 + ox, y0 + oy)
        for _attempt in range(200):
            x = float(rng.uniform(x0 + SHIP_EDGE_MARGIN_MM, x1 - SHIP_EDGE_MARGIN_MM))
            y = float(rng.uniform(y0 + SHIP_EDGE_MARGIN_MM, y1 - SHIP_EDGE_MARGIN_MM))
            if marker and math.hypot(x - marker[0], y - marker[1]) < SHIP_MARKER_CLEARANCE_MM:
                continue
            if any(math.hypot(x - p.x, y - p.y) < SHIP_SPACING_MM for p in placed):
                continue
            break
        else:
            raise ValueError(f"no room left for ship {name} on {where}")
        placed.append(PlacedShip(name, str(where), x, y, heading))
    return placed


def _square_at(layout: TableLayout, x: float, y: float) -> str | None:
    if cv2.pointPolygonTest(layout.harbor_mm, (x, y), False) >= 0:
        return "harbor"
    for sq in layout.squares:
        if cv2.pointPolygonTest(sq.polygon_mm, (x, y), False) >= 0:
            return sq.id
    return None


# --- the top-down texture ------------------------------------------------------------------------


def _busy_board_art(size_px: int, rng: np.random.Generator) -> np.ndarray:
    """A face-up Ocean board: sea, an island, waves, printed text and icons (busy, like real art)."""
    sea = np.array([rng.uniform(150, 200), rng.uniform(120, 170), rng.uniform(40, 90)])
    art = np.empty((size_px, size_px, 3), np.uint8)
    art[:] = sea.astype(np.uint8)
    noise: np.ndarray = rng.normal(0, 10, (size_px // 8 + 1, size_px // 8 + 1, 1)).astype(np.float32)
    noise = cv2.resize(noise, (size_px, size_px))[..., None]
    art = np.clip(art.astype(np.float32) + noise, 0, 255).astype(np.uint8)
    for _ in range(int(rng.integers(8, 18))):  # waves
        x, y = rng.uniform(0, size_px, 2)
        r = rng.uniform(8, 30)
        cv2.ellipse(
            art,
            (int(x), int(y)),
            (int(r), int(r / 2)),
            0,
            200,
            340,
            (235, 225, 200),
            int(rng.integers(1, 3)),
            cv2.LINE_AA,
        )
    if rng.random() < 0.75:  # an island
        c = rng.uniform(0.35, 0.65, 2) * size_px
        n = int(rng.integers(7, 12))
        angles = np.sort(rng.uniform(0, 2 * math.pi, n))
        radii = rng.uniform(0.15, 0.3, n) * size_px
        pts = np.stack([c[0] + radii * np.cos(angles), c[1] + radii * np.sin(angles)], axis=1)
        cv2.fillPoly(art, [pts.astype(np.int32)], (120, 190, 215), cv2.LINE_AA)
        cv2.fillPoly(art, [((pts - c) * 0.7 + c).astype(np.int32)], (60, 140, 70), cv2.LINE_AA)
        for _ in range(int(rng.integers(2, 5))):  # cube slots, dark squares with light rims
            p = (c + rng.uniform(-0.12, 0.12, 2) * size_px).astype(int)
            s = int(size_px * 0.05)
            cv2.rectangle(art, tuple(p - s), tuple(p + s), (230, 230, 230), -1)
            cv2.rectangle(art, tuple(p - s + 3), tuple(p + s - 3), (40, 40, 40), -1)
    for _ in range(int(rng.integers(3, 8))):  # text and icons
        p = rng.uniform(0.05, 0.9, 2) * size_px
        cv2.putText(
            art,
            "".join(rng.choice(list("ABCDEFGH0123456789"), 4)),
            (int(p[0]), int(p[1])),
            cv2.FONT_HERSHEY_SIMPLEX,
            rng.uniform(0.5, 1.2),
            (20, 20, 20),
            2,
            cv2.LINE_AA,
        )
    return art


def _back_art(
    size_px: int, rng: np.random.Generator, back_bgr: tuple[int, int, int] | None = None
) -> np.ndarray:
    """A face-down Ocean board: the same back on every board (the game's purple, or `back_bgr` for
    another print), a compass rose and a rope border in a lighter and a darker shade of it."""
    art = np.empty((size_px, size_px, 3), np.uint8)
    art[:] = BACK_BGR if back_bgr is None else back_bgr
    c = size_px // 2
    if back_bgr is None:
        light: tuple[int, ...] = (185, 75, 150)
        dark: tuple[int, ...] = (110, 25, 85)
    else:
        light = tuple(int(min(255, v * 1.25 + 12)) for v in back_bgr)
        dark = tuple(int(v * 0.72) for v in back_bgr)
    cv2.circle(art, (c, c), int(size_px * 0.28), light, 3, cv2.LINE_AA)
    for k in range(8):
        a = k * math.pi / 4
        r = size_px * (0.36 if k % 2 == 0 else 0.22)
        tip = (int(c + r * math.cos(a)), int(c + r * math.sin(a)))
        cv2.line(art, (c, c), tip, light if k % 2 == 0 else dark, 4, cv2.LINE_AA)
    m = int(size_px * 0.04)
    cv2.rectangle(art, (m, m), (size_px - m, size_px - m), dark, 3)
    return art


def _harbor_art(w: int, h: int, rng: np.random.Generator) -> np.ndarray:
    art = np.empty((h, w, 3), np.uint8)
    art[:] = (90, 150, 190)
    for _ in range(12):  # towns and docks
        x, y = int(rng.uniform(0, w)), int(rng.uniform(0, h))
        cv2.rectangle(
            art,
            (x, y),
            (x + int(rng.uniform(20, 80)), y + int(rng.uniform(15, 50))),
            tuple(int(v) for v in rng.uniform(40, 200, 3)),
            -1,
        )
    for k in range(9):  # the achievement spaces along the top
        x = int(w * (0.05 + 0.1 * k))
        cv2.rectangle(art, (x, 10), (x + int(w * 0.08), int(h * 0.3)), (230, 230, 230), 2)
    cv2.putText(
        art,
        "HARBOR",
        (int(w * 0.35), int(h * 0.7)),
        cv2.FONT_HERSHEY_SIMPLEX,
        3.0,
        (30, 30, 60),
        6,
        cv2.LINE_AA,
    )
    return art


def render_table_texture(
    layout: TableLayout,
    boards: dict[str, Any],
    rng: np.random.Generator,
    jitter_mm: float = 4.0,
    jitter_deg: float = 2.0,
    back_bgr: tuple[int, int, int] | None = None,
) -> tuple[np.ndarray, dict[str, dict]]:
    """The table seen from straight above at TEXTURE_PX_PER_MM; returns it and per-square board truth
    (the marker's corners in table mm, so a camera view can tell whether it is visible)."""
    s = TEXTURE_PX_PER_MM
    W, H = int(layout.size_mm[0] * s), int(layout.size_mm[1] * s)
    tex = np.full((H, W, 3), 236, np.uint8)
    tex += rng.integers(0, 6, (1, 1, 3), dtype=np.uint8)  # the frame's white is never quite the same
    # Frame markers with their quiet zone (the frame is white).
    for m in layout.markers:
        _draw_aruco_local(tex, layout.aruco_dictionary, m.id, m.corners_mm * s)
    # Harbor.
    hx0, hy0, hx1, hy1 = (int(v * s) for v in _rect_of(layout.harbor_mm))
    tex[hy0:hy1, hx0:hx1] = _harbor_art(hx1 - hx0, hy1 - hy0, rng)
    # The table cloth between boards.
    truth: dict[str, dict] = {}
    bsize = layout.boards.marker_size_mm
    for sq in layout.squares:
        x0, y0, x1, y1 = _rect_of(sq.polygon_mm)
        cv2.rectangle(tex, (int(x0 * s), int(y0 * s)), (int(x1 * s), int(y1 * s)), (70, 80, 85), -1)
    for sq in layout.squares:
        spec = boards.get(sq.id)
        if isinstance(spec, dict):
            name, face_up = spec.get("board"), bool(spec.get("face_up", spec.get("board") is not None))
        else:
            name, face_up = spec, spec is not None
        x0, y0, x1, y1 = _rect_of(sq.polygon_mm)
        side_mm = min(x1 - x0, y1 - y0) - 4.0
        side_px = int(side_mm * s)
        art = _busy_board_art(side_px, rng) if face_up else _back_art(side_px, rng, back_bgr)
        # Where the board lies: nearly aligned with its square, a little off.
        dx, dy = rng.uniform(-jitter_mm, jitter_mm, 2)
        ang = math.radians(rng.uniform(-jitter_deg, jitter_deg))
        cx, cy = (x0 + x1) / 2 + dx, (y0 + y1) / 2 + dy
        rot = np.array([[math.cos(ang), -math.sin(ang)], [math.sin(ang), math.cos(ang)]])

        def to_table(
            p_board_mm: np.ndarray,
            cx: float = cx,
            cy: float = cy,
            rot: np.ndarray = rot,
            side_mm: float = side_mm,
        ) -> np.ndarray:
            return (np.asarray(p_board_mm, float) - side_mm / 2) @ rot.T + np.array([cx, cy])

        src = np.array([[0, 0], [side_px, 0], [side_px, side_px], [0, side_px]], np.float32)
        dst = to_table(np.array([[0, 0], [side_mm, 0], [side_mm, side_mm], [0, side_mm]])) * s
        # Warp into the board's bounding box only (a view of the texture).
        bx0, by0 = (max(0, int(v) - 2) for v in dst.min(axis=0))
        bx1, by1 = (min(lim, int(v) + 3) for v, lim in zip(dst.max(axis=0), (W, H), strict=True))
        M = cv2.getPerspectiveTransform(src, (dst - np.array([bx0, by0])).astype(np.float32))
        view = tex[by0:by1, bx0:bx1]
        warped = cv2.warpPerspective(art, M, (bx1 - bx0, by1 - by0), flags=cv2.INTER_LINEAR)
        mask = cv2.warpPerspective(
            np.full((side_px, side_px), 255, np.uint8), M, (bx1 - bx0, by1 - by0), flags=cv2.INTER_NEAREST
        )
        np.copyto(view, warped, where=mask[..., None] > 0)
        entry = {
            "square": sq.id,
            "face_up": face_up,
            "board": name if face_up else None,
            "marker_corners_mm": None,
        }
        if face_up and name is not None:
            # The marker's centre sits at the layout's offset from the square's corner (board corner
            # = square corner + 2 mm, before the board's own jitter), on a white quiet zone.
            ox, oy = layout.board_marker_offset_mm
            mc = np.array([ox - 2.0, oy - 2.0])
            half = bsize / 2
            quiet = half + 4.0
            qz = to_table(mc + np.array([[-quiet, -quiet], [quiet, -quiet], [quiet, quiet], [-quiet, quiet]]))
            fill_polygon_aa(tex, qz * s, (245, 245, 245))
            corners = to_table(mc + np.array([[-half, -half], [half, -half], [half, half], [-half, half]]))
            _draw_aruco_local(tex, layout.boards.aruco_dictionary, layout.boards.ids[name], corners * s)
            entry["marker_corners_mm"] = corners
        truth[sq.id] = entry
    return tex, truth


# --- ships and the camera view --------------------------------------------------------------------


def _ship_geometry(ship: PlacedShip, layout: TableLayout) -> dict[str, np.ndarray]:
    """World points (z down) of a ship: hull footprint and deck outline, mast, marker plate and marker."""
    a = math.radians(ship.heading_deg)
    fwd = np.array([math.cos(a), math.sin(a)])
    side = np.array([-fwd[1], fwd[0]])
    L, B = SHIP_LENGTH_MM / 2, SHIP_BEAM_MM / 2
    outline2d = [
        L * fwd,
        0.4 * L * fwd + B * side,
        -L * fwd + 0.8 * B * side,
        -L * fwd - 0.8 * B * side,
        0.4 * L * fwd - B * side,
    ]
    base = np.array([ship.x, ship.y])
    foot = np.array([[*(base + p), 0.0] for p in outline2d])
    deck = np.array([[*(base + p), -HULL_HEIGHT_MM] for p in outline2d])
    h = layout.ships.marker_height_mm
    half = layout.ships.marker_size_mm / 2
    # The marker turns with the ship: its top edge faces the bow.
    corners2d = [(-half, -half), (half, -half), (half, half), (-half, half)]
    right, down = side, -fwd

    def plate(r: float) -> np.ndarray:
        return np.array(
            [[*(base + (cx * r / half) * right + (cy * r / half) * down), -h] for cx, cy in corners2d]
        )

    return {
        "foot": foot,
        "deck": deck,
        "mast": np.array([[ship.x, ship.y, -HULL_HEIGHT_MM], [ship.x, ship.y, -h]]),
        "plate": plate(half + 4.0),
        "marker": plate(half),
    }


def _draw_ship(
    image: np.ndarray,
    labels: np.ndarray,
    label: int,
    camera: PinholeCamera,
    ship: PlacedShip,
    layout: TableLayout,
    color: tuple[int, int, int],
) -> np.ndarray:
    g = _ship_geometry(ship, layout)
    foot, deck = camera.project(g["foot"]), camera.project(g["deck"])
    hull = cv2.convexHull(np.vstack([foot, deck]).astype(np.float32)).reshape(-1, 2)
    dark = tuple(int(c * 0.55) for c in color)
    fill_polygon_aa(image, hull, dark)
    fill_polygon_aa(image, deck, color)
    cv2.fillPoly(labels, [np.round(hull).astype(np.int32)], label)
    mast = camera.project(g["mast"])
    three_mm = camera.project(g["mast"][1:] + np.array([[3.0, 0.0, 0.0]]))
    thick = max(2, int(round(float(np.linalg.norm(three_mm[0] - mast[1])))))
    cv2.line(
        image,
        tuple(np.round(mast[0]).astype(int)),
        tuple(np.round(mast[1]).astype(int)),
        (40, 60, 90),
        thick,
        cv2.LINE_AA,
    )
    plate = camera.project(g["plate"])
    fill_polygon_aa(image, plate, (240, 240, 240))
    cv2.fillPoly(labels, [np.round(plate).astype(np.int32)], label)
    marker = camera.project(g["marker"])
    _draw_aruco_local(image, layout.ships.aruco_dictionary, layout.ships.ids[ship.name], marker)
    return marker


def _fits(camera: PinholeCamera, pts: np.ndarray, margin: float) -> bool:
    px = camera.project(pts)
    return bool(
        np.all(px[:, 0] > margin)
        and np.all(px[:, 0] < camera.width - margin)
        and np.all(px[:, 1] > margin)
        and np.all(px[:, 1] < camera.height - margin)
    )


def random_camera(
    layout: TableLayout,
    rng: np.random.Generator,
    max_tilt_deg: float = 30.0,
    size: tuple[int, int] = (1920, 1080),
) -> PinholeCamera:
    """A camera above the table that sees all of it, tilted up to `max_tilt_deg`, the table's long side
    along the image's long side; as close as the view allows."""
    W, H = layout.size_mm
    corners = np.array([[0, 0, 0], [W, 0, 0], [W, H, 0], [0, H, 0]], float)
    tilt = float(rng.uniform(0, max_tilt_deg))
    az = float(rng.uniform(0, 360))
    hfov = float(rng.uniform(58, 72))
    long_side_across = (W > H) == (size[0] > size[1])
    roll = float(rng.uniform(-8, 8)) + (0.0 if long_side_across else (90.0 if rng.random() < 0.5 else -90.0))
    target = (W / 2 + rng.uniform(-20, 20), H / 2 + rng.uniform(-20, 20))
    margin = 0.02 * min(size)
    lo, hi = 300.0, 6000.0
    for _ in range(30):
        mid = (lo + hi) / 2
        cam = look_at_camera(target, mid, tilt, az, roll, hfov, size)
        if _fits(cam, corners, margin):
            hi = mid
        else:
            lo = mid
    return look_at_camera(target, hi * rng.uniform(1.0, 1.08), tilt, az, roll, hfov, size)


def _glare(image: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """A specular highlight: an elliptical additive blob that clips to white at its core."""
    h, w = image.shape[:2]
    field = np.zeros((h // 4, w // 4), np.float32)
    c = (int(rng.uniform(0.1, 0.9) * w / 4), int(rng.uniform(0.1, 0.9) * h / 4))
    axes = (int(rng.uniform(15, 60)), int(rng.uniform(10, 40)))
    cv2.ellipse(field, c, axes, float(rng.uniform(0, 180)), 0, 360, 1.0, -1)
    field = cv2.GaussianBlur(field, (0, 0), float(rng.uniform(4, 12)))
    field = cv2.resize(field, (w, h)) * float(rng.uniform(150, 320))
    return field


def render_table_scene(
    layout: TableLayout | dict | str,
    boards: dict[str, Any],
    ships: dict[str, Any],
    rng: np.random.Generator,
    **variation: Any,
) -> tuple[np.ndarray, dict]:
    """Render one camera frame of the table. `boards`: square id -> board name (face up) or None (face
    down). `ships`: ship name -> square id, "harbor" or an (x, y) position in mm.

    Variation keywords (all optional): max_tilt_deg (30), camera (a PinholeCamera), hands (count;
    default random 0-2), glare (bool; default random), light_strength (1.0), noise_sigma, blur_sigma,
    size ((1920, 1080)), back_bgr (the boards' back print; default the game's purple).
    Returns the BGR image and the truth: per square the board, whether its marker is visible and the
    share of the square a hand or an arm covers, per ship its square, position and whether its marker
    is visible."""
    layout = load_table_layout(layout)
    for name in ships:
        if name not in layout.ships.ids:
            raise ValueError(
                f"ship {name!r} has no marker in the table layout ({', '.join(layout.ships.ids)})"
            )
    squares = {sq.id for sq in layout.squares}
    for sq_id, spec in boards.items():
        board_name = spec.get("board") if isinstance(spec, dict) else spec
        if sq_id not in squares:
            raise ValueError(f"{sq_id!r} is not a square of the table layout")
        if board_name is not None and board_name not in layout.boards.ids:
            raise ValueError(f"board {board_name!r} has no marker in the table layout")
    size = tuple(variation.get("size", (1920, 1080)))
    camera: PinholeCamera = variation.get("camera") or random_camera(
        layout, rng, float(variation.get("max_tilt_deg", 30.0)), size
    )
    tex, board_truth = render_table_texture(layout, boards, rng, back_bgr=variation.get("back_bgr"))
    image = project_texture(camera, tex, TEXTURE_PX_PER_MM)
    labels = np.zeros(image.shape[:2], np.uint8)  # 0 table, 1.. ship k, 250 hand
    placed = place_ships(layout, ships, rng)
    light = random_lighting(rng, float(variation.get("light_strength", 1.0)))
    centre = camera.center_world
    order = sorted(range(len(placed)), key=lambda i: -math.dist((placed[i].x, placed[i].y, 0.0), centre))
    marker_px: dict[str, np.ndarray] = {}
    for i in order:
        ship = placed[i]
        r, g, b = (int(v) for v in rng.integers(30, 220, 3))
        color = SHIP_COLORS_BGR.get(ship.name, (r, g, b))
        marker_px[ship.name] = _draw_ship(image, labels, i + 1, camera, ship, layout, color)
    image = apply_lighting(image, light)
    # Hands and arms: drawn after the light so skin keeps its own tone; the same draws on a mask give truth.
    n_hands = variation.get("hands")
    if n_hands is None:
        n_hands = int(rng.choice([0, 0, 1, 1, 2]))
    for _ in range(int(n_hands)):
        reach = float(rng.uniform(0.3, 0.6))
        mask_rng = copy.deepcopy(rng)
        draw_hand(image, rng, reach=reach)
        hand_mask = np.zeros_like(image)
        draw_hand(hand_mask, mask_rng, reach=reach)
        labels[hand_mask.max(axis=2) > 0] = 250
    glare_field = np.zeros(image.shape[:2], np.float32)
    want_glare = variation.get("glare")
    if want_glare is None:
        want_glare = rng.random() < 0.35
    if want_glare:
        glare_field = _glare(image, rng)
        image = np.clip(image.astype(np.float32) + glare_field[..., None], 0, 255).astype(np.uint8)
    image = apply_blur(image, float(variation.get("blur_sigma", rng.uniform(0.0, 0.9))))
    image = add_noise(image, rng, float(variation.get("noise_sigma", rng.uniform(1.0, 4.0))))

    def visible(quad_px: np.ndarray, own_label: int) -> bool:
        if not _inside_image(quad_px, camera):
            return False
        x0, y0 = (max(0, int(v) - 4) for v in np.floor(quad_px.min(axis=0)))
        x1, y1 = (int(v) + 5 for v in np.ceil(quad_px.max(axis=0)))
        m: np.ndarray = np.zeros((y1 - y0, x1 - x0), np.uint8)
        cv2.fillPoly(m, [np.round(quad_px - np.array([x0, y0])).astype(np.int32)], 1)
        m = cv2.dilate(m, np.ones((5, 5), np.uint8))  # the quiet zone's first pixels count too
        sel = m > 0
        return bool(
            np.all(labels[y0:y1, x0:x1][sel] == own_label)
            and float(glare_field[y0:y1, x0:x1][sel].max(initial=0.0)) < 40.0
        )

    ships_truth = []
    for i, ship in enumerate(placed):
        ships_truth.append(
            {
                "ship": ship.name,
                "square": ship.square,
                "position_mm": [ship.x, ship.y],
                "marker_visible": visible(marker_px[ship.name], i + 1),
            }
        )

    def hand_share(poly_mm: np.ndarray) -> float:
        """The share of a square's area in view that a hand or an arm covers."""
        quad = camera.project(np.column_stack([poly_mm, np.zeros(len(poly_mm))]))
        m: np.ndarray = np.zeros(labels.shape, np.uint8)
        cv2.fillPoly(m, [np.round(quad).astype(np.int32)], 1)
        inside = m > 0
        return float((labels[inside] == 250).mean()) if inside.any() else 0.0

    boards_truth = []
    for sq in layout.squares:
        entry = board_truth[sq.id]
        vis = False
        if entry["marker_corners_mm"] is not None:
            quad = camera.project(np.column_stack([entry["marker_corners_mm"], np.zeros(4)]))
            vis = visible(quad, 0)
        boards_truth.append(
            {
                "square": sq.id,
                "face_up": entry["face_up"],
                "board": entry["board"],
                "marker_visible": vis,
                "hand_cover": round(hand_share(sq.polygon_mm), 3) if n_hands else 0.0,
            }
        )
    frame_visible = sum(
        1 for m in layout.markers if visible(camera.project(np.column_stack([m.corners_mm, np.zeros(4)])), 0)
    )
    truth = {
        "camera": {**camera.as_json(), "center_mm": camera.center_world.tolist()},
        "boards": boards_truth,
        "ships": ships_truth,
        "frame_markers_visible": frame_visible,
    }
    return image, truth


def _inside_image(px: np.ndarray, camera: PinholeCamera, margin: float = 2.0) -> bool:
    return bool(
        np.all(px[:, 0] >= margin)
        and np.all(px[:, 0] < camera.width - margin)
        and np.all(px[:, 1] >= margin)
        and np.all(px[:, 1] < camera.height - margin)
    )
