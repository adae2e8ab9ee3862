"""The six Worker Actions and the Start-of-Turn Action (rulebook: "Worker Actions" .. "Mobilise")."""

from __future__ import annotations

import pytest

from rules.errors import Illegal
from rules.great_sea.develop import fleet_limit, fleet_used
from rules.great_sea.trade import income

from .helpers import act, clear_map, open_card, ship, started


def me(s):
    return s.data["p"][s.data["turn_player"]]


def test_same_action_never_twice_and_two_workers():
    # "Important: Players can never take the same action twice in a single turn."
    s = started(2)
    s = open_card(s, 1)
    s, _ = act(s, "finish_action")
    with pytest.raises(Illegal, match="twice"):
        act(s, "take_action", card=1)
    s = open_card(s, 2)
    s, _ = act(s, "finish_action")
    # "On most turns players will only have 2 Workers."
    with pytest.raises(Illegal, match="no Worker"):
        act(s, "take_action", card=3)


def test_effects_in_order_top_to_bottom():
    # "They immediately resolve all desired effects of that Action Card in order from top to bottom."
    s = started(2)
    s = open_card(s, 1)
    s, _ = act(s, "develop_second", choice="pip", die="develop")
    with pytest.raises(Illegal, match="top to bottom"):
        act(s, "develop_pip", die="develop")


def test_develop_improve_and_wood_pips():
    # "2nd Effect: Gain either 1 pip, spend 2 Wood to gain 2 pips, or pay to improve a Ship Class Tile or
    # Fleet Tile (up to twice - can be the same Tile or 2 different Tiles)."
    s = started(2)
    p = me(s)
    p["coins"], p["wood"] = 10, 10
    s = open_card(s, 1)
    s, _ = act(s, "develop_second", choice="improve", tiles=["fleet", "fleet"])
    p = me(s)
    # "When paying the second time, remove the Tile entirely" (sample Fleet Limits 8, 9, 11)
    assert p["fleet"] == 2 and p["wood"] == 10 - 2 - 3
    with pytest.raises(Illegal, match="already removed"):
        from rules.great_sea.develop import improve_cost

        improve_cost(p, "fleet")


def test_start_of_turn_action_at_most_one_and_before_workers():
    # "Before using Workers to take actions, players may perform at most 1 start-of-turn action."
    s = started(2)
    me(s)["coins"] = 8
    s, _ = act(s, "start_pip", die="develop", pay="coins")
    assert me(s)["coins"] == 4
    with pytest.raises(Illegal, match="at most 1"):
        act(s, "start_pip", die="develop", pay="coins")
    s2 = started(2)
    s2 = open_card(s2, 1)
    s2, _ = act(s2, "finish_action")
    me(s2)["coins"] = 8
    with pytest.raises(Illegal, match="at most 1"):
        act(s2, "start_pip", die="develop", pay="coins")


def test_fortify_needs_control_die_and_gives_trade_points_only_after_placing():
    # "In order to place a Fort, players must have Control in a region with an available Foundation ... and
    # they must have a Fortify Die value high enough"
    s = started(2)
    c = s.data["turn_player"]
    p = me(s)
    p["dice"] = [3, 1, 1, 1, 1, 1]
    start = next(
        r
        for r, reg in s.data["regions"].items()
        if any(x["owner"] == c for x in reg["ships"]) and reg["home"] is None
    )
    s = open_card(s, 2)
    with pytest.raises(Illegal, match="needs a Fortify Die of 2"):
        act(s, "fortify", region=start, fort="outpost")
    me(s)["dice"] = [3, 2, 1, 1, 1, 1]
    benefit = s.data["regions"][start]["foundations"][0]
    before = dict(me(s))
    s, ev = act(s, "fortify", region=start, fort="outpost")
    p = me(s)
    assert [c, "outpost"] in s.data["regions"][start]["forts"] and p["forts"]["outpost"] == 4
    # "This will be to gain 2 Coins, 2 Wood, or 1 pip."
    if benefit in ("wood", "coins"):
        assert p[benefit] == before[benefit] + 2
    # "Note that having only 1 Trade Post gains no Trade points." (2 players: no Trade Post on the Map yet)
    assert p["trade"] == 0
    # not in a region without Control
    s2 = started(2)
    other = next(r for r, reg in s2.data["regions"].items() if reg["home"] is None and not reg["ships"])
    me(s2)["dice"] = [3, 3, 1, 1, 1, 1]
    s2 = open_card(s2, 2)
    with pytest.raises(Illegal, match="Control"):
        act(s2, "fortify", region=other, fort="stronghold")


