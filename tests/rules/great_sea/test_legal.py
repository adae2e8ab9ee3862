"""The legal-action generator: every action it offers passes its action's check (including the families it
builds without running the check), and it offers something to whoever the game waits for."""

from __future__ import annotations

import json
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


def _fixed_candidates(d: dict, who: str) -> list[dict]:
    """The brute-force candidates that depend only on the map, the seats and `who` (not on the state of
    play), built once per game and player instead of for each state (they were a tenth of the test's
    time); the families below, by brute force over their fields (discounts: none; moves: one Ship)."""
    from rules.great_sea.data import CLASSES, DICE, FORTS

    regions = sorted(d["regions"])
    out: list[dict] = [{"type": "take_action", "card": n} for n in range(1, 7)]
    out += [{"type": "end_turn"}, {"type": "finish_action"}, {"type": "start_worker"}]
    out += [{"type": "start_pip", "die": x, "pay": pay} for x in DICE for pay in ("posts", "coins")]
    out += [{"type": "develop_pip", "die": x, "gain": g} for x in DICE for g in ("coins", "wood")]
    out += [{"type": "develop_second", "choice": "pip", "die": x} for x in DICE]
    out += [{"type": "construct_pip", "die": x} for x in DICE]
    out += [{"type": "fortify", "region": r, "fort": f} for r in regions for f in FORTS]
    out += [{"type": "trade", "gains": ["coins", "wood"]}]
    out += [{"type": "trade", "gains": [g, "post"], "region": r} for r in regions for g in ("coins", "wood")]
    out += [{"type": "construct", "cls": c, "region": r, "discount": 0} for c in CLASSES for r in regions]
    out += [
        {"type": "initiate_combat", "region": r, "opponent": o}
        for r in regions
        for o in d["players"]
        if o != who
    ]
    out += [
        {"type": "move", "region": b, "moves": [[a, b, c]]} for a in regions for b in regions for c in CLASSES
    ]
    out += [
        {"type": "start_move", "from": a, "to": b, "cls": c}
        for a in regions
        for b in regions
        for c in CLASSES
    ]
    out += [
        {"type": "start_repair", "region": r, "cls": c, "pay": pay}
        for r in regions
        for c in CLASSES
        for pay in ("post", "wood")
    ]
    return out


def _brute_force(d: dict, who: str, fixed: list[dict]) -> list[dict]:
    """Every candidate of the families the generator builds from its checks' tests, by brute force over
    their fields, for the completeness test below: `fixed` (_fixed_candidates) and the Piles' families."""
    from rules.great_sea.data import CLASSES

    # removing from a Pile gained from this turn is accepted but not offered (docs/great-sea.md, "Not done")
    gained = d["turn"]["open"]["piles"] if d["turn"]["open"] else []
    out = [{"type": "research_remove", "pile": pile} for pile in sorted(d["piles"]) if pile not in gained]
    out += [
        {"type": "research_gain", "pile": pile, "discount": 0, "cls": c}
        for pile in sorted(d["piles"])
        for c in CLASSES
    ]
    return fixed + out


def _key(action: dict) -> str:
    return json.dumps(action, sort_keys=True)


def test_offers_built_from_tests_are_complete():
    """The families `legal_actions` builds from its checks' own tests, without running them, hold every
    action of their kind the check accepts (by brute force over their fields on the states of random games;
    discounts and multi-Ship moves are representative, so only the discount 0 and single-Ship moves)."""
    from rules.core.errors import RulesError

    for n, seed in ((2, 31), (3, 32), (4, 33)):
        state = api.new_game(COLORS[:n], seed, {"game": "great-sea"})
        rng = random.Random(seed)
        checked = 0
        fixed: dict[str, list[dict]] = {}
        for _ in range(300):
            if state.phase == "over":
                break
            who = state.active or "table"
            acts = api.legal_actions(state, who)
            d = state.data
            if d["phase"] == "main" and d["combat"] is None and not d["pending"]:
                # compared as the checks normalise them (a check may drop a field it does not read)
                offered = {_key(GAME.actions[a["type"]].check(d, who, a)) for a in acts}
                if who not in fixed:
                    fixed[who] = _fixed_candidates(d, who)
                for a in _brute_force(d, who, fixed[who]):
                    try:
                        norm = GAME.actions[a["type"]].check(d, who, a)
                    except RulesError:
                        continue
                    assert _key(norm) in offered, f"{a} passes its check but is not offered"
                    checked += 1
            state, _ = api.apply(
                state, {"seq": state.seq, "player": who, "action": rng.choice(acts)}, inplace=True
            )
        assert checked > 300  # the games reached many states with such offers
        # the candidates built once are still what they were built as: no check changed one it was given
        assert all(fixed[w] == _fixed_candidates(state.data, w) for w in fixed)
