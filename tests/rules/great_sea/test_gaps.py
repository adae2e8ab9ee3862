"""Rulebook sentences the first tests left open (docs/rules-coverage.md, The Great Sea)."""

from __future__ import annotations

import pytest

from rules import api
from rules.errors import Illegal
from rules.great_sea.end_of_game import advance, check_end
from rules.great_sea.upgrades import tile_cost, tile_types

from .helpers import act, clear_map, open_card, ship, started
from .test_combat import fight, game, unit
from .test_special_actions import with_card


def me(s):
    return s.data["p"][s.data["turn_player"]]


def test_tile_counts():
    # "81 Ship Upgrade Tiles (27 Stern, 27 Hull, 27 Bow)" / "36 Fort Upgrade Tiles (9 Small, 27 Large)"
    rows: dict[str, int] = {}
    for t in tile_types().values():
        rows[t["row"]] = rows.get(t["row"], 0) + len(t["tiles"])
    assert rows == {"stern": 27, "hull": 27, "bow": 27, "fort": 27, "small_fort": 9}


def test_small_fort_pile_costs_two():
    # "The 9 Small Fort Upgrade Tiles should be above the 2-Coin slot." / "the 2-Coin column will only ever
    # contain 1 Pile of Fort Upgrade Tiles"
    s = started(2)
    assert s.data["rows"]["small_fort"] == ["fort_small"]
    assert tile_cost(s.data, "fort_small") == 2


def test_start_pip_with_two_trade_posts():
    # "Exhaust 2 Trade Posts or spend 4 Coins to gain 1 pip (increase 1 die by 1)."
    s = started(2)
    c = s.data["turn_player"]
    for r in ("r1c1", "r1c2"):
        s.data["regions"][r]["post"] = [c, False]
    s, _ = act(s, "start_pip", die="develop", pay="posts")
    assert all(s.data["regions"][r]["post"][1] for r in ("r1c1", "r1c2"))


def test_improving_a_ship_class_tile():
    # "The cost to improve a Ship Class Tile is shown by the Coin value in the top banner ... When paying the
    # first time, turn the Ship Class Tile to its opposite side."
    s = started(2)
    me(s)["coins"] = 5
    s = open_card(s, 1)
    s, _ = act(s, "develop_second", choice="improve", tiles=["small", "small"])
    assert me(s)["classes"]["small"] == 2 and me(s)["coins"] == 0  # sample banners 2 then 3 Coins
    from rules.great_sea.construct import ship_cost

    assert ship_cost(me(s), "small") == 2  # "2-3 Wood for Small Ships"


def test_foundation_modifier_gains_the_benefit_again():
    # "an Outpost with 3 of these when placed would gain 3x the Foundation benefit"
    s = started(2)
    c = s.data["turn_player"]
    clear_map(s)
    s.data["regions"]["r1c1"]["foundations"] = ["wood"]
    ship(s, c, "small", "r1c1")
    me(s)["dice"] = [3, 2, 1, 1, 1, 1]
    me(s)["fort_tiles"]["outpost"] = ["fort_small:6", "fort_small:7"]  # two sample Foundation modifiers
    me(s)["fort_places"]["outpost"] = [[0, 1], [0, 2]]  # beside the printed x1, which stays visible
    wood = me(s)["wood"]
    s = open_card(s, 2)
    s, _ = act(s, "fortify", region="r1c1", fort="outpost")
    assert me(s)["wood"] == wood + 3 * 2


def test_covered_ship_tile_is_removed():
    # "Alternatively, players may choose to remove the covered Upgrade Tile from the game entirely."
    s = started(2)
    p = me(s)
    p["coins"], p["dice"] = 20, [3, 1, 1, 3, 1, 1]
    pile = s.data["rows"]["bow"][-1]
    p["ship_tiles"]["large"]["bow"] = {"tile": "bow_attack:3", "flipped": False}
    s = open_card(s, 4)
    s, ev = act(s, "research_gain", pile=pile, cls="large")
    assert me(s)["ship_tiles"]["large"]["bow"]["tile"] != "bow_attack:3"
    assert any(e["type"] == "tile_removed" and e["tile"] == "bow_attack:3" for e in ev)


def test_initiating_combat_ends_the_mobilise_action():
    # "Before using a pip to initiate a Combat, players must have finished all their movement for this
    # action."
    s = game(["red", "blue"])
    clear_map(s)
    a = s.data["turn_player"]
    b = next(c for c in s.data["players"] if c != a)
    ship(s, a, "large", "r1c1")
    ship(s, a, "small", "r1c2")
    ship(s, b, "small", "r1c1")
    s, att, dfn, _ = fight(s, "r1c1", pips=4)
    s, _ = act(s, "play_combat_card", player=att, card="basic_attack")
    s, _ = act(s, "play_combat_card", player=dfn, card="basic_bluff")
    while s.data["combat"] is not None:
        who = s.active
        s, _ = api.apply(s, {"seq": s.seq, "player": who, "action": api.legal_actions(s, who)[0]})
    assert s.data["turn"]["open"] is None
    with pytest.raises(Illegal):
        act(s, "move", region="r1c1", moves=[["r1c2", "r1c1", "small"]])


