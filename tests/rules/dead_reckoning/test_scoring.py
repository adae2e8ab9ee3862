"""Game end (4 Achievements, final turns, last-round rules) and scoring with its tie rules."""

from __future__ import annotations

import pytest

from rules import api
from rules.dead_reckoning.cards import load_catalog
from rules.dead_reckoning.islands import who_controls
from rules.dead_reckoning.scoring import island_awards, score_game
from rules.errors import Illegal
from tests.rules.helpers import act, game, place_island


def _isl(cubes, permanent=None):
    return {"cubes": list(cubes), "permanent": dict(permanent or {})}


@pytest.mark.parametrize(
    "cubes, values, expected",
    [
        (
            ["a", "a", "b", None],
            [6, 3, 1],
            {"a": 6, "b": 1},
        ),  # empty slot (1) ties b for 2nd: next value down
        (["a", "a", "b", "b"], [6, 3, 1], {"a": 3, "b": 3}),  # tie for 1st scores 2nd place
        # "If two or more players are tied for a position, they all score the next value down": b and c tie
        # for 2nd, so both score the 3rd value
        (["a", "a", "a", "b", "c"], [6, 3, 1], {"a": 6, "b": 1, "c": 1}),
        (
            ["a", "b", None, None],
            [5, 2],
            {"a": 0, "b": 0},
        ),  # empty slots win; a and b tie for 2nd: no 3rd value
        (["a", "a", "a", "b", "b", "c", "d"], [7, 4, 1], {"a": 7, "b": 4}),  # tie for 3rd scores nothing
    ],
)
def test_island_majorities(cubes, values, expected):
    got = island_awards(_isl(cubes), values)
    assert {k: v for k, v in got.items() if v} == {k: v for k, v in expected.items() if v}


def test_permanent_cubes_count_for_majorities():
    assert island_awards(_isl(["a", "b", "b"], {"a": 2}), [5, 2]) == {"a": 5, "b": 2}


def test_full_score_sheet():
    state = game(2, seed=1)
    d = state.data
    me = state.active
    other = [c for c in state.players if c != me][0]
    cat = load_catalog()
    isl = place_island(state, "r1c1", "island-07")  # 4 slots, scores 7/4/2
    isl.update({"cubes": [me, me, other, None], "coins": 3, "cargo": 2})
    isl["controller"] = who_controls(isl)
    isl["buildings"]["fort"] = True
    p = d["p"][me]
    p["chest"], p["ship"]["holds"] = 20, [[1, 2], [0, 0]]
    p["ship"]["hull"] = [["advanced-guns"], ["basic-sail"], [], []]
    p["cards"]["crew-1"]["slots"]["top"] = "r2-08"  # Cartographer: 1 per island without your cubes
    p["set_aside"] = ["r1-08"]  # Tally Clerk: 1 per 3 cargo owned
    p["dock"] = 4
    d["achievements"]["explorer"].append(me)
    s = score_game(d)["scores"][me]
    assert s["coins"] == 20 + 2 + 3
    assert s["buildings"] == 1 and s["upgrades"] == 3
    assert s["achievements"] == cat.achievements["explorer"]
    assert s["advancements"] == 1  # 2 Advancements
    bare = sum(1 for sq in ("r1c2", "r1c3") if d["grid"][sq]["island"])  # islands without my cubes
    assert s["advancement_effects"] == bare + (4 + 1 + 2) // 3  # Cartographer + Tally Clerk (7 cargo)
    assert s["islands"] == 7


def test_tied_winners_need_the_tie_break_battle():
    state = game(2, seed=1)
    result = score_game(state.data)
    assert result["winner"] is None and sorted(result["tie_break_needed"]) == sorted(state.players)


def _trigger(state):
    me = state.active
    for a in ("explorer", "settler", "builder", "capitalist"):
        state.data["achievements"][a].append(me)
    return me


def test_end_triggered_at_four_achievements_then_everyone_else_plays_once():
    state = game(3, seed=2)
    first = _trigger(state)
    order = list(state.players)
    state, events = act(state, "end_turn")
    assert any(e["type"] == "game_end_triggered" for e in events)
    assert state.active == order[1] and state.data["p"][first]["final_done"]
    state, _ = act(state, "end_turn")
    assert state.active == order[2] and state.data["p"][order[1]]["final_done"]
    state, events = act(state, "end_turn")
    assert state.phase == "over" and any(e["type"] == "game_over" for e in events)
    assert api.legal_actions(state, first) == []
    with pytest.raises(Illegal):
        act(state, "set_sails", player=first)


