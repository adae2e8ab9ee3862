"""Property tests over random legal action sequences: conservation, capacity, replay, no secret leaks."""

from __future__ import annotations

import json
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from contracts.grid import SQUARES
from rules import api
from rules.core.state import copy_data
from rules.dead_reckoning.game import game_for
from rules.errors import RulesError
from tests.rules.helpers import COLORS, random_playout

CUBES = 30
SUPPLY_CARGO, SUPPLY_COINS = 400, 800


def invariants(state: api.GameState) -> None:
    d = state.data
    cargo, coins = d["supply"]["cargo"], d["supply"]["coins"]
    for c in d["players"]:
        p = d["p"][c]
        cubes = p["cubes"] + 1 + sum(v.get(c, 0) for v in d["achievement_cubes"].values())  # +1: Sail track
        for sq in SQUARES:
            isl = d["grid"][sq]["island"]
            if isl:
                cubes += isl["cubes"].count(c) + isl["permanent"].get(c, 0)
        assert cubes == CUBES, f"{c} has {cubes} cubes"
        for i, (cg, cn) in enumerate(p["ship"]["holds"]):
            assert cg >= 0 and cn >= 0 and cg + cn <= (4, 3)[i]
        assert p["chest"] >= 0 and p["dock"] >= 0 and p["ship"]["damage"] < 5
        assert 0 <= p["ship"]["sails"] <= 8
        assert sorted(p["hand"] + p["deck"] + p["discard"] + p["played"]) == sorted(p["cards"])
        owed = p.get("owed") or {}  # a gain that found no room on the Ship: the player's, not the supply's
        plunder = p.get("plunder") or {}  # plunder waiting for its owner to place it: theirs too
        cargo += (
            p["dock"] + sum(h[0] for h in p["ship"]["holds"]) + owed.get("cargo", 0) + plunder.get("cargo", 0)
        )
        coins += (
            p["chest"]
            + sum(h[1] for h in p["ship"]["holds"])
            + owed.get("coins", 0)
            + plunder.get("coins", 0)
        )
    for sq in SQUARES:
        isl = d["grid"][sq]["island"]
        if isl:
            cargo += isl["cargo"]
            coins += isl["coins"]
            assert isl["cargo"] >= 0 and isl["coins"] >= 0
    assert cargo == SUPPLY_CARGO, "cargo is neither created nor lost"
    assert coins == SUPPLY_COINS + 15 * len(d["players"]), "coins are neither created nor lost"


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(players=st.integers(2, 4), seed=st.integers(0, 10_000), policy=st.integers(0, 10_000))
def test_random_legal_play_conserves_and_replays(players, seed, policy):
    state, events = api.new_game_with_events(COLORS[:players], seed)
    log = list(events)
    state = random_playout(state, random.Random(policy), max_actions=300, events=log, check=invariants)
    assert api.replay(log) == state
    # the folded state after every event equals the live state, event by event
    s = None
    for ev in log:
        s = api.fold(s, ev) if s is not None else api.fold(state, ev)
    assert s == state
    # saving and loading loses nothing
    assert api.state_from_json(json.loads(json.dumps(api.state_to_json(state)))) == state


