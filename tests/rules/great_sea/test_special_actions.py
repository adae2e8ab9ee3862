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


def home_and_neighbours(s):
    from rules.great_sea.map import adjacency

    home = me(s)["home"]
    return home, sorted(adjacency(s.data["map"])[home])


def test_develop_third_effect_gains_a_large_fort_tile_a_coin_cheaper():
    # "3rd Effect: Gain a Large Fort Upgrade Tile, paying 1 less Coin. Remember to also move the Pile to the
    # left of the grid."
    s, p = with_card("develop_fort_tile")
    p["coins"] = 2
    pile = s.data["rows"]["fort"][-1]  # the 3-Coin column
    tile = s.data["piles"][pile][0]
    s = open_card(s, 1)
    with pytest.raises(Invalid, match="Pile"):
        act(s, "special_effect", pile=s.data["rows"]["stern"][-1], cls="small")  # not a Large Fort tile
    with pytest.raises(Invalid, match="Pile"):
        act(s, "special_effect", pile="fort_small", fort="outpost")
    s, _ = act(s, "special_effect", pile=pile, fort="stronghold")
    assert me(s)["coins"] == 0  # 3 - 1
    assert me(s)["fort_tiles"]["stronghold"] == [tile]
    assert s.data["rows"]["fort"][0] == pile  # moved to the left of the grid
    assert s.data["turn"]["open"]["step"] == 3  # the last effect: nothing after it


def test_fortify_third_effect_gains_a_small_fort_tile_a_coin_cheaper():
    # "3rd Effect: Gain a Small Fort Upgrade Tile, paying 1 less Coin."
    s, p = with_card("fortify_small_tile")
    p["coins"] = 1
    tile = s.data["piles"]["fort_small"][0]
    s = open_card(s, 2)
    s, _ = act(s, "special_effect", pile="fort_small", fort="outpost", place=[1, 2])
    assert me(s)["coins"] == 0 and me(s)["fort_tiles"]["outpost"] == [tile]
    assert me(s)["fort_places"]["outpost"] == [[1, 2]]
    s2, p2 = with_card("fortify_small_tile")
    p2["coins"] = 0
    s2 = open_card(s2, 2)
    with pytest.raises(Illegal, match="costs 1 Coins"):
        act(s2, "special_effect", pile="fort_small", fort="outpost")


def test_develop_third_effect_moves_ships_into_one_region_using_their_speed():
    # "3rd Effect: Move any number of Ships in or out of 1 region using their Speed."
    s, p = with_card("develop_move_region")
    c = s.data["turn_player"]
    clear_map(s)
    home, (a, b) = home_and_neighbours(s)
    from rules.great_sea.map import adjacency

    target = next(r for r in sorted(adjacency(s.data["map"])[a]) if r != home)
    ship(s, c, "small", home)  # Speed 2: home -> a -> target
    ship(s, c, "medium", a)  # Speed 1: a -> target
    s = open_card(s, 1)
    with pytest.raises(Illegal, match="not both ways"):
        act(s, "special_effect", region=a, moves=[[home, a, "small"], [a, target, "medium"]])
    s, _ = act(s, "special_effect", region=target, moves=[[home, target, "small"], [a, target, "medium"]])
    there = sorted(x["cls"] for x in s.data["regions"][target]["ships"] if x["owner"] == c)
    assert there == ["medium", "small"]


def test_trade_second_effect_constructs_a_medium_or_large_ship_a_wood_cheaper():
    # "2nd Effect: Construct a Medium or Large Ship, paying 1 less Wood."
    s, p = with_card("trade_construct")
    c = s.data["turn_player"]
    p["wood"] = 3
    home = p["home"]
    s = open_card(s, 3)
    s, _ = act(s, "trade", gains=["coins"])
    assert s.data["turn"]["open"] is not None  # the card's 2nd Effect is still to come
    with pytest.raises(Illegal, match="Medium or Large"):
        act(s, "special_effect", cls="small", region=home)
    wood = me(s)["wood"]
    s, _ = act(s, "special_effect", cls="medium", region=home)
    assert me(s)["wood"] == wood - 3  # the sample Medium's 4 Wood, 1 less
    assert sum(x["owner"] == c and x["cls"] == "medium" for x in s.data["regions"][home]["ships"]) == 1


def test_trade_second_effect_exhausts_a_trade_post_for_a_ship_tile_a_coin_cheaper():
    # "2nd Effect: Exhaust 1 Trade Post to gain a Ship Upgrade Tile, spending 1 less Coin."
    s, p = with_card("trade_ship_tile")
    c = s.data["turn_player"]
    p["coins"] = 2
    pile = s.data["rows"]["bow"][-1]  # 3 Coins
    s = open_card(s, 3)
    s, _ = act(s, "trade", gains=["wood"])
    with pytest.raises(Illegal, match="Trade Post"):
        act(s, "special_effect", pile=pile, cls="large")
    _, (a, _) = home_and_neighbours(s)
    s.data["regions"][a]["post"] = [c, False]
    tile = s.data["piles"][pile][0]
    s, _ = act(s, "special_effect", pile=pile, cls="large")
    assert me(s)["ship_tiles"]["large"]["bow"]["tile"] == tile
    assert me(s)["coins"] == 0  # the 3-Coin column, 1 less
    assert s.data["regions"][a]["post"] == [c, True]  # exhausted
    assert s.data["rows"]["bow"][0] == pile


