"""The saga content and state (Deep Legends rulebook, "Saga Setup" and "New Rules for Sagas"), on the
invented sample `rules/data/deep_legends/saga1.json`; each test quotes the sentence it checks."""

from __future__ import annotations

import copy
import json

import pytest

from rules.dead_reckoning.deep_legends import saga as sg
from rules.errors import Ambiguous, Illegal, Invalid


@pytest.fixture(scope="module")
def book() -> dict:
    return sg.load_saga()


def test_saga_setup_1_00_cards_go_into_their_row_decks_the_tuck_box_stays_shut(book):
    """ "There are some cards that are NOT in the tuckbox, and have a small "1.00" in the top right ...
    shuffle them into their respective Advancement Row decks during setup." "Only take out specific cards
    from this box when directed to do so during gameplay.\""""
    st = sg.new_saga_state(book)
    assert sg.deck_additions(st) == {
        "1": ["1.00-a", "1.00-d"],
        "2": ["1.00-b", "1.00-e"],
        "3": ["1.00-c"],
        "4": [],
    }
    assert st["tuck_box"] == ["1.04", "1.05", "1.06", "1.07"] and st["eliminated"] == []


def test_non_merchant_encounter_is_explored_by_paying_then_reading_its_back(book):
    """ "you may pay the indicated Coins cost to explore them. After you pay the cost (and NOT BEFORE), you
    turn the Encounter over and read out loud what it says on the other side.\""""
    st = sg.new_saga_state(book)
    with pytest.raises(Illegal, match="costs 2 Coins"):
        sg.explore(book, st, "1.00-a", "red", coins_paid=1)
    res = sg.explore(book, st, "1.00-a", "red", coins_paid=2)
    kinds = [n["type"] for n in res["notices"]]
    assert kinds == ["explored", "read_entry", "gain_card", "add_to_row", "eliminate"]
    assert st == sg.new_saga_state(book)  # the state given is never changed
    with pytest.raises(Invalid, match="not a Non-Merchant Encounter"):
        sg.explore(book, st, "1.00-b", "red", coins_paid=0)


def test_read_book_reads_only_the_entry_named_and_follows_its_instructions(book):
    """ "If something instructs you to "read Book 1.XX", then locate entry XX ... and read that section out
    loud ... the regular text will be instructions that you must follow. Only read entries you are
    instructed to read.\""""
    st = sg.new_saga_state(book)
    res = sg.resolve(book, st, [{"do": "read", "entry": "1.01"}], "red")
    assert res["state"]["read"] == ["1.01"]
    assert res["notices"][0]["story"].startswith("An empty longboat")
    assert res["state"]["items"] == {"1.04": "red"}


def test_gain_card_takes_it_from_the_tuck_box(book):
    """ "If something instructs you to "gain card 1.XX", remove the indicated card from the Deep Legends
    Saga tuck box and gain it.\""""
    st = sg.new_saga_state(book)
    res = sg.resolve(book, st, [{"do": "gain_card", "card": "1.06"}], "blue")
    assert "1.06" not in res["state"]["tuck_box"] and res["state"]["gained"] == {"1.06": "blue"}
    with pytest.raises(Illegal, match="not in the tuck box"):
        sg.resolve(book, res["state"], [{"do": "gain_card", "card": "1.06"}], "red")


def test_add_card_to_a_row_deck(book):
    """ "If something instructs you to "take card 1.XX and add it to the Row X deck", remove the indicated
    card from the Deep Legends Saga tuck box and ... add the card to roughly the middle of the indicated
    Advancement row deck.\""""
    st = sg.new_saga_state(book)
    res = sg.resolve(book, st, [{"do": "add_to_row", "card": "1.05", "row": 2}], "red")
    assert sg.deck_additions(res["state"])["2"] == ["1.00-b", "1.00-e", "1.05"]


def test_eliminated_cards_never_come_back(book):
    """ "Eliminated cards should be stored in the Saga tuck box behind the "Eliminated Cards" divider. Once a
    card is eliminated, it won't be needed again unless you choose to reset the Saga.\""""
    st = sg.new_saga_state(book)
    res = sg.resolve(book, st, [{"do": "eliminate"}], "red", this="1.00-a")
    after = sg.end_game(book, res["state"])
    assert after["eliminated"] == ["1.00-a"] and "1.00-a" not in sg.deck_additions(after)["1"]


