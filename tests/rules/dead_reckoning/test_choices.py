"""The player's own choices (issue 16, item 9): each a pending choice in the state, answered with `choose`
among the options the engine lists (legal actions list them), refused otherwise with a sentence."""

from __future__ import annotations

from typing import Any

import pytest

from rules import api
from rules.battle.contract import BattleOutcome, BattleSetup, SideResult
from rules.core.state import GameState
from rules.errors import Illegal, Invalid
from tests.rules.helpers import act, game, give_hand, place_island


def _attack(seed: int = 1) -> tuple[GameState, str, str]:
    """red attacks blue with a Captain's Attack Flag, both in Harbor."""
    state = game(2, seed=seed)
    me = str(state.active)
    other = [c for c in state.players if c != me][0]
    give_hand(state, me, ["captain"])
    state.data["p"][me]["cards"]["captain"]["level"] = 2
    state, _ = act(state, "play_card", card="captain")
    return state, me, other


def _resolve(state: GameState, winner: str, att: SideResult) -> tuple[GameState, list[dict[str, Any]]]:
    setup = BattleSetup.from_json(state.data["battle"]["setup"])
    out = BattleOutcome(battle_id=setup.battle_id, winner=winner, attacker=att, defender=SideResult())  # type: ignore[arg-type]
    return act(state, "resolve_battle", player="table", outcome=out.to_json())


def _choices(state: GameState, player: str) -> list[dict[str, Any]]:
    return [a for a in api.legal_actions(state, player) if a["type"] == "choose"]


def test_plunder_that_does_not_fit_waits_for_its_owner_to_place_it():
    # "These must either be placed into a hold with available capacity on their Ship, on the island where
    # the battle is taking place, or discarded back to the supply."
    state, me, other = _attack()
    state.data["p"][me]["ship"]["holds"] = [[3, 0], [2, 0]]  # room for 1 in each hold
    state, _ = act(state, "attack", target=other)
    supply = state.data["supply"]["coins"]
    state, _ = _resolve(state, "attacker", SideResult(plunder_coins=4))
    p = state.data["p"][me]
    assert p["ship"]["holds"] == [[3, 0], [2, 0]]  # the engine does not choose for the player
    assert p["plunder"] == {"cargo": 0, "coins": 4, "square": "harbor"}
    assert state.data["supply"]["coins"] == supply - 4  # waiting, not back in the supply
    you = api.private_view(state, me)["you"]
    assert you["choices"][0]["choice"] == "plunder" and you["choices"][0]["coins"] == 4
    assert [c["option"] for c in _choices(state, me)] == [
        {"what": "coins", "to": "hold", "hold": 0, "count": 1},
        {"what": "coins", "to": "hold", "hold": 1, "count": 1},
        {"what": "coins", "to": "discard", "count": 1},
        {"what": "coins", "to": "discard", "count": 4},
    ]
    with pytest.raises(Illegal, match="hold 1 has room for 1"):
        act(state, "choose", choice="plunder", option={"what": "coins", "to": "hold", "hold": 0, "count": 2})
    for h in (0, 1):
        state, _ = act(state, "choose", choice="plunder", option={"what": "coins", "to": "hold", "hold": h})
    p = state.data["p"][me]
    assert p["ship"]["holds"] == [[3, 1], [2, 1]]
    assert p["plunder"] == {"cargo": 0, "coins": 2, "square": "harbor"}
    offered = [c["option"] for c in _choices(state, me)]
    # no hold has room and the Harbor is no island: only the supply
    assert offered == [
        {"what": "coins", "to": "discard", "count": 1},
        {"what": "coins", "to": "discard", "count": 2},
    ]
    with pytest.raises(Illegal, match="hold 1 has room for 0"):
        act(state, "choose", choice="plunder", option={"what": "coins", "to": "hold", "hold": 0})
    with pytest.raises(Illegal, match="no island"):
        act(state, "choose", choice="plunder", option={"what": "coins", "to": "island"})
    # make room, and the hold becomes an option
    state, _ = act(state, "jettison", hold=0, cargo=2, coins=0)
    assert {"what": "coins", "to": "hold", "hold": 0, "count": 2} in [
        c["option"] for c in _choices(state, me)
    ]
    state, events = act(
        state, "choose", choice="plunder", option={"what": "coins", "to": "hold", "hold": 0, "count": 2}
    )
    assert state.data["p"][me]["ship"]["holds"][0] == [1, 3] and "plunder" not in state.data["p"][me]
    assert any(e["type"] == "plunder_placed" for e in events)
    assert _choices(state, me) == []


