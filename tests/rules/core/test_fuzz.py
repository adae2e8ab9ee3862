"""Malformed and random commands: always a RulesError (never a crash), and a refusal changes nothing."""

from __future__ import annotations

import json
import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules import api
from rules.dead_reckoning.game import GAME
from rules.errors import RulesError
from tests.rules.helpers import COLORS, random_playout

# Action field names both fuzzers draw from (the engine's own and a few it never reads).
FIELD_NAMES = [
    "hold",
    "cargo",
    "coins",
    "card",
    "path",
    "target",
    "ability",
    "choice",
    "args",
    "pay",
    "sleeve",
    "pirate",
    "square",
    "board",
    "cards",
    "record",
    "outcome",
    "token",
    "replace",
    "islands",
    "builds",
    "tile",
    "space",
    "to_ship",
    "from_hold",
    "dock",
    "holds",
    "first",
    "tokens",
    "player_drawing",
    "fight_order",
    "cannons",
    "choice",
    "option",
]

_json = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-3, 14)
    | st.sampled_from(["red", "blue", "r1c1", "harbor", "crew-1", "crew-1:L1:0", "r1-01", "fort", "x"]),
    lambda children: (
        st.lists(children, max_size=3)
        | st.dictionaries(
            st.sampled_from(FIELD_NAMES),
            children,
            max_size=4,
        )
    ),
    max_leaves=8,
)
_STATES: dict[int, api.GameState] = {}


def _state(seed: int) -> api.GameState:
    if seed not in _STATES:  # odd seeds: chance observed, so some states wait for the table
        s = api.new_game(
            COLORS[: 2 + seed % 3], seed, {"auto_chance": seed % 2 == 0, "bonus_tokens": seed == 3}
        )
        _STATES[seed] = random_playout(s, random.Random(seed), max_actions=(40 + 37 * seed) * (seed % 2 == 0))
    return _STATES[seed]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    seed=st.integers(0, 4),
    atype=st.sampled_from(sorted(GAME.actions) + ["undo", "nonsense"]),
    fields=st.dictionaries(
        st.sampled_from(FIELD_NAMES),
        _json,
        max_size=4,
    ),
    who=st.sampled_from(["active", "other", "table", "stranger"]),
)
def test_random_commands_are_refused_cleanly(seed, atype, fields, who):
    state = _state(seed)
    before = json.dumps(api.state_to_json(state), sort_keys=True)
    player = {"active": state.active, "other": state.players[-1], "table": "table", "stranger": "nobody"}[who]
    command = {"seq": state.seq, "player": player, "action": {"type": atype, **fields}}
    try:
        new, events = api.apply(state, command)
    except RulesError as exc:
        assert exc.message and exc.kind in ("invalid", "illegal", "ambiguous")
        assert json.dumps(api.state_to_json(state), sort_keys=True) == before
        return
    assert events and new.seq > state.seq
    assert json.dumps(api.state_to_json(state), sort_keys=True) == before  # the old state is untouched


@settings(max_examples=40, deadline=None)
@given(command=_json)
def test_garbage_commands(command):
    state = _state(0)
    before = json.dumps(api.state_to_json(state), sort_keys=True)
    try:
        new, events = api.apply(state, command)
    except RulesError as exc:
        assert exc.kind in ("invalid", "illegal", "ambiguous") and exc.message  # one sentence, never a crash
    else:  # a well-formed command the rules accept: it is recorded
        assert events and new.seq > state.seq
    assert json.dumps(api.state_to_json(state), sort_keys=True) == before  # the old state is untouched
