"""Geometry shared by the readers: ArUco dictionaries by name, marker detection, board<->image
homographies, the camera pose behind a homography, parallax of a face at a height, polygon helpers.

Owns the maths only; no file formats (see `vision.battle_board.layout`) and no colour. World/board frame:
millimetres, x right, y down, z into the table (a point h mm above the board has z = -h).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import cv2
import numpy as np


class GeometryError(ValueError):
    """A geometric input that cannot be used (unknown dictionary, degenerate polygon)."""


ARUCO_DICTIONARIES: tuple[str, ...] = tuple(
    n for n in dir(cv2.aruco) if n.startswith("DICT_") and n.upper() == n
)


@lru_cache(maxsize=16)
def aruco_dictionary(name: str) -> cv2.aruco.Dictionary:
    """The predefined ArUco dictionary called `name` (e.g. "DICT_4X4_50")."""
    code = getattr(cv2.aruco, name, None) if name in ARUCO_DICTIONARIES else None
    if code is None:
        raise GeometryError(
            f"unknown ArUco dictionary {name!r}; use one of {', '.join(sorted(ARUCO_DICTIONARIES))}"
        )
    return cv2.aruco.getPredefinedDictionary(code)


def aruco_markers(
    detector: cv2.aruco.ArucoDetector, gray: np.ndarray
) -> tuple[Sequence[np.ndarray], np.ndarray | None, Sequence[np.ndarray]]:
    """`detector.detectMarkers(gray)` with "no marker" always as ids None: OpenCV up to 5.0 returns None
    there, 5.1 an empty array (which the callers' loops over the found ids then met as a marker list)."""
    corners, ids, rejected = detector.detectMarkers(gray)
    if ids is None or len(ids) == 0:
        return corners, None, rejected
    return corners, ids, rejected


@lru_cache(maxsize=16)
def _detector(name: str, windows: int = 2) -> cv2.aruco.ArucoDetector:
    params = cv2.aruco.DetectorParameters()
    # Corners are refined at full resolution by us (cornerSubPix), so the detector stays coarse & fast.
    params.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_NONE
    # Two threshold windows instead of the default three: markers are 20-60 px at detection size.
    # One window (9 px) finds them in nearly every frame at half the cost: tried first when the caller
    # says which markers to expect, the two windows only when one of those is missing.
    params.adaptiveThreshWinSizeMin = 9
    params.adaptiveThreshWinSizeMax = 19 if windows > 1 else 9
    params.adaptiveThreshWinSizeStep = 10
    params.minMarkerPerimeterRate = 0.02
    if windows == 1:
        # The fast pass also decodes only outlines of a plausible marker size: perimeter 6-40 % of the
        # detection image's width (a 15 mm marker on a 288 mm board filling 30-100 % of the frame).
        # Small print (glyphs, hatching) then costs nothing: ~35 % cheaper. Smaller boards in the frame
        # are still found by the full pass, which runs when an expected marker is missing.
        params.minMarkerPerimeterRate = 0.06
        params.maxMarkerPerimeterRate = 0.4
    return cv2.aruco.ArucoDetector(aruco_dictionary(name), params)


def detection_copy(image: np.ndarray, max_detect_width: int = 960) -> np.ndarray:
    """The copy of `image` that `detect_markers` detects on: at most `max_detect_width` px wide."""
    h, w = image.shape[:2]
    scale = min(1.0, max_detect_width / float(w))
    if scale >= 0.999:
        return image
    return cv2.resize(image, (int(round(w * scale)), int(round(h * scale))), interpolation=cv2.INTER_AREA)


def detect_markers(
    image: np.ndarray,
    dictionary_name: str,
    max_detect_width: int = 960,
    refine: bool = True,
    expected: Collection[int] | Mapping[int, np.ndarray] | None = None,
    small: np.ndarray | None = None,
) -> dict[int, np.ndarray]:
    """Marker id -> its 4 corners in full-resolution pixels (ArUco order), from a grey or BGR image.
    Detection runs on a grey copy scaled down to at most `max_detect_width` px wide (speed); corners
    are then refined at full size, converting only the pixels around each marker to grey. With
    `expected` ids a fast one-window pass runs first; the full pass only when it misses one of them.
    When `expected` maps each id to its corners on the board (any unit) and the fast pass found at
    least 3 of them, a missing one is looked for only where those 3 put it (a crop, full pass)."""
    h, w = image.shape[:2]
    if small is None:  # (a caller that also uses the small copy passes its `detection_copy`)
        small = detection_copy(image, max_detect_width)
    if small.ndim == 3:
        small = cv2.cvtColor(small, cv2.COLOR_BGR2GRAY)
    corners: Sequence[np.ndarray] = ()
    ids: np.ndarray | None = None
    if expected:
        corners, ids, _ = aruco_markers(_detector(dictionary_name, 1), small)
        seen = set() if ids is None else {int(i) for i in ids.reshape(-1)}
        missing = {int(i) for i in expected} - seen
        if missing and isinstance(expected, Mapping):
            corners, ids = _second_look(small, dictionary_name, expected, corners, ids, missing)
        elif missing:
            ids = None
    if ids is None:
        corners, ids, _ = aruco_markers(_detector(dictionary_name), small)
    found: dict[int, np.ndarray] = {}
    if ids is None:
        return found
    sx, sy = small.shape[1] / float(w), small.shape[0] / float(h)
    crit = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 20, 0.02)
    keep: dict[int, np.ndarray] = {}
    for c, seen_id in zip(corners, ids.reshape(-1), strict=True):
        keep.setdefault(int(seen_id), c)  # a duplicate id (reflection, print error): keep the first
    # Pixel centres: small (u + 0.5) / s - 0.5 in full-size pixels. All markers' boxes at once.
    pts_all = ((np.array([c.reshape(4, 2) for c in keep.values()]) + 0.5) / np.array([sx, sy]) - 0.5).astype(
        np.float32
    )
    side = np.hypot(*(pts_all[:, 0] - pts_all[:, 1]).T.astype(np.float64))
    wins = np.clip(side / 8, 2, 7).astype(int)  # large enough to pull a scaled-down corner in
    lo = np.maximum(np.floor(pts_all.min(axis=1)).astype(int) - wins[:, None] - 3, 0)
    hi = np.minimum(np.ceil(pts_all.max(axis=1)).astype(int) + wins[:, None] + 4, [w, h])
    for marker_id, pts, win, (x0, y0), (x1, y1) in zip(
        keep, pts_all, wins.tolist(), lo.tolist(), hi.tolist(), strict=True
    ):
        if refine:
            roi = image[y0:y1, x0:x1]
            roi = cv2.cvtColor(roi, cv2.COLOR_BGR2GRAY) if roi.ndim == 3 else roi
            local = (pts - np.array([x0, y0], np.float32)).reshape(-1, 1, 2)
            if min(roi.shape[:2]) > 2 * win + 5:
                cv2.cornerSubPix(roi, local, (win, win), (-1, -1), crit)
            pts = local.reshape(4, 2) + np.array([x0, y0], np.float32)
        found[marker_id] = pts
    return found


