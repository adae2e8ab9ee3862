"""Rulebook: Achievements and the Bonus Achievement tokens (lines 408-426)."""

from __future__ import annotations

import pytest

from rules import api
from rules.dead_reckoning.cards import load_catalog
from rules.errors import RulesError

from .support import act, controlled_island, game, place_island, play, resolve, ship, two


def test_nine_achievements():
    """ "There are 9 Achievements in the game, depicted along the top of the Harbor board.\""""
    state, _, _ = two()
    assert sorted(state.data["achievements"]) == sorted(
        [
            "legendary",
            "expert_sailors",
            "terror_of_the_sea",
            "builder",
            "capitalist",
            "settler",
            "elite_vessel",
            "explorer",
            "master_merchant",
        ]
    )


def test_a_marker_on_your_turn_for_each_achievement_met_and_several_players_may_share_one():
    """ "At any point on your turn, if you meet the requirements of an Achievement, place 1 of your
    Achievement markers on the space to indicate you have completed it. Multiple players may gain the same
    Achievement.\""""
    state, me, other = two()
    state.data["achievements"]["elite_vessel"].append(other)
    ship(state, me)["hull"] = [["basic-sail"], ["basic-cannon"], ["basic-wheel"], []]
    state.data["p"][me]["dock"] = 3
    state = play(state, "bosun", level=3)
    state, events = act(
        state, "use_ability", ability="bosun:L3:0", choice=1, args={"tile": "basic-sail", "space": 3}
    )
    assert sorted(state.data["achievements"]["elite_vessel"]) == sorted([me, other])
    assert state.data["p"][me]["markers"] == 5
    assert [e["achievement"] for e in events if e["type"] == "achievement"] == ["elite_vessel"]


def test_starred_achievements_met_on_another_turn_wait_for_your_own_turn():
    """ "It is possible that you meet the conditions of several Achievements on another player's turns
    (denoted by *). However, you must wait to place your Achievement marker until your own turn starts, so
    long as you still meet the conditions at that time.\""""
    state, me, other = two()
    state.data["p"][other]["chest"] = 30  # Capitalist*, met during my turn
    state, _ = act(state, "set_sails")
    assert other not in state.data["achievements"]["capitalist"]
    gone = state.copy()
    gone.data["p"][other]["chest"] = 29  # no longer met when their turn starts
    gone, _ = act(gone, "end_turn")
    assert other not in gone.data["achievements"]["capitalist"]
    state, _ = act(state, "end_turn")
    assert other in state.data["achievements"]["capitalist"]


def test_markers_are_never_removed():
    """ "Once placed, Achievement markers cannot be removed, even if the player no longer meets the conditions
    required." and (Builder) "If, later in the game, you have fewer than 5 Buildings, you do not lose this
    Achievement.\""""
    state, me, other = two()
    state.data["p"][me]["chest"] = 29
    ship(state, me)["holds"] = [[0, 2], [0, 0]]
    state, _ = act(state, "unload", hold=0, cargo=0, coins=2)
    assert me in state.data["achievements"]["capitalist"]
    state.data["p"][me]["chest"] = 10
    state, _ = act(state, "end_turn")
    state, _ = act(state, "end_turn")
    assert me in state.data["achievements"]["capitalist"] and state.data["p"][me]["markers"] == 5


def test_legendary_four_non_building_wins_cubes_then_a_marker():
    """ "Legendary*: Win 4 non-Building battles with your Ship. The first 4 times you win a non-Building
    battle with your Ship during the game, place one of your cubes on this Achievement. After the 4th time,
    return those cubes to your supply and place one of your Achievement markers here. ("Winning a
    non-Building battle with your Ship" means a battle against any Non-Player (e.g. Merchant ship) or against
    an opponent's Ship. Defending successfully with a Building or defeating a Building does not count.)\""""
    state, me, other = two()
    state.data["achievement_cubes"]["legendary"][me] = 3
    state.data["p"][me]["cubes"] -= 3
    cubes = state.data["p"][me]["cubes"]
    place_island(state, "r1c1", "island-05")
    state.data["grid"]["r1c1"]["card"] = "r1-06"
    state.data["decks"]["1"] = [c for c in state.data["decks"]["1"] if c != "r1-06"]
    ship(state, me)["at"] = "r1c1"
    state, _ = act(state, "attack_merchant")
    state, _ = resolve(state, f"{me}@s2 black@miss black@miss")  # the 4th win: against a Merchant
    assert me in state.data["achievements"]["legendary"]
    assert (
        state.data["p"][me]["cubes"] == cubes + 3 and me not in state.data["achievement_cubes"]["legendary"]
    )


