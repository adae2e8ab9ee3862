"""The Cleanup phase (rules/dead_reckoning/cleanup.py): draws, sleeving, Pirate mode."""

from __future__ import annotations

import pytest

from rules.errors import Illegal
from tests.rules.helpers import act, game, give_hand, place_island


@pytest.mark.parametrize(
    "hand, bonus, limit_islands, drawn",
    [
        (0, 0, 0, 4),
        (2, 0, 0, 4),
        (3, 0, 0, 3),
        (5, 0, 0, 1),
        (6, 0, 0, 0),
        (2, 1, 0, 4),
        (3, 1, 0, 3),
        (1, 2, 0, 5),
        (3, 0, 1, 4),
    ],
)
def test_cleanup_draw_counts(hand, bonus, limit_islands, drawn):
    state = game(2, seed=6)
    color = state.active
    p = state.data["p"][color]
    cards = sorted(p["cards"])
    p["hand"], p["deck"], p["discard"], p["played"] = cards[:hand], cards[hand:], [], []
    for _ in range(bonus):  # Crow's Nest style bonus draw sleeved on a played card
        c = p["deck"].pop(0)
        p["played"].append(c)
        p["cards"][c]["slots"]["top"] = "r3-07"
    if limit_islands:
        isl = place_island(state, "r1c3", "island-03")  # hand-limit icon
        isl["cubes"] = [color, color, None]
        isl["controller"] = color
    state, events = act(state, "end_turn")
    clean = [e for e in events if e["type"] == "cleanup"][0]
    assert clean["draw"] == drawn
    assert len(state.data["p"][color]["hand"]) == hand + drawn


def test_sleeving_rules():
    state = game(2, seed=7)
    color = state.active
    p = state.data["p"][color]
    give_hand(state, color, ["crew-1", "crew-2"])
    state, _ = act(state, "play_card", card="crew-1")
    p = state.data["p"][color]
    p["set_aside"] = ["r1-01", "r2-01", "r1-04"]  # slots: middle, middle, middle
    p["cards"]["crew-2"]["slots"]["middle"] = None
    with pytest.raises(Illegal):  # crew-2 was not played this turn
        act(state, "end_turn", sleeve=[{"advancement": "r1-01", "card": "crew-2"}])
    with pytest.raises(Illegal):  # two Advancements may not share a slot
        act(
            state,
            "end_turn",
            sleeve=[{"advancement": "r1-01", "card": "crew-1"}, {"advancement": "r2-01", "card": "crew-1"}],
        )
    # the other two cannot be sleeved anywhere: both may stay set aside
    state2, _ = act(state, "end_turn", sleeve=[{"advancement": "r1-01", "card": "crew-1"}])
    assert sorted(state2.data["p"][color]["set_aside"]) == ["r1-04", "r2-01"]
    # with a top-slot Advancement that could still be sleeved, keeping 3 aside is refused
    state.data["p"][color]["set_aside"] = ["r1-01", "r1-02", "r1-03"]  # middle, bottom, top
    with pytest.raises(Illegal) as err:
        act(state, "end_turn", sleeve=[])
    assert "at most 1" in err.value.message
    state3, _ = act(
        state,
        "end_turn",
        sleeve=[{"advancement": "r1-01", "card": "crew-1"}, {"advancement": "r1-02", "card": "crew-1"}],
    )
    assert state3.data["p"][color]["set_aside"] == ["r1-03"]
    assert state3.data["p"][color]["cards"]["crew-1"]["slots"] == {
        "top": None,
        "middle": "r1-01",
        "bottom": "r1-02",
    }
    assert state.data["p"][color]["cards"]["crew-1"]["slots"]["middle"] is None  # the old state is untouched


def test_cleanup_pirate_mode_and_sails():
    state = game(2, seed=8)
    color = state.active
    with pytest.raises(Illegal):
        act(state, "end_turn", pirate=True)  # in Harbor ships stay Mercantile
    state, _ = act(state, "set_sails")
    state, _ = act(state, "move", path=["r1c1"])
    state, _ = act(state, "end_turn", pirate=True)
    ship = state.data["p"][color]["ship"]
    assert ship["pirate"] and ship["sails"] == 0
    assert state.active != color and state.data["p"][color]["level_up"]
