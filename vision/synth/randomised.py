"""Held-out, domain-randomised battle-board photos: boards, print, light and cameras the reader never saw.

Independent of the tuning renderer (`vision.synth.battle` / `vision.synth.common`): its own board designs
(written in the layout format `smart-table/board-layout@1`), its own print (paper, zone fills close to the
cube colours, textures, busy icons, printed cubes and coins, dark or light rails), its own light (lamps of
2700-7500 K with falloff, dim and noisy to bright and clipped, shadows across the board, glossy patches,
exposure and white-balance drift between calibration and play), its own projection (OpenCV's
`projectPoints` with a radial lens), JPEG and resolutions from 1280x720 to 4K. Nothing here is imported by
the reader or the calibration, and no reader setting may be tuned on its images: it measures.

A design has a flat floor (the zone wells) and raised rails (the frame and the strips between wells, at
`rail_height_mm`); cubes lie flat in a well or on a rail (re-drop). The truth comes from where each cube
was put, never from a reader.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

TEX_PX_PER_MM = 5.0
CUBE_NAMES = ("red", "blue", "green", "yellow", "black")
# Cube paint as linear reflectance (R, G, B): stained wood of each colour, varied per design.
_PAINT_RGB = {
    "red": (0.55, 0.05, 0.05),
    "blue": (0.04, 0.12, 0.45),
    "green": (0.06, 0.30, 0.07),
    "yellow": (0.75, 0.58, 0.04),
    "black": (0.025, 0.025, 0.028),
}
# Print colours close to a cube's (the hard cases) and ordinary ones, linear reflectance (R, G, B).
_NEAR_CUBE_FILLS = {
    "charcoal": (0.04, 0.04, 0.045),
    "brick": (0.40, 0.09, 0.06),
    "ochre": (0.60, 0.42, 0.08),
    "navy": (0.05, 0.08, 0.30),
    "forest": (0.08, 0.22, 0.08),
}
_PLAIN_FILLS = [
    (0.80, 0.74, 0.58),
    (0.70, 0.75, 0.78),
    (0.62, 0.55, 0.45),
    (0.85, 0.85, 0.82),
    (0.55, 0.66, 0.70),
    (0.72, 0.62, 0.70),
    (0.45, 0.50, 0.40),
]


def kelvin_rgb(kelvin: float) -> np.ndarray:
    """Relative (R, G, B) of a black body at `kelvin`, green = 1 (a fit good to a few percent 2000-10000
    K)."""
    t = kelvin / 100.0
    r = 255.0 if t <= 66 else 329.7 * (t - 60) ** -0.1332
    g = 99.47 * math.log(t) - 161.1 if t <= 66 else 288.1 * (t - 60) ** -0.0755
    b = 255.0 if t >= 66 else (0.0 if t <= 19 else 138.5 * math.log(t - 10) - 305.0)
    rgb = np.clip(np.array([r, g, b]), 1, 255) / 255.0
    return (rgb / rgb[1]) ** 2.2  # to linear


@dataclass
class Design:
    """One random board: its layout (the file a user would write), its print and its cube paints."""

    seed: int
    layout: dict[str, Any]
    texture_rgb: np.ndarray  # (H, W, 3) float32 linear reflectance at TEX_PX_PER_MM
    rail_mask: np.ndarray  # (H, W) uint8: 1 where the print is on a raised rail
    rail_h: float
    paints: dict[str, np.ndarray]
    fills: dict[str, str] = field(default_factory=dict)  # zone id -> fill name (for reports)


@dataclass
class Light:
    lamps: list[tuple[np.ndarray, float, np.ndarray]]  # (position mm, power, colour RGB)
    ambient: float
    ambient_rgb: np.ndarray
    exposure: float
    wb: np.ndarray  # camera white-balance gains (R, G, B)
    shadow_bands: list[tuple[np.ndarray, float]]  # (polygon mm, darkening 0-1)
    gloss: list[tuple[np.ndarray, float, float]]  # (centre mm, radius mm, strength)
    noise: float
    jpeg: int


@dataclass
class Shot:
    """One camera: intrinsics, distortion, pose (board mm -> camera), image size."""

    K: np.ndarray
    dist: np.ndarray
    rvec: np.ndarray
    tvec: np.ndarray
    size: tuple[int, int]
    tilt_deg: float
    eye_up: np.ndarray = field(default_factory=lambda: np.zeros(3))  # camera centre, z up

    def project(self, pts3: np.ndarray, distort: bool = True) -> np.ndarray:
        """Points (x, y, z up) in mm to pixels."""
        d = self.dist if distort else np.zeros(5)
        p = np.asarray(pts3, np.float64).reshape(-1, 3) * np.array([1.0, 1.0, -1.0])
        out, _ = cv2.projectPoints(p.reshape(-1, 1, 3), self.rvec, self.tvec, self.K, d)
        return out.reshape(-1, 2)

    def as_json(self) -> dict[str, Any]:
        return {"K": self.K.tolist(), "dist": self.dist.tolist(), "image_size": list(self.size)}


# ---------------------------------------------------------------- designs


def _square(x: float, y: float, s: float) -> list[list[float]]:
    return [[x, y], [x + s, y], [x + s, y + s], [x, y + s]]


def random_layout(
    rng: np.random.Generator, name: str
) -> tuple[dict[str, Any], list[tuple[float, float, float, float]]]:
    """A board-layout@1 dict and the wells' rectangles (x0, y0, x1, y1 mm)."""
    W, H = float(rng.integers(250, 341)), float(rng.integers(180, 241))
    frame = float(rng.uniform(22, 28))
    ms = float(rng.uniform(13, 17))
    mo = float(rng.uniform(2.5, 4.0))
    markers = [
        _square(mo, mo, ms),
        _square(W - mo - ms, mo, ms),
        _square(W - mo - ms, H - mo - ms, ms),
        _square(mo, H - mo - ms, ms),
    ]
    if rng.random() < 0.6:
        markers += [_square(mo, H / 2 - ms / 2, ms), _square(W - mo - ms, H / 2 - ms / 2, ms)]
    ids = rng.choice(50, len(markers), replace=False)
    rows, cols = int(rng.integers(2, 4)), int(rng.integers(3, 6))
    gap = float(rng.uniform(7, 12))
    x0, y0, x1, y1 = frame, frame, W - frame, H - frame - 6  # bottom frame is wider: it holds the swatches
    cw = (x1 - x0 - gap * (cols - 1)) / cols
    rh = (y1 - y0 - gap * (rows - 1)) / rows
    kinds = ["exploding", "plunder", "damage", "strength", "miss"]
    zones, wells = [], []
    for r in range(rows):
        for c in range(cols):
            zx, zy = x0 + c * (cw + gap), y0 + r * (rh + gap)
            kind = kinds[int(rng.integers(0, len(kinds)))]
            z: dict[str, Any] = {
                "id": f"z{r}{c}",
                "kind": kind,
                "polygon_mm": [
                    [round(zx, 2), round(zy, 2)],
                    [round(zx + cw, 2), round(zy, 2)],
                    [round(zx + cw, 2), round(zy + rh, 2)],
                    [round(zx, 2), round(zy + rh, 2)],
                ],
            }
            if kind == "plunder":
                z["cargo"] = int(rng.integers(0, 3))
                z["coins"] = 1 if z["cargo"] == 0 else int(rng.integers(0, 2))
            if kind == "strength":
                z["strength"] = int(rng.integers(1, 4))
            zones.append(z)
            wells.append((zx, zy, zx + cw, zy + rh))
    adjacent = []
    for r in range(rows):
        for c in range(cols):
            if c + 1 < cols:
                adjacent.append([f"z{r}{c}", f"z{r}{c + 1}"])
            if r + 1 < rows:
                adjacent.append([f"z{r}{c}", f"z{r + 1}{c}"])
    names = list(CUBE_NAMES)
    rng.shuffle(names)
    sy = H - (frame + 6) / 2
    span = W - 2 * (mo + ms + 22)
    swatches = [
        {"color": n, "center_mm": [round(mo + ms + 22 + span * (k + 0.5) / 5, 1), round(sy, 1)]}
        for k, n in enumerate(names)
    ]
    rail_h = float(rng.choice([0.0, 2.0, 3.0, 4.0]))
    layout = {
        "schema": "smart-table/board-layout@1",
        "name": name,
        "size_mm": [W, H],
        "cube_size_mm": 10,
        "rail_height_mm": rail_h,
        "aruco_dictionary": "DICT_4X4_50",
        "markers": [{"id": int(i), "corners_mm": m} for i, m in zip(ids, markers, strict=True)],
        "zones": zones,
        "adjacent": adjacent,
        "swatches": swatches,
    }
    return layout, wells


