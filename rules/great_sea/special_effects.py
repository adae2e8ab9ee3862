"""The Special Action Cards' "3rd Effect"s the engine plays (rulebook: "Special Action Cards"): one
`special_effect` action, after the card's own effects, as the card's `effect.third` in
rules/data/great_sea/special_actions.json says:

- `pip`: "Spend 1 Coin (Wood) to gain 1 pip" (`die`);
- `improve`: "Pay to improve a Ship Class Tile or Fleet Tile" (`tiles`, one);
- `place_fort`: "Spend 1 Coin to place a Stronghold (Control required)" / "Spend 1 Wood to place an
  Outpost" (`region`, as Fortify places it: a Foundation, the Fortify Die, its benefit; no Trade Points);
- `flip_tile`: "Spend 2 Wood to flip a Ship Upgrade Tile to its opposite side" (`cls`, `part`).
"""

from __future__ import annotations

from typing import Any

from rules.core.actions import Action
from rules.core.errors import Illegal, Invalid
from rules.core.events import notice
from rules.great_sea.data import PARTS
from rules.great_sea.develop import IMPROVABLE, improve_cost
from rules.great_sea.dice import check_pip, gain_pip
from rules.great_sea.fortify import check_place, place_fort
from rules.great_sea.model import State, gain, resource
from rules.great_sea.special_actions import card_effect
from rules.great_sea.start_of_turn import ship_class
from rules.great_sea.worker import open_step, step_done

THIRD = 2  # the effect index after the card's two own effects


def third_of(d: State, player: str) -> dict[str, Any]:
    op = d["turn"]["open"]
    card = op["card"] if op else 1
    p = open_step(d, player, card, THIRD)
    eff: dict[str, Any] | None = card_effect(p["cards"][str(card)]["id"]).get("third")
    if not eff:
        raise Illegal("this Action Card has no extra effect the engine plays (docs/great-sea.md).")
    return eff


def check_special_effect(d: State, player: str, action: dict[str, Any]) -> dict[str, Any]:
    eff = third_of(d, player)
    p = d["p"][player]
    pay = dict(eff["pay"])
    out: dict[str, Any] = {"type": "special_effect", "pay": pay}
    if "improve" in eff:
        tiles = action.get("tiles")
        if not isinstance(tiles, list) or len(tiles) != 1 or tiles[0] not in IMPROVABLE:
            raise Invalid("say the one tile to improve: tiles ['small'|'medium'|'large'|'fleet'].")
        res, n = improve_cost(p, tiles[0])
        pay[res] = pay.get(res, 0) + n
        out["tiles"] = list(tiles)
    for res, n in pay.items():
        if resource(p, res) < n:
            raise Illegal(f"the effect costs {n} {res.capitalize()} and you have {resource(p, res)}.")
    if "pip" in eff:
        out["die"] = check_pip(p, action.get("die"))
    elif "place_fort" in eff:
        out["place"] = check_place(d, player, p, {**action, "fort": eff["place_fort"]})
    elif "flip_tile" in eff:
        cls, part = ship_class(action.get("cls")), action.get("part")
        if part not in PARTS or p["ship_tiles"][cls][str(part)] is None:
            raise Illegal(
                f"your {cls} Ship has no Upgrade Tile on that part to flip (say part stern/hull/bow)."
            )
        out["cls"], out["part"] = cls, part
    return out


def special_effect(d: State, player: str, a: dict[str, Any], out: list[dict[str, Any]]) -> None:
    p = d["p"][player]
    for res, n in a["pay"].items():
        gain(p, res, -n)
    if "die" in a:
        gain_pip(p, a["die"])
    if "tiles" in a:
        t = a["tiles"][0]
        if t == "fleet":
            p["fleet"] += 1
        else:
            p["classes"][t] += 1
    if "place" in a:
        place_fort(d, player, a["place"], out)
    if "part" in a:
        tile = p["ship_tiles"][a["cls"]][a["part"]]
        assert tile is not None
        tile["flipped"] = not tile["flipped"]
        notice(out, "tile_flipped", player=player, cls=a["cls"], part=a["part"])
    step_done(d, THIRD + 1)


ACTIONS = (Action("special_effect", check_special_effect, special_effect),)
