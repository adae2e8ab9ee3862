"""The ocean grid's held-out generator (`vision.synth.table_randomised`): its random tables are valid
layout files and its photos are readable, with the truth the benchmark scores against."""

from __future__ import annotations

import numpy as np

from vision.ocean_grid.layout import load_table_layout
from vision.ocean_grid.reader import read_table_detailed
from vision.synth.table_randomised import held_out_scene, random_table_layout


def test_random_tables_are_valid_layouts() -> None:
    for seed in range(20):
        data = random_table_layout(np.random.default_rng(seed))
        layout = load_table_layout(data)
        assert len(layout.squares) == 12 and len(layout.markers) >= 4


def test_a_held_out_photo_is_read_without_a_confident_wrong_answer() -> None:
    rng = np.random.default_rng(31)
    data = random_table_layout(rng)
    image, truth, in_play = held_out_scene(data, rng, (1280, 720))
    assert image.shape == (720, 1280, 3)
    reading = read_table_detailed(image, data, ships_in_play=in_play)
    where = {t["ship"]: t["square"] for t in truth["ships"]}
    for s in reading.ships:
        if s["square"] is not None:
            assert where.get(s["ship"]) == s["square"]


def test_the_benchmark_cache_gives_the_same_readings_as_rendering_afresh(tmp_path, capsys) -> None:
    import importlib.util
    import json
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "bench" / "vision_ships_heldout.py"
    spec = importlib.util.spec_from_file_location("vision_ships_heldout", path)
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    import cv2

    threads = cv2.getNumThreads()  # the benchmark pins OpenCV to one thread; the suite's other tests not
    common = ["--layouts", "1", "--layout-seed", "5", "--scenes", "2", "--size", "960x540", "--session"]
    cache = tmp_path / "cache"
    assert bench.main([*common, "--cache", str(cache), "--render-only"]) == 0
    assert len(list(cache.glob("table-5-*.pkl"))) == 1
    assert bench.main([*common, "--cache", str(cache), "--json-out", str(tmp_path / "a.jsonl")]) == 0
    assert bench.main([*common, "--json-out", str(tmp_path / "b.jsonl")]) == 0
    cv2.setNumThreads(threads)
    a = [json.loads(line) for line in (tmp_path / "a.jsonl").read_text().splitlines()]
    b = [json.loads(line) for line in (tmp_path / "b.jsonl").read_text().splitlines()]
    assert len(a) == 2 and a == b
    assert "scenes with every visible ship" in capsys.readouterr().out
