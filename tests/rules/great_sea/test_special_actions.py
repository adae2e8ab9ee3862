"""Special Action Cards the engine plays (rulebook: "Special Action Cards")."""

from __future__ import annotations

import pytest

from rules.errors import Illegal, Invalid
from rules.great_sea.special_actions import specials

from .helpers import act, clear_map, open_card, ship, started


def with_card(card: str, seed: int = 1):
    s = started(2, seed)
    p = s.data["p"][s.data["turn_player"]]
    n = str(specials()[card]["number"])
    p["cards"] = {**p["cards"], n: {"id": card, "flipped": False}}
    return s, p


def me(s):
    return s.data["p"][s.data["turn_player"]]


def test_all_24_cards_four_per_action():
    # "There are 24 Special Action Cards, 4 for each of the 6 actions"
    cards = specials()
    assert len(cards) == 24
    assert sorted(c["number"] for c in cards.values()) == [n for n in range(1, 7) for _ in range(4)]


def test_develop_third_effect_improves_a_tile():
    # "3rd Effect: Pay to improve a Ship Class Tile or Fleet Tile."
    s, p = with_card("develop_improve")
    p["coins"] = 10
    s = open_card(s, 1)
    s, _ = act(s, "special_effect", tiles=["small"])
    assert me(s)["classes"]["small"] == 1 and me(s)["coins"] == 8
    with pytest.raises(Illegal, match="top to bottom"):
        act(s, "develop_pip", die="develop")


def test_fortify_third_effect_places_a_stronghold_for_a_coin():
    # "3rd Effect: Spend 1 Coin to place a Stronghold (Control required)."
    s, p = with_card("fortify_stronghold")
    c = s.data["turn_player"]
    clear_map(s)
    ship(s, c, "small", "r1c1")
    ship(s, c, "small", "r1c2")
    p["dice"], p["coins"] = [4, 3, 1, 1, 1, 1], 5
    s = open_card(s, 2)
    s, _ = act(s, "fortify", region="r1c1", fort="outpost")
    s, _ = act(s, "special_effect", region="r1c2")
    assert [c, "stronghold"] in s.data["regions"]["r1c2"]["forts"]
    assert me(s)["forts"]["stronghold"] == 4
    with pytest.raises(Illegal, match="Control"):
        s2, p2 = with_card("fortify_stronghold")
        clear_map(s2)
        p2["dice"], p2["coins"] = [4, 3, 1, 1, 1, 1], 5
        s2 = open_card(s2, 2)
        act(s2, "special_effect", region="r1c1")


def test_research_third_effect_flips_a_ship_tile():
    # "3rd Effect: Spend 2 Wood to flip a Ship Upgrade Tile to its opposite side."
    s, p = with_card("research_flip_tile")
    p["wood"] = 2
    p["ship_tiles"]["small"]["bow"] = {"tile": "bow_attack:0", "flipped": False}
    s = open_card(s, 4)
    with pytest.raises(Illegal, match="no Upgrade Tile"):
        act(s, "special_effect", cls="small", part="hull")
    s, _ = act(s, "special_effect", cls="small", part="bow")
    assert me(s)["ship_tiles"]["small"]["bow"]["flipped"] and me(s)["wood"] == 0


def test_trade_cards_change_the_first_effect():
    # "Change to 1st Effect: Gain both incomes. 2nd Effect: Place a Trade Post (Control required)."
    s, p = with_card("trade_both_incomes")
    c = s.data["turn_player"]
    clear_map(s)
    ship(s, c, "small", "r1c1")
    p["dice"][2] = 3
    s = open_card(s, 3)
    s, _ = act(s, "trade", gains=["coins", "wood", "post"], region="r1c1")
    assert s.data["regions"]["r1c1"]["post"] == [c, False]
    # "Change to 1st Effect: May gain the same effect twice. Extra Effect: This Die's value is considered to
    # be 1 higher than its physical value."
    s, p = with_card("trade_twice")
    wood = p["wood"]
    s = open_card(s, 3)
    s, ev = act(s, "trade", gains=["wood", "wood"])
    assert me(s)["wood"] == wood + 2 * ev[0]["action"]["wood"]
    s2 = started(2)
    s2 = open_card(s2, 3)
    with pytest.raises(Invalid, match="different"):
        act(s2, "trade", gains=["wood", "wood"])
