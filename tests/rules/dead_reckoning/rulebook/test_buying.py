"""Rulebook: Buy Advancements / Resolve Encounters (lines 208-221)."""

from __future__ import annotations

import pytest

from rules.errors import Illegal

from .support import act, place_island, ship, two


def _at_card(card: str, cargo: int = 4, seed: int = 1):
    state, me, other = two(seed=seed)
    place_island(state, "r1c1", "island-05")
    state.data["grid"]["r1c1"]["card"] = card
    box = state.data["decks"][card[1]]
    if card in box:  # laid out by hand: out of its box, as if drawn
        box.remove(card)
    s = ship(state, me)
    s["at"], s["holds"] = "r1c1", [[cargo, 0], [0, 0]]
    return state, me, other


def test_buying_pays_cargo_from_the_ship_and_sets_the_card_aside():
    """ "To buy an Advancement, your Ship must be at the same location as the Advancement, and you must spend
    Cargo from your Ship equal to the cost indicated. If you do not have enough Cargo on your Ship, you
    cannot buy the Advancement. Once you have paid for the Advancement, place it face up nearby; you will
    sleeve it during your Cleanup phase.\""""
    state, me, _ = _at_card("r1-04", cargo=3)  # Helmsman, cost 3
    state.data["p"][me]["dock"] = 9  # Cargo on the Dock does not pay
    supply = state.data["supply"]["cargo"]
    state, _ = act(state, "buy")
    p = state.data["p"][me]
    assert p["set_aside"] == ["r1-04"] and p["ship"]["holds"][0] == [0, 0] and p["dock"] == 9
    assert state.data["grid"]["r1c1"]["card"] is None and state.data["supply"]["cargo"] == supply + 3
    short, me2, _ = _at_card("r1-04", cargo=2)
    short.data["p"][me2]["dock"] = 9
    with pytest.raises(Illegal) as err:
        act(short, "buy")
    assert "costs 3" in err.value.message
    with pytest.raises(Illegal):
        act(short, "buy", pay={"dock": 1, "holds": [2, 0]})


def test_at_most_two_buys_or_encounters_a_turn():
    """ "Important: You may only buy/resolve a maximum of 2 Advancement/Encounters each turn.\""""
    state, me, _ = _at_card("r1-01", cargo=4)
    state, _ = act(state, "buy")
    place_island(state, "r1c2", "island-01")
    state.data["grid"]["r1c2"]["card"] = "r1-02"
    state.data["grid"]["r1c3"]["card"] = "r1-06"  # a Merchant: attacking it resolves it
    state.data["turn"]["sails_set"] = True
    ship(state, me)["sails"] = 3
    state, _ = act(state, "move", path=["r1c2"])
    state, _ = act(state, "buy")
    state, _ = act(state, "move", path=["r1c3"])
    ship(state, me)["holds"][1] = [3, 0]
    for kind in ("buy", "attack_merchant"):
        with pytest.raises(Illegal) as err:
            act(state, kind)
        assert "at most 2" in err.value.message


def test_trading_with_a_merchant_buys_it_without_looking_at_its_back():
    """ "Trade: You can buy the Encounter as an Advancement using the normal rules for buying an Advancement.
    If you do this, take the Encounter as you would normally and do not look at the back of it." and "In
    the base game, the only Encounters are Merchant ships which, if acquired, are also Advancements.\""""
    state, me, _ = _at_card("r1-06", cargo=2)  # Coastal Trader, cost 2
    state, events = act(state, "buy")
    assert state.data["p"][me]["set_aside"] == ["r1-06"] and state.data["battle"] is None
    assert not [e for e in events if e["type"] == "battle_started"]
    # "When you sleeve the Encounter, ... the advancement part is showing": it takes its slot like any other
    state, _ = act(state, "play_card", card=state.data["p"][me]["hand"][0])
    card = state.data["p"][me]["played"][0]
    state, _ = act(state, "end_turn", sleeve=[{"advancement": "r1-06", "card": card}])
    assert state.data["p"][me]["cards"][card]["slots"]["top"] == "r1-06"


def test_attacking_a_merchant_needs_no_attack_flag_and_a_lost_one_is_buried():
    """ "Attack: You do not need an Attack Flag to attack a Merchant Ship. Simply turn the Encounter over and
    resolve the effect. Usually, this will result in a battle. If there is a battle, follow the instructions
    on the Merchant ship for Win or Lose, depending on the outcome. If you lose the battle, the Merchant
    ship should be buried (placed beneath the advancement box of its row)." and "Buried Advancement/Encounter
    cards: ... Place any buried cards underneath that row's deck box as it will not be used again this
    game.\""""
    from .support import resolve

    state, me, _ = _at_card("r1-06", cargo=0)  # Coastal Trader: 2 black cubes; Win: 2 Coins on the Ship
    state, events = act(state, "attack_merchant")
    setup = state.data["battle"]["setup"]
    assert setup["kind"] == "nonplayer" and setup["defender"]["cubes"] == 2
    lost, _ = resolve(state, f"{me}@miss black@s1 black@miss")
    assert "r1-06" in lost.data["buried"]["1"] and "r1-06" not in lost.data["decks"]["1"]
    assert "r1-06" not in lost.data["p"][me]["set_aside"]
    won, _ = resolve(state, f"{me}@s2 black@s1 black@miss")
    assert won.data["p"][me]["ship"]["holds"][0] == [0, 2]  # the Win: 2 Coins on the Ship
