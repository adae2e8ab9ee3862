"""The files several commands read, each read one way with one sentence when it cannot be: an image, a
camera calibration, a JSON document. (A live watch's options are smart_table/watch_common.py's.)
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from smart_table.errors import CliError


def read_image(path: Path | str) -> Any:
    """The image at `path` as OpenCV reads it (BGR)."""
    import cv2

    image = cv2.imread(str(path), cv2.IMREAD_COLOR) if Path(path).is_file() else None
    if image is None:
        reason = "does not exist" if not Path(path).exists() else "is not an image OpenCV can decode"
        raise CliError(f"image {path} {reason}: give a PNG or JPEG file")
    return image


def load_camera(path: Path | None) -> Any:
    """The camera model of a calibration file from `calibrate camera` (None: no file, no model)."""
    if path is None:
        return None
    from vision.camera import CameraError, CameraModel

    try:
        return CameraModel.load(path)
    except CameraError as exc:
        raise CliError(str(exc)) from None


def read_json(path: Path | str) -> Any:
    """The JSON document in the file at `path`."""
    try:
        return json.loads(Path(path).read_text())
    except OSError as exc:
        raise CliError(f"{path} cannot be read ({exc.strerror}); check the path.") from None
    except json.JSONDecodeError as exc:
        raise CliError(f"{path} is not JSON (line {exc.lineno}: {exc.msg}).") from None
