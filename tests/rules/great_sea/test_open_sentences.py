"""The rulebook sentences docs/rules-coverage.md listed without a test (The Great Sea): each test quotes its
sentence and asserts what the rulebook forces."""

from __future__ import annotations

import pytest

from rules import api
from rules.errors import Illegal
from rules.great_sea.data import CLASSES
from rules.great_sea.upgrades import ship_stats, tile_types

from .helpers import act, clear_map, open_card, ship, started


def me(s):
    return s.data["p"][s.data["turn_player"]]


def test_no_more_ships_than_available():
    # "All player pieces are limited. For example, players cannot construct more Ships than they have
    # available."
    s = started(2)
    p = me(s)
    p["dice"], p["wood"] = [4, 1, 1, 1, 4, 1], 20
    p["ships"]["large"] = 1
    s = open_card(s, 5)
    s, _ = act(s, "construct", cls="large", region=p["home"])
    assert me(s)["ships"]["large"] == 0
    with pytest.raises(Illegal, match="no large Ship left"):
        act(s, "construct", cls="large", region=p["home"])
    assert not any(
        a["type"] == "construct" and a["cls"] == "large" for a in api.legal_actions(s, s.data["turn_player"])
    )


@pytest.mark.parametrize("n", [2, 3, 4])
def test_both_start_regions_have_one_foundation(n):
    # "At the start of the game, players Control their home region, and the 2 adjacent regions where their
    # Ships are present. Both of these regions have 1 Foundation available, ready for a Fort to be placed."
    s = started(n)
    for color in s.data["p"]:
        starts = [
            r
            for r, reg in s.data["regions"].items()
            if reg["home"] is None and any(x["owner"] == color for x in reg["ships"])
        ]
        assert len(starts) == 2
        assert all(len(s.data["regions"][r]["foundations"]) == 1 for r in starts)


def test_fortify_example_next_stronghold_not_outpost_benefit_twice():
    # "In this example, Red could place out their next Stronghold, but not their Outpost due to their Fortify
    # Die being too low. Placing their Stronghold will give them the Foundation benefit twice thanks to their
    # Fort Upgrade Tiles."
    s = started(2)
    c = s.data["turn_player"]
    clear_map(s)
    ship(s, c, "small", "r1c1")
    s.data["regions"]["r1c1"]["foundations"] = ["coins"]
    p = me(s)
    p["dice"] = [3, 3, 1, 1, 1, 1]
    p["forts"]["stronghold"], p["forts"]["outpost"] = 4, 3  # next columns: 3 and 4 pips
    p["fort_tiles"]["stronghold"] = ["fort_small:6"]  # a sample Foundation modifier (x1)
    p["fort_places"]["stronghold"] = [[0, 1]]
    coins = p["coins"]
    s = open_card(s, 2)
    with pytest.raises(Illegal, match="needs a Fortify Die of 4"):
        act(s, "fortify", region="r1c1", fort="outpost")
    s, _ = act(s, "fortify", region="r1c1", fort="stronghold")
    assert me(s)["coins"] == coins + 2 * 2  # "gain 2 Coins", twice


def test_trade_example_next_trade_post_needs_three():
    # "Example: In the example above, Red could place out their next Trade Post, which requires a minimum Die
    # value of 3."
    s = started(2)
    c = s.data["turn_player"]
    clear_map(s)
    ship(s, c, "small", "r1c1")
    p = me(s)
    p["posts"] = 7  # two placed from the board: the next is in the 3 column (sample columns 1, 2, 3, ...)
    p["dice"] = [3, 1, 2, 1, 1, 1]
    s2 = open_card(s, 3)
    with pytest.raises(Illegal, match="needs a Trade Die of 3"):
        act(s2, "trade", gains=["coins", "post"], region="r1c1")
    p["dice"][2] = 3
    s = open_card(s, 3)
    s, _ = act(s, "trade", gains=["coins", "post"], region="r1c1")
    assert s.data["regions"]["r1c1"]["post"] == [c, False] and me(s)["posts"] == 6


def test_rare_case_trade_post_from_the_main_supply():
    # "Rare case: If a player has no Trade Posts on their Player Board, but still has a legal place to place 1
    # on the Main Board, they may place 1 that was previously removed to the Main Supply."
    s = started(2)
    c = s.data["turn_player"]
    clear_map(s)
    ship(s, c, "small", "r1c1")
    p = me(s)
    p["posts"], p["posts_supply"], p["dice"] = 0, 0, [6, 1, 6, 1, 1, 1]
    s2 = open_card(s, 3)
    with pytest.raises(Illegal, match="no Trade Post left"):
        act(s2, "trade", gains=["coins", "post"], region="r1c1")
    p["posts_supply"] = 1
    s = open_card(s, 3)
    s, _ = act(s, "trade", gains=["coins", "post"], region="r1c1")
    assert s.data["regions"]["r1c1"]["post"] == [c, False] and me(s)["posts_supply"] == 0


