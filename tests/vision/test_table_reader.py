"""The ocean-grid reader on rendered table scenes (real OpenCV), and table-layout validation."""

from __future__ import annotations

import copy
import json

import numpy as np
import pytest

from vision.ocean_grid.layout import DEFAULT_LAYOUT_PATH, LayoutError, default_table_layout, load_table_layout
from vision.ocean_grid.reader import read_table
from vision.synth.table import random_table_setup, render_table_scene

LAYOUT = default_table_layout()


def _check_no_wrong_answer(reading: dict, truth: dict) -> None:
    """Every non-null answer must be the truth (null is allowed: it is 'ambiguous', never a guess)."""
    ships = {t["ship"]: t for t in truth["ships"]}
    for s in reading["ships"]:
        if s["square"] is not None:
            assert s["ship"] in ships and s["square"] == ships[s["ship"]]["square"], (s, ships.get(s["ship"]))
    boards = {t["square"]: t for t in truth["boards"]}
    for b in reading["boards"]:
        t = boards[b["square"]]
        if b["face_up"] is not None:
            assert (b["face_up"], b["board"]) == (t["face_up"], t["board"]), (b, t)


def _shape_ok(reading: dict) -> None:
    assert set(reading) == {"status", "boards", "ships"}
    assert [b["square"] for b in reading["boards"]] == [f"r{r}c{c}" for r in range(1, 5) for c in range(1, 4)]
    assert [s["ship"] for s in reading["ships"]] == list(LAYOUT.ships.ids)
    for b in reading["boards"]:
        assert set(b) == {"square", "face_up", "board", "confidence"}
    for s in reading["ships"]:
        assert set(s) == {"ship", "square", "confidence"}
    json.dumps(reading)


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_clean_tilted_scene_is_read_exactly(seed: int) -> None:
    rng = np.random.default_rng(seed)
    boards, ships = random_table_setup(LAYOUT, rng, n_ships=4)
    image, truth = render_table_scene(LAYOUT, boards, ships, rng, hands=0, glare=False, max_tilt_deg=30)
    reading = read_table(image, LAYOUT)
    _shape_ok(reading)
    assert reading["status"] == "ok", reading
    assert {s["ship"]: s["square"] for s in reading["ships"]} == ships
    for b in reading["boards"]:
        assert b["board"] == boards[b["square"]] and b["face_up"] == (boards[b["square"]] is not None)
        assert b["confidence"] >= 0.8


def test_ship_hidden_by_a_hand_is_null_and_ambiguous() -> None:
    found_hidden = 0
    for seed in range(10, 60):
        rng = np.random.default_rng(seed)
        boards, ships = random_table_setup(LAYOUT, rng, n_ships=4)
        image, truth = render_table_scene(LAYOUT, boards, ships, rng, hands=2, glare=False)
        reading = read_table(image, LAYOUT)
        _check_no_wrong_answer(reading, truth)
        hidden = [t for t in truth["ships"] if not t["marker_visible"]]
        if hidden and any(r["square"] is None for r in reading["ships"]):
            assert reading["status"] == "ambiguous"
            found_hidden += 1
        for t in truth["ships"]:
            if t["marker_visible"]:
                got = next(r for r in reading["ships"] if r["ship"] == t["ship"])
                assert got["square"] == t["square"]
        if found_hidden >= 2:
            break
    assert found_hidden >= 2, "the renderer never hid a ship: the test would prove nothing"


def test_glare_and_dim_light_never_give_a_wrong_answer() -> None:
    for seed in range(100, 104):
        rng = np.random.default_rng(seed)
        boards, ships = random_table_setup(LAYOUT, rng, n_ships=3)
        image, truth = render_table_scene(LAYOUT, boards, ships, rng, hands=1, glare=True, light_strength=1.6)
        reading = read_table(image, LAYOUT, ships_in_play=list(ships))
        _check_no_wrong_answer(reading, truth)


