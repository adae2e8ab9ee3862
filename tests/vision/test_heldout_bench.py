"""The held-out bench's "flag elsewhere" figure (bench/vision_heldout.py): a wrong count that none of the
reading's flags points to, which a person checking the places shown would still accept."""

from __future__ import annotations

import importlib.util
from collections import Counter
from pathlib import Path
from typing import Any

from vision.battle_board.layout import load_board_layout
from vision.synth import randomised as R

_spec = importlib.util.spec_from_file_location(
    "vision_heldout", Path(__file__).resolve().parents[2] / "bench" / "vision_heldout.py"
)
assert _spec is not None and _spec.loader is not None
bench = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench)


def _layout() -> Any:
    return load_board_layout(R.random_design(8000).layout)


def _cube(color: str, zone: str | None, xy: list[float], on_rail: bool = False) -> dict[str, Any]:
    return {"color": color, "zone": zone, "center_mm": xy, "on_rail": on_rail}


def test_a_wrong_count_where_a_flag_points_is_not_elsewhere() -> None:
    layout = _layout()
    z0 = layout.zones[0]
    inside = [float(v) for v in z0.polygon_mm.mean(axis=0)]
    want: Counter[tuple[str, str]] = Counter({("black", z0.id): 1})
    out = {"status": "ambiguous", "cubes": [], "ambiguous": [], "reason": "something cube-sized ..."}
    assert bench._flag_elsewhere(layout, out, want, [tuple(inside)]) == []
    # The same missed cube with the only flag in another zone: elsewhere.
    z1 = layout.zones[1]
    other = tuple(float(v) for v in z1.polygon_mm.mean(axis=0))
    assert bench._flag_elsewhere(layout, out, want, [other]) == [f"black/{z0.id}"]


def test_an_unsure_cube_flags_its_zone_and_a_hand_flags_everything() -> None:
    layout = _layout()
    z0, z1 = layout.zones[0], layout.zones[1]
    c0 = [float(v) for v in z0.polygon_mm.mean(axis=0)]
    c1 = [float(v) for v in z1.polygon_mm.mean(axis=0)]
    want: Counter[tuple[str, str]] = Counter({("red", z0.id): 1, ("blue", z1.id): 1})
    # The red cube read but unsure (its zone flagged); the blue one missed with no flag: elsewhere.
    out = {
        "status": "ambiguous",
        "cubes": [_cube("red", z0.id, c0)],
        "ambiguous": [0],
        "reason": "the red ...",
    }
    assert bench._flag_elsewhere(layout, out, want, []) == [f"blue/{z1.id}"]
    # A confident extra cube in an unflagged zone is elsewhere too.
    out2 = {
        "status": "ambiguous",
        "cubes": [_cube("red", z0.id, c0), _cube("blue", z1.id, c1), _cube("blue", z1.id, c1)],
        "ambiguous": [0],
        "reason": "the red ...",
    }
    assert bench._flag_elsewhere(layout, out2, want, []) == [f"blue/{z1.id}"]
    hand = {
        "status": "ambiguous",
        "cubes": [],
        "ambiguous": [],
        "reason": "something that is not a cube (a hand?)",
    }
    assert bench._flag_elsewhere(layout, hand, want, []) == []
    ok = {"status": "ok", "cubes": [], "ambiguous": []}
    assert bench._flag_elsewhere(layout, ok, want, []) == []


def test_a_question_about_a_right_reading_is_needless() -> None:
    want: Counter[tuple[str, str]] = Counter({("red", "z00"): 2})
    assert bench._needless("ambiguous", want, Counter({("red", "z00"): 2}))
    assert not bench._needless("ambiguous", want, Counter({("red", "z00"): 1}))  # a needed question
    assert not bench._needless("ok", want, Counter({("red", "z00"): 2}))  # no question
