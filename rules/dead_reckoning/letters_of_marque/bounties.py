"""Bounties (rulebook: "Bounties"): a Current Favor marker behind the start space puts a bounty on the Ship;
an opponent whose Ship defeats it in battle (sinking not needed) gains 1 Favor on that track and 2 gold
from the loser's chest, and the bounty is cleared: the marker goes back to the start space.
"""

from __future__ import annotations

from typing import Any

from rules.core.events import notice
from rules.dead_reckoning.letters_of_marque.data import lom_data
from rules.dead_reckoning.letters_of_marque.favour import gain_favour, gain_gold, lose_gold
from rules.dead_reckoning.letters_of_marque.model import lom
from rules.dead_reckoning.model import State
from rules.dead_reckoning.phases import active_player


def bounties_on(d: State, color: str) -> list[str]:
    """The empires on whose track `color` is behind the start space."""
    fav = lom(d)["favour"][color]
    return [e for e in lom_data().empires if fav[e][0] < 0]


def after_battle(d: State, player: str, a: dict[str, Any], out: list[dict[str, Any]]) -> None:
    setup = a["setup"]  # the seam's plain JSON, read as it is (as favour.after_battle)
    if setup["kind"] != "ship" or not setup["defender"]["is_player"]:
        return
    me, them = active_player(d), setup["defender"]["name"]
    won = a["outcome"]["winner"] == "attacker"
    winner, loser = (me, them) if won else (them, me)
    for empire in bounties_on(d, loser):
        # "that player gains 1 Favor on the same track and 2 gold from your chest"; one bounty per track
        gold = lose_gold(d, loser, 2)
        gain_gold(d, winner, gold)
        lom(d)["favour"][loser][empire][0] = 0  # "your Current Favor marker moves to the start space"
        notice(out, "bounty_collected", player=winner, loser=loser, empire=empire, gold=gold)
        gain_favour(d, winner, empire, out)
