"""The end-of-game tie played out as a battle (issue 16, items 7 and 8).

Rulebook, "End of the game": "In case of a tie, the tied players count up all the Cannons on their Ship and
on all the cards in their deck and take that many of their cubes (and can use cubes from the islands if
necessary). All at once, drop all those cubes in the tower. Resolve exploding shots but not Battle
abilities. The most Battle strength wins the game. If still tied, repeat the battle. A tied battle like this
may involve more than 2 players at the same time."
"""

from __future__ import annotations

from typing import Any

import pytest

from rules import api
from rules.battle import DEFAULT_BOARD, BattleSetup, resolve_battle
from rules.battle.errors import BattleRecordError
from rules.core.state import GameState
from rules.errors import RulesError
from tests.rules.helpers import act, game


def _tied_game(n: int = 3, **options: Any) -> GameState:
    """n players with the same score at the end of the final round."""
    state = game(n, seed=2, **options)
    for c in state.players:
        for a in ("explorer", "settler", "builder", "capitalist"):
            state.data["achievements"][a].append(c)
    for _ in range(n):
        state, _ = act(state, "end_turn")
    return state


def _record(setup: dict[str, Any], drops: list[list[tuple[str, str]]]) -> dict[str, Any]:
    """A record whose drops put the cubes (colour, zone) on the board, one list per drop."""
    steps = []
    for i, board in enumerate(drops):
        steps.append(
            {
                "step": "drop",
                "reason": "initial" if i == 0 else "exploding",
                "board": [{"color": c, "zone": z} for c, z in board],
            }
        )
    return {"battle_id": setup["battle_id"], "board": DEFAULT_BOARD, "steps": steps, "corrections": []}


def _resolve(state: GameState, record: dict[str, Any], player: str = "table") -> tuple[GameState, list]:
    return api.apply(
        state, {"seq": state.seq, "player": player, "action": {"type": "resolve_battle", "record": record}}
    )


def test_a_tie_starts_a_battle_of_every_tied_player_not_a_reported_tie():
    # "A tied battle like this may involve more than 2 players at the same time."
    state = _tied_game(3)
    d = state.data
    assert state.phase == "tiebreak" and not api.is_over(state)
    setup = api.public_view(state)["battle"]
    assert setup["kind"] == "tiebreak"
    sides = [setup["attacker"], setup["defender"], *setup["more_sides"]]
    assert sorted(s["name"] for s in sides) == sorted(state.players)
    assert d["scores"]["tie_break_needed"] == [s["name"] for s in sides]
    # "Resolve exploding shots but not Battle abilities": no side carries any
    assert all(s["abilities"] == [] for s in sides)
    # the table (or a tied player) reports the drop; nobody takes a turn
    assert [a["type"] for a in api.legal_actions(state, "table")] == ["resolve_battle"]
    with pytest.raises(RulesError, match="game is over"):
        act(state, "jettison", player=state.players[0], hold=0, cargo=1, coins=0)


def test_cubes_are_the_cannons_on_the_ship_and_on_all_the_cards_in_the_deck():
    # "count up all the Cannons on their Ship and on all the cards in their deck and take that many cubes"
    state = game(2, seed=2)
    d = state.data
    red, blue = state.players
    p = d["p"][red]
    gunners = [c for c, card in p["cards"].items() if card["sailor"] == "gunner"]
    p["cards"] = {**p["cards"], gunners[0]: {**p["cards"][gunners[0]], "level": 2}}  # 1 Cannon (anywhere)
    p["ship"]["hull"] = [["advanced-guns"], [], [], []]  # 2 Cannons on a hull space
    p["ship"]["holds"] = [[1, 0], [0, 0]]  # its hold is loaded: still counted when the game is over
    for c in state.players:
        for a in ("explorer", "settler", "builder", "capitalist"):
            d["achievements"][a].append(c)
    d["p"][blue]["chest"] += 2  # red's Advanced Upgrade scores 2: blue's 2 Coins keep the tie
    for _ in range(2):
        state, _ = act(state, "end_turn")
    scores = state.data["scores"]
    if scores["winner"] is not None:
        pytest.fail(f"the set-up should tie, got {scores['totals']}")
    setup = BattleSetup.from_json(api.public_view(state)["battle"])
    cubes = {s.name: s.cubes for s in setup.sides()}
    assert cubes == {red: 1 + 2 + 1, blue: 1}


