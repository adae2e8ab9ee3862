"""Reading The Great Sea's map: Ships (by player colour, laid down when Damaged) and Forts per region,
"ambiguous" with a crop when unsure, never a confident wrong answer."""

from __future__ import annotations

import numpy as np
import pytest

from tests.vision.sea_regions.scenes import brown_black_scene, spread_scene, touching_scene
from vision.sea_regions.layout import load_sea_layout
from vision.sea_regions.reader import read_regions, read_regions_detailed
from vision.synth.sea import score, tuning_scene


def test_every_kind_of_piece_alone_in_its_region_is_read_exactly() -> None:
    # "Ships can be Damaged during Combat, causing them to be laid down on their sides."
    image, truth, layout = spread_scene()
    reading = read_regions(image, layout)
    assert reading["status"] == "ok" and reading["unsure"] == []
    got = {
        rid: sorted([p["owner"], p["kind"], p["damaged"]] for p in reg["pieces"])
        for rid, reg in reading["regions"].items()
    }
    assert got == truth
    assert all(reg["complete"] for reg in reading["regions"].values())
    assert reading["format"] == "smart-table/sea-regions-reading@1" and reading["map"] == "2"


def test_touching_pieces_are_unsure_with_a_crop_not_guessed() -> None:
    image, layout = touching_scene()
    reading = read_regions_detailed(image, layout)
    assert reading.status == "ambiguous"
    (entry,) = reading.unsure
    assert entry["region"] == "r1c1" and entry["owner"] == "red"
    assert reading.regions["r1c1"] == {"pieces": [], "complete": False}
    crop = reading.crops[0]
    x0, y0, x1, y1 = entry["crop_px"]
    assert crop.shape[:2] == (y1 - y0, x1 - x0) and crop.size > 0


@pytest.mark.parametrize("seed", [0, 1])
def test_tuning_scenes_have_no_confident_wrong_piece(seed: int) -> None:
    image, truth, layout = tuning_scene(seed)
    result = score(read_regions(image, load_sea_layout(layout)), truth)
    assert result["wrong"] == 0
    assert result["right"] + result["unsure"] >= result["pieces"] - 2  # a merged blob hides 2 or more


def test_no_markers_is_no_table_with_a_reason() -> None:
    _, _, layout = spread_scene()
    reading = read_regions_detailed(np.full((720, 1280, 3), 128, np.uint8), layout)
    assert reading.status == "no-table" and "frame markers" in (reading.reason or "")
    assert not any(r["complete"] for r in reading.regions.values())


def test_a_grey_photo_is_read_and_a_bad_array_refused() -> None:
    image, _, layout = spread_scene()
    grey = read_regions_detailed(image[..., 1].copy(), layout)
    assert grey.status in ("ok", "ambiguous")  # no colours: pieces are not confidently anyone's
    assert all(p["owner"] != "red" for r in grey.regions.values() for p in r["pieces"])
    with pytest.raises(ValueError, match="8-bit"):
        read_regions_detailed(np.zeros((10, 10), np.float32), layout)


def test_a_paint_more_saturated_than_declared_keeps_its_player_another_hue_does_not() -> None:
    """A red piece's shaded face came out as (15, 15, 108) BGR: its own hue, more saturated than the
    declared paint, 0.15 from it in chromaticity as the look-up table quantises it (the tolerance is 0.1);
    it is red's. Pixels 0.14 from red toward orange and 0.16 toward grey are nobody's."""
    from vision.sea_regions.classification import label_pixels

    lay = load_sea_layout(tuning_scene(0)[2])
    red = list(lay.players).index("red") + 1
    px = np.array([[[15, 15, 108], [5, 45, 110], [70, 62, 150], [46, 38, 179]]], np.uint8)
    assert label_pixels(px, lay).tolist() == [[red, 0, 0, red]]


def test_black_paint_tinted_purple_is_black_not_a_purple_piece() -> None:
    """Black pieces whose paint the lamp tints purple ((60, 30, 50) BGR) pass the purple player's colour
    test, but no purple piece looks that dark: they are read as the black player's (the reader of round 3
    read all 8 as purple pieces, status `ok`: wrong yet ok)."""
    image, _, truth, layout = brown_black_scene((60.0, 30.0, 50.0))
    got = score(read_regions(image, layout), truth)
    assert got["wrong"] == 0 and not got["wrong_yet_ok"] and got["right"] >= 6


def test_a_pieces_faces_part_its_blob_where_its_height_puts_them_whichever_is_brighter() -> None:
    """A Stronghold (16 x 16, 20 tall) seen off the point under the camera: its top face is shifted 8 mm
    by parallax and the side below it fills the rest of a 24 x 16 mm blob, about the outline of a Damaged
    Small Ship (22 x 16, 8 tall, 3 mm shift). The Stronghold's faces part the blob's colours cleanly; the
    ship's do not; with the side as bright as the top (a lamp from that side) neither does."""
    from vision.sea_regions.classification import Fit, Hypothesis, _blob, faces_split

    ppm = 1.5
    top = np.full((60, 60, 3), 90, np.uint8)
    mask = np.zeros((60, 60), np.uint8)
    mask[18:42, 12:48] = 1  # 36 x 24 px: 24 x 16 mm, from x = 8 mm to 32 mm
    top[18:42, 12:24] = (40, 40, 120)  # the side: the first 8 mm
    top[18:42, 24:48] = (80, 80, 220)  # the top face: the last 16 mm
    origin = np.array([0.0, 0.0])
    blob = _blob("red", 1, mask[18:42, 12:48].copy(), 12, 18, top, False, ppm, origin)
    stronghold = Fit(Hypothesis("stronghold", False, 16, 16, 20), 1.0, (16.0, 20.0), 0.0, (8.0, 0.0), 1.0)
    ship = Fit(Hypothesis("small", True, 22, 16, 8), 1.0, (19.0, 20.0), 0.0, (3.0, 0.0), 1.0)
    assert faces_split(blob, top, stronghold, ppm, (0.0, 0.0)) < 0.1
    assert faces_split(blob, top, ship, ppm, (0.0, 0.0)) > 0.5
    flat = top.copy()
    flat[18:42, 12:48] = (80, 80, 220)
    assert faces_split(blob, flat, stronghold, ppm, (0.0, 0.0)) == 1.0
