"""Rulebook: Game End & Scoring (lines 428-448) and the Overview's "most treasure wins" (line 55)."""

from __future__ import annotations

from rules import api
from rules.dead_reckoning.cards import load_catalog

from .support import act, place_island, ship, two

CAT = load_catalog()


def _four_markers(state, color):
    for a in ("explorer", "settler", "builder", "capitalist"):
        state.data["achievements"][a].append(color)
        state.data["p"][color]["markers"] -= 1


def _end(state):
    """Trigger the end with the active player's turn and play every final turn."""
    _four_markers(state, state.active)
    while not api.is_over(state):
        state, _ = act(state, "end_turn")
    return state


def _scores(state):
    return api.public_view(state)["scores"]


def _diff(build, color_of=lambda me, other: me):
    """Score components of `color` with `build(state, me, other)` applied minus without it."""
    out = []
    for apply_it in (False, True):
        state, me, other = two()
        if apply_it:
            build(state, me, other)
        out.append(_scores(_end(state))["scores"][color_of(me, other)])
    return {k: out[1][k] - out[0][k] for k in out[0] if out[1][k] != out[0][k]}


def test_four_achievements_at_the_end_of_a_turn_trigger_the_end_everyone_else_plays_once():
    """ "Each choice moves you towards a series of achievements, and once a player has completed four of
    these, the game end is triggered." and "At the end of your turn, if you have 4 or more Achievement
    markers placed on the Harbor board, the end of the game is triggered. Each other player gets one final
    turn, and then the game ends (the player who triggered the end does not get an additional turn).\""""
    state = api.new_game(["red", "blue", "green"], 2)
    first, second, third = state.players
    _four_markers(state, first)
    state, events = act(state, "end_turn")
    assert any(e["type"] == "game_end_triggered" for e in events) and state.active == second
    state, _ = act(state, "end_turn")
    assert state.active == third
    state, events = act(state, "end_turn")
    assert api.is_over(state) and state.active is None and api.legal_actions(state, first) == []


def test_final_turns_still_draw_and_level_up():
    """ "Each player should still draw new cards as normal at the end of their final turn, and can level up as
    normal, as those cards can be used in possible battles.\""""
    state = api.new_game(["red", "blue", "green"], 2)
    first, second, _ = state.players
    _four_markers(state, first)
    hand = len(state.data["p"][first]["hand"])
    state, _ = act(state, "play_card", card=state.data["p"][first]["hand"][0])
    state, _ = act(state, "end_turn")
    p = state.data["p"][first]
    assert len(p["hand"]) == hand - 1 + 3 and p["level_up"]
    state, _ = act(state, "level_up", player=first, card=p["hand"][0])
    assert state.data["p"][first]["cards"][p["hand"][0]]["level"] == 2


def test_after_a_final_turn_influence_needs_two_placements_and_battles_get_two_more_cubes():
    """ "After a player has taken their final turn, their Influence cubes on islands now require two "place
    influence" actions by opponents to replace them instead of one. Also, if a player who has taken their
    final turn is involved in a battle, they get 2 additional Battle cubes.\""""
    state, me, other = two()
    _four_markers(state, me)
    state, _ = act(state, "end_turn")  # my final turn is over; the other's final turn
    place_island(state, "r1c1", "island-01")["cubes"] = [me, me]
    ship(state, other)["at"] = "r1c1"
    p = state.data["p"][other]
    p["hand"] += [c for c in ("deck-hand-1", "deck-hand-2") if c not in p["hand"]]
    p["deck"] = [c for c in p["deck"] if c not in ("deck-hand-1", "deck-hand-2")]
    p["discard"] = [c for c in p["discard"] if c not in ("deck-hand-1", "deck-hand-2")]
    state, _ = act(state, "play_card", card="deck-hand-1")
    state, _ = act(state, "use_ability", ability="deck-hand-1:L1:0")
    assert state.data["grid"]["r1c1"]["island"]["cubes"] == [me, me]
    state, _ = act(state, "play_card", card="deck-hand-2")
    state, _ = act(state, "use_ability", ability="deck-hand-2:L1:0")
    assert sorted(state.data["grid"]["r1c1"]["island"]["cubes"]) == sorted([me, other])
    ship(state, me).update({"at": "r1c2", "pirate": True})
    state, _ = act(state, "set_sails")
    state, _ = act(state, "move", path=["r1c2"])
    assert state.data["battle"]["setup"]["defender"]["cubes"] == 1 + 2


def test_the_most_coins_wins():
    """ "The player who finishes with the most treasure (coins) wins." and "After all players have taken their
    final turn, add up the Coins." and "The player with the most coins wins!\""""
    state, me, other = two()
    state.data["p"][other]["chest"] += 100  # more than the 4 Achievements that end the game for me
    state = _end(state)
    s = _scores(state)
    assert s["winner"] == other and s["totals"][other] == max(s["totals"].values())


def test_achievements_score_their_coin_value():
    """ "Achievements: Players gain the Coin value of Achievements they have completed.\""""
    got = _diff(lambda st, me, o: st.data["achievements"]["legendary"].append(me))
    assert got == {"achievements": CAT.achievements["legendary"]}


