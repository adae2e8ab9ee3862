"""Deep Legends' words on the tablets without a browser (issue 20): every saga action the engine knows has a
label of its own and every saga event a line of the log, in the game's words, never an engine id; the
Encounter's "read Book 1.XX" is shown with the entry's story; the saga's public words list each player's saga
items and the saga cards on the boards."""

from __future__ import annotations

import re

from controller import deep_legends_words as dlw
from controller import words
from rules import api
from rules.dead_reckoning.deep_legends import ingame
from rules.dead_reckoning.deep_legends import saga as sg
from tests.controller.web.saga_setup import (
    ENCOUNTER,
    FORTUNE,
    ITEM,
    SQUARE,
    lay_saga_moment,
    saga_options,
    to_main,
)

PLAYERS = ["red", "blue", "green"]
# engine ids a label must not show: squares, snake_case keys, the saga's own card numbers with a suffix
ENGINE_ID = re.compile(r"\br\d+c\d+\b|\b[a-z]+_[a-z_]+\b|\b1\.00-[a-z]\b")


def labels_for(state, player):
    view = api.private_view(state, player)
    legal = api.legal_actions(state, player)
    pw = words.private_words(api, state, player, view, legal)
    return list(zip(legal, pw["actions"], strict=True))


def test_every_saga_action_the_engine_knows_has_words():
    """Walks the engine's Deep Legends action types (`ingame.ACTIONS`): each one offered in a laid-out game is
    named by its own label (not the fallback of the type's name) with no engine id in it."""
    assert {a.type for a in ingame.ACTIONS} == dlw.DL_ACTIONS
    s = to_main(api.new_game(PLAYERS, 4, saga_options(PLAYERS)))
    me = lay_saga_moment(s)
    other = next(c for c in PLAYERS if c != me)
    s.data["deep_legends"]["items"] = {ITEM: other}
    s.data["p"][me]["dock"] = 2
    seen: dict[str, str] = {}
    for a, w in labels_for(s, me):
        seen.setdefault(a["type"], w["label"])
    # the offered trade, answered on the other player's tablet
    offer = next(a for a, _ in labels_for(s, me) if a["type"] == "offer_saga_trade" and a.get("dock") == 2)
    s2, _ = api.apply(s, {"seq": s.seq, "player": me, "action": offer})
    for a, w in labels_for(s2, other):
        seen.setdefault(a["type"] + ("" if a.get("accept", True) else ":no"), w["label"])
    assert seen["answer_saga_trade"].startswith(f"Accept: sell Pearl of the Deep ({ITEM}) to {me.title()}")
    assert "2 Cargo" in seen["answer_saga_trade"]
    # a Ship sunk: the sinker may take an item
    s3 = s.copy()
    s3.data["deep_legends"]["may_take"] = [{"winner": me, "loser": other}]
    for a, w in labels_for(s3, me):
        seen.setdefault(a["type"], w["label"])
    # the Influence tile on the Ship, its hold empty, at an island
    s4 = s.copy()
    s4.data["p"][me]["ship"]["hull"][0] = ["basic-influence"]
    s4.data["p"][me]["ship"]["holds"] = [[0, 0], [0, 0]]
    for a, w in labels_for(s4, me):
        seen.setdefault(a["type"], w["label"])
    for t in sorted(dlw.DL_ACTIONS):
        assert t in seen, f"{t} was never offered in the laid-out game"
        assert seen[t] != words.title(t), f"{t} has no words of its own"
        assert not ENGINE_ID.search(seen[t]), (t, seen[t])
    assert seen["explore_encounter"].startswith(
        "Explore Drifting Longboat (Non-Merchant Encounter): pay 2 Coins"
    )
    assert seen["encounter_fortune"].startswith("Encounter Gull Omen (Fortune Encounter)")
    assert (
        seen["take_saga_item"]
        == f"Take Pearl of the Deep ({ITEM}) from {other.title()} (you sank their Ship)"
    )


def test_every_saga_event_is_a_line_of_the_log_and_the_book_entry_shows_its_story():
    """ "After you pay the cost (and NOT BEFORE), you turn the Encounter over and read out loud what it says
    on the other side": the log says what was explored and reads the Book entry with the owner's story."""
    s = to_main(api.new_game(PLAYERS, 4, saga_options(PLAYERS)))
    me = lay_saga_moment(s)
    explore = next(a for a in api.legal_actions(s, me) if a["type"] == "explore_encounter")
    s2, events = api.apply(s, {"seq": s.seq, "player": me, "action": explore})
    view = api.public_view(s2)
    lines = {e.get("what", e["type"]): words.event_text(s2, view, api.event_view(e)) for e in events}
    story = sg.load_saga()["book"]["1.01"]["story"]
    assert lines["read_entry"] == f"Read Book 1.01: “{story}”"
    assert lines["explored"] == f"{me.title()} explores Drifting Longboat, paying 2 Coins"
    assert lines["gain_card"] == f"{me.title()} gains Barnacled Compass (saga item 1.04)"
    assert lines["eliminate"].startswith("Drifting Longboat (1.00-a) is eliminated")
    # the public words: the Book entry read this game, each player's items, the cards on the boards
    saga = words.public_words(s2, view)["saga"]
    assert saga["book"] == [{"entry": "1.01", "text": "Book 1.01", "story": story}]
    assert "Barnacled Compass (1.04)" in [i["name"] for i in saga["items"][me]]
    theirs = [i["name"] for i in saga["items"][PLAYERS[1]] if i["id"] == ITEM]
    assert theirs == [f"Pearl of the Deep ({ITEM})"]
    assert [c["name"] for c in saga["board"][SQUARE]] == ["Gull Omen"]
    # every kind of saga notice has a sentence of its own (not the fallback)
    for what in dlw.SAGA_WHATS:
        text = dlw.event_text(view, {"type": "saga", "what": what, "player": me, "card": FORTUNE})
        assert text and not text.startswith("Saga:"), what
    for t in dlw.DL_EVENTS:
        assert words.event_text(s2, view, {"type": t, "player": me, "what": "bury"}) != words.title(t)


def test_the_saga_notices_are_the_ones_the_words_know():
    """Every notice type the saga's instructions write (rules/dead_reckoning/deep_legends/saga.py) is one
    `SAGA_WHATS` names, so a new instruction cannot reach the tablets without words."""
    src = (sg.__file__ and open(sg.__file__, encoding="utf-8").read()) or ""
    written = set(re.findall(r'"type": "(\w+)"', src)) | {"bury", "eliminate"}
    assert written <= set(dlw.SAGA_WHATS), written - set(dlw.SAGA_WHATS)
    assert ENCOUNTER  # (the laid-out cards are the sample saga's)
