"""Prime Cargo (rulebook rules/001: "Prime Cargo", "Prime Cargo When Exploring Ocean Boards", "Loading Prime
Cargo", "Prime Discovery Icon", "Using Prime Cargo")."""

from __future__ import annotations

import json

import pytest

from contracts.grid import SQUARES
from rules import api
from rules.dead_reckoning.cards import catalog
from rules.dead_reckoning.letters_of_marque.data import lom_data
from rules.dead_reckoning.letters_of_marque.model import sync_hull
from rules.dead_reckoning.ship import ship_icon
from rules.errors import Illegal
from tests.rules.helpers import act, place_island
from tests.rules.letters_of_marque.helpers import (
    events_of,
    lay_found,
    lay_on_ship,
    lgame,
    lom,
    play_explorer,
    sail_to,
    token_of,
)


def _at_island(seed: int = 1):
    """The active player's Ship on a face-up island board at r1c1 (hidden tokens as setup left them)."""
    state = lgame(3, seed=seed)
    place_island(state, "r1c1", "island-05")
    x = lom(state)
    x["boards"]["r1c1"]["island"]["hidden"] = max(1, x["boards"]["r1c1"]["island"]["hidden"])
    x["hidden_out"] = sum(b[p]["hidden"] for b in x["boards"].values() for p in b) + len(x["reminders"])
    return sail_to(state, ["r1c1"])


def test_exploring_an_island_board_gains_two_undiscovered_prime_cargo():
    """ "Whenever an unexplored face down Ocean board with an island is explored, it gains an Undiscovered
    Prime Cargo (face down) in the water and another Undiscovered Prime Cargo on the island." and "When an
    open seas Ocean board is explored, it gains one Undiscovered Prime Cargo in the water." """
    seen = set()
    for seed in range(1, 12):
        state = lgame(3, seed=seed)
        state = sail_to(state, ["r1c1", "r2c1"])
        x = lom(state)
        isl = state.data["grid"]["r2c1"]["island"] is not None
        seen.add(isl)
        assert x["boards"]["r2c1"]["water"]["hidden"] == 1
        assert x["boards"]["r2c1"]["island"]["hidden"] == (1 if isl else 0)
        assert "r2c1" not in x["reminders"]  # the reminder became the token in the water
    assert seen == {True, False}


def test_never_load_undiscovered_prime_cargo():
    """ "You never load Undiscovered Prime Cargo." """
    state = _at_island()
    x = lom(state)
    assert x["boards"]["r1c1"]["water"]["hidden"] == 1 and not x["boards"]["r1c1"]["water"]["found"]
    some = x["bag"][0]  # which face-down token is which is unknown: the state holds no identity for them
    with pytest.raises(Illegal) as err:
        act(state, "load_prime", token=some, hold=0)
    assert "never load Undiscovered" in err.value.message


def test_discovery_needs_the_icon_and_the_same_board():
    """ "Undiscovered Prime Cargo can be "Discovered" (flipped over) using the Prime Discovery icon if your
    Ship is on the same Ocean board." and "It remains in its location (water or island)." """
    state = lgame(3, seed=2)
    with pytest.raises(Illegal):
        act(state, "discover_prime_cargo", part="water")  # in Harbor
    state = _at_island(2)
    with pytest.raises(Illegal) as err:
        act(state, "discover_prime_cargo", part="water")  # no Prime Discovery icon yet
    assert "Prime Discovery" in err.value.message
    state = play_explorer(state)
    bag = len(lom(state)["bag"])
    state, events = act(state, "discover_prime_cargo", part="island")
    flip = events_of(events, "flip_prime_cargo")[0]["action"]
    x = lom(state)
    assert x["boards"]["r1c1"]["island"]["found"] == [flip["token"]]  # stays on the island, face up
    assert len(x["bag"]) == bag - 1
    with pytest.raises(Illegal):  # one icon, one discovery this turn
        act(state, "discover_prime_cargo", part="water")
    with pytest.raises(Illegal):  # a chance outcome was revealed: no undo
        act(state, "undo")


def _flip_observed(state, token, part="water"):
    """Discover with the table reporting which token was turned over."""
    state.data["options"]["auto_chance"] = False
    state, _ = act(state, "discover_prime_cargo", part=part)
    state, events = api.apply(
        state,
        {
            "seq": state.seq,
            "player": "table",
            "action": {"type": "flip_prime_cargo", "square": "r1c1", "part": part, "token": token},
        },
    )
    state.data["options"]["auto_chance"] = True
    return state, events