def test_combat_changes_temple_control():
    # "It is possible for Combat to cause players to gain or lose Control of Temple regions."
    s = game(["red", "blue"])
    clear_map(s)
    a = s.data["turn_player"]
    b = next(c for c in s.data["players"] if c != a)
    temple = next(r for r, reg in s.data["regions"].items() if reg["temple"])
    ship(s, a, "large", temple)
    ship(s, b, "small", temple)
    s.data["regions"][temple]["post"] = [b, False]
    from rules.great_sea.temples import recheck

    recheck(s.data, [])
    assert s.data["p"][b]["temple"] == 2 and s.data["p"][a]["temple"] == 0
    units = {a: [unit("ship", "large", 3, attack=5)], b: [unit("ship", "small", 1)]}
    s, att, dfn, _ = fight(s, temple, units, pips=1)
    s, _ = act(s, "play_combat_card", player=att, card="basic_bluff")
    s, _ = act(s, "play_combat_card", player=dfn, card="basic_bluff")
    s, ev = act(
        s,
        "consolation",
        player=dfn,
        **{k: v for k, v in api.legal_actions(s, dfn)[-1].items() if k != "type"},
    )
    assert s.data["p"][a]["temple"] == 1 and s.data["p"][b]["temple"] == 1  # Control moved; the Post stays


def test_skulduggery_copies_the_opposing_cards_stats():
    # "Skulduggery — Ability: Copy the Combat Stats of your opponent's Combat Card, regardless of what
    # orientation their Combat Card is in."
    s = game(["red", "blue"], cards="standard")
    clear_map(s)
    a = s.data["turn_player"]
    b = next(c for c in s.data["players"] if c != a)
    ship(s, a, "large", "r1c1")
    ship(s, b, "large", "r1c1")
    units = {a: [unit("ship", "large", 9)], b: [unit("ship", "large", 9)]}
    s, att, dfn, _ = fight(s, "r1c1", units, pips=1)
    s, _ = act(s, "play_combat_card", player=att, card="skulduggery", side="ability")
    s, ev = act(s, "play_combat_card", player=dfn, card="reinforce", side="stats")
    st = next(e for e in ev if e["type"] == "combat_stats")["stats"]
    assert st[att]["shields"] == 1 and st[att]["strength"] == 5  # Reinforce's stats side, copied


def test_mobilise_card_combat_gain():
    # "4th Effect: Gain 2 Strength when initiating Combat."
    s, p = with_card("mobilise_strength")
    c = s.data["turn_player"]
    o = next(x for x in s.data["players"] if x != c)
    clear_map(s)
    ship(s, c, "large", "r1c1")
    ship(s, o, "large", "r1c1")
    p["dice"] = [2, 1, 1, 1, 1, 1]
    s = open_card(s, 6)
    s, ev = act(s, "initiate_combat", region="r1c1", opponent=o)
    st = next(e for e in ev if e["type"] == "combat_started")["stats"]
    assert st[c]["strength"] - st[o]["strength"] == 2


def test_pip_for_a_coin_and_changed_second_effects():
    # "3rd Effect: Spend 1 Coin to gain 1 pip." / "Change to 2nd Effect: Gain 1 pip and 2 Coins."
    s, p = with_card("develop_coin_pip")
    p["coins"] = 1
    s = open_card(s, 1)
    s, _ = act(s, "special_effect", die="develop")
    assert me(s)["coins"] == 0
    s, p = with_card("construct_pip_coins")
    coins = p["coins"]
    s = open_card(s, 5)
    s, _ = act(s, "construct_pip", die="develop")
    assert me(s)["coins"] == coins + 2


def test_fort_speed_tile_helps_ships_leaving():
    # "Fort Upgrade Tiles ... provide additional Speed for all Ships leaving regions with the Upgraded Forts."
    s = started(4, seed=3)
    c = s.data["turn_player"]
    clear_map(s)
    ship(s, c, "medium", "r2c2")
    s.data["regions"]["r2c2"]["forts"].append([c, "outpost"])
    me(s)["fort_tiles"]["outpost"] = ["fort_speed:0"]
    me(s)["fort_places"]["outpost"] = [[0, 1, 0, 2]]
    me(s)["dice"] = [3, 1, 1, 1, 1, 3]
    s = open_card(s, 6)
    s, _ = act(s, "move", region="r2c4", moves=[["r2c2", "r2c4", "medium"]])  # 2 borders with Speed 1 + 1


def test_track_benefits_and_simultaneous_end():
    # "If they cross over any paths showing icons, they immediately gain those printed benefits"
    s = started(2)
    c = s.data["turn_player"]
    wood = me(s)["wood"]
    out: list[dict] = []
    advance(s.data, c, "combat", 2, out)
    assert me(s)["wood"] == wood + 2 and out[0]["type"] == "track_reward"  # sample: space 2 gains 2 Wood
    # two players reaching the end at once: the first in turn order from the player whose turn it is
    other = next(x for x in s.data["players"] if x != c)
    for x in (c, other):
        s.data["p"][x]["trade"] = 10
    assert check_end(s.data, out) and s.data["winner"] == c
