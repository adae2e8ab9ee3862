"""Setup of The Great Sea (rulebook: "Setup", "Final Setup Steps", "Starting Resources and Pips")."""

from __future__ import annotations

import pytest

from rules import api
from rules.errors import Illegal
from rules.great_sea.map import adjacent, spec
from rules.great_sea.special_actions import specials

from .helpers import COLORS, act, new, started


@pytest.mark.parametrize("n", [2, 3, 4])
def test_main_board_side_per_player_count(n):
    # "Place the 4 Main Boards together using the sides required for the chosen player count."
    s = new(n)
    assert s.data["map"] == str(n)
    temples = [r for r, reg in s.data["regions"].items() if reg["temple"] is not None]
    # one Special Action Card Pile per Temple, and "each player will select ... leaving 1 Pile"
    assert len(temples) == n + 1 == len(s.data["specials"])
    homes = {reg["home"] for reg in s.data["regions"].values() if reg["home"]}
    assert homes == set(COLORS[:n])


def test_two_player_reef_separates_regions():
    # "2 Player Map only: Note that the rocky reef in the bottom-right quadrant separates those adjoining
    # regions, causing them not to be adjacent."
    assert not adjacent("2", "r2c2", "r2c3")
    assert adjacent("4", "r2c2", "r2c3")
    assert spec("2")["reef"]


def test_home_pieces_and_trade_post_rule():
    # "Place 1 of their Trade Posts facedown ... on the outlined space of their home region (if only 2
    # players, instead return this Trade Post to the box)."
    s2, s3 = new(2), new(3)
    for s in (s2, s3):
        for c, p in s.data["p"].items():
            home = s.data["regions"][p["home"]]
            # "Place 1 of their Strongholds and 1 of their Outposts on the indicated spaces of their home
            # region."
            assert sorted(f[1] for f in home["forts"] if f[0] == c) == ["outpost", "stronghold"]
            # "Place their remaining 6 Small Ships, 4 Medium Ships, and 2 Large Ships above ... their Player
            # Board."
            assert p["ships"] == {"small": 6, "medium": 4, "large": 2}
    assert all(s2.data["regions"][p["home"]]["post"] is None for p in s2.data["p"].values())
    assert all(s3.data["regions"][p["home"]]["post"] == [c, True] for c, p in s3.data["p"].items())


def test_special_cards_chosen_in_reverse_turn_order_then_dealt():
    # "in reverse turn order (counterclockwise from the player seated to the right of the first player), each
    # player selects a Special Action Card"
    s = new(4, seed=5)
    order = s.data["players"]
    assert s.data["order"] == list(reversed(order))
    assert s.active == order[-1]
    with pytest.raises(Illegal):
        act(s, "choose_special", player=order[0], pile=next(iter(s.data["specials"])))
    for _ in range(4):
        pile = sorted(s.data["specials"])[0]
        top = s.data["specials"][pile][0]
        who = s.active
        s, _ = act(s, "choose_special", pile=pile)
        # "a player takes the top Card of a chosen Pile, returning all others from that Pile to the box"
        assert pile not in s.data["specials"]
        assert s.data["p"][who]["cards"][pile]["id"] == top
    # the unselected Pile was dealt 1 card each (auto chance), and "Each player should now have 2 Special
    # Action Cards, and 4 Player Action Cards"
    assert s.data["stage"] == "pips"
    for p in s.data["p"].values():
        ids = [c["id"] for c in p["cards"].values()]
        assert sum(1 for i in ids if i in specials()) == 2
        assert not any(c["flipped"] for c in p["cards"].values())


def test_starting_resources_two_player_rule():
    # "2 Player Games Only: The 2nd player gains the 3rd player resources and pips instead."
    s = new(2, seed=3)
    while s.data["stage"] != "pips":
        s, _ = api.apply(s, {"seq": s.seq, "player": s.active, "action": api.legal_actions(s, s.active)[0]})
    first, second = s.data["players"]
    assert (s.data["p"][first]["wood"], s.data["p"][first]["coins"]) == (4, 3)
    assert (s.data["p"][second]["wood"], s.data["p"][second]["coins"]) == (5, 3)
    # "the first pip that players gain during Setup must always be applied to their Develop Die"
    with pytest.raises(Illegal, match="Develop Die"):
        act(s, "setup_pips", dice=["fortify", "develop", "develop"])
    s, _ = act(s, "setup_pips", dice=["develop", "develop", "fortify"])
    with pytest.raises(Exception, match="4 pips"):
        act(s, "setup_pips", dice=["develop", "develop", "fortify"])
    s, _ = act(s, "setup_pips", dice=["develop", "develop", "fortify", "trade"])
    assert s.phase == "main" and s.active == first
    assert s.data["p"][second]["dice"][:3] == [3, 2, 2]


def test_four_player_starting_rows():
    s = started(4, seed=2)
    got = [(s.data["p"][c]["wood"], s.data["p"][c]["coins"]) for c in s.data["players"]]
    assert got == [(4, 3), (5, 4), (5, 3), (6, 4)]
    # "Place 1 Die onto each Action Card with a value of 1", then 3, 3, 4, 4 pips
    assert [sum(s.data["p"][c]["dice"]) - 6 for c in s.data["players"]] == [3, 3, 4, 4]
