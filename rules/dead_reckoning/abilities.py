"""Abilities (rulebook: "Abilities" and the Sailor Card Reference): using a played card's ability once per
turn, its cost, its choice, and each effect kind (gain, Influence, produce, build, upgrade, repair, Sails).

`use_ability` checks every effect before any is applied; `always_passes`/`sure_ability` say which
abilities no check can refuse (the legal-action generator offers those without a full check).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from contracts.grid import HARBOR, SQUARES, neighbours, step
from rules.core.actions import Action
from rules.core.errors import Ambiguous, Illegal, Invalid
from rules.core.events import notice
from rules.dead_reckoning.achievements import affected, check_achievements
from rules.dead_reckoning.buildings import fortified_against
from rules.dead_reckoning.buying import pay_from, pay_plan
from rules.dead_reckoning.cards import BUILDINGS, building_cost, card_abilities, card_icons, catalog
from rules.dead_reckoning.islands import blockaded, check_influence, island_at, place_influence
from rules.dead_reckoning.model import State
from rules.dead_reckoning.phases import mark_acted, require_active
from rules.dead_reckoning.ship import BASE_HULL, MAX_SAILS, gain_to_ship, int_field, room_in_hold, ship_after


def always_passes(ab: dict[str, Any]) -> bool:
    """True for an ability whose check cannot refuse it once the turn's preconditions hold: no Harbor-only
    clause, no cost, only Cargo/Coins gained to the Dock and Sails. (The offer plan, memoised in the
    catalogue, keeps this verdict per card.)"""
    return (
        ab.get("where") != "harbor"
        and not ab.get("pay", {}).get("cargo", 0)
        and "effects" in ab
        and all(e["do"] == "sails" or (e["do"] == "gain" and e.get("to") == "dock") for e in ab["effects"])
    )


def sure_ability(d: State, player: str, a: dict[str, Any], found: tuple[str, dict[str, Any]]) -> bool:
    """True when `check_use_ability(d, player, a, found)` certainly passes: `a` names an ability found on a
    played card of the active player, unused this turn, of a kind `always_passes` vouches for. Most offered
    abilities are such, and their full check, re-run after every action, was the bulk of `legal_actions`."""
    if d["phase"] != "main" or d["pending"] or d["battle"] or player != d["active"]:
        return False
    ab = found[1]
    if a.get("ability") in d["p"][player]["used"] or "battle" in ab or type(a.get("args", {})) is not dict:
        return False
    if "choice" in ab:
        ch = a.get("choice")
        if type(ch) is not int or not 0 <= ch < len(ab["choice"]):
            return False
        ab = ab["choice"][ch]
    return always_passes(ab)


def find_ability(d: State, player: str, ability_id: Any) -> tuple[str, dict[str, Any]]:
    p = d["p"][player]
    if not isinstance(ability_id, str) or ":" not in ability_id:
        raise Invalid(
            "name the ability as '<card>:L<level>:<n>' or '<card>:<advancement>:<n>' (see legal actions)."
        )
    card = ability_id.split(":", 1)[0]
    if card not in p["cards"]:
        raise Invalid(f"{card!r} is not one of {player}'s Sailor cards.")
    if card not in p["played"]:
        raise Illegal(f"{card} has not been played: only abilities of played cards can be used.")
    for aid, ab in card_abilities(catalog(d), card, p["cards"][card]):
        if aid == ability_id:
            return card, ab
    raise Invalid(f"{ability_id} is not an ability on {card} at its current level.")


def check_use_ability(
    d: State, player: str, a: dict[str, Any], found: tuple[str, dict[str, Any]] | None = None
) -> dict[str, Any]:
    """`found`: (card, ability) when the caller has just looked `a["ability"]` up on a played card."""
    p = require_active(d, player, "use an ability")
    aid = a.get("ability")
    card, ab = found or find_ability(d, player, aid)
    if aid in p["used"]:
        raise Illegal("each ability can be used only once per turn, and this one has been used.")
    if "battle" in ab:
        raise Illegal("a BATTLE ability can be used only during a battle.")
    if "choice" in ab:
        ch = a.get("choice")
        if ch is None:
            raise Ambiguous(
                "this ability offers a choice: say which effect with 'choice' (0, 1, ...).",
                list(range(len(ab["choice"]))),
            )
        if not isinstance(ch, int) or isinstance(ch, bool) or not 0 <= ch < len(ab["choice"]):
            raise Invalid(f"'choice' must be 0 to {len(ab['choice']) - 1}.")
        ab = ab["choice"][ch]
    norm: dict[str, Any] = {"type": "use_ability", "ability": aid, "choice": a.get("choice")}
    cat = catalog(d)
    icons = card_icons(cat, p["cards"][card])
    if ab.get("where") == "harbor" and p["ship"]["at"] != HARBOR:
        raise Illegal("this ability can be used only while your Ship is in Harbor.")
    cost = ab.get("pay", {}).get("cargo", 0)
    if cost:
        norm["pay"] = pay_plan(p, a.get("pay"), cost, from_dock=ab["pay"]["from"] == "ship_or_dock")
    sim = {"dock": p["dock"] - norm.get("pay", {}).get("dock", 0)}
    args = a.get("args", {})
    if not isinstance(args, dict):
        raise Invalid('\'args\' must be an object (e.g. {"replace": ["blue"]} or {"islands": ["r2c1"]}).')
    for i, e in enumerate(ab["effects"]):
        if e["do"] == "influence" and len(ab["effects"]) > 1 and not _influence_possible(d, player):
            # "you must use all the Influence cubes possible from that ability": none is possible here, and
            # the ability's other effects (Deck Hand 4's 3 Sails) still happen
            norm[f"e{i}"] = {"replace": []}
            continue
        norm[f"e{i}"] = _check_effect(d, player, e, args, icons, sim, norm)
    return norm


def _influence_possible(d: State, player: str) -> bool:
    """Whether a cube could be placed where the player's Ship is (an island, not blockaded or guarded)."""
    at = d["p"][player]["ship"]["at"]
    return bool(island_at(d, at)) and not blockaded(d, at, player) and not fortified_against(d, at, player)


