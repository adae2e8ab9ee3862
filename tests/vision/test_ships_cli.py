"""`smart-table vision ships` as a subprocess: good images, bad layout, unreadable image."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.ocean_grid.layout import DEFAULT_LAYOUT_PATH, default_table_layout
from vision.synth.table import random_table_setup, render_table_scene


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "smart_table", "vision", "ships", *args],
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.fixture(scope="module")
def scene(tmp_path_factory) -> tuple[Path, dict]:
    layout = default_table_layout()
    rng = np.random.default_rng(42)
    boards, ships = random_table_setup(layout, rng, n_ships=3)
    image, _ = render_table_scene(layout, boards, ships, rng, hands=0, glare=False)
    path = tmp_path_factory.mktemp("ships") / "frame-1.png"
    cv2.imwrite(str(path), image)
    return path, {"boards": boards, "ships": ships}


def test_prints_one_json_object_per_image(scene) -> None:
    path, truth = scene
    r = run("--layout", str(DEFAULT_LAYOUT_PATH), "--ships", ",".join(truth["ships"]), str(path), str(path))
    assert r.returncode == 0, r.stderr
    lines = r.stdout.strip().splitlines()
    assert len(lines) == 2
    reading = json.loads(lines[0])
    assert reading["status"] == "ok"
    assert {s["ship"]: s["square"] for s in reading["ships"] if s["square"]} == truth["ships"]
    assert {b["square"]: b["board"] for b in reading["boards"]} == truth["boards"]


def test_out_dir_gets_one_file_per_image(scene, tmp_path) -> None:
    path, _ = scene
    r = run(str(path), "--out", str(tmp_path / "out"))
    assert r.returncode == 0, r.stderr
    data = json.loads((tmp_path / "out" / "frame-1.json").read_text())
    assert len(data["boards"]) == 12 and len(data["ships"]) == 4


def test_bad_layout_is_one_line_and_nonzero(scene, tmp_path) -> None:
    path, _ = scene
    bad = json.loads(DEFAULT_LAYOUT_PATH.read_text())
    bad["ships"]["marker_size_mm"] = -3
    lay = tmp_path / "bad.json"
    lay.write_text(json.dumps(bad))
    r = run("--layout", str(lay), str(path))
    assert r.returncode != 0 and r.stdout == ""
    assert len(r.stderr.strip().splitlines()) == 1
    assert "ships.marker_size_mm" in r.stderr and "Traceback" not in r.stderr


def test_unreadable_image_is_one_line_and_nonzero(tmp_path) -> None:
    junk = tmp_path / "junk.png"
    junk.write_bytes(b"not a png at all")
    for target in (junk, tmp_path / "missing.png"):
        r = run(str(target))
        assert r.returncode != 0
        assert len(r.stderr.strip().splitlines()) == 1 and str(target) in r.stderr
        assert "Traceback" not in r.stderr


def test_unknown_ship_name_is_refused(scene) -> None:
    path, _ = scene
    r = run("--ships", "red,mauve", str(path))
    assert r.returncode != 0 and "mauve" in r.stderr and len(r.stderr.strip().splitlines()) == 1


def test_bad_calibration_file_is_one_line(scene, tmp_path) -> None:
    path, _ = scene
    cal = tmp_path / "cam.json"
    cal.write_text('{"dist": []}')
    r = run("--calibration", str(cal), str(path))
    assert r.returncode != 0 and len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr


def test_calibrate_table_reports_marker_error_and_back_colour(scene) -> None:
    path, truth = scene
    r = subprocess.run(
        [sys.executable, "-m", "smart_table", "calibrate", "table", "--image", str(path)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 0, r.stderr
    report = json.loads(r.stdout)
    assert report["ok"] and report["markers_missing"] == []
    assert report["homography_rms_mm"] < 1.5
    assert 1000 < report["camera_height_mm"] < 3000
    lo, hi = report["board_back"]["suggested"]["hue"]
    assert lo <= 145 <= hi  # the renderer's purple back
    assert set(report["ship_marker_side_px"]) == set(truth["ships"])


def test_calibrate_table_without_a_table_fails_with_the_reason(tmp_path) -> None:
    blank = tmp_path / "blank.png"
    cv2.imwrite(str(blank), np.full((540, 960, 3), 128, np.uint8))
    r = subprocess.run(
        [sys.executable, "-m", "smart_table", "calibrate", "table", "--image", str(blank)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 1 and "frame markers" in r.stderr.strip().splitlines()[-1]


def test_calibrate_table_writes_the_calibration_that_vision_ships_reads_with(tmp_path) -> None:
    from vision.synth.table_randomised import (
        calibration_scene,
        held_out_scene,
        random_table_layout,
        random_table_session,
    )

    rng = np.random.default_rng(7)
    data = random_table_layout(rng)
    session = random_table_session(rng)  # a back print no layout names
    layout = tmp_path / "table.json"
    layout.write_text(json.dumps(data))
    setup, frame = tmp_path / "setup.png", tmp_path / "frame.png"
    cv2.imwrite(str(setup), calibration_scene(data, rng, session, (1280, 720)))
    image, truth, in_play = held_out_scene(data, rng, (1280, 720), session, hands=0, glare=False)
    cv2.imwrite(str(frame), image)
    cal = tmp_path / "table-calibration.json"
    r = subprocess.run(
        [sys.executable, "-m", "smart_table", "calibrate", "table", "--image", str(setup)]
        + ["--layout", str(layout), "--out", str(cal)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert r.returncode == 0, r.stderr
    assert len(json.loads(r.stdout)["back_learned"]["squares"]) == 9 and "back learned" in r.stderr
    args = ["--layout", str(layout), "--ships", ",".join(in_play), str(frame)]
    down = {t["square"] for t in truth["boards"] if not t["face_up"]}
    read = json.loads(run("--table-calibration", str(cal), *args).stdout)
    assert {b["square"] for b in read["boards"] if b["face_up"] is False} == down
    read = json.loads(run(*args).stdout)  # without it the layout's purple finds no back
    assert not any(b["face_up"] is False for b in read["boards"])
    cal.write_text("{}")
    r = run("--table-calibration", str(cal), *args)
    assert r.returncode != 0 and len(r.stderr.strip().splitlines()) == 1 and "calibrate table" in r.stderr
