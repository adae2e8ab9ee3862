"""The rulebook's worked situations for a turn: cargo, sails, movement, exploration, islands, cleanup."""

from __future__ import annotations

import pytest

from rules import api
from rules.core.state import base_bytes, base_data
from rules.dead_reckoning.islands import who_controls
from rules.dead_reckoning.sailing import sails_available
from rules.errors import Ambiguous, Illegal, Invalid
from tests.rules.helpers import act, game, give_hand, place_island


def _me(state):
    return state.data["p"][state.active]


def test_hold_capacity_message_names_the_rule():
    state = game(2, seed=1)
    me = _me(state)
    me["dock"] = 10
    state, _ = act(state, "load", hold=0, cargo=4)
    with pytest.raises(Illegal) as err:
        act(state, "load", hold=0, cargo=1)
    assert err.value.message == "hold 1 is full: it takes 4 and holds 4."
    before = api.state_to_json(state)
    with pytest.raises(Illegal):
        act(state, "load", hold=1, cargo=4)
    assert api.state_to_json(state) == before  # a refusal changes nothing


def test_sails_with_loaded_holds():
    state = game(2, seed=1)
    color = state.active
    me = _me(state)
    me["ship"]["holds"][0] = [2, 0]
    # in Harbor the loaded hold still gives its Sail (unload, set, reload)
    assert sails_available(state.data, color) == 2
    place_island(state, "r1c1", "island-05")
    me["ship"]["at"] = "r1c1"
    # at an island you do not control, the loaded hold's Sail is lost
    assert sails_available(state.data, color) == 1
    me["ship"]["holds"][1] = [0, 1]
    assert sails_available(state.data, color) == 0
    # at an island you control, both count again
    isl = state.data["grid"]["r1c1"]["island"]
    isl["cubes"] = [color, color, None]
    isl["controller"] = who_controls(isl)
    assert isl["controller"] == color
    assert sails_available(state.data, color) == 2


def test_set_sails_once_and_move_spends_sails():
    state = game(2, seed=2)
    give_hand(state, state.active, ["captain"])
    state, _ = act(state, "play_card", card="captain")
    state, _ = act(state, "set_sails")
    assert _me(state)["ship"]["sails"] == 3  # 2 on the ship + the level-1 Captain
    with pytest.raises(Illegal):
        act(state, "set_sails")
    with pytest.raises(Illegal):  # diagonal
        act(state, "move", path=["r1c1", "r2c2"])
    state, ev = act(state, "move", path=["r1c1"])
    assert _me(state)["ship"]["sails"] == 2 and _me(state)["ship"]["at"] == "r1c1"


def test_move_before_setting_sails_is_refused():
    state = game(2, seed=2)
    with pytest.raises(Illegal) as err:
        act(state, "move", path=["r1c1"])
    assert "set your Sails" in err.value.message


def test_exploration_limit_and_sailing_through_unexplored_boards():
    state = game(2, seed=4)
    state, _ = act(state, "set_sails")
    _me(state)["ship"]["sails"] = 8
    state, events = act(state, "move", path=["r1c1", "r2c1"])  # stops on an unexplored board
    d = state.data
    assert d["grid"]["r2c1"]["board"] is not None  # explored at once (auto chance)
    assert any(e["type"] == "reveal_board" for e in events)
    assert d["turn"]["explored"]
    assert d["achievement_cubes"]["explorer"].get(state.active) == 1
    # sailing through another unexplored board is fine; stopping on one is not
    with pytest.raises(Illegal) as err:
        act(state, "move", path=["r3c1"])
    assert "already explored" in err.value.message
    state, _ = act(state, "move", path=["r3c1", "r2c1"])  # through an unexplored board and back
    assert _me(state)["ship"]["at"] == "r2c1" and state.data["grid"]["r3c1"]["board"] is None


