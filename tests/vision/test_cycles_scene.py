"""The Cycles held-out set's scene as numbers (bench/cycles_scene.py): the board solid's raised rails,
the cubes and their truth, the lens' focus and the camera's developing. These run without Blender; the
one test that renders needs the `bpy` wheel and is skipped where it is absent."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

from vision.synth import randomised as R

BENCH = Path(__file__).resolve().parents[2] / "bench"


def _load(name: str) -> ModuleType:
    sys.path.insert(0, str(BENCH))
    spec = importlib.util.spec_from_file_location(name, BENCH / f"{name}.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


S = _load("cycles_scene")


def _board_xy(p: np.ndarray) -> tuple[float, float]:
    """Blender's frame back to the board's (y down)."""
    return float(p[0]), float(-p[1])


def test_rails_stand_up_around_the_wells_with_the_rails_print() -> None:
    design = R.random_design(7350)
    L = design.layout
    W, H = L["size_mm"]
    h = L["rail_height_mm"]
    assert h > 0
    mesh = S.rail_mesh(L)
    wells = S.wells_of(L)
    well_area = sum((x1 - x0) * (y1 - y0) for x0, y0, x1, y1 in wells)
    faces = {k: [f for f in range(len(mesh.faces)) if mesh.kind[f] == k] for k in set(mesh.kind)}
    # The rails' tops cover the board less its wells, at the rail height, facing up.
    assert sum(S.face_area(mesh, f) for f in faces["top"]) == pytest.approx(W * H - well_area)
    for f in faces["top"] + faces["floor"]:
        assert np.allclose(mesh.verts[list(mesh.faces[f])][:, 2], h if mesh.kind[f] == "top" else 0.0)
        assert S.face_normal(mesh, f) == pytest.approx([0, 0, 1])
    assert sum(S.face_area(mesh, f) for f in faces["floor"]) == pytest.approx(W * H)
    # Every well is walled all round, from its floor to the rail height; the board's edge from below.
    perimeter = sum(2 * ((x1 - x0) + (y1 - y0)) for x0, y0, x1, y1 in wells)
    assert sum(S.face_area(mesh, f) for f in faces["inner"]) == pytest.approx(perimeter * h)
    outer = sum(S.face_area(mesh, f) for f in faces["outer"])
    assert outer == pytest.approx(2 * (W + H) * (h + S.BOARD_THICKNESS_MM))
    s = R.TEX_PX_PER_MM
    for f in faces["inner"]:
        p = mesh.verts[list(mesh.faces[f])]
        n = S.face_normal(mesh, f)
        assert abs(n[2]) < 1e-9
        # The wall faces into a well: a step along its normal from its middle lands in one.
        x, y = _board_xy(p.mean(axis=0) + 1.0 * n)
        assert any(x0 < x < x1 and y0 < y < y1 for x0, y0, x1, y1 in wells)
        # ... and it shows the rail's print, not the well's.
        for u, v in mesh.uvs[f]:
            assert design.rail_mask[int((1 - v) * H * s), min(int(u * W * s), int(W * s) - 1)] == 1
    for f in faces["top"]:
        for (u, v), p in zip(mesh.uvs[f], mesh.verts[list(mesh.faces[f])], strict=True):
            x, y = _board_xy(p)
            assert (u, v) == pytest.approx((x / W, 1 - y / H))


def test_a_flat_board_has_only_its_floor_and_edge() -> None:
    layout = json.loads(json.dumps(R.random_design(7353).layout))
    assert layout["rail_height_mm"] == 0
    mesh = S.rail_mesh(layout)
    assert set(mesh.kind) == {"floor", "outer"}
    W, H = layout["size_mm"]
    assert sum(S.face_area(mesh, f) for f, k in enumerate(mesh.kind) if k == "outer") == pytest.approx(
        2 * (W + H) * S.BOARD_THICKNESS_MM
    )


def test_a_zone_that_is_not_a_rectangle_is_refused_in_a_sentence() -> None:
    layout = json.loads(json.dumps(R.random_design(7350).layout))
    layout["zones"][0]["polygon_mm"] = [[30, 30], [80, 30], [55, 70]]
    with pytest.raises(ValueError, match="not an axis-aligned rectangle"):
        S.rail_mesh(layout)


def test_session_cubes_sit_on_what_they_are_on_and_the_truth_counts_them() -> None:
    design = R.random_design(7352)
    room, cal, scenes = S.plan_session(design, np.random.default_rng(0), 12, (1280, 720))
    h = design.rail_h
    assert sorted(c.color for c in cal.cubes) == sorted(R.CUBE_NAMES)
    assert all(c.z == pytest.approx(h, abs=0.05) and c.zone is None for c in cal.cubes)
    assert 1 <= len(room.lamps) <= 2 and all(2700 <= lamp.kelvin <= 7500 for lamp in room.lamps)
    rail = 0
    for plan in scenes:
        assert plan.shot.size == (1280, 720) and plan.shot.tilt_deg <= 35
        assert len(plan.wood) == len(plan.cubes)
        truth = plan.truth(room)
        counted = sum(n for zones in truth["counts"].values() for n in zones.values())
        assert counted + len(truth["redrop_colors"]) == len(plan.cubes)
        for c in plan.cubes:
            # A re-drop stands on a rail's top; a cube in a zone on the well's floor.
            assert c.z == pytest.approx(h if c.zone is None else 0.0, abs=0.05)
            rail += c.zone is None
    assert rail > 0


def test_the_lens_focuses_at_the_depth_of_the_point_it_looks_at() -> None:
    design = R.random_design(7351)
    shot = S.plan_shot(np.random.default_rng(3), design, (1280, 720))
    Rm = np.array(__import__("cv2").Rodrigues(shot.rvec)[0])
    eye = shot.eye_up
    axis_up = Rm[2] * np.array([1.0, 1.0, -1.0])  # the optical axis, z up
    t = -eye[2] / axis_up[2]
    p = eye + t * axis_up  # where the optical axis meets the board
    assert S.focus_distance(shot, p) == pytest.approx(float(np.linalg.norm(p - eye)), rel=1e-6)
    W, H = design.layout["size_mm"]
    assert S.focus_distance(shot, np.array([W / 2, H / 2, 0.0])) > 100


def _plan(
    level: float, wb: tuple[float, float, float] = (1.0, 1.0, 1.0), size: tuple[int, int] = (64, 36)
) -> object:
    shot = R.Shot(
        np.array([[60.0, 0, 32], [0, 60.0, 18], [0, 0, 1]]), np.zeros(5), np.zeros(3), np.zeros(3), size, 0.0
    )
    return S.Plan([], [], shot, 500.0, level, np.array(wb), 1.0, 92)


def test_developing_exposes_balances_clips_and_adds_noise_growing_with_gain() -> None:
    rng = np.random.default_rng(0)
    light = np.full((36, 64, 3), 0.2, np.float32)
    light[:, 32:] = 0.05
    dim = S.develop(light, _plan(0.3), rng)
    bright = S.develop(light, _plan(1.5), rng)
    assert dim.shape == (36, 64, 3) and dim.dtype == np.uint8
    assert bright.mean() > dim.mean() + 40
    assert (bright[:, :28] >= 250).mean() > 0.9  # the light paper clips when exposed past full scale
    assert (dim >= 250).mean() == 0
    # Noise relative to the signal is larger when a dim exposure needs gain.
    d, b = dim[4:32, 36:60].astype(float), S.develop(light, _plan(0.9), rng)[4:32, 36:60].astype(float)
    assert d.std() / d.mean() > b.std() / b.mean()
    warm = S.develop(light, _plan(0.5, wb=(2.0, 1.0, 0.5)), rng)
    assert warm[..., 2].mean() > warm[..., 1].mean() > warm[..., 0].mean()  # BGR: red up, blue down


def test_distortion_moves_pixels_only_when_the_lens_has_some() -> None:
    img = np.random.default_rng(1).random((36, 64, 3)).astype(np.float32)
    K = np.array([[60.0, 0, 32], [0, 60.0, 18], [0, 0, 1]])
    assert S.distort(img, K, np.zeros(5)) is img
    barrel = S.distort(img, K, np.array([-0.2, 0, 0, 0, 0]))
    assert np.abs(barrel - img)[14:22, 28:36].max() < 0.2  # the middle stays
    assert np.abs(barrel - img)[:4].mean() > 0.05  # the edges move


def test_summary_scores_strict_cubes_exact_ambiguous_and_silent() -> None:
    V = _load("vision_cycles")
    results = [
        {
            "design": 1,
            "questions": ["colors-close"],
            "scenes": [
                {
                    "right": 4,
                    "truth": 4,
                    "read": 4,
                    "exact": True,
                    "status": "ok",
                    "silent": False,
                    "cpu_ms": 10,
                },
                {
                    "right": 2,
                    "truth": 3,
                    "read": 4,
                    "exact": False,
                    "status": "ok",
                    "silent": True,
                    "cpu_ms": 30,
                },
                {
                    "right": 1,
                    "truth": 3,
                    "read": 1,
                    "exact": False,
                    "status": "ambiguous",
                    "silent": False,
                    "cpu_ms": 20,
                },
            ],
        },
        {"design": 2, "calibration_refused": "no board"},
    ]
    s = V.summary(results)
    p, r = 7 / 9, 7 / 10
    assert s["f1"] == pytest.approx(2 * p * r / (p + r), abs=1e-4)
    assert (s["calibrations_accepted"], s["questions"], s["exact"], s["ambiguous"], s["silent"]) == (
        1,
        1,
        1,
        1,
        1,
    )
    assert s["cpu_ms_median"] == 20


def test_a_tiny_render_shows_the_board_where_the_camera_sees_it(tmp_path: Path) -> None:
    bpy = pytest.importorskip("bpy", reason="the Blender wheel (bpy) is not installed: the render is skipped")
    V = _load("vision_cycles")
    V.render_set(bpy, [7350], 1, 1, (160, 90), tmp_path)
    import cv2

    photo = cv2.imread(str(tmp_path / "scene-7350-0.png"))
    assert photo is not None and photo.shape == (90, 160, 3)
    truth = json.loads((tmp_path / "truth-7350.json").read_text())
    assert len(truth) == 1 and truth[0]["size"] == [160, 90]
    assert 20 < photo.mean() < 240 and photo.std() > 5


def test_a_hand_reaches_over_the_board_from_an_edge_and_the_truth_says_so() -> None:
    """`--hands` (round 8): a forearm and hand over part of the board in every play photo, from its own random
    stream, so that the session's cubes, lamps, cameras and developing are those of the set without hands."""
    design = R.random_design(8360)
    W, H = design.layout["size_mm"]
    plain = S.plan_session(design, np.random.default_rng(8361), 6, (1280, 720))
    room, cal, scenes = S.plan_session(design, np.random.default_rng(8361), 6, (1280, 720))
    S.add_hands(design, scenes)
    edges = set()
    for with_hand, without in zip(scenes, plain[2], strict=True):
        truth = with_hand.truth(room)
        hand = truth.pop("hand")
        assert truth == without.truth(plain[0])
        edges.add(hand["edge"])
        h = with_hand.extra["hand"]
        # The wrist is over the board, and the arm comes from the named edge's side.
        assert 0 < h.wrist[0] < W and 0 < h.wrist[1] < H
        back = h.wrist - h.direction * 300.0
        side = {"top": back[1] < 0, "bottom": back[1] > H, "left": back[0] < 0, "right": back[0] > W}
        assert side[hand["edge"]]
        assert 15 <= hand["height_mm"] <= 60 and max(hand["skin_rgb"]) <= 0.9
    assert "hand" not in cal.truth(room)
    assert len(edges) > 1  # not always the same edge


def test_summary_counts_hand_scenes_by_what_the_reader_said() -> None:
    """With a hand over the board the one right answer is "a hand": a hand scene read `ok` is wrong."""
    V = _load("vision_cycles")
    base = {"right": 3, "truth": 3, "read": 3, "cpu_ms": 10, "hand": True, "no_board": False}
    scenes = [
        {**base, "exact": True, "status": "ambiguous", "silent": False, "said_hand": True},
        {**base, "exact": False, "status": "ok", "silent": True, "said_hand": False},
        {**base, "exact": False, "status": "no-board", "silent": True, "said_hand": False, "no_board": True},
    ]
    s = V.summary([{"design": 8360, "questions": [], "scenes": scenes}])
    assert (s["hand_scenes"], s["hand_said"], s["hand_read_ok"], s["hand_no_board"]) == (3, 1, 1, 1)
    assert s["exact"] == 1 and s["silent"] == 2
    plain = {**scenes[0], "hand": False}
    assert "hand_scenes" not in V.summary([{"design": 1, "questions": [], "scenes": [plain]}])
