"""Benchmark: The Great Sea's region reader (`vision.sea_regions`) on the tuning renderer and on the held-out
generator (`vision.synth.sea_heldout`, never tuned on).

    python bench/vision_sea_regions.py --set heldout --scenes 30 --start 100 [--set tuning] [--set rough]

Sets: `tuning` (the tuning renderer), `rough` (the same print and layout with off-colour paints, a coloured
light, more tilt, noise and JPEG: also tuned on), `heldgen` (the held-out generator at indices 500 and up:
tuning data with the held-out prints, paints and light), `heldout` (`vision.synth.sea_heldout` below
index 500: never tuned on; report only on indices never run before). The held-out generator's sets are
read with the bare map learned from each scene's calibration photo unless `--no-bare-map`.

Per piece (strict: owner, kind, damaged and region all right), per scene (exactly right and "ok"),
pieces read wrong with confidence, scenes wrong yet "ok", and the read's CPU time (one OpenCV thread),
median per frame: on each frame as rendered, and on each frame scaled to 1920 px wide (the goal's size).
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import cv2  # noqa: E402

from vision.sea_regions.bare_map import learn_bare_map  # noqa: E402
from vision.sea_regions.layout import load_sea_layout  # noqa: E402
from vision.sea_regions.reader import read_regions_detailed  # noqa: E402
from vision.synth.sea import Piece, score, tuning_pieces, tuning_scene  # noqa: E402
from vision.synth.sea_heldout import heldout_scene, to_1080p  # noqa: E402

# The held-out generator's indices from here on are tuning data (`--set heldgen`), never held out.
HELDGEN_FIRST = 500


def _scene(which: str, i: int, bare: bool) -> tuple[Any, dict[str, Any], dict[str, Any], list[Piece], Any]:
    if which in ("tuning", "rough"):
        return (*tuning_scene(i, rough=which == "rough"), tuning_pieces(i, rough=which == "rough"), None)
    s = heldout_scene(i, calibration=bare)
    return s.image, s.truth, s.layout, s.pieces, s.calibration


def classify(reading: dict[str, Any], pieces: list[Piece]) -> Counter[str]:
    """Each true piece's fate: "right", "unsure: <reason>" (in an unsure blob), "wrong kind", "wrong
    damaged", "wrong region", "missed" (nothing read near it); each read piece near no true piece of its
    colour: "extra"."""
    out: Counter[str] = Counter()
    read = [(rid, p) for rid, reg in reading["regions"].items() for p in reg["pieces"]]
    used: set[int] = set()
    for t in pieces:
        near = [
            (math.dist(p["at_mm"], t.center), k)
            for k, (_, p) in enumerate(read)
            if k not in used and p["owner"] == t.owner and math.dist(p["at_mm"], t.center) < 14
        ]
        if near:
            k = min(near)[1]
            used.add(k)
            rid, p = read[k]
            if rid != t.region:
                out["wrong region"] += 1
            elif p["kind"] != t.kind:
                out["wrong kind"] += 1
            elif p["damaged"] != t.damaged:
                out["wrong damaged"] += 1
            else:
                out["right"] += 1
            continue
        why = [
            (math.dist(u["at_mm"], t.center), u["reason"])
            for u in reading["unsure"]
            if u["owner"] == t.owner and math.dist(u["at_mm"], t.center) < 40
        ]
        out[f"unsure: {min(why)[1]}" if why else "missed"] += 1
    out["extra"] += len(read) - len(used)
    return out


def run(which: str, start: int, scenes: int, bare: bool = True) -> dict[str, Any]:
    """`bare`: read with the bare map learned from the scene's calibration photo (held-out generator's
    sets only: the tuning renderer draws none)."""
    if which == "heldgen" and start < HELDGEN_FIRST:
        raise SystemExit(f"--set heldgen is tuning data from index {HELDGEN_FIRST} on: give --start >= 500")
    if which == "heldout" and start + scenes > HELDGEN_FIRST:
        raise SystemExit(f"--set heldout indices from {HELDGEN_FIRST} on are tuning data (--set heldgen)")
    cv2.setNumThreads(1)
    totals: Counter[str] = Counter()
    cpu_native: list[float] = []
    cpu_1080: list[float] = []
    reasons: Counter[str] = Counter()
    fates: Counter[str] = Counter()
    for i in range(start, start + scenes):
        image, truth, layout_raw, pieces, calibration = _scene(which, i, bare)
        layout = load_sea_layout(layout_raw)
        known = learn_bare_map(calibration, layout) if calibration is not None else None
        t = time.process_time()
        reading = read_regions_detailed(image, layout, bare_map=known)
        cpu_native.append((time.process_time() - t) * 1000)
        small = to_1080p(image)
        # The 1080p frame's bare map is learned from the calibration photo scaled alike (not timed).
        known_small = learn_bare_map(to_1080p(calibration), layout) if calibration is not None else None
        t = time.process_time()
        read_regions_detailed(small, layout, bare_map=known_small)
        cpu_1080.append((time.process_time() - t) * 1000)
        sc = score(reading.to_json(), truth)
        fates.update(classify(reading.to_json(), pieces))
        for k in ("pieces", "right", "wrong", "unsure"):
            totals[k] += sc[k]
        totals["scenes"] += 1
        totals["exact"] += int(sc["exact"])
        totals["wrong_yet_ok"] += int(sc["wrong_yet_ok"])
        totals["no_table"] += int(reading.status == "no-table")
        for u in reading.unsure:
            reasons[u["reason"] if " or a " not in u["reason"] else "fits two pieces"] += 1
        print(
            f"{which} {i}: {reading.status} right {sc['right']}/{sc['pieces']} wrong {sc['wrong']} "
            f"unsure {sc['unsure']} {cpu_native[-1]:.0f} ms ({image.shape[1]}x{image.shape[0]})",
            file=sys.stderr,
        )
    return {
        "set": which,
        "bare_map": bare and which in ("heldgen", "heldout"),
        "seeds": [start, start + scenes - 1],
        "scenes": totals["scenes"],
        "pieces": totals["pieces"],
        "piece_accuracy": round(totals["right"] / max(1, totals["pieces"]), 4),
        "pieces_wrong_confident": totals["wrong"],
        "pieces_unsure": totals["unsure"],
        "scene_exact": round(totals["exact"] / max(1, totals["scenes"]), 4),
        "scenes_wrong_yet_ok": totals["wrong_yet_ok"],
        "no_table": totals["no_table"],
        "median_cpu_ms_native": round(statistics.median(cpu_native), 1),
        "median_cpu_ms_1080p": round(statistics.median(cpu_1080), 1),
        "unsure_reasons": dict(reasons.most_common()),
        "piece_fates": dict(fates.most_common()),
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument(
        "--set",
        action="append",
        choices=["tuning", "rough", "heldgen", "heldout"],
        help="default: tuning, rough and heldout",
    )
    ap.add_argument("--scenes", type=int, default=40)
    ap.add_argument("--start", type=int, default=0)
    ap.add_argument(
        "--no-bare-map", action="store_true", help="read without the bare map's calibration photo"
    )
    args = ap.parse_args()
    for which in args.set or ["tuning", "rough", "heldout"]:
        print(json.dumps(run(which, args.start, args.scenes, bare=not args.no_bare_map)))


if __name__ == "__main__":
    main()
