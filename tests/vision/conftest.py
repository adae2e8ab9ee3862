"""Shared fixtures for the vision tests: the default layout, one lighting session, its palette."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

from calibration.colors import learn_palette
from vision.battle_board.layout import BoardLayout, default_layout
from vision.palette import Palette
from vision.synth.battle import light_session, render_battle_scene

SIZE = (1280, 720)


@dataclass
class Session:
    """One play session: the same board print, cubes and light for the calibration and the scenes."""

    layout: BoardLayout
    fixed: dict[str, Any]
    palette: Palette
    calibration_image: np.ndarray

    def render(self, cubes: list[dict[str, Any]], seed: int, **kw: Any) -> tuple[np.ndarray, dict[str, Any]]:
        rng = np.random.default_rng(seed)
        var = {"size": SIZE, **self.fixed, **kw}
        return render_battle_scene(self.layout, cubes, rng, **var)


def make_session(seed: int, size: tuple[int, int] = SIZE) -> Session:
    layout = default_layout()
    light = light_session(layout, seed, size)
    return Session(layout, light.fixed, learn_palette(light.calibration, layout), light.calibration)


@pytest.fixture(scope="session")
def layout() -> BoardLayout:
    return default_layout()


@pytest.fixture(scope="session")
def session() -> Session:
    return make_session(4242)
