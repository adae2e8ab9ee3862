"""Setup per player count, exactly as the rulebook's Setup section lays it out."""

from __future__ import annotations

import pytest

from contracts.grid import SQUARES
from rules import api
from rules.dead_reckoning.cards import load_catalog
from rules.dead_reckoning.chance import draw_chance
from rules.errors import Illegal, Invalid
from tests.rules.helpers import COLORS, act, game


@pytest.mark.parametrize("n, islands, open_seas", [(2, 8, 4), (3, 9, 3), (4, 10, 2)])
def test_ocean_boards_per_player_count(n, islands, open_seas):
    state = game(n, seed=n, auto_chance=False)
    d = state.data
    # reveal every square from the plausible choices, as a table would
    for sq in SQUARES:
        if d["grid"][sq]["board"] is None:
            d["pending"].insert(0, {"kind": "reveal_board", "square": sq})
            state, _ = act(
                state,
                "reveal_board",
                **{k: v for k, v in draw_chance(d, d["pending"][0]).items() if k != "type"},
            )
            d = state.data
            if d["pending"] and d["pending"][0]["kind"] == "draw_advancement":
                state, _ = act(state, "draw_advancement", square=sq, card=d["decks"][sq[1]][0])
                d = state.data
    cat = load_catalog()
    kinds = [cat.boards[d["grid"][sq]["board"]]["kind"] for sq in SQUARES]
    assert kinds.count("island") == islands and kinds.count("open_sea") == open_seas


def test_fresh_game_matches_the_rulebook():
    state = game(4, seed=3)
    d = state.data
    assert d["phase"] == "main" and d["active"] == d["players"][0]
    for sq in ("r1c1", "r1c2", "r1c3"):
        assert d["grid"][sq]["board"] and d["grid"][sq]["card"] and d["grid"][sq]["card"].startswith("r1-")
    assert all(d["grid"][sq]["board"] is None for sq in SQUARES[3:])
    for seat, color in enumerate(d["players"]):
        p = d["p"][color]
        assert p["chest"] == 15 and p["cubes"] == 29 and p["markers"] == 6
        assert len(p["hand"]) == 4 and len(p["deck"]) == 8
        assert p["dock"] == (1, 2, 3, 2)[seat]
        assert p["level_up"] == (seat == 3)
        kinds = sorted(c["sailor"] for c in p["cards"].values())
        assert kinds.count("crew") == 3 and kinds.count("gunner") == 2 and kinds.count("deck-hand") == 2
        assert {"captain", "purser", "first-mate", "bosun", "buccaneer"} <= set(kinds)
        assert p["ship"]["holds"] == [[0, 0], [0, 0]] and p["ship"]["at"] == "harbor"


def test_table_reports_chance_and_implausible_reports_are_refused():
    state = game(3, seed=5, auto_chance=False)
    assert state.data["pending"][0] == {"kind": "reveal_board", "square": "r1c1"}
    with pytest.raises(Invalid):
        act(state, "reveal_board", square="r1c1", board="island-99")
    with pytest.raises(Illegal):
        act(state, "reveal_board", square="r1c2", board="island-01")
    with pytest.raises(Illegal):  # open-sea-d is used only in 2-player games
        act(state, "reveal_board", square="r1c1", board="open-sea-d")
    state, events = act(state, "reveal_board", square="r1c1", board="island-01")
    assert events[0]["action"]["board"] == "island-01"
    with pytest.raises(Illegal):  # a row-2 card cannot come out of the row-1 box
        act(state, "draw_advancement", square="r1c1", card="r2-01")
    state, _ = act(state, "draw_advancement", square="r1c1", card="r1-03")
    with pytest.raises(Illegal):
        act(state, "reveal_board", square="r1c2", board="island-01")  # already on the table


def test_bonus_tokens_dealt_and_chosen_privately():
    state = game(2, seed=9, bonus_tokens=True)
    red = state.data["p"]["red"]
    assert len(red["bonus_offer"]) == 2
    state, _ = act(state, "choose_bonus", player="red", token=red["bonus_offer"][1])
    assert state.data["p"]["red"]["bonus"] is not None
    assert "bonus_token" not in str(api.public_view(state)["p"]["red"].get("bonus_token", ""))
    assert api.private_view(state, "red")["you"]["bonus_token"]


def test_bad_new_game_arguments():
    with pytest.raises(Invalid):
        api.new_game(["red"], 1)
    with pytest.raises(Invalid):
        api.new_game(COLORS + ["purple"], 1)
    with pytest.raises(Invalid):
        api.new_game(["red", "red"], 1)
    with pytest.raises(Invalid):
        api.new_game(["red", "blue"], 1, {"speed": 3})


def test_setup_events_replay_to_the_same_state():
    state, events = api.new_game_with_events(COLORS, 21)
    assert api.replay(events) == state
    assert api.setup_events(state) == events
