"""Rulebook: 2 — Cleanup Phase, its five steps (lines 227-275)."""

from __future__ import annotations

import pytest

from rules.errors import Illegal, RulesError

from .support import act, controlled_island, give_hand, place_island, play, resolve, ship, two


def test_the_five_steps_in_order():
    """ "Perform the following steps in order: 1. Refill Advancements/Encounters 2. Choose to be in Pirate or
    Mercantile Mode 3. Lose any unspent Sails 4. Sleeve Advancements 5. Discard & Draw" and "For each empty
    Advancement/Encounter space on the Ocean boards, draw a card from the box corresponding to that row and
    place it face up on the space.\""""
    state, me, _ = two()
    state.data["options"]["auto_chance"] = False
    state.data["grid"]["r1c2"]["card"] = None
    state, _ = act(state, "set_sails")
    state, events = act(state, "end_turn")
    assert [r["kind"] for r in state.data["pending"]] == ["draw_advancement", "draw_sailors"]
    assert state.data["pending"][0]["square"] == "r1c2" and ship(state, me)["sails"] == 0
    top = state.data["decks"]["1"][0]
    state, _ = act(state, "draw_advancement", player="table", square="r1c2", card=top)
    assert state.data["grid"]["r1c2"]["card"] == top


def test_only_a_ship_away_from_harbor_may_raise_the_pirate_flag():
    """ "Mercantile mode is the default. Ships not in Pirate mode are in Mercantile mode. In this phase, if
    your Ship is not in Harbor you may choose to put your Ship into Pirate mode." and "Ships in Harbor must be
    in Mercantile mode, so if you end your turn in Harbor, remove your Pirate Flag token.\""""
    state, me, _ = two()
    assert not ship(state, me)["pirate"]
    with pytest.raises(Illegal):
        act(state, "end_turn", pirate=True)
    ship(state, me)["pirate"] = True  # raised last turn at sea, back in Harbor now
    after, _ = act(state, "end_turn", pirate=False)
    assert not ship(after, me)["pirate"]
    ship(state, me)["at"] = "r1c1"
    after, _ = act(state, "end_turn", pirate=True)
    assert ship(after, me)["pirate"]


def test_a_pirate_ship_fights_whoever_stops_on_its_board_and_loses_its_flag_if_beaten():
    """ "If, during another player's turn, any opponent's Ship stops on the Ocean board where your Ship is,
    and you are in Pirate mode, you automatically and immediately start a battle against that Ship. Opponents
    can still move through the board where your Ship is without provoking a battle as long as they don't stop
    there." and "If you lose that battle, in addition to the normal results, your Ship is changed to
    Mercantile mode: remove your Pirate mode flag token.\""""
    state, me, other = two()
    ship(state, other).update({"at": "r1c1", "pirate": True})
    state, _ = act(state, "set_sails")
    state, events = act(state, "move", path=["r1c1"])
    assert state.data["battle"]["defender_player"] == other
    state, _ = resolve(state, f"{me}@s2 {other}@miss")
    assert not ship(state, other)["pirate"] and ship(state, other)["damage"] == 1


def test_a_pirate_that_wins_at_an_island_blockades_it_but_the_card_can_still_be_bought():
    """ "If you win the battle and you are at an island, you have successfully "blockaded" the island, meaning
    the active player may not place or remove Influence cubes on that island for the rest of their turn, nor
    may they load or unload Cargo/Coins from/to the island. Also, they may not attack any Buildings on the
    island. They may, however, still buy the Advancement or resolve the Encounter on that board, after the
    battle (regardless of winning or losing as long as their ship didn't sink).\""""
    state, me, other = two()
    isl = controlled_island(state, me, [me, me, None])
    isl["cargo"] = 1
    state.data["grid"]["r1c1"]["card"] = "r1-01"
    ship(state, me)["holds"] = [[0, 0], [2, 1]]
    ship(state, other).update({"at": "r1c1", "pirate": True})
    state = play(state, "deck-hand-1")
    state, _ = act(state, "set_sails")
    state, _ = act(state, "move", path=["r1c1"])
    state, _ = resolve(state, f"{me}@miss {other}@s2")
    assert ship(state, other)["pirate"] and ship(state, me)["damage"] == 1
    for kind, fields in (
        ("load", {"hold": 0, "cargo": 1, "coins": 0}),
        ("unload", {"hold": 1, "cargo": 0, "coins": 1}),
        ("use_ability", {"ability": "deck-hand-1:L1:0"}),
    ):
        with pytest.raises(Illegal) as err:
            act(state, kind, **fields)
        assert "blockade" in err.value.message
    state, _ = act(state, "buy", pay={"dock": 0, "holds": [0, 2]})
    assert state.data["p"][me]["set_aside"] == ["r1-01"]