def test_expert_sailors_three_level_four_cards():
    """ "Expert Sailors*: Have 3 cards of level 4. The first 2 times you get a card to level 4, place 1 of
    your cubes here. The 3rd time, return those cubes to your supply and place one of your Achievement
    markers here.\""""
    state, me, other = two()
    state, _ = act(state, "end_turn")
    p = state.data["p"][me]
    cards = p["hand"][:3]
    for c in cards:
        p["cards"][c] = {**p["cards"][c], "level": 3}
    cubes = p["cubes"]
    for i, c in enumerate(cards):
        state.data["p"][me]["level_up"] = True
        state, _ = act(state, "level_up", player=me, card=c)
        assert state.data["achievement_cubes"]["expert_sailors"].get(me, 0) == min(i + 1, 2)
    assert (
        state.data["p"][me]["cubes"] == cubes - 2 and me not in state.data["achievements"]["expert_sailors"]
    )
    state, _ = act(state, "end_turn")  # my turn starts
    assert me in state.data["achievements"]["expert_sailors"] and state.data["p"][me]["cubes"] == cubes


def test_terror_of_the_sea_for_sinking_a_ship():
    """ "Terror of the Sea*: Sink a Ship. The first time you sink another player's Ship during the game, place
    one of your Achievement markers here.\""""
    state, me, other = two()
    ship(state, other).update({"at": "r1c1", "pirate": True, "damage": 4})
    state, _ = act(state, "set_sails")
    state, _ = act(state, "move", path=["r1c1"])
    state, _ = resolve(state, f"{me}@s1 {other}@miss")
    assert me in state.data["achievements"]["terror_of_the_sea"]


def test_builder_five_buildings_on_islands_you_control():
    """ "Builder: Own 5 or more Buildings. If you ever have 5 Buildings at the same time on islands you
    control, immediately place an Achievement marker here.\""""
    state, me, _ = two()
    isl = controlled_island(state, me, [me, me, None])
    isl["buildings"].update({"fort": True, "garrison": True})
    isl2 = place_island(state, "r1c2", "island-04")
    isl2.update({"cubes": [me, me, None], "controller": me})
    isl2["buildings"]["fort"] = True
    state.data["p"][me]["dock"] = 20
    state = play(state, "first-mate", level=3)
    builds = [{"square": "r1c1", "building": "outpost"}]
    state, _ = act(state, "use_ability", ability="first-mate:L3:0", args={"builds": builds})
    assert me not in state.data["achievements"]["builder"]  # 4
    state.data["p"][me]["used"] = []  # the next turn's First Mate, shortened
    state, _ = act(
        state,
        "use_ability",
        ability="first-mate:L3:0",
        args={"builds": [{"square": "r1c2", "building": "garrison"}]},
    )
    assert me in state.data["achievements"]["builder"]


def test_capitalist_thirty_coins_in_the_chest():
    """ "Capitalist*: Have 30 or more Coins in your Treasure chest. Even though Coins in your Treasure chest
    are secret, once you reach 30 or more you must announce that you have completed it and place your
    Achievement marker here.\""""
    state, me, _ = two()
    state.data["p"][me]["chest"] = 28
    ship(state, me)["holds"] = [[0, 2], [0, 0]]
    state, events = act(state, "unload", hold=0, cargo=0, coins=2)
    assert me in state.data["achievements"]["capitalist"]
    other = next(c for c in state.players if c != me)
    seen = [api.event_view(e, other) for e in events if e["type"] == "achievement"]
    assert [e["achievement"] for e in seen if e] == ["capitalist"]  # announced to the others
    assert {"type": "achievement", "player": me, "achievement": "capitalist"} in [
        {k: e[k] for k in ("type", "player", "achievement")} for e in events if e["type"] == "achievement"
    ]


