"""Benchmark: two battle-board readers on the same frames: identical readings, and which is faster.

    python bench/vision_ab.py --before /tmp/before-src [--after .] [--cache /tmp/vision-ab-cache]
        [--timed-tuning 4] [--timed-renderer 10] [--reps 5] [--design-seeds 8011,8024 --scene-offset 500]
        [--cycles /tmp/st-cycles6 --timed-cycles 2]

For speed work on the reader (issue 12's 15 ms goal; docs/bench/vision.md "Speed round 6"): a speed change
must leave every reading as it was. `--before` is a source tree of the reader to compare with, e.g.
`git archive HEAD~3 vision calibration | tar -x -C /tmp/before-src` (packages it lacks come from the
project). Frames: the randomised tuning designs 8000-8005 (scene seeds 8500-8505, 12 scenes each) and the
tuning renderer's seed 21100 (3 light sessions of 10 scenes, as `bench/vision_read.py` draws them), 1080p,
rendered once into `--cache` (never into the repository). Both readers live in one process (their module
sets swapped on import) and read each timed frame alternately, a warm read first, then `--reps` reads
each: per frame the best process CPU time (one OpenCV thread), so both see the same load. The full
reading JSON of every scene (72 + 30) is compared; exit status 1 when any differs. `--design-seeds` adds
more randomised designs (each one's scene seed is its design seed plus `--scene-offset`, as
`bench/vision_heldout.py` takes them; e.g. round 6's dark-rail tuning designs 8011,8024,8035,8042,8056,8060),
compared scene by scene and not timed. `--cycles DIR` (repeatable) adds every design cached in a
`bench/vision_cycles.py` folder (`layout-N.json`, `cal-N.png`, `scene-N-K.png`; calibration questions
answered "yes"), compared scene by scene and the first `--timed-cycles` scenes of each design timed.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import cv2  # noqa: E402
import numpy as np  # noqa: E402

TUNING = [(8000 + k, 8500 + k) for k in range(6)]
TUNING_SCENES = 12
RENDERER = [21100 + k for k in range(3)]
RENDERER_SCENES = 10
SIZE = (1920, 1080)
OURS = ("vision", "calibration")  # the packages each reader brings its own copy of


def render(cache: Path, extra: list[tuple[int, int]]) -> None:
    """The frames, once: layout (tuning designs), calibration photo and scenes per set."""
    from vision.battle_board.layout import default_layout
    from vision.synth.battle import light_session
    from vision.synth.randomised import session

    for design, seed in TUNING + extra:
        d = cache / f"d{design}"
        if (d / "done").exists():
            continue
        d.mkdir(parents=True, exist_ok=True)
        s = session(design, seed, size=SIZE)
        (d / "layout.json").write_text(json.dumps(s.design.layout))
        (d / "scene_seed").write_text(str(seed))
        cv2.imwrite(str(d / "calib.png"), s.calibration)
        for i in range(TUNING_SCENES):
            image, _truth = next(s.scenes)
            cv2.imwrite(str(d / f"s{i:02d}.png"), image)
        (d / "done").write_text("1")
        print(f"rendered design {design}", flush=True)
    for seed in RENDERER:
        d = cache / f"r{seed}"
        if (d / "done").exists():
            continue
        d.mkdir(parents=True, exist_ok=True)
        light = light_session(default_layout(), seed, SIZE, 24)
        cv2.imwrite(str(d / "calib.png"), light.calibration)
        for i in range(RENDERER_SCENES):
            _specs, image, _truth = next(light.scenes)
            cv2.imwrite(str(d / f"s{i:02d}.png"), image)
        (d / "done").write_text("1")
        print(f"rendered light session {seed}", flush=True)


def _image(path: Path) -> np.ndarray:
    image = cv2.imread(str(path))
    if image is None:
        raise SystemExit(f"{path} is not a readable image: delete its folder in the cache to render it again")
    return image


def load_reader(src: Path) -> tuple[Any, Any, Any]:
    """(learn_palette, the layout module, BoardReader) imported from the source tree `src`."""
    for name in [m for m in sys.modules if m.split(".")[0] in OURS]:
        del sys.modules[name]
    sys.path.insert(0, str(src))
    try:
        colors = importlib.import_module("calibration.colors")
        layout = importlib.import_module("vision.battle_board.layout")
        reader = importlib.import_module("vision.battle_board.reader")
    finally:
        sys.path.remove(str(src))
    return colors.learn_palette, layout, reader.BoardReader


def main(argv: list[str] | None = None) -> int:
    # Long on purpose: a benchmark's loading, reading, timing and report, read top to bottom.
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--before", required=True, type=Path, help="source tree of the reader to compare with")
    ap.add_argument("--after", default=ROOT, type=Path, help="source tree of the new reader (default: here)")
    ap.add_argument("--cache", default=Path("/tmp/vision-ab-cache"), type=Path)
    ap.add_argument("--timed-tuning", type=int, default=4, help="scenes timed per tuning design")
    ap.add_argument("--timed-renderer", type=int, default=10, help="scenes timed per light session")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--design-seeds", default="", help="more randomised designs to compare, comma-separated")
    ap.add_argument("--scene-offset", type=int, default=500, help="with --design-seeds: scene seed - design")
    ap.add_argument("--cycles", type=Path, action="append", default=[], help="a vision_cycles.py cache")
    ap.add_argument("--timed-cycles", type=int, default=2, help="with --cycles: scenes timed per design")
    args = ap.parse_args(argv)
    try:
        extra = [(int(d), int(d) + args.scene_offset) for d in args.design_seeds.split(",") if d.strip()]
    except ValueError:
        ap.error(f"--design-seeds takes whole numbers separated by commas, not {args.design_seeds!r}")
    for side in (args.before, args.after):
        if not (side / "vision" / "battle_board" / "reader.py").exists():
            print(f"{side} holds no vision/battle_board/reader.py: give a source tree of the project")
            return 2
    for design, seed in TUNING + extra:
        held = args.cache / f"d{design}" / "scene_seed"
        if held.exists() and held.read_text().strip() != str(seed):
            print(
                f"{held.parent} holds design {design} with scene seed {held.read_text().strip()}, "
                f"not {seed}: delete that folder to render it again, or give another --cache"
            )
            return 2
    for folder in args.cycles:
        if not any(folder.glob("layout-*.json")):
            print(f"{folder} holds no layout-N.json: give a bench/vision_cycles.py cache folder")
            return 2
    cv2.setNumThreads(1)
    render(args.cache, extra)
    sets: list[tuple[str, Any, np.ndarray, list[tuple[str, np.ndarray]], int]] = []
    for design, seed in TUNING + extra:
        d = args.cache / f"d{design}"
        scenes = [(f"{design}/{i}", _image(d / f"s{i:02d}.png")) for i in range(TUNING_SCENES)]
        layout = json.loads((d / "layout.json").read_text())
        timed = args.timed_tuning if (design, seed) in TUNING else 0
        sets.append(("tuning", layout, _image(d / "calib.png"), scenes, timed))
    for seed in RENDERER:
        d = args.cache / f"r{seed}"
        scenes = [(f"{seed}/{i}", _image(d / f"s{i:02d}.png")) for i in range(RENDERER_SCENES)]
        sets.append(("renderer", None, _image(d / "calib.png"), scenes, args.timed_renderer))
    for folder in args.cycles:
        for n in sorted(int(p.stem.split("-")[1]) for p in folder.glob("layout-*.json")):
            scenes = [
                (f"c{n}/{p.stem.split('-')[2]}", _image(p))
                for p in sorted(folder.glob(f"scene-{n}-*.png"), key=lambda p: int(p.stem.split("-")[2]))
            ]
            layout = json.loads((folder / f"layout-{n}.json").read_text())
            sets.append(("cycles", layout, _image(folder / f"cal-{n}.png"), scenes, args.timed_cycles))
    readers: dict[str, list[Any]] = {}
    for side, src in (("before", args.before), ("after", args.after)):
        learn, layouts, board_reader = load_reader(src.resolve())
        readers[side] = []
        for kind, layout_json, calib, _scenes, _n in sets:
            layout = layouts.load_board_layout(layout_json) if layout_json else layouts.default_layout()
            # Every calibration question answered "yes" on the tuning designs, as the held-out bench does.
            try:
                palette = learn(calib, layout, questions=[]) if layout_json else learn(calib, layout)
            except Exception as exc:  # (each tree's own CalibrationError: the two are different classes)
                if kind != "cycles":
                    raise
                print(f"{side}: a cycles calibration refused ({exc}); its design is left out")
                readers[side].append(None)
                continue
            readers[side].append(board_reader(layout, palette))
    load = [os.getloadavg()[0]]
    differ: list[str] = []
    best: dict[str, dict[tuple[str, str], float]] = {"before": {}, "after": {}}
    for k, (kind, _layout, _calib, scenes, timed) in enumerate(sets):
        if any(readers[side][k] is None for side in readers):
            differ += [] if all(readers[side][k] is None for side in readers) else [f"{kind} calibration"]
            continue
        for i, (key, image) in enumerate(scenes):
            got = {side: readers[side][k].read(image).to_json() for side in readers}  # (also the warm read)
            if got["before"] != got["after"]:
                differ.append(key)
            if i >= timed:
                continue
            for _ in range(args.reps):
                for side in readers:
                    t0 = time.process_time()
                    readers[side][k].read(image)
                    cpu_ms = (time.process_time() - t0) * 1e3
                    best[side][(kind, key)] = min(best[side].get((kind, key), cpu_ms), cpu_ms)
    load.append(os.getloadavg()[0])
    n_scenes = sum(len(s[3]) for s in sets)
    print(
        f"readings: {n_scenes} scenes compared (full JSON), {len(differ)} differ"
        + (f": {differ}" if differ else "")
    )
    for kind in ("tuning", "renderer", "cycles"):
        line = []
        for side in readers:
            times = [v for (k, _), v in best[side].items() if k == kind]
            if times:
                line.append(
                    f"{side} median {statistics.median(times):.2f} ms, mean {statistics.fmean(times):.2f} ms"
                )
        n = sum(1 for (k, _) in best["after"] if k == kind)
        print(f"{kind}, {n} frames, best of {args.reps} process CPU per read: " + "; ".join(line))
    print(f"load average {load[0]:.1f} at the start, {load[1]:.1f} at the end ({os.cpu_count()} CPUs)")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