def _second_look(
    small: np.ndarray,
    dictionary_name: str,
    expected: Mapping[int, np.ndarray],
    corners: Sequence[np.ndarray],
    ids: np.ndarray | None,
    missing: set[int],
) -> tuple[Sequence[np.ndarray], np.ndarray | None]:
    """Markers the fast pass missed, looked for by the full pass in a crop of `small` (the marker's
    predicted box grown by one side each way) from the homography of the expected markers it found.
    With fewer than 3 found returns ids None (the caller then runs the full pass on the whole image).
    A marker not found in its crop is hidden (a cube or a hand on it) and stays missing."""
    if ids is None:
        return corners, None
    have = [
        (c.reshape(4, 2), int(i)) for c, i in zip(corners, ids.reshape(-1), strict=True) if int(i) in expected
    ]
    if len({i for _, i in have}) < 3:
        return corners, None
    board = np.concatenate([np.asarray(expected[i], np.float64).reshape(4, 2) for _, i in have])
    img = np.concatenate([c for c, _ in have]).astype(np.float64)
    H, _ = cv2.findHomography(board, img, 0)
    if H is None:
        return corners, None
    out_c, out_i = list(corners), [int(i) for i in ids.reshape(-1)]
    for i in sorted(missing):
        q = apply_homography(H, np.asarray(expected[i], np.float64).reshape(4, 2))
        side = float(np.linalg.norm(q[0] - q[1]))
        x0, y0 = np.floor(q.min(axis=0) - side).astype(int)
        x1, y1 = np.ceil(q.max(axis=0) + side).astype(int)
        x0, y0, x1, y1 = max(0, x0), max(0, y0), min(small.shape[1], x1), min(small.shape[0], y1)
        if x1 - x0 < side or y1 - y0 < side:
            continue  # out of the frame
        c2, i2, _ = aruco_markers(_detector(dictionary_name), small[y0:y1, x0:x1])
        for c, j in zip(c2 if i2 is not None else (), i2.reshape(-1) if i2 is not None else (), strict=True):
            if int(j) == i:
                out_c.append(c + np.array([x0, y0], np.float32))
                out_i.append(i)
    return tuple(out_c), np.array(out_i, np.int32).reshape(-1, 1)


