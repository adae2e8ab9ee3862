"""Where a battle starts and where its outcome comes back: setups built from the state, outcomes applied."""

from __future__ import annotations

import random

import pytest

from rules import api
from rules.battle import resolve_battle
from rules.battle.contract import BattleOutcome, BattleSetup, SideResult
from rules.core.state import plain
from rules.dead_reckoning.battles import apply_battle_outcome
from rules.dead_reckoning.choices import settle_plunder
from rules.errors import Ambiguous, Illegal, Invalid
from tests.rules.helpers import act, game, give_hand, place_island


def _two_ships_in_harbor(seed=1):
    state = game(2, seed=seed)
    me = state.active
    other = [c for c in state.players if c != me][0]
    give_hand(state, me, ["captain"])
    state.data["p"][me]["cards"]["captain"]["level"] = 2  # Attack Flag + Wheel
    state, _ = act(state, "play_card", card="captain")
    return state, me, other


def test_attack_flag_builds_a_setup_with_harbor_bonus():
    state, me, other = _two_ships_in_harbor()
    state, events = act(state, "attack", target=other)
    setup = [e for e in events if e["type"] == "battle_started"][0]["setup"]
    assert setup["kind"] == "ship" and setup["attacker"]["name"] == me
    assert setup["attacker"]["cubes"] == 1  # the Cannon on the Ship board
    assert setup["defender"]["cubes"] == 1 + 4  # attacked in Harbor: 4 more cubes
    assert state.data["battle"] is not None
    with pytest.raises(Illegal):
        act(state, "attack", target=other)


def test_attack_without_a_flag_is_refused():
    state = game(2, seed=1)
    other = [c for c in state.players if c != state.active][0]
    with pytest.raises(Illegal) as err:
        act(state, "attack", target=other)
    assert "Attack Flag" in err.value.message


def test_defender_plays_a_cannon_card_out_of_turn():
    state, me, other = _two_ships_in_harbor()
    give_hand(state, other, ["gunner-1"])
    state.data["p"][other]["cards"]["gunner-1"]["level"] = 2
    state, _ = act(state, "attack", target=other)
    state, events = act(state, "play_card", player=other, card="gunner-1")
    upd = [e for e in events if e["type"] == "battle_updated"][0]["setup"]
    assert upd["defender"]["cubes"] == 2 + 4
    give_hand(state, other, ["crew-1"])
    with pytest.raises(Illegal):
        act(state, "play_card", player=other, card="crew-1")  # no Cannon, no Battle ability


def _outcome(setup, winner, att=None, dfn=None, used=()):
    return BattleOutcome(
        battle_id=setup.battle_id,
        winner=winner,
        attacker=att or SideResult(),
        defender=dfn or SideResult(),
        abilities_used=tuple(used),
    )


def test_outcome_damage_plunder_legendary_and_pirate_flag():
    state, me, other = _two_ships_in_harbor()
    state.data["p"][other]["ship"]["pirate"] = True
    state, _ = act(state, "attack", target=other)
    setup = BattleSetup.from_json(state.data["battle"]["setup"])
    out = _outcome(
        setup,
        "attacker",
        SideResult(plunder_cargo=2, plunder_coins=5, damage_dealt=2),
        SideResult(damage_dealt=1),
    )
    d = state.data
    apply_battle_outcome(d, setup, out, [])
    assert d["p"][other]["ship"]["damage"] == 2 + 1  # zones + losing
    assert d["p"][me]["ship"]["damage"] == 1
    assert d["p"][other]["ship"]["pirate"] is False
    # the plunder waits for its owner to say where it goes; unanswered, it fills the holds with room
    assert d["p"][me]["ship"]["holds"] == [[0, 0], [0, 0]]
    assert d["p"][me]["plunder"] == {"cargo": 2, "coins": 5, "square": "harbor"}
    assert d["supply"]["coins"] == 800 - 5
    settle_plunder(d, [])
    assert d["p"][me]["ship"]["holds"] == [[2, 2], [0, 3]] and "plunder" not in d["p"][me]
    assert d["supply"]["coins"] == 800 - 5
    assert d["achievement_cubes"]["legendary"][me] == 1
    assert d["battle"] is None