def test_removed_tiles_return_only_when_their_pile_runs_out():
    # "Upgrade Tiles removed this way should be placed into the Main Supply. They will only enter the game
    # again if their type's Pile is depleted."
    s = started(2)
    pile = s.data["rows"]["stern"][-1]
    me(s)["dice"], me(s)["coins"] = [4, 1, 1, 4, 1, 1], 20
    removed = s.data["piles"][pile][0]
    s = open_card(s, 4)
    s, _ = act(s, "research_remove", pile=pile)
    assert removed not in s.data["piles"][pile] and s.data["discards"][pile] == [removed]
    s.data["piles"][pile] = s.data["piles"][pile][:1]  # one tile left
    s, _ = act(s, "research_gain", pile=pile, cls="small")  # takes the last: the removed one stays out
    assert s.data["piles"][pile] == [] and s.data["discards"][pile] == [removed]
    s.data["turn"]["open"]["piles"] = []  # another Research turn (a referee's shortcut)
    s, _ = act(s, "research_gain", pile=pile, cls="medium")  # the depleted Pile is formed again
    assert me(s)["ship_tiles"]["medium"]["stern"]["tile"] == removed


def test_construct_example_small_ships_for_two_wood_at_strongholds():
    # "Example: Red may construct Small Ships for 2 Wood each, and may place them into any region where they
    # have a Stronghold, thanks to their Ship Upgrade Tile."
    s = started(2)
    c = s.data["turn_player"]
    clear_map(s)
    p = me(s)
    p["classes"]["small"] = 1  # the turned Class Tile: 2 Wood
    p["ship_tiles"]["small"]["stern"] = {"tile": "stern_speed2:0", "flipped": False}  # a Shipyard icon
    p["dice"], p["wood"] = [4, 1, 1, 1, 4, 1], 4
    s.data["regions"]["r1c1"]["forts"].append([c, "stronghold"])
    s.data["regions"]["r1c2"]["forts"].append([c, "outpost"])
    s = open_card(s, 5)
    with pytest.raises(Illegal, match="Shipyard"):
        act(s, "construct", cls="small", region="r1c2")  # an Outpost is not one for this tile
    with pytest.raises(Illegal, match="Shipyard"):
        act(s, "construct", cls="medium", region="r1c1")  # only the Small class has the icon
    s, _ = act(s, "construct", cls="small", region="r1c1")
    s, _ = act(s, "construct", cls="small", region="r1c1")
    assert me(s)["wood"] == 0
    assert sum(x["owner"] == c for x in s.data["regions"]["r1c1"]["ships"]) == 2


def test_construct_die_four_builds_two_ships_two_wood_cheaper():
    # "For example, with a Construct Die value of 4, a player could construct 2 Ships, and spend 2 fewer Wood
    # in the process."
    s = started(2)
    p = me(s)
    p["dice"], p["wood"] = [4, 1, 1, 1, 4, 1], 6
    home = p["home"]
    s = open_card(s, 5)
    s, _ = act(s, "construct", cls="small", region=home, discount=1)
    s, _ = act(s, "construct", cls="small", region=home, discount=1)
    assert me(s)["wood"] == 6 - 2 * (3 - 1)  # two sample Small Ships of 3 Wood, 2 fewer in all
    assert s.data["turn"]["open"]["pips"] == 0
    with pytest.raises(Illegal, match="pips"):
        act(s, "construct", cls="small", region=home)


def test_hull_and_bow_tile_types_and_their_flipped_sides():
    # "Hull types: always have 1 additional Health space." / "1 Mobility" / "1 Attack"; "Bow types: always
    # have 1 Strength." / "1 Mobility" / "1 Attack"; "Flipping Hulls always provides 1 additional Strength."
    # "Flipping Bows always provides 1 additional Mobility."
    always = {
        "hull": [{"health": 1}, {"mobility": 1}, {"attack": 1}],
        "bow": [{"strength": 1}, {"mobility": 1}, {"attack": 1}],
    }
    flip_bonus = {"hull": "strength", "bow": "mobility"}
    s = started(2)
    p = me(s)
    for row, kinds in always.items():
        types = {k: v for k, v in tile_types().items() if v["row"] == row}
        assert sorted(str(v["tiles"][0]["icons"]) for v in types.values()) == sorted(str(k) for k in kinds)
        for name, spec in types.items():
            for i, t in enumerate(spec["tiles"]):
                bonus = {k: t["flipped"].get(k, 0) - t["icons"].get(k, 0) for k in t["flipped"]}
                assert {k: v for k, v in bonus.items() if v} == {flip_bonus[row]: 1}
                for cls in CLASSES:
                    p["ship_tiles"][cls][row] = {"tile": f"{name}:{i}", "flipped": False}
                    before = ship_stats(p, cls).get(flip_bonus[row], 0)
                    p["ship_tiles"][cls][row]["flipped"] = True
                    assert ship_stats(p, cls).get(flip_bonus[row], 0) == before + 1
