"""The achievements' declared inputs hold: an effect that checks only the achievements it may complete
(`check_achievements(..., only)`, after an unload, a level-up or an ability) changed no input it did not
declare, and its narrowed check places what the full check would. Random games, base and Letters of Marque,
2-4 players, seeds beyond the benchmark's (docs/bench/rules.md, "Letters of Marque, round 6")."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest

from rules import api
from rules.core.state import GameState
from rules.dead_reckoning import abilities, achievements, cargo, sailors
from rules.dead_reckoning.achievements import ACHIEVEMENT_INPUTS, INPUTS, affected

COLORS = ["red", "blue", "green", "yellow"]
NARROWING = (cargo, sailors, abilities)  # the chapters whose effects declare what they change


def _inputs(d: Any, color: str) -> dict[str, Any]:
    return {name: read(d, color) for name, read in INPUTS.items()}


def test_every_achievement_reads_declared_inputs_only():
    assert set().union(*ACHIEVEMENT_INPUTS.values()) == set(INPUTS)
    assert affected({"chest"}) == {"capitalist"}
    assert affected({"islands"}) == {"builder", "settler"}
    assert abilities.achievements_after([{"do": "gain"}, {"do": "sails"}]) == {"capitalist"}
    assert abilities.achievements_after([{"do": "gain"}, {"do": "not-a-kind"}]) is None  # unknown: all


@pytest.mark.parametrize("expansions", [None, ["letters-of-marque"]], ids=["base", "letters-of-marque"])
def test_narrowed_checks_change_declared_inputs_only_and_place_what_the_full_check_does(
    monkeypatch, expansions
):
    full_check = achievements.check_achievements
    before: dict[str, dict[str, Any]] = {}
    now = {"event": ""}
    seen: Counter[str] = Counter()

    def spy(d: Any, color: str, out: list[dict[str, Any]], only: frozenset[str] | None = None) -> None:
        if only is None or d["active"] != color or d["phase"] != "main":
            full_check(d, color, out, only)
            return
        changed = {n for n, v in _inputs(d, color).items() if v != before[color][n]}
        assert affected(changed) <= only, (
            f"{now['event']} changed the achievements' inputs {sorted(changed)} but declared only those of "
            f"{sorted(only)}: add what it changes to its declaration"
        )
        whole = GameState(d).copy().data
        full_out: list[dict[str, Any]] = []
        full_check(whole, color, full_out, None)
        mark = len(out)
        full_check(d, color, out, only)
        assert [n for n in out[mark:]] == full_out, now["event"]
        assert d["achievements"] == whole["achievements"], now["event"]
        assert d["achievement_cubes"] == whole["achievement_cubes"], now["event"]
        seen[now["event"]] += 1

    for mod in NARROWING:
        monkeypatch.setattr(mod, "check_achievements", spy)
    options = {"expansions": expansions} if expansions else None
    actions = 0
    for seed in range(101, 109):
        state = api.new_game(COLORS[: 2 + seed % 3], seed, options)
        rng = random.Random(seed)
        while state.phase != "over":
            who = state.active or "table"
            acts = api.legal_actions(state, who)
            action = rng.choice(acts)
            d = state.data
            before.clear()
            before.update({c: _inputs(d, c) for c in d["players"]})
            now["event"] = action["type"]
            state, _ = api.apply(state, {"seq": state.seq, "player": who, "action": action}, inplace=True)
            actions += 1
    # every declaring effect was exercised, many times over
    assert {"unload", "use_ability", "level_up"} <= set(seen), seen
    assert sum(seen.values()) > 300, (seen, actions)