def test_sinking_with_few_coins_on_ship_costs_five_from_the_chest_to_the_sinker():
    state, me, other = _two_ships_in_harbor()
    state.data["p"][other]["ship"]["damage"] = 3
    state.data["p"][other]["ship"]["holds"][1] = [1, 2]
    state, _ = act(state, "attack", target=other)
    setup = BattleSetup.from_json(state.data["battle"]["setup"])
    d = state.data
    events: list[dict] = []
    apply_battle_outcome(d, setup, _outcome(setup, "attacker", SideResult(damage_dealt=1)), events)
    o = d["p"][other]
    assert o["ship"]["damage"] == 0 and o["ship"]["at"] == "harbor" and o["ship"]["sails"] == 0
    assert o["chest"] == 15 - 5 + 2  # lost 5 from the chest, the ship's 2 coins went to the chest
    assert o["ship"]["holds"][1] == [1, 0]  # cargo is not lost
    assert d["p"][me]["chest"] == 20 and d["p"][me]["sank"] == 1
    assert any(e["type"] == "ship_sunk" for e in events)


def test_sinking_with_five_coins_on_ship_loses_them():
    state, me, other = _two_ships_in_harbor()
    state.data["p"][other]["ship"]["damage"] = 4
    state.data["p"][other]["ship"]["holds"][0] = [0, 4]
    state.data["p"][other]["ship"]["holds"][1] = [0, 2]
    state, _ = act(state, "attack", target=other)
    setup = BattleSetup.from_json(state.data["battle"]["setup"])
    d = state.data
    apply_battle_outcome(d, setup, _outcome(setup, "attacker"), [])
    assert d["p"][other]["chest"] == 15 and d["p"][me]["chest"] == 21


def test_merchant_battle_win_and_loss():
    state = game(2, seed=1)
    me = state.active
    place_island(state, "r1c1", "island-05")
    state.data["grid"]["r1c1"]["card"] = "r2-06"  # Spice Merchant: win = 3 coins + 1 cargo on the ship
    state, _ = act(state, "set_sails")
    state, _ = act(state, "move", path=["r1c1"])
    state, events = act(state, "attack_merchant")
    setup = BattleSetup.from_json(state.data["battle"]["setup"])
    assert setup.kind == "nonplayer" and setup.defender.cubes == 3 and setup.defender.cube_color == "black"
    won = state.copy()
    apply_battle_outcome(won.data, setup, _outcome(setup, "attacker"), [])
    assert won.data["p"][me]["ship"]["holds"][0] == [1, 3] and "r2-06" in won.data["buried"]["2"]
    # "Apply the effect on the back of the Encounter": losing to a Merchant deals only its card's Lose
    # effects (the Spice Merchant's are none), not the 1 Damage a lost Ship battle deals
    lost = state.copy()
    apply_battle_outcome(lost.data, setup, _outcome(setup, "defender"), [])
    assert lost.data["p"][me]["ship"]["damage"] == 0 and "r2-06" in lost.data["buried"]["2"]


def test_building_battle_removes_fort_on_win():
    state = game(2, seed=1)
    me = state.active
    other = [c for c in state.players if c != me][0]
    isl = place_island(state, "r1c1", "island-05")
    isl["cubes"] = [other, other, None]
    isl["controller"] = other
    isl["buildings"].update({"fort": True, "garrison": True})
    state, _ = act(state, "set_sails")
    state, events = act(state, "move", path=["r1c1"])
    assert state.data["p"][me]["ship"]["damage"] == 1  # the Garrison fires on entering
    state, events = act(state, "attack_building")
    setup = BattleSetup.from_json(state.data["battle"]["setup"])
    assert setup.kind == "building" and setup.defender.cubes == 7
    apply_battle_outcome(state.data, setup, _outcome(setup, "attacker", SideResult(plunder_coins=3)), [])
    b = state.data["grid"]["r1c1"]["island"]["buildings"]
    assert not b["fort"] and not b["garrison"]
    assert state.data["p"][me]["ship"]["holds"][0][1] == 0  # no plunder against Buildings


