"""Sharing between states: a command never changes the state it was applied to.

`apply` copies the state (sharing only what is never edited: the turn's undo base, the game's creation
and the copy-on-write Sailor card mappings), so an effect that edited a shared part in place would show
up here as an old state that moved."""

from __future__ import annotations

import random

from rules import api
from rules.core.state import copy_data
from tests.rules.helpers import COLORS, game, place_island


def test_apply_leaves_every_earlier_state_as_it_was():
    for seed in (3, 11):
        state = api.new_game(COLORS[: 2 + seed % 3], seed)
        rng = random.Random(seed)
        history: list[tuple[api.GameState, dict]] = []
        while state.phase != "over" and len(history) < 700:
            who = state.active or "table"
            history.append((state, api.state_to_json(state)))
            state, _ = api.apply(
                state, {"seq": state.seq, "player": who, "action": rng.choice(api.legal_actions(state, who))}
            )
        # checked at the end: a later action must not reach back into a state shared with an earlier one
        for old, snapshot in history:
            assert api.state_to_json(old) == snapshot, (
                f"state {snapshot['data']['seq']} changed after later commands"
            )


def test_a_row_box_emptied_by_one_refill_leaves_the_other_space_empty():
    # a cleanup refills two empty row-2 spaces while the row-2 box holds one card: the first draw takes it,
    # the second space stays empty and the game goes on (before the fix the second draw came from an empty
    # box and the game stopped)
    state = game(3, seed=16)
    d = state.data
    last = d["decks"]["2"][0]
    d["decks"]["2"] = [last]
    for sq in ("r2c1", "r2c2"):
        place_island(state, sq, ["island-05", "island-06"][sq == "r2c2"])
        d["grid"][sq]["card"] = None
    me = state.active
    state, events = api.apply(state, {"seq": state.seq, "player": me, "action": {"type": "end_turn"}})
    cards = [state.data["grid"][sq]["card"] for sq in ("r2c1", "r2c2")]
    assert sorted(cards, key=str) == sorted([last, None], key=str) and state.data["decks"]["2"] == []
    assert not state.data["pending"] and state.active != me  # the next turn started
    assert [e["action"]["card"] for e in events if e["type"] == "draw_advancement"] == [last]


def test_the_turn_base_keeps_the_cards_the_turn_started_with_even_in_place():
    # the undo base holds the Sailor card mappings by reference (copy-on-write): a level-up or sleeve later
    # in the turn, applied in place, must not reach the base, and undo must bring the turn's cards back
    from rules.core.state import base_data

    seed = 5
    state = api.new_game(COLORS[:3], seed)
    rng = random.Random(seed)
    start: dict[int, dict] = {}
    checked = undone = 0
    while state.phase != "over":
        d = state.data
        if d["phase"] == "main" and d["turn_no"] not in start:
            start[d["turn_no"]] = {c: copy_data(p["cards"]) for c, p in d["p"].items()}
        if d["phase"] == "main" and d["turn_base"] is not None:
            base = base_data(d["turn_base"])
            assert {c: p["cards"] for c, p in base["p"].items()} == start[d["turn_no"]]
            checked += 1
        who = state.active or "table"
        acts = api.legal_actions(state, who)
        if d["turn_log"] and d["turn_log"][-1]["type"] == "level_up" and rng.random() < 0.5:
            try:
                undo, _ = api.apply(
                    state,
                    {"seq": d["seq"], "player": d["turn_log"][-1]["player"], "action": {"type": "undo"}},
                )
            except api.RulesError:
                pass
            else:
                lvl = d["turn_log"][-1]["action"]["card"]
                owner = d["turn_log"][-1]["player"]
                was = {c: copy_data(p["cards"]) for c, p in base_data(d["turn_base"])["p"].items()}
                assert undo.data["p"][owner]["cards"][lvl] == was[owner][lvl]
                undone += 1
        state, _ = api.apply(
            state, {"seq": state.seq, "player": who, "action": rng.choice(acts)}, inplace=True
        )
    assert checked > 100
    assert undone > 0
