"""The player's own choices on the tablets (issue 16, item 9): a pending choice in the engine's state is a
`choice` prompt to that player, in the game's words, whose options are the engine's legal actions; the
answer sends the chosen action, and the prompt goes once nothing is left to choose. Rulebook (Battle Ship
Details, Plunder): "These must either be placed into a hold with available capacity on their Ship, on the
island where the battle is taking place, or discarded back to the supply."
"""

from __future__ import annotations

import json

from controller import words
from controller.core import TableCore
from controller.gamelog import GameLog


def test_plunder_that_did_not_fit_is_a_prompt_with_the_engines_options(tmp_path):
    log = GameLog(tmp_path / "c.db")
    core = TableCore(log, "c")
    core.open_game(["red", "blue"], seed=2)
    me = core.state.data["active"]
    other = next(c for c in core.state.data["players"] if c != me)
    core.state.data["p"][me]["plunder"] = {"cargo": 0, "coins": 2, "square": "harbor"}
    core.state.data["p"][me]["ship"]["holds"] = [[2, 1], [3, 0]]  # room for 1 Coin in hold 1
    core.publish_state()
    prompt = core.prompts.get(f"choice:plunder:{me}")
    assert prompt is not None and prompt.player == me and prompt.kind == "choice"
    assert "plunder (2 Coins)" in prompt.text and "discard" in prompt.text
    labels = [o["label"] for o in prompt.data["options"]]
    assert labels == ["1 Coin into hold 1", "Discard 1 Coin to the supply", "Discard 2 Coins to the supply"]
    assert f"choice:plunder:{other}" not in core.prompts
    # answering with an option's number sends that action; a bad number is refused with a sentence
    r = core.handle_command(
        me, json.dumps({"request_id": "x", "prompt_id": prompt.id, "answer": {"option": 9}})
    )
    assert r["accepted"] is False and "options" in r["reason"]
    r = core.handle_command(
        me, json.dumps({"request_id": "y", "prompt_id": prompt.id, "answer": {"option": 0}})
    )
    assert r["accepted"], r
    assert core.state.data["p"][me]["ship"]["holds"][0] == [2, 2]
    prompt = core.prompts[f"choice:plunder:{me}"]  # one Coin still waits: the options shrank
    assert [o["label"] for o in prompt.data["options"]] == ["Discard 1 Coin to the supply"]
    r = core.handle_command(
        me, json.dumps({"request_id": "z", "prompt_id": prompt.id, "answer": {"option": 0}})
    )
    assert r["accepted"], r
    assert f"choice:plunder:{me}" not in core.prompts and "plunder" not in core.state.data["p"][me]
    log.close()


def test_choice_options_and_room_making_jettisons_read_in_the_games_words():
    view = {"grid": {"r1c2": {"board": "island-06"}}}
    label = words.choice_option_label
    assert (
        label(view, {"type": "jettison", "hold": 1, "cargo": 2, "coins": 0}) == "Jettison 2 Cargo from hold 2"
    )
    assert label(view, {"type": "choose", "choice": "owed", "option": {"to": "discard"}}) == (
        "Let them go back to the supply"
    )
    assert label(view, {"type": "choose", "choice": "battle_cubes", "option": {"fewer": True}}) == (
        "Fight with fewer cubes"
    )
    take = label(view, {"type": "choose", "choice": "battle_cubes", "option": {"square": "r1c2"}})
    assert take.startswith("Take a cube from ") and "r1c2" not in take  # a place name, never an id
    plunder = {"what": "cargo", "to": "island", "count": 3}
    assert label(view, {"type": "choose", "choice": "plunder", "option": plunder}) == (
        "3 Cargo onto the island"
    )
    # the same words on the action buttons
    act = {"type": "jettison", "hold": 0, "cargo": 0, "coins": 1}
    assert words.action_words(None, view, "red", act, {})["label"] == "Jettison 1 Coin from hold 1"


def test_influence_out_of_cubes_names_the_island_its_cube_comes_back_from():
    # "you may remove one of your non-permanent cubes from any island": each offer says which island
    view = {"grid": {"r1c2": {"board": "island-06"}}}
    text = words._args_text(None, view, {"take_from": ["r1c2"]})
    assert text.startswith("your cube taken back from ") and "r1c2" not in text  # a place name, never an id