def test_resolve_battle_through_a_record_and_replay():
    state, events = api.new_game_with_events(["red", "blue"], 3)
    rng = random.Random(5)
    # random legal play until a battle is resolved from a random record of cube landings
    for _ in range(3000):
        who = state.active or "table"
        acts = api.legal_actions(state, who)
        state, evs = api.apply(state, {"seq": state.seq, "player": who, "action": rng.choice(acts)})
        events += evs
        if any(e["type"] == "battle_resolved" for e in evs):
            break
    resolved = [e for e in events if e["type"] == "battle_resolved"]
    assert resolved, "a random game should reach a battle"
    # the outcome kept in the log is the one the kept record resolves to (not merely a well-formed winner)
    first = resolved[0]
    again = resolve_battle(BattleSetup.from_json(first["setup"]), first["record"])
    assert first["record"]["steps"] and plain(again.to_json()) == first["outcome"]
    assert api.replay(events) == state


def test_bad_battle_record_is_invalid_and_changes_nothing():
    state, me, other = _two_ships_in_harbor()
    state, _ = act(state, "attack", target=other)
    before = api.state_to_json(state)
    with pytest.raises(Invalid):
        act(state, "resolve_battle", record={"schema": "nonsense"})
    with pytest.raises(Invalid):
        act(state, "resolve_battle")
    assert api.state_to_json(state) == before


def test_short_of_cubes_a_battle_takes_island_cubes_that_do_not_go_back():
    state, me, other = _two_ships_in_harbor()
    isl = place_island(state, "r1c1", "island-05")
    isl["cubes"] = [me, None, None]
    state.data["p"][me]["cubes"] = 0
    state, _ = act(state, "attack", target=other)
    setup = BattleSetup.from_json(state.data["battle"]["setup"])
    assert setup.attacker.cubes == 1  # the Ship's Cannon, paid with the island cube
    apply_battle_outcome(state.data, setup, _outcome(setup, "defender"), [])
    assert state.data["grid"]["r1c1"]["island"]["cubes"] == [None, None, None]
    assert state.data["p"][me]["cubes"] == 1


def test_stopping_among_several_pirates_asks_for_the_order():
    state = game(3, seed=1)
    me = state.active
    others = [c for c in state.players if c != me]
    for c in others:
        state.data["p"][c]["ship"].update({"at": "r1c2", "pirate": True})
    state, _ = act(state, "set_sails")
    with pytest.raises(Ambiguous) as err:
        act(state, "move", path=["r1c2"])
    assert sorted(err.value.options) == sorted(others)
    state, events = act(state, "move", path=["r1c2"], fight_order=[others[1], others[0]])
    assert [e["setup"]["defender"]["name"] for e in events if e["type"] == "battle_started"] == [others[1]]
    assert state.data["battle_queue"][0]["defender"] == others[0]


def test_once_the_drop_has_started_jettison_rearrange_and_defender_cards_are_refused():
    """Rulebook (Rearranging, Jettisoning): "However, once the battle has begun, you can no longer do this
    until the battle is over." and step 1 (the inactive player plays cards "before determining their total
    Battle cubes"). The battle session says when the drop starts with `battle_drop_started` (#16,
    deviation 3)."""
    state, me, other = _two_ships_in_harbor()
    give_hand(state, other, ["gunner-1", "gunner-2"])
    for g in ("gunner-1", "gunner-2"):
        state.data["p"][other]["cards"][g]["level"] = 2
    state.data["p"][other]["ship"]["holds"] = [[2, 0], [0, 1]]
    with pytest.raises(Illegal):
        act(state, "battle_drop_started", player="table")  # no battle yet
    state, _ = act(state, "attack", target=other)
    # before the drop: answering the attack is allowed
    state, _ = act(state, "jettison", player=other, hold=0, cargo=1, coins=0)
    state, _ = act(state, "play_card", player=other, card="gunner-1")
    state, events = act(state, "battle_drop_started", player="table")
    assert state.data["battle"]["locked"] and any(e["type"] == "battle_locked" for e in events)
    for kind, fields in (
        ("jettison", {"hold": 0, "cargo": 1, "coins": 0}),
        ("rearrange", {"from_hold": 1, "cargo": 0, "coins": 1}),
    ):
        with pytest.raises(Illegal) as err:
            act(state, kind, player=other, **fields)
        assert "battle has begun" in err.value.message
    with pytest.raises(Illegal) as err:
        act(state, "play_card", player=other, card="gunner-2")
    assert "battle has begun" in err.value.message and "before the drop" in err.value.message
    assert not [a for a in api.legal_actions(state, other) if a["type"] == "play_card"]
    with pytest.raises(Illegal):
        act(state, "battle_drop_started", player="table")  # once per battle
    # the battle over, jettisoning is allowed again
    resolve = [a for a in api.legal_actions(state, me) if a["type"] == "resolve_battle"][0]
    state, _ = api.apply(state, {"seq": state.seq, "player": me, "action": resolve})
    assert state.data["battle"] is None
    state, _ = act(state, "jettison", player=other, hold=0, cargo=1, coins=0)  # one battle cannot sink it


