"""Board check: find a layout's markers in one frame and say how well they agree with the layout
(homography residual in millimetres per marker), where the camera is and how tilted. Owns the report
`smart-table calibrate board` prints; uses the reader's registration so the check matches reading.
"""

from __future__ import annotations

import math
from typing import Any

import cv2
import numpy as np

from vision.battle_board.layout import BoardLayout
from vision.battle_board.reader import BoardReader
from vision.camera import CameraModel
from vision.geometry import apply_homography, detect_markers, undistort_pixels
from vision.palette import Palette


def check_board(
    image: np.ndarray, layout: BoardLayout, camera: CameraModel | dict | str | None = None
) -> dict[str, Any]:
    """Report for one frame: markers found/missing, homography error (mm), camera height and tilt."""
    reader = BoardReader(layout, Palette(colors=[]), camera)
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    wanted = sorted(m.id for m in layout.markers)
    located = reader.locate(gray)
    if isinstance(located, str):
        return {"ok": False, "reason": located, "markers_expected": wanted}
    H, pose, ids = located
    found = detect_markers(gray, layout.aruco_dictionary)
    per: dict[str, float] = {}
    errs = []
    Hinv = np.linalg.inv(H)
    for i in ids:
        px = found[i].astype(np.float64)
        if reader.camera is not None and np.any(reader.camera.dist):
            cam = reader.camera.scaled_to(gray.shape[1], gray.shape[0])
            px = undistort_pixels(px, cam.K, cam.dist)
        mm = apply_homography(Hinv, px)
        e = np.linalg.norm(mm - layout.marker_points()[i], axis=1)
        per[str(i)] = round(float(e.max()), 3)
        errs.extend(e.tolist())
    tilt = math.degrees(math.acos(min(1.0, abs(float(pose.R[2, 2])))))
    rms = float(np.sqrt(np.mean(np.square(errs))))
    side_px = float(np.median([np.linalg.norm(found[i][0] - found[i][1]) for i in ids]))
    return {
        "ok": rms < 1.0 and len(ids) == len(wanted),
        "markers_expected": wanted,
        "markers_found": ids,
        "markers_missing": sorted(set(wanted) - set(ids)),
        "homography_rms_mm": round(rms, 3),
        "homography_max_mm": round(float(max(errs)), 3),
        "per_marker_max_mm": per,
        "marker_side_px": round(side_px, 1),
        "camera_height_mm": round(pose.height_mm, 1),
        "camera_tilt_deg": round(tilt, 1),
        "intrinsics": "calibrated"
        if camera is not None
        else "estimated (run 'smart-table calibrate camera')",
        "advice": _advice(rms, len(ids), len(wanted), side_px),
    }


def _advice(rms: float, n: int, want: int, side_px: float) -> str:
    if n < want:
        return "some markers are hidden or out of view: uncover them or widen the view"
    if side_px < 24:
        return (
            "markers are small in the image (under 24 px): move the camera closer or use a higher resolution"
        )
    if rms >= 1.0:
        return (
            "markers disagree with the layout by a millimetre or more: re-measure their corners in the layout"
        )
    return "good"
