"""The tablets' words for the expansion's actions (controller/words.py): every action a Letters of Marque game
offers gets a sentence in the game's words, never its raw type or a token id."""

from __future__ import annotations

import random

from controller.words import action_words, waiting_text
from rules import api
from rules.dead_reckoning.cards import catalog
from tests.rules.letters_of_marque.helpers import lgame


def test_every_offered_expansion_action_has_words():
    state = lgame(3, seed=2)
    rng = random.Random(2)
    seen = set()
    for _ in range(1500):
        if state.phase == "over":
            break
        who = state.active or "table"
        acts = api.legal_actions(state, who)
        view = api.private_view(state, state.active) if state.active else api.public_view(state)
        for a in acts:
            if a["type"] in (
                "discover_prime_cargo",
                "load_prime",
                "discard_prime",
                "claim",
                "decline",
                "unload_prime",
            ):
                w = action_words(
                    catalog(state.data),
                    view,
                    who,
                    a,
                    state.data["p"][who]["cards"] if who in state.data["p"] else {},
                )
                assert w["label"] and "_" not in w["label"] and "-0" not in w["label"], w
                seen.add(a["type"])
        state, _ = api.apply(state, {"seq": state.seq, "player": who, "action": rng.choice(acts)})
    assert {"discover_prime_cargo", "load_prime"} <= seen
    assert "turned over" in waiting_text({}, {"kind": "flip_prime_cargo", "square": "r1c1", "player": "red"})