def test_explore_waits_for_the_table_when_chance_is_observed():
    state = game(2, seed=4, auto_chance=False)
    d = state.data
    while d["pending"]:
        opts = api.legal_actions(state, "table")
        state, _ = act(state, opts[0]["type"], player="table", **{k: v for k, v in opts[0].items() if k != "type"})
        d = state.data
    state, _ = act(state, "set_sails")
    state, _ = act(state, "move", path=["r1c2", "r2c2"])
    assert state.data["pending"][0] == {"kind": "reveal_board", "square": "r2c2"}
    with pytest.raises(Illegal):
        act(state, "set_sails")  # nothing else happens until the table reports the board
    opts = api.legal_actions(state, state.active)
    assert opts and all(o["type"] == "reveal_board" for o in opts)


def _controlled_island(state, color, cubes, slots_board="island-05"):
    isl = place_island(state, "r1c1", slots_board)
    isl["cubes"] = list(cubes) + [None] * (len(isl["cubes"]) - len(cubes))
    isl["controller"] = who_controls(isl)
    return isl


def test_control_needs_more_cubes_than_empty_slots():
    state = game(2, seed=1)
    color = state.active
    other = [c for c in state.players if c != color][0]
    isl = place_island(state, "r1c1", "island-05")  # 3 slots
    isl["cubes"] = [color, None, None]
    assert who_controls(isl) is None  # 1 cube, 2 empty slots
    isl["cubes"] = [color, color, None]
    assert who_controls(isl) == color  # 2 cubes > 1 empty slot
    isl["cubes"] = [color, other, None]
    assert who_controls(isl) is None  # tie with the other player
    isl["cubes"] = [color, other, other]
    isl["permanent"] = {color: 1}
    assert who_controls(isl) is None  # 2 v 2: permanent cubes count
    isl["permanent"] = {color: 2}
    assert who_controls(isl) == color


def test_influence_takes_control_with_a_permanent_cube_and_removes_buildings():
    state = game(2, seed=1)
    color = state.active
    other = [c for c in state.players if c != color][0]
    isl = _controlled_island(state, other, [other, other, None])
    isl["buildings"]["outpost"] = True
    state.data["supply"]["outpost"] -= 1
    state.data["p"][other]["cubes"] -= 2
    me = _me(state)
    me["ship"]["at"] = "r1c1"
    give_hand(state, color, ["buccaneer"])
    me["cards"]["buccaneer"]["level"] = 3
    state, _ = act(state, "play_card", card="buccaneer")
    state, events = act(state, "use_ability", ability="buccaneer:L3:0")
    isl = state.data["grid"]["r1c1"]["island"]
    assert isl["cubes"].count(color) == 3 and isl["controller"] == color
    assert isl["permanent"] == {color: 1}
    assert not isl["buildings"]["outpost"] and state.data["supply"]["outpost"] == 4
    assert any(e["type"] == "control_changed" for e in events)


def test_influence_on_a_full_island_with_two_opponents_is_ambiguous():
    state = game(3, seed=1)
    color = state.active
    others = [c for c in state.players if c != color]
    place_island(state, "r1c1", "island-01")["cubes"] = [others[0], others[1]]
    _me(state)["ship"]["at"] = "r1c1"
    give_hand(state, color, ["deck-hand-1"])
    state, _ = act(state, "play_card", card="deck-hand-1")
    with pytest.raises(Ambiguous) as err:
        act(state, "use_ability", ability="deck-hand-1:L1:0")
    assert sorted(err.value.options) == sorted(others)
    state, _ = act(state, "use_ability", ability="deck-hand-1:L1:0", args={"replace": [others[1]]})
    assert sorted(state.data["grid"]["r1c1"]["island"]["cubes"]) == sorted([color, others[0]])


def test_fort_blocks_other_players():
    state = game(2, seed=1)
    color = state.active
    other = [c for c in state.players if c != color][0]
    isl = _controlled_island(state, other, [other, other, None])
    isl["buildings"]["fort"] = True
    me = _me(state)
    me["ship"]["at"] = "r1c1"
    me["ship"]["holds"][0] = [1, 0]
    with pytest.raises(Illegal) as err:
        act(state, "unload", hold=0, cargo=1)
    assert "Fort" in err.value.message