def random_design(seed: int) -> Design:
    rng = np.random.default_rng(seed)
    layout, wells = random_layout(rng, f"random-{seed}")
    W, H = layout["size_mm"]
    s = TEX_PX_PER_MM
    tw, th = int(round(W * s)), int(round(H * s))
    dark_rails = rng.random() < 0.4
    rail_rgb = (
        np.array([0.03, 0.03, 0.035]) * rng.uniform(0.6, 2.5)
        if dark_rails
        else np.array(_PLAIN_FILLS[int(rng.integers(0, len(_PLAIN_FILLS)))]) * rng.uniform(0.8, 1.1)
    )
    tex = np.empty((th, tw, 3), np.float32)
    tex[:] = rail_rgb
    _texture(tex, rng, 0.06)
    rail_mask = np.ones((th, tw), np.uint8)
    near = list(_NEAR_CUBE_FILLS)
    rng.shuffle(near)
    fills: dict[str, str] = {}
    for k, (z, (x0, y0, x1, y1)) in enumerate(zip(layout["zones"], wells, strict=True)):
        if k < 3 or rng.random() < 0.3:
            fname = near[k % len(near)]
            rgb = np.array(_NEAR_CUBE_FILLS[fname]) * rng.uniform(0.85, 1.2)
        else:
            fname = "plain"
            rgb = np.array(_PLAIN_FILLS[int(rng.integers(0, len(_PLAIN_FILLS)))]) * rng.uniform(0.85, 1.1)
        fills[z["id"]] = fname
        a, b = int(round(x0 * s)), int(round(y0 * s))
        c, d = int(round(x1 * s)), int(round(y1 * s))
        patch = np.empty((d - b, c - a, 3), np.float32)  # contiguous: OpenCV draws into it in place
        patch[:] = rgb
        _texture(patch, rng, float(rng.uniform(0.02, 0.12)))
        _icons(patch, rng, s, int(rng.integers(2, 9)))
        tex[b:d, a:c] = patch
        rail_mask[b:d, a:c] = 0
    # Swatch spots: a printed disc or ring of a random neutral or tint (what a cube covers at calibration).
    for sw in layout["swatches"]:
        cx, cy = (np.array(sw["center_mm"]) * s).astype(int)
        spot = tuple(float(v) for v in (rng.uniform(0.05, 0.8) * np.ones(3) * rng.uniform(0.8, 1.2, 3)))
        if rng.random() < 0.5:
            cv2.circle(tex, (int(cx), int(cy)), int(7 * s), spot, -1, cv2.LINE_AA)
        else:
            cv2.circle(tex, (int(cx), int(cy)), int(7 * s), spot, int(1.2 * s), cv2.LINE_AA)
    paper_white = np.array([0.86, 0.86, 0.84])
    for m in layout["markers"]:
        mc = np.array(m["corners_mm"]) * s
        x0, y0 = mc.min(axis=0)
        x1, y1 = mc.max(axis=0)
        q = int(round((x1 - x0) / 6.0 * 1.3))
        cv2.rectangle(
            tex, (int(x0) - q, int(y0) - q), (int(x1) + q, int(y1) + q), tuple(paper_white.tolist()), -1
        )
        side = int(round(x1 - x0))
        img = cv2.aruco.generateImageMarker(
            cv2.aruco.getPredefinedDictionary(cv2.aruco.DICT_4X4_50), m["id"], side
        )
        tex[int(y0) : int(y0) + side, int(x0) : int(x0) + side] = np.where(
            img[..., None] > 127, paper_white, 0.02
        )
    paints = {}
    for n in CUBE_NAMES:
        base = np.array(_PAINT_RGB[n]) * rng.uniform(0.8, 1.2) * rng.uniform(0.92, 1.08, 3)
        paints[n] = np.clip(base, 0.005, 0.9)
    return Design(
        seed, layout, np.clip(tex, 0.003, 0.95), rail_mask, float(layout["rail_height_mm"]), paints, fills
    )


