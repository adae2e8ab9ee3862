"""Whole 3-player games with Letters of Marque, played to their scored end by random legal choices: through
`rules.api` and through the CLI (`smart-table rules new --expansion letters-of-marque`, `legal`, `apply`)."""

from __future__ import annotations

import json
import random

from rules import api
from smart_table.main import main
from tests.rules.letters_of_marque.helpers import LOM, lgame

LOM_ACTIONS = {
    "discover_prime_cargo",
    "flip_prime_cargo",
    "load_prime",
    "unload_prime",
    "discard_prime",
    "trade_favour",
    "claim",
    "decline",
    "bolster_outpost",
    "outpost_to_harbor",
}


def _play(state, rng, events, check=None, limit=6000):
    n = 0
    while state.phase != "over" and n < limit:
        who = state.active or "table"
        acts = api.legal_actions(state, who)
        assert acts, "the active seat always has a legal action"
        state, evs = api.apply(state, {"seq": state.seq, "player": who, "action": rng.choice(acts)})
        events.extend(evs)
        if check is not None and n % 25 == 0:
            check(state)
        n += 1
    return state


def _no_face_down_identity(state):
    hidden = set(state.data["lom"]["bag"])
    for who in [None, *state.players]:
        text = json.dumps(api.public_view(state) if who is None else api.private_view(state, who))
        assert not any(f'"{t}"' in text for t in hidden)


def test_three_player_games_play_to_their_scored_end_and_replay():
    used: set[str] = set()
    for seed in (1, 2, 3, 4):
        state, events = api.new_game_with_events(["red", "blue", "green"], seed, LOM)
        events = list(events)
        state = _play(state, random.Random(seed), events, _no_face_down_identity)
        assert api.is_over(state), f"seed {seed} did not end"
        scores = api.public_view(state)["scores"]
        assert scores and set(scores["totals"]) == {"red", "blue", "green"}
        used |= {e["type"] for e in events} & LOM_ACTIONS
        assert api.state_to_json(api.replay(events)) == api.state_to_json(state)
        x = state.data["lom"]
        # every token is somewhere, once: face down (bag), face up on a board, at a Harbor, on a Ship,
        # discarded
        where = list(x["bag"]) + list(x["discard"])
        for parts in x["boards"].values():
            for spot in parts.values():
                where += spot["found"]
        for c in state.players:
            where += x["harbor"][c] + x["ship"][c][0] + x["ship"][c][1]
        assert sorted(where) == sorted(lom_tokens())
    assert {"discover_prime_cargo", "flip_prime_cargo", "load_prime", "discard_prime"} <= used


def lom_tokens():
    from rules.dead_reckoning.letters_of_marque.data import lom_data

    return list(lom_data().tokens)


def run(capsys, *argv):
    code = main(list(argv))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_a_whole_game_through_the_cli(tmp_path, capsys):
    """Set up by `rules new --expansion letters-of-marque`; the first 40 and the last 40 actions go through
    the shell (`rules legal`, `rules apply`), the middle through the same API with the same choices (a CLI
    command rewrites the state file each time: a whole game through it takes over a minute here); the log
    written along the way replays to the final state."""
    game = tmp_path / "g.json"
    log = tmp_path / "g.log.jsonl"
    code, out, err = run(
        capsys,
        "rules",
        "new",
        "--players",
        "3",
        "--seed",
        "5",
        "--expansion",
        "letters-of-marque",
        "--out",
        str(game),
    )
    assert code == 0, err
    assert api.state_from_json(json.loads(game.read_text())).data["options"]["expansions"] == [
        "letters-of-marque"
    ]
    action = tmp_path / "a.json"
    rng = random.Random(5)

    def shell(n):
        for _ in range(n):
            code, out, _ = run(capsys, "rules", "legal", str(game))
            if not out:
                return
            action.write_text(json.dumps(rng.choice([json.loads(x) for x in out.splitlines()])))
            code, out, err = run(capsys, "rules", "apply", str(game), str(action))
            assert code == 0, err

    shell(40)
    # how long the rest of the game is, with the same choices
    state = api.state_from_json(json.loads(game.read_text()))
    probe, prng, left = state, random.Random(), 0
    prng.setstate(rng.getstate())
    while probe.phase != "over":
        who = probe.active or "table"
        probe, _ = api.apply(
            probe, {"seq": probe.seq, "player": who, "action": prng.choice(api.legal_actions(probe, who))}
        )
        left += 1
    lines = []
    for _ in range(max(0, left - 40)):
        who = state.active or "table"
        a = rng.choice(api.legal_actions(state, who))
        state, evs = api.apply(state, {"seq": state.seq, "player": who, "action": a})
        lines += [json.dumps(e) for e in evs]
    game.write_text(json.dumps(api.state_to_json(state)))
    log.write_text(log.read_text() + "".join(x + "\n" for x in lines))
    shell(60)
    code, out, _ = run(capsys, "rules", "show", str(game))
    assert "phase over" in out and ("winner:" in out or "tie:" in out)
    code, out, _ = run(capsys, "rules", "legal", str(game))
    assert out == ""
    code, out, _ = run(capsys, "rules", "replay", str(log), "--json")
    assert api.state_from_json(json.loads(out)) == api.state_from_json(json.loads(game.read_text()))


def test_an_unknown_expansion_from_the_shell_is_one_sentence(tmp_path, capsys):
    code, _, err = run(
        capsys,
        "rules",
        "new",
        "--players",
        "3",
        "--seed",
        "5",
        "--expansion",
        "deep",
        "--out",
        str(tmp_path / "x.json"),
    )
    assert code != 0 and "letters-of-marque" in err and "Traceback" not in err


def test_expansion_state_survives_save_and_load():
    state = lgame(3, seed=9)
    again = api.state_from_json(json.loads(json.dumps(api.state_to_json(state))))
    assert again == state and api.legal_actions(again, again.active) == api.legal_actions(state, state.active)
