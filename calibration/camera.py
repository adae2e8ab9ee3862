"""Camera intrinsics from views of a ChArUco board: focal length, principal point, lens distortion,
and the reprojection error that says how much to trust them. Writes `smart-table/camera@1`, which
`vision.camera.CameraModel` reads. Owns the ChArUco board definition and the solve.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.geometry import aruco_dictionary

SCHEMA = "smart-table/camera@1"
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".bmp", ".tif", ".tiff")


class CameraCalibrationError(ValueError):
    """Calibration could not be done; the message says what to fix."""


@dataclass(frozen=True, slots=True)
class CharucoSpec:
    """The printed board: squares across and down, square and marker sides in mm, the dictionary.
    The dictionary differs from the boards' markers (DICT_4X4_50) so the two are never confused."""

    squares: tuple[int, int] = (7, 5)
    square_mm: float = 30.0
    marker_mm: float = 22.0
    dictionary: str = "DICT_5X5_100"

    def board(self) -> cv2.aruco.CharucoBoard:
        return cv2.aruco.CharucoBoard(
            self.squares, self.square_mm, self.marker_mm, aruco_dictionary(self.dictionary)
        )

    def image(self, px_per_mm: float = 4.0, margin_mm: float = 10.0) -> np.ndarray:
        """The board to print (grey image, white margin), at `px_per_mm`."""
        w = int((self.squares[0] * self.square_mm + 2 * margin_mm) * px_per_mm)
        h = int((self.squares[1] * self.square_mm + 2 * margin_mm) * px_per_mm)
        return self.board().generateImage((w, h), marginSize=int(margin_mm * px_per_mm), borderBits=1)


def detect_view(gray: np.ndarray, spec: CharucoSpec) -> tuple[np.ndarray, np.ndarray] | str:
    """Object points (mm) and image points of the ChArUco corners in one view, or why there are too few."""
    board = spec.board()
    detector = cv2.aruco.CharucoDetector(board)
    corners, ids, _, _ = detector.detectBoard(gray)
    if ids is None or len(ids) < 6:
        return f"found {0 if ids is None else len(ids)} ChArUco corners (need 6)"
    # The stubs want a list of arrays; OpenCV also takes the single Nx1x2 array detectBoard returns.
    obj, img = board.matchImagePoints(corners, ids)  # type: ignore[call-overload]  # stub too narrow
    if obj is None or len(obj) < 6:
        return "the detected corners do not match the board"
    return obj.reshape(-1, 3).astype(np.float32), img.reshape(-1, 2).astype(np.float32)


def calibrate_from_images(
    images: list[tuple[str, np.ndarray]], spec: CharucoSpec | None = None
) -> dict[str, Any]:
    """Calibrate from (name, BGR image) views; returns the camera file's object."""
    spec = spec or CharucoSpec()
    objs, imgs, used, rejected = [], [], [], []
    size: tuple[int, int] | None = None
    for name, img in images:
        gray = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY) if img.ndim == 3 else img
        if size is None:
            size = (gray.shape[1], gray.shape[0])
        elif size != (gray.shape[1], gray.shape[0]):
            rejected.append(
                {"image": name, "reason": f"size {gray.shape[1]}x{gray.shape[0]} differs from {size}"}
            )
            continue
        found = detect_view(gray, spec)
        if isinstance(found, str):
            rejected.append({"image": name, "reason": found})
            continue
        objs.append(found[0])
        imgs.append(found[1])
        used.append(name)
    if len(objs) < 4 or size is None:
        raise CameraCalibrationError(
            f"only {len(objs)} usable views of the ChArUco board (need 4, 15-30 recommended, tilted and "
            f"covering the image corners)"
            + (f"; first problem: {rejected[0]['image']}: {rejected[0]['reason']}" if rejected else "")
        )
    rms, K, dist, _, _ = cv2.calibrateCamera(objs, imgs, size, None, None)
    return {
        "schema": SCHEMA,
        "image_size": [int(size[0]), int(size[1])],
        "K": [[float(v) for v in row] for row in K],
        "dist": [float(v) for v in dist.reshape(-1)],
        "rms_px": float(rms),
        "views_used": used,
        "views_rejected": rejected,
        "charuco": {
            "squares": list(spec.squares),
            "square_mm": spec.square_mm,
            "marker_mm": spec.marker_mm,
            "dictionary": spec.dictionary,
        },
    }


def load_images(folder: str | Path) -> list[tuple[str, np.ndarray]]:
    path = Path(folder)
    if not path.is_dir():
        raise CameraCalibrationError(f"{str(path)!r} is not a folder of calibration images")
    out = []
    for f in sorted(p for p in path.iterdir() if p.suffix.lower() in IMAGE_SUFFIXES):
        img = cv2.imread(str(f), cv2.IMREAD_COLOR)
        if img is None:
            raise CameraCalibrationError(f"cannot read image {str(f)!r}: not an image file or damaged")
        out.append((f.name, img))
    if not out:
        raise CameraCalibrationError(f"folder {str(path)!r} holds no images ({', '.join(IMAGE_SUFFIXES)})")
    return out