def undistort_pixels(points: np.ndarray, K: np.ndarray, dist: np.ndarray) -> np.ndarray:
    """Distorted pixels -> ideal pinhole pixels of the same camera."""
    pts = np.asarray(points, dtype=np.float64).reshape(-1, 1, 2)
    return cv2.undistortPoints(pts, K, dist, P=K).reshape(-1, 2)


def fit_homography(board_pts: np.ndarray, image_pts: np.ndarray) -> np.ndarray:
    """Board mm -> image px homography, least squares over all marker corners."""
    H, _ = cv2.findHomography(np.asarray(board_pts, np.float64), np.asarray(image_pts, np.float64), 0)
    if H is None:
        raise GeometryError("the marker corners do not define a homography (collinear or repeated points)")
    return H / H[2, 2]


def apply_homography(H: np.ndarray, pts: np.ndarray) -> np.ndarray:
    p = np.asarray(pts, dtype=np.float64).reshape(-1, 2)
    q = np.column_stack([p, np.ones(len(p))]) @ H.T
    return q[:, :2] / q[:, 2:3]


def fit_frame(
    frame: list[tuple[Any, np.ndarray]],
    ideal: Callable[[np.ndarray], np.ndarray],
    spans: Callable[[list[Any]], bool],
    max_error_px: float,
) -> tuple[np.ndarray | None, np.ndarray, np.ndarray]:
    """One homography (board mm -> ideal image px) from the frame markers seen, `frame` holding each marker
    (with its `corners_mm`) and its corners in the image: while the markers left span the table (`spans`),
    fit, and drop the one that disagrees most until every marker's mean corner error is within
    `max_error_px`. Drops from `frame` in place; returns the homography (None when no fit is good) and the
    board and ideal image points of the last fit (a camera pose is solved from them)."""
    board_pts = image_pts = np.empty((0, 2))
    while spans([m for m, _ in frame]):
        board_pts = np.concatenate([m.corners_mm for m, _ in frame]).astype(np.float64)
        image_pts = np.concatenate([ideal(c) for _, c in frame])
        try:
            H = fit_homography(board_pts, image_pts)
        except GeometryError:
            return None, board_pts, image_pts
        err = np.linalg.norm(apply_homography(H, board_pts) - image_pts, axis=1).reshape(-1, 4).mean(axis=1)
        worst = int(np.argmax(err))
        if err[worst] <= max_error_px:
            return H, board_pts, image_pts
        frame.pop(worst)
    return None, board_pts, image_pts


