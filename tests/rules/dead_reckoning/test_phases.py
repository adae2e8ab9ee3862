"""The turn structure in `phases.STAGES` is the one the engine plays: over random games, every action
`legal_actions` offers any seat is one its stage lists for that seat, and every action type the stage
leaves out for a seat is refused by the checks (rulebook: "Turn overview"; a battle: "once the battle
has begun" only its own steps happen; chance: the table reports what was revealed before play goes on)."""

from __future__ import annotations

import random

from rules import api
from rules.dead_reckoning.game import GAME
from rules.dead_reckoning.phases import STAGES, seat_of, stage_of
from tests.rules.helpers import COLORS

# the fields every action type needs to get past "malformed" to the rule that refuses it in this stage
PROBE: dict[str, dict[str, object]] = {
    "load": {"hold": 0, "cargo": 1},
    "unload": {"hold": 0, "cargo": 1},
    "rearrange": {"from_hold": 0, "cargo": 1},
    "jettison": {"hold": 0, "cargo": 1},
    "move": {"path": ["r1c1"]},
    "attack": {"target": "blue"},
    "use_ability": {"ability": "x:L1:0"},
    "play_card": {"card": "x"},
    "level_up": {"card": "x"},
    "choose_bonus": {"token": 0},
    "end_turn": {"pirate": False, "sleeve": []},
}


def test_offers_stay_inside_the_stage_and_the_checks_refuse_what_it_leaves_out() -> None:
    seen_stages: set[str] = set()
    refused = 0
    for seed in (1, 2, 3):
        state = api.new_game(
            COLORS[: 2 + seed % 3], seed, {"bonus_tokens": seed == 2, "auto_chance": seed != 3}
        )
        rng = random.Random(seed)
        for _ in range(600):
            if api.is_over(state):
                break
            d = state.data
            stage = stage_of(d)  # type: ignore[arg-type]
            seen_stages.add(stage)
            for who in ("table", *state.players):
                seat = seat_of(d, who)  # type: ignore[arg-type]
                allowed = STAGES[stage][seat]
                offered = api.legal_actions(state, who)
                assert {a["type"] for a in offered} <= allowed, (stage, seat, offered)
                for atype in sorted(set(GAME.actions) - allowed)[:: 1 + rng.randrange(3)]:
                    try:
                        api.apply(
                            state,
                            {
                                "seq": state.seq,
                                "player": who,
                                "action": {"type": atype, **PROBE.get(atype, {})},
                            },
                        )
                    except api.RulesError:
                        refused += 1
                    else:
                        raise AssertionError(f"{atype} by {who} ({seat}) was accepted in stage {stage}")
            who = state.active or "table"
            acts = api.legal_actions(state, who) if stage != "chance" or d["options"]["auto_chance"] else []
            if not acts:
                acts = api.legal_actions(state, "table")
                who = "table"
            if not acts:
                break  # a battle with chance observed: its record comes from the tower and camera, not offers
            state, _ = api.apply(state, {"seq": state.seq, "player": who, "action": rng.choice(acts)})
    assert {"chance", "battle", "turn"} <= seen_stages and refused > 1000
