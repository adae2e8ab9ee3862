"""Fort Upgrade Tiles on their grids (rulebook: "Gaining Upgrade Tiles", "Fortify") and the loser's retreat
to its Shipyards (rulebook: "Resolve Combat results")."""

from __future__ import annotations

import pytest

from rules import api
from rules.errors import Illegal
from rules.great_sea.upgrades import fort_places_for, fort_stats

from .helpers import act, clear_map, open_card, ship, started
from .test_combat import fight, game, unit


def me(s):
    return s.data["p"][s.data["turn_player"]]


def researching(pile_row: str = "fort"):
    """The turn player on Research with Coins and pips, the given row's cheapest Pile named."""
    s = started(2)
    p = me(s)
    p["coins"], p["dice"] = 30, [6, 1, 1, 6, 1, 1]
    s = open_card(s, 4)
    return s, s.data["rows"][pile_row][-1]


def test_fort_tiles_never_overhang_nor_cover_the_starting_health_space():
    # "they can never be overhanging the edges of the grid" / "players may never cover the starting Health
    # space of each grid"
    s, pile = researching()
    with pytest.raises(Illegal, match="overhanging"):
        act(s, "research_gain", pile=pile, fort="stronghold", place=[0, 2, 0, 3])
    with pytest.raises(Illegal, match="starting Health space"):
        act(s, "research_gain", pile=pile, fort="stronghold", place=[0, 0, 0, 1])
    with pytest.raises(Illegal, match="neighbouring"):
        act(s, "research_gain", pile=pile, fort="stronghold", place=[0, 1, 1, 2])
    s, _ = act(s, "research_gain", pile=pile, fort="stronghold", place=[0, 1, 0, 2])
    assert me(s)["fort_places"]["stronghold"] == [[0, 1, 0, 2]]


def test_fort_tiles_stack_only_evenly_and_cover_what_is_under_them():
    # "Upgrade Tiles may be stacked on top of others here, but they can never be ... placed in a way that they
    # are uneven (hanging off the edge of other Upgrade Tiles). Note that Fort Upgrade Tiles can be flipped or
    # rotated to any orientation."
    s, _ = researching()
    p = me(s)
    p["fort_tiles"]["outpost"] = ["fort_small:3"]  # 2 Attack
    p["fort_places"]["outpost"] = [[0, 1]]
    base = fort_stats(p, "outpost")["attack"]
    pile = "fort_health"
    with pytest.raises(Illegal, match="uneven"):
        act(s, "research_gain", pile=pile, fort="outpost", place=[0, 1, 0, 2])
    with pytest.raises(Illegal, match="uneven"):
        act(s, "research_gain", pile=pile, fort="outpost", place=[1, 1, 0, 1])  # rotated, still half up
    s, _ = act(s, "research_gain", pile=pile, fort="outpost", place=[1, 2, 0, 2])  # rotated, on the grid
    p = me(s)
    assert fort_stats(p, "outpost")["attack"] == base and fort_stats(p, "outpost")["health"] == 2
    # (0,1) holds the small tile and (0,2) the Large one's right half: a tile may lie across both
    assert [0, 1, 0, 2] in fort_places_for(p, "outpost", "fort_fleet:0")
    assert [1, 1, 1, 2] not in fort_places_for(p, "outpost", "fort_fleet:0")  # heights 0 and 1
    # what it covers counts no more: the small tile's 2 Attack go, the Large tile's own icons come
    p["fort_tiles"]["outpost"] = [*p["fort_tiles"]["outpost"], "fort_fleet:0"]  # Fleet Limit + 1 Attack
    p["fort_places"]["outpost"] = [*p["fort_places"]["outpost"], [0, 1, 0, 2]]
    assert fort_stats(p, "outpost")["attack"] == base - 2 + 1
    assert fort_stats(p, "outpost")["fleet"] == 1


def test_covering_the_printed_foundation_modifier_loses_it():
    # "Players are also permitted to cover the printed Foundation modifier on their Grids, but this would
    # cause them to lose that benefit."
    s = started(2)
    c = s.data["turn_player"]
    clear_map(s)
    ship(s, c, "small", "r1c1")
    s.data["regions"]["r1c1"]["foundations"] = ["wood"]
    p = me(s)
    p["dice"] = [3, 2, 1, 1, 1, 1]
    p["fort_tiles"]["outpost"] = ["fort_health:0"]
    p["fort_places"]["outpost"] = [[1, 0, 1, 1]]  # its left half lies on the printed x1
    assert fort_stats(p, "outpost").get("foundation", 0) == 0
    wood = p["wood"]
    s = open_card(s, 2)
    s, _ = act(s, "fortify", region="r1c1", fort="outpost")
    assert me(s)["wood"] == wood  # no Foundation benefit


