"""The legal-action generator: every action it offers passes its action's check (including the families it
builds without running the check), and it offers something to whoever the game waits for."""

from __future__ import annotations

import random

from rules import api
from rules.great_sea.game import GAME

from .helpers import COLORS


def test_every_offer_passes_its_check():
    for n, seed in ((2, 21), (3, 22), (4, 23)):
        state = api.new_game(COLORS[:n], seed, {"game": "great-sea", "combat_cards": "standard"})
        rng = random.Random(seed)
        for _ in range(400):
            if state.phase == "over":
                break
            who = state.active or "table"
            acts = api.legal_actions(state, who)
            assert acts
            for a in acts:
                GAME.actions[a["type"]].check(state.data, who, a)  # raises if an offer is illegal
            # nobody else is offered anything while the game waits for `who`, but during a Combat's
            # card choice
            if state.data["combat"] is None:
                assert all(api.legal_actions(state, c) == [] for c in state.players if c != who)
            state, _ = api.apply(
                state, {"seq": state.seq, "player": who, "action": rng.choice(acts)}, inplace=True
            )


def test_temple_points_in_one_pass_agree_with_control():
    """`temples.all_temple_points` (one pass) counts what `control.controls` and the Trade Posts say."""
    from rules.great_sea.control import controls
    from rules.great_sea.temples import all_temple_points

    state = api.new_game(COLORS[:4], 5, {"game": "great-sea"})
    rng = random.Random(5)
    for _ in range(600):
        if state.phase == "over":
            break
        d = state.data
        want = {
            c: sum(
                int(controls(reg, c)) + int(reg["post"] is not None and reg["post"][0] == c)
                for reg in d["regions"].values()
                if reg["temple"] is not None
            )
            for c in d["players"]
        }
        assert all_temple_points(d) == want
        who = state.active or "table"
        state, _ = api.apply(
            state,
            {"seq": state.seq, "player": who, "action": rng.choice(api.legal_actions(state, who))},
            inplace=True,
        )
