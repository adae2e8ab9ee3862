"""Bad input to the expansion's actions gets one sentence (a RulesError), never a traceback, and changes
nothing."""

from __future__ import annotations

import itertools

from rules import api
from rules.dead_reckoning.expansions import expansion
from rules.errors import RulesError
from tests.rules.letters_of_marque.helpers import lay_on_ship, lgame, lom, token_of

TYPES = sorted(a.type for a in expansion("letters-of-marque").actions)
FIELDS = ["token", "hold", "part", "source", "square", "empire", "index", "args", "tokens", "face", "rewards"]
VALUES = [
    None,
    7,
    -1,
    "x",
    "r9c9",
    "moon-salt-01",
    [],
    ["a", "b", "c"],
    [[1], {}],
    {},
    {"choice": 9},
    {"empire-a": [1, "x"] * 4, "empire-b": [[]] * 7},
    True,
    1.5,
]


def test_malformed_actions_are_refused_with_a_sentence():
    state = lgame(3, seed=14)
    me = state.active
    lay_on_ship(state, me, token_of("moon_salt", 0))
    lom(state)["claims"][me] = [
        {"kind": "reward", "reward": "fr-05"},
        {"kind": "letter", "empire": "empire-a"},
    ]
    before = api.state_to_json(state)
    n = 0
    for t, f in itertools.product(TYPES, FIELDS):
        for v in VALUES:
            for who in (me, "table"):
                try:
                    api.apply(state, {"seq": state.seq, "player": who, "action": {"type": t, f: v}})
                except RulesError as exc:
                    assert exc.message and "\n" not in exc.message
                    n += 1
    assert api.state_to_json(state) == before and n > 1000