def test_plunder_may_go_on_the_battles_island_and_unplaced_plunder_lands_there_at_the_turn_end():
    state, me, other = _attack()
    place_island(state, "r1c1", "island-05")
    for c in (me, other):
        state.data["p"][c]["ship"]["at"] = "r1c1"
    state.data["p"][me]["ship"]["holds"] = [[4, 0], [3, 0]]  # full
    state, _ = act(state, "attack", target=other)
    state, _ = _resolve(state, "attacker", SideResult(plunder_cargo=3))
    assert state.data["p"][me]["plunder"]["cargo"] == 3
    assert {"what": "cargo", "to": "island", "count": 3} in [c["option"] for c in _choices(state, me)]
    state, _ = act(state, "choose", choice="plunder", option={"what": "cargo", "to": "island", "count": 1})
    assert state.data["grid"]["r1c1"]["island"]["cargo"] == 1
    with pytest.raises(Illegal, match="only 2 cargo"):
        act(state, "choose", choice="plunder", option={"what": "cargo", "to": "discard", "count": 3})
    state, events = act(state, "end_turn", pirate=False, sleeve=[])
    assert state.data["grid"]["r1c1"]["island"]["cargo"] == 3 and "plunder" not in state.data["p"][me]
    assert any(e["type"] == "plunder_placed" and e.get("auto") for e in events)


def test_a_gain_that_does_not_fit_offers_the_jettisons_that_make_room_or_letting_it_go():
    # "if you cannot fit it onto your Ship then you either have to jettison or unload it (or other
    # Cargo/Coins) to make space"
    state, me, other = _attack()
    state.data["p"][me]["ship"]["holds"] = [[4, 0], [3, 0]]
    state, _ = act(state, "attack", target=other)
    state, _ = _resolve(state, "attacker", SideResult(coins_from_abilities=2))
    assert state.data["p"][me]["owed"] == {"cargo": 0, "coins": 2}
    legal = api.legal_actions(state, me)
    assert {"type": "jettison", "hold": 0, "cargo": 2, "coins": 0} in legal
    assert {"type": "choose", "choice": "owed", "option": {"to": "discard"}} in legal
    choice = next(c for c in api.private_view(state, me)["you"]["choices"] if c["choice"] == "owed")
    assert choice["coins"] == 2 and choice["jettisons"]
    supply = state.data["supply"]["coins"]
    state, _ = act(state, "choose", choice="owed", option={"to": "discard"})
    assert "owed" not in state.data["p"][me] and state.data["supply"]["coins"] == supply + 2
    with pytest.raises(Illegal, match="nothing is owed"):
        act(state, "choose", choice="owed", option={"to": "discard"})
    with pytest.raises(Invalid, match="'choice' must be one of"):
        act(state, "choose", choice="gift", option={})


def test_short_of_cubes_the_player_picks_the_islands_or_fights_with_fewer():
    # "If you do not have enough Battle cubes left in your supply, you may choose to take fewer cubes, or
    # you can remove non-permanent cubes from islands to make up some or all of what you are missing."
    state, me, other = _attack()
    a = place_island(state, "r1c1", "island-05")
    b = place_island(state, "r1c2", "island-06")
    a["cubes"] = [me, None, None]
    b["cubes"] = [me, me, None]
    d = state.data
    d["p"][me]["ship"]["hull"] = [["advanced-guns"], [], [], []]  # 3 Cannons
    d["p"][me]["cubes"] = 1
    state, _ = act(state, "attack", target=other)
    assert state.data["battle"]["setup"]["attacker"]["cubes"] == 3  # by default the islands make it up
    offered = [c["option"] for c in _choices(state, me)]
    assert offered == [{"square": "r1c1"}, {"square": "r1c2"}, {"fewer": True}]
    state, events = act(state, "choose", choice="battle_cubes", option={"square": "r1c2"})
    assert any(e["type"] == "battle_updated" for e in events)
    state, events = act(state, "choose", choice="battle_cubes", option={"fewer": True})
    assert state.data["battle"]["setup"]["attacker"]["cubes"] == 2  # 1 from the supply, 1 from r1c2
    assert _choices(state, me) == []
    setup = BattleSetup.from_json(state.data["battle"]["setup"])
    out = BattleOutcome(
        battle_id=setup.battle_id, winner="defender", attacker=SideResult(), defender=SideResult()
    )
    state, _ = act(state, "resolve_battle", player="table", outcome=out.to_json())
    # the chosen island lost the cube; the other kept its cube
    assert state.data["grid"]["r1c2"]["island"]["cubes"].count(me) == 1
    assert state.data["grid"]["r1c1"]["island"]["cubes"] == [me, None, None]


def test_island_cubes_cannot_be_chosen_once_the_drop_has_begun():
    state, me, other = _attack()
    place_island(state, "r1c1", "island-05")["cubes"] = [me, None, None]
    state.data["p"][me]["cubes"] = 0
    state, _ = act(state, "attack", target=other)
    state, _ = act(state, "battle_drop_started", player="table")
    assert _choices(state, me) == []
    with pytest.raises(Illegal, match="not short of cubes in a battle whose drop has not begun"):
        act(state, "choose", choice="battle_cubes", option={"square": "r1c1"})
