"""`smart-table vision ships` (read ships and Ocean boards from images), `smart-table vision ships-watch`
(the same from a camera, a video or an image folder, publishing settled readings on ZeroMQ) and
`smart-table calibrate table` (check the table's markers, learn the boards' back print: `--out` writes the
table calibration that `--table-calibration` gives the two readers).

Parsing, files and exit codes only: the reading is `vision.ocean_grid.reader`, the live loop
`vision.ships_live` (which uses `vision.live`'s frame sources and settle gate).
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


def register(top: argparse._SubParsersAction, groups: dict[str, argparse._SubParsersAction]) -> None:
    vision = groups["vision"]
    p = vision.add_parser("ships", help="read where the ships are and which Ocean boards are face up")
    p.add_argument("images", nargs="+", metavar="IMAGE", help="image files (PNG, JPEG, ...)")
    p.add_argument(
        "--layout",
        type=Path,
        default=None,
        help="table layout JSON (default: the shipped vision/data/table.json)",
    )
    p.add_argument("--out", type=Path, default=None, help="write DIR/<image stem>.json instead of printing")
    p.add_argument(
        "--calibration",
        type=Path,
        default=None,
        dest="camera_file",
        help="camera calibration JSON (K, dist) from `calibrate camera`; optional",
    )
    p.add_argument(
        "--ships", default=None, help="comma-separated ships in play (default: every ship of the layout)"
    )
    p.add_argument("--table-calibration", type=Path, default=None, help=_TABLE_CALIBRATION_HELP)
    p.set_defaults(func=_ships)

    w = vision.add_parser("ships-watch", help="read the table live and publish settled readings on ZeroMQ")
    add_watch_sources(w)
    w.add_argument("--layout", type=Path, default=None, help="table layout JSON (default: the shipped one)")
    w.add_argument("--calibration", type=Path, default=None, help="camera calibration JSON; optional")
    w.add_argument("--ships", default=None, help="comma-separated ships in play")
    add_publish_options(w, "vision.table", "the table")
    w.add_argument("--table-calibration", type=Path, default=None, help=_TABLE_CALIBRATION_HELP)
    w.set_defaults(func=_watch)

    c = groups["calibrate"].add_parser(
        "table", help="check the table's frame markers in an image; measure the Ocean boards' back colour"
    )
    c.add_argument("--image", type=Path, required=True, help="a frame of the whole table")
    c.add_argument("--layout", type=Path, default=None, help="table layout JSON (default: the shipped one)")
    c.add_argument("--calibration", type=Path, default=None, help="camera calibration JSON; optional")
    c.add_argument(
        "--out",
        type=Path,
        default=None,
        help="write the table calibration (the boards' back as this light shows it) to this file; the "
        "image must show the table as set up, Ocean boards face down",
    )
    c.set_defaults(func=_check)


_TABLE_CALIBRATION_HELP = (
    "table calibration JSON from `calibrate table --out` (the boards' back as this table's light shows "
    "it); without it the layout's boards.back colour is used"
)


def _table_calibration(path: Path | None) -> Any:
    if path is None:
        return None
    from vision.ocean_grid.calibration import TableCalibrationError, load_table_calibration

    try:
        return load_table_calibration(path)
    except TableCalibrationError as exc:
        raise CliError(str(exc)) from None


def _layout(path: Path | None):
    from vision.ocean_grid.layout import LayoutError, default_table_layout, load_table_layout

    try:
        return default_table_layout() if path is None else load_table_layout(path)
    except LayoutError as exc:
        raise CliError(f"{exc}; fix the layout file (see docs/table-layout.md)") from None


def _in_play(text: str | None, layout) -> list[str] | None:
    if text is None:
        return None
    names = [s.strip() for s in text.split(",") if s.strip()]
    unknown = [n for n in names if n not in layout.ships.ids]
    if unknown:
        raise CliError(
            f"--ships names {unknown[0]!r}, which is not a ship of the layout ({', '.join(layout.ships.ids)})"
        )
    return names


def _ships(args: argparse.Namespace) -> int:
    from vision.ocean_grid.layout import LayoutError
    from vision.ocean_grid.reader import read_table_detailed

    layout = _layout(args.layout)
    camera = load_camera(args.camera_file)
    table_calibration = _table_calibration(args.table_calibration)
    in_play = _in_play(args.ships, layout)
    if args.out is not None:
        try:
            args.out.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise CliError(f"cannot create output folder {args.out}: {exc.strerror}") from None
    for path in args.images:
        image = read_image(path)
        try:
            reading = read_table_detailed(image, layout, camera, in_play, calibration=table_calibration)
        except LayoutError as exc:
            raise CliError(str(exc)) from None
        if reading.reason:
            print(f"smart-table: {path}: {reading.reason}", file=sys.stderr)
        text = json.dumps(reading.to_json())
        if args.out is None:
            print(text)
        else:
            (args.out / f"{Path(path).stem}.json").write_text(text + "\n", encoding="utf-8")
    return 0


def _check(args: argparse.Namespace) -> int:
    from calibration.table_check import check_table

    layout = _layout(args.layout)
    camera = load_camera(args.calibration)
    image = read_image(args.image)
    try:
        report = check_table(image, layout, camera, calibration_out=args.out)
    except OSError as exc:
        raise CliError(f"cannot write the table calibration {args.out}: {exc.strerror}") from None
    print(json.dumps(report))
    if "reason" in report:
        raise CliError(f"no table in {args.image}: {report['reason']}", code=1)
    if args.out is not None:
        learned = "learned" if report.get("back_learned") else "not learned (no face-down board seen)"
        print(f"smart-table: wrote {args.out}: the boards' back {learned}", file=sys.stderr)
    return 0


def _watch(args: argparse.Namespace) -> int:
    from vision.ships_live import watch_table

    layout = _layout(args.layout)
    camera = load_camera(args.calibration)
    table_calibration = _table_calibration(args.table_calibration)
    in_play = _in_play(args.ships, layout)
    return run_watch(
        args,
        watch_table,
        "vision.table",
        layout=layout,
        camera=camera,
        ships_in_play=in_play,
        table_calibration=table_calibration,
    )
