"""More of the rulebook's sentences: flipped Develop, Upgrade Tiles affecting a whole class, Fort tile
effects, Damaged Ships in Combat, Standard Combat Card abilities, Piles running out, rare cases."""

from __future__ import annotations

import pytest

from rules import api
from rules.errors import Illegal
from rules.great_sea.develop import fleet_limit
from rules.great_sea.fortify import fort_requirement
from rules.great_sea.upgrades import fort_stats, ship_stats

from .helpers import act, clear_map, open_card, ship, started
from .test_combat import fight, game, unit


def me(s):
    return s.data["p"][s.data["turn_player"]]


def test_flipped_develop_also_gains_a_resource():
    # "When flipped, the 1st Effect also gains 1 Coin or 1 Wood."
    s = started(2)
    p = me(s)
    p["cards"] = {**p["cards"], "1": {"id": "develop", "flipped": True}}
    wood = p["wood"]
    s = open_card(s, 1)
    s, _ = act(s, "develop_pip", die="develop", gain="wood")
    assert me(s)["wood"] == wood + 1


def test_two_wood_for_two_pips():
    # "spend 2 Wood to gain 2 pips"
    s = started(2)
    me(s)["wood"], me(s)["dice"] = 2, [3, 1, 1, 1, 1, 1]
    s = open_card(s, 1)
    s, _ = act(s, "develop_second", choice="wood_pips", dice=["trade", "trade"])
    assert me(s)["wood"] == 0 and me(s)["dice"][2] == 3


def test_upgrades_affect_all_ships_of_their_class():
    # "if a Medium Ship gains an Upgrade Tile that has an extra Speed icon, all Medium Ships of that player
    # now have extra Speed."
    s = started(2)
    p = me(s)
    before = ship_stats(p, "medium")["speed"]
    p["ship_tiles"]["medium"]["stern"] = {"tile": "stern_speed2:1", "flipped": False}
    assert ship_stats(p, "medium")["speed"] == before + 1  # the tile's 2 Speed replaces the printed 1
    # "Flipping Sterns always provides 1 additional Shield."
    p["ship_tiles"]["medium"]["stern"]["flipped"] = True
    assert ship_stats(p, "medium")["shields"] == 1


def test_fort_tile_effects_fleet_limit_and_die_reduction():
    # "Forts with this effect increase a player's Fleet Limit in each region with that Fort by 1." / "Forts
    # with this effect can be placed even if a player's Fortify Die is short by 1 pip."
    s = started(2)
    c = s.data["turn_player"]
    p = me(s)
    clear_map(s)
    reg = s.data["regions"]["r1c1"]
    reg["forts"] = [[c, "stronghold"], [c, "stronghold"]]
    p["fort_tiles"]["stronghold"] = ["fort_fleet:0"]
    p["fort_places"]["stronghold"] = [[0, 1, 0, 2]]
    assert fleet_limit(reg, p, c) == 8 + 2  # each Fort of that Class in the region adds its instance
    assert fort_requirement(p, "outpost") == 2
    p["fort_tiles"]["outpost"] = ["fort_speed:7"]  # the sample tile with a Fortify Die reduction
    p["fort_places"]["outpost"] = [[0, 1, 0, 2]]
    assert fort_stats(p, "outpost")["fortify_reduction"] == 1
    assert fort_requirement(p, "outpost") == 1


def test_rare_case_fort_from_the_main_supply():
    # "if they are all already on the Main Board, they cannot place any more of that Class."
    s = started(2)
    p = me(s)
    p["forts"]["outpost"] = 0
    assert fort_requirement(p, "outpost") is None
    p["forts_supply"]["outpost"] = 1  # "they may place 1 that was previously removed to the Main Supply"
    assert fort_requirement(p, "outpost") == 6


def test_damaged_ship_enters_combat_with_one_health():
    # "they still contribute their full Combat Stats, but only have 1 Health available"
    s = game(["red", "blue"])
    clear_map(s)
    a = s.data["turn_player"]
    b = next(c for c in s.data["players"] if c != a)
    ship(s, a, "large", "r1c1")
    ship(s, b, "large", "r1c1", damaged=True)
    s, att, dfn, _ = fight(s, "r1c1")
    u = s.data["combat"]["units"][dfn][0]
    assert u["health"] == 1 and u["stats"]["attack"] == ship_stats(s.data["p"][dfn], "large")["attack"]