def test_settler_six_permanent_cubes():
    """ "Settler: If you ever have a total of 6 or more permanent cubes across islands, place one of your
    Achievement markers here.\""""
    state, me, other = two()
    place_island(state, "r1c2", "island-04")["permanent"] = {me: 5}
    place_island(state, "r1c1", "island-05")
    ship(state, me)["at"] = "r1c1"
    state = play(state, "buccaneer", level=2)  # takes control: a 6th permanent cube
    state, _ = act(state, "use_ability", ability="buccaneer:L2:0")
    assert me in state.data["achievements"]["settler"]


def test_elite_vessel_four_upgrades_covered_ones_count():
    """ "Elite Vessel: Acquire 4 Ship Upgrades. As soon as you acquire your 4th Upgrade, place an Achievement
    marker here. Count all Upgrade tiles on your Ship, even ones covered over with other tiles.\""""
    state, me, _ = two()
    ship(state, me)["hull"] = [["basic-sail", "basic-cannon"], ["basic-wheel"], [], []]
    state.data["p"][me]["dock"] = 3
    state = play(state, "bosun", level=3)
    state, _ = act(
        state, "use_ability", ability="bosun:L3:0", choice=1, args={"tile": "basic-sail", "space": 2}
    )
    assert me in state.data["achievements"]["elite_vessel"]


@pytest.mark.parametrize("n, need", [(2, 5), (3, 4), (4, 3)])
def test_explorer_required_boards_by_player_count(n, need):
    """ "Explorer: Explore the required number of Ocean boards (2-player game: 5 spaces; 3-player game: 4
    spaces; 4-player game: 3 spaces). Each time you explore an Ocean board, place one of your cubes here.
    Once you have explored the required number, return your cubes to your supply and place one of your
    Achievement markers here.\""""
    assert load_catalog().explorer_needed[str(n)] == need
    state = game(n, seed=5)
    me = state.active
    state.data["achievement_cubes"]["explorer"][me] = need - 2
    state.data["p"][me]["cubes"] -= need - 2
    cubes = state.data["p"][me]["cubes"]
    ship(state, me)["at"] = "r1c1"
    state, _ = act(state, "set_sails")
    state, _ = act(state, "move", path=["r2c1"])
    assert (
        state.data["achievement_cubes"]["explorer"][me] == need - 1
        and me not in state.data["achievements"]["explorer"]
    )
    state.data["turn"]["explored"] = False  # the next turn's exploration, shortened
    ship(state, me)["sails"] = 1
    state, _ = act(state, "move", path=["r3c1"])
    assert (
        me in state.data["achievements"]["explorer"] and state.data["p"][me]["cubes"] == cubes - 1 + need - 1
    )


def test_master_merchant_twelve_cargo_at_once_from_ship_and_dock():
    """ "Master Merchant: Return 12 Cargo from your Ship and/or Dock tile back to the supply to place an
    Achievement marker here. You must return 12 at once. This is not the same as spending the Cargo; the 12
    must be returned to the supply for no other benefit.\""""
    state, me, _ = two()
    state.data["p"][me]["dock"] = 8
    ship(state, me)["holds"] = [[3, 0], [0, 0]]
    with pytest.raises(RulesError):
        act(state, "master_merchant")  # 11
    ship(state, me)["holds"] = [[4, 0], [0, 0]]
    supply = state.data["supply"]["cargo"]
    state, _ = act(state, "master_merchant")
    assert (
        me in state.data["achievements"]["master_merchant"] and state.data["supply"]["cargo"] == supply + 12
    )
    assert state.data["p"][me]["dock"] == 0 and ship(state, me)["holds"][0] == [0, 0]


