"""The CLI as a user runs it (subprocesses): calibrate colors -> vision read, and clean failures."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import cv2
import pytest

REPO = Path(__file__).resolve().parents[2]
LAYOUT = REPO / "vision" / "data" / "battle-board.json"


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "smart_table", *args], cwd=REPO, capture_output=True, text=True, timeout=120
    )


def one_clean_line(proc: subprocess.CompletedProcess) -> str:
    assert proc.returncode != 0
    assert "Traceback" not in proc.stderr
    assert proc.stderr.count("\n") == 1, proc.stderr
    return proc.stderr


@pytest.fixture(scope="module")
def files(session, tmp_path_factory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("cli")
    cv2.imwrite(str(d / "calib.png"), session.calibration_image)
    img, truth = session.render(
        [
            {"color": "red", "zone": "dmg-2"},
            {"color": "red", "zone": "dmg-2"},
            {"color": "yellow", "zone": "explode"},
        ],
        seed=31,
    )
    cv2.imwrite(str(d / "scene.png"), img)
    rail, _ = session.render([{"color": "black", "zone": None}], seed=32)
    cv2.imwrite(str(d / "rail.png"), rail)
    (d / "truth.json").write_text(json.dumps(truth["counts"]))
    return {
        "dir": d,
        "calib": d / "calib.png",
        "scene": d / "scene.png",
        "rail": d / "rail.png",
        "truth": d / "truth.json",
    }


def test_calibrate_colors_then_read(files) -> None:
    pal = files["dir"] / "palette.json"
    proc = run(
        "calibrate", "colors", "--layout", str(LAYOUT), "--image", str(files["calib"]), "--out", str(pal)
    )
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(proc.stdout)
    assert set(summary["colors"]) == {"red", "blue", "green", "yellow", "black"}
    assert json.loads(pal.read_text())["schema"] == "smart-table/palette@1"
    proc = run(
        "vision",
        "read",
        "--layout",
        str(LAYOUT),
        "--palette",
        str(pal),
        str(files["scene"]),
        str(files["rail"]),
    )
    assert proc.returncode == 0, proc.stderr
    first, second = (json.loads(line) for line in proc.stdout.splitlines())
    assert first["counts"] == json.loads(files["truth"].read_text()) and first["status"] == "ok"
    assert second["status"] == "redrop" and second["redrop"] == [0]


def test_read_writes_one_file_per_image(files) -> None:
    pal = files["dir"] / "palette.json"
    if not pal.exists():
        run("calibrate", "colors", "--layout", str(LAYOUT), "--image", str(files["calib"]), "--out", str(pal))
    out = files["dir"] / "out"
    proc = run(
        "vision",
        "read",
        "--layout",
        str(LAYOUT),
        "--palette",
        str(pal),
        "--out",
        str(out),
        str(files["scene"]),
        str(files["rail"]),
    )
    assert proc.returncode == 0, proc.stderr
    assert sorted(p.name for p in out.iterdir()) == ["rail.json", "scene.json"]
    assert json.loads((out / "rail.json").read_text())["status"] == "redrop"


def test_unreadable_image_is_one_line_and_the_others_are_still_read(files, tmp_path: Path) -> None:
    pal = files["dir"] / "palette.json"
    if not pal.exists():
        run("calibrate", "colors", "--layout", str(LAYOUT), "--image", str(files["calib"]), "--out", str(pal))
    bad = tmp_path / "broken.png"
    bad.write_bytes(b"not a png")
    proc = run(
        "vision", "read", "--layout", str(LAYOUT), "--palette", str(pal), str(bad), str(files["scene"])
    )
    line = one_clean_line(proc)
    assert "broken.png" in line and "cannot read image" in line
    assert len(proc.stdout.splitlines()) == 1  # the good image was still read


def test_bad_layout_is_one_line_naming_the_field(files, tmp_path: Path) -> None:
    layout = json.loads(LAYOUT.read_text())
    layout["zones"][0]["kind"] = "volcano"
    bad = tmp_path / "layout.json"
    bad.write_text(json.dumps(layout))
    proc = run(
        "vision", "read", "--layout", str(bad), "--palette", str(tmp_path / "p.json"), str(files["scene"])
    )
    assert "zones[0].kind" in one_clean_line(proc)


def test_bad_palette_and_calibration_without_cubes(files, tmp_path: Path, session) -> None:
    bad = tmp_path / "p.json"
    bad.write_text("[1, 2")
    proc = run("vision", "read", "--layout", str(LAYOUT), "--palette", str(bad), str(files["scene"]))
    assert "palette" in one_clean_line(proc)
    empty, _ = session.render([], seed=33)
    cv2.imwrite(str(tmp_path / "empty.png"), empty)
    proc = run(
        "calibrate",
        "colors",
        "--layout",
        str(LAYOUT),
        "--image",
        str(tmp_path / "empty.png"),
        "--out",
        str(tmp_path / "x.json"),
    )
    assert "looks empty" in one_clean_line(proc)
    assert not (tmp_path / "x.json").exists()


def test_calibrate_board_reports_error_in_mm(files) -> None:
    proc = run("calibrate", "board", "--layout", str(LAYOUT), "--image", str(files["scene"]))
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert report["markers_missing"] == [] and report["homography_rms_mm"] < 1.0
    assert 200 < report["camera_height_mm"] < 2000
