"""The files several commands read (smart_table/files.py), each refused with one sentence: an image, a camera
calibration, a JSON document, a live watch's frame source; through the commands that share them."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from smart_table.main import main

LAYOUT_GS = Path(__file__).resolve().parents[2] / "vision" / "data" / "great-sea-2.json"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str]:
    code = main(list(argv))
    return code, capsys.readouterr().err


@pytest.mark.parametrize("command", [["vision", "ships"], ["vision", "regions", "--layout", str(LAYOUT_GS)]])
def test_an_image_that_is_missing_or_not_an_image_is_one_sentence(capsys, tmp_path, command) -> None:
    code, err = run(capsys, *command, str(tmp_path / "none.png"))
    assert (
        code == 2
        and err == f"smart-table: image {tmp_path / 'none.png'} does not exist: give a PNG or JPEG file\n"
    )
    junk = tmp_path / "junk.png"
    junk.write_text("not a picture")
    code, err = run(capsys, *command, str(junk))
    assert code == 2 and "is not an image OpenCV can decode: give a PNG or JPEG file" in err, err


@pytest.mark.parametrize("command", [["vision", "ships"], ["vision", "regions", "--layout", str(LAYOUT_GS)]])
def test_a_calibration_that_is_not_one_is_one_sentence(capsys, tmp_path, command) -> None:
    image = tmp_path / "frame.png"
    cv2.imwrite(str(image), np.zeros((32, 32, 3), np.uint8))
    bad = tmp_path / "camera.json"
    bad.write_text("{")
    code, err = run(capsys, *command, str(image), "--calibration", str(bad))
    assert code == 2 and err.startswith(f"smart-table: cannot read camera file '{bad}'"), err
    assert err.rstrip().endswith("make one with 'smart-table calibrate camera'") and err.count("\n") == 1, err


@pytest.mark.parametrize(
    "command",
    [["vision", "ships-watch"], ["vision", "regions-watch", "--layout", str(LAYOUT_GS)]],
)
@pytest.mark.parametrize("counts", [["--settle-frames", "0"], ["--confirm", "0"]])
def test_a_watch_counts_its_frames_from_one(capsys, tmp_path, command, counts) -> None:
    code, err = run(capsys, *command, "--images", str(tmp_path), *counts)
    assert (code, err) == (2, "smart-table: --settle-frames and --confirm must be at least 1\n")


@pytest.mark.parametrize(
    "command", [["campaign", "import"], ["venue", "campaign", "push", "--table", "t1", "--file"]]
)
def test_a_json_file_missing_or_not_json_is_one_sentence(capsys, tmp_path, command) -> None:
    code, err = run(capsys, *command, str(tmp_path / "none.json"))
    assert code == 2 and "none.json cannot be read (No such file or directory); check the path." in err, err
    bad = tmp_path / "bad.json"
    bad.write_text("{\n  nope")
    code, err = run(capsys, *command, str(bad))
    assert code == 2 and f"{bad} is not JSON (line 2: " in err, err