def _check_effect(
    d: State,
    player: str,
    e: dict[str, Any],
    args: Any,
    icons: dict[str, int],
    sim: dict[str, Any],
    norm: dict[str, Any],
) -> dict[str, Any]:
    cat = catalog(d)
    p = d["p"][player]
    args = args if isinstance(args, dict) else {}
    do = e["do"]
    if do == "gain":
        n = e["amount"] * (icons.get(e["per"], 0) if "per" in e else 1)
        to_ship = 0
        if e["to"] == "ship":
            to_ship = n
        elif e["to"] == "dock_or_ship":
            to_ship = int_field(args, "to_ship", 0, 0, n)
        if to_ship:
            pay = norm.get("pay", {"holds": [0, 0]})
            room = room_in_hold(p, 0) + room_in_hold(p, 1) + pay["holds"][0] + pay["holds"][1]
            if to_ship > room:
                raise Illegal(
                    f"your Ship has room for {room} more; unload or jettison first to take {to_ship} on "
                    "board."
                )
        return {"what": e["what"], "total": n, "to_ship": to_ship}
    if do == "sails":
        return {"amount": e["amount"]}
    if do == "repair":
        if p["ship"]["damage"] == 0:
            raise Illegal("your Ship has no Damage to repair.")
        return {"amount": e["amount"]}
    if do == "influence":
        return check_influence(d, player, e["amount"], args)
    if do == "produce":
        sqs = args.get("islands")
        if sqs is None:
            raise Ambiguous(
                f"choose up to {e['amount']} different islands to produce on ('islands': [squares]).",
                [sq for sq in SQUARES if d["grid"][sq]["island"]],
            )
        if not isinstance(sqs, list) or len(set(sqs)) != len(sqs) or not 1 <= len(sqs) <= e["amount"]:
            raise Invalid(f"'islands' must list 1 to {e['amount']} different island squares.")
        for sq in sqs:
            if sq not in SQUARES or not d["grid"][sq]["island"]:
                raise Illegal(f"{sq} is not a revealed island.")
            if fortified_against(d, sq, player):
                raise Illegal(f"an opponent's Fort or Garrison guards {sq}: you cannot produce there.")
        return {"islands": list(sqs), "boost": e.get("boost", {})}
    if do == "build":
        builds = args.get("builds")
        if not isinstance(builds, list) or not 1 <= len(builds) <= e["amount"]:
            raise Invalid(f'\'builds\' must list 1 to {e["amount"]} buildings as {{"square", "building"}}.')
        total = 0
        seen: set[tuple[str, str]] = set()
        for b in builds:
            sq, kind = (b.get("square"), b.get("building")) if isinstance(b, dict) else (None, None)
            if kind not in BUILDINGS or sq not in SQUARES:
                raise Invalid(
                    "each build needs a 'square' (r1c1..r4c3) and a 'building' (fort, garrison, outpost)."
                )
            isl = d["grid"][sq]["island"]
            if not isl or isl["controller"] != player:
                raise Illegal(f"you can build only on islands you control, and you do not control {sq}.")
            if isl["buildings"][kind] or (sq, kind) in seen:
                raise Illegal(f"{sq} already has a {kind}: each island has at most one of each Building.")
            if d["supply"][kind] - sum(1 for s in seen if s[1] == kind) <= 0:
                raise Illegal(f"there are no {kind}s left in the supply.")
            seen.add((sq, kind))
            total += building_cost(cat, d["grid"][sq]["board"], kind)  # doubled on Golden Island
        plan = pay_plan({"dock": sim["dock"], "ship": ship_after(p, norm)}, args.get("pay"), total, True)
        return {"builds": [{"square": b["square"], "building": b["building"]} for b in builds], "pay": plan}
    if do == "upgrade":
        tile = args.get("tile")
        opts = [
            t
            for t, s in cat.upgrades.items()
            if s["category"] == e["category"] and d["upgrade_supply"][t] > 0
        ]
        if tile is None:
            if len(opts) == 1:
                tile = opts[0]
            else:
                raise Ambiguous(f"choose a {e['category']} Ship Upgrade tile ('tile').", opts)
        if tile not in opts:
            raise Illegal(f"{tile!r} is not an available {e['category']} Ship Upgrade tile.")
        blank = [i for i in range(4) if not p["ship"]["hull"][i] and not BASE_HULL[i]]
        space = args.get("space", blank[0] if blank else None)
        if space is None:
            raise Ambiguous(
                "every hull space is covered: choose which one to cover ('space': 0-3).", [0, 1, 2, 3]
            )
        if space not in (0, 1, 2, 3):
            raise Invalid("'space' must be 0 to 3.")
        if blank and space not in blank:
            # "place it on a blank space of your Ship. If all the spaces are full ... replace one"
            raise Illegal(
                f"hull space {space} is already full and space {blank[0]} is still blank: a Ship Upgrade "
                "goes on a blank space; one may be covered only when all spaces are full."
            )
        return {"tile": tile, "space": space}
    raise Invalid(f"unknown effect {do!r}.")


