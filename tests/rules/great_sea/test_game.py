"""Whole games, the end of the game, the facade and the CLI for The Great Sea."""

from __future__ import annotations

import json
import random

import pytest

from rules import api
from rules.errors import Illegal, Invalid
from smart_table.main import main

from .helpers import COLORS, act, clear_map, new, open_card, ship, started


def playout(n, seed, max_actions=20000):
    state, events = api.new_game_with_events(COLORS[:n], seed, {"game": "great-sea"})
    rng = random.Random(seed)
    k = 0
    while state.phase != "over" and k < max_actions:
        who = state.active or "table"
        acts = api.legal_actions(state, who)
        assert acts, f"{who} has no legal action at seq {state.seq}"
        state, ev = api.apply(state, {"seq": state.seq, "player": who, "action": rng.choice(acts)})
        events += ev
        k += 1
    return state, events


@pytest.mark.parametrize("n,seed", [(2, 11), (4, 12)])
def test_whole_game_plays_to_its_end_and_replays(n, seed):
    # "The game ends immediately once a player's Temple Marker reaches or exceeds the same space as either
    # their Combat or Trade Marker. The first player to achieve this is the winner."
    state, events = playout(n, seed)
    assert api.is_over(state)
    w = state.data["winner"]
    p = state.data["p"][w]
    from rules.great_sea.end_of_game import temple_space

    assert temple_space(state.data, w) <= max(p["combat"], p["trade"])
    assert events[-1]["type"] == "game_over" and events[-1]["winner"] == w
    assert api.replay(events) == state
    assert api.state_from_json(json.loads(json.dumps(api.state_to_json(state)))) == state
    # "There are no additional turns": nothing is legal once it is over
    assert all(api.legal_actions(state, c) == [] for c in state.players)


def test_end_trigger_on_trade_points():
    # "The same would be true for Black if they gained 1 Temple Point or 1 Trade Point."
    s = started(2)
    c = s.data["turn_player"]
    p = s.data["p"][c]
    p["trade"] = 5
    regions = [r for r, reg in s.data["regions"].items() if reg["temple"]]
    assert len(regions) == 3
    for r in regions:
        s.data["regions"][r]["post"] = [c, True]
    ship(s, c, "small", regions[0])
    p["dice"] = [3, 2, 1, 1, 1, 1]
    s = open_card(s, 2)
    r = next(x for x in regions if s.data["regions"][x]["foundations"])
    ship(s, c, "small", r)
    s, ev = act(s, "fortify", region=r, fort="stronghold")
    # 3 Temple Trade Posts and Control of one Temple region: 4 Temple Points, the Temple Marker on space 6
    # (sample start 10); 3 Trade Posts give 1 Trade Point: the Trade Marker reaches space 6
    assert s.data["p"][c]["temple"] == 4 and s.data["p"][c]["trade"] == 6
    assert api.is_over(s) and s.data["winner"] == c
    assert "game_over" in [e["type"] for e in ev]
    with pytest.raises(Illegal, match="over"):
        act(s, "end_turn", player=c)


def test_undo_within_the_turn():
    s = started(2)
    s2 = open_card(s, 1)
    s3, _ = act(s2, "develop_pip", die="develop")
    back, _ = api.apply(s3, {"seq": s3.seq, "player": s3.active, "action": {"type": "undo"}})
    assert back.data["p"] == s2.data["p"] and back.data["turn"] == s2.data["turn"]


def test_options_and_refusals():
    with pytest.raises(Invalid, match="unknown game"):
        api.new_game(["red", "blue"], 1, {"game": "chess"})
    with pytest.raises(Invalid, match="combat_cards"):
        new(2, combat_cards="fancy")
    # the default stays Dead Reckoning
    assert "grid" in api.new_game(["red", "blue"], 1).data
    assert "grid" in api.new_game(["red", "blue"], 1, {"game": "dead-reckoning"}).data
    s = started(2)
    with pytest.raises(Invalid, match="Action Card"):
        act(s, "take_action", card=9)
    clear_map(s)


def run(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_cli_rules_new_game_great_sea(tmp_path, capsys):
    g = tmp_path / "sea.json"
    code, out, _ = run(
        capsys, "rules", "new", "--game", "great-sea", "--players", "2", "--seed", "3", "--out", str(g)
    )
    assert code == 0 and "The Great Sea" in out and "phase setup" in out
    state = api.state_from_json(json.loads(g.read_text()))
    a = tmp_path / "a.json"
    a.write_text(json.dumps(api.legal_actions(state, state.active)[0]))
    code, out, _ = run(capsys, "rules", "apply", str(g), str(a))
    assert code == 0 and json.loads(out.splitlines()[0])["type"] == "choose_special"
    code, out, err = run(capsys, "rules", "apply", str(g), str(a))
    assert code != 0 and "Traceback" not in err
    code, out, _ = run(capsys, "rules", "replay", str(tmp_path / "sea.log.jsonl"), "--json")
    assert code == 0
    assert api.state_from_json(json.loads(out)) == api.state_from_json(json.loads(g.read_text()))
    code, out, _ = run(capsys, "rules", "show", str(g), "--as", state.players[0])
    assert code == 0 and "combat cards" in out
    code, _, err = run(
        capsys,
        "rules",
        "new",
        "--game",
        "great-sea",
        "--players",
        "2",
        "--seed",
        "3",
        "--out",
        str(g),
        "--bonus-tokens",
    )
    assert code != 0 and "Dead Reckoning's" in err


def test_referee_correction_and_setup_events():
    """The core's correction and the facade's setup_events serve The Great Sea too."""
    state, events = api.new_game_with_events(["red", "blue"], 9, {"game": "great-sea"})
    assert api.setup_events(state) == events
    while state.phase == "setup":
        who = state.active or "table"
        state, ev = api.apply(
            state, {"seq": state.seq, "player": who, "action": api.legal_actions(state, who)[0]}
        )
        events += ev
    who = state.active
    for a in ({"type": "take_action", "card": 1}, {"type": "develop_pip", "die": "develop"}):
        state, ev = api.apply(state, {"seq": state.seq, "player": who, "action": a})
        events += ev
    target = events[-1]["seq"]
    fixed, log = api.correct(events, target, {"type": "develop_pip", "die": "fortify"})
    assert fixed.data["p"][who]["dice"][1] == state.data["p"][who]["dice"][1] + 1
    assert api.replay(log) == fixed
