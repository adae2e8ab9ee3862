"""Layout files: the shipped default is valid, and every error names the field to fix."""

from __future__ import annotations

import copy
import json

import pytest

from vision.battle_board.layout import DEFAULT_LAYOUT_PATH, ZONE_KINDS, LayoutError, load_board_layout


@pytest.fixture()
def raw() -> dict:
    return json.loads(DEFAULT_LAYOUT_PATH.read_text())


def test_default_layout_has_every_zone_kind_and_swatch(raw: dict) -> None:
    layout = load_board_layout(raw)
    assert {z.kind for z in layout.zones} == set(ZONE_KINDS)
    assert layout.aruco_dictionary == "DICT_4X4_50"
    assert {s.color for s in layout.swatches} >= {"red", "blue", "green", "yellow", "black"}
    assert all(layout.zone(a) and layout.zone(b) for a, b in layout.adjacent)


@pytest.mark.parametrize(
    ("edit", "field"),
    [
        (lambda d: d.update(schema="other"), "schema"),
        (lambda d: d["zones"][2].update(kind="treasure"), "zones[2].kind"),
        (lambda d: d["zones"][1].update(polygon_mm=[[0, 0], [1, 1]]), "zones[1].polygon_mm"),
        (lambda d: d["zones"][3]["polygon_mm"].__setitem__(0, [999, 0]), "zones[3].polygon_mm[0]"),
        (lambda d: d["zones"][4].update(id=d["zones"][0]["id"]), "zones[4].id"),
        (lambda d: d["zones"][5].update(polygon_mm=copy.deepcopy(d["zones"][6]["polygon_mm"])), "zones"),
        (lambda d: d["adjacent"].append(["dmg-1", "nowhere"]), "adjacent["),
        (lambda d: d.update(aruco_dictionary="DICT_9X9_1"), "aruco_dictionary"),
        (lambda d: d["markers"][1].update(id=d["markers"][0]["id"]), "markers[1].id"),
        (lambda d: d["markers"][0].update(corners_mm=[[0, 0], [1, 0], [1, 1]]), "markers[0].corners_mm"),
        (lambda d: d["swatches"][0].update(center_mm="here"), "swatches[0].center_mm"),
        (lambda d: d.update(size_mm=[100, -1]), "size_mm[1]"),
    ],
)
def test_errors_name_the_field(raw: dict, edit, field: str) -> None:
    edit(raw)
    with pytest.raises(LayoutError) as exc:
        load_board_layout(raw)
    assert f"'{field}" in str(exc.value), str(exc.value)


def test_plunder_and_strength_need_their_numbers(raw: dict) -> None:
    plunder = next(z for z in raw["zones"] if z["kind"] == "plunder")
    plunder["cargo"], plunder["coins"] = 0, 0
    with pytest.raises(LayoutError, match="plunder zone needs"):
        load_board_layout(raw)


def test_unreadable_and_non_json_files(tmp_path) -> None:
    with pytest.raises(LayoutError, match="cannot read layout file"):
        load_board_layout(tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    with pytest.raises(LayoutError, match="not valid JSON.*line 1"):
        load_board_layout(bad)


def test_extra_keys_are_kept(raw: dict) -> None:
    raw["zones"][0]["art"] = "skull"
    raw["printed_by"] = "me"
    layout = load_board_layout(raw)
    assert layout.zones[0].extra["art"] == "skull"
    assert layout.to_json()["printed_by"] == "me"


def test_zones_may_share_an_edge_but_not_area(raw: dict) -> None:
    """docs/vision.md: zones "may share edges but not overlap"; a shared edge once read as an overlap."""
    shared = copy.deepcopy(raw)
    shared["zones"][5]["polygon_mm"] = [[87, 81], [149, 81], [149, 127], [87, 127]]  # str-1a meets str-2a
    load_board_layout(shared)
    overlapping = copy.deepcopy(raw)
    overlapping["zones"][5]["polygon_mm"] = [[87, 81], [153, 81], [153, 127], [87, 127]]  # 4 mm into it
    with pytest.raises(LayoutError, match="overlap"):
        load_board_layout(overlapping)
