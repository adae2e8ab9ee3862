"""Letters of Marque (rulebook: "Letters of Marque"): taken when the Peak Favor marker reaches the icon,
returned when the Current Favor marker moves back past it, taken from a player one overtakes (exchanging
one's own); a player may hold one from each empire. Their ongoing abilities are card data (icons counted as
printed on the Ship board: the base Ship's `extra_icons`).
"""

from __future__ import annotations

from typing import Any

from rules.core.events import notice
from rules.dead_reckoning.letters_of_marque.data import lom_data
from rules.dead_reckoning.letters_of_marque.model import lom
from rules.dead_reckoning.model import State


def letter_of(d: State, color: str, empire: str) -> str | None:
    """The Letter of Marque `color` holds from `empire`, if any."""
    for t in lom(d)["letters"][color]:
        if lom_data().letters[t]["empire"] == empire:
            return str(t)
    return None


def sync_icons(d: State, color: str) -> None:
    """The held Letters' icons as the Ship's `extra_icons` (absent when none)."""
    icons: dict[str, int] = {}
    for t in lom(d)["letters"][color]:
        for k, n in lom_data().letters[t]["icons"].items():
            icons[k] = icons.get(k, 0) + n
    p = d["p"][color]
    if icons:
        p["extra_icons"] = icons
    else:
        p.pop("extra_icons", None)


def peak_reached(d: State, color: str, empire: str, space: int, out: list[dict[str, Any]]) -> None:
    """ "When your Peak Favor marker advances to a space with the Letter of Marque icon, you may choose and
    gain one of the available Letter of Marque tokens for that empire": a claim the player settles."""
    if space == lom_data().empires[empire]["track"]["letter_space"] and lom(d)["letters_free"][empire]:
        lom(d)["claims"][color].append({"kind": "letter", "empire": empire})
        notice(out, "letter_offered", player=color, empire=empire)


def current_moved(d: State, color: str, empire: str, old: int, new: int, out: list[dict[str, Any]]) -> None:
    """Returning a Letter when falling back past its icon; offering an overtaken player's Letter."""
    x = lom(d)
    ls = lom_data().empires[empire]["track"]["letter_space"]
    if new < old:
        mine = letter_of(d, color, empire)
        if mine and old >= ls > new:
            # "If your Current Favor marker moves backward past the Letter of Marque icon space, return it"
            x["letters"][color].remove(mine)
            x["letters_free"][empire].append(mine)
            x["letters_free"][empire].sort()
            sync_icons(d, color)
            notice(out, "letter_returned", player=color, empire=empire, letter=mine)
        return
    for other in d["players"]:
        # passing a marker: it stood on the space we left and is now behind us (markers move one space)
        if other != color and x["favour"][other][empire][0] == old and letter_of(d, other, empire):
            x["claims"][color].append({"kind": "overtake", "empire": empire, "from": other})
            notice(out, "letter_offered", player=color, empire=empire, holder=other)


def take_letter(d: State, color: str, letter: str, out: list[dict[str, Any]]) -> None:
    """One Letter per empire (as the overtaking rule's exchange implies): one already held from that empire
    goes back to its board."""
    x = lom(d)
    empire = lom_data().letters[letter]["empire"]
    x["letters_free"][empire].remove(letter)
    mine = letter_of(d, color, empire)
    if mine:
        x["letters"][color].remove(mine)
        x["letters_free"][empire] = sorted([*x["letters_free"][empire], mine])
    x["letters"][color].append(letter)
    sync_icons(d, color)
    notice(out, "letter_taken", player=color, empire=empire, letter=letter)


def overtake(d: State, color: str, empire: str, victim: str, out: list[dict[str, Any]]) -> None:
    """ "you may take it from them, exchanging it for your own Letter of Marque from the same empire if you
    have one"."""
    x = lom(d)
    theirs = letter_of(d, victim, empire)
    assert theirs is not None  # the claim's check
    mine = letter_of(d, color, empire)
    x["letters"][victim].remove(theirs)
    x["letters"][color].append(theirs)
    if mine:
        x["letters"][color].remove(mine)
        x["letters"][victim].append(mine)
    sync_icons(d, color)
    sync_icons(d, victim)
    notice(out, "letter_taken", player=color, empire=empire, letter=theirs, taken_from=victim, given=mine)
