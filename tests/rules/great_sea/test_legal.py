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


def test_multi_ship_moves_are_offered():
    """A pip moves "any number of Ships into that region from any number of regions, or ... out of that
    region into any number of regions": the offers hold single-Ship moves, the Ships that can reach a region
    gathered there, and the Ships of a region sent together (as many as the Fleet Limit allows)."""
    from rules.great_sea.map import adjacency

    from .helpers import act, clear_map, open_card, ship, started

    s = started(2)
    c = s.data["turn_player"]
    clear_map(s)
    home = s.data["p"][c]["home"]
    a = sorted(adjacency(s.data["map"])[home])[0]
    far = next(r for r in sorted(adjacency(s.data["map"])[a]) if r != home)
    ship(s, c, "small", home)
    ship(s, c, "small", home)
    ship(s, c, "medium", a)
    s.data["p"][c]["dice"] = [6, 1, 1, 1, 1, 2]
    s = open_card(s, 6)
    moves = [x for x in api.legal_actions(s, c) if x["type"] == "move"]
    assert {"type": "move", "region": far, "moves": [[home, far, "small"]]} in moves
    # both Small Ships (Speed 2) and the Medium (Speed 1) can reach `far`: 3 + 3 + 4 > 8, so two of them
    gathered = [m for m in moves if m["region"] == far and len(m["moves"]) > 1]
    assert len(gathered) == 1 and len(gathered[0]["moves"]) == 2
    # both Small Ships sent out of home together (not into `a`: 4 + 3 + 3 > 8)
    sent = [m for m in moves if m["region"] == home and len(m["moves"]) == 2]
    assert sent and all(m["moves"][0][2] == m["moves"][1][2] == "small" for m in sent)
    assert not any(m["moves"][0][1] == a for m in sent)
    s, _ = act(s, "move", **{k: v for k, v in gathered[0].items() if k != "type"})
    assert sum(x["owner"] == c for x in s.data["regions"][far]["ships"]) == 2
