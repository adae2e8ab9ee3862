"""Damage and sinking outside a battle (rules/dead_reckoning/sinking.py): Garrison fire."""

from __future__ import annotations

from tests.rules.helpers import act, game, place_island


def test_garrison_sinks_a_passing_ship_and_pays_its_owner():
    state = game(2, seed=1)
    color = state.active
    other = [c for c in state.players if c != color][0]
    isl = place_island(state, "r1c1", "island-05")
    isl["cubes"] = [other, other, None]
    isl["controller"] = other
    isl["buildings"]["garrison"] = True
    state, _ = act(state, "set_sails")
    state.data["p"][color]["ship"]["damage"] = 4
    state, events = act(state, "move", path=["r1c1", "r2c1"])
    p = state.data["p"][color]
    assert p["ship"]["at"] == "harbor" and p["ship"]["damage"] == 0 and p["chest"] == 10
    assert state.data["p"][other]["chest"] == 20
    assert [e["type"] for e in events if e.get("notice")][:2] == ["garrison_fire", "ship_sunk"]