def test_ships_not_in_play_do_not_make_the_reading_ambiguous() -> None:
    rng = np.random.default_rng(7)
    boards, ships = random_table_setup(LAYOUT, rng, n_ships=2)
    image, _ = render_table_scene(LAYOUT, boards, ships, rng, hands=0, glare=False)
    assert read_table(image, LAYOUT)["status"] == "ambiguous"  # two layout ships are nowhere
    reading = read_table(image, LAYOUT, ships_in_play=list(ships))
    assert reading["status"] == "ok"
    absent = [s for s in reading["ships"] if s["ship"] not in ships]
    assert len(absent) == 2 and all(s["square"] is None for s in absent)


def test_no_table_when_the_frame_markers_are_not_seen() -> None:
    rng = np.random.default_rng(0)
    image = rng.integers(0, 255, (1080, 1920, 3), dtype=np.uint8)
    reading = read_table(image, LAYOUT)
    assert reading["status"] == "no-table"
    _shape_ok(reading)
    assert all(s["square"] is None for s in reading["ships"])


def test_layout_loads_and_matches_the_ocean_board_names() -> None:
    assert len(LAYOUT.squares) == 12 and LAYOUT.squares[0].id == "r1c1"
    assert LAYOUT.boards.ids["island-01"] == 10 and LAYOUT.boards.ids["open-sea-a"] == 30
    boards = json.loads(open("rules/data/ocean_boards.json").read())["boards"]
    assert set(LAYOUT.boards.ids) == set(boards)


def _raw() -> dict:
    return json.loads(DEFAULT_LAYOUT_PATH.read_text())


@pytest.mark.parametrize(
    ("edit", "field"),
    [
        (lambda d: d.update(schema="x"), "schema"),
        (lambda d: d.update(size_mm=[740]), "size_mm"),
        (lambda d: d.update(aruco_dictionary="DICT_9X9_1"), "aruco_dictionary"),
        (lambda d: d["markers"][1].update(id=40), "markers[1].id"),
        (lambda d: d["markers"][0].update(corners_mm=[[0, 0], [1, 1]]), "markers[0].corners_mm"),
        (lambda d: d["squares"].pop(), "squares"),
        (lambda d: d["squares"][4].update(id="r9c9"), "squares[4].id"),
        (lambda d: d["squares"][2]["polygon_mm"][1].__setitem__(0, "a"), "squares[2].polygon_mm[1][0]"),
        (lambda d: d["boards"]["ids"].update({"island-02": 10}), "boards.ids.island-02"),
        (lambda d: d["ships"].pop("marker_height_mm"), "ships.marker_height_mm"),
        (lambda d: d["ships"]["ids"].update(red=40), "ships.ids"),
        (lambda d: d["harbor"].update(polygon_mm=[]), "harbor.polygon_mm"),
    ],
)
def test_bad_layout_names_the_field(edit, field: str) -> None:
    data = copy.deepcopy(_raw())
    edit(data)
    with pytest.raises(LayoutError) as exc:
        load_table_layout(data)
    assert f"'{field}'" in str(exc.value)


def test_bad_layout_file(tmp_path) -> None:
    p = tmp_path / "t.json"
    p.write_text("{ nope")
    with pytest.raises(LayoutError, match="not valid JSON"):
        load_table_layout(p)
    with pytest.raises(LayoutError, match="does not exist"):
        load_table_layout(tmp_path / "missing.json")


def test_calibrated_camera_reads_the_same_and_places_ships_closely() -> None:
    from vision.ocean_grid.reader import read_table_detailed

    rng = np.random.default_rng(21)
    boards, ships = random_table_setup(LAYOUT, rng, n_ships=4)
    image, truth = render_table_scene(LAYOUT, boards, ships, rng, hands=0, glare=False, max_tilt_deg=30)
    cam = {k: truth["camera"][k] for k in ("K", "dist", "image_size")}
    reading = read_table_detailed(image, LAYOUT, camera=cam)
    assert reading.status == "ok"
    for t in truth["ships"]:
        x, y = reading.ship_positions_mm[t["ship"]]
        assert abs(x - t["position_mm"][0]) < 4 and abs(y - t["position_mm"][1]) < 4


