"""Favor (rulebook rules/001: "Gaining and Losing Favor", "Ways to Gain and Lose Favor", "Favor Rewards")."""

from __future__ import annotations

import pytest

from rules.dead_reckoning.letters_of_marque.data import lom_data
from rules.dead_reckoning.letters_of_marque.favour import gain_favour, lose_favour
from rules.errors import Ambiguous, Illegal
from tests.rules.helpers import act, place_island
from tests.rules.letters_of_marque.helpers import (
    events_of,
    lay_on_ship,
    lgame,
    lom,
    outcome,
    sail_to,
    token_of,
)

A, B = "empire-a", "empire-b"


def _game(seed: int = 1, rewards: dict[str, dict[str, str]] | None = None):
    state = lgame(3, seed=seed)
    if rewards is not None:
        lom(state)["rewards"] = rewards
    return state


def test_gaining_moves_current_and_peak_and_grants_the_reward():
    """ "Gaining Favor: Move your Current Favor marker forward one space. If it moves ahead of your Peak Favor
    marker, move the Peak Favor marker forward as well and gain the Favor Reward on that space." """
    state = _game(rewards={A: {"1": "fr-04"}, B: {}})  # fr-04: 3 gold
    me = state.active
    chest = state.data["p"][me]["chest"]
    out: list = []
    gain_favour(state.data, me, A, out)
    assert lom(state)["favour"][me][A] == [1, 1]
    assert state.data["p"][me]["chest"] == chest + 3
    assert events_of(out, "favour_reward")[0]["reward"] == "fr-04"


def test_regaining_behind_the_peak_grants_nothing():
    """ "Losing Favor: Move your Current Favor marker back one space. The Peak Favor marker remains." — so
    moving forward again up to the peak is not "ahead of your Peak Favor marker": no reward twice."""
    state = _game(rewards={A: {"1": "fr-04"}, B: {}})
    me = state.active
    gain_favour(state.data, me, A, [])
    lose_favour(state.data, me, A, [])
    assert lom(state)["favour"][me][A] == [0, 1]
    chest = state.data["p"][me]["chest"]
    out: list = []
    gain_favour(state.data, me, A, out)
    assert lom(state)["favour"][me][A] == [1, 1] and state.data["p"][me]["chest"] == chest
    assert not events_of(out, "favour_reward")


def test_the_right_end_gives_2_gold_and_the_left_end_costs_2_gold():
    """ "If already on the rightmost space, gain 2 gold instead." and "If already on the leftmost space,
    lose 2 gold from your chest." """
    state = _game(rewards={A: {}, B: {}})
    me = state.active
    track = lom_data().empires[A]["track"]
    lom(state)["favour"][me][A] = [track["right"], track["right"]]
    chest = state.data["p"][me]["chest"]
    gain_favour(state.data, me, A, [])
    assert lom(state)["favour"][me][A] == [track["right"], track["right"]]
    assert state.data["p"][me]["chest"] == chest + 2
    lom(state)["favour"][me][A] = [track["left"], 0]
    lose_favour(state.data, me, A, [])
    assert lom(state)["favour"][me][A] == [track["left"], 0] and state.data["p"][me]["chest"] == chest
    state.data["p"][me]["chest"] = 1
    lose_favour(state.data, me, A, [])
    assert state.data["p"][me]["chest"] == 0  # only what the chest holds


def test_trading_a_wanted_prime_cargo_in_harbor():
    """ "Trading to an Empire: To gain Favor, your Ship must be in Harbor. Discard a Prime Cargo from your
    Ship that matches one of the types the empire wants (indicated on their Empire board). Then advance one
    space on that empire's Favor Track." """
    state = _game(rewards={A: {}, B: {}})
    me = state.active
    wanted = lom_data().empires[A]["wants"][0]
    unwanted = next(
        t for t in ("dragonfish", "moon_salt", "black_pearls") if t not in lom_data().empires[A]["wants"]
    )
    good, bad = token_of(wanted, 0), token_of(unwanted, 0)
    lay_on_ship(state, me, good)
    lay_on_ship(state, me, bad, hold=1)
    with pytest.raises(Illegal) as err:
        act(state, "trade_favour", empire=A, token=bad)
    assert "wants" in err.value.message
    state, _ = act(state, "trade_favour", empire=A, token=good)
    assert lom(state)["favour"][me][A] == [1, 1] and good in lom(state)["discard"]
    assert lom(state)["ship"][me] == [[], [bad]]
    place_island(state, "r1c1", "island-05")
    state = sail_to(state, ["r1c1"])
    lay_on_ship(state, me, token_of(wanted, 1))
    with pytest.raises(Illegal) as err:
        act(state, "trade_favour", empire=A, token=token_of(wanted, 1))
    assert "Harbor" in err.value.message


def test_rival_penalty():
    """ "Rival Penalties: Advancing your Peak Favor to a space with a rival empire's icon causes you to
    lose one Current Favor on that rival's track." """
    state = _game(rewards={A: {}, B: {}})
    me = state.active
    rival_at = lom_data().empires[A]["track"]["rival_spaces"][0]
    lom(state)["favour"][me][A] = [rival_at - 1, rival_at - 1]
    lom(state)["favour"][me][B] = [2, 2]
    gain_favour(state.data, me, A, [])
    assert lom(state)["favour"][me][B] == [1, 2]
    lose_favour(state.data, me, A, [])
    gain_favour(state.data, me, A, [])  # back to the same space: the peak did not advance
    assert lom(state)["favour"][me][B] == [1, 2]