def test_fortify_trade_points_from_posts():
    # "How many Trade Points they gain is determined by their Trade Posts on the Main Board (regardless of
    # whether they are refreshed or exhausted)."
    s = started(2)
    c = s.data["turn_player"]
    regions = [r for r, reg in s.data["regions"].items() if reg["home"] is None][:3]
    for r in regions:
        s.data["regions"][r]["post"] = [c, True]
    ship(s, c, "small", regions[0])
    me(s)["dice"] = [3, 2, 1, 1, 1, 1]
    s = open_card(s, 2)
    r = next(x for x in regions if s.data["regions"][x]["foundations"])
    ship(s, c, "small", r)
    s, _ = act(s, "fortify", region=r, fort="stronghold")
    assert me(s)["trade"] == 1  # 3 Trade Posts: 1 Trade Point (sample reminder table)


def test_trade_income_rulebook_example():
    # "Red has a Trade Die value of 3, thanks to their Action Card being flipped. This would allow them to
    # gain
    # 3 Silver (... read as Coins), or 4 Wood. Despite having placed out 3 Outposts, they cannot gain 5 Wood,
    # as their Trade Die is too low to access that space."
    s = started(2)
    c = s.data["turn_player"]
    p = me(s)
    p["dice"][2] = 2
    p["cards"] = {**p["cards"], "3": {"id": "trade", "flipped": True}}
    p["forts"] = {"stronghold": 3, "outpost": 3}  # 3 of each placed out (the home ones included)
    assert income(s.data, c, "coins") == 3
    assert income(s.data, c, "wood") == 4
    p["forts"]["outpost"] = 1
    assert income(s.data, c, "wood") == 4  # revealed further, still out of the Die's reach


def test_trade_post_needs_control_and_replaces_opponents():
    # "the only way to replace an opponent's Trade Post is if there are no opposing Ships or Forts in that
    # region." / "the removed piece is returned to the Main Supply"
    s = started(2)
    c, o = s.data["turn_player"], [x for x in s.data["players"] if x != s.data["turn_player"]][0]
    clear_map(s)
    ship(s, c, "small", "r1c1")
    s.data["regions"]["r1c1"]["post"] = [o, False]
    ship(s, o, "small", "r1c1")
    me(s)["dice"][2] = 2
    s = open_card(s, 3)
    with pytest.raises(Illegal, match="Control"):
        act(s, "trade", gains=["coins", "post"], region="r1c1")
    s.data["regions"]["r1c1"]["ships"] = [x for x in s.data["regions"]["r1c1"]["ships"] if x["owner"] == c]
    s, _ = act(s, "trade", gains=["post", "wood"], region="r1c1")
    assert s.data["regions"]["r1c1"]["post"] == [c, False]
    assert s.data["p"][o]["posts_supply"] == 1
    # "Gain any 2 different effects"
    s2 = started(2)
    s2 = open_card(s2, 3)
    with pytest.raises(Exception, match="different"):
        act(s2, "trade", gains=["coins", "coins"])


def test_research_pile_moves_left_and_not_twice():
    # "the entire Pile from where that Upgrade Tile came, is moved to the far left of its row in the grid.
    # The active player may not gain more Upgrade Tiles from this Pile this turn."
    s = started(2)
    p = me(s)
    p["coins"], p["dice"] = 20, [4, 1, 1, 4, 1, 1]
    row = s.data["rows"]["stern"]
    right = row[-1]
    s = open_card(s, 4)
    # "Upgrade Tiles in the left column require 5 Coins, the next column requires 4 Coins, and so on"
    from rules.great_sea.upgrades import icons, tile_cost

    top = s.data["piles"][right][0]
    assert tile_cost(s.data, right) == 3 - (1 if icons(top).get("shipyard") else 0)
    s, _ = act(s, "research_gain", pile=right, cls="small")
    assert s.data["rows"]["stern"][0] == right
    assert me(s)["ship_tiles"]["small"]["stern"]["tile"] == top
    with pytest.raises(Illegal, match="this Pile this turn"):
        act(s, "research_gain", pile=right, cls="medium")
    # "For each pip they wish to use, players may reduce the total Coin cost ... by 1."
    pile = s.data["rows"]["hull"][0]
    cost = tile_cost(s.data, pile)
    coins = me(s)["coins"]
    s, _ = act(s, "research_gain", pile=pile, cls="large", discount=2)
    assert me(s)["coins"] == coins - max(0, cost - 2)
    assert s.data["turn"]["open"]["pips"] == 0