def test_an_arm_over_the_table_is_flagged_and_a_clear_table_is_not() -> None:
    from vision.ocean_grid.reader import read_table_detailed

    rng = np.random.default_rng(31)
    boards, ships = random_table_setup(LAYOUT, rng, n_ships=3)
    clear, _ = render_table_scene(LAYOUT, boards, ships, rng, hands=0, glare=True)
    arm, _ = render_table_scene(LAYOUT, boards, ships, rng, hands=1, glare=False)
    assert not read_table_detailed(clear, LAYOUT).occluded
    r = read_table_detailed(arm, LAYOUT)
    assert r.occluded and r.reason and "arm" in r.reason


def test_two_frame_markers_on_one_side_are_not_trusted() -> None:
    from vision.ocean_grid.reader import read_table_detailed
    from vision.synth.common import look_at_camera

    rng = np.random.default_rng(8)
    boards, ships = random_table_setup(LAYOUT, rng, n_ships=2)
    cam = look_at_camera((370, 560), 1500, 0, 0, 90, 65)
    image, _ = render_table_scene(LAYOUT, boards, ships, rng, camera=cam, hands=0, glare=False)
    assert read_table(image, LAYOUT)["status"] != "no-table"
    # Paint over every frame marker but the two top corners.
    for m in LAYOUT.markers[2:]:
        quad = cam.project(np.column_stack([m.corners_mm, np.zeros(4)]))
        x0, y0 = np.floor(quad.min(axis=0)).astype(int) - 6
        x1, y1 = np.ceil(quad.max(axis=0)).astype(int) + 6
        image[y0:y1, x0:x1] = 230
    r = read_table_detailed(image, LAYOUT)
    assert r.status == "no-table" and "need 3" in (r.reason or "")


def test_live_reuse_of_the_previous_registration_reads_the_same_and_survives_a_moved_camera() -> None:
    from vision.ocean_grid.reader import read_table_detailed

    for seed in (4, 5):
        rng = np.random.default_rng(seed)
        boards, ships = random_table_setup(LAYOUT, rng, n_ships=3)
        image, truth = render_table_scene(LAYOUT, boards, ships, rng, hands=0, glare=False, max_tilt_deg=25)
        cold = read_table_detailed(image, LAYOUT)
        assert cold.homography is not None and len(cold.frame_ids) >= 3
        again = read_table_detailed(image, LAYOUT, previous=cold)
        assert again.to_json() == cold.to_json()
        _check_no_wrong_answer(again.to_json(), truth)
        # The camera moved 300 px since the previous frame: its outline there misses frame markers, so
        # the whole frame is searched and the reading is the same as a cold one.
        moved = np.roll(image, 300, axis=1)
        moved[:, :300] = 0
        after_move = read_table_detailed(moved, LAYOUT, previous=cold)
        assert after_move.to_json() == read_table_detailed(moved, LAYOUT).to_json()
        assert after_move.homography is not None
        assert abs(after_move.homography[0, 2] - cold.homography[0, 2] - 300) < 3


def test_a_layouts_cached_frame_samples_are_never_another_layouts() -> None:
    """The frame samples are cached per layout object; a freed layout's id given to the next one must not
    hand it the old table's samples (a benchmark loading one layout per table read wrong frames)."""
    from vision.ocean_grid import classification
    from vision.synth.table_randomised import random_table_layout

    a = load_table_layout(random_table_layout(np.random.default_rng(1), "a"))
    b = load_table_layout(random_table_layout(np.random.default_rng(2), "b"))
    own = classification._frame_samples(b).copy()
    classification._FRAME_SAMPLES.pop(id(b))
    # What id reuse looks like: b's id already holds another layout's entry.
    classification._FRAME_SAMPLES[id(b)] = (a, classification._frame_samples(a))
    assert np.array_equal(classification._frame_samples(b), own)
    assert len(own) != len(classification._frame_samples(a))
