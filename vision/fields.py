"""Validators of the JSON fields both layout formats share (battle board: `vision.battle_board.layout`;
table: `vision.ocean_grid.layout`): each error is made by the caller's `fail(field path, what is
wrong)`, so it names the field to fix in that format's words."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

Fail = Callable[[str, str], Exception]


def number(value: Any, path: str, fail: Fail, positive: bool = False) -> float:
    """A finite JSON number (not a boolean); with `positive`, greater than 0."""
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not np.isfinite(value):
        raise fail(path, f"must be a number, got {value!r}")
    if positive and value <= 0:
        raise fail(path, f"must be greater than 0, got {value!r}")
    return float(value)


def points(value: Any, path: str, fail: Fail, count: int | None = None, minimum: int = 1) -> np.ndarray:
    """A list of [x, y] points in millimetres: exactly `count` of them, or at least `minimum`."""
    if not isinstance(value, list) or (count is not None and len(value) != count) or len(value) < minimum:
        want = f"exactly {count}" if count is not None else f"at least {minimum}"
        got = f", got {len(value)}" if isinstance(value, list) else ""
        raise fail(path, f"must be a list of {want} [x, y] points in millimetres{got}")
    pts = []
    for i, p in enumerate(value):
        if not isinstance(p, list) or len(p) != 2:
            raise fail(f"{path}[{i}]", f"must be a point [x, y], got {p!r}")
        pts.append([number(p[0], f"{path}[{i}][0]", fail), number(p[1], f"{path}[{i}][1]", fail)])
    return np.array(pts, dtype=np.float64)
