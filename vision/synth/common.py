"""Shared rendering primitives for synthetic camera images: pinhole camera with lens distortion,
planar texture projection, lighting, white balance, shadows, noise, blur, ArUco drawing, hands.

Owns only image synthesis; every scene-specific renderer (battle board, ocean grid) builds on it.
World frame: board millimetres, x right, y down, z into the table (so a point h mm above the
board has z = -h). Must not import the readers: the synthetic truth never leaks into reading.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import cv2
import numpy as np

from vision.geometry import aruco_dictionary, upsample_grid


@dataclass(slots=True)
class PinholeCamera:
    """A camera looking at the world frame: intrinsics `K`, distortion `dist` (OpenCV's k1 k2 p1 p2 k3),
    rotation `R` and translation `t` with x_cam = R x_world + t."""

    K: np.ndarray
    dist: np.ndarray
    R: np.ndarray
    t: np.ndarray
    width: int
    height: int

    @property
    def center_world(self) -> np.ndarray:
        return (-self.R.T @ self.t).reshape(3)

    def project(self, points: np.ndarray, distort: bool = False) -> np.ndarray:
        """World points (N,3) to pixels (N,2); ideal pinhole unless `distort`."""
        pts = np.asarray(points, dtype=np.float64).reshape(-1, 3)
        cam = pts @ self.R.T + self.t.reshape(1, 3)
        uv = cam[:, :2] / cam[:, 2:3]
        if distort and np.any(self.dist):
            rvec, _ = cv2.Rodrigues(self.R)
            out, _ = cv2.projectPoints(pts, rvec, self.t.reshape(3, 1), self.K, self.dist)
            return out.reshape(-1, 2)
        return uv @ self.K[:2, :2].T + self.K[:2, 2]

    def plane_homography(self, z: float = 0.0) -> np.ndarray:
        """Homography from world (x, y) on the plane at depth `z` to ideal (undistorted) pixels."""
        H = self.K @ np.column_stack([self.R[:, 0], self.R[:, 1], self.R[:, 2] * z + self.t.reshape(3)])
        return H / H[2, 2]

    def as_json(self) -> dict:
        return {
            "K": self.K.tolist(),
            "dist": self.dist.reshape(-1).tolist(),
            "image_size": [self.width, self.height],
        }


def look_at_camera(
    target: tuple[float, float],
    distance_mm: float,
    tilt_deg: float,
    azimuth_deg: float,
    roll_deg: float = 0.0,
    hfov_deg: float = 65.0,
    size: tuple[int, int] = (1920, 1080),
    dist: tuple[float, ...] = (0.0, 0.0, 0.0, 0.0, 0.0),
    principal_offset: tuple[float, float] = (0.0, 0.0),
) -> PinholeCamera:
    """A camera `distance_mm` from `target` on the board, tilted `tilt_deg` from straight down,
    leaning from the direction `azimuth_deg`, rolled `roll_deg` about its axis."""
    w, h = size
    f = (w / 2) / math.tan(math.radians(hfov_deg) / 2)
    K = np.array([[f, 0, w / 2 + principal_offset[0]], [0, f, h / 2 + principal_offset[1]], [0, 0, 1.0]])
    tilt, az = math.radians(tilt_deg), math.radians(azimuth_deg)
    # Camera centre above the board (negative z), offset horizontally by the tilt.
    offset = np.array([math.cos(az), math.sin(az)]) * distance_mm * math.sin(tilt)
    centre = np.array([target[0] + offset[0], target[1] + offset[1], -distance_mm * math.cos(tilt)])
    forward = np.array([target[0], target[1], 0.0]) - centre
    forward /= np.linalg.norm(forward)
    # Image "down" follows the board's +y as far as the view allows, so the board reads upright.
    down_hint = np.array([0.0, 1.0, 0.0])
    right = np.cross(down_hint, forward)
    if np.linalg.norm(right) < 1e-6:
        right = np.array([1.0, 0.0, 0.0])
    right /= np.linalg.norm(right)
    right = -right if right[0] < 0 else right
    down = np.cross(forward, right)
    roll = math.radians(roll_deg)
    r2 = math.cos(roll) * right + math.sin(roll) * down
    d2 = -math.sin(roll) * right + math.cos(roll) * down
    R = np.vstack([r2, d2, forward])
    t = -R @ centre
    return PinholeCamera(K=K, dist=np.array(dist, dtype=np.float64), R=R, t=t, width=w, height=h)


def project_texture(
    camera: PinholeCamera,
    texture: np.ndarray,
    px_per_mm: float,
    background: tuple[int, int, int] = (60, 60, 60),
    z: float = 0.0,
) -> np.ndarray:
    """Draw a planar texture (image of the plane at `px_per_mm`, origin at its top-left) in the ideal view."""
    S = np.diag([1.0 / px_per_mm, 1.0 / px_per_mm, 1.0])
    M = camera.plane_homography(z) @ S
    return cv2.warpPerspective(
        texture,
        M,
        (camera.width, camera.height),
        flags=cv2.INTER_AREA if px_per_mm > 4 else cv2.INTER_LINEAR,
        borderMode=cv2.BORDER_CONSTANT,
        borderValue=background,
    )


def apply_distortion(camera: PinholeCamera, ideal: np.ndarray, step: int = 8) -> np.ndarray:
    """Bend an ideal pinhole image by the camera's lens distortion (maps from a coarse grid, resized)."""
    if not np.any(camera.dist):
        return ideal
    w, h = camera.width, camera.height
    gx, gy = np.meshgrid(
        np.arange(0, w + step, step, dtype=np.float32), np.arange(0, h + step, step, dtype=np.float32)
    )
    pts = np.stack([gx.ravel(), gy.ravel()], axis=1).reshape(-1, 1, 2)
    und = cv2.undistortPoints(pts, camera.K, camera.dist, P=camera.K).reshape(gx.shape + (2,))
    mx, my = upsample_grid(und[..., 0], step, (w, h)), upsample_grid(und[..., 1], step, (w, h))
    return cv2.remap(ideal, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE)


@dataclass(slots=True)
class Lighting:
    """Light on the scene: overall gain, a linear gradient and vignette, a light direction (for face
    shading and shadows), and the camera's white-balance gains (B, G, R)."""

    gain: float = 1.0
    gradient: tuple[float, float] = (0.0, 0.0)  # brightness change per image width / height
    vignette: float = 0.0
    direction: tuple[float, float, float] = (0.2, 0.3, 1.0)  # towards the light, z up = toward camera
    wb: tuple[float, float, float] = (1.0, 1.0, 1.0)
    shadow_strength: float = 0.35

    def unit_direction(self) -> np.ndarray:
        d = np.array(self.direction, dtype=np.float64)
        return d / np.linalg.norm(d)

    def face_shade(self, normal_world_up: np.ndarray, ambient: float = 0.45) -> float:
        """Brightness factor of a face whose outward normal is given with z pointing up."""
        return float(ambient + (1 - ambient) * max(0.0, float(normal_world_up @ self.unit_direction())))


def random_lighting(rng: np.random.Generator, strength: float = 1.0) -> Lighting:
    """Varied but plausible indoor light; `strength` scales how far from neutral it strays."""
    s = strength
    temp = rng.uniform(-1, 1) * s  # warm (+) to cool (-)
    wb = (1.0 - 0.18 * temp + rng.normal(0, 0.02 * s), 1.0 + rng.normal(0, 0.02 * s), 1.0 + 0.15 * temp)
    return Lighting(
        gain=float(rng.uniform(1 - 0.35 * s, 1 + 0.15 * s)),
        gradient=(float(rng.uniform(-0.25, 0.25) * s), float(rng.uniform(-0.25, 0.25) * s)),
        vignette=float(rng.uniform(0, 0.3) * s),
        direction=(float(rng.uniform(-0.6, 0.6)), float(rng.uniform(-0.6, 0.6)), 1.0),
        wb=(float(wb[0]), float(wb[1]), float(wb[2])),
        shadow_strength=float(rng.uniform(0.15, 0.45)),
    )


def apply_lighting(image: np.ndarray, light: Lighting) -> np.ndarray:
    """Gain, gradient, vignette and white balance over the whole frame (float math, uint8 out)."""
    h, w = image.shape[:2]
    ys, xs = np.mgrid[0:h:4, 0:w:4].astype(np.float32)
    xn, yn = xs / w - 0.5, ys / h - 0.5
    field_small = light.gain * (1 + light.gradient[0] * xn + light.gradient[1] * yn)
    field_small *= 1 - light.vignette * (xn**2 + yn**2) * 2
    gain_map = cv2.resize(field_small.astype(np.float32), (w, h), interpolation=cv2.INTER_LINEAR)
    out = image.astype(np.float32) * gain_map[..., None] * np.array(light.wb, dtype=np.float32)
    return np.clip(out, 0, 255).astype(np.uint8)


def add_noise(image: np.ndarray, rng: np.random.Generator, sigma: float) -> np.ndarray:
    """Sensor noise: Gaussian, brighter pixels a little noisier (shot-noise-like)."""
    if sigma <= 0:
        return image
    img = image.astype(np.float32)
    noise = rng.standard_normal(img.shape, dtype=np.float32) * (sigma * (0.6 + img / 400.0))
    return np.clip(img + noise, 0, 255).astype(np.uint8)


def apply_blur(image: np.ndarray, sigma: float, motion_px: float = 0.0, angle_deg: float = 0.0) -> np.ndarray:
    """Defocus (Gaussian) and optional linear motion blur."""
    out = image
    if sigma > 0.05:
        out = cv2.GaussianBlur(out, (0, 0), sigma)
    if motion_px >= 1.5:
        n = int(round(motion_px)) | 1
        k: np.ndarray = np.zeros((n, n), np.float32)
        k[n // 2, :] = 1.0
        rot = cv2.getRotationMatrix2D((n / 2 - 0.5, n / 2 - 0.5), angle_deg, 1.0)
        k = cv2.warpAffine(k, rot, (n, n))
        out = cv2.filter2D(out, -1, k / max(k.sum(), 1e-6))
    return out


def jpeg_roundtrip(image: np.ndarray, quality: int) -> np.ndarray:
    ok, buf = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, int(quality)])
    decoded = cv2.imdecode(buf, cv2.IMREAD_COLOR) if ok else None
    return decoded if decoded is not None else image


