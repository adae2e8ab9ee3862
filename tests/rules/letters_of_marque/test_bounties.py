"""Bounties (rulebook rules/001: "Bounties")."""

from __future__ import annotations

from rules import api
from rules.dead_reckoning.letters_of_marque.favour import lose_favour
from tests.rules.helpers import act, give_hand, place_island
from tests.rules.letters_of_marque.helpers import events_of, lgame, lom, outcome, sail_to

A = "empire-a"


def test_falling_behind_the_start_space_puts_a_bounty_on_the_ship():
    """ "If your Current Favor marker moves back from the start space, you have a bounty on your Ship." """
    state = lgame(3, seed=1)
    me = state.active
    out: list = []
    lose_favour(state.data, me, A, out)
    assert events_of(out, "bounty")
    assert api.public_view(state)["expansions"]["letters-of-marque"]["players"][me]["bounty"] == [A]


def _battle(seed: int, bountied: str, winner: str):
    """The active player attacks a Pirate-mode opponent at r1c1; `bountied` ('attacker'/'defender') has the
    bounty; the battle is won by `winner`."""
    state = lgame(3, seed=seed)
    me = state.active
    other = [c for c in state.players if c != me][0]
    place_island(state, "r1c1", "island-05")
    state.data["p"][other]["ship"].update(at="r1c1", pirate=True)
    state.data["p"][other]["chest"] = 15
    state.data["p"][me]["chest"] = 15
    state = sail_to(state, ["r1c1"])
    if not state.data["battle"]:
        give_hand(state, str(me), ["captain"])
        state, _ = act(state, "attack", target=other)
    who = me if bountied == "attacker" else other
    lom(state)["favour"][who][A] = [-2, 0]
    state, events = act(state, "resolve_battle", player="table", outcome=outcome(state, winner))
    return state, me, other, events


def test_beating_a_bountied_ship_pays_favour_and_2_gold_and_clears_the_bounty():
    """ "If an opponent's Ship defeats your Ship in battle (sinking not required), that player gains 1 Favor
    on the same track and 2 gold from your chest." and "After this, your bounty is cleared, and your Current
    Favor marker moves to the start space." """
    state, me, other, events = _battle(1, bountied="defender", winner="attacker")
    x = lom(state)
    assert x["favour"][me][A][0] == 1 and x["favour"][other][A] == [0, 0]
    assert state.data["p"][me]["chest"] == 17 and state.data["p"][other]["chest"] == 13
    assert state.data["p"][other]["ship"]["at"] == "r1c1"  # not sunk: sinking not required
    assert events_of(events, "bounty_collected")[0]["gold"] == 2


def test_the_defender_can_collect_the_attackers_bounty():
    state, me, other, _ = _battle(2, bountied="attacker", winner="defender")
    assert lom(state)["favour"][other][A][0] == 1 and lom(state)["favour"][me][A][0] == 0


def test_winning_with_a_bounty_keeps_it():
    """Only being defeated collects the bounty."""
    state, me, other, _ = _battle(3, bountied="attacker", winner="attacker")
    assert lom(state)["favour"][me][A][0] == -2
