"""New Ship Upgrades and Bolstered Outposts (rulebook rules/001: "New Ship Upgrades", "Bolstered
Outposts")."""

from __future__ import annotations

import pytest

from rules import api
from rules.dead_reckoning.letters_of_marque.upgrades import check_ability_upgrade
from rules.errors import Illegal, Invalid
from tests.rules.helpers import act, place_island
from tests.rules.letters_of_marque.helpers import (
    events_of,
    lay_found,
    lay_on_ship,
    lgame,
    lom,
    sail_to,
    token_of,
)

GUN = "lom-hallowed-gun"


def test_a_new_upgrade_allows_a_prime_discovery_once_each_turn():
    """ "One upgrade allows a Prime Discovery once each turn." """
    state = lgame(3, seed=1)
    me = state.active
    place_island(state, "r1c1", "island-05")
    lom(state)["boards"]["r1c1"]["island"]["hidden"] = 1
    lom(state)["hidden_out"] += 1
    state.data["p"][me]["ship"]["hull"][1] = ["lom-lantern"]
    state = sail_to(state, ["r1c1"])
    state, _ = act(state, "discover_prime_cargo", part="water")
    with pytest.raises(Illegal):
        act(state, "discover_prime_cargo", part="island")
    state, _ = act(state, "end_turn", pirate=False, sleeve=[])
    while state.active != me:
        state, _ = act(state, "end_turn", pirate=False, sleeve=[])
    state, _ = act(state, "discover_prime_cargo", part="island")  # a new turn, a new discovery


def test_the_hallowed_gun_costs_one_moon_salt_from_the_ship():
    """ "The "Hallowed Gun" is a new Basic Ship Upgrade tile. To acquire it, you must pay 1 Moon Salt from
    your Ship in addition to any other costs." """
    state = lgame(3, seed=2)
    me = state.active
    lom(state)["claims"][me] = [{"kind": "reward", "reward": "fr-09"}]  # a Basic Ship Upgrade tile
    with pytest.raises(Illegal) as err:
        act(state, "claim", index=0, args={"tile": GUN})
    assert "Moon Salt" in err.value.message
    with pytest.raises(Illegal):  # an ability gaining it checks the same cost
        check_ability_upgrade(state.data, me, {"type": "use_ability", "e0": {"tile": GUN, "space": 1}})
    salt = token_of("moon_salt")
    lay_on_ship(state, me, salt)
    state, _ = act(state, "claim", index=0, args={"tile": GUN})
    assert GUN in state.data["p"][me]["ship"]["hull"][1] and salt in lom(state)["discard"]


def _battle_with_gun(seed: int, auto: bool = True):
    state = lgame(3, seed=seed)
    me = state.active
    other = [c for c in state.players if c != me][0]
    place_island(state, "r1c1", "island-05")
    state.data["p"][other]["ship"].update(at="r1c1", pirate=True)
    state.data["p"][me]["ship"]["hull"][1] = [GUN]
    state = sail_to(state, ["r1c1"])
    assert state.data["battle"]
    state.data["options"]["auto_chance"] = auto
    return state, me, other


def test_the_hallowed_gun_drops_the_saga_die_and_each_roll_becomes_a_cube():
    """ "It provides a Battle ability that lets you drop a Saga Die into the Battle tower." "If you roll a
    0 or 1: Replace the die with a cube from your supply. You may move that cube into an adjacent zone if you
    rolled a 1." "If you roll a 2: Replace the die with a cube from your supply, move it into an adjacent
    zone, then repeat the process of dropping a die." """
    state, me, other = _battle_with_gun(3, auto=False)
    cubes = state.data["battle"]["setup"]["attacker"]["cubes"]
    assert {"type": "drop_saga_die"} in api.legal_actions(state, me)
    with pytest.raises(Illegal):
        act(state, "drop_saga_die", player=other)  # no Hallowed Gun on that Ship
    state, _ = act(state, "drop_saga_die")
    assert state.data["pending"][0]["kind"] == "saga_die"
    state, events = api.apply(
        state, {"seq": state.seq, "player": "table", "action": {"type": "saga_die", "face": 2}}
    )
    assert events_of(events, "saga_die_rolled")[0]["again"] and state.data["pending"][0]["kind"] == "saga_die"
    state, events = api.apply(
        state, {"seq": state.seq, "player": "table", "action": {"type": "saga_die", "face": 1}}
    )
    assert events_of(events, "saga_die_rolled")[0]["may_move"] and not state.data["pending"]
    assert state.data["battle"]["setup"]["attacker"]["cubes"] == cubes + 2
    with pytest.raises(Illegal):
        act(state, "drop_saga_die")  # once a battle


