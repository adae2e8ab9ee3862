"""`smart-table vision regions`: which Ships and Forts of The Great Sea stand in each region of the map,
from a photo; `vision regions-watch` live; `calibrate sea-map` (the bare map's print, from a photo).
Parsing, files and exit codes only: the reading is `vision.sea_regions.reader`.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from smart_table.errors import CliError
from smart_table.files import load_camera, read_image
from smart_table.watch_common import add_publish_options, add_watch_sources, run_watch

BARE_MAP_HELP = "the bare map from `calibrate sea-map` (PNG): print of a piece colour is no piece; optional"


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
    p.add_argument("--bare-map", type=Path, default=None, help=BARE_MAP_HELP)
    p.set_defaults(func=_regions)

    w = groups["vision"].add_parser(
        "regions-watch", help="read The Great Sea's map live and publish settled readings on ZeroMQ"
    )
    add_watch_sources(w)
    w.add_argument("--layout", type=Path, required=True, help="Great Sea table layout JSON")
    w.add_argument("--calibration", type=Path, default=None, help="camera calibration JSON; optional")
    add_publish_options(w, "vision.regions", "the map")
    w.add_argument(
        "--loop", action="store_true", help="replay the image folder until stopped (a demo table, a test)"
    )
    w.add_argument("--bare-map", type=Path, default=None, help=BARE_MAP_HELP)
    w.set_defaults(func=_watch)

    c = groups["calibrate"].add_parser(
        "sea-map", help="learn The Great Sea's printed map from a photo of the bare map (no pieces on it)"
    )
    c.add_argument("--image", type=Path, required=True, help="a photo of the bare map, same camera and lamp")
    c.add_argument("--layout", type=Path, required=True, help="Great Sea table layout JSON")
    c.add_argument("--calibration", type=Path, default=None, help="camera calibration JSON; optional")
    c.add_argument(
        "--out",
        type=Path,
        default=None,
        help="where to save the bare map (PNG); default sea-map-<side>.png beside --config, else here",
    )
    c.add_argument("--config", type=Path, default=None, help="the table's TOML config (where to save)")
    c.set_defaults(func=_calibrate)


def _layout_and_camera(layout_path: Path, camera_file: Path | None) -> tuple[Any, Any]:
    from vision.sea_regions.layout import LayoutError, load_sea_layout

    try:
        layout = load_sea_layout(layout_path)
    except LayoutError as exc:
        raise CliError(f"{exc}; fix the layout file (see docs/great-sea.md)") from None
    return layout, load_camera(camera_file)


def _bare_map(path: Path | None, layout: Any) -> Any:
    if path is None:
        return None
    from vision.sea_regions.bare_map import BareMapError, load_bare_map

    try:
        return load_bare_map(path, layout)
    except BareMapError as exc:
        raise CliError(str(exc)) from None


def _calibrate(args: argparse.Namespace) -> int:
    from vision.sea_regions.bare_map import BareMapError, learn_bare_map

    layout, camera = _layout_and_camera(args.layout, args.calibration)
    image = read_image(args.image)
    out = args.out
    if out is None:
        folder = args.config.resolve().parent if args.config is not None else Path.cwd()
        out = folder / f"sea-map-{layout.side}.png"
    try:
        bare = learn_bare_map(image, layout, camera, check_empty=True)
        bare.save(out)
    except BareMapError as exc:
        raise CliError(str(exc), code=1) from None
    print(
        f"smart-table: bare map of {layout.name} saved to {out}; "
        "give it to `vision regions-watch --bare-map`",
        file=sys.stderr,
    )
    return 0


def _watch(args: argparse.Namespace) -> int:
    from vision.sea_regions.live import watch_regions

    layout, camera = _layout_and_camera(args.layout, args.calibration)
    bare = _bare_map(args.bare_map, layout)
    return run_watch(
        args, watch_regions, "vision.regions", layout=layout, camera=camera, loop=args.loop, bare_map=bare
    )


def _regions(args: argparse.Namespace) -> int:
    import cv2

    from vision.sea_regions.bare_map import BareMapError
    from vision.sea_regions.reader import read_regions_detailed

    layout, camera = _layout_and_camera(args.layout, args.camera_file)
    bare = _bare_map(args.bare_map, layout)
    path = args.image
    image = read_image(path)
    try:
        reading = read_regions_detailed(image, layout, camera, bare)
    except BareMapError as exc:
        raise CliError(str(exc)) from None
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