def aruco_marker_image(dictionary_name: str, marker_id: int, side_px: int) -> np.ndarray:
    """The marker's black square (no quiet zone) as a grey image `side_px` wide."""
    return cv2.aruco.generateImageMarker(
        aruco_dictionary(dictionary_name), int(marker_id), int(side_px), borderBits=1
    )


def draw_aruco(canvas: np.ndarray, dictionary_name: str, marker_id: int, corners_px: np.ndarray) -> None:
    """Paste a marker onto `canvas` (BGR, in place) so its four corners land on `corners_px`
    (ArUco order: top-left, top-right, bottom-right, bottom-left)."""
    corners = np.asarray(corners_px, dtype=np.float32).reshape(4, 2)
    side = int(max(np.linalg.norm(corners[1] - corners[0]), np.linalg.norm(corners[3] - corners[0])))
    side = max(side, 12)
    marker = aruco_marker_image(dictionary_name, marker_id, side)
    src = np.array([[0, 0], [side, 0], [side, side], [0, side]], dtype=np.float32)
    M = cv2.getPerspectiveTransform(src, corners)
    h, w = canvas.shape[:2]
    warped = cv2.warpPerspective(cv2.cvtColor(marker, cv2.COLOR_GRAY2BGR), M, (w, h), flags=cv2.INTER_AREA)
    mask = cv2.warpPerspective(np.full((side, side), 255, np.uint8), M, (w, h), flags=cv2.INTER_NEAREST)
    canvas[mask > 0] = warped[mask > 0]


