"""`smart-table vision regions`: which Ships and Forts of The Great Sea stand in each region of the map,
from a photo. Parsing, files and exit codes only: the reading is `vision.sea_regions.reader`.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from smart_table.errors import CliError


def register(top: argparse._SubParsersAction, groups: dict[str, argparse._SubParsersAction]) -> None:
    p = groups["vision"].add_parser(
        "regions", help="read The Great Sea's Ships and Forts per region of the map from a photo"
    )
    p.add_argument("image", type=Path, metavar="IMAGE", help="an image file (PNG, JPEG, ...)")
    p.add_argument(
        "--layout",
        type=Path,
        required=True,
        help="Great Sea table layout JSON (shipped: vision/data/great-sea-2.json, -3.json, -4.json)",
    )
    p.add_argument(
        "--calibration",
        type=Path,
        default=None,
        dest="camera_file",
        help="camera calibration JSON (K, dist) from `calibrate camera`; optional",
    )
    p.add_argument(
        "--crops", type=Path, default=None, help="write a crop of each unsure piece to DIR/unsure-<n>.png"
    )
    p.set_defaults(func=_regions)


def _regions(args: argparse.Namespace) -> int:
    import cv2

    from vision.camera import CameraError, CameraModel
    from vision.sea_regions.layout import LayoutError, load_sea_layout
    from vision.sea_regions.reader import read_regions_detailed

    try:
        layout = load_sea_layout(args.layout)
    except LayoutError as exc:
        raise CliError(f"{exc}; fix the layout file (see docs/great-sea.md)") from None
    camera: Any = None
    if args.camera_file is not None:
        try:
            camera = CameraModel.load(args.camera_file)
        except CameraError as exc:
            raise CliError(str(exc)) from None
    path = args.image
    image = cv2.imread(str(path), cv2.IMREAD_COLOR) if Path(path).is_file() else None
    if image is None:
        reason = "does not exist" if not Path(path).exists() else "is not an image OpenCV can decode"
        raise CliError(f"image {path} {reason}: give a PNG or JPEG file")
    reading = read_regions_detailed(image, layout, camera)
    out = reading.to_json()
    if args.crops is not None and reading.crops:
        try:
            args.crops.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise CliError(f"cannot create crops folder {args.crops}: {exc.strerror}") from None
        for n, (entry, crop) in enumerate(zip(out["unsure"], reading.crops, strict=True), start=1):
            target = args.crops / f"unsure-{n}.png"
            cv2.imwrite(str(target), crop)
            entry["crop"] = str(target)
    print(json.dumps(out))
    if reading.status == "no-table":
        raise CliError(f"no map in {path}: {reading.reason}", code=1)
    return 0