def estimate_focal(H: np.ndarray, principal: tuple[float, float]) -> float | None:
    """Focal length (px) implied by a plane homography for a camera with square pixels and the given
    principal point; None when the view is too square-on for the estimate to mean anything."""
    T = np.array([[1, 0, -principal[0]], [0, 1, -principal[1]], [0, 0, 1.0]])
    G = T @ H
    G = G / np.linalg.norm(G[:, 0])
    h1, h2 = G[:, 0], G[:, 1]
    estimates: list[tuple[float, float]] = []
    den1 = h1[2] * h2[2]
    num1 = -(h1[0] * h2[0] + h1[1] * h2[1])
    if abs(den1) > 1e-12:
        estimates.append((num1 / den1, abs(den1)))
    den2 = h1[2] ** 2 - h2[2] ** 2
    num2 = (h2[0] ** 2 + h2[1] ** 2) - (h1[0] ** 2 + h1[1] ** 2)
    if abs(den2) > 1e-12:
        estimates.append((num2 / den2, abs(den2)))
    good = [(f2, w) for f2, w in estimates if f2 > 0]
    if not good:
        return None
    f2 = sum(f * w for f, w in good) / sum(w for _, w in good)
    # Perspective strength: at small tilt the estimate is noise.
    persp = math.hypot(h1[2], h2[2]) * math.sqrt(f2)
    if persp < 0.12:
        return None
    return math.sqrt(f2)


@dataclass(frozen=True, slots=True)
class CameraPose:
    """Where the camera is relative to the board: intrinsics, rotation, translation (x_cam = R x + t)."""

    K: np.ndarray
    R: np.ndarray
    t: np.ndarray

    @property
    def center(self) -> np.ndarray:
        return (-self.R.T @ self.t).reshape(3)

    @property
    def height_mm(self) -> float:
        """Camera height above the board plane (positive)."""
        return float(-self.center[2])

    @property
    def foot_mm(self) -> np.ndarray:
        """The board point straight under the camera."""
        return self.center[:2].copy()

    def plane_homography(self, height_mm: float) -> np.ndarray:
        """Board (x, y) on the plane `height_mm` above the board -> ideal image pixels."""
        z = -height_mm
        H = self.K @ np.column_stack([self.R[:, 0], self.R[:, 1], self.R[:, 2] * z + self.t.reshape(3)])
        return H / H[2, 2]


def pose_from_points(board_pts: np.ndarray, image_pts: np.ndarray, K: np.ndarray) -> CameraPose:
    """Camera pose from board points (z = 0) and their ideal pixels."""
    obj = np.column_stack([np.asarray(board_pts, np.float64).reshape(-1, 2), np.zeros(len(board_pts))])
    ok, rvec, tvec = cv2.solvePnP(
        obj, np.asarray(image_pts, np.float64).reshape(-1, 2), K, None, flags=cv2.SOLVEPNP_ITERATIVE
    )
    if not ok:
        raise GeometryError("could not solve the camera pose from the markers")
    R, _ = cv2.Rodrigues(rvec)
    if (-R.T @ tvec)[2, 0] > 0:  # the mirror solution under the table
        raise GeometryError("the camera pose came out under the board; check the marker ids in the layout")
    return CameraPose(K=K, R=R, t=tvec.reshape(3))


def default_intrinsics(
    width: int, height: int, H: np.ndarray | None = None, hfov_deg: float = 65.0
) -> np.ndarray:
    """A camera matrix when none was calibrated: focal length from the homography when the view is
    tilted enough to tell, else that of a typical webcam (`hfov_deg`). Parallax correction only needs
    the camera height roughly (a 20 % error moves a cube by well under 1 mm)."""
    cx, cy = width / 2.0, height / 2.0
    f = estimate_focal(H, (cx, cy)) if H is not None else None
    f_default = (width / 2) / math.tan(math.radians(hfov_deg) / 2)
    if f is None or not (0.5 * f_default < f < 2.0 * f_default):
        f = f_default
    return np.array([[f, 0, cx], [0, f, cy], [0, 0, 1.0]])