def test_a_ship_starting_its_turn_beside_a_pirate_may_leave_or_attack_without_a_flag():
    """ "Note: If your opponent starts their turn sharing the space with your Pirate-mode Ship, they are not
    forced to battle you and may move away peacefully. They may however choose to battle you even if they
    don't have an Attack Flag ability. Your "blockade" of the island still applies, so they may not interact
    with the island in any way unless and until they choose to battle you and win that battle.\""""
    state, me, other = two()
    isl = controlled_island(state, me, [me, me, None])
    isl["cargo"] = 1
    ship(state, me)["at"] = "r1c1"
    ship(state, other).update({"at": "r1c1", "pirate": True})
    assert state.data["battle"] is None
    with pytest.raises(Illegal):
        act(state, "load", hold=0, cargo=1, coins=0)
    state2, _ = act(state, "set_sails")
    state2, _ = act(state2, "move", path=["harbor"])  # away peacefully
    assert state2.data["battle"] is None
    state, _ = act(state, "attack", target=other)  # no Attack Flag played
    state, _ = resolve(state, f"{me}@s2 {other}@miss")
    state, _ = act(state, "load", hold=0, cargo=1, coins=0)  # won: the blockade is lifted
    assert ship(state, me)["holds"][0] == [1, 0]


def test_unspent_sails_are_lost():
    """ "Set your Sail track on your Ship board to 0; you cannot keep unused Sails for the next turn.\""""
    state, me, _ = two()
    state, _ = act(state, "set_sails")
    assert ship(state, me)["sails"] == 2
    state, _ = act(state, "end_turn")
    assert ship(state, me)["sails"] == 0


def test_sleeving_only_onto_played_cards_without_covering():
    """ "You can only sleeve onto a card you played this turn. You cannot sleeve onto a card in your hand."
    and "You cannot sleeve an Advancement such that it would cover or be covered by an Advancement already on
    the card (cards can have a maximum of 3 Advancements on them)." and "It is allowed to sleeve multiple
    Advancements onto the same card at the same time.\""""
    state, me, _ = two()
    give_hand(state, me, ["crew-2"])
    state = play(state, "crew-1")
    p = state.data["p"][me]
    p["set_aside"] = ["r1-01", "r1-02", "r1-03"]  # middle, bottom, top
    with pytest.raises(Illegal):
        act(state, "end_turn", sleeve=[{"advancement": "r1-01", "card": "crew-2"}])
    p["cards"]["crew-1"] = {**p["cards"]["crew-1"], "slots": {"top": None, "middle": "r2-01", "bottom": None}}
    with pytest.raises(Illegal):
        act(state, "end_turn", sleeve=[{"advancement": "r1-01", "card": "crew-1"}])
    p["cards"]["crew-1"] = {**p["cards"]["crew-1"], "slots": {"top": None, "middle": None, "bottom": None}}
    state, _ = act(
        state,
        "end_turn",
        sleeve=[{"advancement": a, "card": "crew-1"} for a in ("r1-01", "r1-02", "r1-03")],
    )
    assert state.data["p"][me]["cards"]["crew-1"]["slots"] == {
        "top": "r1-03",
        "middle": "r1-01",
        "bottom": "r1-02",
    }


def test_an_advancement_sleeved_this_turn_is_not_used_this_turn():
    """ "You cannot use the ability of an Advancement you sleeve on the same turn that you sleeved it.\""""
    state, me, _ = two()
    state = play(state, "crew-1")
    state.data["p"][me]["set_aside"] = ["r1-03"]  # Quartermaster: gain 1 Cargo
    with pytest.raises(RulesError):
        act(state, "use_ability", ability="crew-1:r1-03:0")  # set aside, not on the card
    state, _ = act(state, "end_turn", sleeve=[{"advancement": "r1-03", "card": "crew-1"}])
    assert "crew-1" in state.data["p"][me]["discard"]  # sleeved in Cleanup, then discarded with the card
    with pytest.raises(Illegal):
        act(state, "use_ability", player=me, ability="crew-1:r1-03:0")


