"""The generator's whole offers are shared, read-only: `legal.main_actions` offers the same dict objects
(`SET_SAILS`, `BUY`, `END_TURN`, `MOVE_TO`, `LOAD_ONE`, `UNLOAD_ALL`, a card's `card_offers`, an ability's
offer in its `offer_plan`) in every state, so an offered action edited by anyone would change what later
states offer. These tests play random games (base, Letters of Marque and Deep Legends; in place and
copying; seeds beyond the benchmark's) and fail when any shared offer differs from what it was built as
(docs/bench/rules.md, "Letters of Marque, round 7")."""

from __future__ import annotations

import random
from typing import Any

import pytest

from rules import api
from rules.dead_reckoning import legal
from rules.dead_reckoning.cards import Catalog, catalog

COLORS = ["red", "blue", "green", "yellow"]
SAGA = {"deep_legends": {"items": {"red": ["1.04"], "blue": ["1.07"]}}}


def _edited(cat: Catalog) -> list[str]:
    """Every shared offer that no longer reads as it was built, by name."""
    bad = []
    fixed: list[tuple[str, dict[str, Any], dict[str, Any]]] = [
        ("SET_SAILS", legal.SET_SAILS, {"type": "set_sails"}),
        ("BUY", legal.BUY, {"type": "buy"}),
        ("ATTACK_MERCHANT", legal.ATTACK_MERCHANT, {"type": "attack_merchant"}),
        ("ATTACK_BUILDING", legal.ATTACK_BUILDING, {"type": "attack_building"}),
        ("MASTER_MERCHANT", legal.MASTER_MERCHANT, {"type": "master_merchant"}),
        ("END_TURN", legal.END_TURN, {"type": "end_turn", "pirate": False, "sleeve": []}),
        ("END_TURN_PIRATE", legal.END_TURN_PIRATE, {"type": "end_turn", "pirate": True, "sleeve": []}),
    ]
    fixed += [(f"MOVE_TO[{sq}]", a, {"type": "move", "path": [sq]}) for sq, a in legal.MOVE_TO.items()]
    for h in (0, 1):
        fixed += [
            (f"LOAD_ONE[{h}][0]", legal.LOAD_ONE[h][0], {"type": "load", "hold": h, "cargo": 1}),
            (f"LOAD_ONE[{h}][1]", legal.LOAD_ONE[h][1], {"type": "load", "hold": h, "coins": 1}),
        ]
        for k, what in enumerate(("cargo", "coins")):
            fixed += [
                (f"UNLOAD_ALL[{h}][{k}][{n}]", a, {"type": "unload", "hold": h, what: n})
                for n, a in enumerate(legal.UNLOAD_ALL[h][k])
            ]
    for cid, (play, level) in cat.card_offers.items():
        fixed += [
            (f"card_offers[{cid}]", play, {"type": "play_card", "card": cid}),
            (f"card_offers[{cid}]", level, {"type": "level_up", "card": cid}),
        ]
    for plan in cat.plan_memo.values():
        for aid, _ab, choice, _alt, sure in plan:
            if sure is not None:
                want: dict[str, Any] = {"type": "use_ability", "ability": aid, "args": {}}
                if choice is not None:
                    want = {"type": "use_ability", "ability": aid, "choice": choice, "args": {}}
                fixed.append((f"plan_memo {aid}", sure, want))
    for name, got, want in fixed:
        # compared with the key order too: the tablets list the JSON as it comes
        if got != want or list(got) != list(want):
            bad.append(name)
    return bad


@pytest.mark.parametrize("inplace", [True, False], ids=["in-place", "copying"])
@pytest.mark.parametrize(
    "options", [None, {"expansions": ["letters-of-marque"]}, SAGA], ids=["base", "letters-of-marque", "saga"]
)
def test_no_shared_offer_is_edited_by_playing(options: dict[str, Any] | None, inplace: bool) -> None:
    shared = 0
    for seed in range(201, 203):
        state = api.new_game(COLORS[: 2 + seed % 3], seed, options)
        cat = catalog(state.data)  # type: ignore[arg-type]
        rng = random.Random(seed)
        seen: dict[tuple[str, str], int] = {}
        while state.phase != "over":
            who = state.active or "table"
            acts = api.legal_actions(state, who)
            for a in acts:  # the same card's play offer is the very same dict in every state
                if a["type"] == "play_card":
                    key = (who, a["card"])
                    if seen.setdefault(key, id(a)) == id(a):
                        shared += 1
            state, _ = api.apply(
                state, {"seq": state.seq, "player": who, "action": rng.choice(acts)}, inplace=inplace
            )
            assert not _edited(cat), (options, seed, state.seq, _edited(cat))
    assert shared > 500  # the offers checked are the ones the games were offered


def test_an_edited_shared_offer_is_found() -> None:
    """The check above can fail: an offer edited after it was offered is named."""
    state = api.new_game(COLORS[:2], 1)
    cat = catalog(state.data)  # type: ignore[arg-type]
    acts = api.legal_actions(state, state.active or "table")
    play = next(a for a in acts if a["type"] == "play_card")
    end = next(a for a in acts if a["type"] == "end_turn")
    cid = play["card"]
    assert not _edited(cat)
    try:
        play["card"] = "someone-else"
        end["sleeve"].append({"advancement": "x", "card": "y"})
        assert _edited(cat) == ["END_TURN", f"card_offers[{cid}]"]
    finally:  # put back: the offers are shared by every later game of this catalogue
        play["card"] = cid
        end["sleeve"].clear()
    assert not _edited(cat)
