"""`bench/vision_ab.py` (the speed rounds' check that two readers read alike) refuses bad input with one
sentence, before rendering or reading anything."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]


def _bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("vision_ab_under_test", ROOT / "bench" / "vision_ab.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_design_seeds_that_are_not_numbers_are_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exc:
        _bench().main(["--before", str(ROOT), "--design-seeds", "8011,eighty"])
    assert exc.value.code == 2
    assert (
        "--design-seeds takes whole numbers separated by commas, not '8011,eighty'" in capsys.readouterr().err
    )


def test_a_before_tree_without_the_reader_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _bench().main(["--before", str(tmp_path), "--cache", str(tmp_path / "cache")]) == 2
    assert "holds no vision/battle_board/reader.py" in capsys.readouterr().out
    assert not (tmp_path / "cache").exists()  # nothing rendered


def test_a_cached_design_of_another_scene_seed_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    d = tmp_path / "d8011"
    d.mkdir()
    (d / "done").write_text("1")
    (d / "scene_seed").write_text("8611")  # rendered with --scene-offset 600
    args = [
        "--before",
        str(ROOT),
        "--cache",
        str(tmp_path),
        "--design-seeds",
        "8011",
        "--scene-offset",
        "500",
    ]
    assert _bench().main(args) == 2
    out = capsys.readouterr().out
    assert "holds design 8011 with scene seed 8611, not 8511" in out
    assert sorted(p.name for p in tmp_path.iterdir()) == ["d8011"]  # nothing rendered


def test_a_cycles_folder_without_layouts_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    empty = tmp_path / "not-cycles"
    empty.mkdir()
    args = ["--before", str(ROOT), "--cache", str(tmp_path / "cache"), "--cycles", str(empty)]
    assert _bench().main(args) == 2
    assert (
        f"{empty} holds no layout-N.json: give a bench/vision_cycles.py cache folder"
        in capsys.readouterr().out
    )
    assert not (tmp_path / "cache").exists()  # nothing rendered