def _merchant_battle(tmp_path, lose=None):
    """A 2-player game whose Spice Merchant (r2-06) carries `lose` on its back, attacked at r1c1."""
    import json

    from rules.dead_reckoning.cards import load_catalog

    sample = json.loads(
        (load_catalog.__globals__["resources"].files("rules.data") / "advancements.json").read_text()
    )
    for c in sample["cards"]:
        if c["id"] == "r2-06" and lose is not None:
            c["encounter"]["lose"] = lose
    f = tmp_path / "cards.json"
    f.write_text(json.dumps(sample))
    state = game(2, seed=1, cards_file=str(f))
    place_island(state, "r1c1", "island-05")
    state.data["grid"]["r1c1"]["card"] = "r2-06"  # Spice Merchant: win = 3 coins + 1 cargo on the ship
    state, _ = act(state, "set_sails")
    state, _ = act(state, "move", path=["r1c1"])
    state, _ = act(state, "attack_merchant")
    return state, BattleSetup.from_json(state.data["battle"]["setup"])


def test_losing_to_a_merchant_applies_the_back_of_its_card(tmp_path):
    """Rulebook (Player vs. Non-Player, step 5): "Apply the effect on the back of the Encounter depending on
    whether you won or lost." and (Encounters) "If you lose the battle, the Merchant ship should be buried"
    (#16, deviation 2): the card's Lose effects, no default Damage."""
    state, setup = _merchant_battle(
        tmp_path, lose=[{"do": "gain", "what": "cargo", "amount": 2, "to": "dock"}]
    )
    me = state.active
    dock, supply = state.data["p"][me]["dock"], state.data["supply"]["cargo"]
    state, _ = act(state, "resolve_battle", player="table", outcome=_outcome(setup, "defender").to_json())
    p = state.data["p"][me]
    assert p["dock"] == dock + 2 and state.data["supply"]["cargo"] == supply - 2
    assert p["ship"]["damage"] == 0 and "r2-06" in state.data["buried"]["2"]


def test_a_merchants_win_onto_a_full_ship_is_owed_not_lost(tmp_path):
    """Rulebook (Gaining and Spending): "If a Ship symbol is shown, the Cargo/Coin is gained directly on your
    Ship; if you cannot fit it onto your Ship then you either have to jettison or unload it (or other
    Cargo/Coins) to make space." (#16, deviation 2): the Win's Coins onto a full Ship wait for that space."""
    state, setup = _merchant_battle(tmp_path)
    me = state.active
    state.data["p"][me]["ship"]["holds"] = [[4, 0], [3, 0]]  # full: 7 Cargo
    coins, cargo = state.data["supply"]["coins"], state.data["supply"]["cargo"]
    state, events = act(
        state, "resolve_battle", player="table", outcome=_outcome(setup, "attacker").to_json()
    )
    p = state.data["p"][me]
    assert p["owed"] == {"cargo": 1, "coins": 3} and p["ship"]["holds"] == [[4, 0], [3, 0]]
    assert (
        state.data["supply"]["coins"] == coins - 3 and state.data["supply"]["cargo"] == cargo - 1
    )  # not back
    assert {e["what"] for e in events if e["type"] == "gain_owed"} == {"coins", "cargo"}
    state, events = act(state, "jettison", hold=1, cargo=2, coins=0)  # room for 2: Coins go aboard first
    p = state.data["p"][me]
    assert p["ship"]["holds"][1] == [1, 2] and p["owed"] == {"cargo": 1, "coins": 1}
    state, _ = act(state, "end_turn", pirate=False, sleeve=[])
    assert "owed" not in state.data["p"][me]
    # the turn over, the Coin and Cargo still owed went back: 1 of the 3 Coins; Cargo -1 won, +2 jettisoned,
    # +1 back
    assert state.data["supply"]["coins"] == coins - 2 and state.data["supply"]["cargo"] == cargo + 2