def test_default_place_covers_nothing_printed():
    """A Fort tile sent without `place` goes where it covers the fewest visible icons (docs/great-sea.md)."""
    s, pile = researching()
    s, _ = act(s, "research_gain", pile=pile, fort="stronghold")
    pl = me(s)["fort_places"]["stronghold"][0]
    assert [1, 0] not in [pl[:2], pl[2:]] and [0, 0] not in [pl[:2], pl[2:]]
    assert fort_stats(me(s), "stronghold")["foundation"] == 1


def _lost_with_survivors(shipyard: bool):
    """blue attacks red in r1c1 and loses on Strength with a Large Ship surviving; with `shipyard`, blue has
    an Outpost in r2c2 whose grid holds a Shipyard icon (every class may use it)."""
    s = game(["red", "blue"])
    clear_map(s)
    a = s.data["turn_player"]
    b = next(c for c in s.data["players"] if c != a)
    ship(s, a, "large", "r1c1")
    ship(s, a, "small", "r1c1")
    ship(s, b, "large", "r1c1")
    if shipyard:
        s.data["regions"]["r2c2"]["forts"].append([a, "outpost"])
        s.data["p"][a]["fort_tiles"]["outpost"] = ["fort_speed:8"]  # sample: Attack and a Shipyard icon
        s.data["p"][a]["fort_places"]["outpost"] = [[0, 1, 0, 2]]
    units = {
        a: [unit("ship", "large", 3, strength=0), unit("ship", "small", 1, strength=0)],
        b: [unit("ship", "large", 3, strength=5)],
    }
    s, att, dfn, _ = fight(s, "r1c1", units, pips=1)
    s, _ = act(s, "play_combat_card", player=att, card="basic_bluff")
    s, _ = act(s, "play_combat_card", player=dfn, card="basic_bluff")
    assert s.data["combat"]["loser"] == att
    pip = next(o for o in api.legal_actions(s, att) if o["type"] == "consolation")
    s, ev = act(s, "consolation", player=att, **{k: v for k, v in pip.items() if k != "type"})
    return s, att, ev


def test_loser_with_several_shipyards_distributes_its_ships():
    # "move all of their Ships (including any Damaged Ships) that were not destroyed back to regions where
    # they have Shipyards. If they have multiple Shipyards, they may distribute surviving Ships as they
    # please, while still adhering to Fleet Limits in those regions."
    s, loser, _ = _lost_with_survivors(shipyard=True)
    assert s.data["combat"]["stage"] == "retreat" and s.active == loser
    home = s.data["p"][loser]["home"]
    offers = api.legal_actions(s, loser)
    assert {"type": "retreat", "to": [home, home]} in offers
    assert {"type": "retreat", "to": ["r2c2", "r2c2"]} in offers  # sizes 5 + 3 within the Fleet Limit of 8
    with pytest.raises(Illegal, match="Shipyard"):
        act(s, "retreat", player=loser, to=["r1c2", home])
    ship(s, loser, "medium", "r2c2")
    with pytest.raises(Illegal, match="Fleet Limit"):
        act(s, "retreat", player=loser, to=["r2c2", "r2c2"])  # 4 + 5 + 3 > 8
    s, ev = act(s, "retreat", player=loser, to=[home, "r2c2"])  # 4 + 3 fit
    assert s.data["combat"] is None
    assert any(x["owner"] == loser and x["cls"] == "small" for x in s.data["regions"]["r2c2"]["ships"])
    assert any(x["owner"] == loser and x["cls"] == "large" for x in s.data["regions"][home]["ships"])
    assert "retreated" in [e["type"] for e in ev]


def test_loser_with_only_its_home_shipyard_retreats_there_without_a_question():
    s, loser, ev = _lost_with_survivors(shipyard=False)
    assert s.data["combat"] is None
    home = s.data["p"][loser]["home"]
    assert sorted(x["cls"] for x in s.data["regions"][home]["ships"] if x["owner"] == loser) >= ["large"]
    assert "retreated" in [e["type"] for e in ev]