def test_most_strength_wins_and_only_the_still_tied_players_repeat():
    # "The most Battle strength wins the game. If still tied, repeat the battle."
    state = _tied_game(3)
    a, b, c = api.public_view(state)["scores"]["tie_break_needed"]
    setup = api.public_view(state)["battle"]
    rec = _record(setup, [[(a, "str-2"), (b, "str-1a"), (c, "str-2")]])
    state, events = _resolve(state, rec)
    assert state.phase == "tiebreak"
    again = api.public_view(state)["battle"]
    assert again["battle_id"] == "tiebreak-2"
    assert [again["attacker"]["name"], again["defender"]["name"]] == [a, c] and "more_sides" not in again
    assert state.data["scores"]["tie_break"] == [{"battle_id": "tiebreak-1", "strength": {a: 2, b: 1, c: 2}}]
    rec = _record(again, [[(a, "str-1a"), (c, "str-2")]])
    state, events = _resolve(state, rec, player=c)  # a tied player may report it too
    assert api.is_over(state) and state.data["scores"]["winner"] == c
    assert state.data["scores"]["tie_break_needed"] == []
    over = [e for e in events if e["type"] == "game_over"]
    assert over and over[0]["winner"] == c


def test_exploding_shots_resolve_in_the_tie_break():
    # "Resolve exploding shots": the cube in the exploding zone comes back with one extra of its colour
    state = _tied_game(2)
    a, b = api.public_view(state)["scores"]["tie_break_needed"]
    setup = api.public_view(state)["battle"]
    early = _record(setup, [[(a, "explode"), (b, "str-2")]])
    with pytest.raises(RulesError, match="exploding drop"):
        _resolve(state, early)  # the re-drop is owed before the battle can end
    rec = _record(setup, [[(a, "explode"), (b, "str-2")], [(a, "str-2"), (a, "str-1a"), (b, "str-2")]])
    state, _ = _resolve(state, rec)
    assert state.data["scores"]["winner"] == a  # 3 against 2


def test_no_battle_abilities_in_the_tie_break():
    # "Resolve exploding shots but not Battle abilities."
    state = _tied_game(2)
    setup = BattleSetup.from_json(api.public_view(state)["battle"])
    a, b = setup.attacker.name, setup.defender.name
    rec = _record(api.public_view(state)["battle"], [[(a, "str-2"), (b, "str-2")]])
    rec["steps"].append({"step": "pass", "side": "attacker"})
    with pytest.raises(BattleRecordError, match="tie-break resolves no Battle abilities"):
        resolve_battle(setup, rec)


def test_players_without_a_single_cube_share_the_win():
    # Repeating a battle nobody can drop a cube in changes nothing: the tie stands (docs/battles.md).
    state = game(2, seed=2)
    d = state.data
    for c in state.players:
        for a in ("explorer", "settler", "builder", "capitalist"):
            d["achievements"][a].append(c)
        d["p"][c]["cubes"] = 0
    for _ in range(2):
        state, _ = act(state, "end_turn")
    setup = api.public_view(state)["battle"]
    assert setup["attacker"]["cubes"] == setup["defender"]["cubes"] == 0
    state, _ = _resolve(state, _record(setup, [[]]))
    assert api.is_over(state)
    assert state.data["scores"]["winner"] is None
    assert sorted(state.data["scores"]["shared_win"]) == sorted(state.players)


def test_a_random_tie_break_in_simulation_ends_the_game():
    state = _tied_game(3)
    for _ in range(50):
        if api.is_over(state):
            break
        (a,) = api.legal_actions(state, "table")
        state, _ = api.apply(state, {"seq": state.seq, "player": "table", "action": a})
    assert api.is_over(state)
    scores = state.data["scores"]
    assert scores["winner"] in state.players or scores.get("shared_win")
    last = scores["tie_break"][-1]["strength"]
    if scores["winner"] is not None:
        assert last[scores["winner"]] == max(last.values())
