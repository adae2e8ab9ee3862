"""Table check: find the table layout's frame markers in one frame and say how well they agree with the
layout (homography residual in mm per marker), where the camera is, how large the ship and board
markers appear, and what the Ocean boards' back looks like under this light; and the table calibration
(`learn_table_calibration`): the back's print learned from the face-down squares of the setup photo
(`vision.ocean_grid.calibration`), which the reader then uses instead of the layout's `boards.back`.

Owns the report `smart-table calibrate table` prints; uses the reader's own registration
(`vision.ocean_grid.reader.read_table_detailed`) so the check matches reading. Knows nothing of the rules.
"""

from __future__ import annotations

import math
from typing import Any

import cv2
import numpy as np

from vision.geometry import apply_homography
from vision.ocean_grid.calibration import TableCalibration, learn_back, learn_print
from vision.ocean_grid.classification import _frame_white, _patch, _white_gains
from vision.ocean_grid.detection import _detect
from vision.ocean_grid.layout import TableLayout
from vision.ocean_grid.reader import TableReading, read_table_detailed


def learn_table_calibration(
    image: np.ndarray, layout: TableLayout, camera: Any = None, reading: TableReading | None = None
) -> TableCalibration | None:
    """The table calibration from the setup photo (the boards dealt, most of them face down): the back's
    print as this light shows it, from every square with no face-up marker read whose print agrees with
    the others'. None when the table is not found. A photo with no face-down board gives a calibration
    without a back (the reader then uses the layout's `boards.back`)."""
    if reading is None:
        reading = read_table_detailed(image, layout, camera)
    if reading.homography is None:
        return None
    H = reading.homography
    gains, _, white_ok = _frame_white(image, layout, H)
    if not white_ok:
        gains = np.ones(3)
    unmarked = [k for k, b in enumerate(reading.boards) if b["face_up"] is not True]
    back, squares = learn_back(image, layout, H, gains, unmarked)
    ids = [sq.id for sq in layout.squares]
    template = learn_print(image, H, layout, [ids.index(s) for s in squares]) if back is not None else None
    return TableCalibration(back, gains, white_ok, squares, template)


def check_table(
    image: np.ndarray, layout: TableLayout, camera: Any = None, calibration_out: Any = None
) -> dict[str, Any]:
    """Report for one frame (see the module docstring); `ok` is false with a `reason` when unusable.
    `calibration_out` (a path): also learn the table calibration and write it there."""
    reading = read_table_detailed(image, layout, camera)
    wanted = sorted(m.id for m in layout.markers)
    if reading.homography is None or reading.pose is None:
        return {
            "ok": False,
            "reason": reading.reason or "the table was not found",
            "markers_expected": wanted,
        }
    H, pose = reading.homography, reading.pose
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    found = _detect(gray, layout.aruco_dictionary, "frame")
    Hinv = np.linalg.inv(H)
    per: dict[str, float] = {}
    errs: list[float] = []
    for m in layout.markers:
        if len(found.get(m.id, [])) != 1:
            continue
        e = np.linalg.norm(apply_homography(Hinv, found[m.id][0]) - m.corners_mm, axis=1)
        per[str(m.id)] = round(float(e.max()), 3)
        errs.extend(e.tolist())
    rms = float(np.sqrt(np.mean(np.square(errs)))) if errs else float("nan")
    ship_px = {
        name: round(float(np.linalg.norm(found[mid][0][0] - found[mid][0][1])), 1)
        for name, mid in layout.ships.ids.items()
        if len(found.get(mid, [])) == 1
    }
    # The back art as this camera sees it: hue and saturation at the marker spot of face-down squares.
    gains = _white_gains(image, layout, H)
    ox, oy = layout.board_marker_offset_mm
    backs = []
    for b in reading.boards:
        if b["face_up"] is True:
            continue
        x0, y0 = layout.square(b["square"]).polygon_mm.min(axis=0)
        patch = _patch(image, H, (float(x0 + ox), float(y0 + oy)), layout.boards.marker_size_mm / 2 + 8.0)
        balanced = np.clip(patch.astype(np.float32) * gains.astype(np.float32), 0, 255).astype(np.uint8)
        hsv = cv2.cvtColor(balanced, cv2.COLOR_BGR2HSV).reshape(-1, 3)
        backs.append(np.median(hsv, axis=0))
    back: dict[str, Any] | None = None
    if backs:
        med = np.median(np.array(backs), axis=0)
        back = {
            "hue": round(float(med[0]), 1),
            "saturation": round(float(med[1]), 1),
            "suggested": {
                "hue": [int(max(0, med[0] - 14)), int(min(180, med[0] + 14))],
                "min_saturation": int(max(30, med[1] * 0.6)),
            },
            "squares_measured": len(backs),
        }
    learned = learn_table_calibration(image, layout, camera, reading)
    learned_back: dict[str, Any] | None = None
    if learned is not None and learned.back is not None:
        learned_back = {
            "squares": list(learned.squares),
            "chroma_mean": [round(float(v), 3) for v in learned.back.mean],
            "chroma_sigma": [round(float(v), 3) for v in np.sqrt(np.diag(learned.back.cov))],
        }
    if calibration_out is not None and learned is not None:
        learned.save(calibration_out)
    tilt = math.degrees(math.acos(min(1.0, abs(float(pose.R[2, 2])))))
    present = sorted(int(k) for k in per)
    min_ship_px = min(ship_px.values()) if ship_px else None
    return {
        "ok": bool(errs) and rms < 1.5 and len(present) == len(wanted),
        "status": reading.status,
        "markers_expected": wanted,
        "markers_found": present,
        "markers_missing": sorted(set(wanted) - set(present)),
        "homography_rms_mm": round(rms, 3),
        "per_marker_max_mm": per,
        "camera_height_mm": round(pose.height_mm, 1),
        "camera_tilt_deg": round(tilt, 1),
        "ship_marker_side_px": ship_px,
        "board_back": back,
        "back_learned": learned_back,
        "white_balance_measured": bool(learned is not None and learned.white_seen),
        "intrinsics": "calibrated"
        if camera is not None
        else "estimated (run 'smart-table calibrate camera')",
        "advice": _advice(rms, len(present), len(wanted), min_ship_px, learned_back is not None),
    }


def _advice(rms: float, n: int, want: int, ship_px: float | None, back_learned: bool = True) -> str:
    if n < want:
        return "some frame markers are hidden or out of view: uncover them or widen the view"
    if ship_px is not None and ship_px < 18:
        return (
            "ship markers are small in the image (under 18 px): lower the camera or print larger ship markers"
        )
    if not rms < 1.5:
        return (
            "frame markers disagree with the layout by over a millimetre: "
            "re-measure their corners in the layout"
        )
    if not back_learned:
        return (
            "no face-down Ocean board seen: photograph the table as set up, boards face down, to learn "
            "the back's print (the layout's boards.back is used until then)"
        )
    return "good"
