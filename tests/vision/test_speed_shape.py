"""Speed round 6 of issue 12 (docs/bench/vision.md): the shape search is skipped at a height where every
square it could return would be refused, and that skip is exact: it never drops a cube the search would
have read."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import vision.battle_board.detection as detection
from vision.battle_board.reader import BoardReader

from .conftest import Session
from .test_shape_and_gloss import _scene


def test_a_skipped_height_is_one_whose_every_footprint_the_height_rule_refuses(
    session: Session, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Wherever `_height_possible` says no, `_cube_by_shape` itself (its own height rule, with the
    skip turned off) refuses a square found anywhere the search reaches: checked over the default
    layout's wells, rails and their edges, both heights."""
    reader = BoardReader(session.layout, session.palette)
    rail = session.layout.rail_height_mm
    assert rail > 0
    W, H = session.layout.size_mm
    rng = np.random.default_rng(6)
    near_points = rng.uniform((0.0, 0.0), (W, H), size=(150, 2))
    reach = detection._SHAPE_REACH_MM
    offsets = [
        np.array([dx, dy]) for dx in np.linspace(-reach, reach, 21) for dy in np.linspace(-reach, reach, 21)
    ]
    skipped = {0.0: 0, rail: 0}
    answer: dict[str, Any] = {}

    def at(_image: Any, _pose: Any, _near: Any, base: float) -> tuple[int, np.ndarray, float, float] | None:
        return (1, answer["fp"], 0.0, 5.0) if base == answer["base"] else None

    for near in near_points:
        for base in (0.0, rail):
            if reader._height_possible((float(near[0]), float(near[1])), base):
                continue
            skipped[base] += 1
            with monkeypatch.context() as m:
                m.setattr(reader, "_cube_by_shape_at", at)
                m.setattr(reader, "_height_possible", lambda *_: True)
                for off in offsets:
                    answer.update(fp=near + off, base=base)
                    assert reader._cube_by_shape(None, None, (float(near[0]), float(near[1]))) is None, (  # type: ignore[arg-type]
                        near,
                        off,
                        base,
                    )
    # Both kinds of skip happen on this layout (the test is not vacuous).
    assert skipped[0.0] > 10 and skipped[rail] > 10, skipped


def test_the_skip_leaves_a_shape_read_scene_unchanged(monkeypatch: pytest.MonkeyPatch) -> None:
    """Design 8004, scene 1 (a black cube on navy print read by its shape): every search the reader
    runs returns a footprint within the reach the skip assumes, and the reading is the same with the
    skip turned off."""
    reader, image, _truth = _scene(8004, 1)
    seen: list[tuple[tuple[float, float], np.ndarray]] = []
    search = reader._cube_by_shape_at

    def recorded(image: np.ndarray, pose: Any, near: tuple[float, float], base: float) -> Any:
        out = search(image, pose, near, base)
        if out is not None:
            seen.append((near, out[1]))
        return out

    monkeypatch.setattr(reader, "_cube_by_shape_at", recorded)
    got = reader.read(image).to_json()
    assert seen, "the scene has a cube read by its shape"
    for near, fp in seen:
        assert np.abs(fp - np.array(near)).max() <= detection._SHAPE_REACH_MM + 1e-9
    monkeypatch.setattr(reader, "_height_possible", lambda *_: True)
    assert reader.read(image).to_json() == got


def test_a_place_searched_in_an_earlier_pass_is_not_searched_again(monkeypatch: pytest.MonkeyPatch) -> None:
    """Speed round 8: design 8004, scene 6 (tuning) reads by shape in more than one pass, and its later
    passes meet places the first already searched. Each place is searched once a frame, and the reading
    is the one the reader gives when every pass searches every place again."""
    reader, image, _truth = _scene(8004, 6)
    places: list[tuple[float, float]] = []
    search = reader._cube_by_shape

    def recorded(image: np.ndarray, pose: Any, near: tuple[float, float]) -> Any:
        places.append(near)
        return search(image, pose, near)

    monkeypatch.setattr(reader, "_cube_by_shape", recorded)
    got = reader.read(image).to_json()
    once = list(places)
    assert len(once) == len(set(once))
    places.clear()
    shape_cubes = reader._shape_cubes

    def every_place(*args: Any, **kwargs: Any) -> Any:
        kwargs.pop("searched", None)
        return shape_cubes(*args[:5], **kwargs)

    monkeypatch.setattr(reader, "_shape_cubes", every_place)
    assert reader.read(image).to_json() == got
    assert len(places) > len(set(places))  # without the record, a place was searched twice (not vacuous)