# What each effect (`_do_effect`, below) changes of the achievements' inputs (`ACHIEVEMENT_INPUTS` in
# achievements.py); paying Cargo changes none. After an ability only the achievements reading these are
# checked; an effect kind not listed here (an expansion's) has them all checked.
EFFECT_CHANGES: Mapping[str, frozenset[str]] = {
    "gain": frozenset({"chest"}),  # Coins not taken aboard go to the chest
    "sails": frozenset(),
    "repair": frozenset(),
    "produce": frozenset(),  # Cargo and Coins onto islands
    "influence": frozenset({"islands", "cubes"}),  # cubes placed, control, cubes taken back
    "build": frozenset({"islands"}),
    "upgrade": frozenset({"hull"}),
}
_AFTER: dict[str | tuple[str, ...], frozenset[str] | None] = {}


def achievements_after(effects: list[dict[str, Any]]) -> frozenset[str] | None:
    """The achievements an ability with these effects may complete (None: all), by `EFFECT_CHANGES`;
    remembered by the effects' kinds (most abilities have one)."""
    kinds = effects[0]["do"] if len(effects) == 1 else tuple([e["do"] for e in effects])
    if kinds not in _AFTER:
        each = (kinds,) if isinstance(kinds, str) else kinds
        known = all(k in EFFECT_CHANGES for k in each)
        _AFTER[kinds] = affected(c for k in each for c in EFFECT_CHANGES[k]) if known else None
    return _AFTER[kinds]