def test_pirate_at_island_blockades_and_battle_starts_on_stopping():
    state = game(2, seed=1)
    color = state.active
    other = [c for c in state.players if c != color][0]
    place_island(state, "r1c2", "island-05")
    state.data["p"][other]["ship"].update({"at": "r1c2", "pirate": True})
    state, _ = act(state, "set_sails")
    state, events = act(state, "move", path=["r1c2"])
    started = [e for e in events if e["type"] == "battle_started"]
    assert started and started[0]["setup"]["defender"]["name"] == other
    assert started[0]["setup"]["provoked_by_pirate"] is True
    with pytest.raises(Illegal):
        act(state, "set_sails")  # only battle actions now
    kinds = {a["type"] for a in api.legal_actions(state, color)}
    assert kinds == {"resolve_battle"}


def test_produce_with_open_sea_arrows_and_outpost():
    state = game(2, seed=1)
    color = state.active
    place_island(state, "r2c2", "island-02")  # produces 2 cargo, 0 coins
    place_island(state, "r3c2", "open-sea-a")  # arrows N and S: N points at r2c2
    place_island(state, "r2c1", "open-sea-b")  # arrows E and W: E points at r2c2
    state.data["grid"]["r2c2"]["island"]["buildings"]["outpost"] = True
    give_hand(state, color, ["purser"])
    state, _ = act(state, "play_card", card="purser")
    state, _ = act(state, "use_ability", ability="purser:L1:0", args={"islands": ["r2c2"]})
    isl = state.data["grid"]["r2c2"]["island"]
    assert (isl["cargo"], isl["coins"]) == (2 + 2 + 1, 0 + 1)


def test_buy_pays_cargo_from_the_ship_and_at_most_two_per_turn():
    state = game(2, seed=1)
    me = _me(state)
    card = state.data["grid"]["r1c1"]["card"]
    state, _ = act(state, "set_sails")
    state, _ = act(state, "move", path=["r1c1"])
    _me(state)["dock"] = 20
    with pytest.raises(Illegal) as err:
        act(state, "buy")
    assert "carries only 0" in err.value.message  # Dock cargo does not pay for Advancements
    _me(state)["ship"]["holds"][0] = [4, 0]
    state, _ = act(state, "buy")
    me = _me(state)
    assert card in me["set_aside"] and state.data["grid"]["r1c1"]["card"] is None
    state.data["turn"]["bought"] = 2
    state.data["grid"]["r1c1"]["card"] = "r1-01"
    with pytest.raises(Illegal):
        act(state, "buy")


@pytest.mark.parametrize("hand, bonus, limit_islands, drawn", [
    (0, 0, 0, 4), (2, 0, 0, 4), (3, 0, 0, 3), (5, 0, 0, 1), (6, 0, 0, 0), (2, 1, 0, 4), (3, 1, 0, 3),
    (1, 2, 0, 5), (3, 0, 1, 4),
])
def test_cleanup_draw_counts(hand, bonus, limit_islands, drawn):
    state = game(2, seed=6)
    color = state.active
    p = state.data["p"][color]
    cards = sorted(p["cards"])
    p["hand"], p["deck"], p["discard"], p["played"] = cards[:hand], cards[hand:], [], []
    for _ in range(bonus):  # Crow's Nest style bonus draw sleeved on a played card
        c = p["deck"].pop(0)
        p["played"].append(c)
        p["cards"][c]["slots"]["top"] = "r3-07"
    if limit_islands:
        isl = place_island(state, "r1c3", "island-03")  # hand-limit icon
        isl["cubes"] = [color, color, None]
        isl["controller"] = color
    state, events = act(state, "end_turn")
    clean = [e for e in events if e["type"] == "cleanup"][0]
    assert clean["draw"] == drawn
    assert len(state.data["p"][color]["hand"]) == hand + drawn


