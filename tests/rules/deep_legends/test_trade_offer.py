"""A saga item trade proposed on the active player's tablet and accepted or declined on the other player's
(`offer_saga_trade`, `answer_saga_trade`): "The active player may buy or sell Saga items to/from any other
player ... The price paid will be any amount of Cargo and/or up to 5 Coins" and, being a sale, both sides
agree to it."""

from __future__ import annotations

import random

import pytest

from rules import api
from rules.errors import Illegal
from tests.rules.helpers import act


def main_phase(items: dict, seed: int = 3):
    s = api.new_game(["red", "blue"], seed, {"deep_legends": {"items": items}})
    rng = random.Random(2)
    while s.phase != "main" or s.data["pending"]:
        s, _ = api.apply(
            s, {"seq": s.seq, "player": "table", "action": rng.choice(api.legal_actions(s, "table"))}
        )
    return s


def test_an_offered_trade_changes_nothing_until_the_other_player_accepts_it():
    s = main_phase({"blue": ["1.07"]})
    me = s.active
    other = next(c for c in s.players if c != me)
    s.data["deep_legends"]["items"] = {"1.07": other}
    s.data["p"][me]["dock"] = 3
    dock_other = s.data["p"][other]["dock"]
    offers = [a for a in api.legal_actions(s, me) if a["type"] == "offer_saga_trade"]
    assert {"type": "offer_saga_trade", "item": "1.07", "other": other, "dock": 2} in offers
    assert not [a for a in api.legal_actions(s, other) if a["type"] == "answer_saga_trade"]
    s2, events = act(s, "offer_saga_trade", me, item="1.07", other=other, dock=2)
    assert s2.data["deep_legends"]["items"]["1.07"] == other  # not yet sold
    assert any(e["type"] == "saga_trade_offered" and e["to"] == other for e in events)
    assert api.legal_actions(s2, other) == [
        {"type": "answer_saga_trade", "accept": True},
        {"type": "answer_saga_trade", "accept": False},
    ]
    with pytest.raises(Illegal, match="no saga item trade is offered to"):
        act(s2, "answer_saga_trade", me, accept=True)
    s3, events = act(s2, "answer_saga_trade", other, accept=True)
    assert s3.data["deep_legends"]["items"]["1.07"] == me
    assert s3.data["p"][me]["dock"] == 1 and s3.data["p"][other]["dock"] == dock_other + 2
    assert any(e["type"] == "saga_item_sold" and e["buyer"] == me for e in events)
    assert "offer" not in s3.data["deep_legends"]
    # the active player cannot take back the other player's answer
    with pytest.raises(Illegal, match="cannot be undone by you"):
        api.apply(s3, {"seq": s3.seq, "player": me, "action": {"type": "undo"}})


def test_a_declined_or_lapsed_offer_changes_nothing():
    s = main_phase({"blue": ["1.07"]})
    me = s.active
    other = next(c for c in s.players if c != me)
    s.data["deep_legends"]["items"] = {"1.07": me}  # the active player sells
    s2, _ = act(s, "offer_saga_trade", me, item="1.07", other=other)
    s3, events = act(s2, "answer_saga_trade", other, accept=False)
    assert s3.data["deep_legends"]["items"]["1.07"] == me
    assert any(e["type"] == "saga_trade_declined" for e in events)
    # an offer not answered before the turn ends lapses
    s4, _ = act(s, "offer_saga_trade", me, item="1.07", other=other)
    end = next(a for a in api.legal_actions(s4, me) if a["type"] == "end_turn")
    s5, _ = api.apply(s4, {"seq": s4.seq, "player": me, "action": end})
    assert "offer" not in s5.data["deep_legends"]
    assert not [a for a in api.legal_actions(s5, other) if a["type"] == "answer_saga_trade"]


def test_an_accepted_offer_is_checked_again_when_answered():
    """The buyer's Coins are counted when the trade is made, not when it was offered."""
    s = main_phase({"blue": ["1.07"]})
    me = s.active
    other = next(c for c in s.players if c != me)
    s.data["deep_legends"]["items"] = {"1.07": me}
    s.data["p"][other]["ship"]["holds"] = [[0, 3], [0, 0]]
    s2, _ = act(s, "offer_saga_trade", me, item="1.07", other=other, coin_holds=[3, 0])
    s2.data["p"][other]["ship"]["holds"] = [[0, 1], [0, 0]]  # spent meanwhile (a referee's correction)
    with pytest.raises(Illegal, match="does not carry"):
        act(s2, "answer_saga_trade", other, accept=True)