def test_edge_icons_add_undiscovered_prime_cargo_one_space_that_way():
    """ "If an icon along the edge of the discovered Prime Cargo shows an island, add an Undiscovered Prime
    Cargo from the supply to the island on the Ocean board one space in the relative direction (if
    possible)." """
    state = play_explorer(_at_island(3))
    place_island(state, "r2c1", "island-06")  # south of r1c1, face up
    token = token_of("dragonfish", edges={"S": "island"})
    state, events = _flip_observed(state, token)
    assert lom(state)["boards"]["r2c1"]["island"]["hidden"] == 1
    assert events_of(events, "prime_cargo_placed")[0]["square"] == "r2c1"


def test_edge_icon_toward_a_face_down_board_adds_nothing():
    """ "... one space in the relative direction (if possible)": a face-down board has no water or island yet
    (it has its reminder), and west of column 1 there is no board."""
    state = play_explorer(_at_island(3))
    state.data["grid"]["r2c1"]["board"] = None
    state.data["grid"]["r2c1"]["island"] = None
    token = token_of("dragonfish", edges={"S": "island"})
    out = lom(state)["hidden_out"]
    state, _ = _flip_observed(state, token)
    assert lom(state)["hidden_out"] == out - 1  # only the flipped one left the face-down count


def test_island_with_plus_lets_the_discoverer_choose_any_island():
    """ "An icon showing an island with a plus sign allows you to add one Undiscovered Prime Cargo to any
    island." """
    state = play_explorer(_at_island(4))
    place_island(state, "r3c3", "island-07")
    token = token_of("dragonfish", edges={"any": "island"})
    state, _ = _flip_observed(state, token)
    me = state.active
    assert lom(state)["claims"][me] == [{"kind": "any_island"}]
    state, _ = act(state, "claim", index=0, args={"square": "r3c3"})
    assert lom(state)["boards"]["r3c3"]["island"]["hidden"] == 1 and lom(state)["claims"][me] == []


def test_load_from_the_water_freely_and_from_an_island_only_with_control():
    """ "Discovered Prime Cargo in the water may be loaded onto your Ship on the same Ocean board without
    restriction." and "To load Discovered Prime Cargo from an island onto your Ship on the same Ocean board,
    you must control the island." """
    state = _at_island(5)
    me = state.active
    water, island = token_of("moon_salt", 0), token_of("moon_salt", 1)
    lay_found(state, "r1c1", "water", water)
    lay_found(state, "r1c1", "island", island)
    with pytest.raises(Illegal) as err:
        act(state, "load_prime", token=island, hold=0)
    assert "control" in err.value.message
    state, _ = act(state, "load_prime", token=water, hold=0)
    assert lom(state)["ship"][me][0] == [water]
    state.data["grid"]["r1c1"]["island"]["controller"] = me
    state, _ = act(state, "load_prime", token=island, hold=1)
    assert lom(state)["ship"][me] == [[water], [island]]


def test_each_prime_cargo_takes_one_hull_space():
    """ "Each Prime Cargo on your Ship takes up one hull space, like regular Cargo and Goods." and "They
    can be ... on a Ship, where they occupy one hull space." """
    state = lgame(3, seed=6)
    me = state.active
    state.data["p"][me]["dock"] = 5
    lay_on_ship(state, me, token_of("black_pearls", 0), hold=1)
    state, _ = act(state, "load", hold=1, cargo=2)  # the hold of 3: 2 Cargo + 1 Prime Cargo
    with pytest.raises(Illegal):
        act(state, "load", hold=1, cargo=1)
    assert state.data["p"][me]["ship"]["other"] == [0, 1]
    # a hold with Prime Cargo in it is not empty: the hull space under it gives no icon (Ship board rule)
    cat = catalog(state.data)
    other = [c for c in state.players if c != me][0]
    lay_on_ship(state, other, token_of("black_pearls", 1), hold=1)
    sails = ship_icon(cat, state.data, other, "sail")
    lom(state)["ship"][other][1] = []
    sync_hull(state.data, other)
    assert ship_icon(cat, state.data, other, "sail") == sails + 1


def test_using_prime_cargo_discards_it_for_its_reward():
    """ "You may only use Prime Cargo that is on your Ship. After use, place it in a face up Discard pile."
    and "You may discard a Prime Cargo from your Ship during your turn to gain its reward" (e.g. "gaining
    Cargo")."""
    state = lgame(3, seed=7)
    me = state.active
    cargo_token = token_of("dragonfish", reward="cargo")
    lom(state)["harbor"][me].append(cargo_token)
    lom(state)["bag"].remove(cargo_token)
    with pytest.raises(Illegal):
        act(state, "discard_prime", token=cargo_token)  # at the Harbor, not on the Ship
    lom(state)["harbor"][me].remove(cargo_token)
    lay_on_ship(state, me, cargo_token)
    dock = state.data["p"][me]["dock"]
    state, _ = act(state, "discard_prime", token=cargo_token)
    assert state.data["p"][me]["dock"] == dock + 1
    assert lom(state)["discard"] == [cargo_token] and lom(state)["ship"][me] == [[], []]
    assert "other" not in state.data["p"][me]["ship"]
    other = [c for c in state.players if c != me][0]
    lay_on_ship(state, other, token_of("moon_salt", reward="sail"))
    with pytest.raises(Illegal):  # "during your turn"
        act(state, "discard_prime", player=other, token=token_of("moon_salt", reward="sail"))


