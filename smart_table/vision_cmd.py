"""`smart-table calibrate colors|camera|board` and `smart-table vision read|watch`.

Parsing, files and exit codes only: the work is in `vision` and `calibration`. Every failure is a
`CliError` with one sentence saying what was wrong and what to do.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from smart_table.errors import CliError
from smart_table.watch_common import add_reconnect

BARE_SKIP_FRAMES = 5  # `calibrate colors --bare`: frames a source may have buffered before the second photo

if TYPE_CHECKING:
    import zmq


def register(top: argparse._SubParsersAction, groups: dict[str, argparse._SubParsersAction]) -> None:
    cal = groups["calibrate"]
    p = cal.add_parser("colors", help="learn each cube colour from the cubes on the layout's swatches")
    p.add_argument("--layout", required=True, help="board layout JSON")
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--image", help="image of the board with one cube on each swatch")
    src.add_argument(
        "--camera",
        metavar="SOURCE",
        help="take the photo from a camera (0, /dev/video0, rtsp://..., http://... MJPEG, picamera2) and "
        "lock its exposure and white balance, stored with the palette for 'vision watch'",
    )
    p.add_argument(
        "--warmup-frames",
        type=int,
        default=15,
        help="with --camera: frames to let auto exposure settle before locking (default 15)",
    )
    bare = p.add_mutually_exclusive_group()
    bare.add_argument(
        "--bare-image",
        metavar="PHOTO",
        help="with --image: a second photo under the same light with the cubes taken off the swatches "
        "(the print under them is then known, and a cube dropped there is read, not asked about)",
    )
    bare.add_argument(
        "--bare",
        action="store_true",
        help="with --camera: after the first photo, asks you to take the cubes off the swatches and takes "
        "a second one (as --bare-image)",
    )
    p.add_argument("--out", required=True, help="palette JSON to write")
    p.add_argument("--intrinsics", help="camera.json from 'calibrate camera' (optional)")
    p.add_argument("--colors", help="comma-separated subset of the swatch colours to learn")
    p.add_argument(
        "--yes",
        action="store_true",
        help="accept what calibration is unsure about without asking (after looking at the crops)",
    )
    p.set_defaults(func=cmd_calibrate_colors)

    p = cal.add_parser("camera", help="lens intrinsics and distortion from views of a ChArUco board")
    p.add_argument("--images", help="folder of ChArUco board images (15-30 tilted views)")
    p.add_argument("--out", help="camera JSON to write")
    p.add_argument("--squares", default="7x5", help="ChArUco squares across x down (default 7x5)")
    p.add_argument("--square-mm", type=float, default=30.0, help="printed square side in mm (default 30)")
    p.add_argument("--marker-mm", type=float, default=22.0, help="printed marker side in mm (default 22)")
    p.add_argument(
        "--dictionary", default="DICT_5X5_100", help="ChArUco marker dictionary (default DICT_5X5_100)"
    )
    p.add_argument("--write-board", metavar="PNG", help="write the board to print (at 10 px/mm) and exit")
    p.set_defaults(func=cmd_calibrate_camera)

    p = cal.add_parser("board", help="check the layout's markers in an image or a live frame (error in mm)")
    p.add_argument("--layout", required=True, help="board layout JSON")
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--image", help="image of the board")
    src.add_argument("--camera", type=int, help="camera index to grab one frame from")
    p.add_argument("--intrinsics", help="camera.json from 'calibrate camera' (optional)")
    p.set_defaults(func=cmd_calibrate_board)

    vis = groups["vision"]
    p = vis.add_parser("read", help="read the battle board in images: cubes, zones, re-drops")
    p.add_argument("--layout", required=True, help="board layout JSON")
    p.add_argument("--palette", required=True, help="palette JSON from 'calibrate colors'")
    p.add_argument("--intrinsics", help="camera.json from 'calibrate camera' (optional, improves accuracy)")
    p.add_argument("--out", help="folder to write <image stem>.json into (default: print one JSON per line)")
    p.add_argument("--timings", action="store_true", help="also print the time of each step to stderr")
    p.add_argument("images", nargs="+", metavar="IMAGE")
    p.set_defaults(func=cmd_vision_read)

    p = vis.add_parser("watch", help="read a video stream: settle gate, hand pause, crops, ZeroMQ publish")
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--camera", type=int, help="camera index")
    src.add_argument(
        "--video",
        metavar="SOURCE",
        help="video file, image folder, /dev/videoN, rtsp://..., http://... MJPEG stream or picamera2[:N]",
    )
    p.add_argument("--layout", required=True, help="board layout JSON")
    p.add_argument("--palette", required=True, help="palette JSON from 'calibrate colors'")
    p.add_argument("--intrinsics", help="camera.json from 'calibrate camera' (optional)")
    p.add_argument(
        "--zmq-pub", metavar="ENDPOINT", help="bind a ZeroMQ PUB socket here, e.g. tcp://127.0.0.1:5560"
    )
    p.add_argument("--settle-frames", type=int, default=8, help="still frames before a reading (default 8)")
    p.add_argument("--confirm", type=int, default=2, help="identical readings needed to publish (default 2)")
    p.add_argument("--max-frames", type=int, default=0, help="stop after this many frames (0: until the end)")
    p.add_argument(
        "--start-delay",
        type=float,
        default=0.3,
        help="seconds to wait after binding before the first frame, so subscribers can connect",
    )
    p.add_argument("--print-crops", action="store_true", help="include the base64 crops in the printed lines")
    p.add_argument("--verbose", action="store_true", help="print the gate state of every frame to stderr")
    p.add_argument(
        "--lock-after",
        type=int,
        default=10,
        help="a camera's exposure and white balance are locked after this many frames, at the palette's "
        "values when 'calibrate colors --camera' stored them (default 10; 0: never lock)",
    )
    add_reconnect(p)
    p.set_defaults(func=cmd_vision_watch)


# ---------------------------------------------------------------- helpers


def _layout(path: str) -> Any:
    from vision.battle_board.layout import LayoutError, load_board_layout

    try:
        return load_board_layout(path)
    except LayoutError as exc:
        raise CliError(f"{exc}; fix the layout file {path!r}") from exc


def _palette(path: str) -> Any:
    from vision.palette import PaletteError, load_palette

    try:
        return load_palette(path)
    except PaletteError as exc:
        raise CliError(str(exc)) from exc


def _intrinsics(path: str | None) -> Any:
    if not path:
        return None
    from vision.camera import CameraError, CameraModel

    try:
        return CameraModel.load(path)
    except CameraError as exc:
        raise CliError(str(exc)) from exc


def _image(path: str) -> Any:
    import cv2

    if not Path(path).is_file():
        raise CliError(f"image {path!r} does not exist")
    img = cv2.imread(path, cv2.IMREAD_COLOR)
    if img is None:
        raise CliError(f"cannot read image {path!r}: not an image file OpenCV can decode (PNG, JPEG, ...)")
    return img


def _write_json(path: str, data: dict[str, Any]) -> None:
    try:
        out = Path(path)
        out.parent.mkdir(parents=True, exist_ok=True)
        out.write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    except OSError as exc:
        raise CliError(f"cannot write {path!r}: {exc.strerror or exc}", code=1) from exc


def _grab(index: int) -> Any:
    import cv2

    cap = cv2.VideoCapture(index)
    try:
        ok, frame = cap.read() if cap.isOpened() else (False, None)
    finally:
        cap.release()
    if not ok or frame is None:
        raise CliError(f"cannot grab a frame from camera {index}; check it is plugged in and free", code=1)
    return frame


# ---------------------------------------------------------------- calibrate


def cmd_calibrate_colors(args: argparse.Namespace) -> int:
    from calibration.colors import CalibrationError, learn_palette, palette_summary

    layout = _layout(args.layout)
    camera: dict[str, Any] | None = None
    bare_image = None
    if args.bare_image is not None and args.camera is not None:
        raise CliError("--bare-image goes with --image; with --camera use --bare (it takes the second photo)")
    if args.bare and args.camera is None:
        raise CliError("--bare goes with --camera; with --image give the second photo as --bare-image PHOTO")
    if args.camera is not None:
        if args.bare and not sys.stdin.isatty():
            raise CliError(
                "--bare asks you to take the cubes off the swatches between the two photos: run it in a "
                "terminal, or take both photos yourself and give --image and --bare-image"
            )
        image, camera, bare_image = _camera_photo(args.camera, args.warmup_frames, bare=args.bare)
    else:
        image = _image(args.image)
        if args.bare_image is not None:
            bare_image = _image(args.bare_image)
    colors = [c.strip() for c in args.colors.split(",") if c.strip()] if args.colors else None
    t0 = time.perf_counter()
    questions: list[dict[str, Any]] = []
    intrinsics = _intrinsics(args.intrinsics)
    try:
        palette = learn_palette(image, layout, intrinsics, colors, questions)
        if bare_image is not None:
            from calibration.bare_swatches import learn_bare_swatches

            palette = learn_bare_swatches(palette, bare_image, layout, intrinsics, questions, first=image)
    except CalibrationError as exc:
        raise CliError(str(exc), code=1) from exc
    asked = _write_question_crops(questions, Path(args.out))
    if questions and not args.yes:
        if not sys.stdin.isatty():
            print(json.dumps({"questions": asked}))
            raise CliError(
                f"calibration is unsure ({questions[0]['text']}); look at the crops "
                f"({', '.join(asked[0]['crops'])}) and run again with --yes, or take another photo",
                code=3,
            )
        for q in asked:
            reply = input(f"{q['text']} (crops: {', '.join(q['crops'])}) [y/N] ").strip().lower()
            if reply not in ("y", "yes"):
                raise CliError("calibration not saved: fix what the crops show and run again", code=3)
    data = palette.to_json()
    if camera is not None:
        data["camera"] = camera  # (an extra key: read by 'vision watch', ignored by the palette loader)
    _write_json(args.out, data)
    print(
        json.dumps(
            {
                "palette": args.out,
                "colors": palette_summary(palette),
                "questions": asked,
                "bare_swatches": palette.meta.get("bare_swatches", []),
                "seconds": round(time.perf_counter() - t0, 3),
                **({"camera_lock": camera["lock"]} if camera is not None else {}),
            }
        )
    )
    return 0


def _camera_photo(source: str, warmup: int, bare: bool = False) -> tuple[Any, dict[str, Any], Any]:
    """The calibration photo from a live source: frames are skipped while its auto exposure settles, its
    exposure and white balance are locked, and the frame after the lock is the photo. Returns the photo,
    what 'vision watch' needs to run under the same settings (source, settings, the lock's sentence), and
    with `bare` a second photo under the same lock, taken once the person says the cubes are off the
    swatches (else None)."""
    from vision.camera_source import CameraSource, SourceError, kind_of

    if kind_of(source) == "file":
        raise CliError(f"--camera {source!r} is not a camera or stream; give a photo with --image instead")
    try:
        cam = CameraSource(source)
        frames = iter(cam)
        try:
            for _ in range(max(0, warmup)):
                next(frames)
            said = cam.lock()
            image = next(frames)
            settings = cam.settings()
            second = None
            if bare:
                input(
                    "Now take the cubes off the swatches (leave the board, the camera and the light as "
                    "they are), then press Enter "
                )
                for _ in range(BARE_SKIP_FRAMES):  # frames the source buffered while the cubes were lifted
                    next(frames)
                second = next(frames)
        finally:
            cam.close()
    except StopIteration:
        raise CliError(f"camera {source} gave no frame; check it is streaming", code=1) from None
    except SourceError as exc:
        raise CliError(str(exc), code=1) from exc
    print(f"camera {source}: {said}", file=sys.stderr, flush=True)
    return (
        image,
        {
            "source": source,
            "kind": cam.kind,
            "locked": cam.locked is not None,
            "settings": settings,
            "lock": said,
        },
        second,
    )


def _write_question_crops(questions: list[dict[str, Any]], out: Path) -> list[dict[str, Any]]:
    """Each question's crops written next to the palette (`<out stem>-crops/<kind>-<colour>.png`); the
    questions as JSON, with file names instead of images."""
    import cv2

    shown = []
    folder = out.parent / f"{out.stem}-crops"
    for q in questions:
        files = []
        for color, crop in q["crops"].items():
            folder.mkdir(parents=True, exist_ok=True)
            path = folder / f"{q['kind']}-{color}.png"
            cv2.imwrite(str(path), crop)
            files.append(str(path))
        shown.append({"kind": q["kind"], "colors": q["colors"], "text": q["text"], "crops": files})
    return shown


def cmd_calibrate_camera(args: argparse.Namespace) -> int:
    import cv2

    from calibration.camera import CameraCalibrationError, CharucoSpec, calibrate_from_images, load_images
    from vision.geometry import GeometryError

    try:
        cols, rows = (int(v) for v in args.squares.lower().split("x"))
    except ValueError as exc:
        raise CliError(f"--squares must look like 7x5, got {args.squares!r}") from exc
    if cols < 3 or rows < 3 or args.marker_mm >= args.square_mm or args.marker_mm <= 0:
        raise CliError("the ChArUco board needs at least 3x3 squares and markers smaller than the squares")
    spec = CharucoSpec((cols, rows), args.square_mm, args.marker_mm, args.dictionary)
    try:
        spec.board()
    except GeometryError as exc:
        raise CliError(f"--dictionary: {exc}") from exc
    if args.write_board:
        if not cv2.imwrite(args.write_board, spec.image(px_per_mm=10.0)):
            raise CliError(f"cannot write {args.write_board!r}: use a .png path in a writable folder", code=1)
        print(json.dumps({"board": args.write_board, "print_at_px_per_mm": 10}))
        return 0
    if not args.images or not args.out:
        raise CliError("give --images DIR and --out camera.json (or --write-board PNG to print the board)")
    try:
        result = calibrate_from_images(load_images(args.images), spec)
    except CameraCalibrationError as exc:
        raise CliError(str(exc), code=1) from exc
    _write_json(args.out, result)
    print(
        json.dumps(
            {
                "camera": args.out,
                "rms_px": round(result["rms_px"], 3),
                "views_used": len(result["views_used"]),
                "views_rejected": len(result["views_rejected"]),
                "quality": "good" if result["rms_px"] < 0.5 else "poor: use more, sharper, tilted views",
            }
        )
    )
    return 0


def cmd_calibrate_board(args: argparse.Namespace) -> int:
    from calibration.board_check import check_board

    layout = _layout(args.layout)
    image = _image(args.image) if args.image else _grab(args.camera)
    report = check_board(image, layout, _intrinsics(args.intrinsics))
    print(json.dumps(report))
    if "reason" in report:
        raise CliError(f"no board: {report['reason']}", code=1)
    return 0


# ---------------------------------------------------------------- vision


def cmd_vision_read(args: argparse.Namespace) -> int:
    import cv2

    from vision.battle_board.reader import BoardReader

    layout = _layout(args.layout)
    reader = BoardReader(layout, _palette(args.palette), _intrinsics(args.intrinsics))
    out_dir = Path(args.out) if args.out else None
    if out_dir is not None:
        try:
            out_dir.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise CliError(
                f"cannot create output folder {args.out!r}: {exc.strerror or exc}", code=1
            ) from exc
    failed: list[str] = []
    for path in args.images:
        img = cv2.imread(path, cv2.IMREAD_COLOR) if Path(path).is_file() else None
        if img is None:
            failed.append(path)
            continue  # the other images are still read: nothing is lost
        reading = reader.read(img)
        data = reading.to_json()
        if args.timings:
            print(
                json.dumps(
                    {"image": path, "timings_ms": {k: round(v, 2) for k, v in reading.timings_ms.items()}}
                ),
                file=sys.stderr,
            )
        if out_dir is not None:
            _write_json(str(out_dir / f"{Path(path).stem}.json"), data)
        else:
            print(json.dumps(data), flush=True)
    if failed:
        raise CliError(
            f"cannot read image {failed[0]!r}"
            + (f" and {len(failed) - 1} more" if len(failed) > 1 else "")
            + ": missing or not an image file OpenCV can decode; the other images were read"
        )
    return 0


def cmd_vision_watch(args: argparse.Namespace) -> int:
    from vision.battle_board.reader import BoardReader
    from vision.camera_source import CameraSource, kind_of
    from vision.live import BoardWatcher, SourceError, iter_frames

    layout = _layout(args.layout)
    reader = BoardReader(layout, _palette(args.palette), _intrinsics(args.intrinsics))
    source = str(args.camera) if args.camera is not None else args.video
    if args.settle_frames < 1 or args.confirm < 1:
        raise CliError("--settle-frames and --confirm must be 1 or more")
    watcher = BoardWatcher(reader, still_frames=args.settle_frames, confirm=args.confirm, source=source)
    sock: zmq.Socket[bytes] | None = None
    ctx: zmq.Context[zmq.Socket[bytes]] | None = None
    if args.zmq_pub:
        import zmq

        ctx = zmq.Context.instance()
        sock = ctx.socket(zmq.PUB)
        sock.setsockopt(zmq.LINGER, 1000)
        try:
            sock.bind(args.zmq_pub)
        except zmq.ZMQError as exc:
            sock.close()
            raise CliError(
                f"cannot bind ZeroMQ PUB to {args.zmq_pub!r}: {exc}; use a free tcp://host:port", code=1
            ) from exc
        time.sleep(max(0.0, args.start_delay))
    cam, lock_at = None, max(0, args.lock_after)
    try:
        if kind_of(source) == "file":
            frames: Iterator[Any] = iter_frames(source)
        else:
            cam = CameraSource(
                source, reconnect_s=max(0.0, args.reconnect_s), note=lambda s: _say(sock, source, s)
            )
            frames = iter(cam)
        n = 0
        for frame in frames:
            if cam is not None and lock_at and n == lock_at:
                said = cam.lock(_stored_camera(args.palette, source))
                _say(sock, source, said, lock=said, locked=cam.locked is not None)
            event = watcher.process(frame)
            n += 1
            if args.verbose:
                print(
                    json.dumps({"frame": event.frame, "state": event.state, "reason": event.reason}),
                    file=sys.stderr,
                    flush=True,
                )
            if event.message is not None:
                msg = event.message
                if sock is not None:
                    sock.send_multipart([msg["topic"].encode(), json.dumps(msg).encode()])
                shown = msg if args.print_crops else {**msg, "crops": len(msg["crops"])}
                print(json.dumps(shown), flush=True)
            if args.max_frames and n >= args.max_frames:
                break
    except SourceError as exc:
        raise CliError(str(exc), code=1) from exc
    finally:
        if cam is not None:
            cam.close()
        if sock is not None:
            sock.close()
    return 0


def _say(sock: zmq.Socket[bytes] | None, source: str, text: str, **extra: Any) -> None:
    """One line on stderr about the camera (the controller's log shows it) and, with a PUB socket, a
    `vision.health` message: offline while a dropped stream is being reopened, online otherwise."""
    print(f"camera {source}: {text}", file=sys.stderr, flush=True)
    if sock is not None:
        from contracts import topics

        online = "reconnecting" not in text
        msg = {"online": online, "ts": round(time.time(), 3), "source": source, **extra}
        if not online:
            msg["reason"] = text
        sock.send_multipart([topics.VISION_HEALTH, json.dumps(msg).encode()])


def _stored_camera(palette: str, source: str) -> dict[str, Any] | None:
    """The exposure and white balance 'calibrate colors --camera' stored with the palette, when it was
    taken from this same source; None (lock at the present values) otherwise."""
    try:
        cam = json.loads(Path(palette).read_text(encoding="utf-8")).get("camera")
    except (OSError, ValueError, AttributeError):
        return None
    if isinstance(cam, dict) and cam.get("source") == source and isinstance(cam.get("settings"), dict):
        return cam["settings"] or None
    return None
