"""The camera model shared by the battle-board and ocean-grid readers and calibration: lens intrinsics
from `smart-table calibrate camera` (`smart-table/camera@1`), loaded and validated, scaled to a frame size.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

__all__ = ["CameraError", "CameraModel", "camera_matrices"]


class CameraError(ValueError):
    """A camera file that cannot be used."""


@dataclass(frozen=True, slots=True)
class CameraModel:
    """Lens intrinsics from `smart-table calibrate camera` (`smart-table/camera@1`)."""

    K: np.ndarray
    dist: np.ndarray
    image_size: tuple[int, int]

    @staticmethod
    def load(source: str | Path | dict[str, Any] | CameraModel) -> CameraModel:
        if isinstance(source, CameraModel):
            return source
        data: dict[str, Any]
        if isinstance(source, dict):
            data = source
        else:
            try:
                data = json.loads(Path(source).read_text(encoding="utf-8"))
            except (OSError, ValueError) as exc:
                raise CameraError(
                    f"cannot read camera file {str(source)!r}: {exc}; "
                    "make one with 'smart-table calibrate camera'"
                ) from exc
        try:
            K = np.array(data["K"], np.float64).reshape(3, 3)
            dist = np.array(data.get("dist", [0, 0, 0, 0, 0]), np.float64).reshape(-1)
            size = tuple(int(v) for v in data.get("image_size", (0, 0)))
        except (KeyError, TypeError, ValueError) as exc:
            raise CameraError("a camera file needs 'K' (3x3), 'dist' (list) and 'image_size' [w, h]") from exc
        if K[0, 0] <= 0 or K[1, 1] <= 0:
            raise CameraError("camera field 'K' must have positive focal lengths")
        return CameraModel(K=K, dist=dist, image_size=(size[0], size[1]))

    def scaled_to(self, width: int, height: int) -> CameraModel:
        """The same lens for frames of another resolution (same aspect)."""
        if self.image_size[0] in (0, width):
            return self
        s = width / self.image_size[0]
        K = self.K.copy()
        K[:2] *= s
        return CameraModel(K=K, dist=self.dist, image_size=(width, height))


def camera_matrices(camera: Any, width: int, height: int) -> tuple[np.ndarray | None, np.ndarray | None]:
    """K and distortion for this frame size from a camera file (`smart-table calibrate camera`: a path,
    its dict or a `vision.camera.CameraModel`), or (None, None) without one."""
    if camera is None:
        return None, None
    model = CameraModel.load(camera).scaled_to(width, height)  # raises CameraError on a bad file
    return model.K, model.dist
