"""A game resumed from its log plays on exactly as the game that never stopped.

The controller's game log stores states as JSON with sorted keys, so a resumed state's dicts are in
another order than the engine built them; nothing the engine folds or offers may depend on that order
(a Ship's Stern and Bow tiles once swapped after a restart: docs/great-sea.md)."""

from __future__ import annotations

import json
import random

import pytest

from rules import api
from rules.core.state import GameState

from .helpers import new


def _through_the_log(state: GameState) -> GameState:
    """The state as the game log gives it back: saved with sorted keys, loaded."""
    return api.state_from_json(json.loads(json.dumps(api.state_to_json(state), sort_keys=True)))


def _canon(x: object) -> str:
    return json.dumps(x, sort_keys=True)


@pytest.mark.parametrize(("players", "seed"), [(2, 4), (2, 11), (3, 4), (3, 7), (4, 2), (4, 9)])
def test_a_state_reloaded_from_the_log_plays_on_like_one_that_never_stopped(players: int, seed: int) -> None:
    rng = random.Random(seed)
    kept = new(players, seed)
    reloaded = _through_the_log(kept)
    for step in range(1500):
        if api.is_over(kept):
            break
        who = kept.active or "table"
        offers = sorted(_canon(a) for a in api.legal_actions(kept, who))
        assert offers == sorted(_canon(a) for a in api.legal_actions(reloaded, who)), f"step {step}"
        action = json.loads(rng.choice(offers))
        command = {"seq": kept.seq, "player": who, "action": action}
        kept, events = api.apply(kept, command)
        reloaded, events_after_reload = api.apply(reloaded, command)
        assert _canon(events) == _canon(events_after_reload), f"step {step}: {action}"
        reloaded = _through_the_log(reloaded)
    assert _canon(api.state_to_json(kept)) == _canon(api.state_to_json(reloaded))
    assert step > 200, "the game really played"
