"""The ability offers `legal_actions` makes without running the full check (`legal._decided`, the
`always_passes` shortcut) are exactly those the full check accepts: every unused ability of a played card,
with the arguments the generator chooses, run through `check_use_ability` itself."""

from __future__ import annotations

import random

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules import api
from rules.engine import card_abilities, catalog, check_use_ability
from rules.errors import RulesError
from rules.legal import _ability_args
from tests.rules.helpers import COLORS


def _fully_checked(d: dict, player: str) -> list[dict]:
    p = d["p"][player]
    out = []
    for cid in p["played"]:
        for aid, ab in card_abilities(catalog(d), cid, p["cards"][cid]):
            if "battle" in ab or aid in p["used"]:
                continue
            for choice, alt in (enumerate(ab["choice"]) if "choice" in ab else [(None, ab)]):
                args = _ability_args(d, player, alt)
                a = {"type": "use_ability", "ability": aid, "args": args} if choice is None else \
                    {"type": "use_ability", "ability": aid, "choice": choice, "args": args}
                try:
                    check_use_ability(d, player, a)
                except RulesError:
                    continue
                out.append(a)
    return out


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(players=st.integers(2, 4), seed=st.integers(0, 10_000))
def test_ability_offers_are_the_ones_the_full_check_accepts(players: int, seed: int) -> None:
    state = api.new_game(COLORS[:players], seed)
    rng = random.Random(seed)
    compared = 0
    while state.phase != "over":
        d = state.data
        who = state.active or "table"
        acts = api.legal_actions(state, who)
        if d["phase"] == "main" and not d["pending"] and not d["battle"] and who == d["active"]:
            assert [a for a in acts if a["type"] == "use_ability"] == _fully_checked(d, who)
            compared += 1
        state, _ = api.apply(state, {"seq": state.seq, "player": who, "action": rng.choice(acts)}, inplace=True)
    assert compared > 100
