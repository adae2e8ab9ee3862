"""What the Great Sea's views gained for the tablets (issue 21, "the tablets show ..."), without a browser:
the 2-player reef from the map's data, each Fort grid as the engine reads it (`fort_places`), a lost
Combat's retreat (who, which Ships, to which Shipyards), all of it in the game's words with no engine id."""

from __future__ import annotations

import random
import re
from typing import Any

from controller.games import great_sea_words as words
from rules import api
from rules.great_sea.map import spec
from rules.great_sea.upgrades import fort_stats

SEA = {"game": "great-sea"}
ENGINE_ID = re.compile(r"\b[a-z]+_[a-z_]+\b|\br\d+c\d+\b|\bNone\b|:\d+\b")


def play(players: list[str], seed: int, until: Any, attack: float = 0.7, limit: int = 4000) -> Any:
    state = api.new_game(players, seed, SEA)
    rng = random.Random(seed)
    for _ in range(limit):
        if until(state) or api.is_over(state):
            return state
        p = state.data["active"]
        legal = api.legal_actions(state, p)
        fight = [a for a in legal if a["type"] == "initiate_combat"]
        action = fight[0] if fight and rng.random() < attack else rng.choice(legal)
        state, _ = api.apply(state, {"seq": state.seq, "player": p, "action": action})
    return state


def test_the_reef_is_the_maps_own_and_only_on_the_two_player_side() -> None:
    two = api.public_view(api.new_game(["red", "blue"], 1, SEA))
    assert two["reef"] == [list(p) for p in spec("2")["reef"]] and two["reef"]
    # "the rocky reef ... separates those adjoining regions, causing them not to be adjacent"
    for a, b in two["reef"]:
        assert b not in spec("2")["regions"][a]["adjacent"]
    three = api.public_view(api.new_game(["red", "blue", "green"], 1, SEA))
    assert three["reef"] == []
    assert words.public_words(two)["reef"] and words.public_words(three)["reef"] is None


def test_fort_grids_show_what_the_engine_counts() -> None:
    state = play(
        ["red", "blue", "green"], 4, lambda s: any(p["fort_tiles"]["outpost"] for p in s.data["p"].values())
    )
    view = api.public_view(state)
    color = next(c for c in view["players"] if view["p"][c]["fort_tiles"]["outpost"])
    p = view["p"][color]
    assert p["fort_places"]["outpost"] == state.data["p"][color]["fort_places"]["outpost"]
    grid = p["fort_grids"]["outpost"]
    assert grid[0][0].get("locked") and grid[0][0]["tile"] is None  # the starting Health, never covered
    # The icons showing on the grid are what the engine adds to the Fort's printed base.
    shown: dict[str, int] = {}
    for row in grid:
        for cell in row:
            for k, n in cell["icons"].items():
                shown[k] = shown.get(k, 0) + n
    stats = fort_stats(state.data["p"][color], "outpost")
    for k, n in shown.items():
        assert stats.get(k, 0) >= n
    texts = words.fort_grid_words(view)[color]["outpost"]
    assert texts[0][0].startswith("Starting Health")
    assert any(t.startswith(("Fort tile", "Small Fort tile")) for row in texts for t in row)
    assert not [t for row in texts for t in row if ENGINE_ID.search(t)]


def test_the_retreat_says_who_retreats_which_ships_and_where() -> None:
    state = play(["red", "blue", "green"], 4, lambda s: (s.data["combat"] or {}).get("stage") == "retreat")
    c = state.data["combat"]
    assert c is not None and c["stage"] == "retreat"
    view = api.public_view(state)
    r = view["combat"]["retreat"]
    assert r["player"] == c["loser"]
    assert r["ships"] == [
        s["cls"] for s in state.data["regions"][c["region"]]["ships"] if s["owner"] == c["loser"]
    ]
    home = state.data["p"][c["loser"]]["home"]
    assert all(regions[0] == home for regions in r["shipyards"].values())  # home first
    legal = api.legal_actions(state, c["loser"])
    for a in legal:  # every option the engine offers goes to the Shipyards the view names
        assert all(to in r["shipyards"][cls] for to, cls in zip(a["to"], r["ships"], strict=True))
    cw = words.combat_words(view)
    assert cw is not None
    text = cw["retreat"]
    assert text.startswith(f"{c['loser'].capitalize()} retreats") and words.region_name(home) in text
    labels = [words.action_words(api.private_view(state, c["loser"]), c["loser"], a)["label"] for a in legal]
    assert labels[0].startswith("Retreat your") and "(your home)" in labels[0]
    assert len(set(labels)) == len(labels)
    assert not [t for t in [text, *labels] if ENGINE_ID.search(t)]
    choosing = play(["red", "blue", "green"], 4, lambda s: (s.data["combat"] or {}).get("stage") == "choose")
    assert "retreat" not in api.public_view(choosing)["combat"]  # only while the loser retreats