def test_bonus_tokens_two_dealt_one_kept_two_coins_per_completed_achievement_on_it():
    """ "Bonus Achievement tokens: Each player gets 2 random Bonus Achievement tokens, and chooses and keeps
    1." and "Deal 2 to each player at the start and have them choose 1, kept face down. At the end of the game
    each player reveals their token. Each completed Achievement that appears on the token is worth a bonus 2
    Coins.\""""
    state = game(2, seed=9, bonus_tokens=True)
    me = state.active
    other = next(c for c in state.players if c != me)
    offer = state.data["p"][me]["bonus_offer"]
    assert len(offer) == 2 and len(state.data["p"][other]["bonus_offer"]) == 2
    state, _ = act(state, "choose_bonus", player=me, token=offer[1])
    assert state.data["p"][me]["bonus"] == offer[1]
    assert api.public_view(state)["p"][me]["bonus_token"] is None  # kept face down
    token = load_catalog().bonus_tokens[offer[1]]
    state.data["achievements"][token[0]].append(me)
    for a in ("explorer", "settler", "builder", "capitalist", "legendary"):
        if a not in token and len([x for x, w in state.data["achievements"].items() if me in w]) < 4:
            state.data["achievements"][a].append(me)
    state, _ = act(state, "end_turn")
    state, _ = act(state, "end_turn")
    assert api.is_over(state)
    assert api.public_view(state)["scores"]["scores"][me]["bonus_token"] == 2
    assert api.public_view(state)["p"][me]["bonus_token"] == token  # revealed at the end


def test_bonus_tokens_are_optional():
    """ "These tokens are optional, but recommended for your first game.\""""
    plain = game(2, seed=9)
    assert all(
        not plain.data["p"][c]["bonus_offer"] and plain.data["p"][c]["bonus"] is None for c in plain.players
    )
    with_tokens = game(2, seed=9, bonus_tokens=True)
    assert all(len(with_tokens.data["p"][c]["bonus_offer"]) == 2 for c in with_tokens.players)


# --- Running out of cubes (line 321) for the achievements that take cubes (lines 416, 417, 423) ---------


def _my_cubes_on(state, color: str, *squares: str) -> None:
    """One non-permanent cube of `color` on each island of `squares` (face up by hand), the supply empty."""
    for sq in squares:
        isl = state.data["grid"][sq]["island"] or place_island(state, sq, "island-05")
        isl["cubes"] = [color] + [None] * (len(isl["cubes"]) - 1)
    state.data["p"][color]["cubes"] = 0


def _one_sail_from_r1c1(state, color: str) -> None:
    """The Ship at r1c1 with its Sails set and 1 left: the next move explores r2c1."""
    ship(state, color).update({"at": "r1c1", "sails": 1})
    state.data["turn"]["sails_set"] = True


def _choice(state, color: str) -> dict:
    you = api.private_view(state, color)["you"]
    return next(c for c in you.get("choices", []) if c["choice"] == "achievement_cube")


