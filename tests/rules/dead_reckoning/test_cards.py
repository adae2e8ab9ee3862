"""The card file format: the shipped sample set loads, and a user's broken file is refused by card and
field."""

from __future__ import annotations

import json

import pytest

from rules import api
from rules.dead_reckoning.cards import CardFileError, load_catalog, validate_boards, validate_cards
from rules.errors import Invalid


def _cards(**over):
    card = {"id": "x-1", "row": 1, "name": "Test", "slot": "top", "cost": 2, "icons": {"sail": 1}}
    card.update(over)
    return {"format": "dead-reckoning/cards@1", "cards": [card]}


def test_sample_set_is_valid_and_covers_every_row():
    cat = load_catalog()
    assert all(len(cat.rows[r]) >= 4 for r in (1, 2, 3, 4))
    assert any("encounter" in c for c in cat.cards.values())
    assert set(cat.sailors) == {
        "captain",
        "crew",
        "first-mate",
        "bosun",
        "gunner",
        "deck-hand",
        "buccaneer",
        "purser",
    }
    assert sum(cat.deck.values()) == 12


@pytest.mark.parametrize(
    "over, field",
    [
        ({"slot": "side"}, "slot"),
        ({"cost": -1}, "cost"),
        ({"row": 5}, "row"),
        ({"icons": {"parrot": 1}}, "icons.parrot"),
        ({"abilities": [{"effects": [{"do": "teleport"}]}]}, "abilities[0].effects[0].do"),
        (
            {"abilities": [{"effects": [{"do": "gain", "what": "cargo", "amount": 1, "to": "moon"}]}]},
            "abilities[0].effects[0].to",
        ),
        ({"abilities": [{"choice": [{"effects": [{"do": "sails", "amount": 1}]}]}]}, "abilities[0].choice"),
        ({"abilities": [{"battle": "summon_kraken"}]}, "abilities[0].battle"),
        ({"scoring": [{"score": "per_icon", "icon": "anchor", "coins": 1}]}, "scoring[0].icon"),
        ({"encounter": {"kind": "merchant", "cubes": 3, "win": [{"do": "gain"}]}}, "encounter.win[0].what"),
    ],
)
def test_errors_name_the_card_and_the_field(over, field):
    with pytest.raises(CardFileError) as err:
        validate_cards(_cards(**over), "my-cards.json")
    assert "card 'x-1'" in err.value.message and f"field {field!r}" in err.value.message
    assert err.value.message.startswith("my-cards.json:")
    assert isinstance(err.value, Invalid)


def test_duplicate_ids_and_board_errors():
    doc = _cards()
    doc["cards"].append(dict(doc["cards"][0]))
    with pytest.raises(CardFileError, match="used twice"):
        validate_cards(doc)
    with pytest.raises(CardFileError, match="field 'scores'"):
        validate_boards(
            {"boards": {"island-x": {"kind": "island", "slots": 2, "production": {}, "scores": [1, 5]}}}
        )
    with pytest.raises(CardFileError, match="field 'arrows'"):
        validate_boards({"boards": {"sea": {"kind": "open_sea", "arrows": ["UP"]}}})


def test_a_users_card_file_is_played_and_a_broken_one_refused(tmp_path):
    sample = json.loads(
        (load_catalog.__globals__["resources"].files("rules.data") / "advancements.json").read_text()
    )
    for c in sample["cards"]:
        c["cost"] = 1
    good = tmp_path / "cards.json"
    good.write_text(json.dumps(sample))
    state = api.new_game(["red", "blue"], 1, {"cards_file": str(good)})
    assert state.data["options"]["cards_file"] == str(good)
    bad = tmp_path / "bad.json"
    bad.write_text("{oops")
    with pytest.raises(Invalid, match="not valid JSON"):
        api.new_game(["red", "blue"], 1, {"cards_file": str(bad)})
    with pytest.raises(Invalid, match="cannot be read"):
        api.new_game(["red", "blue"], 1, {"cards_file": str(tmp_path / "none.json")})


def test_the_catalogue_follows_the_game_asked_about_and_a_games_options_never_change():
    """`catalog` answers a game played in place from its last look-up (the options' mapping itself): games
    with different catalogues asked in turn each get their own, in place and copied, and no action of a random
    game (base or Letters of Marque) changes the options the catalogue is read from."""
    import random

    from rules.dead_reckoning.cards import catalog

    base = api.new_game(["red", "blue", "green"], 3)
    lom = api.new_game(["red", "blue", "green"], 3, {"expansions": ["letters-of-marque"]})
    want = {id(base): load_catalog(), id(lom): load_catalog(expansions=("letters-of-marque",))}
    assert want[id(base)] is not want[id(lom)]
    rng = random.Random(3)
    games = {id(base): base, id(lom): lom}
    created = {k: dict(g.data["options"]) for k, g in games.items()}
    for step in range(600):
        key = (id(base), id(lom))[step % 2]
        g = games[key]
        if g.phase == "over":
            continue
        assert catalog(g.data) is want[key]
        assert catalog(g.copy().data) is want[key]  # a copy's options are a mapping of their own
        who = g.active or "table"
        acts = api.legal_actions(g, who)
        games[key], _ = api.apply(
            g, {"seq": g.seq, "player": who, "action": rng.choice(acts)}, inplace=step % 4 < 2
        )
        assert games[key].data["options"] == created[key]
