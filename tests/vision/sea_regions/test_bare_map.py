"""The bare map's calibration photo (`vision.sea_regions.bare_map`, `smart-table calibrate sea-map`): print
of a piece colour stops being a candidate; bad calibration input is one sentence."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from smart_table.main import main
from tests.vision.sea_regions.scenes import brown_black_scene, gold_print_scene, spread_scene
from vision.sea_regions.bare_map import BareMapError, learn_bare_map, load_bare_map
from vision.sea_regions.layout import default_layout_path, load_sea_layout
from vision.sea_regions.live import RegionsWatcher
from vision.sea_regions.reader import read_regions_detailed
from vision.synth.sea import score


def test_print_near_a_piece_colour_is_no_piece_once_the_bare_map_is_known() -> None:
    """Islands printed in the yellow player's gold and brick-red borders: without the bare map they make
    blobs of both players' colours everywhere; with it those are print, and the pieces standing clear of
    such print are read. Nothing is ever read wrong with confidence."""
    image, bare, truth, layout = gold_print_scene()
    lay = load_sea_layout(layout)
    blind = read_regions_detailed(image, lay)
    seen = read_regions_detailed(image, lay, bare_map=learn_bare_map(bare, lay))
    before, after = score(blind.to_json(), truth), score(seen.to_json(), truth)
    assert len(seen.unsure) < len(blind.unsure) / 3
    assert after["right"] >= 4 > before["right"]
    assert after["wrong"] == 0 and not after["wrong_yet_ok"]
    # Every region holding a piece not read is left for the players to check.
    for rid, want in truth.items():
        got = seen.regions[rid]
        if len(got["pieces"]) != len(want):
            assert got["complete"] is False


def test_black_pieces_browned_by_a_warm_lamp_are_told_by_their_change_against_the_bare_map() -> None:
    """Black paint under a warm lamp comes out dark brown, tinted past the darkness test: with the bare
    map a pixel far darker than the map there is the black player's (the reader of round 3 read none of
    these 8 pieces, with or without the bare map). Nothing is read wrong with confidence."""
    image, bare, truth, layout = brown_black_scene()
    lay = load_sea_layout(layout)
    blind = score(read_regions_detailed(image, lay).to_json(), truth)
    seen = score(read_regions_detailed(image, lay, bare_map=learn_bare_map(bare, lay)).to_json(), truth)
    assert seen["right"] >= 4 and seen["right"] > blind["right"]
    assert seen["wrong"] == 0 and blind["wrong"] == 0 and not seen["wrong_yet_ok"]


def test_pieces_no_colour_test_finds_leave_their_regions_to_be_checked_by_hand() -> None:
    """Pieces painted a colour no player has (green): no colour test finds them. Without the bare map the
    reading is `ok` with every region empty (wrong yet ok); with it each region holding one is left
    incomplete, with an unsure entry and its crop, and nothing else is."""
    image, bare, truth, layout = brown_black_scene((60.0, 150.0, 70.0))
    lay = load_sea_layout(layout)
    blind = read_regions_detailed(image, lay)
    assert score(blind.to_json(), truth)["wrong_yet_ok"]
    seen = read_regions_detailed(image, lay, bare_map=learn_bare_map(bare, lay))
    held = sorted(rid for rid, want in truth.items() if want)
    assert seen.status == "ambiguous" and sorted({u["region"] for u in seen.unsure}) == held
    assert sorted(rid for rid, r in seen.regions.items() if not r["complete"]) == held
    assert all(u["owner"] is None and "check by hand" in u["reason"] for u in seen.unsure)
    assert len(seen.crops) == len(seen.unsure)


def test_a_calibration_photo_with_pieces_on_it_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Pieces in the calibration photo would become print, unseen in play: refused, in one sentence."""
    image, _, layout = spread_scene()
    with pytest.raises(BareMapError, match="take every piece off the map"):
        learn_bare_map(image, load_sea_layout(layout), check_empty=True)
    img, lay = tmp_path / "pieces.png", tmp_path / "layout.json"
    cv2.imwrite(str(img), image)
    lay.write_text(json.dumps(layout))
    out = tmp_path / "sea-map.png"
    assert main(["calibrate", "sea-map", "--image", str(img), "--layout", str(lay), "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "piece(s)" in err and not out.exists()


def _files(tmp_path: Path) -> tuple[Path, Path, Path, Path]:
    image, bare, _, layout = gold_print_scene()
    img, cal, lay = tmp_path / "play.png", tmp_path / "bare.png", tmp_path / "layout.json"
    cv2.imwrite(str(img), image)
    cv2.imwrite(str(cal), bare)
    lay.write_text(json.dumps(layout))
    return img, cal, lay, tmp_path / "sea-map.png"


def test_calibrate_then_read_with_the_bare_map(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    img, cal, lay, out = _files(tmp_path)
    assert main(["calibrate", "sea-map", "--image", str(cal), "--layout", str(lay), "--out", str(out)]) == 0
    assert "saved to" in capsys.readouterr().err and load_bare_map(out, load_sea_layout(lay)) is not None
    assert main(["vision", "regions", str(img), "--layout", str(lay)]) == 0
    blind = json.loads(capsys.readouterr().out)
    assert main(["vision", "regions", str(img), "--layout", str(lay), "--bare-map", str(out)]) == 0
    seen = json.loads(capsys.readouterr().out)
    assert len(seen["unsure"]) < len(blind["unsure"])
    # Default place: beside the table's config.
    config = tmp_path / "table" / "smart-table.toml"
    config.parent.mkdir()
    config.write_text("")
    assert (
        main(["calibrate", "sea-map", "--image", str(cal), "--layout", str(lay), "--config", str(config)])
        == 0
    )
    assert (config.parent / "sea-map-2.png").is_file()


def test_bad_calibration_input_is_one_sentence(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    img, cal, lay, out = _files(tmp_path)
    blank = tmp_path / "blank.png"
    cv2.imwrite(str(blank), np.full((720, 1280, 3), 128, np.uint8))
    assert main(["calibrate", "sea-map", "--image", str(blank), "--layout", str(lay), "--out", str(out)]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no map in the calibration photo" in err and not out.exists()
    bad_out = tmp_path / "sea-map.jpg"
    assert (
        main(["calibrate", "sea-map", "--image", str(cal), "--layout", str(lay), "--out", str(bad_out)]) == 1
    )
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "PNG" in err
    # A bare map of another layout (the 4-player side) given to the 2-player map: refused, what to do said.
    four = tmp_path / "four.png"
    cv2.imwrite(str(four), np.zeros((40, 50, 3), np.uint8))
    for cmd in (["vision", "regions", str(img)], ["vision", "regions-watch", "--images", str(tmp_path)]):
        assert main([*cmd, "--layout", str(lay), "--bare-map", str(four)]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "calibrate the bare map again" in err
    assert (
        main(["vision", "regions", str(img), "--layout", str(lay), "--bare-map", str(tmp_path / "no.png")])
        == 2
    )
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "calibrate sea-map" in err
    with pytest.raises(BareMapError, match="another layout"):
        load_bare_map(four, load_sea_layout(default_layout_path("4")))


def test_the_watcher_reads_with_the_bare_map() -> None:
    image, bare, truth, layout = gold_print_scene()
    lay = load_sea_layout(layout)
    watcher = RegionsWatcher(lay, still_frames=1, confirm=1, bare_map=learn_bare_map(bare, lay))
    events = [watcher.process(image) for _ in range(3)]
    published = [e.message for e in events if e.message is not None]
    assert len(published) == 1
    assert score(published[0]["reading"], truth)["right"] >= 4