def fill_polygon_aa(image: np.ndarray, pts: np.ndarray, color: tuple[float, ...]) -> None:
    """Anti-aliased filled polygon with sub-pixel vertices (in place)."""
    shift = 4
    p = np.round(np.asarray(pts, dtype=np.float64).reshape(-1, 2) * (1 << shift)).astype(np.int32)
    cv2.fillPoly(image, [p], tuple(float(c) for c in color), lineType=cv2.LINE_AA, shift=shift)


def darken_polygons(
    image: np.ndarray, polygons: list[np.ndarray], strength: float, blur_px: float
) -> np.ndarray:
    """Soft shadows: darken the union of `polygons` (pixel coordinates) by `strength`."""
    if not polygons:
        return image
    mask: np.ndarray = np.zeros(image.shape[:2], np.float32)
    for poly in polygons:
        fill_polygon_aa(mask, poly, (1.0,))
    if blur_px > 0.3:
        mask = cv2.GaussianBlur(mask, (0, 0), blur_px)
    factor = 1.0 - strength * np.clip(mask, 0, 1)
    return (image.astype(np.float32) * factor[..., None]).astype(np.uint8)


def box_vertices(
    center_xy: tuple[float, float],
    size: float,
    yaw_deg: float,
    base_z: float = 0.0,
    tilt_deg: float = 0.0,
    tilt_axis_deg: float = 0.0,
    pivot: np.ndarray | None = None,
) -> np.ndarray:
    """The 8 corners (world frame) of a cube resting with its bottom at depth `base_z`, turned
    `yaw_deg`, optionally tipped `tilt_deg` about a horizontal axis at `tilt_axis_deg` through `pivot`.
    Order: bottom 0-3, top 4-7 (same winding)."""
    s = size / 2
    local = np.array(
        [
            [-s, -s, 0],
            [s, -s, 0],
            [s, s, 0],
            [-s, s, 0],
            [-s, -s, -size],
            [s, -s, -size],
            [s, s, -size],
            [-s, s, -size],
        ],
        dtype=np.float64,
    )
    a = math.radians(yaw_deg)
    Rz = np.array([[math.cos(a), -math.sin(a), 0], [math.sin(a), math.cos(a), 0], [0, 0, 1]])
    pts = local @ Rz.T + np.array([center_xy[0], center_xy[1], base_z])
    if tilt_deg:
        axis = np.array([math.cos(math.radians(tilt_axis_deg)), math.sin(math.radians(tilt_axis_deg)), 0.0])
        rot, _ = cv2.Rodrigues(axis * math.radians(tilt_deg))
        p0 = pts.mean(axis=0) if pivot is None else np.asarray(pivot, dtype=np.float64)
        pts = (pts - p0) @ rot.T + p0
    return pts


