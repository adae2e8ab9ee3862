"""Rulebook: Sunken Ships (lines 400-406)."""

from __future__ import annotations

from .support import act, controlled_island, resolve, ship, two


def _provoked(state, me, other):
    ship(state, other).update({"at": "r1c1", "pirate": True})
    state, _ = act(state, "set_sails")
    state, _ = act(state, "move", path=["r1c1"])
    return state


def test_five_damage_at_the_end_of_a_battle_sinks():
    """ "If your Ship has 5 or more Damage on it at the end of a battle, it sinks.\""""
    state, me, other = two()
    ship(state, other)["damage"] = 3
    state = _provoked(state, me, other)
    state, events = resolve(state, f"{me}@dmg {other}@miss")  # 1 from the cube + 1 for losing
    assert [e["player"] for e in events if e["type"] == "ship_sunk"] == [other]


def test_the_fifth_damage_mid_battle_sinks_only_once_the_battle_is_resolved():
    """ "If your Ship receives its 5th Damage in the middle of a battle (e.g. from a Battle ability), finish
    resolving the battle before the Ship sinks.\""""
    state, me, other = two()
    ship(state, other)["damage"] = 4
    state.data["p"][me]["cards"]["gunner-1"] = {**state.data["p"][me]["cards"]["gunner-1"], "level": 4}
    state.data["p"][me]["hand"].append("gunner-1")
    state.data["p"][me]["deck"] = [c for c in state.data["p"][me]["deck"] if c != "gunner-1"]
    state, _ = act(state, "play_card", card="gunner-1")
    ship(state, me)["holds"] = [[0, 0], [0, 0]]
    state = _provoked(state, me, other)
    ab = f"{me}:gunner-1:L4:2"  # remove one of your cubes: 1 Damage and 2 Coins on your Ship
    # the ability's Damage is the 5th, yet the battle goes on: the defender still plunders and damages
    state, events = resolve(
        state,
        f"{me}@s1 {me}@miss {other}@p-k1",
        {"step": "ability", "side": "attacker", "ability": ab, "cube": 1},
    )
    assert any(e["type"] == "ship_sunk" and e["player"] == other for e in events)
    assert ship(state, other)["damage"] == 0 and ship(state, other)["at"] == "harbor"
    assert sum(h[1] for h in ship(state, me)["holds"]) == 2


def test_fifth_damage_outside_a_battle_sinks_at_once():
    """ "If your Ship receives its 5th Damage not during a battle, the Ship sinks immediately.\""""
    state, me, other = two()
    isl = controlled_island(state, other, [other, other, None])
    isl["buildings"]["garrison"] = True
    ship(state, me)["damage"] = 4
    state, _ = act(state, "set_sails")
    state, events = act(state, "move", path=["r1c1", "r1c2"])
    assert ship(state, me)["at"] == "harbor"  # sunk on entering r1c1: the move ends there
    assert [e["player"] for e in events if e["type"] == "ship_sunk"] == [me]


def test_sinking_with_five_coins_aboard_loses_them_all_to_the_sinker():
    """ "When your Ship sinks, if you have 5 or more Coins on your Ship, immediately lose all of the Coins on
    your Ship (return them to the supply)." and "If another player was the cause of your Ship sinking (they
    inflicted the 5th Damage via a battle, a Garrison, or an ability on a card), that player gains the Coins
    you lost rather than them being put into the supply. That player places the Coins directly into their
    Treasure chest.\""""
    state, me, other = two()
    ship(state, other).update({"damage": 4, "holds": [[1, 4], [0, 2]]})
    chest_o, chest_me = state.data["p"][other]["chest"], state.data["p"][me]["chest"]
    state = _provoked(state, me, other)
    state, _ = resolve(state, f"{me}@s1 {other}@miss")
    assert state.data["p"][other]["chest"] == chest_o and state.data["p"][me]["chest"] == chest_me + 6


def test_sinking_with_fewer_than_five_coins_costs_five_from_the_chest_cargo_stays():
    """ "If you have fewer than 5 Coins on your Ship, keep them there, and lose 5 Coins from your Treasure
    chest instead. Cargo on your Ship is not lost when you are sunk. Place your Ship at Harbor, remove all
    Damage, and move any Coins on it to your Treasure chest. Set your Ship to Mercantile mode with its Sails
    set to 0.\""""
    state, me, other = two()
    ship(state, other).update({"damage": 4, "holds": [[2, 3], [0, 0]]})
    chest = state.data["p"][other]["chest"]
    state = _provoked(state, me, other)
    state, _ = resolve(state, f"{me}@s1 {other}@miss")
    s = ship(state, other)
    assert s["holds"] == [[2, 0], [0, 0]] and s["at"] == "harbor" and s["damage"] == 0
    assert s["pirate"] is False and s["sails"] == 0
    assert state.data["p"][other]["chest"] == chest - 5 + 3
