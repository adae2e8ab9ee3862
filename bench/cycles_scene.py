"""The Cycles held-out set's scenes as numbers, without Blender: what `bench/vision_cycles.py` builds in
`bpy` (the board solid with its raised rails, lamps, lens, cubes with their wood grain) and how a camera
develops the path-traced light into a photo (white balance, auto-exposure, sensor noise, lens
distortion, sRGB, JPEG). Kept apart from the `bpy` part so that it can be tested where Blender is absent.

Frames: the board frame of `vision.synth.randomised` (millimetres, x right, y down the board, z up) for
plans; `rail_mesh` returns Blender's frame (x, -y, z: right-handed, so that faces wind outward).
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from vision.synth import randomised as R  # noqa: E402

BOARD_THICKNESS_MM = 4.0


# ---------------------------------------------------------------- the board solid


@dataclass
class Mesh:
    """Quads in Blender's frame: `verts` (N, 3) mm, `faces` 4 vertex indices each, `uvs` one (u, v) per
    face corner (the print's texture coordinates), `kind` per face: "floor" (the whole print at z = 0),
    "top" (a rail's top), "inner" (a well's wall) or "outer" (the board's edge)."""

    verts: np.ndarray
    faces: list[tuple[int, int, int, int]]
    uvs: list[list[tuple[float, float]]]
    kind: list[str]


def wells_of(layout: dict[str, Any]) -> list[tuple[float, float, float, float]]:
    """The zones' rectangles (x0, y0, x1, y1 mm): the wells sunk between the rails."""
    out = []
    for z in layout["zones"]:
        p = np.asarray(z["polygon_mm"], float)
        (x0, y0), (x1, y1) = p.min(axis=0), p.max(axis=0)
        if len(p) != 4 or not np.all(np.isin(p[:, 0], [x0, x1]) & np.isin(p[:, 1], [y0, y1])):
            raise ValueError(
                f"zone {z['id']!r} is not an axis-aligned rectangle: this scene builds only those"
            )
        out.append((float(x0), float(y0), float(x1), float(y1)))
    return out


def rail_mesh(layout: dict[str, Any], thickness: float = BOARD_THICKNESS_MM) -> Mesh:
    """The rails as a solid: the board cut into a grid by the wells' edges; every cell outside a well is
    a rail block `rail_height_mm` high, with a wall wherever it borders a well (0 to the rail height) or
    the board's edge (the board's thickness below the floor up to the rail height), over the floor (z = 0,
    the whole print, seen in the wells). With `rail_height_mm` 0: the floor and the outer edge only."""
    W, H = (float(v) for v in layout["size_mm"])
    h = float(layout.get("rail_height_mm", 0.0))
    wells = wells_of(layout)
    xs = sorted({0.0, W, *(w[0] for w in wells), *(w[2] for w in wells)})
    ys = sorted({0.0, H, *(w[1] for w in wells), *(w[3] for w in wells)})

    def is_well(i: int, j: int) -> bool:
        if not (0 <= i < len(xs) - 1 and 0 <= j < len(ys) - 1):
            return False
        cx, cy = (xs[i] + xs[i + 1]) / 2, (ys[j] + ys[j + 1]) / 2
        return any(x0 < cx < x1 and y0 < cy < y1 for x0, y0, x1, y1 in wells)

    verts: list[tuple[float, float, float]] = []
    faces: list[tuple[int, int, int, int]] = []
    uvs: list[list[tuple[float, float]]] = []
    kind: list[str] = []

    def uv(x: float, y: float) -> tuple[float, float]:
        return (x / W, 1.0 - y / H)

    def quad(pts: list[tuple[float, float, float]], tex: list[tuple[float, float]], k: str) -> None:
        # `pts` in the board frame, listed counter-clockwise seen from outside in Blender's frame.
        faces.append(tuple(range(len(verts), len(verts) + 4)))  # type: ignore[arg-type]
        verts.extend((x, -y, z) for x, y, z in pts)
        uvs.append(tex)
        kind.append(k)

    # The floor: the whole print at z = 0 (seen in the wells; the rails stand on it).
    floor = [(0.0, H, 0.0), (W, H, 0.0), (W, 0.0, 0.0), (0.0, 0.0, 0.0)]
    quad(floor, [uv(x, y) for x, y, _ in floor], "floor")
    inset = 0.6  # walls take the rail's print from just inside their top edge, not the well's
    for i in range(len(xs) - 1):
        for j in range(len(ys) - 1):
            if is_well(i, j):
                continue
            x0, x1, y0, y1 = xs[i], xs[i + 1], ys[j], ys[j + 1]
            if h > 0:
                # Seen from above in Blender's frame (y flipped), (x0,y1)->(x1,y1)->(x1,y0)->(x0,y0) is CCW.
                c = [(x0, y1, h), (x1, y1, h), (x1, y0, h), (x0, y0, h)]
                quad(c, [uv(x, y) for x, y, _ in c], "top")
            # (neighbour, wall ends a -> b listed so that the outward normal points to the neighbour)
            sides = [
                ((i - 1, j), (x0, y0), (x0, y1), (inset, 0.0)),
                ((i + 1, j), (x1, y1), (x1, y0), (-inset, 0.0)),
                ((i, j - 1), (x1, y0), (x0, y0), (0.0, inset)),
                ((i, j + 1), (x0, y1), (x1, y1), (0.0, -inset)),
            ]
            for (ni, nj), a, b, (dx, dy) in sides:
                outside = not (0 <= ni < len(xs) - 1 and 0 <= nj < len(ys) - 1)
                if outside:
                    z0, k = -thickness, "outer"
                elif is_well(ni, nj) and h > 0:
                    z0, k = 0.0, "inner"
                else:
                    continue
                ta, tb = uv(a[0] + dx, a[1] + dy), uv(b[0] + dx, b[1] + dy)
                quad(
                    [(a[0], a[1], z0), (b[0], b[1], z0), (b[0], b[1], h), (a[0], a[1], h)],
                    [ta, tb, tb, ta],
                    k,
                )
    return Mesh(np.array(verts, float).reshape(-1, 3), faces, uvs, kind)


def face_normal(mesh: Mesh, f: int) -> np.ndarray:
    """Unit normal of face `f` by the right-hand rule (outward when the winding is right)."""
    p = mesh.verts[list(mesh.faces[f])]
    n = np.cross(p[1] - p[0], p[2] - p[0])
    return np.asarray(n / np.linalg.norm(n))


def face_area(mesh: Mesh, f: int) -> float:
    p = mesh.verts[list(mesh.faces[f])]
    return float(np.linalg.norm(np.cross(p[1] - p[0], p[2] - p[0])))  # a rectangle's two edges


# ---------------------------------------------------------------- lamps, lens, cubes


@dataclass
class Lamp:
    """An area lamp (a soft box: `size_mm` its side) or a spot (a bulb of radius `size_mm` in a cone of
    `cone_deg`), at `position` (board frame, mm) aimed at `target`; `power` relative to the main lamp."""

    kind: str
    position: np.ndarray
    target: np.ndarray
    kelvin: float
    power: float
    size_mm: float
    cone_deg: float = 0.0
    blend: float = 0.0

    def as_json(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "position_mm": [round(float(v), 1) for v in self.position],
            "kelvin": round(self.kelvin),
            "power": round(self.power, 3),
            "size_mm": round(self.size_mm, 1),
            **({"cone_deg": round(self.cone_deg, 1)} if self.kind == "SPOT" else {}),
        }


@dataclass
class Room:
    """What stays for a whole session: lamps, an arm casting a shadow (seen by no camera), the camera
    body (sensor width, aperture) and its first white balance and exposure."""

    lamps: list[Lamp]
    arm: tuple[np.ndarray, float, float, float] | None  # (centre mm, length, width, yaw) or None
    sensor_mm: float
    fstop: float
    wb: np.ndarray
    level: float
    noise: float
    table_rgb: tuple[float, float, float]
    print_roughness: float


@dataclass
class Wood:
    """A cube's wood under its stain: ring axis (0 x, 1 y, 2 z in the cube's frame), rings per mm,
    distortion, phase and how much darker the late wood is (0-1)."""

    axis: int
    scale: float
    distortion: float
    phase: float
    contrast: float


@dataclass
class Plan:
    """One photo: the cubes, the camera shot and lens focus, the developing (exposure, white balance,
    noise, JPEG quality) and the truth."""

    cubes: list[R.Cube]
    wood: list[Wood]
    shot: R.Shot
    focus_mm: float
    level: float
    wb: np.ndarray
    noise: float
    jpeg: int
    moved_camera: bool = False
    extra: dict[str, Any] = field(default_factory=dict)

    def truth(self, room: Room) -> dict[str, Any]:
        hand = self.extra.get("hand")
        return {
            **({"hand": hand.as_json()} if isinstance(hand, Hand) else {}),
            **R.truth_of(self.cubes),
            "cubes": [
                {"color": c.color, "center_mm": [round(float(v), 2) for v in c.center], "zone": c.zone}
                for c in self.cubes
            ],
            "size": list(self.shot.size),
            "tilt_deg": round(self.shot.tilt_deg, 1),
            "moved_camera": self.moved_camera,
            "fstop": round(room.fstop, 1),
            "sensor_mm": room.sensor_mm,
            "focus_mm": round(self.focus_mm, 1),
            "level": round(self.level, 3),
            "noise": round(self.noise, 2),
            "jpeg": self.jpeg,
            "lamps": [lamp.as_json() for lamp in room.lamps],
            "arm_shadow": room.arm is not None,
        }


def random_room(rng: np.random.Generator, design: R.Design) -> Room:
    """One or two lamps (area or spot, 2700-7500 K, the second dimmer), sometimes a lamp arm's shadow,
    a camera body from a webcam to an APS-C camera, auto white balance aimed at the main lamp (never
    exact; sometimes left on daylight) and an auto-exposure that lands anywhere from dim to clipped."""
    W, H = (float(v) for v in design.layout["size_mm"])
    lamps = []
    for k in range(1 if rng.random() < 0.5 else 2):
        kind = "AREA" if rng.random() < 0.5 else "SPOT"
        pos = np.array([rng.uniform(-0.4, 1.4) * W, rng.uniform(-0.4, 1.4) * H, rng.uniform(450, 1300)])
        target = np.array([W / 2 + rng.normal(0, W / 5), H / 2 + rng.normal(0, H / 5), 0.0])
        cone = 0.0
        if kind == "SPOT":
            # The cone is wide enough to light the whole board from where the lamp hangs, with a soft edge.
            reach = max(np.linalg.norm(target[:2] - c) for c in ((0, 0), (W, 0), (W, H), (0, H)))
            need = 2 * math.degrees(math.atan2(reach, float(np.linalg.norm(pos - target))))
            cone = float(min(150.0, need + rng.uniform(10, 40)))
        lamps.append(
            Lamp(
                kind,
                pos,
                target,
                float(rng.uniform(2700, 7500)),
                1.0 if k == 0 else float(rng.uniform(0.2, 0.7)),
                float(rng.uniform(150, 500) if kind == "AREA" else rng.uniform(5, 40)),
                cone,
                float(rng.uniform(0.15, 0.6)),
            )
        )
    arm = None
    if rng.random() < 0.4:
        main = lamps[0].position
        c = np.array([rng.uniform(0.2, 0.8) * W, rng.uniform(0.2, 0.8) * H, 0.0])
        t = float(rng.uniform(0.3, 0.6))
        arm = (
            c + t * (main - c),
            float(rng.uniform(500, 900)),
            float(rng.uniform(15, 45)),
            float(rng.uniform(0, math.pi)),
        )
    sensor, fstop = [(5.6, 2.0), (7.6, 1.8), (23.5, 2.8), (23.5, 4.0)][int(rng.integers(0, 4))]
    wb = 1.0 / R.kelvin_rgb(lamps[0].kelvin) * np.exp(rng.normal(0, 0.06, 3))
    if rng.random() < 0.25:
        wb = 1.0 / R.kelvin_rgb(5500.0) * np.exp(rng.normal(0, 0.03, 3))  # fixed on daylight
    level = float(np.exp(rng.uniform(math.log(0.3), math.log(1.5))))
    noise = float(rng.uniform(0.6, 1.6))
    table = tuple(
        float(v) for v in np.array([0.20, 0.13, 0.08]) * rng.uniform(0.5, 1.6) * rng.uniform(0.9, 1.1, 3)
    )
    return Room(lamps, arm, sensor, fstop, wb, level, noise, table, float(rng.uniform(0.35, 0.75)))  # type: ignore[arg-type]


def focus_distance(shot: R.Shot, point_up: np.ndarray) -> float:
    """Depth (mm along the optical axis) of a board point (z up) from the camera: where the lens
    focuses to have that point sharp."""
    Rm, _ = cv2.Rodrigues(shot.rvec)
    p = np.asarray(point_up, float) * np.array([1.0, 1.0, -1.0])
    return float((Rm @ p + shot.tvec.reshape(3))[2])


def random_wood(rng: np.random.Generator) -> Wood:
    return Wood(
        int(rng.integers(0, 3)),
        float(rng.uniform(0.25, 0.6)),
        float(rng.uniform(1.5, 6.0)),
        float(rng.uniform(0, 2 * math.pi)),
        float(rng.uniform(0.15, 0.35)),
    )


def plan_shot(rng: np.random.Generator, design: R.Design, size: tuple[int, int]) -> R.Shot:
    """A camera over the table (`randomised.random_shot`: tilt 0-35 degrees, any azimuth and roll, a
    radial lens) at `size`."""
    return R._resized(R.random_shot(rng, design), size)


def plan_photo(
    rng: np.random.Generator,
    design: R.Design,
    room: Room,
    shot: R.Shot,
    cubes: list[R.Cube],
    moved: bool = False,
    drift: bool = True,
) -> Plan:
    """A photo of `cubes` through `shot`: focus on the board's centre (a percent or two off), and, with
    `drift`, auto-exposure and white balance moved a little since calibration."""
    W, H = (float(v) for v in design.layout["size_mm"])
    focus = focus_distance(shot, np.array([W / 2, H / 2, 0.0])) * float(np.exp(rng.normal(0, 0.015)))
    level = room.level * (float(np.exp(rng.normal(0, 0.12))) if drift else 1.0)
    wb = room.wb * (np.exp(rng.normal(0, 0.03, 3)) if drift else 1.0)
    # Lift the cubes a hair off their surface: coplanar faces would fight in the path tracer.
    lifted = [R.Cube(c.color, c.center, c.yaw, c.z + 0.02, c.zone, c.size) for c in cubes]
    return Plan(
        lifted,
        [random_wood(rng) for _ in cubes],
        shot,
        focus,
        level,
        wb,
        room.noise,
        int(rng.integers(75, 96)),
        moved,
    )


def plan_session(
    design: R.Design, rng: np.random.Generator, n_scenes: int, size: tuple[int, int]
) -> tuple[Room, Plan, list[Plan]]:
    """The room, the calibration photo (one cube on each swatch, same light, no drift) and `n_scenes`
    play photos of 3-16 cubes (a quarter of them after the camera was moved)."""
    room = random_room(rng, design)
    shot = plan_shot(rng, design, size)
    cal = plan_photo(rng, design, room, shot, R.swatch_cubes(rng, design), drift=False)
    scenes = []
    for _ in range(n_scenes):
        cubes = R.random_cubes(rng, design, int(rng.integers(3, 17)))
        moved = bool(rng.random() < 0.25)
        sh = plan_shot(rng, design, size) if moved else shot
        scenes.append(plan_photo(rng, design, room, sh, cubes, moved=moved))
    return room, cal, scenes


# ---------------------------------------------------------------- a hand over the board


# Skin reflectances (linear RGB) from pale to dark, each photo's scaled by 0.85-1.15.
SKIN_RGB = ((0.62, 0.44, 0.35), (0.50, 0.33, 0.23), (0.36, 0.22, 0.14), (0.17, 0.10, 0.065))


@dataclass
class Hand:
    """A forearm and a flat hand reaching over the board from one of its edges (board frame, mm): the arm a
    cylinder of `arm_radius` from well beyond the edge to the wrist at `wrist`, the hand an ellipsoid
    `hand_mm` (length, width, thickness) beyond the wrist along `direction`, its underside `height` above
    the board; skin of linear reflectance `skin_rgb`."""

    wrist: np.ndarray
    direction: np.ndarray
    height: float
    arm_radius: float
    hand_mm: tuple[float, float, float]
    skin_rgb: tuple[float, float, float]
    edge: str

    def as_json(self) -> dict[str, Any]:
        return {
            "edge": self.edge,
            "wrist_mm": [round(float(v), 1) for v in self.wrist],
            "direction": [round(float(v), 3) for v in self.direction],
            "height_mm": round(self.height, 1),
            "fingertips_mm": [round(float(v), 1) for v in self.fingertips()],
            "skin_rgb": [round(v, 3) for v in self.skin_rgb],
        }

    def fingertips(self) -> np.ndarray:
        return np.asarray(self.wrist + self.direction * self.hand_mm[0], float)


def plan_hand(rng: np.random.Generator, design: R.Design) -> Hand:
    """A hand reaching in from a random edge, square to it within 35 degrees, its wrist 15-45 % of the
    board's depth in from that edge, held 15-60 mm over the board (a player about to take or place a
    cube), any skin tone."""
    W, H = (float(v) for v in design.layout["size_mm"])
    edge = ("top", "bottom", "left", "right")[int(rng.integers(0, 4))]
    inward = {"top": (0.0, 1.0), "bottom": (0.0, -1.0), "left": (1.0, 0.0), "right": (-1.0, 0.0)}[edge]
    yaw = math.atan2(inward[1], inward[0]) + math.radians(float(rng.uniform(-35, 35)))
    direction = np.array([math.cos(yaw), math.sin(yaw)])
    depth = H if edge in ("top", "bottom") else W
    along = float(rng.uniform(0.2, 0.8))
    start = {
        "top": (along * W, 0.0),
        "bottom": (along * W, H),
        "left": (0.0, along * H),
        "right": (W, along * H),
    }[edge]
    reach = float(rng.uniform(0.15, 0.45)) * depth / max(abs(direction @ np.array(inward)), 0.5)
    skin = np.array(SKIN_RGB[int(rng.integers(0, len(SKIN_RGB)))]) * float(rng.uniform(0.85, 1.15))
    return Hand(
        np.array(start) + direction * reach,
        direction,
        float(rng.uniform(15, 60)),
        float(rng.uniform(28, 38)),
        (float(rng.uniform(90, 110)), float(rng.uniform(75, 90)), float(rng.uniform(24, 30))),
        tuple(float(v) for v in np.clip(skin, 0.0, 0.9)),  # type: ignore[arg-type]
        edge,
    )


def add_hands(design: R.Design, scenes: list[Plan]) -> None:
    """A hand over the board in every play photo of `scenes` (`Plan.extra["hand"]`), from its own random
    stream (seeded by the design), so that a session's cubes, lamps and cameras are those without hands."""
    rng = np.random.default_rng([design.seed, 4263])  # (4263: "hand" on a phone keypad)
    for plan in scenes:
        plan.extra["hand"] = plan_hand(rng, design)


# ---------------------------------------------------------------- developing the photo


def srgb_encode(linear: np.ndarray) -> np.ndarray:
    x = np.clip(linear, 0.0, 1.0)
    return np.where(x <= 0.0031308, 12.92 * x, 1.055 * np.power(x, 1 / 2.4) - 0.055)


def distort(img: np.ndarray, K: np.ndarray, dist: np.ndarray) -> np.ndarray:
    """The pinhole render seen through a lens with radial distortion `dist` (OpenCV's model)."""
    if not np.any(dist):
        return img
    h, w = img.shape[:2]
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    pts = np.stack([xx.ravel(), yy.ravel()], 1).reshape(-1, 1, 2)
    und = cv2.undistortPoints(pts, K, dist, P=K).reshape(h, w, 2)
    return cv2.remap(img, und[..., 0], und[..., 1], cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


def develop(linear_rgb: np.ndarray, plan: Plan, rng: np.random.Generator) -> np.ndarray:
    """A camera's photo (BGR uint8, JPEG-decoded) from path-traced linear RGB light: white balance,
    auto-exposure (the 97th percentile of the light lands at `level`: above 1 the paper clips), sensor
    noise (shot noise and read noise, both growing with the gain a dim exposure needs), the lens'
    distortion, the sRGB curve, 8 bits and JPEG."""
    img = linear_rgb[..., :3].astype(np.float32) * plan.wb.astype(np.float32)[None, None, :]
    lum = img @ np.array([0.2126, 0.7152, 0.0722], np.float32)
    img *= plan.level / max(float(np.percentile(lum, 97)), 1e-6)
    gain = 1.0 / min(1.0, plan.level)
    sigma = np.sqrt(np.clip(img, 0, None) * 6e-4 * gain + (2e-3 * gain) ** 2) * plan.noise
    img = img + rng.normal(0, 1, img.shape).astype(np.float32) * sigma.astype(np.float32)
    img = distort(img, plan.shot.K, plan.shot.dist)
    photo = (srgb_encode(img)[..., ::-1] * 255 + 0.5).astype(np.uint8)
    ok, buf = cv2.imencode(".jpg", photo, [cv2.IMWRITE_JPEG_QUALITY, plan.jpeg])
    decoded = cv2.imdecode(buf, cv2.IMREAD_COLOR) if ok else None
    return decoded if decoded is not None else photo
