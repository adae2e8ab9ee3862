"""The offers `legal_actions` makes without running the full check (`legal._decided`, the `always_passes`
shortcut, buys, attacks, Master Merchant, loads and unloads filtered with their checks' own tests) are
exactly those the full check accepts: every unused ability of a played card with the arguments the
generator chooses, and every other candidate, run through the engine's checks themselves."""

from __future__ import annotations

import random
from collections.abc import Iterator
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rules import api
from rules.dead_reckoning.abilities import check_use_ability
from rules.dead_reckoning.battles import check_resolve_battle, plain_record
from rules.dead_reckoning.cards import card_abilities, catalog
from rules.dead_reckoning.game import GAME
from rules.dead_reckoning.legal import _ability_args, _cube_source_variants
from rules.dead_reckoning.model import State
from rules.errors import RulesError
from tests.rules.helpers import COLORS


def _fully_checked(d: State, player: str) -> list[dict[str, Any]]:
    p = d["p"][player]
    out = []
    for cid in p["played"]:
        for aid, ab in card_abilities(catalog(d), cid, p["cards"][cid]):
            if "battle" in ab or aid in p["used"]:
                continue
            for choice, alt in enumerate(ab["choice"]) if "choice" in ab else [(None, ab)]:
                args = _ability_args(d, player, alt)
                a = (
                    {"type": "use_ability", "ability": aid, "args": args}
                    if choice is None
                    else {"type": "use_ability", "ability": aid, "choice": choice, "args": args}
                )
                # with the supply about to run out, an Influence is offered once per island its first cube
                # could come from (the player's choice, issue #16 item 9): each is held to the full check too
                for v in _cube_source_variants(d, player, p, alt, a):
                    try:
                        check_use_ability(d, player, v)
                    except RulesError:
                        continue
                    out.append(v)
    return out


def _others_fully_checked(d: State, player: str) -> list[dict[str, Any]]:
    p = d["p"][player]
    cands: list[dict[str, Any]] = [{"type": "buy"}, {"type": "attack_merchant"}]
    cands += [{"type": "attack", "target": c} for c in d["players"] if c != player]
    cands.append({"type": "attack_building"})
    for h in (0, 1):
        hold = p["ship"]["holds"][h]
        cands += [
            {"type": "load", "hold": h, "cargo": 1},
            {"type": "load", "hold": h, "coins": 1},
            {"type": "unload", "hold": h, "cargo": hold[0]},
            {"type": "unload", "hold": h, "coins": hold[1]},
        ]
    cands.append({"type": "master_merchant"})
    out = []
    for a in cands:
        try:
            GAME.actions[a["type"]].check(d, player, a)
        except RulesError:
            continue
        out.append(a)
    return out


def _played(players: int, seed: int) -> Iterator[tuple[Any, str, list[dict[str, Any]]]]:
    """Each state of a random legal game (updated in place), the player to act and the actions offered."""
    state = api.new_game(COLORS[:players], seed)
    rng = random.Random(seed)
    while state.phase != "over":
        who = state.active or "table"
        acts = api.legal_actions(state, who)
        yield state, who, acts
        state, _ = api.apply(
            state, {"seq": state.seq, "player": who, "action": rng.choice(acts)}, inplace=True
        )


@settings(max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(players=st.integers(2, 4), seed=st.integers(0, 10_000))
def test_offers_are_the_ones_the_full_checks_accept(players: int, seed: int) -> None:
    compared = 0
    for state, who, acts in _played(players, seed):
        d = state.data
        if d["phase"] == "main" and not d["pending"] and not d["battle"] and who == d["active"]:
            assert [a for a in acts if a["type"] == "use_ability"] == _fully_checked(d, who)
            kinds = (
                "buy",
                "attack_merchant",
                "attack",
                "attack_building",
                "load",
                "unload",
                "master_merchant",
            )
            assert [a for a in acts if a["type"] in kinds] == _others_fully_checked(d, who)
            compared += 1
    assert compared > 100


def test_an_offered_battle_record_is_kept_with_the_result_of_its_full_check() -> None:
    # battle_actions plays the random record on a tracker as it draws it and keeps the check's result for
    # apply: it must be exactly what check_resolve_battle's replay of the record gives
    compared = 0
    for seed in range(1, 7):
        for state, who, acts in _played(2 + seed % 3, seed):
            d = state.data
            if d["battle"] and not d["pending"]:
                for a in acts:
                    if a["type"] == "resolve_battle":
                        kept = state.offers.kept[state.offers.key(who, a)]
                        assert kept == check_resolve_battle(d, who, a)
                        compared += 1
    assert compared > 50


def test_a_battle_record_is_kept_in_its_plain_form() -> None:
    # plain_record: plain() of a record, by a marshal copy when the record is plain data without tuples
    from rules.core.state import plain

    rec = {
        "schema": "x",
        "board": {"zones": {"z(1)": {"kind": "miss"}}, "adjacent": [["a", "b"]]},
        "steps": [{"step": "drop", "board": [{"color": "red", "zone": None}]}],
        "n": 1.5,
        "ok": True,
    }
    for r in (rec, {**rec, "steps": [("drop", 1)]}, {**rec, "board": {"adjacent": (("a", "b"),)}}):
        got = plain_record(r)
        assert got == plain(r) and type(got) is dict
        assert got["steps"] is not r["steps"] and got["board"] is not r["board"]  # a copy, not shared
        assert "(" not in repr(got).replace("z(1)", "")  # no tuples left


def test_the_games_joined_generator_offers_what_the_expansions_looked_up_per_state_offer() -> None:
    """`Game.legal` (the expansions' offers joined once, by the facade) is the facade's generator, and it
    offers exactly what `legal.legal_actions` offers looking the expansions up from the options, state by
    state, in a base game, a Letters of Marque game and a Deep Legends one."""
    from rules.dead_reckoning import legal

    saga = {"deep_legends": {"items": {"red": ["1.04"], "blue": ["1.07"], "green": ["1.09"]}}}
    for options in (None, {"expansions": ["letters-of-marque"]}, saga):
        state = api.new_game(COLORS[:3], 7, options)
        api.legal_actions(state, state.active or "table")
        game = state.game  # the game the facade looked up for this state, with its generator
        assert game is not None and game.legal is not None and game.actions.keys() >= GAME.actions.keys()
        rng = random.Random(7)
        for _ in range(300):
            if state.phase == "over":
                break
            who = state.active or "table"
            acts = api.legal_actions(state, who)
            assert acts == game.legal(state, who) == legal.legal_actions(state, who), (options, state.seq)
            state, _ = api.apply(state, {"seq": state.seq, "player": who, "action": rng.choice(acts)})
            assert state.game is game  # a copied state plays the same game