def test_explorer_cube_owed_with_an_empty_supply_comes_from_the_island_the_player_chooses():
    """ "Running out of cubes: Anytime you need a cube but don't have any available, you may remove one of
    your non-permanent cubes from any island and use that as the cube you need." with Explorer: "Each time
    you explore an Ocean board, place one of your cubes here. Once you have explored the required number,
    return your cubes to your supply and place one of your Achievement markers here.\""""
    state, me, other = two()
    state.data["achievement_cubes"]["explorer"][me] = 4  # a 2-player game needs 5
    _my_cubes_on(state, me, "r1c2", "r1c3")
    state.data["grid"]["r1c3"]["island"]["permanent"] = {me: 1}  # a permanent cube is never offered
    _one_sail_from_r1c1(state, me)
    state, events = act(state, "move", path=["r2c1"])
    assert [e for e in events if e["type"] == "achievement_cube_owed"][0]["achievement"] == "explorer"
    assert me not in state.data["achievements"]["explorer"]  # the 5th cube is not placed yet
    choice = _choice(state, me)
    assert choice["achievements"] == ["explorer"] and choice["supply"] == 0
    # any island holding one of my non-permanent cubes, or none: the player's choice, offered as actions
    assert choice["options"] == [
        {"achievement": "explorer", "square": "r1c2"},
        {"achievement": "explorer", "square": "r1c3"},
        {"achievement": "explorer", "leave": True},
    ]
    offered = [a for a in api.legal_actions(state, me) if a["type"] == "choose"]
    assert [a["option"] for a in offered] == choice["options"]
    with pytest.raises(RulesError) as err:
        act(state, "choose", choice="achievement_cube", option={"achievement": "explorer", "square": "r1c1"})
    assert "choose among r1c2, r1c3" in err.value.message
    state, events = act(state, "choose", choice="achievement_cube", option=choice["options"][1])
    # the island loses the cube (the permanent one stays), the 5th cube completes Explorer: all 5 come back
    assert state.data["grid"]["r1c3"]["island"]["cubes"].count(me) == 0
    assert state.data["grid"]["r1c3"]["island"]["permanent"] == {me: 1}
    assert state.data["grid"]["r1c2"]["island"]["cubes"].count(me) == 1
    assert me in state.data["achievements"]["explorer"] and state.data["p"][me]["cubes"] == 5
    assert "cubes_owed" not in state.data["p"][me] and "choices" not in api.private_view(state, me)["you"]


def test_an_achievement_cube_may_be_left_unplaced_and_then_does_not_count():
    """ "you may remove one of your non-permanent cubes from any island" (a may: the player can keep their
    island cube; the exploration is then not counted: "Each time you explore an Ocean board, place one of
    your cubes here").\""""
    state, me, _ = two()
    state.data["achievement_cubes"]["explorer"][me] = 4
    _my_cubes_on(state, me, "r1c2")
    _one_sail_from_r1c1(state, me)
    state, _ = act(state, "move", path=["r2c1"])
    state, events = act(
        state, "choose", choice="achievement_cube", option={"achievement": "explorer", "leave": True}
    )
    assert (
        state.data["achievement_cubes"]["explorer"][me] == 4
        and me not in state.data["achievements"]["explorer"]
    )
    assert state.data["grid"]["r1c2"]["island"]["cubes"].count(me) == 1
    assert [e["type"] for e in events if e.get("notice")] == ["achievement_cube_unplaced"]


def test_an_achievement_cube_unanswered_at_the_end_of_the_turn_is_left_unplaced():
    """ "you may remove one of your non-permanent cubes from any island": nobody answers (an unattended
    tablet), so no island loses a cube the player never chose to give up; the cube is left unplaced when the
    player's turn ends.\""""
    state, me, _ = two()
    state.data["achievement_cubes"]["explorer"][me] = 1
    _my_cubes_on(state, me, "r1c2")
    _one_sail_from_r1c1(state, me)
    state, _ = act(state, "move", path=["r2c1"])
    assert state.data["p"][me]["cubes_owed"] == ["explorer"]
    state, events = act(state, "end_turn")
    assert "cubes_owed" not in state.data["p"][me]
    assert state.data["grid"]["r1c2"]["island"]["cubes"].count(me) == 1
    assert state.data["achievement_cubes"]["explorer"][me] == 1
    left = [e for e in events if e["type"] == "achievement_cube_unplaced"]
    assert len(left) == 1 and left[0]["player"] == me and left[0]["auto"] is True


