"""Start-of-Turn Actions and Neutral Workers (rulebook: "Start-of-Turn Action", "Worker Actions")."""

from __future__ import annotations

import pytest

from rules.errors import Illegal

from .helpers import act, clear_map, open_card, ship, started


def test_start_move_to_or_from_a_shipyard_exhausts_a_trade_post():
    # "Exhaust 1 Trade Post to move 1 Ship to an adjacent region with a Shipyard or from a Shipyard to an
    # adjacent region. All home regions have a Shipyard"
    s = started(3, seed=4)
    c = s.data["turn_player"]
    clear_map(s)
    home = s.data["p"][c]["home"]
    ship(s, c, "small", home)
    from rules.great_sea.map import adjacency

    near = next(r for r in adjacency(s.data["map"])[home] if s.data["regions"][r]["home"] is None)
    far = next(
        r for r in adjacency(s.data["map"])[near] if r != home and s.data["regions"][r]["home"] is None
    )
    # "Aside from the facedown (exhausted) Trade Posts placed on bases during Setup": refresh it first
    assert s.data["regions"][home]["post"] == [c, True]
    s.data["regions"][home]["post"][1] = False
    s, _ = act(s, "start_move", **{"from": home, "to": near, "cls": "small"})
    assert any(x["owner"] == c for x in s.data["regions"][near]["ships"])
    assert s.data["regions"][home]["post"] == [c, True]  # the home Trade Post, now exhausted
    s2 = started(3, seed=4)
    clear_map(s2)
    ship(s2, c, "small", near)
    s2.data["regions"][home]["post"][1] = False
    with pytest.raises(Illegal, match="Shipyard"):
        act(s2, "start_move", **{"from": near, "to": far, "cls": "small"})


def test_repair_pip_and_worker_costs():
    # "Exhaust 1 Trade Post or spend 2 Wood to repair any 1 Damaged Ship." / "Exhaust 3 Trade Posts to gain
    # a Neutral Worker."
    s = started(2)
    c = s.data["turn_player"]
    clear_map(s)
    ship(s, c, "large", "r1c1", damaged=True)
    wood = s.data["p"][c]["wood"]
    s, _ = act(s, "start_repair", region="r1c1", cls="large", pay="wood")
    assert s.data["p"][c]["wood"] == wood - 2 and not s.data["regions"]["r1c1"]["ships"][0]["damaged"]
    s2 = started(2)
    with pytest.raises(Illegal, match="3 refreshed Trade Post"):
        act(s2, "start_worker")
    for r in ("r1c1", "r1c2", "r2c1"):
        s2.data["regions"][r]["post"] = [c, False]
    s2, _ = act(s2, "start_worker")
    assert s2.data["p"][c]["neutral"] == 1
    # a third Worker this turn, then "they must always return Neutral Workers to the Main Supply at the end
    # of their turns"
    for card in (1, 2, 3):
        s2 = open_card(s2, card)
        s2, _ = act(s2, "finish_action")
    s2, _ = act(s2, "end_turn")
    assert s2.data["p"][c]["neutral"] == 0


def test_research_refresh_and_construct_pip():
    # "If a player has an exhausted Trade Post on the Main Board, they may turn it back to its refreshed side"
    s = started(3, seed=2)
    c = s.data["turn_player"]
    home = s.data["p"][c]["home"]
    assert s.data["regions"][home]["post"] == [c, True]
    s = open_card(s, 4)
    s, _ = act(s, "research_refresh")
    assert s.data["regions"][home]["post"] == [c, False]
    # Construct "2nd Effect: Gain 1 pip."
    s = open_card(s, 5) if s.data["turn"]["open"] is None else s
    if s.data["turn"]["open"]["card"] == 4:
        s, _ = act(s, "finish_action")
        s = open_card(s, 5)
    dev = s.data["p"][c]["dice"][0]
    s, _ = act(s, "construct_pip", die="develop")
    assert s.data["p"][c]["dice"][0] == dev + 1
