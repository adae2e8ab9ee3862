"""`smart-table vision regions IMAGE --layout FILE`: the reading as JSON, crops of unsure pieces, one
line on stderr for bad input."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from smart_table.main import main
from tests.vision.sea_regions.scenes import spread_scene, touching_scene
from vision.sea_regions.layout import default_layout_path

DR_TABLE = Path(__file__).resolve().parents[3] / "vision" / "data" / "table.json"


def _files(tmp_path: Path, touching: bool = False) -> tuple[Path, Path]:
    if touching:
        image, layout = touching_scene()
    else:
        image, _, layout = spread_scene()
    img, lay = tmp_path / "map.png", tmp_path / "layout.json"
    cv2.imwrite(str(img), image)
    lay.write_text(json.dumps(layout))
    return img, lay


def test_prints_the_reading(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    img, lay = _files(tmp_path)
    assert main(["vision", "regions", str(img), "--layout", str(lay)]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["status"] == "ok" and out["regions"]["r0c1"]["pieces"][0]["kind"] == "large"


def test_writes_a_crop_per_unsure_piece(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    img, lay = _files(tmp_path, touching=True)
    assert main(["vision", "regions", str(img), "--layout", str(lay), "--crops", str(tmp_path / "c")]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["status"] == "ambiguous"
    crop = Path(out["unsure"][0]["crop"])
    assert crop.exists() and cv2.imread(str(crop)) is not None


def test_bad_input_is_one_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    img, _ = _files(tmp_path)
    assert main(["vision", "regions", str(img), "--layout", str(DR_TABLE)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "'game' must be \"great-sea\"" in err
    assert (
        main(["vision", "regions", str(tmp_path / "none.png"), "--layout", str(default_layout_path("2"))])
        == 2
    )
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "does not exist" in err
    blank = tmp_path / "blank.png"
    cv2.imwrite(str(blank), np.full((720, 1280, 3), 128, np.uint8))
    assert main(["vision", "regions", str(blank), "--layout", str(default_layout_path("2"))]) == 1
    captured = capsys.readouterr()
    assert json.loads(captured.out)["status"] == "no-table" and "frame markers" in captured.err
