"""Letters of Marque setup (rulebook rules/001, "Preparation (Setup)")."""

from __future__ import annotations

import pytest

from contracts.grid import SQUARES
from rules import api
from rules.dead_reckoning.cards import catalog
from rules.dead_reckoning.letters_of_marque.data import lom_data
from rules.errors import Illegal, Invalid
from tests.rules.helpers import COLORS, game
from tests.rules.letters_of_marque.helpers import LOM, lgame, lom


def test_explorer_in_every_starting_deck():
    """ "1. Add an Explorer Sailor card to each player’s starting deck." """
    state = lgame(3)
    for c in state.players:
        p = state.data["p"][c]
        assert "explorer" in p["cards"] and len(p["cards"]) == 13
        assert "explorer" in p["deck"] + p["hand"]
    assert "explorer" not in game(3).data["p"]["red"]["cards"]  # the base game is untouched


def test_favour_markers_start_on_the_start_space_of_both_empires():
    """ "2. Each player receives two sets of Current Favor and Peak Favor markers. Each player places one set
    on the start space of each of the two Empire boards, with the Current Favor marker seated inside the
    Peak Favor marker." """
    state = lgame(4)
    view = api.public_view(state)["expansions"]["letters-of-marque"]
    assert len(view["empires"]) == 2
    for c in state.players:
        assert view["players"][c]["favour"] == {e: {"current": 0, "peak": 0} for e in view["empires"]}
        assert view["players"][c]["bounty"] == [] and view["players"][c]["letters"] == []


def test_new_upgrade_tiles_and_trade_vessels_are_in_play():
    """ "3. Add the new Ship Upgrade tiles (Basic Ship Upgrade and Advanced Ship Upgrade) to the available
    upgrade options." and "4. Shuffle the 16 Trade vessel cards into their respective Row decks." """
    state = lgame(3)
    d = state.data
    cat = catalog(d)
    new = {t["id"] for t in lom_data().cards["upgrades"]}
    assert new <= set(d["upgrade_supply"]) and {cat.upgrades[t]["category"] for t in new} == {
        "basic",
        "advanced",
    }
    vessels = [c for c in cat.cards if cat.cards[c].get("encounter", {}).get("kind") == "trade_vessel"]
    assert len(vessels) == 16
    in_play = [c for r in d["decks"].values() for c in r] + [d["grid"][sq]["card"] for sq in SQUARES]
    for c in vessels:
        assert c in in_play and (c in d["decks"][str(cat.cards[c]["row"])] or c in in_play)


def test_row_1_boards_and_reminders_get_random_prime_cargo():
    """ "For each Row 1 Ocean board: If it is an island, place one face down Random Prime Cargo token in the
    water part of the board ("in the water") and a second face down Random Prime Cargo token on the island
    part of the board ("on the island"). If it is an open sea, place one face down Random Prime Cargo token
    on it in the water." and "Place a face down Random Prime Cargo token on each undiscovered Ocean board as a
    reminder to place one when it is discovered." """
    for seed in range(1, 6):
        state = lgame(3, seed=seed)
        x = lom(state)
        for sq in ("r1c1", "r1c2", "r1c3"):
            isl = state.data["grid"][sq]["island"] is not None
            assert x["boards"][sq]["water"] == {"hidden": 1, "found": []}
            assert x["boards"][sq]["island"]["hidden"] == (1 if isl else 0)
        face_down = [sq for sq in SQUARES if state.data["grid"][sq]["board"] is None]
        assert sorted(x["reminders"]) == sorted(face_down) and len(face_down) == 9
        on_table = sum(b[p]["hidden"] for b in x["boards"].values() for p in b) + len(x["reminders"])
        assert x["hidden_out"] == on_table


def test_letters_face_up_and_14_rewards_across_both_tracks():
    """ "Place the Letter of Marque tokens face up for each empire on their respective spot on each Empire
    board." and "Randomly place the 14 Favor Reward tokens on the Empire Favor tracks as indicated, allocating
    all of them across the two Empire boards." """
    state, events = api.new_game_with_events(COLORS[:3], 4, LOM)
    x = lom(state)
    placed = [t for e in x["rewards"].values() for t in e.values()]
    assert sorted(placed) == sorted(lom_data().rewards) and len(placed) == 14
    for e, spec in lom_data().empires.items():
        assert sorted(x["rewards"][e]) == sorted(str(s) for s in spec["track"]["reward_spaces"])
        assert x["letters_free"][e] == sorted(t["id"] for t in spec["letters"])
    # the random placement is a recorded chance outcome: replaying the log gives the same tracks
    assert [e for e in events if e["type"] == "place_favour_rewards"]
    assert api.state_to_json(api.replay(events)) == api.state_to_json(state)
    other = lom(lgame(3, seed=5))["rewards"]
    assert other != x["rewards"]  # another seed, another placement


def test_observed_reward_placement_is_checked():
    """At a physical table the placement is reported; a token placed twice is refused."""
    state = lgame(2, seed=1, auto_chance=False)
    while state.data["pending"][0]["kind"] != "place_favour_rewards":
        acts = api.legal_actions(state, "table")
        state, _ = api.apply(state, {"seq": state.seq, "player": "table", "action": acts[0]})
    ids = sorted(lom_data().rewards)
    bad = {"empire-a": ids[:7], "empire-b": ids[:7]}
    with pytest.raises(Invalid):
        api.apply(
            state,
            {"seq": state.seq, "player": "table", "action": {"type": "place_favour_rewards", "rewards": bad}},
        )
    good = {"empire-a": ids[:7], "empire-b": ids[7:]}
    state, _ = api.apply(
        state,
        {"seq": state.seq, "player": "table", "action": {"type": "place_favour_rewards", "rewards": good}},
    )
    assert lom(state)["rewards"]["empire-a"]["1"] == ids[0]
    with pytest.raises(Illegal):
        api.apply(
            state,
            {
                "seq": state.seq,
                "player": "table",
                "action": {"type": "place_favour_rewards", "rewards": good},
            },
        )


def test_the_expansion_is_an_option_and_unknown_ones_are_refused():
    with pytest.raises(Invalid) as err:
        api.new_game(["red", "blue"], 1, {"expansions": ["deep-sea"]})
    assert "letters-of-marque" in err.value.message
    base = game(2)
    assert "expansions" not in base.data["options"] and "lom" not in base.data
    assert "expansions" not in api.public_view(base)
    assert lgame(2).data["options"]["expansions"] == ["letters-of-marque"]