def test_research_remove_does_not_move_the_pile():
    # "players may remove 1 Ship or Fort Upgrade Tile from any Pile above the Main Board. This does not move
    # the Pile."
    s = started(2)
    me(s)["dice"] = [2, 1, 1, 2, 1, 1]
    row = list(s.data["rows"]["bow"])
    s = open_card(s, 4)
    top = s.data["piles"][row[-1]][0]
    s, _ = act(s, "research_remove", pile=row[-1])
    assert s.data["rows"]["bow"] == row and top in s.data["discards"][row[-1]]


def test_construct_costs_shipyard_and_fleet_limit():
    # "Players can never place a newly constructed Ship into a region if it would exceed their Fleet Limit."
    s = started(2)
    c = s.data["turn_player"]
    p = me(s)
    p["dice"], p["wood"] = [4, 1, 1, 1, 4, 1], 20
    home = p["home"]
    s = open_card(s, 5)
    # "This is 2-3 Wood for Small Ships" (3 on the faceup Class Tile); discount 1 pip
    s, _ = act(s, "construct", cls="small", region=home, discount=1)
    assert me(s)["wood"] == 18 and me(s)["ships"]["small"] == 5
    other = next(r for r, reg in s.data["regions"].items() if reg["home"] is None)
    with pytest.raises(Illegal, match="Shipyard"):
        act(s, "construct", cls="small", region=other)
    # a Stronghold serves as a Shipyard once the class has a Shipyard icon (sample tile), Fleet Limit applies
    s.data["regions"][other]["forts"].append([c, "stronghold"])
    me(s)["ship_tiles"]["large"]["stern"] = {"tile": "stern_speed2:0", "flipped": False}
    ship(s, c, "medium", other)
    ship(s, c, "medium", other)
    with pytest.raises(Illegal, match="Fleet Limit of 8"):
        act(s, "construct", cls="large", region=other)


def test_fleet_limit_example():
    # "With a Fleet Limit of 8, a player could have 1 Small Ship (3) and 1 Large Ship (5), or 2 Medium Ships
    # (4 each) in the same region."
    s = started(2)
    c = s.data["turn_player"]
    clear_map(s)
    p = me(s)
    reg = s.data["regions"]["r1c1"]
    assert fleet_limit(reg, p, c) == 8
    for a, b in (("small", "large"), ("medium", "medium")):
        reg["ships"] = []
        ship(s, c, a, "r1c1")
        ship(s, c, b, "r1c1")
        assert fleet_used(reg, p, c) == 8 <= fleet_limit(reg, p, c)
    # "While home regions have no Fleet Limit"
    assert fleet_limit(s.data["regions"][p["home"]], p, c) is None


def test_movement_example_speed_and_same_ship_twice():
    # "the Medium Ship only has a movement of 1" / "they cannot move the same Ship twice" / "Speed of 2 allows
    # them to move into that same region, or a region adjacent to it."
    s = started(4, seed=3)
    c = s.data["turn_player"]
    clear_map(s)
    p = me(s)
    p["dice"] = [4, 1, 1, 1, 1, 4]
    ship(s, c, "medium", "r2c2")
    ship(s, c, "small", "r2c2")
    s = open_card(s, 6)
    with pytest.raises(Illegal, match="Speed 1"):
        act(s, "move", region="r2c4", moves=[["r2c2", "r2c4", "medium"]])
    s, _ = act(s, "move", region="r2c4", moves=[["r2c2", "r2c4", "small"]])
    with pytest.raises(Illegal, match="never moves twice"):
        act(s, "move", region="r2c4", moves=[["r2c4", "r2c3", "small"]])
    # "Players may never move Ships into an opponent's home region."
    opp_home = next(reg for reg in s.data["regions"].values() if reg["home"] not in (None, c))
    target = next(r for r, reg in s.data["regions"].items() if reg is opp_home)
    with pytest.raises(Illegal, match="home region"):
        act(s, "move", region=target, moves=[["r2c2", target, "medium"]])


def test_damaged_ships_cannot_move_but_count_for_fleet_limit():
    # "Damaged Ships cannot be moved, but still contribute to a region's Fleet limits."
    s = started(2)
    c = s.data["turn_player"]
    clear_map(s)
    ship(s, c, "large", "r1c1", damaged=True)
    ship(s, c, "medium", "r1c2")
    me(s)["dice"] = [3, 1, 1, 1, 1, 3]
    s = open_card(s, 6)
    with pytest.raises(Illegal, match="Damaged"):
        act(s, "move", region="r1c2", moves=[["r1c1", "r1c2", "large"]])
    with pytest.raises(Illegal, match="Fleet Limit"):
        act(s, "move", region="r1c1", moves=[["r1c2", "r1c1", "medium"]])
