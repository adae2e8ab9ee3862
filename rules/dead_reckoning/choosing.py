"""The `choose` action: a player answers one of their pending choices (`rules.dead_reckoning.choices`:
plunder that did not fit, a gain owed to a full Ship, Battle cubes taken from islands when short, an
achievement cube earned with an empty supply)."""

from __future__ import annotations

from typing import Any

from rules.core.actions import Action
from rules.core.errors import Illegal, Invalid
from rules.core.events import notice
from rules.dead_reckoning.battles import refresh_battle
from rules.dead_reckoning.choices import (
    KINDS,
    battle_cube_options,
    check_achievement_cube,
    check_plunder,
    let_owed_go,
    place_achievement_cube,
    place_plunder,
    shortfall,
)
from rules.dead_reckoning.model import State


def check_choose(d: State, player: str, a: dict[str, Any]) -> dict[str, Any]:
    if player not in d["players"]:
        raise Illegal("only a player answers their own choices.")
    if d["phase"] != "main":
        raise Illegal("there is nothing left to choose: the game is over.")
    kind, o = a.get("choice"), a.get("option")
    if kind not in KINDS:
        raise Invalid(f"'choice' must be one of {', '.join(KINDS)}, not {kind!r}.")
    if not isinstance(o, dict):
        raise Invalid("'option' must be one of the options the table offers (an object).")
    if kind == "plunder":
        return {"type": "choose", "choice": kind, "option": check_plunder(d, player, o)}
    if kind == "owed":
        if not d["p"][player].get("owed"):
            raise Illegal("nothing is owed to your Ship: there is no gain waiting for room.")
        if o.get("to") != "discard":
            raise Invalid(
                "an owed gain is taken aboard by making room (jettison, unload); the only choice here is "
                "{'to': 'discard'}: let it go back to the supply."
            )
        return {"type": "choose", "choice": kind, "option": {"to": "discard"}}
    if kind == "achievement_cube":
        return {"type": "choose", "choice": kind, "option": check_achievement_cube(d, player, o)}
    short = shortfall(d, player)
    if short is None:
        raise Illegal(
            "you have no Battle cubes to choose: you are not short of cubes in a battle whose drop has "
            "not begun."
        )
    if o.get("fewer") is True:
        return {"type": "choose", "choice": kind, "option": {"fewer": True}}
    sq = o.get("square")
    if {"square": sq} not in battle_cube_options(d, player):
        raise Illegal(
            f"{sq!r} has none of your non-permanent cubes left to take: pick an island with one, or fight "
            "with fewer cubes ({'fewer': true})."
        )
    return {"type": "choose", "choice": kind, "option": {"square": sq}}


def do_choose(d: State, player: str, a: dict[str, Any], out: list[dict[str, Any]]) -> None:
    kind, o = a["choice"], a["option"]
    if kind == "plunder":
        place_plunder(d, player, o)
        notice(out, "plunder_placed", player=player, what=o["what"], count=o["count"], to=o["to"])
    elif kind == "owed":
        let_owed_go(d, player)
    elif kind == "achievement_cube":
        place_achievement_cube(d, player, o, out)
    else:
        b = d["battle"]
        assert b is not None  # the check found the battle
        chosen = b.setdefault("island_cubes", {}).setdefault(player, {"squares": [], "fewer": False})
        if o.get("fewer"):
            chosen["fewer"] = True
        else:
            chosen["squares"].append(o["square"])
        refresh_battle(d, out)  # the side's cube count follows the choice


ACTIONS: tuple[Action[State], ...] = (Action("choose", check_choose, do_choose, undoable=False),)
