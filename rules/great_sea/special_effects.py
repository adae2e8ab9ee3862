"""The effects a Special Action Card adds to its action (rulebook: "Special Action Cards"): one
`special_effect` action at the card's place, as the card's `effect.second` or `effect.third` in
rules/data/great_sea/special_actions.json says (a card adds at most one):

- `pip`: "Spend 1 Coin (Wood) to gain 1 pip" (`die`);
- `improve`: "Pay to improve a Ship Class Tile or Fleet Tile" (`tiles`, one);
- `place_fort`: "Spend 1 Coin to place a Stronghold (Control required)" / "Spend 1 Wood to place an
  Outpost" (`region`, as Fortify places it: a Foundation, the Fortify Die, its benefit; no Trade Points);
- `flip_tile`: "Spend 2 Wood to flip a Ship Upgrade Tile to its opposite side" (`cls`, `part`);
- `tile`: "Gain a Large (Small) Fort Upgrade Tile, paying 1 less Coin" / "Exhaust 1 Trade Post to gain a
  Ship Upgrade Tile, spending 1 less Coin" (`pile`, then `cls` or `fort` and `place`, as Research gains
  one; the Pile moves to the left of the grid);
- `construct`: "Construct a Medium or Large Ship, paying 1 less Wood" / "Construct a Small Ship, paying 1
  less Wood" (`cls`, `region`, as Construct places one, without a pip);
- `move` `region`: "Move any number of Ships in or out of 1 region using their Speed" (`region`, `moves`, as
  one Mobilise pip); `move` `shipyard`: "Move 1 Ship to an adjacent region with a Shipyard or from a
  Shipyard to an adjacent region" (`from`, `to`, `cls`, as the start-of-turn move, without a Trade Post);
- `worker`: "New 2nd Effect: Use 4 pips from this action to gain a Neutral Worker" (no field; the
  action's "Gain 1 pip" comes after it).
"""

from __future__ import annotations

from typing import Any

from rules.core.actions import Action
from rules.core.errors import Illegal, Invalid
from rules.core.events import notice
from rules.great_sea.construct import build, check_build
from rules.great_sea.control import exhaust, refreshed_posts
from rules.great_sea.data import PARTS
from rules.great_sea.develop import IMPROVABLE, improve_cost
from rules.great_sea.dice import check_pip, gain_pip
from rules.great_sea.fortify import check_place, place_fort
from rules.great_sea.mobilise import check_moves
from rules.great_sea.model import State, gain, resource
from rules.great_sea.research import check_tile, gain_tile
from rules.great_sea.special_actions import card_effect
from rules.great_sea.start_of_turn import check_shipyard_move, move_ship, region, ship_class
from rules.great_sea.temples import recheck
from rules.great_sea.upgrades import tile_types
from rules.great_sea.worker import open_step, require_turn, step_done

PLACES = {"second": 1, "third": 2}  # the effect's index (0-based) on its Action Card


def extra_of(d: State, player: str) -> tuple[dict[str, Any], int]:
    """The open Action Card's added effect and its index (Illegal when it has none or it is past)."""
    require_turn(d, player)
    op = d["turn"]["open"]
    card = op["card"] if op else 1
    eff = card_effect(d["p"][player]["cards"][str(card)]["id"])
    for key, at in PLACES.items():
        if key in eff:
            open_step(d, player, card, at)
            extra: dict[str, Any] = eff[key]
            return extra, at
    open_step(d, player, card, PLACES["third"])
    raise Illegal("this Action Card has no extra effect (docs/great-sea.md).")


def check_special_effect(d: State, player: str, action: dict[str, Any]) -> dict[str, Any]:
    eff, at = extra_of(d, player)
    p = d["p"][player]
    pay = dict(eff.get("pay", {}))
    out: dict[str, Any] = {"type": "special_effect", "pay": pay, "at": at}
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
    elif "tile" in eff:
        pile = action.get("pile")
        rows = eff["tile"]
        if not isinstance(pile, str) or pile not in d["piles"] or tile_types()[pile]["row"] not in rows:
            names = sorted(k for k, v in tile_types().items() if v["row"] in rows)
            raise Invalid(f"say the Pile to gain from: pile one of {', '.join(names)}.")
        if eff.get("exhaust") and len(refreshed_posts(d, player)) < eff["exhaust"]:
            raise Illegal("this effect exhausts 1 Trade Post and you have no refreshed one on the Map.")
        out["gain"] = check_tile(d, p, pile, eff["less"], action)
        out["exhaust"] = eff.get("exhaust", 0)
    elif "construct" in eff:
        cls = ship_class(action.get("cls"))
        if cls not in eff["construct"]:
            allowed = " or ".join(c.capitalize() for c in eff["construct"])
            raise Illegal(f"this effect constructs a {allowed} Ship only.")
        out["build"] = check_build(d, player, p, cls, region(d, action.get("region")), eff["less"])
    elif eff.get("move") == "region":
        out["region"], out["moves"] = check_moves(d, player, p, action)
    elif eff.get("move") == "shipyard":
        out["move"] = check_shipyard_move(d, player, p, action)
    elif "worker" in eff:
        op = d["turn"]["open"]
        assert op is not None
        if op["pips"] < eff["worker"]:
            raise Illegal(f"a Neutral Worker uses {eff['worker']} pips and {op['pips']} are left.")
        out["pips"] = eff["worker"]
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
    if "gain" in a:
        exhaust(d, player, a["exhaust"])
        gain_tile(d, player, a["gain"], out)
    if "build" in a:
        build(d, player, a["build"], out)
    if "moves" in a:
        for f, t, cls in a["moves"]:
            move_ship(d, player, f, t, cls)
        notice(out, "ships_moved", player=player, moves=a["moves"])
        recheck(d, out)
    if "move" in a:
        m = a["move"]
        move_ship(d, player, m["from"], m["to"], m["cls"])
        notice(out, "ships_moved", player=player, moves=[[m["from"], m["to"], m["cls"]]])
        recheck(d, out)
    if "pips" in a:
        op = d["turn"]["open"]
        assert op is not None
        op["pips"] -= a["pips"]
        p["neutral"] += 1
        notice(out, "neutral_worker", player=player, why="special action card")
    step_done(d, a["at"] + 1)


ACTIONS = (Action("special_effect", check_special_effect, special_effect),)
