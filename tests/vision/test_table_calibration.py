"""The ocean table's calibration (`vision.ocean_grid.calibration`, `calibration.table_check`): the Ocean
boards' back learned from the setup photo under the table's own light, as colour and as print, and the
reader's face-down call that uses it; a burnt-out white frame is not an arm."""

from __future__ import annotations

import dataclasses
import json

import cv2
import numpy as np
import pytest

import vision.ocean_grid.reader as reader_module
from calibration.table_check import learn_table_calibration
from vision.geometry import apply_homography
from vision.ocean_grid.calibration import (
    TableCalibration,
    TableCalibrationError,
    load_table_calibration,
)
from vision.ocean_grid.classification import _frame_white
from vision.ocean_grid.layout import default_table_layout, load_table_layout
from vision.ocean_grid.reader import read_table_detailed
from vision.synth.table import random_table_setup, render_table_scene
from vision.synth.table_randomised import (
    calibration_scene,
    held_out_scene,
    random_table_layout,
    random_table_session,
)


@pytest.fixture(scope="module")
def table() -> dict:
    """A random table whose back print is a blue no layout names, its setup photo and one clear photo."""
    rng = np.random.default_rng(7)
    data = random_table_layout(rng)
    session = random_table_session(rng)
    layout = load_table_layout(data)
    setup = calibration_scene(data, rng, session, (1280, 720))
    image, truth, in_play = held_out_scene(data, rng, (1280, 720), session, hands=0, glare=False)
    return {
        "layout": layout,
        "session": session,
        "setup": setup,
        "image": image,
        "truth": truth,
        "in_play": in_play,
    }


def test_the_back_print_is_not_the_layouts_purple(table) -> None:
    hue = int(cv2.cvtColor(np.array([[table["session"].back_bgr]], np.uint8), cv2.COLOR_BGR2HSV)[0, 0, 0])
    lo, hi = table["layout"].back_hue
    assert not lo <= hue <= hi  # so only the calibration can know it


def test_calibration_learns_the_back_from_the_setup_photos_face_down_squares(table) -> None:
    cal = learn_table_calibration(table["setup"], table["layout"])
    assert cal is not None and cal.back is not None and cal.print_template is not None
    # The setup photo: the first row face up, the other nine squares face down.
    assert set(cal.squares) == {sq.id for sq in table["layout"].squares if sq.row > 1}


def test_face_down_boards_are_read_with_the_calibration_and_unsure_without(table) -> None:
    cal = learn_table_calibration(table["setup"], table["layout"])
    down = {t["square"] for t in table["truth"]["boards"] if not t["face_up"]}
    assert down
    with_cal = read_table_detailed(
        table["image"], table["layout"], ships_in_play=table["in_play"], calibration=cal
    )
    without = read_table_detailed(table["image"], table["layout"], ships_in_play=table["in_play"])
    assert {b["square"] for b in with_cal.boards if b["face_up"] is False} == down
    assert not any(b["face_up"] is False for b in without.boards)
    truth = {t["square"]: t for t in table["truth"]["boards"]}
    for b in with_cal.boards:  # never a face-up board called face down, nor a wrong name
        if b["face_up"] is not None:
            assert (b["face_up"], b["board"]) == (truth[b["square"]]["face_up"], truth[b["square"]]["board"])


def test_a_flat_patch_of_the_backs_colour_over_a_face_up_board_is_not_face_down(table, monkeypatch) -> None:
    """A hand of the back's very colour over a face-up board matches the colour, not the print's lines."""
    layout, image = table["layout"], table["image"].copy()
    cal = learn_table_calibration(table["setup"], layout)
    assert cal is not None
    reading = read_table_detailed(image, layout, ships_in_play=table["in_play"], calibration=cal)
    truth = {t["square"]: t for t in table["truth"]["boards"]}
    up = next(sq for sq in layout.squares if truth[sq.id]["face_up"])
    down = next(sq for sq in layout.squares if not truth[sq.id]["face_up"])
    H = reading.homography
    assert H is not None
    # The colour of the back as photographed (its median over a face-down square), painted flat with
    # the photo's noise over the whole face-up square, its marker too.
    d_px = apply_homography(H, down.polygon_mm.astype(np.float64))
    mask = np.zeros(image.shape[:2], np.uint8)
    cv2.fillPoly(mask, [np.round(d_px).astype(np.int32)], 1)
    colour = np.median(image[mask > 0], axis=0)
    u_px = apply_homography(H, up.polygon_mm.astype(np.float64))
    cv2.fillPoly(image, [np.round(u_px).astype(np.int32)], [float(v) for v in colour])
    noise = np.random.default_rng(1).normal(0, 2.0, image.shape)
    image = np.clip(image + noise, 0, 255).astype(np.uint8)
    got = read_table_detailed(image, layout, ships_in_play=table["in_play"], calibration=cal)
    assert next(b for b in got.boards if b["square"] == up.id)["face_up"] is None
    # A calibration that learned no print (a plain back) does not call it face down either: round 7's
    # ring test (the back must be seen ending at the board's outline) runs on every frame there.
    plain = dataclasses.replace(cal, print_template=None)
    got = read_table_detailed(image, layout, ships_in_play=table["in_play"], calibration=plain)
    assert next(b for b in got.boards if b["square"] == up.id)["face_up"] is None
    # The colour alone (the print test off, the calibration's print kept) would have called it face down.
    monkeypatch.setattr(reader_module, "PRINT_MATCH", -1.0)
    got = read_table_detailed(image, layout, ships_in_play=table["in_play"], calibration=cal)
    assert next(b for b in got.boards if b["square"] == up.id)["face_up"] is False


def test_a_calibration_file_round_trips_and_a_bad_one_says_what_to_do(table, tmp_path) -> None:
    cal = learn_table_calibration(table["setup"], table["layout"])
    assert isinstance(cal, TableCalibration)
    path = tmp_path / "table-calibration.json"
    cal.save(path)
    again = load_table_calibration(path)
    assert again.back is not None and cal.back is not None
    assert np.allclose(again.back.mean, cal.back.mean, atol=1e-4)
    assert again.squares == cal.squares and again.white_seen == cal.white_seen
    assert again.print_template is not None and cal.print_template is not None
    assert again.print_template.shape == cal.print_template.shape
    for text in (
        "{not json",
        json.dumps({"schema": "something-else"}),
        json.dumps({"schema": "smart-table/table-calibration@1"}),
    ):
        path.write_text(text)
        with pytest.raises(TableCalibrationError) as err:
            load_table_calibration(path)
        assert "calibrate table" in str(err.value) and "\n" not in str(err.value)


def test_a_burnt_out_white_frame_is_not_an_arm_over_the_table() -> None:
    layout = default_table_layout()
    rng = np.random.default_rng(3)
    boards, ships = random_table_setup(layout, rng, n_ships=2)
    image, _ = render_table_scene(layout, boards, ships, rng, hands=0, glare=False)
    # A warm lamp and a bright exposure: red and green burn out on the white frame, blue does not.
    burnt = np.clip(image.astype(np.float32) * np.array([1.05, 1.5, 1.9]), 0, 255).astype(np.uint8)
    reading = read_table_detailed(burnt, layout, ships_in_play=list(ships))
    assert reading.homography is not None
    assert _frame_white(burnt, layout, reading.homography)[2] is False  # no unclipped white left
    assert not reading.occluded and reading.reason is None
    assert {s["ship"]: s["square"] for s in reading.ships if s["square"]} == ships