def test_last_round_doubled_influence_protection_and_extra_battle_cubes():
    state = game(2, seed=2)
    first = _trigger(state)
    state, _ = act(state, "end_turn")
    me = state.active
    place_island(state, "r1c1", "island-01")["cubes"] = [first, first]  # full, 2 slots
    state.data["p"][me]["ship"]["at"] = "r1c1"
    state.data["p"][me]["played"] = ["deck-hand-1"]
    for pile in ("hand", "deck", "discard"):
        if "deck-hand-1" in state.data["p"][me][pile]:
            state.data["p"][me][pile].remove("deck-hand-1")
    state, _ = act(state, "use_ability", ability="deck-hand-1:L1:0")
    assert state.data["grid"]["r1c1"]["island"]["cubes"] == [first, first]  # first placement only weakens
    state.data["p"][me]["played"].append("deck-hand-2")
    state.data["p"][me]["hand"] = [c for c in state.data["p"][me]["hand"] if c != "deck-hand-2"]
    state.data["p"][me]["deck"] = [c for c in state.data["p"][me]["deck"] if c != "deck-hand-2"]
    state.data["p"][me]["discard"] = [c for c in state.data["p"][me]["discard"] if c != "deck-hand-2"]
    state, _ = act(state, "use_ability", ability="deck-hand-2:L1:0")
    assert sorted(state.data["grid"]["r1c1"]["island"]["cubes"]) == sorted([first, me])
    # +2 battle cubes for the player who has taken the final turn
    state.data["p"][first]["ship"]["at"] = "r1c1"
    state.data["p"][first]["ship"]["pirate"] = True
    state.data["p"][me]["ship"]["at"] = "harbor"
    state, _ = act(state, "set_sails")
    state, events = act(state, "move", path=["r1c1"])
    setup = [e for e in events if e["type"] == "battle_started"][0]["setup"]
    assert setup["defender"]["cubes"] == 1 + 2


def test_starred_achievements_wait_for_the_players_own_turn():
    state = game(2, seed=4)
    me = state.active
    other = [c for c in state.players if c != me][0]
    # the other player's fourth Legendary cube arrives during my turn (they defended successfully)
    state.data["achievement_cubes"]["legendary"][other] = 4
    state.data["p"][other]["cubes"] -= 4
    state.data["p"][other]["chest"] = 31  # Capitalist, also starred
    state, _ = act(state, "set_sails")
    assert other not in state.data["achievements"]["legendary"]
    state, events = act(state, "end_turn")
    assert state.active == other
    got = [e["achievement"] for e in events if e["type"] == "achievement"]
    assert sorted(got) == ["capitalist", "legendary"]
    assert state.data["p"][other]["cubes"] == 29 and state.data["p"][other]["markers"] == 4


def test_expert_sailors_cubes_then_marker():
    state = game(2, seed=4)
    me = state.active
    state, _ = act(state, "end_turn")
    p = state.data["p"][me]
    for c in p["hand"][:3]:
        p["cards"][c]["level"] = 3
    for i, c in enumerate(p["hand"][:3]):
        p["level_up"] = True
        state, _ = act(state, "level_up", player=me, card=c)
        p = state.data["p"][me]
        assert state.data["achievement_cubes"]["expert_sailors"].get(me, 0) == min(i + 1, 2)
    state, events = act(state, "end_turn")  # my turn starts: the marker goes down, cubes come back
    assert me in state.data["achievements"]["expert_sailors"]
    assert me not in state.data["achievement_cubes"]["expert_sailors"]


def test_bonus_token_scores_two_per_completed_achievement():
    state = game(2, seed=9, bonus_tokens=True)
    me = state.active
    p = state.data["p"][me]
    state, _ = act(state, "choose_bonus", player=me, token=p["bonus_offer"][0])
    token = load_catalog().bonus_tokens[state.data["p"][me]["bonus"]]
    for a in token:
        state.data["achievements"][a].append(me)
    assert score_game(state.data)["scores"][me]["bonus_token"] == 4
