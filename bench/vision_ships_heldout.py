"""Benchmark: the ocean-grid reader on held-out tables (`vision.synth.table_randomised`).

    python bench/vision_ships_heldout.py --layouts 5 --layout-seed 7600 --scenes 20 [--size 1920x1080]
        [--session [--no-calibration] [--skin-backs | --warm-bright]] [--hard] [--cache DIR] [--json-out FILE]

Each layout is a random table in the layout format, read as a user's own file would be; each scene a
random deal (2-4 ships, 0-2 hands, glare) under this generator's own light, lens and compression. Without
`--session` (round 3's protocol) every photo has a light and lens of its own and the boards' back is the
game's purple (the layout's `boards.back`); with it each table is a session (one lamp, the camera's
white balance locked with drift, its own back print of a random colour that no layout names) and the
reader gets the table calibration learned from the session's setup photo (`--no-calibration`: reads
the same photos without it, falling back to the layout's `boards.back`). Scoring
as `bench/vision_ships.py`: scenes with every visible ship on the right square, scenes with every visible
board marker read right, face-down boards read face down (also among those no hand or arm covers),
confident wrong answers (a ship or board
reported on a square where it is not). Time: process CPU time of one read (one OpenCV thread), median
per 1080p frame. Seeds: report only on seeds never run before (docs/bench/vision.md lists those used).

`--warm-bright` (with `--session`, tuning only; round 8) lights each session with a warm lamp (2700-3700 K)
at a bright exposure (0.9-1.5) and puts all four ships on the two rows farthest from the Harbor: the
class where a bloom eats the red ship's marker.
`--skin-backs` (with `--session`, tuning only; round 7) draws each session's back print in the hands' own
skin range and puts one or two hands in every scene: the class where colour alone cannot tell a hand from
the back. `--hard` draws the tuning side's harsher light (round 6: warm and cool ends, dim or clipped
exposures, barrel distortion to k1 -0.06, a second lamp; `vision.synth.table_randomised._photograph`);
held-out sets are run without it. `--cache DIR` keeps each table's rendered photos (a pickle per table and
protocol) for reruns of the same seeds; `--json-out FILE` writes every reading's JSON (one line per scene)
to compare two readers' answers; `--render-only` fills the cache without reading.
"""

from __future__ import annotations

import argparse
import json
import os
import pickle
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import cv2  # noqa: E402
import numpy as np  # noqa: E402

from calibration.table_check import learn_table_calibration  # noqa: E402
from vision.ocean_grid.layout import load_table_layout  # noqa: E402
from vision.ocean_grid.reader import read_table_detailed  # noqa: E402
from vision.synth.table_randomised import (  # noqa: E402
    calibration_scene,
    far_ships_scene,
    held_out_scene,
    random_table_layout,
    random_table_session,
)


