"""Finding the Great Sea's map in a photo: the frame markers, one homography (board mm -> image px), the
camera's pose (for parallax), a top-down copy of the map at `PX_PER_MM`, white-balanced on the markers'
white quiet zones."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from vision.camera import camera_matrices
from vision.geometry import (
    CameraPose,
    GeometryError,
    apply_homography,
    default_intrinsics,
    detect_markers,
    fit_frame,
    pose_from_points,
    undistort_pixels,
)
from vision.sea_regions.layout import SeaLayout

PX_PER_MM = 1.5  # the top-down copy: about a 1080p camera's own sampling of a 60 cm map
MAX_FRAME_ERROR_PX = 4.0
MAP_MARGIN_MM = 8.0  # around the regions in the top-down copy


@dataclass
class Registration:
    H: np.ndarray  # board mm -> ideal image px
    pose: CameraPose
    frame_ids: tuple[int, ...]
    origin_mm: tuple[float, float]  # board point of the top-down copy's pixel (0, 0)
    top: np.ndarray  # the map seen from above, BGR uint8, white-balanced
    white: tuple[float, float, float]  # the quiet zones' median BGR before balancing

    def to_mm(self, px: np.ndarray) -> np.ndarray:
        """Top-down copy pixels (x, y) -> board mm."""
        return np.asarray(px, np.float64).reshape(-1, 2) / PX_PER_MM + np.array(self.origin_mm)

    def to_image(self, mm: np.ndarray) -> np.ndarray:
        return apply_homography(self.H, np.asarray(mm, np.float64).reshape(-1, 2))

    def camera_scale(self, at_mm: tuple[float, float]) -> np.ndarray:
        """The camera's sampling at a board point: the 2x2 Jacobian of board mm -> image px there (a
        direction's camera pixels per mm are its length through it)."""
        return homography_jacobian(self.H, at_mm)


def homography_jacobian(H: np.ndarray, at: tuple[float, float]) -> np.ndarray:
    """d(image px) / d(board mm) of the homography `H` at the board point `at`."""
    x, y = float(at[0]), float(at[1])
    den = float(H[2, 0] * x + H[2, 1] * y + H[2, 2])
    u = (H[0, 0] * x + H[0, 1] * y + H[0, 2]) / den
    v = (H[1, 0] * x + H[1, 1] * y + H[1, 2]) / den
    out: np.ndarray = (
        np.array(
            [
                [H[0, 0] - u * H[2, 0], H[0, 1] - u * H[2, 1]],
                [H[1, 0] - v * H[2, 0], H[1, 1] - v * H[2, 1]],
            ]
        )
        / den
    )
    return out


class NoTable(Exception):
    """The map cannot be registered in this photo; the message says what to do."""


def register(image_bgr: np.ndarray, layout: SeaLayout, camera: Any = None) -> Registration:
    """Markers, homography, pose and the balanced top-down copy of the map; raises NoTable."""
    h, w = image_bgr.shape[:2]
    K, dist = camera_matrices(camera, w, h)
    expected = {m.id: m.corners_mm for m in layout.markers}
    found = detect_markers(image_bgr, layout.aruco_dictionary, expected=expected)
    frame = [(m, found[m.id]) for m in layout.markers if m.id in found]

    def ideal(px: np.ndarray) -> np.ndarray:
        return undistort_pixels(px, K, dist) if K is not None and dist is not None and np.any(dist) else px

    def spans(markers: list[Any]) -> bool:
        """3 or more markers whose corners span a tenth of the table's area."""
        if len(markers) < 3:
            return False
        corners = np.concatenate([m.corners_mm for m in markers]).astype(np.float32)
        return bool(cv2.contourArea(cv2.convexHull(corners)) >= 0.1 * layout.size_mm[0] * layout.size_mm[1])

    H, board_pts, image_pts = fit_frame(frame, ideal, spans, MAX_FRAME_ERROR_PX)
    if H is None:
        raise NoTable(
            f"only {len(frame)} of the map's {len(layout.markers)} frame markers agree and span the table "
            "(need 3 around it): clear the table's edge or check the camera"
        )
    if K is None:
        K = default_intrinsics(w, h, H)
    try:
        pose = pose_from_points(board_pts, image_pts, K)
    except GeometryError as exc:
        raise NoTable(str(exc)) from None
    white = _quiet_zone_white(image_bgr, layout, H, [m for m, _ in frame])
    x0, y0, _, _ = layout.map_box_mm
    ox, oy = x0 - MAP_MARGIN_MM, y0 - MAP_MARGIN_MM
    size = top_size(layout)
    to_board = np.array([[1 / PX_PER_MM, 0, ox], [0, 1 / PX_PER_MM, oy], [0, 0, 1.0]])
    # Pixel centres: the copy's pixel (i, j) is the board point at its centre.
    shift = np.array([[1, 0, 0.5], [0, 1, 0.5], [0, 0, 1.0]])
    M = H @ to_board @ shift
    src = image_bgr
    if dist is not None and np.any(dist) and K is not None:
        src = cv2.undistort(image_bgr, K, dist)
    top = cv2.warpPerspective(src, M, size, flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP)
    gains = np.clip(235.0 / np.maximum(np.array(white), 1.0), 0.4, 6.0)
    top = cv2.transform(top, np.diag(gains).astype(np.float32))
    return Registration(H, pose, tuple(m.id for m, _ in frame), (ox, oy), top, white)


def top_size(layout: SeaLayout) -> tuple[int, int]:
    """The top-down copy's size in px (width, height)."""
    x0, y0, x1, y1 = layout.map_box_mm
    return (
        int(np.ceil((x1 - x0 + 2 * MAP_MARGIN_MM) * PX_PER_MM)),
        int(np.ceil((y1 - y0 + 2 * MAP_MARGIN_MM) * PX_PER_MM)),
    )


def _quiet_zone_white(
    image_bgr: np.ndarray, layout: SeaLayout, H: np.ndarray, used: list[Any]
) -> tuple[float, float, float]:
    """Median colour of the white margin around the frame markers seen (ArUco's quiet zone): the light's
    own white, so pieces are judged by their colour under it."""
    pts = []
    for m in used:
        c = m.corners_mm.mean(axis=0)
        side = float(np.linalg.norm(m.corners_mm[1] - m.corners_mm[0]))
        r = side / 2 + max(2.0, side * 0.12)
        t = np.linspace(-r, r, 9)
        ring = np.concatenate(
            [
                np.column_stack([t, np.full(9, -r)]),
                np.column_stack([t, np.full(9, r)]),
                np.column_stack([np.full(9, -r), t]),
                np.column_stack([np.full(9, r), t]),
            ]
        )
        pts.append(ring + c)
    px = np.round(apply_homography(H, np.concatenate(pts))).astype(int)
    h, w = image_bgr.shape[:2]
    ok = (px[:, 0] >= 0) & (px[:, 0] < w) & (px[:, 1] >= 0) & (px[:, 1] < h)
    px = px[ok]
    if len(px) == 0:
        return (235.0, 235.0, 235.0)
    vals = image_bgr[px[:, 1], px[:, 0]].astype(np.float64)
    # The brighter half: a dark neighbour (the marker's edge, a shadow) must not pull the white down.
    bright = vals[vals.sum(axis=1) >= np.median(vals.sum(axis=1))]
    med = np.median(bright, axis=0)
    return (float(med[0]), float(med[1]), float(med[2]))