def test_sleeving_rules():
    state = game(2, seed=7)
    color = state.active
    p = state.data["p"][color]
    give_hand(state, color, ["crew-1", "crew-2"])
    state, _ = act(state, "play_card", card="crew-1")
    p = state.data["p"][color]
    p["set_aside"] = ["r1-01", "r2-01", "r1-04"]  # slots: middle, middle, middle
    p["cards"]["crew-2"]["slots"]["middle"] = None
    with pytest.raises(Illegal):  # crew-2 was not played this turn
        act(state, "end_turn", sleeve=[{"advancement": "r1-01", "card": "crew-2"}])
    with pytest.raises(Illegal):  # two Advancements may not share a slot
        act(state, "end_turn", sleeve=[{"advancement": "r1-01", "card": "crew-1"},
                                       {"advancement": "r2-01", "card": "crew-1"}])
    # the other two cannot be sleeved anywhere: both may stay set aside
    state2, _ = act(state, "end_turn", sleeve=[{"advancement": "r1-01", "card": "crew-1"}])
    assert sorted(state2.data["p"][color]["set_aside"]) == ["r1-04", "r2-01"]
    # with a top-slot Advancement that could still be sleeved, keeping 3 aside is refused
    state.data["p"][color]["set_aside"] = ["r1-01", "r1-02", "r1-03"]  # middle, bottom, top
    with pytest.raises(Illegal) as err:
        act(state, "end_turn", sleeve=[])
    assert "at most 1" in err.value.message
    state3, _ = act(state, "end_turn", sleeve=[{"advancement": "r1-01", "card": "crew-1"},
                                                {"advancement": "r1-02", "card": "crew-1"}])
    assert state3.data["p"][color]["set_aside"] == ["r1-03"]
    assert state3.data["p"][color]["cards"]["crew-1"]["slots"] == {"top": None, "middle": "r1-01", "bottom": "r1-02"}
    assert state.data["p"][color]["cards"]["crew-1"]["slots"]["middle"] is None  # the old state is untouched


def test_cleanup_pirate_mode_and_sails():
    state = game(2, seed=8)
    color = state.active
    with pytest.raises(Illegal):
        act(state, "end_turn", pirate=True)  # in Harbor ships stay Mercantile
    state, _ = act(state, "set_sails")
    state, _ = act(state, "move", path=["r1c1"])
    state, _ = act(state, "end_turn", pirate=True)
    ship = state.data["p"][color]["ship"]
    assert ship["pirate"] and ship["sails"] == 0
    assert state.active != color and state.data["p"][color]["level_up"]


def test_level_up_between_turns_only_once():
    state = game(2, seed=8)
    color = state.active
    state, _ = act(state, "end_turn")
    card = state.data["p"][color]["hand"][0]
    with pytest.raises(Illegal):
        act(state, "level_up", player=state.active, card=state.data["p"][state.active]["hand"][0])
    old = state
    state, _ = act(state, "level_up", player=color, card=card)
    assert state.data["p"][color]["cards"][card]["level"] == 2
    assert old.data["p"][color]["cards"][card]["level"] == 1  # states share cards copy-on-write only
    with pytest.raises(Illegal):
        act(state, "level_up", player=color, card=card)


def test_refusals_by_kind_and_stale_sequence_numbers():
    state = game(2, seed=1)
    with pytest.raises(Invalid):
        api.apply(state, {"player": state.active, "action": {"type": "set_sails"}})
    with pytest.raises(Invalid):
        act(state, "fly")
    with pytest.raises(Invalid):
        act(state, "load", hold=2, cargo=1)
    with pytest.raises(Illegal) as err:
        api.apply(state, {"seq": state.seq - 1, "player": state.active, "action": {"type": "set_sails"}})
    assert err.value.kind == "illegal" and "state" in err.value.message
    other = [c for c in state.players if c != state.active][0]
    with pytest.raises(Illegal):
        act(state, "set_sails", player=other)


def test_undo_within_the_turn_and_not_after_a_reveal():
    state = game(2, seed=10)
    me = _me(state)
    me["dock"] = 3
    base = base_data(state.data["turn_base"])
    base["p"][state.active]["dock"] = 3  # the set-up edit, also at the turn's start
    state.data["turn_base"] = base_bytes(base)
    before = api.state_to_json(state)["data"]
    state, _ = act(state, "load", hold=0, cargo=2)
    state, _ = act(state, "set_sails")
    state, _ = act(state, "undo")
    assert not state.data["turn"]["sails_set"] and _me(state)["ship"]["holds"][0] == [2, 0]
    state, ev = act(state, "undo")
    after = api.state_to_json(state)["data"]
    for k in ("p", "grid", "supply", "turn"):
        assert after[k] == before[k]
    with pytest.raises(Illegal):
        act(state, "undo")
    state, _ = act(state, "set_sails")
    state, _ = act(state, "move", path=["r1c1", "r2c1"])  # explores: the board is now known
    with pytest.raises(Illegal) as err:
        act(state, "undo")
    assert "revealed" in err.value.message