def test_a_buried_card_is_out_for_this_game_and_back_next_game(book):
    """ "When you are instructed to "bury" a card, place that face up beneath the Advancement deck box of its
    Row. That card won't be used again during this game, but should be shuffled into that Advancement
    deck box in future games.\""""
    st = sg.new_saga_state(book)
    res = sg.resolve(book, st, [{"do": "bury"}], "red", this="1.00-c")
    assert res["state"]["buried"]["3"] == ["1.00-c"] and sg.deck_additions(res["state"])["3"] == []
    assert sg.deck_additions(sg.end_game(book, res["state"]))["3"] == ["1.00-c"]


def test_the_saga_die_is_a_recorded_chance_event(book):
    """ "When something instructs you to roll a die, roll this die. If you are instructed to roll multiple
    dice, simply roll this die multiple times." The table reports each face; none is drawn here."""
    st = sg.new_saga_state(book)
    fortune = book["by_id"]["1.00-b"]["effects"]
    with pytest.raises(Ambiguous, match="roll the Saga die") as e:
        sg.resolve(book, st, fortune, "red", this="1.00-b")
    assert e.value.options == [0, 1, 2, 3]
    low = sg.resolve(book, st, fortune, "red", this="1.00-b", rolls=[1])
    assert low["state"]["rolls"] == [1] and low["notices"][1] == {
        "type": "gain",
        "player": "red",
        "what": "cargo",
        "amount": 1,
        "to": "dock",
    }
    high = sg.resolve(book, st, fortune, "red", this="1.00-b", rolls=[3])
    assert high["state"]["read"] == ["1.02"] and "1.06" in sg.deck_additions(high["state"])["2"]
    twice = fortune[:1] * 2
    assert sg.resolve(book, st, twice, "red", rolls=[0, 2])["state"]["rolls"] == [0, 2]
    with pytest.raises(Invalid, match="no face 5"):
        sg.resolve(book, st, fortune, "red", this="1.00-b", rolls=[5])


def test_a_choice_waits_for_the_players_option(book):
    """Encounter backs may offer options; the player's choice is given, never guessed."""
    st = sg.new_saga_state(book)
    with pytest.raises(Ambiguous) as e:
        sg.explore(book, st, "1.00-c", "red", coins_paid=3)
    assert e.value.options == ["Ring it", "Leave it"]
    res = sg.explore(book, st, "1.00-c", "red", coins_paid=3, choices=[0])
    assert res["state"]["items"] == {"1.07": "red"}
    assert {"type": "campaign_points", "player": "red", "points": 3} in res["notices"]


def test_fortune_encounters_draw_another_card_and_do_not_count(book):
    """ "When a Fortune Encounter is drawn from a box, place it on the Ocean board and then draw another card
    from the row deck ... An Ocean board can have any number of Fortune Encounters, but must have at least
    1 non-Fortune Advancement/Encounter." "if you gain or encounter them, they don't count as 1 of your
    maximum 2 Advancements/Encounters for the turn." Non-Merchant Encounters "count as 1 of the 2"."""
    cards, again = sg.place_drawn(book, [], "1.00-b")
    assert cards == ["1.00-b"] and again
    cards, again = sg.place_drawn(book, cards, "1.05")
    assert cards == ["1.00-b", "1.05"] and not again
    assert not sg.counts_toward_turn_limit(book, "1.00-b")
    assert sg.counts_toward_turn_limit(book, "1.00-a")


def test_saga_items_carry_over_are_taken_when_sinking_and_are_traded(book):
    """ "These items carry over from game to game." "If you ever sink an opposing Ship, you may choose any 1
    Saga item the other player has and take it!" "The active player may buy or sell Saga items ... as long
    as neither player is in the middle of a battle or Encounter. The price paid will be any amount of Cargo
    and/or up to 5 Coins.\""""
    st = sg.resolve(book, sg.new_saga_state(book), [{"do": "gain_card", "card": "1.04"}], "red")["state"]
    assert sg.end_game(book, st)["items"] == {"1.04": "red"}
    with pytest.raises(Illegal, match="does not own"):
        sg.take_on_sinking(st, "red", "blue", "1.04")
    taken = sg.take_on_sinking(st, "blue", "red", "1.04")
    assert taken["items"]["1.04"] == "blue"
    assert sg.take_on_sinking(st, "blue", "red", None) == st
    sold = sg.trade(st, "red", "green", "1.04", cargo=9, coins=5, active="green")
    assert sold["items"]["1.04"] == "green"
    with pytest.raises(Illegal, match="at most 5 Coins"):
        sg.trade(st, "red", "green", "1.04", cargo=0, coins=6, active="green")
    with pytest.raises(Illegal, match="only the active player"):
        sg.trade(st, "red", "green", "1.04", cargo=1, coins=0, active="blue")
    with pytest.raises(Illegal, match="battle or Encounter"):
        sg.trade(st, "red", "green", "1.04", cargo=1, coins=0, active="red", busy=True)