def test_at_most_one_advancement_stays_aside_unless_the_rest_cannot_be_sleeved():
    """ "Sleeving an Advancement is optional; you may choose to leave it set aside. However, at the end of
    this step, you can only have a maximum of 1 set-aside Advancement and must sleeve the rest. If you have
    multiple Advancements that you cannot sleeve, you may set aside all those that you cannot sleeve, but
    must sleeve any that you can.\""""
    state, me, _ = two()
    state = play(state, "crew-1")
    state.data["p"][me]["set_aside"] = ["r1-03"]
    kept, _ = act(state, "end_turn")  # optional
    assert kept.data["p"][me]["set_aside"] == ["r1-03"]
    state.data["p"][me]["set_aside"] = ["r1-03", "r1-01"]
    with pytest.raises(Illegal) as err:
        act(state, "end_turn")
    assert "at most 1" in err.value.message
    state, _ = act(state, "end_turn", sleeve=[{"advancement": "r1-01", "card": "crew-1"}])
    assert state.data["p"][me]["set_aside"] == ["r1-03"]
    # none can be sleeved (no card played): all may stay aside
    state2, me2, _ = two()
    state2.data["p"][me2]["set_aside"] = ["r1-03", "r1-01", "r2-01"]
    state2, _ = act(state2, "end_turn")
    assert len(state2.data["p"][me2]["set_aside"]) == 3


def test_played_cards_are_discarded_the_rest_stay_in_hand_then_draw():
    """ "Place all of the cards you played this turn into your discard pile. Any cards you did not play stay
    in your hand. Then, draw cards from your deck.\""""
    state, me, _ = two()
    p = state.data["p"][me]
    hand = list(p["hand"])
    state, _ = act(state, "play_card", card=hand[0])
    state, _ = act(state, "end_turn")
    p = state.data["p"][me]
    assert p["discard"] == [hand[0]] and set(hand[1:]) <= set(p["hand"]) and len(p["hand"]) == 3 + 3


def test_a_hand_limit_that_drops_on_an_opponents_turn_does_not_make_you_discard():
    """ "If your hand limit decreases on an opponent's turn (for example, you lose control of an island) you
    don't have to discard down to your new hand size.\""""
    state, me, other = two()
    isl = place_island(state, "r1c3", "island-03")  # the hand-limit icon
    isl["cubes"], isl["controller"] = [other, other, None], other
    op = state.data["p"][other]
    op["hand"] += op["deck"][:3]
    op["deck"] = op["deck"][3:]
    assert len(op["hand"]) == 7
    isl["cubes"], isl["controller"] = [me, me, None], me  # lost on my turn
    state, _ = act(state, "end_turn")
    assert state.active == other and len(state.data["p"][other]["hand"]) == 7
    state, events = act(state, "end_turn")
    assert len(state.data["p"][other]["hand"]) == 7  # over the limit: draws nothing, discards nothing
    assert [e["draw"] for e in events if e["type"] == "cleanup"] == [0]


def test_bonus_draw_raises_the_draw_not_the_hand_limit():
    """ "Your draw amount can be temporarily increased with the bonus draw effect. For each bonus draw icon
    you played this turn, you draw 1 additional card. However, the bonus draw ability does not increase your
    hand limit, only your draw amount. Thus, too much bonus draw in the same turn can be wasted." and "Draw
    bonus: This ability may not be used during your Main phase. Instead, during your Cleanup phase, for each
    of these abilities you played this turn, draw 1 extra card (but still not past your hand limit).\""""
    state, me, _ = two()
    p = state.data["p"][me]
    bonus = list(p["hand"][:2])
    for card in bonus:  # Recruiter (a bonus draw icon) sleeved on two cards
        p["cards"][card] = {**p["cards"][card], "slots": {"top": None, "middle": "r3-07", "bottom": None}}
    for card in list(p["hand"][:3]):
        state, _ = act(state, "play_card", card=card)
    state, events = act(state, "end_turn")  # 1 left in hand: 4 + 2 drawn would be 7, the limit is 6
    assert [e["draw"] for e in events if e["type"] == "cleanup"] == [5]
    assert len(state.data["p"][me]["hand"]) == 6