def test_card_turned_back_when_temple_post_is_lost():
    # "if a player loses ownership of a Temple Trade Post, they must turn their associated Action Card back"
    s = started(2)
    a = s.data["turn_player"]
    b = next(c for c in s.data["players"] if c != a)
    clear_map(s)
    temple = next(r for r, reg in s.data["regions"].items() if reg["temple"])
    n = str(s.data["regions"][temple]["temple"])
    s.data["regions"][temple]["post"] = [b, False]
    from rules.great_sea.temples import recheck

    recheck(s.data, [])
    assert s.data["p"][b]["cards"][n]["flipped"]
    ship(s, a, "small", temple)
    me(s)["dice"][2] = 6
    s = open_card(s, 3)
    s, _ = act(s, "trade", gains=["post"], region=temple)
    assert not s.data["p"][b]["cards"][n]["flipped"] and s.data["p"][a]["cards"][n]["flipped"]


def test_move_one_way_per_pip():
    # "Move any number of Ships into that region from any number of regions, or Move any number of Ships out
    # of that region into any number of regions."
    s = started(4, seed=3)
    c = s.data["turn_player"]
    clear_map(s)
    ship(s, c, "small", "r2c2")
    ship(s, c, "small", "r2c1")
    me(s)["dice"] = [3, 1, 1, 1, 1, 3]
    s = open_card(s, 6)
    with pytest.raises(Illegal, match="not both ways"):
        act(s, "move", region="r2c2", moves=[["r2c2", "r2c3", "small"], ["r2c1", "r2c2", "small"]])
    s, _ = act(s, "move", region="r2c3", moves=[["r2c2", "r2c3", "small"], ["r2c1", "r2c3", "small"]])
    assert sum(1 for x in s.data["regions"]["r2c3"]["ships"] if x["owner"] == c) == 2


def test_research_summary_example():
    # "with a Research Die value of 5, a player could remove 1 Upgrade Tile, gain 3 Upgrade Tiles, and spend
    # 1 less Coin in the process."
    s = started(2)
    p = me(s)
    p["dice"], p["coins"] = [5, 1, 1, 5, 1, 1], 30
    s = open_card(s, 4)
    s, _ = act(s, "research_remove", pile=s.data["rows"]["bow"][0])
    for row in ("stern", "hull"):
        s, _ = act(s, "research_gain", pile=s.data["rows"][row][-1], cls="small")
    s, _ = act(s, "research_gain", pile=s.data["rows"]["bow"][-1], cls="small", discount=1)
    assert s.data["turn"]["open"]["pips"] == 0
    with pytest.raises(Illegal, match="pips"):
        act(s, "research_gain", pile=s.data["rows"]["fort"][-1], fort="outpost")


def test_empty_pile_reshuffles_its_discards():
    # "Should a Pile ever run out, shuffle any discards of that type to form a new Pile. If there are no
    # discarded Tiles available, its Pile simply remains empty."
    s = started(2)
    pile = s.data["rows"]["hull"][-1]
    tiles = s.data["piles"][pile]
    s.data["discards"][pile] = tiles[1:]
    s.data["piles"][pile] = tiles[:1]
    me(s)["dice"], me(s)["coins"] = [3, 1, 1, 3, 1, 1], 20
    s = open_card(s, 4)
    s, _ = act(s, "research_gain", pile=pile, cls="small")
    assert s.data["piles"][pile] == [] and s.data["discards"][pile]
    s2 = started(2)
    s2.data["piles"][pile] = []
    s2.data["discards"][pile] = []
    me(s2)["dice"], me(s2)["coins"] = [3, 1, 1, 3, 1, 1], 20
    s2 = open_card(s2, 4)
    with pytest.raises(Illegal, match="empty"):
        act(s2, "research_gain", pile=pile, cls="small")


def _standard_fight(att_card, def_card, att_units, def_units):
    s = game(["red", "blue"], cards="standard")
    clear_map(s)
    a = s.data["turn_player"]
    b = next(c for c in s.data["players"] if c != a)
    for u in att_units:
        ship(s, a, u["cls"], "r1c1")
    for u in def_units:
        ship(s, b, u["cls"], "r1c1")
    s.data["regions"]["r1c1"]["post"] = [b, False]
    s, att, dfn, _ = fight(s, "r1c1", {a: att_units, b: def_units}, pips=1)
    s, _ = act(s, "play_combat_card", player=att, card=att_card[0], side=att_card[1])
    s, ev = act(s, "play_combat_card", player=dfn, card=def_card[0], side=def_card[1])
    while s.data["combat"] is not None and s.data["combat"]["stage"] == "damage":
        who = s.data["combat"]["await"]["player"]
        s, more = api.apply(s, {"seq": s.seq, "player": who, "action": api.legal_actions(s, who)[0]})
        ev += more
    return s, att, dfn, ev