def main(argv: list[str] | None = None) -> int:
    # Long on purpose: a benchmark's loop and report, read top to bottom.
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--layouts", type=int, default=5)
    ap.add_argument("--layout-seed", type=int, required=True)
    ap.add_argument("--scenes", type=int, default=20, help="scenes per layout")
    ap.add_argument("--size", default="", help="force one resolution, e.g. 1920x1080 (else random per scene)")
    ap.add_argument("--session", action="store_true", help="one light and back print per table, calibrated")
    ap.add_argument("--no-calibration", action="store_true", help="with --session: read without calibration")
    ap.add_argument("--hard", action="store_true", help="the tuning side's harsher light (not for held out)")
    ap.add_argument(
        "--skin-backs",
        action="store_true",
        help="with --session: back prints in the hands' skin range, 1-2 hands a scene (tuning only)",
    )
    ap.add_argument(
        "--warm-bright",
        action="store_true",
        help="with --session: warm bright lamps, all four ships on the far rows (tuning only)",
    )
    ap.add_argument("--cache", default="", help="a folder keeping the rendered photos between runs")
    ap.add_argument("--json-out", default="", help="write each reading's JSON, one line per scene")
    ap.add_argument("--render-only", action="store_true", help="with --cache: render the photos, read none")
    ap.add_argument("--verbose", action="store_true")
    args = ap.parse_args(argv)
    if args.render_only and not args.cache:
        ap.error("--render-only needs --cache DIR (where the photos are kept)")
    if args.skin_backs and not args.session:
        ap.error("--skin-backs needs --session (the back print is a session's)")
    if args.warm_bright and not args.session:
        ap.error("--warm-bright needs --session (the lamp is a session's)")
    json_lines: list[str] = []
    cv2.setNumThreads(1)
    size: tuple[int, int] | None = None
    if args.size:
        w, h = (int(v) for v in args.size.lower().split("x"))
        size = (w, h)
    t_start = time.perf_counter()
    n = ships_ok = boards_scored = boards_ok = face_down = face_down_right = 0
    clear_down = clear_down_right = 0
    learned = printed = 0
    visible = visible_right = 0
    wrong: list[str] = []
    statuses: dict[str, int] = {}
    cpu_hd: list[float] = []
    cpu_all: list[float] = []
    for k in range(args.layouts):
        seed = args.layout_seed + k
        layout_json, setup, shots = _table(seed, args, size)
        if args.render_only:
            print(f"  table {seed}: {len(shots)} photos in {args.cache}")
            continue
        layout = load_table_layout(layout_json)
        calibration = None
        if setup is not None and not args.no_calibration:
            calibration = learn_table_calibration(setup, layout)
            learned += calibration is not None and calibration.back is not None
            printed += calibration is not None and calibration.print_template is not None
        layout_ok = 0
        for i, (image, truth, in_play) in enumerate(shots):
            # Warm (lazy maps), as a running system.
            read_table_detailed(image, layout, ships_in_play=in_play, calibration=calibration)
            c0 = time.process_time()
            reading = read_table_detailed(image, layout, ships_in_play=in_play, calibration=calibration)
            ms = (time.process_time() - c0) * 1e3
            cpu_all.append(ms)
            if image.shape[:2] == (1080, 1920):
                cpu_hd.append(ms)
            n += 1
            if args.json_out:
                json_lines.append(
                    json.dumps({"table": seed, "scene": i, **reading.to_json()}, sort_keys=True)
                )
            statuses[reading.status] = statuses.get(reading.status, 0) + 1
            got_ships = {s["ship"]: s for s in reading.ships}
            scene_ok = True
            for t in truth["ships"]:
                got = got_ships.get(t["ship"], {"square": None})
                if got["square"] is not None and got["square"] != t["square"]:
                    wrong.append(
                        f"layout {seed} scene {i}: ship {t['ship']} on {t['square']} read {got['square']}"
                    )
                if t["marker_visible"]:
                    visible += 1
                    if got["square"] == t["square"]:
                        visible_right += 1
                    else:
                        scene_ok = False
            for s in reading.ships:
                if s["square"] is not None and s["ship"] not in in_play:
                    wrong.append(
                        f"layout {seed} scene {i}: ship {s['ship']} is not on the table, read {s['square']}"
                    )
            ships_ok += scene_ok
            layout_ok += scene_ok
            got_boards = {b["square"]: b for b in reading.boards}
            all_right, any_visible = True, False
            for t in truth["boards"]:
                got = got_boards[t["square"]]
                if got["face_up"] is not None and (got["face_up"], got["board"]) != (
                    t["face_up"],
                    t["board"],
                ):
                    wrong.append(
                        f"layout {seed} scene {i}: square {t['square']} holds "
                        f"{t['board'] or 'a face-down board'}, read {got['board'] or 'face down'}"
                    )
                if t["marker_visible"]:
                    any_visible = True
                    all_right &= got["board"] == t["board"]
                if not t["face_up"]:
                    face_down += 1
                    face_down_right += got["face_up"] is False
                    if not t.get("hand_cover"):
                        clear_down += 1
                        clear_down_right += got["face_up"] is False
            if any_visible:
                boards_scored += 1
                boards_ok += all_right
            if args.verbose and not scene_ok:
                print(
                    f"  layout {seed} scene {i} {reading.status} {image.shape[1]}x{image.shape[0]} "
                    f"{truth['shot']}: truth "
                    f"{[(t['ship'], t['square'], t['marker_visible']) for t in truth['ships']]}"
                    f" read {[(s['ship'], s['square']) for s in reading.ships if s['ship'] in in_play]}"
                )
        print(f"  layout {seed}: {layout_ok}/{args.scenes} scenes with every visible ship right")
    if args.render_only:
        return 0
    print(
        f"command: python bench/vision_ships_heldout.py --layouts {args.layouts} --layout-seed "
        f"{args.layout_seed} --scenes {args.scenes}"
        + (f" --size {args.size}" if args.size else "")
        + (" --session" if args.session else "")
        + (" --no-calibration" if args.no_calibration else "")
        + (" --hard" if args.hard else "")
        + (" --skin-backs" if args.skin_backs else "")
        + (" --warm-bright" if args.warm_bright else "")
    )
    if args.session and not args.no_calibration:
        print(f"calibration: back learned on {learned}/{args.layouts} tables, its print on {printed}")
    print(
        f"machine: {os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.2f} at the end, OpenCV "
        f"{cv2.__version__}, wall {time.perf_counter() - t_start:.0f} s"
    )
    print(f"statuses: {statuses}")
    print(f"scenes with every visible ship on the right square: {ships_ok}/{n} = {ships_ok / max(1, n):.1%}")
    print(f"visible ships placed right: {visible_right}/{visible}")
    print(f"scenes with every visible board marker read right: {boards_ok}/{boards_scored}")
    print(f"face-down boards read face down: {face_down_right}/{face_down}")
    print(f"  of those no hand or arm covers: {clear_down_right}/{clear_down}")
    print(f"confident wrong answers: {len(wrong)}")
    for line in wrong[:10]:
        print("  " + line)
    if cpu_hd:
        print(f"CPU ms per 1080p frame: median {statistics.median(cpu_hd):.1f} (n {len(cpu_hd)})")
    if cpu_all:
        print(f"CPU ms all sizes: median {statistics.median(cpu_all):.1f}")
    if args.json_out:
        Path(args.json_out).write_text("\n".join(json_lines) + "\n")
    return 0


