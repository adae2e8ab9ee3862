"""The files several commands read, each read one way with one sentence when it cannot be: an image, a
camera calibration, a JSON document; and a live watch's frame source from its `--camera`/`--video`/`--images`
and how long it is reopened when it drops (`--reconnect-s`).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
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


SOURCE_HELP = "a video file, /dev/videoN, rtsp://..., http://... MJPEG stream or picamera2[:N]"


def add_watch_sources(parser: argparse.ArgumentParser) -> None:
    """The frame sources every live watch takes (`--camera N`, `--video SOURCE`, `--images DIR`), so the
    ocean grid's and the map's cameras open what `vision watch` opens (vision.camera_source)."""
    src = parser.add_mutually_exclusive_group(required=True)
    src.add_argument("--camera", type=int, default=None, dest="camera_index", help="camera device number")
    # A string, not a Path: Path("rtsp://host/x") folds the two slashes and the stream is taken for a file.
    src.add_argument("--video", default=None, metavar="SOURCE", help=SOURCE_HELP)
    src.add_argument("--images", type=Path, default=None, help="a folder of images, read in name order")


RECONNECT_S = 30.0


def add_reconnect(parser: argparse.ArgumentParser) -> None:
    """`--reconnect-s`, the same for every live watch (`vision watch`, `ships-watch`, `regions-watch`): a
    phone's stream that drops is reopened in the process rather than ending it (and the supervisor's
    restart)."""
    parser.add_argument(
        "--reconnect-s",
        type=float,
        default=RECONNECT_S,
        help="seconds to keep reopening a camera or stream that stopped giving frames "
        f"(default {RECONNECT_S:g}; 0: stop)",
    )


def camera_note(source: object) -> Callable[[str], None]:
    """One line on stderr per step of reopening a dropped source (the controller's log shows it)."""
    return lambda text: print(f"camera {source}: {text}", file=sys.stderr, flush=True)


def watch_source(args: argparse.Namespace) -> Any:
    """What a live watch reads (`--camera N`, `--video`, `--images`), once its counts are checked."""
    if args.settle_frames < 1 or args.confirm < 1:
        raise CliError("--settle-frames and --confirm must be at least 1")
    if args.camera_index is not None:
        return args.camera_index
    return args.video if args.video is not None else args.images