def test_master_merchant_returns_twelve_at_once():
    state = game(2, seed=1)
    me = _me(state)
    me["dock"] = 9
    me["ship"]["holds"][0] = [3, 0]
    state, events = act(state, "master_merchant")
    assert state.active in state.data["achievements"]["master_merchant"]
    assert _me(state)["dock"] == 0 and _me(state)["ship"]["holds"][0] == [0, 0]
    with pytest.raises(Illegal):
        act(state, "master_merchant")


def _with_played(state, card, level):
    color = state.active
    give_hand(state, color, [card])
    state.data["p"][color]["cards"][card]["level"] = level
    state, _ = act(state, "play_card", card=card)
    return state, color


def test_first_mate_builds_on_a_controlled_island_from_afar():
    state = game(2, seed=1)
    state, color = _with_played(state, "first-mate", 3)
    isl = place_island(state, "r1c3", "island-05")
    isl["cubes"] = [color, color, None]
    isl["controller"] = color
    state.data["p"][color]["dock"] = 10
    with pytest.raises(Illegal):  # one of each Building per island
        act(state, "use_ability", ability="first-mate:L3:0",
            args={"builds": [{"square": "r1c3", "building": "fort"}, {"square": "r1c3", "building": "fort"}]})
    with pytest.raises(Illegal):  # only on islands you control
        act(state, "use_ability", ability="first-mate:L3:0", args={"builds": [{"square": "r1c2", "building": "fort"}]})
    state, _ = act(state, "use_ability", ability="first-mate:L3:0",
                   args={"builds": [{"square": "r1c3", "building": "fort"}, {"square": "r1c3", "building": "outpost"}]})
    b = state.data["grid"]["r1c3"]["island"]["buildings"]
    assert b["fort"] and b["outpost"] and state.data["p"][color]["dock"] == 10 - 4 - 3
    with pytest.raises(Illegal):  # each ability once per turn
        act(state, "use_ability", ability="first-mate:L3:0", args={"builds": [{"square": "r1c3", "building": "garrison"}]})


def test_bosun_upgrades_cover_tiles_and_elite_vessel():
    state = game(2, seed=1)
    state, color = _with_played(state, "bosun", 4)
    p = state.data["p"][color]
    p["dock"] = 20
    with pytest.raises(Ambiguous):
        act(state, "use_ability", ability="bosun:L4:0")  # a choice: gain, basic or advanced
    with pytest.raises(Ambiguous):
        act(state, "use_ability", ability="bosun:L4:0", choice=2)  # which advanced tile
    p["ship"]["hull"] = [[], ["basic-sail"], ["basic-cannon"], []]
    with pytest.raises(Ambiguous):  # every hull space is covered (sails printed on 0 and 3)
        act(state, "use_ability", ability="bosun:L4:0", choice=2, args={"tile": "advanced-guns"})
    state, _ = act(state, "use_ability", ability="bosun:L4:0", choice=2, args={"tile": "advanced-guns", "space": 1})
    hull = state.data["p"][color]["ship"]["hull"]
    assert hull[1] == ["basic-sail", "advanced-guns"] and state.data["p"][color]["dock"] == 14
    hull[3] = ["basic-wheel"]
    state.data["p"][color]["used"] = []
    state, events = act(state, "use_ability", ability="bosun:L4:0", choice=1, args={"tile": "basic-sail", "space": 0})
    assert color in state.data["achievements"]["elite_vessel"]  # 4 tiles, covered ones count