def _trade_vessel_battle(seed: int, winner: str):
    state = lgame(3, seed=seed)
    me = state.active
    place_island(state, "r1c1", "island-05")
    vessel = "lom-r1-01"  # Empire A's Trade vessel: favour win 1, lose 1
    state.data["grid"]["r1c1"]["card"] = vessel
    state = sail_to(state, ["r1c1"])
    state, _ = act(state, "attack_merchant")
    state, events = act(state, "resolve_battle", player="table", outcome=outcome(state, winner))
    return state, me, events


def test_trade_vessels_won_and_lost():
    """ "Battles: Winning a battle against a Trade vessel generally grants Favor with an empire. Losing a
    battle against a Trade vessel generally results in losing Favor with an empire." """
    state, me, _ = _trade_vessel_battle(2, "attacker")
    assert lom(state)["favour"][me][A][0] == 1
    state, me, events = _trade_vessel_battle(2, "defender")
    assert lom(state)["favour"][me][A] == [-1, 0]
    assert events_of(events, "bounty")  # behind the start space


def _claimable(state, reward):
    me = state.active
    lom(state)["claims"][me] = [{"kind": "reward", "reward": reward}]
    return me


def test_rewards_gold_and_cargo_at_harbor_and_draw():
    """ "Favor Rewards can include gaining gold and/or Cargo at Harbor, ... drawing a card" (at once)."""
    state = _game(rewards={A: {"1": "fr-02", "2": "fr-07"}, B: {}})
    me = state.active
    p = state.data["p"][me]
    chest, dock, hand = p["chest"], p["dock"], len(p["hand"])
    token = token_of(lom_data().empires[A]["wants"][0])
    lay_on_ship(state, me, token)
    state, _ = act(state, "trade_favour", empire=A, token=token)
    p = state.data["p"][me]
    assert (p["chest"], p["dock"]) == (chest + 1, dock + 1)
    lay_on_ship(state, me, token_of(lom_data().empires[A]["wants"][0], 1))
    state, _ = act(state, "trade_favour", empire=A, token=token_of(lom_data().empires[A]["wants"][0], 1))
    assert len(state.data["p"][me]["hand"]) == hand + 1


def test_reward_choosing_between_repairs_or_another_benefit():
    """ "... choosing between repairs or other benefits" """
    state = lgame(3, seed=3)
    me = _claimable(state, "fr-05")  # repair 2 or 2 gold
    with pytest.raises(Ambiguous):
        act(state, "claim", index=0)
    with pytest.raises(Illegal):
        act(state, "claim", index=0, args={"choice": 0})  # no Damage to repair
    state.data["p"][me]["ship"]["damage"] = 3
    state, _ = act(state, "claim", index=0, args={"choice": 0})
    assert state.data["p"][me]["ship"]["damage"] == 1 and lom(state)["claims"][me] == []


def test_reward_basic_upgrade_tile_and_a_specific_tile():
    """ "... gaining a Basic Ship Upgrade tile ... or gaining a specific Ship Upgrade tile." """
    state = lgame(3, seed=3)
    me = _claimable(state, "fr-09")
    state, _ = act(state, "claim", index=0, args={"tile": "basic-cannon"})
    assert "basic-cannon" in [t for s in state.data["p"][me]["ship"]["hull"] for t in s]
    _claimable(state, "fr-14")  # the Charts Room
    supply = state.data["upgrade_supply"]["lom-charts-room"]
    state, _ = act(state, "claim", index=0)
    assert "lom-charts-room" in [t for s in state.data["p"][me]["ship"]["hull"] for t in s]
    assert state.data["upgrade_supply"]["lom-charts-room"] == supply - 1


def test_reward_levelling_a_card_and_adding_a_building():
    """ "... leveling up a card, adding a Building to a controlled island" """
    state = lgame(3, seed=3)
    me = _claimable(state, "fr-11")
    card = sorted(state.data["p"][me]["cards"])[0]
    level = state.data["p"][me]["cards"][card]["level"]
    state, _ = act(state, "claim", index=0, args={"card": card})
    assert state.data["p"][me]["cards"][card]["level"] == level + 1
    _claimable(state, "fr-13")
    isl = place_island(state, "r1c1", "island-05")
    with pytest.raises(Illegal):
        act(state, "claim", index=0, args={"square": "r1c1", "building": "fort"})
    isl["controller"] = me
    supply = state.data["supply"]["fort"]
    state, _ = act(state, "claim", index=0, args={"square": "r1c1", "building": "fort"})
    assert (
        state.data["grid"]["r1c1"]["island"]["buildings"]["fort"]
        and state.data["supply"]["fort"] == supply - 1
    )


def test_a_claim_is_settled_during_ones_own_turn_and_may_be_declined():
    state = lgame(3, seed=3)
    me = _claimable(state, "fr-11")
    other = [c for c in state.players if c != me][0]
    lom(state)["claims"][other] = [{"kind": "reward", "reward": "fr-11"}]
    with pytest.raises(Illegal):
        act(state, "claim", player=other, index=0, args={"card": "crew-1"})
    state, _ = act(state, "decline", index=0)
    assert lom(state)["claims"][me] == []