def test_mutiny_ability():
    # "Your opponent loses 2 Strength per Ship that they have, and you gain 1 Strength per Ship they have"
    s, att, dfn, ev = _standard_fight(
        ("mutiny", "ability"),
        ("hubris", "stats"),
        [unit("ship", "large", 3, strength=1)],
        [unit("ship", "small", 3, strength=5), unit("ship", "small", 3, strength=0)],
    )
    st = next(e for e in ev if e["type"] == "combat_stats")["stats"]
    assert st[att]["strength"] == 1 + 2 and st[dfn]["strength"] == 5 - 4 - 3


def test_pillage_removes_the_opposing_trade_post_and_hubris_gives_the_victor_a_worker():
    # Pillage: "If victorious in Combat, remove an opposing Trade Post from the region if there is 1 present."
    # Hubris: "The victor of this Combat gains 1 Neutral Worker."
    s, att, dfn, ev = _standard_fight(
        ("pillage", "ability"),
        ("hubris", "ability"),
        [unit("ship", "large", 3, attack=5)],
        [unit("ship", "small", 1)],
    )
    assert next(e for e in ev if e["type"] == "combat_won")["winner"] == att
    assert s.data["regions"]["r1c1"]["post"] is None
    assert s.data["p"][att]["neutral"] == 1


def test_ramming_speed_and_safe_harbour():
    # Ramming Speed: "deal 1 Damage to 2 opposing Ships of different Classes ... Also gain 2 Coins."
    # Safe Harbour: "repair all your Ships that were Damaged in the Combat ... Also gain 2 Wood."
    s = game(["red", "blue"], cards="standard")
    coins = {c: s.data["p"][c]["coins"] for c in s.players}
    wood = {c: s.data["p"][c]["wood"] for c in s.players}
    s, att, dfn, ev = _standard_fight(
        ("ramming_speed", "ability"),
        ("safe_harbour", "ability"),
        [unit("ship", "large", 3, attack=2, strength=9)],
        [unit("ship", "medium", 3, strength=0), unit("ship", "large", 3)],
    )
    rammed = [e for e in ev if e["type"] == "rammed"]
    assert {e["cls"] for e in rammed} == {"medium", "large"}
    assert s.data["p"][att]["coins"] == coins[att] + 2
    assert s.data["p"][dfn]["wood"] >= wood[dfn] + 2
    if s.data["combat"] is not None:
        opts = api.legal_actions(s, dfn)
        s, _ = act(s, "consolation", player=dfn, **{k: v for k, v in opts[-1].items() if k != "type"})
    home = s.data["p"][dfn]["home"]
    # the rammed Ships are laid down ("This does not repair ... those Damaged by Ramming Speed")
    assert sum(1 for x in s.data["regions"][home]["ships"] if x["owner"] == dfn and x["damaged"]) == 2


def test_foundation_pip_goes_where_the_player_says():
    # "When placing a Fort, players immediately gain the benefit printed on the Foundation. This will be to
    # gain 2 Coins, 2 Wood, or 1 pip."
    s = started(2)
    c = s.data["turn_player"]
    clear_map(s)
    s.data["regions"]["r1c1"]["foundations"] = ["pip"]
    ship(s, c, "small", "r1c1")
    me(s)["dice"] = [4, 2, 1, 1, 1, 1]
    s = open_card(s, 2)
    s, _ = act(s, "fortify", region="r1c1", fort="outpost", dice=["mobilise"])
    assert me(s)["dice"] == [4, 2, 1, 1, 1, 2]


def test_observed_chance_the_table_reports_first_player_and_deal():
    # "Randomly determine a first player." / "Turn this unselected Pile faceup, shuffle it, and deal 1 card
    # randomly to each player." (reported by the table when the game does not draw them itself)
    s = api.new_game(["red", "blue"], 1, {"game": "great-sea", "auto_chance": False})
    assert api.public_view(s)["waiting_for"] == [{"type": "choose_first_player"}]
    assert api.legal_actions(s, "red") == []
    with pytest.raises(Illegal, match="reported by the table"):
        act(s, "choose_first_player", player="red", first="red")
    s, _ = act(s, "choose_first_player", player="table", first="blue")
    assert s.data["players"] == ["blue", "red"] and s.active == "red"
    for _ in range(2):
        s, _ = act(s, "choose_special", pile=sorted(s.data["specials"])[0])
    (pile,) = s.data["specials"].values()
    with pytest.raises(Exception, match="one different card"):
        act(s, "deal_special", player="table", cards={"blue": pile[0], "red": pile[0]})
    s, _ = act(s, "deal_special", player="table", cards={"blue": pile[0], "red": pile[1]})
    assert s.data["stage"] == "pips" and s.active == "blue"
