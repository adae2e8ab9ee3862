"""Letters of Marque's tablet contract without a browser (issue 19): the engine's options for what no camera
reads (a Prime Cargo token turned over, the Saga die's face), which tablets may report them at a table that
reports chance, and the words the pages draw (claims, tokens, rewards) with no engine id in them."""

from __future__ import annotations

import json
from collections.abc import Iterator

from controller import words
from controller.core import TableCore, tablet_may_send
from controller.gamelog import GameLog
from rules import api
from rules.dead_reckoning.letters_of_marque.data import lom_data
from tests.controller.web.test_game_words import ENGINE_ID
from tests.rules.helpers import act, give_hand
from tests.rules.letters_of_marque.helpers import lgame, lom, sail_to

GUN = "lom-hallowed-gun"


def _discovering(observed: bool):
    state = lgame(3, seed=2, auto_chance=not observed)
    while state.data["pending"]:
        state, _ = api.apply(
            state, {"seq": state.seq, "player": "table", "action": api.legal_actions(state, "red")[0]}
        )
    state = sail_to(state, ["r1c1"])
    assert state.active is not None
    give_hand(state, state.active, ["explorer"])
    state, _ = act(state, "play_card", card="explorer")
    return act(state, "discover_prime_cargo", part="water")


def test_a_turned_over_token_is_offered_as_every_kind_of_face_down_token():
    """ "Undiscovered Prime Cargo can be "Discovered" (flipped over) using the Prime Discovery icon": where no
    camera reads the token, the engine offers one option per kind of face-down token (type, reward, edge
    icons), each of which it accepts; with the engine drawing chance, nothing waits."""
    state, _ = _discovering(observed=True)
    assert state.data["pending"][0]["kind"] == "flip_prime_cargo"
    offered = api.legal_actions(state, "green")
    assert offered and {a["type"] for a in offered} == {"flip_prime_cargo"}
    tokens = lom_data().tokens
    kinds = {
        (tokens[t]["type"], tokens[t]["reward"], tuple(sorted(tokens[t]["edges"].items())))
        for t in lom(state)["bag"]
    }
    assert len(offered) == len(kinds)
    for a in offered:
        api.apply(state, {"seq": state.seq, "player": "green", "action": a})  # each one accepted
    drawn, _ = _discovering(observed=False)
    assert not drawn.data["pending"]


def test_the_saga_die_is_offered_face_by_face():
    """ "It provides a Battle ability that lets you drop a Saga Die into the Battle tower." Its three
    faces."""
    state = lgame(3, seed=3, auto_chance=False)
    while state.data["pending"]:
        state, _ = api.apply(
            state, {"seq": state.seq, "player": "table", "action": api.legal_actions(state, "red")[0]}
        )
    me = state.active
    other = next(c for c in state.players if c != me)
    from tests.rules.helpers import place_island

    place_island(state, "r1c1", "island-05")
    state.data["p"][other]["ship"].update(at="r1c1", pirate=True)
    state.data["p"][me]["ship"]["hull"][1] = [GUN]
    state = sail_to(state, ["r1c1"])
    state, _ = act(state, "drop_saga_die")
    faces = [a["face"] for a in api.legal_actions(state, other)]
    assert faces == [0, 1, 2]


def test_tablets_may_report_what_no_camera_reads_only_at_a_table_that_reports_chance(tmp_path):
    for kind in ("flip_prime_cargo", "saga_die", "place_favour_rewards"):
        assert tablet_may_send({"type": kind}, "red", observed_chance=True)
        assert not tablet_may_send({"type": kind}, "red", observed_chance=False)
    core = TableCore(GameLog(tmp_path / "t.db"), "t")
    core.open_game(["red", "blue", "green"], 5, {"expansions": ["letters-of-marque"], "auto_chance": False})
    while core.state.data["pending"][0]["kind"] != "place_favour_rewards":
        core.submit("red", api.legal_actions(core.state, "red")[0], core.seq)
    payload = core.private_payload("blue")
    lay = [a for a in payload["legal_actions"] if a["type"] == "place_favour_rewards"]
    assert len(lay) == 1
    reply = core.handle_command("blue", json.dumps({"request_id": "b1", "seq": core.seq, "action": lay[0]}))
    assert reply["accepted"], reply


def _strings(x: object) -> Iterator[str]:
    """Every string value (not key) in a JSON-like value."""
    if isinstance(x, str):
        yield x
    elif isinstance(x, dict):
        for v in x.values():
            yield from _strings(v)
    elif isinstance(x, list):
        for v in x:
            yield from _strings(v)


def test_claims_tokens_and_rewards_are_in_the_games_words():
    """Every claim label, token text and reward sentence the pages draw, with no engine id in it."""
    texts = [words.token_text(t) for t in lom_data().tokens]
    texts += [words.reward_text(r) for r in lom_data().rewards.values()]
    texts += [words.letter_name(letter) for letter in lom_data().letters]
    for rid in lom_data().rewards:
        texts.append(words.claim_text({"kind": "reward", "reward": rid}))
    texts.append(words.claim_text({"kind": "overtake", "empire": "empire-a", "from": "blue"}))
    state = lgame(3, seed=1)
    me = state.active
    lom(state)["claims"][me] += [
        {"kind": "reward", "reward": "fr-05"},
        {"kind": "reward", "reward": "fr-11"},
        {"kind": "reward", "reward": "fr-14"},
        {"kind": "letter", "empire": "empire-b"},
    ]
    view = api.private_view(state, me)
    legal = [a for a in api.legal_actions(state, me) if a["type"] in ("claim", "decline")]
    labels = [w["label"] for w in words.private_words(api, state, me, view, legal)["actions"]]
    assert "Take 2 Coins" in labels, labels  # fr-05: "repair 2 Damage or 2 Coins", no Damage to repair
    assert any(x.startswith("Take the Favor Reward: level up ") for x in labels), labels
    assert any("Charts Room" in x for x in labels) and any("Letter of Marque “" in x for x in labels), labels
    texts += labels
    texts += list(_strings(words.public_words(state, api.public_view(state))["lom"]))
    found = [t for t in texts if ENGINE_ID.search(t)]
    assert not found, found
    assert words.token_text("moon-salt-04").startswith("Moon Salt, discard: ")
