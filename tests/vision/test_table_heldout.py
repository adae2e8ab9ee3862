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