def test_repair_conditions():
    state = game(2, seed=1)
    state, color = _with_played(state, "crew-1", 2)
    with pytest.raises(Illegal):
        act(state, "use_ability", ability="crew-1:L2:1")  # no Damage
    state.data["p"][color]["ship"]["damage"] = 2
    state.data["p"][color]["ship"].update({"at": "r1c1"})
    with pytest.raises(Illegal) as err:
        act(state, "use_ability", ability="crew-1:L2:1")  # level 2 repairs only in Harbor
    assert "Harbor" in err.value.message
    state.data["p"][color]["ship"]["at"] = "harbor"
    state.data["p"][color]["dock"] = 2
    state, _ = act(state, "use_ability", ability="crew-1:L2:1")
    assert state.data["p"][color]["ship"]["damage"] == 1 and state.data["p"][color]["dock"] == 0


def test_crew_level_four_splits_cargo_between_dock_and_ship():
    state = game(2, seed=1)
    state, color = _with_played(state, "crew-2", 4)
    dock = state.data["p"][color]["dock"]
    state, _ = act(state, "use_ability", ability="crew-2:L4:0", args={"to_ship": 3})
    p = state.data["p"][color]
    assert p["dock"] == dock + 1 and p["ship"]["holds"][0] == [3, 0]


def test_garrison_sinks_a_passing_ship_and_pays_its_owner():
    state = game(2, seed=1)
    color = state.active
    other = [c for c in state.players if c != color][0]
    isl = place_island(state, "r1c1", "island-05")
    isl["cubes"] = [other, other, None]
    isl["controller"] = other
    isl["buildings"]["garrison"] = True
    state, _ = act(state, "set_sails")
    state.data["p"][color]["ship"]["damage"] = 4
    state, events = act(state, "move", path=["r1c1", "r2c1"])
    p = state.data["p"][color]
    assert p["ship"]["at"] == "harbor" and p["ship"]["damage"] == 0 and p["chest"] == 10
    assert state.data["p"][other]["chest"] == 20
    assert [e["type"] for e in events if e.get("notice")][:2] == ["garrison_fire", "ship_sunk"]


def test_running_out_of_cubes_takes_one_back_from_an_island():
    state = game(2, seed=1)
    color = state.active
    place_island(state, "r1c1", "island-05")["cubes"] = [color, None, None]
    place_island(state, "r1c2", "island-01")
    state.data["p"][color]["cubes"] = 0
    state.data["p"][color]["ship"]["at"] = "r1c2"
    state, _ = _with_played(state, "deck-hand-1", 1)
    state, _ = act(state, "use_ability", ability="deck-hand-1:L1:0")
    assert state.data["grid"]["r1c1"]["island"]["cubes"] == [None, None, None]
    assert state.data["grid"]["r1c2"]["island"]["cubes"] == [color, None]


def test_draw_pile_running_out_reshuffles_the_discards():
    state = game(2, seed=11, auto_chance=False)
    while state.data["pending"]:
        o = api.legal_actions(state, "table")[0]
        state, _ = act(state, o["type"], "table", **{k: v for k, v in o.items() if k != "type"})
    color = state.active
    p = state.data["p"][color]
    cards = sorted(p["cards"])
    p["hand"], p["deck"], p["discard"], p["played"] = [], cards[:2], cards[2:], []
    state, _ = act(state, "end_turn")
    while state.data["pending"] and state.data["pending"][0]["kind"] == "draw_advancement":
        o = api.legal_actions(state, "table")[0]
        state, _ = act(state, o["type"], "table", **{k: v for k, v in o.items() if k != "type"})
    p = state.data["p"][color]
    assert sorted(p["hand"]) == cards[:2]  # the 2 left were drawn without chance
    assert state.data["pending"][0] == {"kind": "draw_sailors", "player": color, "count": 2}
    with pytest.raises(Illegal):
        act(state, "draw_sailors", "table", player_drawing=color, cards=cards[:2])  # already in hand
    state, _ = act(state, "draw_sailors", "table", player_drawing=color, cards=cards[2:4])
    assert len(state.data["p"][color]["hand"]) == 4 and len(state.data["p"][color]["deck"]) == 8


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
