"""Rulebook: Overview, Components, Player Components and Setup (lines 53-134), sentence by sentence."""

from __future__ import annotations

import pytest

from contracts.grid import HARBOR, SQUARES, neighbours
from rules import api
from rules.dead_reckoning.cards import load_catalog
from rules.errors import Illegal

from .support import act, game, two


def test_components_the_engine_keeps_in_its_supply():
    """ "16 Ocean boards (12 with islands, 4 with open sea)"; "20 Buildings (8 Forts, 8 Garrisons, and 4
    Outposts)"; "20 Black cubes"."""
    state = game(2)
    kinds = [b["kind"] for b in load_catalog().boards.values()]
    assert kinds.count("island") == 12 and kinds.count("open_sea") == 4
    supply = state.data["supply"]
    assert (supply["fort"], supply["garrison"], supply["outpost"], supply["black"]) == (8, 8, 4, 20)


@pytest.mark.parametrize("n", [2, 3, 4])
def test_the_ocean_grid_is_three_by_four_and_row_one_touches_the_harbor(n):
    """ "Shuffle them (keeping them face down) and place them in a 3 x 4 grid as shown in the image." and
    "Flip the 3 Ocean boards touching the Harbor board face up." and "for each of the Ocean boards adjacent
    to the Harbor board, take 1 card out of the row 1 box and place it face up on the open card space.\""""
    state = game(n, seed=n)
    grid = state.data["grid"]
    assert sorted(grid) == sorted(SQUARES) and len(SQUARES) == 12
    assert sorted(neighbours(HARBOR)) == ["r1c1", "r1c2", "r1c3"]
    face_up = [sq for sq in SQUARES if grid[sq]["board"] is not None]
    assert sorted(face_up) == ["r1c1", "r1c2", "r1c3"]
    for sq in face_up:
        assert grid[sq]["card"] in load_catalog().cards and load_catalog().cards[grid[sq]["card"]]["row"] == 1
    # "Separate the Advancements / Encounters into 4 decks based on the "Row" icon"
    for row, box in state.data["decks"].items():
        assert all(load_catalog().cards[c]["row"] == int(row) for c in box)


def test_each_player_gets_their_own_things():
    """ "15 Coins in their Treasure chest." "30 cubes in their color." "1 Ship board with one of their cubes
    on the 0 space of the Sail track." "6 Achievement markers." "1 Ship miniature that each player places
    onto the harbor board." "A Sailor deck of their 12 Sailor cards, shuffled and placed face down in front
    of them.\""""
    state = game(3, seed=4)
    for color in state.players:
        p = state.data["p"][color]
        assert p["chest"] == 15 and p["markers"] == 6
        assert p["cubes"] == 30 - 1  # one of the 30 sits on the Sail track
        assert p["ship"]["sails"] == 0 and p["ship"]["at"] == "harbor"
        assert len(p["cards"]) == 12 and len(p["deck"]) + len(p["hand"]) == 12


def test_the_starting_sailor_deck():
    """ "Each player should have 1 Captain, 1 Bosun, 1 Purser, 1 First Mate, 1 Buccaneer, 2 Gunners, 2 Deck
    Hands, and 3 Crew." and "flip the Ability card so that the level 1 is showing\""""
    state = game(2, seed=3)
    for color in state.players:
        cards = state.data["p"][color]["cards"].values()
        kinds = sorted(c["sailor"] for c in cards)
        assert kinds == sorted(
            ["captain", "bosun", "purser", "first-mate", "buccaneer"]
            + ["gunner"] * 2
            + ["deck-hand"] * 2
            + ["crew"] * 3
        )
        assert all(c["level"] == 1 and set(c["slots"].values()) == {None} for c in cards)


def test_the_harbor_is_one_space_for_movement():
    """ "Where you place it on the harbor board does not matter as the harbor board is all one space for the
    purposes of movement.\""""
    state, me, _ = two()
    state, _ = act(state, "set_sails")
    for sq in ("r1c1", "r1c2", "r1c3"):  # every row-1 board is one Sail away
        moved, _ = act(state, "move", path=[sq])
        assert moved.data["p"][me]["ship"]["sails"] == state.data["p"][me]["ship"]["sails"] - 1


