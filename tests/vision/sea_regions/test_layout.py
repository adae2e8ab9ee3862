"""The Great Sea's table layout: `smart-table/table-layout@1` with `"game": "great-sea"`, regions as
polygons whose ids are the engine's, errors in one sentence naming the field."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from contracts.sea_regions import PIECE_KINDS, TABLE_LAYOUT_FORMAT
from rules.great_sea.map import spec
from vision.sea_regions.layout import LayoutError, default_layout_path, load_sea_layout, locate


@pytest.mark.parametrize("side", ["2", "3", "4"])
def test_shipped_layouts_use_the_engines_region_ids(side: str) -> None:
    raw = json.loads(default_layout_path(side).read_text())
    assert raw["schema"] == TABLE_LAYOUT_FORMAT  # the format keeps its name; the game extends it
    layout = load_sea_layout(default_layout_path(side))
    assert [r.id for r in layout.regions] == list(spec(side)["regions"])
    assert set(layout.pieces) == set(PIECE_KINDS)
    # Regions tile the map: each region's centre lies in that region and nowhere else.
    for r in layout.regions:
        cx, cy = r.polygon_mm.mean(axis=0)
        assert locate(layout, float(cx), float(cy))[0] == r.id


def _raw() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(default_layout_path("2").read_text())
    return copy.deepcopy(data)


def _error(data: dict[str, Any]) -> str:
    with pytest.raises(LayoutError) as info:
        load_sea_layout(data)
    message = str(info.value)
    assert "\n" not in message
    return message


def test_a_dead_reckoning_layout_is_sent_to_its_own_reader() -> None:
    data = _raw()
    del data["game"]
    assert "'game' must be \"great-sea\"" in _error(data) and "vision ships" in _error(data)


def test_region_ids_must_be_the_engines() -> None:
    data = _raw()
    data["regions"][3]["id"] = "r9c9"
    assert "'regions[3].id' must be a region of the 2-player map" in _error(data)
    data = _raw()
    del data["regions"][0]
    assert "misses region r0c0" in _error(data)
    data = _raw()
    data["regions"][1]["id"] = data["regions"][0]["id"]
    assert "repeats region r0c0" in _error(data)


def test_bad_fields_name_themselves() -> None:
    data = _raw()
    data["map"] = 5
    assert "'map' must be the Main Board side" in _error(data)
    data = _raw()
    data["players"]["red"] = "red"
    assert "'players.red' must be a colour \"#rrggbb\"" in _error(data)
    data = _raw()
    data["pieces"]["small"]["size_mm"] = [8, 22, 16]
    assert "'pieces.small.size_mm' must give the length first" in _error(data)
    data = _raw()
    data["pieces"]["galleon"] = {"size_mm": [1, 1, 1]}
    assert "'pieces.galleon' is not a piece of The Great Sea" in _error(data)
    data = _raw()
    p = data["regions"][0]["polygon_mm"]
    p[0], p[2] = p[2], p[0]
    data["regions"][0]["polygon_mm"] = [p[0], p[4], p[2], p[6]]
    assert "'regions[0].polygon_mm' crosses itself" in _error(data)
    data = _raw()
    data["markers"] = data["markers"][:2]
    assert "'markers' must list at least 3 frame markers" in _error(data)


def test_a_missing_or_broken_file_is_one_sentence(tmp_path: Path) -> None:
    with pytest.raises(LayoutError, match="does not exist"):
        load_sea_layout(tmp_path / "none.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    with pytest.raises(LayoutError, match="is not valid JSON"):
        load_sea_layout(bad)