def _texture(patch: np.ndarray, rng: np.random.Generator, amount: float) -> None:
    """Paper grain, a soft mottle and sometimes stripes (in place, multiplicative)."""
    h, w = patch.shape[:2]
    if h < 4 or w < 4:
        return
    low = cv2.resize(
        rng.normal(0, 1, (max(2, h // 40), max(2, w // 40))).astype(np.float32),
        (w, h),
        interpolation=cv2.INTER_CUBIC,
    )
    fine = rng.normal(0, 0.4, (h, w)).astype(np.float32)
    f = 1 + amount * (low + fine)
    if rng.random() < 0.3:
        period = rng.uniform(8, 30)
        xx = np.arange(w, dtype=np.float32)[None, :] + np.arange(h, dtype=np.float32)[:, None] * rng.uniform(
            -1, 1
        )
        f *= 1 + amount * np.sin(xx / period * 2 * math.pi)
    patch *= np.clip(f, 0.3, 2.0)[..., None]


def _icons(patch: np.ndarray, rng: np.random.Generator, s: float, n: int) -> None:
    """Busy art: lines, rings, stars, text, printed cubes and coins in random inks."""
    h, w = patch.shape[:2]
    for _ in range(n):
        kind = rng.choice(["line", "ring", "star", "text", "cube", "coin"])
        x, y = float(rng.uniform(0.1, 0.9) * w), float(rng.uniform(0.1, 0.9) * h)
        ink = tuple(
            float(v)
            for v in (
                rng.uniform(0.02, 0.6, 3) if rng.random() < 0.7 else rng.uniform(0.0, 0.08) * np.ones(3)
            )
        )
        th = max(1, int(rng.uniform(0.3, 1.2) * s))
        if kind == "line":
            cv2.line(
                patch,
                (int(x), int(y)),
                (int(rng.uniform(0, w)), int(rng.uniform(0, h))),
                ink,
                th,
                cv2.LINE_AA,
            )
        elif kind == "ring":
            cv2.circle(patch, (int(x), int(y)), int(rng.uniform(3, 12) * s), ink, th, cv2.LINE_AA)
        elif kind == "star":
            r = rng.uniform(3, 9) * s
            pts = [
                (
                    x + r * (1 if k % 2 == 0 else 0.45) * math.cos(k * math.pi / 5),
                    y + r * (1 if k % 2 == 0 else 0.45) * math.sin(k * math.pi / 5),
                )
                for k in range(10)
            ]
            cv2.fillPoly(patch, [np.round(np.array(pts)).astype(np.int32)], ink, cv2.LINE_AA)
        elif kind == "text":
            m = np.zeros((h, w), np.uint8)
            cv2.putText(
                m,
                str(rng.choice(["x2", "+1", "STR", "7", "MISS", "DMG"])),
                (int(x), int(y)),
                cv2.FONT_HERSHEY_SIMPLEX,
                float(rng.uniform(0.15, 0.35) * s),
                255,
                th,
                cv2.LINE_AA,
            )
            a = (m.astype(np.float32) / 255.0)[..., None]
            patch[:] = patch * (1 - a) + np.array(ink, np.float32) * a
        elif kind == "cube":  # a printed cube icon in a cube-like colour, a darker side beside it
            name = str(rng.choice(list(CUBE_NAMES)))
            col = np.array(_PAINT_RGB[name]) * rng.uniform(0.8, 1.2)
            e = rng.uniform(6, 9) * s
            cv2.rectangle(patch, (int(x), int(y)), (int(x + e), int(y + e)), tuple(col.tolist()), -1)
            side = np.array(
                [[x + e, y], [x + e * 1.3, y + e * 0.3], [x + e * 1.3, y + e * 1.3], [x + e, y + e]]
            )
            cv2.fillPoly(patch, [np.round(side).astype(np.int32)], tuple((col * 0.5).tolist()), cv2.LINE_AA)
        else:  # coin
            r = int(rng.uniform(3, 6) * s)
            cv2.circle(patch, (int(x), int(y)), r, (0.62, 0.46, 0.10), -1, cv2.LINE_AA)
            cv2.circle(
                patch, (int(x), int(y)), int(r * 0.7), (0.35, 0.25, 0.05), max(1, int(0.4 * s)), cv2.LINE_AA
            )


# ---------------------------------------------------------------- light and camera


def random_light(rng: np.random.Generator, design: Design) -> Light:
    W, H = design.layout["size_mm"]
    n = int(rng.integers(1, 4))
    kelvin = float(rng.uniform(2700, 7500))
    lamps = []
    for k in range(n):
        col = kelvin_rgb(kelvin if k == 0 else float(rng.uniform(2700, 7500)))
        pos = np.array([rng.uniform(-0.5, 1.5) * W, rng.uniform(-0.5, 1.5) * H, rng.uniform(500, 1400)])
        lamps.append((pos, float(rng.uniform(0.5, 1.0) if k == 0 else rng.uniform(0.15, 0.6)), col))
    # The camera's white balance: aimed at the main lamp, but auto white balance is never exact.
    wb = 1.0 / lamps[0][2] * np.exp(rng.normal(0, 0.08, 3))
    if rng.random() < 0.3:
        wb = np.exp(rng.normal(0, 0.05, 3))  # a camera left on a fixed (daylight) balance
    bands = []
    for _ in range(int(rng.integers(0, 3))):
        # A soft shadow band (a lamp arm, a player's arm off-board) across the board.
        a = rng.uniform(0, math.pi)
        c = np.array([rng.uniform(0, W), rng.uniform(0, H)])
        u = np.array([math.cos(a), math.sin(a)]) * 600
        v = np.array([-math.sin(a), math.cos(a)]) * rng.uniform(8, 40)
        bands.append((np.array([c - u - v, c + u - v, c + u + v, c - u + v]), float(rng.uniform(0.15, 0.5))))
    gloss = [
        (
            np.array([rng.uniform(0, W), rng.uniform(0, H)]),
            float(rng.uniform(8, 30)),
            float(rng.uniform(0.2, 0.9)),
        )
        for _ in range(int(rng.integers(0, 3)))
    ]
    ambient = float(rng.uniform(0.1, 0.35))
    light = Light(
        lamps,
        ambient,
        kelvin_rgb(float(rng.uniform(4000, 7000))),
        1.0,
        wb,
        bands,
        gloss,
        1.0,
        int(rng.integers(70, 96)),
    )
    # Auto-exposure aims the board's mean at a level; where it lands varies from dim (noisy, gain up) to
    # bright (light paper clipped): `level` is mid-grey paper's share of full scale before the curve.
    centre = np.array([[W / 2, H / 2, 0.0]])
    lum = float(_irradiance(light, centre, np.array([0, 0, 1.0]))[0].mean()) * float(np.mean(wb))
    level = float(np.exp(rng.uniform(math.log(0.25), math.log(1.3))))
    light.exposure = level / (lum * 2.2 * 0.6)
    light.noise = float(rng.uniform(0.5, 2.5) / min(1.0, level / 0.6) ** 0.5)
    return light


def drifted(rng: np.random.Generator, light: Light, design: Design, moved_camera: bool) -> Light:
    """The same room some minutes later: auto-exposure and auto white balance moved, shadows elsewhere
    (people move), same lamps; glossy reflections move only with the camera (they follow the view)."""
    W, H = design.layout["size_mm"]
    fresh = random_light(rng, design)
    return Light(
        light.lamps,
        light.ambient,
        light.ambient_rgb,
        light.exposure * float(np.exp(rng.normal(0, 0.12))),
        light.wb * np.exp(rng.normal(0, 0.04, 3)),
        fresh.shadow_bands if rng.random() < 0.5 else [],
        light.gloss
        if not moved_camera
        else [(np.array([rng.uniform(0, W), rng.uniform(0, H)]), r, st) for _, r, st in light.gloss],
        light.noise,
        int(rng.integers(70, 96)),
    )


def random_shot(rng: np.random.Generator, design: Design) -> Shot:
    W, H = design.layout["size_mm"]
    size = [(1280, 720), (1920, 1080), (1920, 1080), (2560, 1440), (3840, 2160)][int(rng.integers(0, 5))]
    hfov = math.radians(rng.uniform(50, 75))
    f = size[0] / 2 / math.tan(hfov / 2)
    K = np.array(
        [[f, 0, size[0] / 2 + rng.normal(0, 8)], [0, f, size[1] / 2 + rng.normal(0, 8)], [0, 0, 1.0]]
    )
    dist = np.array([rng.uniform(-0.06, 0.03), rng.uniform(-0.01, 0.01), 0, 0, 0])
    tilt = float(rng.uniform(0, 35))
    az = rng.uniform(0, 2 * math.pi)
    roll = rng.uniform(-0.3, 0.3) + (math.pi if rng.random() < 0.3 else 0.0)
    target = np.array([W / 2 + rng.normal(0, 8), H / 2 + rng.normal(0, 8), 0.0])
    t = math.radians(tilt)
    # World frame of the reader's geometry: x right, y down the board, z into the table (the camera at
    # negative z); this module's points keep z up and `Shot.project` flips it.
    direction = np.array([math.sin(t) * math.cos(az), math.sin(t) * math.sin(az), -math.cos(t)])
    fwd = -direction
    down_hint = np.array([-math.sin(roll), math.cos(roll), 0.0])
    right = np.cross(down_hint, fwd)
    right /= np.linalg.norm(right)
    down = np.cross(fwd, right)
    R = np.stack([right, down, fwd])
    rvec, _ = cv2.Rodrigues(R)
    dist_mm = 300.0
    shot = Shot(K, dist, rvec.reshape(3), np.zeros(3), size, tilt)
    corners = np.array([[0, 0, 0], [W, 0, 0], [W, H, 0], [0, H, 0]], np.float64)
    # Back off until the whole board (with a margin) is in the frame, then come closer by a random share.
    for _ in range(80):
        eye = target + dist_mm * direction
        shot.tvec = (-R @ eye).reshape(3)
        px = shot.project(corners)
        if np.all(px > 0.05 * np.array(size)) and np.all(px < 0.95 * np.array(size)):
            break
        dist_mm *= 1.05
    dist_mm *= rng.uniform(1.0, 1.12)
    eye = target + dist_mm * direction
    shot.tvec = (-R @ eye).reshape(3)
    shot.eye_up = np.array([eye[0], eye[1], -eye[2]])
    return shot


# ---------------------------------------------------------------- cubes


@dataclass
class Cube:
    color: str
    center: np.ndarray  # footprint centre (mm)
    yaw: float
    z: float  # base height (0 in a well, rail height on a rail)
    zone: str | None  # None: on a rail (re-drop)
    size: float = 10.0


def _corners(c: np.ndarray, size: float, yaw: float) -> np.ndarray:
    ca, sa = math.cos(yaw), math.sin(yaw)
    u, v = np.array([ca, sa]) * size / 2, np.array([-sa, ca]) * size / 2
    return np.array([c - u - v, c + u - v, c + u + v, c - u + v])


def random_cubes(rng: np.random.Generator, design: Design, n: int) -> list[Cube]:
    """`n` cubes: most flat in a well (anywhere at least 1.5 mm inside it), some on a rail."""
    L = design.layout
    W, H = L["size_mm"]
    wells = [(z["id"], np.array(z["polygon_mm"])) for z in L["zones"]]
    keep_out = [np.array(m["corners_mm"]) for m in L["markers"]]
    sw = [np.array(s["center_mm"]) for s in L["swatches"]]
    cubes: list[Cube] = []
    for _ in range(n):
        for _try in range(60):
            yaw = float(rng.uniform(0, math.pi / 2))
            on_rail = rng.random() < 0.12
            color = str(rng.choice(list(CUBE_NAMES)))
            if on_rail:
                c = np.array([rng.uniform(8, W - 8), rng.uniform(8, H - 8)])
                z, zone = design.rail_h, None
            else:
                zid, poly = wells[int(rng.integers(0, len(wells)))]
                lo, hi = poly.min(axis=0), poly.max(axis=0)
                c = np.array([rng.uniform(lo[0] + 8.6, hi[0] - 8.6), rng.uniform(lo[1] + 8.6, hi[1] - 8.6)])
                z, zone = 0.0, zid
            sq = _corners(c, 10.0, yaw)
            if on_rail:
                if np.any(sq < 1.5) or np.any(sq[:, 0] > W - 1.5) or np.any(sq[:, 1] > H - 1.5):
                    continue
                # Wholly on the rail: 1.5 mm clear of every well (a re-drop nobody can doubt).
                if any(_poly_dist(poly, sq) < 1.5 for _, poly in wells):
                    continue
            if any(
                np.all(sq.max(axis=0) > m.min(axis=0) - 2) and np.all(sq.min(axis=0) < m.max(axis=0) + 2)
                for m in keep_out
            ):
                continue
            if any(np.linalg.norm(c - s) < 16 for s in sw):
                continue
            if any(np.linalg.norm(c - o.center) < 15.0 for o in cubes):
                continue
            cubes.append(Cube(color, c, yaw, z, zone))
            break
    return cubes


def _poly_dist(poly: np.ndarray, pts: np.ndarray) -> float:
    """Smallest signed distance of `pts` to a rectangle `poly` (negative: inside)."""
    lo, hi = poly.min(axis=0), poly.max(axis=0)
    best = math.inf
    for p in pts:
        dx = max(lo[0] - p[0], 0, p[0] - hi[0])
        dy = max(lo[1] - p[1], 0, p[1] - hi[1])
        d = math.hypot(dx, dy) if dx or dy else -min(p[0] - lo[0], hi[0] - p[0], p[1] - lo[1], hi[1] - p[1])
        best = min(best, d)
    # A square can straddle a rectangle with all corners outside: test the centre too.
    c = pts.mean(axis=0)
    if lo[0] < c[0] < hi[0] and lo[1] < c[1] < hi[1]:
        best = min(best, -1.0)
    return best


def swatch_cubes(rng: np.random.Generator, design: Design) -> list[Cube]:
    return [
        Cube(
            s["color"],
            np.array(s["center_mm"]) + rng.normal(0, 1.0, 2),
            float(rng.uniform(-0.25, 0.25)),
            design.rail_h,
            None,
        )
        for s in design.layout["swatches"]
    ]


# ---------------------------------------------------------------- rendering


def _irradiance(light: Light, pts: np.ndarray, normal: np.ndarray) -> np.ndarray:
    """Light (linear RGB) falling on points (N, 3) with one normal (3,)."""
    out = np.tile(light.ambient * light.ambient_rgb, (len(pts), 1))
    for pos, power, col in light.lamps:
        d = pos[None, :] - pts
        r = np.linalg.norm(d, axis=1)
        cos = np.clip((d @ normal) / r, 0, 1)
        out += (power * cos * (900.0 / r) ** 2)[:, None] * col[None, :]
    return out


def render(
    design: Design, cubes: list[Cube], light: Light, shot: Shot, rng: np.random.Generator
) -> np.ndarray:
    """The photo (BGR uint8) of the board with `cubes` under `light` through `shot`."""
    w, h = shot.size
    s = TEX_PX_PER_MM
    W, H = design.layout["size_mm"]
    th, tw = design.texture_rgb.shape[:2]
    # Light on the print, in texture space (coarse grid, then resized: it is smooth).
    gy, gx = np.mgrid[0:th:8, 0:tw:8]
    pts = np.stack([gx.ravel() / s, gy.ravel() / s, np.zeros(gx.size)], 1)
    irr: np.ndarray = (
        _irradiance(light, pts, np.array([0, 0, 1.0])).reshape(gx.shape + (3,)).astype(np.float32)
    )
    irr = cv2.resize(irr, (tw, th), interpolation=cv2.INTER_LINEAR)
    shade = np.ones((th, tw), np.float32)
    for poly, k in light.shadow_bands:
        m = np.zeros((th, tw), np.uint8)
        cv2.fillPoly(m, [np.round(poly * s).astype(np.int32)], 1)
        shade *= 1 - k * cv2.GaussianBlur(m.astype(np.float32), (0, 0), 6 * s)
    # Cube shadows on the board from the main lamp (soft).
    pos = light.lamps[0][0]
    cm = np.zeros((th, tw), np.float32)
    for c in cubes:
        top = np.column_stack([_corners(c.center, c.size, c.yaw), np.full(4, c.z + c.size)])
        dvec = top - pos[None, :]
        t = (0 - top[:, 2]) / dvec[:, 2]
        ground = top[:, :2] + dvec[:, :2] * t[:, None]
        hull = cv2.convexHull(np.concatenate([_corners(c.center, c.size, c.yaw), ground]).astype(np.float32))
        cv2.fillPoly(cm, [np.round(hull.reshape(-1, 2) * s).astype(np.int32)], 1.0)
    shade *= 1 - 0.55 * cv2.GaussianBlur(cm, (0, 0), 1.2 * s)
    radiance = design.texture_rgb * irr * shade[..., None]
    for c_mm, r, k in light.gloss:
        g = np.zeros((th, tw), np.float32)
        cv2.circle(g, (int(c_mm[0] * s), int(c_mm[1] * s)), int(r * s), 1.0, -1)
        radiance += (k * cv2.GaussianBlur(g, (0, 0), r * s / 3))[..., None] * light.lamps[0][2][None, None, :]
    # Project: the floor at z = 0, the rails' tops at z = rail height (the plane homographies).
    img = _warp_plane(radiance, shot, 0.0, (w, h))
    if design.rail_h > 0:
        rail = _warp_plane(radiance, shot, design.rail_h, (w, h))
        mask = _warp_plane(
            design.rail_mask.astype(np.float32)[..., None].repeat(3, 2), shot, design.rail_h, (w, h)
        )
        img = img * (1 - mask) + rail * mask
    # Cubes, far to near from the camera.
    eye = shot.eye_up
    order = sorted(cubes, key=lambda c: -np.linalg.norm(np.append(c.center, c.z) - eye))
    for c in order:
        _draw_cube(img, c, design.paints[c.color], light, shot, eye, rng)
    img = _lens(img, shot)
    img = img * light.exposure * light.wb[None, None, :] * 2.2
    img = np.clip(img, 0, 1) ** (1 / 2.2)
    img = img + rng.normal(0, light.noise / 255.0, img.shape).astype(np.float32) * (0.5 + img)
    out = np.clip(img[..., ::-1] * 255 + 0.5, 0, 255).astype(np.uint8)
    ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, light.jpeg])
    decoded = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return decoded if decoded is not None else out


def _warp_plane(tex: np.ndarray, shot: Shot, z: float, size: tuple[int, int]) -> np.ndarray:
    s = TEX_PX_PER_MM
    src = np.array([[0, 0], [1000, 0], [1000, 1000], [0, 1000]], np.float64)
    dst = shot.project(np.column_stack([src, np.full(4, z)]), distort=False)
    Hm = cv2.getPerspectiveTransform((src * s).astype(np.float32), dst.astype(np.float32))
    return cv2.warpPerspective(
        tex,
        Hm,
        size,
        flags=cv2.INTER_AREA if Hm[0, 0] < 1 else cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_CONSTANT,
        borderValue=(0.15, 0.12, 0.1),
    )


def _draw_cube(
    img: np.ndarray,
    c: Cube,
    paint: np.ndarray,
    light: Light,
    shot: Shot,
    eye: np.ndarray,
    rng: np.random.Generator,
) -> None:
    base = _corners(c.center, c.size, c.yaw)
    b3 = np.column_stack([base, np.full(4, c.z)])
    t3 = np.column_stack([base, np.full(4, c.z + c.size)])
    faces = [(t3, np.array([0, 0, 1.0]))]
    for k in range(4):
        a, b = k, (k + 1) % 4
        quad = np.array([b3[a], b3[b], t3[b], t3[a]])
        n = np.append(base[b] - base[a], 0)
        n = np.array([n[1], -n[0], 0.0])
        n /= np.linalg.norm(n)
        if np.dot(quad.mean(axis=0) - np.append(c.center, c.z + c.size / 2), n) < 0:
            n = -n  # outward
        faces.append((quad, n))
    for quad, n in faces:
        if np.dot(eye - quad.mean(axis=0), n) <= 0:
            continue
        px = shot.project(quad, distort=False)
        e = _irradiance(light, quad.mean(axis=0)[None, :], n)[0]
        col = paint * e * float(rng.uniform(0.96, 1.04))
        if n[2] > 0.5:  # a faint specular sheen on the stained top
            col = col + 0.02 * light.lamps[0][2] * rng.uniform(0, 1)
        cv2.fillConvexPoly(
            img, np.round(px * 16).astype(np.int32), tuple(float(v) for v in col), cv2.LINE_AA, 4
        )


def _lens(img: np.ndarray, shot: Shot) -> np.ndarray:
    """Apply the lens' radial distortion to an ideal (pinhole) image."""
    if not np.any(shot.dist):
        return img
    w, h = shot.size
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    pts = np.stack([xx.ravel(), yy.ravel()], 1).reshape(-1, 1, 2)
    und = cv2.undistortPoints(pts, shot.K, shot.dist, P=shot.K).reshape(h, w, 2)
    return cv2.remap(img, und[..., 0], und[..., 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


# ---------------------------------------------------------------- sessions


def truth_of(cubes: list[Cube]) -> dict[str, Any]:
    counts: dict[str, dict[str, int]] = {}
    redrop: list[str] = []
    for c in cubes:
        if c.zone is None:
            redrop.append(c.color)
        else:
            counts.setdefault(c.color, {}).setdefault(c.zone, 0)
            counts[c.color][c.zone] += 1
    return {"counts": counts, "redrop_colors": redrop}


@dataclass
class HeldOutSession:
    design: Design
    calibration: np.ndarray
    scenes: Iterator[tuple[np.ndarray, dict[str, Any]]]
    # The board as it stands before the first drop (the calibration's cubes lifted off their swatches),
    # through the calibration's camera under its light: the optional second calibration photo. Rendered
    # when called, with its own noise, so the session's scenes stay those of its seed.
    bare_photo: Callable[[], np.ndarray] = field(default=lambda: np.zeros((1, 1, 3), np.uint8))


def session(
    design_seed: int,
    scene_seed: int,
    max_cubes: int = 20,
    size: tuple[int, int] | None = None,
    calibration_gloss_seed: int | None = None,
) -> HeldOutSession:
    """One design, one room light; the calibration photo and an endless run of play photos (each with
    its own camera shot, light drift and cubes). `size` forces one resolution (else random per shot).
    `calibration_gloss_seed`: a glossy highlight on the rail in the calibration photo only (its place,
    size and strength drawn from this seed, so the session's other draws stay those of `scene_seed`)."""
    design = random_design(design_seed)
    rng = np.random.default_rng(scene_seed)
    light = random_light(rng, design)
    shot = random_shot(rng, design)
    if size is not None:
        shot = _resized(shot, size)
    light0 = Light(
        light.lamps,
        light.ambient,
        light.ambient_rgb,
        light.exposure,
        light.wb,
        [],
        light.gloss
        + ([rail_gloss(design, calibration_gloss_seed)] if calibration_gloss_seed is not None else []),
        light.noise,
        92,
    )
    calibration = render(design, swatch_cubes(rng, design), light0, shot, rng)

    def bare_photo() -> np.ndarray:
        return render(design, [], light0, shot, np.random.default_rng([scene_seed, 1]))

    def scenes() -> Iterator[tuple[np.ndarray, dict[str, Any]]]:
        while True:
            cubes = random_cubes(rng, design, int(rng.integers(0, max_cubes + 1)))
            moved = rng.random() < 0.3
            sh = random_shot(rng, design) if moved else shot
            if size is not None:
                sh = _resized(sh, size)
            image = render(design, cubes, drifted(rng, light, design, moved), sh, rng)
            yield image, {**truth_of(cubes), "camera": sh.as_json(), "tilt_deg": sh.tilt_deg}

    return HeldOutSession(design, calibration, scenes(), bare_photo)


def rail_gloss(design: Design, seed: int) -> tuple[np.ndarray, float, float]:
    """A strong glossy highlight centred on the rail (anywhere on the board if it has none): the lamp
    mirrored in the varnish where the calibration photo was taken (held-out designs 7202 and 7403)."""
    rng = np.random.default_rng(seed)
    ys, xs = np.nonzero(design.rail_mask)
    if len(xs):
        i = int(rng.integers(0, len(xs)))
        c = np.array([xs[i], ys[i]], float) / TEX_PX_PER_MM
    else:
        W, H = design.layout["size_mm"]
        c = np.array([rng.uniform(0, W), rng.uniform(0, H)])
    return c, float(rng.uniform(15, 30)), float(rng.uniform(0.6, 0.9))


def _resized(shot: Shot, size: tuple[int, int]) -> Shot:
    k = size[0] / shot.size[0]
    K = shot.K.copy()
    K[:2] *= k
    K[1, 2] = shot.K[1, 2] * size[1] / shot.size[1]
    return Shot(K, shot.dist, shot.rvec, shot.tvec, size, shot.tilt_deg, shot.eye_up)
