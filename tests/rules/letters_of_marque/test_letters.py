"""Letters of Marque (rulebook rules/001: "Letters of Marque")."""

from __future__ import annotations

import pytest

from rules import api
from rules.dead_reckoning.letters_of_marque.data import lom_data
from rules.dead_reckoning.letters_of_marque.favour import gain_favour, lose_favour
from rules.errors import Illegal
from tests.rules.helpers import act
from tests.rules.letters_of_marque.helpers import events_of, lgame, lom

A, B = "empire-a", "empire-b"
LETTER = lom_data().empires[A]["track"]["letter_space"]


def _near_letter(seed: int = 1):
    state = lgame(3, seed=seed)
    lom(state)["rewards"] = {A: {}, B: {}}
    me = state.active
    lom(state)["favour"][me][A] = [LETTER - 1, LETTER - 1]
    return state, me


def test_peak_reaching_the_icon_offers_a_letter_with_an_ongoing_ability():
    """ "When your Peak Favor marker advances to a space with the Letter of Marque icon, you may choose and
    gain one of the available Letter of Marque tokens for that empire. This grants an ongoing ability for the
    rest of the game." """
    state, me = _near_letter()
    out: list = []
    gain_favour(state.data, me, A, out)
    assert lom(state)["claims"][me] == [{"kind": "letter", "empire": A}]
    sails = api.private_view(state, me)["you"]["sails_if_set_now"]
    state, events = act(state, "claim", index=0, args={"letter": "a-sail"})
    assert lom(state)["letters"][me] == ["a-sail"] and "a-sail" not in lom(state)["letters_free"][A]
    assert api.private_view(state, me)["you"]["sails_if_set_now"] == sails + 1  # its icon counts
    assert events_of(events, "letter_taken")


def test_falling_back_past_the_icon_returns_the_letter():
    """ "If your Current Favor marker moves backward past the Letter of Marque icon space, return the token to
    the Empire board." """
    state, me = _near_letter()
    gain_favour(state.data, me, A, [])
    state, _ = act(state, "claim", index=0, args={"letter": "a-cannon"})
    gain_favour(state.data, me, A, [])  # one past the icon
    lose_favour(state.data, me, A, [])  # back onto the icon: not past it yet
    assert lom(state)["letters"][me] == ["a-cannon"]
    out: list = []
    lose_favour(state.data, me, A, out)
    assert lom(state)["letters"][me] == [] and "a-cannon" in lom(state)["letters_free"][A]
    assert "extra_icons" not in state.data["p"][me]
    assert events_of(out, "letter_returned")


def test_overtaking_a_holder_takes_their_letter_in_exchange_for_ones_own():
    """ "If your Current Favor marker advances past another player's Current Favor marker on an Empire board,
    and they have a Letter of Marque from that empire, you may take it from them, exchanging it for your own
    Letter of Marque from the same empire if you have one." """
    state, me = _near_letter()
    other = [c for c in state.players if c != me][0]
    x = lom(state)
    x["favour"][me][A] = [LETTER + 1, LETTER + 1]
    x["favour"][other][A] = [LETTER + 2, LETTER + 2]
    x["letters"][me], x["letters"][other] = ["a-sail"], ["a-cannon"]
    x["letters_free"][A] = ["a-discovery"]
    gain_favour(state.data, me, A, [])  # level with them: not past
    assert x["claims"][me] == []
    gain_favour(state.data, me, A, [])  # past them
    assert lom(state)["claims"][me] == [{"kind": "overtake", "empire": A, "from": other}]
    state, _ = act(state, "claim", index=0)
    assert lom(state)["letters"][me] == ["a-cannon"] and lom(state)["letters"][other] == ["a-sail"]
    assert state.data["p"][me]["extra_icons"] == {"cannon": 1}
    assert state.data["p"][other]["extra_icons"] == {"sail": 1}


def test_overtake_claim_lapses_when_the_letter_is_gone():
    state, me = _near_letter()
    other = [c for c in state.players if c != me][0]
    lom(state)["claims"][me] = [{"kind": "overtake", "empire": A, "from": other}]
    with pytest.raises(Illegal):
        act(state, "claim", index=0)


def test_letters_from_both_empires():
    """ "It is possible to have a Letter of Marque from both empires." """
    state, me = _near_letter()
    lom(state)["favour"][me][B] = [LETTER - 1, LETTER - 1]
    gain_favour(state.data, me, A, [])
    gain_favour(state.data, me, B, [])
    state, _ = act(state, "claim", index=0, args={"letter": "a-sail"})
    state, _ = act(state, "claim", index=0, args={"letter": "b-sail"})
    assert sorted(lom(state)["letters"][me]) == ["a-sail", "b-sail"]
    assert state.data["p"][me]["extra_icons"] == {"sail": 2}


def test_one_letter_per_empire_a_second_one_is_an_exchange():
    """Reading: the overtaking rule's "exchanging it for your own Letter of Marque from the same empire" means
    one Letter per empire; taking another returns the one held to the board."""
    state, me = _near_letter()
    lom(state)["letters"][me] = ["a-cannon"]
    lom(state)["letters_free"][A] = ["a-discovery", "a-sail"]
    gain_favour(state.data, me, A, [])
    state, _ = act(state, "claim", index=0, args={"letter": "a-sail"})
    assert lom(state)["letters"][me] == ["a-sail"]
    assert lom(state)["letters_free"][A] == ["a-cannon", "a-discovery"]
