"""What the live watches share (`vision watch`, `vision ships-watch`, `vision regions-watch`): their frame
sources (`--camera N`, `--video SOURCE`, `--images DIR`), `--reconnect-s`, and for the two table cameras the
publishing options (`--pub`, `--settle-frames`, `--confirm`, `--max-frames`, `--print`) and the run itself
(`run_watch`: the source, the watch, one sentence for a source that fails, the count published). One
definition each, so a camera option added to one watch is not missing from another.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from smart_table.errors import CliError

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


def add_publish_options(parser: argparse.ArgumentParser, topic: str, what: str) -> None:
    """The table cameras' publishing options: `--pub` (topic `topic`), `--settle-frames` (before `what` is
    read), `--confirm`, `--max-frames`, `--print`, and `--reconnect-s`."""
    parser.add_argument(
        "--pub",
        default="tcp://127.0.0.1:5561",
        help=f"ZeroMQ PUB endpoint to bind (topic {topic}); default tcp://127.0.0.1:5561",
    )
    parser.add_argument(
        "--settle-frames",
        type=int,
        default=5,
        help=f"still frames in a row before {what} is read (default 5)",
    )
    parser.add_argument(
        "--confirm",
        type=int,
        default=2,
        help="identical readings in a row before one is published (default 2)",
    )
    parser.add_argument(
        "--max-frames", type=int, default=0, help="stop after this many frames (0: run until the end)"
    )
    parser.add_argument("--print", action="store_true", dest="echo", help="also print each published reading")
    add_reconnect(parser)


def run_watch(args: argparse.Namespace, watch: Callable[..., int], topic: str, **options: Any) -> int:
    """Runs a table camera's `watch(source, **options)` (vision.ships_live.watch_table,
    vision.sea_regions.live.watch_regions) with the options of `add_publish_options`; a source that cannot
    be read is one sentence (exit 1); the count published is said on stderr."""
    from vision.camera_source import SourceError

    source = watch_source(args)
    try:
        count = watch(
            source,
            pub=args.pub,
            still_frames=args.settle_frames,
            confirm=args.confirm,
            max_frames=args.max_frames,
            echo=(lambda msg: print(json.dumps(msg), flush=True)) if args.echo else None,
            reconnect_s=max(0.0, args.reconnect_s),
            note=camera_note(source),
            **options,
        )
    except SourceError as exc:
        raise CliError(str(exc), code=1) from None
    print(f"smart-table: published {count} settled readings on {args.pub} (topic {topic})", file=sys.stderr)
    return 0
