"""Benchmark: the ocean-grid reader (ships and Ocean boards) on rendered table scenes.

    python bench/vision_ships.py [--scenes 300] [--seed 1] [--threads 1]

Scenes: 2 to 4 ships, 0 to 2 hands, glare in about a third, camera tilt up to 30 degrees, varied light,
1920x1080. Prints the accuracy figures against the goals of issue 5 and the reading time per frame
(median, p95 and the split) with OpenCV held to one thread (one core): wall time, the fastest of the
repeats, and the reading thread's CPU time (what one core spends, unaffected by other processes).
Goals: every visible ship on the right square in >= 99.5 % of scenes; board ids right in 100 % of scenes
where the marker is visible; no confident wrong answer; <= 20 ms median per frame.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import cv2
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from vision.ocean_grid.layout import default_table_layout  # noqa: E402
from vision.ocean_grid.reader import read_table_detailed  # noqa: E402
from vision.synth.table import random_table_setup, render_table_scene  # noqa: E402


def _load() -> str:
    try:
        return Path("/proc/loadavg").read_text().split()[0]
    except OSError:
        return "unknown"


def main(argv: list[str] | None = None) -> int:
    # Long on purpose: a benchmark script's argument parsing, loop and report, read top to bottom.
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scenes", type=int, default=300)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--threads", type=int, default=1, help="OpenCV threads (1 = one core)")
    ap.add_argument("--repeat", type=int, default=3, help="timed reads per scene (the median is kept)")
    args = ap.parse_args(argv)
    cv2.setNumThreads(args.threads)
    layout = default_table_layout()
    rng = np.random.default_rng(args.seed)

    ships_ok_scenes = boards_ok_scenes = boards_scored = 0
    wrong: list[str] = []
    visible_ships = visible_ships_right = 0
    face_down = face_down_right = 0
    statuses: dict[str, int] = {}
    times: list[float] = []
    fastest: list[float] = []  # the least disturbed of the repeats (other processes share the cores)
    cpu: list[float] = []  # CPU time of the reading thread: what one core spends, whatever the load
    splits: dict[str, list[float]] = {}
    live_cpu: list[float] = []  # CPU time of a read reusing the previous frame's registration
    live_diff = 0  # live reads whose answer differs from the cold read of the same frame
    render_s = 0.0
    for i in range(args.scenes):
        boards, ships = random_table_setup(layout, rng, n_ships=int(rng.integers(2, 5)))
        t0 = time.perf_counter()
        image, truth = render_table_scene(layout, boards, ships, rng)
        render_s += time.perf_counter() - t0
        runs = []
        for _ in range(args.repeat):
            c0 = time.thread_time()
            runs.append(read_table_detailed(image, layout, ships_in_play=list(ships)))
            cpu.append((time.thread_time() - c0) * 1000)
        by_time = sorted(runs, key=lambda r: r.timings_ms["total"])
        reading = by_time[len(runs) // 2]
        # Live mode: the same frame again with the previous reading's registration (a still camera).
        c0 = time.thread_time()
        live_reading = read_table_detailed(image, layout, ships_in_play=list(ships), previous=reading)
        live_cpu.append((time.thread_time() - c0) * 1000)
        live_diff += live_reading.to_json() != reading.to_json()
        times.append(reading.timings_ms["total"])
        fastest.append(by_time[0].timings_ms["total"])
        for k, v in reading.timings_ms.items():
            splits.setdefault(k, []).append(v)
        statuses[reading.status] = statuses.get(reading.status, 0) + 1

        got_ships = {s["ship"]: s for s in reading.ships}
        scene_ok = True
        for t in truth["ships"]:
            got = got_ships[t["ship"]]
            if got["square"] is not None and got["square"] != t["square"]:
                wrong.append(f"scene {i}: ship {t['ship']} on {t['square']} read as {got['square']}")
            if t["marker_visible"]:
                visible_ships += 1
                if got["square"] == t["square"]:
                    visible_ships_right += 1
                else:
                    scene_ok = False
        for s in reading.ships:
            if s["square"] is not None and s["ship"] not in ships:
                wrong.append(f"scene {i}: ship {s['ship']} is not on the table but read on {s['square']}")
        ships_ok_scenes += scene_ok

        got_boards = {b["square"]: b for b in reading.boards}
        scene_boards_ok = True
        any_visible = False
        for t in truth["boards"]:
            got = got_boards[t["square"]]
            if got["face_up"] is not None and (got["face_up"], got["board"]) != (t["face_up"], t["board"]):
                wrong.append(
                    f"scene {i}: square {t['square']} holds {t['board'] or 'a face-down board'}, "
                    f"read as {got['board'] or 'face down'}"
                )
            if t["marker_visible"]:
                any_visible = True
                if got["board"] != t["board"]:
                    scene_boards_ok = False
            if not t["face_up"]:
                face_down += 1
                face_down_right += got["face_up"] is False
        if any_visible:
            boards_scored += 1
            boards_ok_scenes += scene_boards_ok

    n = args.scenes
    med = statistics.median(times)
    p95 = float(np.percentile(times, 95))
    ship_rate = ships_ok_scenes / n
    board_rate = boards_ok_scenes / max(1, boards_scored)
    print(
        f"scenes: {n} (seed {args.seed}), 1920x1080, OpenCV threads: {args.threads}, "
        f"render {render_s / n * 1000:.0f} ms/scene"
    )
    print(f"statuses: {statuses}")
    print(
        f"scenes with every visible ship on the right square: {ships_ok_scenes}/{n} = {ship_rate:.2%} "
        f"(goal >= 99.5%, ratio {ship_rate / 0.995:.3f})"
    )
    print(f"visible ships placed right: {visible_ships_right}/{visible_ships}")
    print(
        f"scenes with every visible board marker read right: {boards_ok_scenes}/{boards_scored} = "
        f"{board_rate:.2%} (goal 100%)"
    )
    print(f"face-down boards read as face down: {face_down_right}/{face_down}")
    print(f"confident wrong answers: {len(wrong)} (goal 0)")
    for w in wrong[:10]:
        print("  " + w)
    fmed = statistics.median(fastest)
    print(
        f"read time per frame: median {med:.1f} ms, p95 {p95:.1f} ms (goal <= 20 ms median, "
        f"ratio {med / 20.0:.2f})"
    )
    print(
        f"read time per frame, fastest of {args.repeat} repeats: median {fmed:.1f} ms "
        f"(ratio {fmed / 20.0:.2f}); load average while running: {_load()}"
    )
    cmed = statistics.median(cpu)
    print(
        f"CPU time per frame (one thread, OpenCV single-threaded): median {cmed:.1f} ms, "
        f"p95 {float(np.percentile(cpu, 95)):.1f} ms (goal <= 20 ms median, ratio {cmed / 20.0:.2f})"
    )
    lmed = statistics.median(live_cpu)
    print(
        f"live mode (previous frame's registration reused), CPU time per frame: median {lmed:.1f} ms "
        f"(ratio {lmed / 20.0:.2f}); answers differing from the cold read: {live_diff}"
    )
    print(
        "split (median ms): "
        + ", ".join(f"{k} {statistics.median(v):.1f}" for k, v in splits.items() if k != "total")
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
