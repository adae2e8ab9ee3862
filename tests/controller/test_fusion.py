"""Fusion of camera and zone sensors, and move proposals (pure logic, no rules import)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from controller.fusion import (
    Occupancy,
    fuse_positions,
    neighbours,
    propose_move,
    propose_moves,
    shortest_paths,
)

SHIPS = ["red", "blue"]


def reading(**squares: str | None) -> dict:
    return {
        "status": "ok",
        "boards": [],
        "ships": [{"ship": s, "square": sq, "confidence": 0.97 if sq else 0.0} for s, sq in squares.items()],
    }


def zone_state(*occupied: str, harbor: list[bool] | None = None) -> dict:
    squares = {f"r{r}c{c}": False for r in range(1, 5) for c in range(1, 4)}
    squares.update({sq: True for sq in occupied})
    return {"type": "zone_state", "squares": squares, "harbor": harbor}


def test_agreeing_sources_are_confident() -> None:
    f = fuse_positions(SHIPS, reading(red="r1c2", blue="r3c3"), zone_state("r1c2", "r3c3"))
    assert f.confident
    assert f.positions() == {"red": "r1c2", "blue": "r3c3"}
    assert {x.source for x in f.fixes.values()} == {"both"}


def test_disagreement_asks_with_both_suggestions() -> None:
    f = fuse_positions(SHIPS, reading(red="r1c2", blue="r3c3"), zone_state("r1c1", "r3c3"))
    assert not f.confident
    assert f.positions()["red"] is None and f.positions()["blue"] == "r3c3"
    (q,) = f.questions
    assert q.kind == "disagree" and q.ship == "red"
    assert q.options[:2] == ("r1c2", "r1c1")  # the camera's answer, then the sensor's


def test_camera_missing_a_ship_asks_even_when_sensors_suggest() -> None:
    f = fuse_positions(SHIPS, reading(red=None, blue="r3c3"), zone_state("r2c2", "r3c3"), {"red": "r2c1"})
    assert f.fixes["red"].square == "r2c2" and not f.fixes["red"].confident
    assert [q.kind for q in f.questions] == ["camera-missing"]
    assert f.questions[0].options[0] == "r2c2"


def test_sensor_magnet_without_a_seen_ship_is_a_question() -> None:
    f = fuse_positions(SHIPS, reading(red="r1c2", blue="r3c3"), zone_state("r1c2", "r3c3", "r4c1"))
    assert [q.kind for q in f.questions] == ["unknown-object"]
    assert f.questions[0].square == "r4c1"


def test_camera_off_sensors_alone_track_a_single_move() -> None:
    prev = {"red": "r1c2", "blue": "r3c3"}
    f = fuse_positions(SHIPS, None, zone_state("r2c2", "r3c3"), prev)
    assert f.confident
    assert f.positions() == {"red": "r2c2", "blue": "r3c3"}
    assert f.fixes["red"].source == "sensors"


def test_camera_off_two_ships_moved_asks() -> None:
    prev = {"red": "r1c2", "blue": "r3c3"}
    f = fuse_positions(SHIPS, None, zone_state("r2c2", "r4c3"), prev)
    assert not f.confident
    assert sorted((q.ship for q in f.questions), key=str) == ["blue", "red"]


def test_camera_off_ship_leaving_the_harbor_is_identified_by_slot_count() -> None:
    prev = {"red": "harbor", "blue": "harbor"}
    f = fuse_positions(SHIPS, None, zone_state("r1c3", harbor=[True, False, False, False]), prev)
    assert [q.kind for q in f.questions] == ["which-ship"]
    assert set(f.questions[0].options) == {"red", "blue"}


def test_sensors_unplugged_camera_alone_works() -> None:
    f = fuse_positions(SHIPS, reading(red="harbor", blue="r2c1"), None)
    assert f.confident and f.positions() == {"red": "harbor", "blue": "r2c1"}
    assert {x.source for x in f.fixes.values()} == {"camera"}
    f2 = fuse_positions(SHIPS, reading(red=None, blue="r2c1"), None, {"red": "r1c1"})
    assert [q.kind for q in f2.questions] == ["camera-missing"]


def test_no_table_reading_counts_as_camera_missing() -> None:
    cam = {
        "status": "no-table",
        "boards": [],
        "ships": [{"ship": s, "square": None, "confidence": 0.0} for s in SHIPS],
    }
    f = fuse_positions(SHIPS, cam, zone_state("r1c1", "r2c2"), {"red": "r1c1", "blue": "r2c2"})
    assert not f.confident and len(f.questions) == 2


def test_unsensed_harbor_trusts_the_camera() -> None:
    f = fuse_positions(SHIPS, reading(red="harbor", blue="r1c1"), zone_state("r1c1", harbor=None))
    assert f.confident


def test_occupancy_from_bridge_message() -> None:
    occ = Occupancy.from_zone_state(zone_state("r2c3", harbor=[True, True, False, False]))
    assert occ.occupied("r2c3") and not occ.occupied("r1c1") and occ.harbor == 2


def test_grid_neighbours() -> None:
    assert neighbours("harbor") == ["r1c1", "r1c2", "r1c3"]
    assert set(neighbours("r1c1")) == {"harbor", "r2c1", "r1c2"}
    assert set(neighbours("r4c3")) == {"r3c3", "r4c2"}
    with pytest.raises(ValueError):
        neighbours("r5c1")


def test_straight_move_is_one_path() -> None:
    p = propose_move("red", "harbor", "r3c2")
    assert p is not None and not p.ask
    assert p.path == ("harbor", "r1c2", "r2c2", "r3c2") and p.distance == 3
    assert propose_move("red", "r2c2", "r2c2") is None


def test_diagonal_move_without_hazard_is_proposed_without_asking() -> None:
    assert len(shortest_paths("r1c1", "r2c2")) == 2
    p = propose_move("red", "r1c1", "r2c2", hazards={"r4c3"})
    assert p is not None and not p.ask and p.distance == 2


def test_paths_differing_in_a_garrison_ask_which_way() -> None:
    p = propose_move("red", "r1c1", "r2c2", hazards={"r1c2"})
    assert p is not None and p.ask and p.path is None and p.question is not None
    assert set(p.question.options) == {("r1c1", "r1c2", "r2c2"), ("r1c1", "r2c1", "r2c2")}
    assert p.question.kind == "which-way"


def test_hazard_on_every_path_needs_no_question() -> None:
    p = propose_move("red", "r1c1", "r3c1", hazards={"r2c1"})
    assert p is not None and not p.ask and p.crossed == ("r2c1",)


def test_harbor_to_row_two_via_any_row_one_square() -> None:
    paths = shortest_paths("harbor", "r2c2")
    assert paths == [("harbor", "r1c2", "r2c2")]
    p = propose_move("blue", "harbor", "r2c1", hazards={"r1c1"})
    assert p is not None and not p.ask and p.crossed == ("r1c1",)


def test_moves_from_consecutive_positions_with_per_ship_hazards() -> None:
    props = propose_moves(
        {"red": "r1c1", "blue": "r3c3"}, {"red": "r2c2", "blue": "r3c3"}, {"red": {"r2c1"}, "blue": set()}
    )
    assert len(props) == 1 and props[0].ship == "red" and props[0].ask


def test_fusion_does_not_import_rules() -> None:
    tree = ast.parse(Path("controller/fusion.py").read_text())
    names = [a.name for n in ast.walk(tree) if isinstance(n, ast.Import) for a in n.names]
    names += [n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
    assert not [n for n in names if n.split(".")[0] in {"rules", "vision", "firmware_bridge"}]


def test_proposal_becomes_the_engines_move_action() -> None:
    p = propose_move("red", "harbor", "r2c1")
    assert p is not None and p.action() == {"type": "move", "path": ["r1c1", "r2c1"]}
    q = propose_move("red", "r1c1", "r2c2", hazards={"r1c2"})
    assert q is not None
    with pytest.raises(ValueError):
        q.action()
    assert q.action(("r1c1", "r2c1", "r2c2")) == {"type": "move", "path": ["r2c1", "r2c2"]}
    with pytest.raises(ValueError):
        q.action(("r1c1", "r1c2", "r1c3"))