def test_coins_are_never_placed_on_the_dock():
    """ "Usually when you gain Cargo, it is placed on your Dock tile. Coins are never placed on your Dock
    tile, but can be used from your Treasure chest as though they are.\""""
    state, me, _ = two()
    state.data["p"][me]["ship"]["holds"][0] = [1, 2]
    chest, dock = state.data["p"][me]["chest"], state.data["p"][me]["dock"]
    state, _ = act(state, "unload", hold=0, cargo=1, coins=2)
    p = state.data["p"][me]
    assert p["dock"] == dock + 1 and p["chest"] == chest + 2


@pytest.mark.parametrize("n", [2, 3, 4])
def test_draw_four_then_the_first_player_and_starting_cargo(n):
    """ "All players then draw the top 4 cards of their Sailor deck into their hand. Then, randomly determine
    a first player. That player gains 1 Cargo. The next player in clockwise order gains 2 Cargo, the 3rd
    player, if any, gains 3 Cargo, and the 4th player, if any, gains 2 Cargo and may level up one of their
    Sailor cards in their opening hand before their first turn (see Leveling). Place any gained Cargo on
    your Dock tile.\""""
    state = game(n, seed=11, auto_chance=False)
    d = state.data
    while d["pending"] and d["pending"][0]["kind"] != "choose_first_player":
        req = d["pending"][0]
        from rules.dead_reckoning.chance import draw_chance

        state, _ = act(
            state,
            req["kind"],
            player="table",
            **{k: v for k, v in draw_chance(d, req).items() if k != "type"},
        )
        d = state.data
    assert d["pending"][0]["kind"] == "choose_first_player"
    assert all(len(d["p"][c]["hand"]) == 4 for c in d["players"])  # hands drawn before the first player
    seats = list(d["players"])
    first = seats[-1]  # the table says who: the engine does not pick a fixed seat
    state, _ = act(state, "choose_first_player", player="table", first=first)
    d = state.data
    order = d["players"]
    assert order[0] == first and order == seats[-1:] + seats[:-1]  # clockwise from the first player
    assert [d["p"][c]["dock"] for c in order] == [1, 2, 3, 2][:n]
    assert [d["p"][c]["level_up"] for c in order] == [False, False, False, True][:n]


def test_the_fourth_player_levels_up_a_card_of_the_opening_hand_before_their_first_turn():
    """ "the 4th player, if any, gains 2 Cargo and may level up one of their Sailor cards in their opening
    hand before their first turn\""""
    state = game(4, seed=3)
    fourth = state.data["players"][3]
    card = state.data["p"][fourth]["hand"][0]
    state, _ = act(state, "level_up", player=fourth, card=card)
    assert state.data["p"][fourth]["cards"][card]["level"] == 2
    with pytest.raises(Illegal):  # one card only
        act(state, "level_up", player=fourth, card=state.data["p"][fourth]["hand"][1])
    second = state.data["players"][1]
    with pytest.raises(Illegal):  # the other seats get no level-up
        act(state, "level_up", player=second, card=state.data["p"][second]["hand"][0])


def test_the_treasure_chest_is_secret():
    """ "1 Treasure chest in their color to keep their Coins secret from other players.\""""
    state, me, other = two()
    state.data["p"][me]["chest"] = 23
    public = api.public_view(state)
    assert "23" not in str(public["p"][me]) and "chest" not in public["p"][me]
    assert api.private_view(state, me)["you"]["chest"] == 23
    assert "chest" not in str(api.private_view(state, other)["p"][me])


def test_a_merchants_back_is_hidden_until_it_is_attacked():
    """ "Encounters have hidden information on the back." and "During the game when drawing from the boxes, be
    careful not to turn over the Advancements when you draw them as some are double-sided with secret
    information on the back.\""""
    state, me, other = two()
    state.data["grid"]["r1c1"]["card"] = "r2-06"  # Spice Merchant: 3 black cubes, Win: 3 Coins + 1 Cargo
    for view in (api.public_view(state), api.private_view(state, me), api.private_view(state, other)):
        card = view["grid"]["r1c1"]["card"]
        assert card["merchant"] and not {"encounter", "win", "lose", "cubes"} & set(card)