def test_coins_in_chest_on_ship_and_on_controlled_islands_score():
    """ "Coins in Treasure chests, on Ships and on Islands: Players score all the Coins in their Treasure
    chest, on their Ship and on islands they control.\""""

    def build(st, me, other):
        st.data["p"][me]["chest"] += 2
        ship(st, me)["holds"][1] = [0, 3]
        isl = place_island(st, "r2c1", "island-01")
        isl.update({"cubes": [me, me], "controller": me, "coins": 4})
        isl2 = place_island(st, "r2c2", "island-02")
        isl2.update({"cubes": [other, other], "controller": other, "coins": 5})

    got = _diff(build)
    assert got["coins"] == 2 + 3 + 4


def test_one_coin_per_building_on_controlled_islands():
    """ "Buildings: Players gain 1 Coin for each Building on islands they control." and "All Buildings are
    worth 1 Coin to the player who controls the island at the end of the game.\""""

    def build(st, me, other):
        isl = place_island(st, "r2c1", "island-01")
        isl.update({"cubes": [me, me], "controller": me})
        isl["buildings"].update({"fort": True, "outpost": True})

    assert _diff(build)["buildings"] == 2


def test_upgrades_score_one_or_two_covered_ones_too():
    """ "Ship Upgrades: Players gain 1 Coin for each Basic Ship Upgrade and 2 Coins for each Advanced Ship
    Upgrade. Upgrades that have been covered over still count.\""""

    def build(st, me, other):
        ship(st, me)["hull"] = [["basic-sail", "advanced-guns"], ["basic-wheel"], [], []]

    assert _diff(build)["upgrades"] == 1 + 2 + 1


def test_end_of_game_advancements_score_their_effect():
    """ "End of Game Advancements: Players gain Coins based on any end of game effects they have on their
    Advancements. Examples: for every 3 Cargo you own (on your Dock tile, on your Ship, and on islands you
    control), gain 1 Coin" and "End of Game scoring Advancements: An ability with purple borders is only
    scored at the end of the game.\""""

    def build(st, me, other):
        p = st.data["p"][me]
        p["cards"]["crew-1"] = {
            **p["cards"]["crew-1"],
            "slots": {"top": None, "middle": None, "bottom": "r1-08"},
        }
        p["dock"] = 0
        ship(st, me)["holds"] = [[4, 0], [0, 0]]
        isl = place_island(st, "r2c1", "island-01")
        isl.update({"cubes": [me, me], "controller": me, "cargo": 2})

    got = _diff(build)
    assert got["advancement_effects"] == (4 + 2) // 3  # Tally Clerk


def test_one_coin_per_two_advancements():
    """ "Advancements: Players score 1 Coin for every 2 Advancements on their cards or set to the side.\""""

    def build(st, me, other):
        p = st.data["p"][me]
        p["cards"]["crew-1"] = {
            **p["cards"]["crew-1"],
            "slots": {"top": "r1-03", "middle": "r1-01", "bottom": None},
        }
        p["set_aside"] = ["r2-01"]

    assert _diff(build)["advancements"] == 1  # 3 Advancements: 1 Coin


def test_islands_score_by_majority_and_empty_slots_count_as_a_player():
    """ "Islands: Players score for their Influence cubes on each island. The most cubes on an island gets the
    larger of the numbers shown in the top right of the ocean board. The 2nd most cubes gets the 2nd largest
    number." and "When determining who has the most cubes, empty cube spaces on islands count as another
    player whose points are not tracked; it is possible for the empty cube spaces to win or tie for 1st, 2nd,
    or 3rd.\""""
    first = CAT.boards["island-07"]["scores"][0]

    def build(st, me, other):
        place_island(st, "r2c1", "island-07")["cubes"] = [me, me, other, None]  # 4 slots

    assert _diff(build) == {"islands": first}
    s = CAT.boards["island-07"]["scores"]
    assert _diff(build, lambda me, other: other) == {"islands": s[2]}  # tied with the empty slot for 2nd

    def build2(st, me, other):
        place_island(st, "r2c1", "island-07")["cubes"] = [me, None, None, other]  # empty slots lead

    assert _diff(build2) == {"islands": s[2]}  # the 2 empty slots lead; me and other tie for 2nd


def test_ties_score_the_next_value_down_and_a_tie_for_third_scores_nothing():
    """ "Likewise for 3rd most, though not all islands score for 3rd most. If two or more players are tied for
    a position, they all score the next value down. If there is a tie for 3rd place, no Coins are awarded to
    those tied players.\""""
    s = CAT.boards["island-07"]["scores"]  # three values

    def tie_first(st, me, other):
        place_island(st, "r2c1", "island-07")["cubes"] = [me, me, other, other]

    assert _diff(tie_first) == {"islands": s[1]} and _diff(tie_first, lambda m, o: o) == {"islands": s[1]}
    from rules.dead_reckoning.scoring import island_awards

    # four players, one island: a leads, b 2nd, c and d tie for 3rd
    assert island_awards({"cubes": ["a", "a", "a", "b", "b", "c", "d"], "permanent": {}}, s) == {
        "a": s[0],
        "b": s[1],
    }
