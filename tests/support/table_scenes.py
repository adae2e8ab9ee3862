"""Rendered ocean-grid tables for the live-watch tests (tests/vision/test_ships_live.py, the RTSP tests of
tests/smart_table/test_watch_sources.py): one way to draw a still table as the camera sees it."""

from __future__ import annotations

from typing import Any

import numpy as np

from vision.ocean_grid.layout import TableLayout
from vision.synth.table import render_table_scene


def islands_on_row_1(layout: TableLayout) -> dict[str, str | None]:
    """Ocean boards face up on the first row (island-01...), face down elsewhere."""
    return {sq.id: (f"island-{i + 1:02d}" if sq.row == 1 else None) for i, sq in enumerate(layout.squares)}


def still_table(
    layout: TableLayout,
    boards: dict[str, str | None],
    ships: dict[str, str],
    rng: np.random.Generator,
    camera: Any,
    hands: int = 0,
) -> np.ndarray:
    """The table with these boards and ships from `camera`: no glare, light noise, no blur; `hands` arms
    over it."""
    frame, _ = render_table_scene(
        layout, boards, ships, rng, camera=camera, hands=hands, glare=False, noise_sigma=1.0, blur_sigma=0.0
    )
    return frame
