"""The Great Sea's camera reading turned into the engine's positions and proposals
(controller/sea_regions.py), checked against the real rules engine."""

from __future__ import annotations

import copy
from typing import Any

from controller.sea_regions import positions, translate
from rules import api
from tests.rules.great_sea.helpers import clear_map, open_card, ship, started


def _reading(view: dict[str, Any]) -> dict[str, Any]:
    """What a perfect camera would report for the engine's current map."""
    regions = {}
    for rid, reg in view["regions"].items():
        pieces = [
            {
                "owner": s["owner"],
                "kind": s["cls"],
                "damaged": s["damaged"],
                "confidence": 0.95,
                "at_mm": [0, 0],
            }
            for s in reg["ships"]
        ]
        pieces += [
            {"owner": o, "kind": c, "damaged": False, "confidence": 0.95, "at_mm": [0, 0]}
            for o, c in reg["forts"]
        ]
        regions[rid] = {"pieces": pieces, "complete": True}
    return {"status": "ok", "map": view["map"], "regions": regions, "unsure": []}


def _move(reading: dict[str, Any], owner: str, cls: str, src: str, dst: str) -> dict[str, Any]:
    out = copy.deepcopy(reading)
    pieces = out["regions"][src]["pieces"]
    piece = next(p for p in pieces if p["owner"] == owner and p["kind"] == cls)
    pieces.remove(piece)
    out["regions"][dst]["pieces"].append(piece)
    return out


def test_an_unchanged_map_proposes_nothing_and_positions_have_the_engines_shape() -> None:
    s = started(2)
    view = api.public_view(s)
    t = translate(_reading(view), view)
    assert t.changes == [] and t.proposals == [] and t.questions == [] and t.unread == []
    for rid, reg in view["regions"].items():
        assert positions(_reading(view))[rid]["forts"] == sorted(reg["forts"])
        assert len(t.positions[rid]["ships"]) == len(reg["ships"])


def test_a_ship_moved_on_the_table_becomes_a_move_the_engine_accepts() -> None:
    # "Move any number of Ships into that region from any number of regions"
    s = started(2)
    me = s.data["turn_player"]
    clear_map(s)
    ship(s, me, "small", "r1c1")
    s.data["p"][me]["dice"] = [3, 3, 3, 3, 3, 3]
    s = open_card(s, 6)
    view = api.public_view(s)
    seen = _move(_reading(view), me, "small", "r1c1", "r1c2")
    t = translate(seen, view)
    (proposal,) = t.proposals
    assert proposal.player == me
    assert proposal.action == {"type": "move", "region": "r1c2", "moves": [["r1c1", "r1c2", "small"]]}
    s2, events = api.apply(s, {"seq": s.seq, "player": me, "action": proposal.action})
    assert any(e["type"] == "ships_moved" for e in events)
    assert translate(_reading(api.public_view(s2)), api.public_view(s2)).proposals == []


def test_two_equally_short_pairings_are_asked_not_guessed() -> None:
    s = started(2)
    me = s.data["turn_player"]
    clear_map(s)
    ship(s, me, "small", "r1c1")
    ship(s, me, "small", "r1c3")
    view = api.public_view(s)
    # Near pairs: r1c1 -> r2c1 and r1c3 -> r0c3 (1 border each) beat the crossed pairing: two moves.
    seen = _move(_move(_reading(view), me, "small", "r1c1", "r2c1"), me, "small", "r1c3", "r0c3")
    t = translate(seen, view)
    assert sorted((p.action["region"], p.action["moves"][0][0]) for p in t.proposals) == [
        ("r0c3", "r1c3"),
        ("r2c1", "r1c1"),
    ]
    # r0c2 and r2c2 are 2 borders from both r1c1 and r1c3: which Ship went where is asked.
    seen = _move(_move(_reading(view), me, "small", "r1c1", "r0c2"), me, "small", "r1c3", "r2c2")
    t = translate(seen, view)
    assert t.proposals == []
    (q,) = t.questions
    assert q.kind == "which-moves" and len(q.options) == 2


def test_unread_regions_and_unexplained_changes_become_questions() -> None:
    s = started(2)
    view = api.public_view(s)
    seen = _reading(view)
    seen["regions"]["r1c1"]["complete"] = False
    home = next(r for r, reg in view["regions"].items() if reg["forts"])
    owner, cls = view["regions"][home]["forts"][0]
    seen["regions"][home]["pieces"] = [
        p for p in seen["regions"][home]["pieces"] if not (p["owner"] == owner and p["kind"] == cls)
    ]
    t = translate(seen, view)
    kinds = [q.kind for q in t.questions]
    assert "unread" in kinds and "unexplained" in kinds
    assert "r1c1" in t.unread and "r1c1" not in t.positions
    assert {"region": home, "owner": owner, "piece": cls, "damaged": False, "change": "left"} in t.changes


def test_no_table_asks_for_the_change_by_hand() -> None:
    s = started(2)
    view = api.public_view(s)
    t = translate({"status": "no-table", "map": view["map"], "regions": {}, "unsure": []}, view)
    assert t.positions == {} and [q.kind for q in t.questions] == ["unread"]
