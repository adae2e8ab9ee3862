"""The expansion's offers are decided by its checks' own tests (`letters_of_marque/legal.py`: loads without a
check per token): every offer of an expansion action in random games must pass that action's full check,
state by state, as `apply` would run it."""

from __future__ import annotations

import random

from rules import api
from rules.dead_reckoning.expansions import expansion
from rules.dead_reckoning.game import game_for
from tests.rules.helpers import COLORS

OWN = {a.type for a in expansion("letters-of-marque").actions}


def test_every_offer_of_the_expansion_passes_its_check():
    checked: dict[str, int] = {}
    for seed in (1, 2, 3):
        state = api.new_game(COLORS[: 2 + seed % 3], seed, {"expansions": ["letters-of-marque"]})
        game = game_for(state.data["options"])
        rng = random.Random(seed)
        for _ in range(700):
            if state.phase == "over":
                break
            who = state.active or "table"
            acts = api.legal_actions(state, who)
            for a in acts:
                if a["type"] in OWN and not game.actions[a["type"]].chance:
                    game.actions[a["type"]].check(state.data, who, a)  # raises if the offer is refused
                    checked[a["type"]] = checked.get(a["type"], 0) + 1
            state, _ = api.apply(
                state, {"seq": state.seq, "player": who, "action": rng.choice(acts)}, inplace=True
            )
    # the walk offered the expansion's actions often enough to mean something, loads among them
    assert sum(checked.values()) > 100 and checked.get("load_prime", 0) > 10, checked
