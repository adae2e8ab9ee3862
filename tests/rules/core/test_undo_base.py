"""The turn base kept as a replay base (`state.next_base`): the previous turn's base plus that turn's
events, folded only when read (undo, save, ==). It must stand for exactly the snapshot a full copy
would have taken at the turn's start."""

from __future__ import annotations

import json
import marshal
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import rules.core.state as state_mod
from rules import api
from rules.core.state import REPLAY_DEPTH, REPLAY_TAG, base_data, snapshot_base
from tests.rules.helpers import COLORS


def _play(players: int, seed: int, inplace: bool, undo_rate: float, steps: int = 900) -> list[bytes]:
    """Saved form (turn base included) after every command of a random game with random undos, marshalled
    with version 2 (no references, so equal data gives equal bytes): equal bytes are equal JSON (same types,
    values and key order) for less than `json.dumps` with sorted keys (43 % of the test's time);
    `_same_json` compares what differs as JSON."""
    state = api.new_game(COLORS[:players], seed)
    rng = random.Random(seed)
    saved: list[bytes] = []
    while state.phase != "over" and len(saved) < steps:
        d = state.data
        who = state.active or "table"
        if d["phase"] == "main" and d["turn_log"] and rng.random() < undo_rate:
            try:
                state, _ = api.apply(
                    state,
                    {"seq": d["seq"], "player": d["active"], "action": {"type": "undo"}},
                    inplace=inplace,
                )
            except api.RulesError:
                pass
            else:
                saved.append(marshal.dumps(api.state_to_json(state), 2))
                continue
        state, _ = api.apply(
            state,
            {"seq": state.seq, "player": who, "action": rng.choice(api.legal_actions(state, who))},
            inplace=inplace,
        )
        saved.append(marshal.dumps(api.state_to_json(state), 2))
    return saved


def _same_json(lazy: list[bytes], eager: list[bytes]) -> None:
    """The two games' saved forms are the same JSON after every command (the same as comparing the
    `json.dumps(..., sort_keys=True)` strings: bytes that differ, in key order say, are compared so)."""
    assert len(lazy) == len(eager)
    for n, (a, b) in enumerate(zip(lazy, eager, strict=True)):
        if a != b:
            ja, jb = (json.dumps(marshal.loads(x), sort_keys=True) for x in (a, b))
            assert ja == jb, f"the saved forms differ after command {n}"


@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    players=st.integers(2, 4),
    seed=st.integers(0, 10_000),
    inplace=st.booleans(),
    undo_rate=st.sampled_from([0.0, 0.1, 0.3]),
)
def test_replay_bases_equal_full_snapshots(players: int, seed: int, inplace: bool, undo_rate: float) -> None:
    lazy = _play(players, seed, inplace, undo_rate)
    mp = pytest.MonkeyPatch()
    try:
        mp.setattr(state_mod, "REPLAY_DEPTH", 1)  # every turn takes the full snapshot, as before
        eager = _play(players, seed, inplace, undo_rate)
    finally:
        mp.undo()
    _same_json(lazy, eager)


def test_replay_bases_are_used_and_bounded() -> None:
    state = api.new_game(COLORS[:4], 2)
    rng = random.Random(2)
    depths = set()
    while state.phase != "over":
        tb = state.data["turn_base"]
        if isinstance(tb, tuple) and len(tb) == 7:
            assert tb[0] == REPLAY_TAG
            depths.add(tb[5])
            # read twice: the second read is the remembered fold, and equal to a snapshot of now at turn start
            assert base_data(tb) == base_data(tb)
        who = state.active or "table"
        state, _ = api.apply(
            state,
            {"seq": state.seq, "player": who, "action": rng.choice(api.legal_actions(state, who))},
            inplace=True,
        )
    assert depths == set(range(1, REPLAY_DEPTH))


def test_a_replay_base_at_turn_start_is_the_state_itself() -> None:
    state = api.new_game(COLORS[:3], 9)
    rng = random.Random(9)
    seen = 0
    while state.phase != "over" and seen < 30:
        d = state.data
        if (
            d["phase"] == "main"
            and not d["turn_log"]
            and isinstance(d["turn_base"], tuple)
            and len(d["turn_base"]) == 7
            and not d["pending"]
        ):
            want = base_data(snapshot_base(d))
            got = base_data(d["turn_base"])
            (
                want.pop("seq"),
                got.pop("seq"),
            )  # the base is taken inside the fold, before its notices are numbered
            assert got == want
            seen += 1
        who = state.active or "table"
        state, _ = api.apply(
            state,
            {"seq": state.seq, "player": who, "action": rng.choice(api.legal_actions(state, who))},
            inplace=True,
        )
    assert seen >= 10