def test_saga_die_drawn_by_the_engine_in_simulation_and_kept_when_the_defender_adds_a_card():
    state, me, other = _battle_with_gun(4)
    cubes = state.data["battle"]["setup"]["attacker"]["cubes"]
    state, events = act(state, "drop_saga_die")
    rolls = events_of(events, "saga_die_rolled")
    assert rolls and all(r["again"] for r in rolls[:-1]) and not rolls[-1]["again"]
    assert state.data["battle"]["setup"]["attacker"]["cubes"] == cubes + len(rolls)
    cannon = next((c for c in state.data["p"][other]["hand"] if c.startswith("gunner")), None)
    if cannon is not None:
        state, _ = act(state, "play_card", player=other, card=cannon)
        assert state.data["battle"]["setup"]["attacker"]["cubes"] == cubes + len(rolls)
    # replaying the log never draws: the faces are recorded
    assert all("face" in e["action"] for e in events if e["type"] == "saga_die" and not e.get("notice"))


def _outpost(seed: int):
    state = lgame(3, seed=seed)
    me = state.active
    isl = place_island(state, "r2c2", "island-06")
    isl["controller"] = me
    isl["buildings"]["outpost"] = True
    return state, me


def test_bolstering_an_outpost_costs_one_moon_salt_from_ship_or_harbor():
    """ "Regular Outposts can be upgraded to Bolstered Outposts by discarding 1 Moon Salt from your Ship or
    Harbor on your turn. Replace a normal Outpost with a Bolstered Outpost." and "Each island can still only
    have one Outpost, either bolstered or normal." """
    state, me = _outpost(5)
    with pytest.raises(Illegal):
        act(state, "bolster_outpost", square="r2c2")
    salt = token_of("moon_salt", 2)
    lom(state)["bag"].remove(salt)
    lom(state)["harbor"][me].append(salt)
    state, events = act(state, "bolster_outpost", square="r2c2")
    assert lom(state)["bolstered"] == {"r2c2": me} and salt in lom(state)["discard"]
    assert events_of(events, "outpost_bolstered")
    lay_on_ship(state, me, token_of("moon_salt", 3))
    with pytest.raises(Illegal):
        act(state, "bolster_outpost", square="r2c2")
    with pytest.raises(Illegal):  # no Outpost there
        place_island(state, "r3c3", "island-07")["controller"] = me
        act(state, "bolster_outpost", square="r3c3")


def test_a_bolstered_outpost_flips_and_moves_prime_cargo_once_a_turn():
    """ "Each of your Bolstered Outposts allows you to do each of the following once per turn: turn over an
    Undiscovered Prime Cargo on its island, and move up to 2 Prime Cargo (Dragonfish, Moon Salt, or Black
    Pearls) from its island to your Harbor." """
    state, me = _outpost(6)
    lom(state)["bolstered"]["r2c2"] = me
    lom(state)["boards"]["r2c2"]["island"]["hidden"] = 2
    lom(state)["hidden_out"] += 2
    state, _ = act(
        state, "discover_prime_cargo", part="island", source="outpost", square="r2c2"
    )  # ship in Harbor
    with pytest.raises(Illegal):
        act(state, "discover_prime_cargo", part="island", source="outpost", square="r2c2")
    with pytest.raises(Illegal):
        act(state, "discover_prime_cargo", part="water", source="outpost", square="r2c2")
    lay_found(state, "r2c2", "island", token_of("black_pearls", 4))
    lay_found(state, "r2c2", "island", token_of("black_pearls", 5))
    found = list(lom(state)["boards"]["r2c2"]["island"]["found"])
    with pytest.raises(Invalid):
        act(state, "outpost_to_harbor", square="r2c2", tokens=found[:3])  # up to 2
    state, _ = act(state, "outpost_to_harbor", square="r2c2", tokens=found[:2])
    assert lom(state)["harbor"][me] == found[:2]
    with pytest.raises(Illegal):
        act(state, "outpost_to_harbor", square="r2c2", tokens=found[2:3])


def test_a_bolstered_outpost_removed_with_control_is_no_longer_bolstered():
    state, me = _outpost(7)
    lom(state)["bolstered"]["r2c2"] = me
    state.data["grid"]["r2c2"]["island"]["buildings"]["outpost"] = False  # control changed: Buildings removed
    from rules.dead_reckoning.letters_of_marque.upgrades import drop_stale_outposts

    drop_stale_outposts(state.data)
    assert lom(state)["bolstered"] == {}