@pytest.mark.parametrize(
    "reward", ["draw", "sail", "attack_flag", "repair", "produce", "influence", "cannon"]
)
def test_every_built_in_reward(reward):
    """ "Examples of rewards include drawing a card, gaining Cargo, gaining Sail, gaining an Attack flag,
    repairing damage, causing an island to produce Cargo, gaining Influence, or gaining a Cannon." """
    state = lgame(3, seed=8)
    me = state.active
    p = state.data["p"][me]
    t = next(t for t, s in sorted(lom_data().tokens.items()) if s["reward"] == reward)
    lay_on_ship(state, me, t)
    args = {}
    if reward in ("produce", "influence"):
        place_island(state, "r1c1", "island-05")
        state = sail_to(state, ["r1c1"])
        args = {"islands": ["r1c1"]} if reward == "produce" else {}
    if reward == "repair":
        p = state.data["p"][me]
        p["ship"]["damage"] = 2
    before = api.state_to_json(state)["data"]
    state, events = act(state, "discard_prime", token=t, args=args)
    after = state.data["p"][me]
    b = before["p"][me]
    if reward == "draw":
        assert len(after["hand"]) == len(b["hand"]) + 1
    elif reward == "sail":
        assert state.data["turn"]["extra_sails"] == before["turn"]["extra_sails"] + 1 or (
            after["ship"]["sails"] == b["ship"]["sails"] + 1
        )
    elif reward == "attack_flag":
        assert after["flags_used"] == b["flags_used"] - 1
    elif reward == "repair":
        assert after["ship"]["damage"] == 1
    elif reward == "produce":
        assert events_of(events, "produced")
    elif reward == "influence":
        assert me in state.data["grid"]["r1c1"]["island"]["cubes"]
    elif reward == "cannon":
        assert after["cannons_used"] == b["cannons_used"] - 1


def test_repair_reward_without_damage_is_refused():
    state = lgame(3, seed=8)
    me = state.active
    t = (
        token_of("dragonfish", reward="repair")
        if any(s["reward"] == "repair" and s["type"] == "dragonfish" for s in lom_data().tokens.values())
        else next(t for t, s in sorted(lom_data().tokens.items()) if s["reward"] == "repair")
    )
    lay_on_ship(state, me, t)
    with pytest.raises(Illegal):
        act(state, "discard_prime", token=t)


def test_discards_reshuffle_into_the_supply_when_it_runs_out():
    """ "If the supply of Random Cargo runs out, shuffle all discarded Random Cargo face down into the
    supply." """
    state = _at_island(9)
    me = state.active
    x = lom(state)
    spare = x["bag"][: len(x["bag"]) - x["hidden_out"]]  # the pile: every token not face down on the table
    for t in spare:
        x["bag"].remove(t)
    x["discard"] = spare[:2]
    x["claims"][me] = [{"kind": "any_island"}, {"kind": "any_island"}, {"kind": "any_island"}]
    hidden = x["boards"]["r1c1"]["island"]["hidden"]
    state, events = act(state, "claim", index=0, args={"square": "r1c1"})
    x = lom(state)
    assert events_of(events, "prime_cargo_reshuffled")[0]["tokens"] == 2
    assert x["discard"] == [] and len(x["bag"]) == x["hidden_out"] + 1
    assert x["boards"]["r1c1"]["island"]["hidden"] == hidden + 1
    state, _ = act(state, "claim", index=0, args={"square": "r1c1"})
    with pytest.raises(Illegal):  # nothing left anywhere: "(if possible)"
        act(state, "claim", index=0, args={"square": "r1c1"})


def test_views_never_show_an_undiscovered_token():
    """Undiscovered Prime Cargo is face down: no seat may see which token it is (the state does not know)."""
    state = play_explorer(_at_island(10))
    state, _ = act(state, "discover_prime_cargo", part="water")
    found = set(lom(state)["boards"]["r1c1"]["water"]["found"])
    hidden = set(lom(state)["bag"])
    for who in [None, *state.players]:
        view = api.public_view(state) if who is None else api.private_view(state, who)
        text = json.dumps(view)
        assert not any(f'"{t}"' in text for t in hidden)
        assert all(f'"{t}"' in text for t in found)
        cells = view["expansions"]["letters-of-marque"]["prime_cargo"]["boards"]
        assert (
            sum(c.get(p, {}).get("undiscovered", 0) for c in cells.values() for p in ("water", "island")) > 0
        )
    for sq in SQUARES:
        assert set(lom(state)["boards"][sq]["water"]) == {"hidden", "found"}