def test_legendary_cube_owed_with_an_empty_supply_takes_the_chosen_island_cube_and_control_is_rechecked():
    """ "Anytime you need a cube but don't have any available, you may remove one of your non-permanent
    cubes from any island" with Legendary: "The first 4 times you win a non-Building battle with your Ship
    during the game, place one of your cubes on this Achievement. After the 4th time, return those cubes to
    your supply and place one of your Achievement markers here." (Removing the cube can cost control: "After
    placing a cube, check to see if you take control" works both ways.)\""""
    state, me, other = two()
    state.data["achievement_cubes"]["legendary"][me] = 3
    _my_cubes_on(state, me, "r1c2", "r1c3")
    isl = state.data["grid"]["r1c3"]["island"]
    isl["cubes"] = [me, me, None]
    isl["controller"] = me  # 2 of 3 slots: control; giving one up leaves 1 against 2 empty slots
    place_island(state, "r1c1", "island-05")
    state.data["grid"]["r1c1"]["card"] = "r1-06"
    state.data["decks"]["1"] = [c for c in state.data["decks"]["1"] if c != "r1-06"]
    ship(state, me)["at"] = "r1c1"
    state, _ = act(state, "attack_merchant", cannons=0)  # no cube to fight with: the tie goes to the attacker
    state, events = resolve(state, "black@miss black@miss")
    assert any(e["type"] == "achievement_cube_owed" for e in events)
    assert (
        state.data["achievement_cubes"]["legendary"][me] == 3
        and me not in state.data["achievements"]["legendary"]
    )
    state, events = act(
        state, "choose", choice="achievement_cube", option={"achievement": "legendary", "square": "r1c3"}
    )
    assert state.data["grid"]["r1c3"]["island"]["cubes"].count(me) == 1
    assert state.data["grid"]["r1c3"]["island"]["controller"] is None
    assert {"type": "control_changed", "square": "r1c3", "controller": None}.items() <= next(
        e for e in events if e["type"] == "control_changed"
    ).items()
    # the 4th cube completes Legendary on my turn: the 4 cubes come back to the supply
    assert me in state.data["achievements"]["legendary"] and state.data["p"][me]["cubes"] == 4


def test_expert_sailors_cube_owed_when_levelling_with_an_empty_supply():
    """ "Anytime you need a cube but don't have any available, you may remove one of your non-permanent
    cubes from any island" with Expert Sailors: "The first 2 times you get a card to level 4, place 1 of your
    cubes here." (levelling happens on another player's turn: the choice waits for the player).\""""
    state, me, other = two()
    state, _ = act(state, "end_turn")  # my level-up happens during the other player's turn
    p = state.data["p"][me]
    card = p["hand"][0]
    p["cards"][card] = {**p["cards"][card], "level": 3}
    p["level_up"] = True
    _my_cubes_on(state, me, "r1c2")
    state, _ = act(state, "level_up", player=me, card=card)
    assert _choice(state, me)["options"] == [
        {"achievement": "expert_sailors", "square": "r1c2"},
        {"achievement": "expert_sailors", "leave": True},
    ]
    assert {
        "type": "choose",
        "choice": "achievement_cube",
        "option": {"achievement": "expert_sailors", "leave": True},
    } in (api.legal_actions(state, me))
    state, _ = act(
        state,
        "choose",
        player=me,
        choice="achievement_cube",
        option={"achievement": "expert_sailors", "square": "r1c2"},
    )
    assert state.data["achievement_cubes"]["expert_sailors"][me] == 1
    assert state.data["grid"]["r1c2"]["island"]["cubes"].count(me) == 0


def test_with_no_cube_in_the_supply_or_on_an_island_nothing_is_owed():
    """ "you may remove one of your non-permanent cubes from any island": with none anywhere (only permanent
    cubes), there is no cube to place and nothing to choose.\""""
    state, me, _ = two()
    state.data["achievement_cubes"]["explorer"][me] = 1
    place_island(state, "r1c2", "island-05")["permanent"] = {me: 2}
    state.data["p"][me]["cubes"] = 0
    _one_sail_from_r1c1(state, me)
    state, events = act(state, "move", path=["r2c1"])
    assert "cubes_owed" not in state.data["p"][me] and not any(
        e["type"] == "achievement_cube_owed" for e in events
    )
    assert state.data["achievement_cubes"]["explorer"][me] == 1
    assert "choices" not in api.private_view(state, me)["you"]
