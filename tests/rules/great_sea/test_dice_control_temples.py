"""Dice and pips, Control, Temple Points and flipping Action Cards."""

from __future__ import annotations

import pytest

from rules.errors import Illegal
from rules.great_sea.control import controls
from rules.great_sea.dice import may_raise, value

from .helpers import act, clear_map, open_card, ship, started


def test_no_die_exceeds_the_develop_die():
    # "no Dice may physically exceed the value of their Die on the Develop Action Card"
    s = started(2)
    p = s.data["p"][s.active]
    p["dice"] = [2, 2, 1, 1, 1, 1]
    assert not may_raise(p, 1) and may_raise(p, 0) and may_raise(p, 2)
    s = open_card(s, 1)
    with pytest.raises(Illegal, match="may not physically exceed 2"):
        act(s, "develop_pip", die="fortify")
    s, _ = act(s, "develop_pip", die="develop")
    assert s.data["p"][s.active]["dice"][0] == 3


def test_dice_never_exceed_six_but_values_may():
    # "Dice can never exceed a physical value of 6. There are, however, some Action Card effects that can
    # increase a Die's value beyond 6."
    s = started(2)
    p = s.data["p"][s.active]
    p["dice"] = [6, 6, 6, 6, 6, 6]
    assert not any(may_raise(p, i) for i in range(6))
    p["cards"] = {**p["cards"], "2": {"id": "fortify_plus2", "flipped": True}}
    # "When flipped, the Die's value is considered to be 1 higher" + "2 higher than its physical value"
    assert value(p, 2) == 9


def test_control_rules():
    # "if they are present, and own the Trade Post, they have Control even when opponents are present. But
    # if they do not own the Trade Post, they will only have Control while they are the only player present."
    s = started(2)
    a, b = s.data["players"]
    clear_map(s)
    reg = s.data["regions"]["r1c1"]
    assert not controls(reg, a)
    ship(s, a, "small", "r1c1")
    assert controls(reg, a)
    ship(s, b, "small", "r1c1")
    assert not controls(reg, a) and not controls(reg, b)
    reg["post"] = [b, False]
    assert controls(reg, b) and not controls(reg, a)
    # "they can never lose Control of their home region"
    home = s.data["p"][a]["home"]
    s.data["regions"][home]["forts"] = []
    assert controls(s.data["regions"][home], a)


def test_temple_points_and_flipping_by_trade_post():
    # "Each Temple Region can provide a maximum of 2 Temple Points." / "Actions Cards must be flipped to their
    # reverse side ... when gaining ownership of the associated Temple Trade Post."
    s = started(2)
    me, them = s.data["players"]
    clear_map(s)
    temple_region = next(r for r, reg in s.data["regions"].items() if reg["temple"])
    number = s.data["regions"][temple_region]["temple"]
    ship(s, me, "small", temple_region)
    p = s.data["p"][me]
    p["dice"] = [3, 1, 3, 1, 1, 1]
    s = open_card(s, 3)
    s, ev = act(s, "trade", gains=["coins", "post"], region=temple_region)
    p = s.data["p"][me]
    assert p["temple"] == 2
    assert p["cards"][str(number)]["flipped"]
    assert "cards_flipped" in [e["type"] for e in ev]


def test_rulebook_temple_example_moving_in_takes_control():
    # "Black would have a Temple Point for Controlling the Temple region, while Red would have 1 Temple Point
    # for owning the Temple Trade Post. If Red were to move at least 1 Ship into the region, they would take
    # Control from Black."
    s = started(2)
    red, black = s.data["players"]
    clear_map(s)
    temple = next(r for r, reg in s.data["regions"].items() if reg["temple"])
    reg = s.data["regions"][temple]
    reg["post"] = [red, False]
    ship(s, black, "large", temple)
    start = reg_adjacent = s.data["regions"][temple]  # noqa: F841
    from rules.great_sea.map import adjacency

    near = next(r for r in adjacency(s.data["map"])[temple] if s.data["regions"][r]["home"] is None)
    ship(s, red, "small", near)
    s = open_card(s, 2)  # any action: the recount runs after every change
    s, _ = act(s, "finish_action")
    from rules.great_sea.temples import recheck

    recheck(s.data, [])
    assert (s.data["p"][red]["temple"], s.data["p"][black]["temple"]) == (1, 1)
    s = open_card(s, 6)
    s, ev = act(s, "move", region=temple, moves=[[near, temple, "small"]])
    assert (s.data["p"][red]["temple"], s.data["p"][black]["temple"]) == (2, 0)
    assert "temple_points" in [e["type"] for e in ev]