def test_coop_players_give_items_only_in_the_same_location(book):
    """ "For 2-player co-op, players may not sell their Saga items to each other, however, so long as your
    Ships are in the same location, you may freely give each other Saga items.\""""
    st = sg.resolve(book, sg.new_saga_state(book), [{"do": "gain_card", "card": "1.04"}], "red")["state"]
    with pytest.raises(Illegal, match="may not be sold"):
        sg.trade(st, "red", "blue", "1.04", 1, 0, active="red", coop=True, same_location=True)
    with pytest.raises(Illegal, match="same location"):
        sg.trade(st, "red", "blue", "1.04", 0, 0, active="red", coop=True)
    assert sg.trade(st, "red", "blue", "1.04", 0, 0, active="red", coop=True, same_location=True)[
        "items"
    ] == {"1.04": "blue"}


def test_a_wrong_saga_file_names_the_card_and_field(book, tmp_path):
    """The owner's file is checked before use; a mistake is one sentence naming where it is."""
    raw = json.loads(json.dumps({k: v for k, v in book.items() if k != "by_id"}))
    bad = copy.deepcopy(raw)
    bad["cards"][0]["back"][0]["entry"] = "1.99"
    with pytest.raises(sg.SagaFileError, match=r"card '1.00-a' field 'back\[0\].entry'"):
        sg.validate_saga(bad, "mine.json")
    bad = copy.deepcopy(raw)
    bad["die"] = [1, 2, 3]
    with pytest.raises(sg.SagaFileError, match="6 faces"):
        sg.validate_saga(bad)
    bad = copy.deepcopy(raw)
    bad["cards"][3]["kind"] = "treasure"
    with pytest.raises(sg.SagaFileError, match="field 'kind' must be one of"):
        sg.validate_saga(bad)
    path = tmp_path / "mine.json"
    path.write_text("{oops")
    with pytest.raises(sg.SagaFileError, match="is not valid JSON"):
        sg.load_saga(path)
    path.write_text(json.dumps(raw))
    assert sg.load_saga(path)["by_id"].keys() == book["by_id"].keys()


def test_a_saga_merchants_back_may_hold_saga_instructions_that_need_no_answer(book):
    """A saga Merchant ship is checked as a printed card (docs/cards.md) and its saga instructions
    (`saga_win`/`saga_lose`) are followed as the battle is resolved, when nobody can be asked: a Saga die
    roll or a choice there, even through a Book entry it reads, is refused with the card and field."""
    raw = json.loads(json.dumps({k: v for k, v in book.items() if k != "by_id"}))
    i = next(n for n, c in enumerate(raw["cards"]) if c["kind"] == "merchant")
    bad = copy.deepcopy(raw)
    bad["cards"][i]["saga_lose"] = [{"do": "read", "entry": "1.02"}]
    assert sg.validate_saga(copy.deepcopy(bad))  # Book 1.02 asks nothing
    bad["book"]["1.02"]["effects"].append({"do": "roll", "faces": {"0-3": []}})
    with pytest.raises(sg.SagaFileError, match=r"card '1.00-d' field 'saga_lose' must not roll the Saga die"):
        sg.validate_saga(bad)
    bad = copy.deepcopy(raw)
    del bad["cards"][i]["encounter"]
    with pytest.raises(sg.SagaFileError, match="field 'encounter' must be the Merchant ship's back"):
        sg.validate_saga(bad)
    bad = copy.deepcopy(raw)
    bad["cards"][i]["cost"] = "three"
    with pytest.raises(sg.SagaFileError, match="card '1.00-d' field 'cost'"):
        sg.validate_saga(bad)