def _perturb_secrets(state: api.GameState, who: str) -> api.GameState:
    """The same table with `who`'s secrets changed: chest, hand levels, set-aside, bonus token, RNG, deck
    order."""
    s = state.copy()
    d = s.data
    p = d["p"][who]
    p["chest"] += 17
    p["cards"] = copy_data(p["cards"])  # copies share Sailor cards: edit this state's own
    for c in p["hand"]:
        p["cards"][c]["level"] = 4 if p["cards"][c]["level"] < 4 else 1
    p["deck"] = list(reversed(p["deck"]))
    p["set_aside"] = ["r4-08" if a != "r4-08" else "r4-07" for a in p["set_aside"]]  # same count, other cards
    if p["bonus"] is not None:
        p["bonus"] = (p["bonus"] + 1) % 9
    d["rng"] ^= 0xDEADBEEF
    for r in d["decks"]:
        d["decks"][r] = list(reversed(d["decks"][r]))
    return s


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(players=st.integers(2, 4), seed=st.integers(0, 10_000), steps=st.integers(0, 250))
def test_no_secret_leaks(players, seed, steps):
    state, events = api.new_game_with_events(COLORS[:players], seed)
    log = list(events)
    state = random_playout(state, random.Random(seed), max_actions=steps, events=log)
    for who in state.players:
        changed = _perturb_secrets(state, who)
        assert api.public_view(changed) == api.public_view(state)
        for viewer in state.players:
            if viewer != who:
                assert api.private_view(changed, viewer) == api.private_view(state, viewer)
        assert api.private_view(changed, who) != api.private_view(state, who)
    # events: another seat never sees the cards someone drew, the levelled card or the RNG
    for ev in log:
        for viewer in [None, *state.players]:
            seen = api.event_view(ev, viewer)
            assert "rng" not in seen and "seed" not in seen.get("action", {})
            if ev["type"] == "draw_sailors" and ev["action"]["player_drawing"] != viewer:
                assert "cards" not in seen["action"] and seen["action"]["cards_count"] == len(
                    ev["action"]["cards"]
                )
            if ev["type"] == "level_up" and ev["player"] != viewer:
                assert "card" not in seen["action"]
    for who in state.players:  # the public part of a seat lists played and discarded cards only
        pub = api.public_view(state)["p"][who]
        assert not set(state.data["p"][who]["hand"]) & (set(pub["played"]) | set(pub["discard"]))


def test_legal_actions_are_all_accepted():
    state = api.new_game(COLORS, 17)
    rng = random.Random(2)
    for _ in range(150):
        who = state.active or "table"
        acts = api.legal_actions(state, who)
        assert acts
        for a in acts:
            api.apply(state, {"seq": state.seq, "player": who, "action": a})  # none raises
        state, _ = api.apply(state, {"seq": state.seq, "player": who, "action": rng.choice(acts)})
        if state.phase == "over":
            break


@settings(max_examples=5, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(players=st.integers(2, 4), seed=st.integers(0, 10_000))
def test_observed_chance_games_replay_and_conserve(players, seed):
    """With chance reported by the table (legal outcomes chosen at random), the same properties hold."""
    state, events = api.new_game_with_events(COLORS[:players], seed, {"auto_chance": False})
    log = list(events)
    rng = random.Random(seed)
    for _ in range(250):
        if state.phase == "over":
            break
        who = state.active or "table"
        acts = api.legal_actions(state, who)
        if not acts:  # a battle waits for its record from the camera: the table sends a random one
            from rules.battle import random_record
            from rules.battle.contract import BattleSetup

            setup = BattleSetup.from_json(state.data["battle"]["setup"])
            acts = [{"type": "resolve_battle", "record": random_record(setup, rng)}]
            who = "table"
        state, evs = api.apply(state, {"seq": state.seq, "player": who, "action": rng.choice(acts)})
        log += evs
        invariants(state)
    assert api.replay(log) == state


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    players=st.integers(2, 4), seed=st.integers(0, 10_000), steps=st.integers(0, 150), pick=st.integers(0, 99)
)
def test_undo_restores_the_table(players, seed, steps, pick):
    """Any undoable action followed by undo leaves the table exactly as it was (only seq moves on)."""
    state = api.new_game(COLORS[:players], seed)
    state = random_playout(state, random.Random(seed), max_actions=steps)
    if state.phase == "over" or state.data["battle"] or state.data["pending"]:
        return
    me = state.active
    acts = [a for a in api.legal_actions(state, me) if a["type"] != "end_turn"]
    if not acts:
        return
    after, _ = api.apply(state, {"seq": state.seq, "player": me, "action": acts[pick % len(acts)]})
    try:
        back, events = api.apply(after, {"seq": after.seq, "player": me, "action": {"type": "undo"}})
    except RulesError:
        last = after.data["turn_log"][-1]["type"]
        assert (
            after.data["battle"]
            or any(e.get("revealed") for e in after.data["turn_log"][-1:])
            or last in ("reveal_board", "draw_advancement")
            or not game_for(after.data["options"]).actions[last].undoable  # e.g. `choose`: never undone
        )
        return
    skip = ("seq", "turn_log", "turn_base")
    assert {k: v for k, v in back.data.items() if k not in skip} == {
        k: v for k, v in state.data.items() if k not in skip
    }
    for viewer in state.players:
        a, b = api.private_view(back, viewer), api.private_view(state, viewer)
        a.pop("seq")
        b.pop("seq")
        assert a == b
