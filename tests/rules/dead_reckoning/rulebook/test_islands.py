"""Rulebook: Island Control and Permanent Cubes (lines 331-342), Buildings and control (line 305)."""

from __future__ import annotations

from .support import act, place_island, play, ship, two


def _influence(state, me, card="deck-hand-1", level=1, **fields):
    state = play(state, card, level)
    state, events = act(state, "use_ability", ability=f"{card}:L{level}:0", **fields)
    return state, events


def test_control_needs_the_most_cubes_and_more_than_the_empty_slots():
    """ "You are considered to control an island if you meet both of these conditions:" "You have more cubes
    on the island than any other player (including permanent cubes)." "You have more cubes than the number
    of empty slots on the island.\""""
    state, me, other = two()
    isl = place_island(state, "r1c1", "island-07")  # 4 slots
    isl["cubes"] = [me, None, None, None]
    ship(state, me)["at"] = "r1c1"
    state, _ = _influence(state, me)  # 2 cubes, 2 empty slots: not more
    assert state.data["grid"]["r1c1"]["island"]["controller"] is None
    state, _ = _influence(state, me, "deck-hand-2")  # 3 cubes, 1 empty
    assert state.data["grid"]["r1c1"]["island"]["controller"] == me
    state2, me2, other2 = two()
    isl2 = place_island(state2, "r1c1", "island-07")  # 4 slots
    isl2["cubes"], isl2["permanent"] = [other2, None, None, None], {other2: 1}
    ship(state2, me2)["at"] = "r1c1"
    state2, _ = _influence(state2, me2, "buccaneer", 2)
    # 2 against 1 slot cube and 1 empty slot would be control; the permanent cube makes it a 2-2 tie
    assert state2.data["grid"]["r1c1"]["island"]["cubes"] == [other2, me2, me2, None]
    assert state2.data["grid"]["r1c1"]["island"]["controller"] is None


def test_a_permanent_cube_is_placed_on_taking_control_and_never_removed():
    """ "Permanent Cubes: Whenever you take control of an island, place an additional cube on the island in
    the "Permanent cube area" on the right side of the board; do not place it on one of the slots. This cube
    contributes to determining who has control of the island, but it can never be removed.\""""
    state, me, other = two()
    isl = place_island(state, "r1c1", "island-01")  # 2 slots
    isl["cubes"], isl["permanent"], isl["controller"] = [other, other], {other: 1}, other
    ship(state, me)["at"] = "r1c1"
    state, _ = _influence(state, me, "buccaneer", 4)  # replaces both slot cubes, never the permanent one
    isl = state.data["grid"]["r1c1"]["island"]
    assert isl["cubes"] == [me, me] and isl["permanent"] == {other: 1, me: 1} and isl["controller"] == me


def test_taking_control_again_adds_another_permanent_cube():
    """ "If you take and lose control of the same island multiple times, you will end up with multiple
    permanent cubes on that island.\""""
    state, me, other = two()
    isl = place_island(state, "r1c1", "island-01")
    isl["cubes"], isl["permanent"], isl["controller"] = [other, other], {me: 1}, other
    ship(state, me)["at"] = "r1c1"
    state, _ = _influence(state, me, "buccaneer", 2)
    assert state.data["grid"]["r1c1"]["island"]["permanent"] == {me: 2}


def test_control_passing_to_another_player_removes_the_buildings():
    """ "If you control an island, you control all the Buildings on that island. Whenever control of an island
    changes from one player to another, remove all Buildings on the island.\""""
    state, me, other = two()
    isl = place_island(state, "r1c1", "island-01")
    isl["cubes"], isl["controller"] = [other, other], other
    isl["buildings"]["outpost"] = True
    state.data["supply"]["outpost"] -= 1
    ship(state, me)["at"] = "r1c1"
    state, events = _influence(state, me, "buccaneer", 2)
    isl = state.data["grid"]["r1c1"]["island"]
    assert isl["controller"] == me and not any(isl["buildings"].values())
    assert state.data["supply"]["outpost"] == 4
