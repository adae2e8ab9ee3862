"""`smart-table rules ...` end to end through the real CLI entry point, with real files."""

from __future__ import annotations

import json
import random
import subprocess
import sys

from rules import api
from smart_table.main import main


def run(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_new_apply_show_replay(tmp_path, capsys):
    game = tmp_path / "game.json"
    code, out, _ = run(capsys, "rules", "new", "--players", "3", "--seed", "7", "--out", str(game))
    assert code == 0 and "phase main" in out
    state = api.state_from_json(json.loads(game.read_text()))
    action = tmp_path / "a.json"
    action.write_text(json.dumps({"type": "set_sails"}))
    code, out, _ = run(capsys, "rules", "apply", str(game), str(action))
    assert code == 0 and json.loads(out.splitlines()[0])["type"] == "set_sails"
    code, out, err = run(capsys, "rules", "apply", str(game), str(action))
    assert code != 0 and err.startswith("smart-table: illegal: Sails are set once per turn")
    assert "Traceback" not in err
    code, out, _ = run(capsys, "rules", "show", str(game), "--as", state.active)
    assert code == 0 and f"you ({state.active}): chest 15" in out
    code, out, _ = run(capsys, "rules", "show", str(game), "--json")
    assert code == 0 and "chest" not in out  # the public view has no chests
    code, out, _ = run(capsys, "rules", "replay", str(tmp_path / "game.log.jsonl"), "--json")
    assert code == 0
    assert api.state_from_json(json.loads(out)) == api.state_from_json(json.loads(game.read_text()))


def test_a_game_played_to_the_end_from_the_shell(tmp_path, capsys):
    """The last 25 actions of a whole game go through the shell (the rest through the same API, same
    choices, to keep the test short); the log written along the way replays to the final state."""
    game = tmp_path / "g.json"
    log = tmp_path / "g.log.jsonl"
    run(capsys, "rules", "new", "--players", "2", "--seed", "3", "--out", str(game))
    start = api.state_from_json(json.loads(game.read_text()))

    def choices(state, rng):
        while state.phase != "over":
            who = state.active or "table"
            a = rng.choice(api.legal_actions(state, who))
            yield who, a
            state, _ = api.apply(state, {"seq": state.seq, "player": who, "action": a})

    total = sum(1 for _ in choices(start, random.Random(4)))
    state, rng, lines = start, random.Random(4), []
    for _ in range(total - 25):
        who = state.active or "table"
        a = rng.choice(api.legal_actions(state, who))
        state, evs = api.apply(state, {"seq": state.seq, "player": who, "action": a})
        lines += [json.dumps(e) for e in evs]
    game.write_text(json.dumps(api.state_to_json(state)))
    log.write_text(log.read_text() + "".join(x + "\n" for x in lines))
    action = tmp_path / "a.json"
    for _ in range(25):
        code, out, _ = run(capsys, "rules", "legal", str(game))
        options = [json.loads(x) for x in out.splitlines()]
        action.write_text(json.dumps(rng.choice(options)))
        code, out, err = run(capsys, "rules", "apply", str(game), str(action))
        assert code == 0, err
    code, out, _ = run(capsys, "rules", "show", str(game))
    assert "phase over" in out and ("winner:" in out or "tie:" in out)
    code, out, _ = run(capsys, "rules", "legal", str(game))
    assert out == ""  # nothing is legal once the game is over
    code, out, _ = run(capsys, "rules", "replay", str(log), "--json")
    assert api.state_from_json(json.loads(out)) == api.state_from_json(json.loads(game.read_text()))


def test_bad_inputs_get_one_line_and_nonzero_exit(tmp_path, capsys):
    game = tmp_path / "game.json"
    for argv in (
        ("rules", "show", str(tmp_path / "missing.json")),
        ("rules", "new", "--players", "5", "--seed", "1", "--out", str(game)),
        ("rules", "replay", str(tmp_path / "missing.jsonl")),
    ):
        code, _, err = run(capsys, *argv)
        assert code != 0 and err.count("\n") == 1 and "Traceback" not in err
    (tmp_path / "junk.json").write_text("{not json")
    code, _, err = run(capsys, "rules", "show", str(tmp_path / "junk.json"))
    assert code != 0 and "not valid JSON" in err
    (tmp_path / "other.json").write_text(json.dumps({"hello": 1}))
    code, _, err = run(capsys, "rules", "show", str(tmp_path / "other.json"))
    assert code != 0 and "not a saved game" in err
    run(capsys, "rules", "new", "--players", "2", "--seed", "1", "--out", str(game))
    before = game.read_text()
    (tmp_path / "act.json").write_text(json.dumps({"type": "load", "hold": 7, "cargo": 1}))
    code, _, err = run(capsys, "rules", "apply", str(game), str(tmp_path / "act.json"))
    assert code != 0 and err.startswith("smart-table: invalid:")
    assert game.read_text() == before  # nothing lost, nothing changed
    log = tmp_path / "game.log.jsonl"
    log.write_text(log.read_text() + "{broken\n")
    code, _, err = run(capsys, "rules", "replay", str(log))
    assert code != 0 and "line" in err


def test_console_entry_point_runs_as_a_process(tmp_path):
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "smart_table",
            "rules",
            "new",
            "--players",
            "2",
            "--seed",
            "2",
            "--out",
            str(tmp_path / "x.json"),
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert out.returncode == 0 and (tmp_path / "x.log.jsonl").exists()


def test_observed_chance_from_the_shell(tmp_path, capsys):
    game = tmp_path / "obs.json"
    code, out, _ = run(
        capsys, "rules", "new", "--players", "2", "--seed", "5", "--out", str(game), "--observed-chance"
    )
    assert code == 0 and "waiting for the table: reveal_board r1c1" in out
    code, out, _ = run(capsys, "rules", "legal", str(game))
    options = [json.loads(x) for x in out.splitlines()]
    assert options and all(o["type"] == "reveal_board" and o["square"] == "r1c1" for o in options)
    act = tmp_path / "r.json"
    act.write_text(json.dumps({"type": "reveal_board", "square": "r1c1", "board": "island-99"}))
    code, _, err = run(capsys, "rules", "apply", str(game), str(act))
    assert code != 0 and err.startswith("smart-table: invalid:") and "re-read the board" in err
    act.write_text(json.dumps(options[0]))
    code, out, _ = run(capsys, "rules", "apply", str(game), str(act))
    assert code == 0 and json.loads(out.splitlines()[0])["player"] == "table"
    code, out, _ = run(capsys, "rules", "show", str(game))
    assert "draw_advancement r1c1" in out
