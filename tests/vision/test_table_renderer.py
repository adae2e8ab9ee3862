"""The table scene renderer: truth matches the requested deal, same seed same image."""

from __future__ import annotations

import numpy as np

from vision.ocean_grid.layout import default_table_layout, locate
from vision.synth.table import place_ships, random_table_setup, render_table_scene

LAYOUT = default_table_layout()


def test_truth_matches_the_deal_and_is_deterministic() -> None:
    boards = {sq.id: ("open-sea-b" if sq.id == "r3c2" else None) for sq in LAYOUT.squares}
    ships = {"red": "harbor", "yellow": "r3c2", "blue": "r3c2"}
    a, truth = render_table_scene(LAYOUT, boards, ships, np.random.default_rng(9), hands=0, glare=False)
    b, _ = render_table_scene(LAYOUT, boards, ships, np.random.default_rng(9), hands=0, glare=False)
    assert a.shape == (1080, 1920, 3) and a.dtype == np.uint8
    assert np.array_equal(a, b)
    assert {t["ship"]: t["square"] for t in truth["ships"]} == ships
    for t in truth["ships"]:
        assert locate(LAYOUT, *t["position_mm"])[0] == t["square"]
        assert t["marker_visible"]
    assert {t["square"]: t["board"] for t in truth["boards"]} == boards
    assert [t["square"] for t in truth["boards"] if t["marker_visible"]] == ["r3c2"]
    assert truth["frame_markers_visible"] == len(LAYOUT.markers)


def test_ships_keep_clear_of_edges_and_of_each_other() -> None:
    rng = np.random.default_rng(4)
    for _ in range(20):
        _, ships = random_table_setup(LAYOUT, rng, n_ships=4)
        placed = place_ships(LAYOUT, ships, rng)
        for p in placed:
            where, margin = locate(LAYOUT, p.x, p.y)
            assert where == p.square and margin >= 30
        for i, p in enumerate(placed):
            for q in placed[i + 1 :]:
                assert np.hypot(p.x - q.x, p.y - q.y) >= 48


def test_unknown_names_are_refused_with_a_sentence() -> None:
    import pytest

    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="mauve"):
        render_table_scene(LAYOUT, {}, {"mauve": "harbor"}, rng)
    with pytest.raises(ValueError, match="island-99"):
        render_table_scene(LAYOUT, {"r1c1": "island-99"}, {}, rng)
