"""The held-out generator: its own tables (region ids still the engine's), deterministic by seed. The
reader's figures on it come from bench/vision_sea_regions.py (docs/bench/vision.md), never from a test
that could be tuned to pass."""

from __future__ import annotations

import numpy as np

from rules.great_sea.map import spec
from vision.sea_regions.layout import load_sea_layout
from vision.synth.sea_heldout import heldout_scene, to_1080p


def test_scenes_are_deterministic_and_use_the_engines_regions() -> None:
    a, b = heldout_scene(904), heldout_scene(904)  # a 720p scene: quick to render
    assert np.array_equal(a.image, b.image) and a.truth == b.truth
    assert set(a.truth) == set(spec(a.layout["map"])["regions"])
    load_sea_layout(a.layout)  # the generator writes valid layouts
    assert to_1080p(a.image).shape[1] == 1920