def _table(
    seed: int, args: argparse.Namespace, size: tuple[int, int] | None
) -> tuple[dict, np.ndarray | None, list[tuple[np.ndarray, dict, list[str]]]]:
    """One table's layout, setup photo (sessions) and scenes, drawn from its seed (or the cache)."""
    protocol = (
        ("session" if args.session else "r3")
        + ("-hard" if args.hard else "")
        + ("-skin" if args.skin_backs else "")
        + ("-warm" if args.warm_bright else "")
    )
    key = f"{seed}-{args.scenes}-{args.size or 'any'}-{protocol}"
    path = Path(args.cache) / f"table-{key}.pkl" if args.cache else None
    if path is not None and path.exists():
        with path.open("rb") as fh:
            cached: tuple[dict, np.ndarray | None, list[tuple[np.ndarray, dict, list[str]]]] = pickle.load(fh)
        return cached
    rng = np.random.default_rng(seed)
    layout_json = random_table_layout(rng, f"random-table-{seed}")
    session = (
        random_table_session(rng, hard=args.hard, skin_back=args.skin_backs, warm_bright=args.warm_bright)
        if args.session
        else None
    )
    setup = (
        calibration_scene(layout_json, rng, session, size or (1920, 1080)) if session is not None else None
    )
    shots = []
    for _ in range(args.scenes):
        if args.warm_bright and session is not None:
            shots.append(far_ships_scene(layout_json, rng, size or (1920, 1080), session))
            continue
        # --skin-backs: every scene has a hand or two (the class looked for is a hand over a board).
        extra = {"hands": int(rng.integers(1, 3))} if args.skin_backs else {}
        shots.append(held_out_scene(layout_json, rng, size, session, hard=args.hard, **extra))
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("wb") as fh:
            pickle.dump((layout_json, setup, shots), fh, protocol=pickle.HIGHEST_PROTOCOL)
    return layout_json, setup, shots


if __name__ == "__main__":
    raise SystemExit(main())