def do_use_ability(d: State, player: str, a: dict[str, Any], out: list[dict[str, Any]]) -> None:
    mark_acted(d, player)
    p = d["p"][player]
    card, ab = find_ability(d, player, a["ability"])
    if "choice" in ab:
        ab = ab["choice"][a["choice"]]
    p["used"].append(a["ability"])
    if "pay" in a:
        pay_from(d, p, a["pay"])
    for i, e in enumerate(ab["effects"]):
        _do_effect(d, player, e, a[f"e{i}"], out)
    check_achievements(d, player, out, achievements_after(ab["effects"]))


def _do_effect(
    d: State, player: str, e: dict[str, Any], x: dict[str, Any], out: list[dict[str, Any]]
) -> None:
    cat = catalog(d)
    p = d["p"][player]
    do = e["do"]
    if do == "gain":
        what, total, ship = x["what"], x["total"], x["to_ship"]
        d["supply"][what] -= total
        left = gain_to_ship(d, p, what, ship)
        d["supply"][what] += left
        if what == "cargo":
            p["dock"] += total - ship
        else:
            p["chest"] += total - ship
    elif do == "sails":
        if d["turn"]["sails_set"]:
            p["ship"]["sails"] = min(MAX_SAILS, p["ship"]["sails"] + x["amount"])
        else:
            d["turn"]["extra_sails"] += x["amount"]
    elif do == "repair":
        p["ship"]["damage"] = max(0, p["ship"]["damage"] - x["amount"])
    elif do == "influence":
        if x["replace"]:  # empty where no cube could be placed (`_influence_possible`)
            place_influence(d, player, x["replace"], out, x.get("take_from"))
    elif do == "produce":
        for sq in x["islands"]:
            isl = d["grid"][sq]["island"]
            board = d["grid"][sq]["board"]
            assert isl is not None and board is not None  # the check named islands only
            spec = cat.boards[board]
            cargo = spec["production"].get("cargo", 0) + x["boost"].get("cargo", 0)
            coins = spec["production"].get("coins", 0) + x["boost"].get("coins", 0)
            for nb in neighbours(sq):
                if nb == HARBOR:
                    continue
                nbb = d["grid"][nb]["board"]
                if nbb and cat.boards[nbb]["kind"] == "open_sea":
                    cargo += sum(1 for arrow in cat.boards[nbb]["arrows"] if step(nb, arrow) == sq)
            if isl["buildings"]["outpost"]:
                cargo, coins = cargo + 1, coins + 1
            isl["cargo"] += cargo
            isl["coins"] += coins
            d["supply"]["cargo"] -= cargo
            d["supply"]["coins"] -= coins
            notice(out, "produced", square=sq, cargo=cargo, coins=coins)
    elif do == "build":
        pay_from(d, p, x["pay"])
        for b in x["builds"]:
            built_on = d["grid"][b["square"]]["island"]
            assert built_on is not None  # the check allowed building only on islands you control
            built_on["buildings"][b["building"]] = True
            d["supply"][b["building"]] -= 1
    elif do == "upgrade":
        d["upgrade_supply"][x["tile"]] -= 1
        p["ship"]["hull"][x["space"]].append(x["tile"])


ACTIONS: tuple[Action[State], ...] = (Action("use_ability", check_use_ability, do_use_ability),)


# the effect checks and effects by their public names, for expansions granting an effect outside a card
check_effect = _check_effect
do_effect = _do_effect
