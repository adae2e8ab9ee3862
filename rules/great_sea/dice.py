"""Dice and pips (rulebook: "Starting Resources and Pips", "Resources, Restrictions and Dice").

"When gaining a pip, players must increase 1 of their Dice by 1." No Die may physically exceed 6, nor
the value of the Develop Die (the Develop Die itself only 6); effects such as flipped cards and
"Extra Effect" Special Action Cards raise a Die's *value* beyond its physical face.
"""

from __future__ import annotations

from rules.core.errors import Illegal, Invalid
from rules.great_sea.data import DICE
from rules.great_sea.model import Player
from rules.great_sea.special_actions import card_effect

DEVELOP = 0


def die_index(name: object) -> int:
    if isinstance(name, str) and name in DICE:
        return DICE.index(name)
    raise Invalid(f"'{name}' is not a Die; say one of {', '.join(DICE)}.")


def may_raise(p: Player, i: int) -> bool:
    """A pip may go on Die `i`: it stays at most 6 and (but for Develop) at most the Develop Die."""
    v = p["dice"][i] + 1
    return v <= 6 and (i == DEVELOP or v <= p["dice"][DEVELOP])


def may_raise_twice(p: Player, i: int) -> bool:
    """Two pips may go on Die `i` one after the other (the Develop Die's own rise lifts no other limit)."""
    v = p["dice"][i] + 2
    return v <= 6 and (i == DEVELOP or v <= p["dice"][DEVELOP])


def raisable(p: Player) -> list[str]:
    """The Dice a pip may go on (`may_raise`), in Action Card order."""
    dv = p["dice"]
    dev = dv[DEVELOP]
    out = ["develop"] if dev < 6 else []
    cap = dev if dev < 6 else 6
    for i in range(1, 6):
        if dv[i] < cap:
            out.append(DICE[i])
    return out


_INDEX = {name: i for i, name in enumerate(DICE)}


def check_pip(p: Player, die: object) -> str:
    i = _INDEX.get(die) if isinstance(die, str) else None
    if i is None:
        i = die_index(die)  # raises with the reason
    if not may_raise(p, i):
        cap = 6 if i == DEVELOP or p["dice"][DEVELOP] >= 6 else p["dice"][DEVELOP]
        raise Illegal(
            f"the {DICE[i]} Die is at {p['dice'][i]} and may not physically exceed {cap} "
            "(no Die may exceed 6 or the Develop Die)."
        )
    return DICE[i]


def gain_pip(p: Player, die: str) -> None:
    p["dice"][DICE.index(die)] += 1


def value(p: Player, number: int) -> int:
    """The value of the Die on Action Card `number` (1-6): physical, +1 when the card is flipped (but Develop,
    whose flip gains a Resource instead), plus a Special Action Card's "Extra Effect"."""
    card = p["cards"][str(number)]
    v = p["dice"][number - 1]
    if card["flipped"] and number != 1:
        v += 1
    eff = card_effect(card["id"])
    return v + int(eff.get("die_bonus", 0))