# Faces of `box_vertices` as vertex indices, wound so the normal points outward.
BOX_FACES: tuple[tuple[int, int, int, int], ...] = (
    (4, 5, 6, 7),  # top
    (0, 1, 5, 4),
    (1, 2, 6, 5),
    (2, 3, 7, 6),
    (3, 0, 4, 7),  # sides
    (3, 2, 1, 0),  # bottom
)


@dataclass(slots=True)
class BoxLook:
    """How one solid box is painted: base colour (BGR, 0-255) and a little texture noise."""

    color_bgr: tuple[float, float, float]
    specular: float = 0.0
    edge_darkening: float = 0.15
    extra: dict = field(default_factory=dict)


def draw_boxes(
    image: np.ndarray, camera: PinholeCamera, boxes: list[tuple[np.ndarray, BoxLook]], light: Lighting
) -> None:
    """Paint solid boxes (8 world vertices each) in the ideal view, far ones first, visible faces only,
    each face shaded by the light. In place."""
    centre = camera.center_world
    order = sorted(range(len(boxes)), key=lambda i: -float(np.linalg.norm(boxes[i][0].mean(axis=0) - centre)))
    for i in order:
        verts, look = boxes[i]
        px = camera.project(verts)
        mid = verts.mean(axis=0)
        faces = []
        for face in BOX_FACES:
            fv = verts[list(face)]
            normal = np.cross(fv[1] - fv[0], fv[3] - fv[0])
            normal /= np.linalg.norm(normal) + 1e-12
            if normal @ (fv.mean(axis=0) - mid) < 0:
                normal = -normal
            if normal @ (centre - fv.mean(axis=0)) <= 0:
                continue  # facing away from the camera
            up_normal = np.array([normal[0], normal[1], -normal[2]])  # world z is down
            shade = light.face_shade(up_normal)
            faces.append((float(np.linalg.norm(fv.mean(axis=0) - centre)), face, shade))
        for _, face, shade in sorted(faces, key=lambda f: -f[0]):
            color = tuple(min(255.0, c * shade) for c in look.color_bgr)
            fill_polygon_aa(image, px[list(face)], color)
            if look.edge_darkening > 0:
                edge = tuple(c * shade * (1 - look.edge_darkening) for c in look.color_bgr)
                p = np.round(px[list(face)] * 16).astype(np.int32)
                cv2.polylines(image, [p], True, edge, 1, cv2.LINE_AA, shift=4)


def shadow_polygon(verts: np.ndarray, light: Lighting, ground_z: float = 0.0) -> np.ndarray:
    """The convex hull (world x, y) of a box's shadow cast on the plane at depth `ground_z`."""
    d = light.unit_direction()
    d_world = np.array([d[0], d[1], -d[2]])  # towards the light, world z down
    k = (verts[:, 2] - ground_z) / d_world[2]
    ground = verts - k[:, None] * d_world[None, :]
    hull = cv2.convexHull(ground[:, :2].astype(np.float32))
    return hull.reshape(-1, 2).astype(np.float64)


def draw_hand(image: np.ndarray, rng: np.random.Generator, reach: float = 0.5) -> None:
    """An arm and hand entering from a random image edge, reaching `reach` of the way across (in place)."""
    h, w = image.shape[:2]
    side = int(rng.integers(4))
    start = [
        (rng.uniform(0.2, 0.8) * w, h + 20),
        (rng.uniform(0.2, 0.8) * w, -20),
        (-20, rng.uniform(0.2, 0.8) * h),
        (w + 20, rng.uniform(0.2, 0.8) * h),
    ][side]
    target = (w * rng.uniform(0.3, 0.7), h * rng.uniform(0.3, 0.7))
    end = (start[0] + (target[0] - start[0]) * reach * 2, start[1] + (target[1] - start[1]) * reach * 2)
    skin = np.array([rng.uniform(90, 140), rng.uniform(130, 175), rng.uniform(180, 225)])
    width = int(min(w, h) * rng.uniform(0.09, 0.13))
    cv2.line(
        image, (int(start[0]), int(start[1])), (int(end[0]), int(end[1])), skin.tolist(), width, cv2.LINE_AA
    )
    cv2.circle(
        image,
        (int(end[0]), int(end[1])),
        int(width * 0.9),
        (skin * 1.05).clip(0, 255).tolist(),
        -1,
        cv2.LINE_AA,
    )
