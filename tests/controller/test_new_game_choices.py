"""The new-game screen chooses Dead Reckoning's expansions (issue 19: "an option chosen at setup (... the
table's config and the tablets' new-game screen)"), without a browser: the game's declaration offers the
engine's expansion names with the config's defaults, the controller's prompt carries them, an answer's
choices reach the engine's setup (and a bad one is refused in one sentence), the public state names the
expansions in play; and Letters of Marque's Ship Upgrade tiles are named as the data names them."""

from __future__ import annotations

import json
import random
import re
from typing import Any

from controller import games, words
from controller.games import dead_reckoning
from rules import api
from rules.dead_reckoning.expansions import EXPANSION_MODULES
from rules.dead_reckoning.letters_of_marque.data import lom_data
from tests.controller.test_games import play, sea_core


def as_the_service(table: dict[str, Any]) -> Any:
    """The controller service's hook (controller/service.py new_game_options) over a given [table] section."""

    def options(name: str, chosen: dict[str, Any] | None = None) -> dict[str, Any]:
        g = games.by_name(name)
        return g.new_options(g.choose(table, chosen) if chosen else table, False)

    return options


def test_dead_reckoning_offers_every_expansion_the_engine_knows_ticked_as_configured() -> None:
    choices = dead_reckoning.new_game_choices({"expansions": ["letters-of-marque"]})
    ids = [c["id"] for c in choices]
    assert ids == [*EXPANSION_MODULES, "deep-legends"]  # the engine's names (and the CLI's --expansion)
    assert {c["id"]: c["chosen"] for c in choices} == {"letters-of-marque": True, "deep-legends": False}
    assert [c["label"] for c in choices] == ["Letters of Marque", "Deep Legends"]
    assert all(c["key"] == "expansions" for c in choices)
    assert not any(c["chosen"] for c in dead_reckoning.new_game_choices({}))
    assert games.by_name("great-sea").new_game_choices({}) == []  # The Great Sea has no expansions


def test_the_chosen_expansions_are_the_engines_options() -> None:
    opts = as_the_service({"expansions": ["letters-of-marque"]})
    assert opts("dead-reckoning") == {"expansions": ["letters-of-marque"]}  # the config's default
    assert opts("dead-reckoning", {"expansions": []}) == {}  # unticked on the screen: the base game
    both = opts("dead-reckoning", {"expansions": ["letters-of-marque", "deep-legends"]})
    assert both == {
        "expansions": ["letters-of-marque"],
        "deep_legends": {"golden_island": True, "influence_tiles": True},
    }
    state = api.new_game(["red", "blue"], 4, both)  # the engine sets it up
    assert "letters-of-marque" in api.public_view(state)["expansions"]
    assert dead_reckoning.in_play(state.data["options"]) == ["Letters of Marque", "Deep Legends"]
    problem = games.by_name("dead-reckoning").choice_problem({"expansions": ["sea-dogs"]})
    assert problem is not None and "letters-of-marque" in problem and "\n" not in problem
    assert games.by_name("great-sea").choice_problem({"expansions": ["letters-of-marque"]})


def test_the_prompt_offers_the_choices_and_its_answer_sets_up_the_game(tmp_path: Any) -> None:
    core, rec, log = sea_core(tmp_path, ["red", "blue"])
    core.new_game_options = as_the_service({"expansions": []})
    core.new_game_choices = lambda name: games.by_name(name).new_game_choices({"expansions": []})
    try:
        play(core, random.Random(2))
        core.publish_all()
        prompt = next(p for p in rec.last("table/t1/prompts")["prompts"] if p["kind"] == "new_game")
        dr = next(o for o in prompt["options"] if o["id"] == "dead-reckoning")
        assert [(c["id"], c["chosen"]) for c in dr["choices"]] == [
            ("letters-of-marque", False),
            ("deep-legends", False),
        ]
        bad = core.handle_command(
            "red",
            json.dumps(
                {
                    "request_id": "1",
                    "prompt_id": "new_game",
                    "answer": {"game": "dead-reckoning", "expansions": ["sea-dogs"]},
                }
            ),
        )
        assert not bad["accepted"] and "Choose Dead Reckoning's expansions" in bad["reason"]
        assert core.game.name == "great-sea"  # nothing started
        ok = core.handle_command(
            "blue",
            json.dumps(
                {
                    "request_id": "2",
                    "prompt_id": "new_game",
                    "answer": {"game": "dead-reckoning", "expansions": ["letters-of-marque"]},
                }
            ),
        )
        assert ok["accepted"], ok
        assert core.state.data["options"]["expansions"] == ["letters-of-marque"]
        public = rec.last("table/t1/state")
        assert public["game"] == {
            "name": "dead-reckoning",
            "title": "Dead Reckoning",
            "expansions": ["Letters of Marque"],
        }
        assert "letters-of-marque" in public["view"]["expansions"]  # the Empire tracks' data
    finally:
        log.close()


def test_letters_of_marque_tiles_have_the_datas_own_names() -> None:
    """The rulebook's names ("Hallowed Gun"), from the data, never the id in words ("Lom Hallowed Gun")."""
    state = api.new_game(["red", "blue", "green"], 1, {"expansions": ["letters-of-marque"]})
    payload = words.decorate_public(api, state, {"view": api.public_view(state)})
    named = payload["words"]["upgrades"]
    for tile in lom_data().cards["upgrades"]:
        assert named[tile["id"]]["name"] == tile["name"]
    assert named["lom-hallowed-gun"]["name"] == "Hallowed Gun"
    assert named["basic-sail"]["name"] == "Basic Sail"  # the base game's sample tiles print no name
    assert not re.search(r"\bLom\b", json.dumps(payload["words"]))
