"""Malformed commands get one clear refusal (a RulesError), never a crash, and change nothing."""

from __future__ import annotations

import random
from typing import Any

from rules import api
from rules.errors import RulesError
from rules.great_sea.game import GAME

from .helpers import COLORS

FIELDS = [
    "card",
    "die",
    "dice",
    "gain",
    "choice",
    "tiles",
    "region",
    "fort",
    "foundation",
    "gains",
    "pile",
    "cls",
    "discount",
    "moves",
    "opponent",
    "placed",
    "side",
    "part",
    "first",
    "cards",
    "from",
    "to",
    "pay",
]
VALUES: list[Any] = [
    None,
    0,
    1,
    -1,
    7,
    2.5,
    True,
    "",
    "x",
    "develop",
    "r1c1",
    "small",
    "stronghold",
    "coins",
    "post",
    [],
    [1],
    ["develop"],
    [["r1c1", "r1c2", "small"]],
    [[0, 1]],
    [[0, "a"]],
    {},
    {"red": "x"},
    [[]],
    [{}],
]


def test_random_malformed_commands_are_refused_cleanly():
    rng = random.Random(7)
    types = sorted(GAME.actions)
    for seed in range(4):
        state = api.new_game(COLORS[: 2 + seed % 3], seed, {"game": "great-sea", "combat_cards": "standard"})
        for _step in range(250):
            if state.phase == "over":
                break
            who = state.active or "table"
            acts = api.legal_actions(state, who)
            for _ in range(6):
                if rng.random() < 0.5:
                    action = {"type": rng.choice(types)}
                    for f in rng.sample(FIELDS, rng.randint(0, 4)):
                        action[f] = rng.choice(VALUES)
                else:  # a legal action with one field spoiled: reaches the checks' deeper tests
                    action = dict(rng.choice(acts))
                    action[rng.choice([k for k in action if k != "type"] or FIELDS)] = rng.choice(VALUES)
                before = api.state_to_json(state)
                player = rng.choice([who, "table", *state.players])
                try:
                    api.apply(state, {"seq": state.seq, "player": player, "action": action})
                except RulesError:
                    assert api.state_to_json(state) == before
            state, _ = api.apply(
                state, {"seq": state.seq, "player": who, "action": rng.choice(acts)}, inplace=True
            )