def test_trade_twice_third_effect_moves_one_ship_from_a_shipyard():
    # "3rd Effect: Move 1 Ship in or out of a region with a Shipyard." (read as the start-of-turn move: 1
    # border, to or from a Shipyard; docs/great-sea.md)
    s, p = with_card("trade_twice")
    c = s.data["turn_player"]
    clear_map(s)
    home, (a, _) = home_and_neighbours(s)
    ship(s, c, "large", home)
    s = open_card(s, 3)
    s, _ = act(s, "trade", gains=["coins", "coins"])
    s, _ = act(s, "special_effect", **{"from": home, "to": a, "cls": "large"})
    assert [x["cls"] for x in s.data["regions"][a]["ships"] if x["owner"] == c] == ["large"]


def test_research_third_effect_constructs_a_small_ship_a_wood_cheaper():
    # "3rd Effect: Construct a Small Ship, paying 1 less Wood."
    s, p = with_card("research_small_ship")
    p["wood"] = 2
    home = p["home"]
    small = p["ships"]["small"]
    s = open_card(s, 4)
    with pytest.raises(Illegal, match="Small Ship only"):
        act(s, "special_effect", cls="medium", region=home)
    s, _ = act(s, "special_effect", cls="small", region=home)
    assert me(s)["wood"] == 0 and me(s)["ships"]["small"] == small - 1  # the sample 3 Wood, 1 less


def test_construct_third_effect_moves_one_ship_to_or_from_a_shipyard_without_a_trade_post():
    # "3rd Effect: Move 1 Ship to an adjacent region with a Shipyard or from a Shipyard to an adjacent
    # region."
    s, p = with_card("construct_move")
    c = s.data["turn_player"]
    clear_map(s)
    home, (a, _) = home_and_neighbours(s)
    from rules.great_sea.map import adjacency

    b = next(r for r in sorted(adjacency(s.data["map"])[a]) if r != home)
    ship(s, c, "medium", a)
    s = open_card(s, 5)
    with pytest.raises(Illegal, match="Shipyard"):
        act(s, "special_effect", **{"from": a, "to": b, "cls": "medium"})  # neither is a Shipyard
    s, _ = act(s, "special_effect", **{"from": a, "to": home, "cls": "medium"})
    assert any(x["owner"] == c and x["cls"] == "medium" for x in s.data["regions"][home]["ships"])


def test_construct_new_second_effect_uses_four_pips_for_a_neutral_worker():
    # "New 2nd Effect: Use 4 pips from this action to gain a Neutral Worker." The action's own "Gain 1 pip"
    # follows it (docs/great-sea.md).
    s, p = with_card("construct_worker")
    p["dice"] = [6, 1, 1, 1, 5, 1]
    p["wood"] = 10
    home = p["home"]
    s = open_card(s, 5)
    s, _ = act(s, "construct", cls="small", region=home)  # 1 pip: 4 left
    s, _ = act(s, "special_effect")
    assert me(s)["neutral"] == 1 and s.data["turn"]["open"]["pips"] == 0
    s, _ = act(s, "construct_pip", die="fortify")
    assert me(s)["dice"][1] == 2
    s2, p2 = with_card("construct_worker")
    p2["dice"], p2["wood"] = [6, 1, 1, 1, 4, 1], 10
    s2 = open_card(s2, 5)
    s2, _ = act(s2, "construct", cls="small", region=p2["home"])
    with pytest.raises(Illegal, match="4 pips"):
        act(s2, "special_effect")


@pytest.mark.parametrize("card", sorted(specials()))
def test_every_card_offers_only_what_its_check_accepts(card):
    """Each of the 24 cards in both players' rows through random turns: every offer passes its check, and
    the card's added effect is offered and accepted where it has one."""
    import random

    from rules import api
    from rules.great_sea.game import GAME

    s = started(2, seed=3)
    n = str(specials()[card]["number"])
    for p in s.data["p"].values():
        p["cards"] = {**p["cards"], n: {"id": card, "flipped": False}}
        p["wood"], p["coins"], p["dice"] = 12, 12, [6, 4, 4, 5, 5, 5]
    rng = random.Random(card)
    played = 0
    for _ in range(300):
        if s.phase == "over":
            break
        who = s.active or "table"
        acts = api.legal_actions(s, who)
        for a in acts:
            GAME.actions[a["type"]].check(s.data, who, a)
        specials_offered = [a for a in acts if a["type"] == "special_effect"]
        pick = rng.choice(specials_offered) if specials_offered and rng.random() < 0.7 else rng.choice(acts)
        if (
            pick["type"] == "take_action"
            and rng.random() < 0.5
            and {"type": "take_action", "card": int(n)} in acts
        ):
            pick = {"type": "take_action", "card": int(n)}
        played += pick["type"] == "special_effect"
        s, _ = api.apply(s, {"seq": s.seq, "player": who, "action": pick}, inplace=True)
    effect = specials()[card]["effect"]
    if "second" in effect or "third" in effect:
        assert played, f"{card}'s added effect was never offered"