def parallax_to_footprint(seen_mm: np.ndarray, pose: CameraPose, height_mm: float) -> np.ndarray:
    """Board points where a face `height_mm` up appears (read through the board-plane homography)
    -> the board points under that face: shift toward the point under the camera by (H - h) / H."""
    Hc = pose.height_mm
    foot = pose.foot_mm
    k = (Hc - height_mm) / Hc
    return foot + (np.asarray(seen_mm, np.float64).reshape(-1, 2) - foot) * k


def polygon_area(poly: np.ndarray) -> float:
    p = np.asarray(poly, np.float64).reshape(-1, 2)
    x, y = p[:, 0], p[:, 1]
    return float(0.5 * (np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1))))


def polygon_is_simple(poly: np.ndarray) -> bool:
    """True when no two non-adjacent edges cross (a simple polygon)."""
    p = np.asarray(poly, np.float64).reshape(-1, 2)
    n = len(p)

    def cross(o: np.ndarray, a: np.ndarray, b: np.ndarray) -> float:
        return float((a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0]))

    for i in range(n):
        a1, a2 = p[i], p[(i + 1) % n]
        for j in range(i + 1, n):
            if j == i or (j + 1) % n == i or (i + 1) % n == j:
                continue
            b1, b2 = p[j], p[(j + 1) % n]
            d1, d2 = cross(a1, a2, b1), cross(a1, a2, b2)
            d3, d4 = cross(b1, b2, a1), cross(b1, b2, a2)
            if d1 * d2 < 0 and d3 * d4 < 0:
                return False
    return True


def rasterize_polygons(
    polys: list[np.ndarray], size_px: tuple[int, int], px_per_mm: float, values: list[int], base: int = 0
) -> np.ndarray:
    """A label image (uint8) with each polygon (mm) filled with its value, later ones on top."""
    w, h = size_px
    img = np.full((h, w), base, np.uint8)
    for poly, v in zip(polys, values, strict=True):
        p = np.round(np.asarray(poly, np.float64) * px_per_mm * 16 - 8).astype(np.int32)
        cv2.fillPoly(img, [p], int(v), lineType=cv2.LINE_8, shift=4)
    return img


def square_corners(center: np.ndarray, size: float, angle_deg: float) -> np.ndarray:
    """Corners of a square of side `size` centred at `center`, turned `angle_deg`."""
    a = math.radians(angle_deg)
    c, s = math.cos(a) * size / 2, math.sin(a) * size / 2
    u, v = np.array([c, s]), np.array([-s, c])
    ctr = np.asarray(center, np.float64).reshape(2)
    return np.array([ctr - u - v, ctr + u - v, ctr + u + v, ctr - u + v])


def upsample_grid(grid: np.ndarray, step: int, size: tuple[int, int]) -> np.ndarray:
    """Bilinear upsampling of values sampled at pixels (k*step, j*step) to every pixel of `size`
    (node k lands exactly on pixel k*step, unlike cv2.resize which aligns cell centres)."""
    M = np.array([[step, 0, 0], [0, step, 0]], np.float32)
    return cv2.warpAffine(
        grid.astype(np.float32), M, size, flags=cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
    )


def merge_boxes(boxes: list[tuple[int, int, int, int]]) -> list[tuple[int, int, int, int]]:
    """Boxes (x0, y0, x1, y1) with every overlapping pair replaced by their union, until none overlap."""
    out = list(boxes)
    merged = True
    while merged:
        merged = False
        for i in range(len(out)):
            for j in range(i + 1, len(out)):
                a, b = out[i], out[j]
                if a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]:
                    out[i] = (min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3]))
                    del out[j]
                    merged = True
                    break
            if merged:
                break
    return out
