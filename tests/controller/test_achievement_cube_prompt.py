"""An achievement cube earned with an empty supply on the tablets (issue 16, item 9): the engine's pending
`achievement_cube` choice is a `choice` prompt to that player, in the game's words (place names, the
Achievement's name, never an id), whose options are the engine's legal actions. Rulebook (Running out of
cubes): "Anytime you need a cube but don't have any available, you may remove one of your non-permanent
cubes from any island and use that as the cube you need."
"""

from __future__ import annotations

import json

from controller import words
from controller.core import TableCore
from controller.gamelog import GameLog
from tests.rules.helpers import place_island


def test_an_achievement_cube_owed_is_a_prompt_in_the_games_words(tmp_path):
    log = GameLog(tmp_path / "c.db")
    core = TableCore(log, "c")
    core.open_game(["red", "blue"], seed=2)
    me = core.state.data["active"]
    d = core.state.data
    for sq in ("r1c2", "r1c3"):
        isl = place_island(core.state, sq, "island-05")
        isl["cubes"] = [me, None, None]
    d["p"][me]["cubes"] = 0
    d["achievement_cubes"]["explorer"][me] = 2
    d["p"][me]["cubes_owed"] = ["explorer"]  # as a move that explored with an empty supply leaves it
    core.publish_state()
    prompt = core.prompts.get(f"choice:achievement_cube:{me}")
    assert prompt is not None and prompt.player == me and prompt.kind == "choice"
    assert prompt.text.startswith("You earned a cube on Explorer but your supply is empty")
    labels = [o["label"] for o in prompt.data["options"]]
    assert len(labels) == 3 and labels[2] == "Leave the Explorer cube unplaced"
    assert all(lb.startswith("Explorer: take a cube from ") and "r1c" not in lb for lb in labels[:2])
    r = core.handle_command(
        me, json.dumps({"request_id": "y", "prompt_id": prompt.id, "answer": {"option": 1}})
    )
    assert r["accepted"], r
    assert core.state.data["grid"]["r1c3"]["island"]["cubes"].count(me) == 0
    assert core.state.data["grid"]["r1c2"]["island"]["cubes"].count(me) == 1
    assert core.state.data["achievement_cubes"]["explorer"][me] == 3
    assert f"choice:achievement_cube:{me}" not in core.prompts
    log.close()


def test_achievement_cube_events_read_in_the_games_words():
    view = {"grid": {"r1c2": {"board": "island-06"}}}
    text = words.event_text(
        None,
        view,
        {"type": "achievement_cube_placed", "player": "red", "achievement": "legendary", "square": "r1c2"},
    )
    assert (
        text.startswith("Red places a cube from ") and text.endswith(" on Legendary") and "r1c2" not in text
    )
    supply = {
        "type": "choose",
        "choice": "achievement_cube",
        "option": {"achievement": "expert_sailors", "supply": True},
    }
    assert words.choice_option_label(view, supply) == "Expert Sailors: a cube from your supply"
    left = {"type": "achievement_cube_unplaced", "player": "blue", "achievement": "expert_sailors"}
    assert words.event_text(None, view, left) == "Blue leaves a cube for Expert Sailors unplaced"
