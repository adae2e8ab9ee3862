"""Battles (rulebook: "Battles"): attacking a ship (`attack`), a Merchant (`attack_merchant`) or a Fort/
Garrison (`attack_building`), being provoked by Pirate-mode ships when stopping, the battle setup the
engine hands to `rules.battle` (cubes from Cannons, Buildings, Harbor and final-turn bonuses), and the
outcome applied back (`resolve_battle`, `apply_battle_outcome`): damage, plunder, Legendary cubes,
Merchant win effects, Buildings removed, sinking. The five steps themselves are `rules.battle`'s.
"""

from __future__ import annotations

import marshal
from dataclasses import fields
from typing import Any

from contracts.grid import HARBOR, SQUARES
from rules.battle.contract import OPTIONAL_FIELDS, BattleAbility, BattleOutcome, BattleSetup, BattleSide
from rules.battle.helpers import battle_cubes, building_cubes, counts_for_legendary, loser_damage, sinks
from rules.core.actions import Action
from rules.core.errors import Illegal, Invalid
from rules.core.events import notice
from rules.core.state import copy_data, plain
from rules.dead_reckoning.achievements import check_achievements, earn_cube
from rules.dead_reckoning.buildings import building_bonus
from rules.dead_reckoning.cards import card_abilities, card_icons, catalog, played_icons
from rules.dead_reckoning.choices import chosen_island_cubes, leave_plunder, plunder_has_a_choice
from rules.dead_reckoning.islands import blockaded, island_at, recheck_control
from rules.dead_reckoning.model import State
from rules.dead_reckoning.phases import (
    active_player,
    battle_players,
    battle_under_way,
    mark_acted,
    require_active,
)
from rules.dead_reckoning.ship import gain_to_ship, hull_icons, owe_gain, room_in_hold, ship_icon
from rules.dead_reckoning.sinking import deal_damage, sink_ship


def check_attack(d: State, player: str, a: dict[str, Any]) -> dict[str, Any]:
    p = require_active(d, player, "attack")
    target = a.get("target")
    if target not in d["players"] or target == player:
        raise Invalid("'target' must be an opponent's colour.")
    at = p["ship"]["at"]
    if d["p"][target]["ship"]["at"] != at:
        raise Illegal(f"{target}'s Ship is not on your board.")
    if target in d["turn"]["battled"]:
        raise Illegal("you may never battle the same Ship more than once in a turn.")
    cat = catalog(d)
    free = at != HARBOR and d["p"][target]["ship"]["pirate"]
    if not free and played_icons(cat, p, "attack_flag") - p["flags_used"] <= 0:
        raise Illegal("attacking a Ship needs an unused Attack Flag on a card you played this turn.")
    return {"type": "attack", "target": target, "flag": not free, "cannons": a.get("cannons")}


def do_attack(d: State, player: str, a: dict[str, Any], out: list[dict[str, Any]]) -> None:
    mark_acted(d, player)
    if a["flag"]:
        d["p"][player]["flags_used"] += 1
    d["battle_queue"] = [
        {"kind": "ship", "defender": a["target"], "provoked": False, "cannons": a["cannons"]}
    ]
    next_battle(d, out)


def check_attack_merchant(d: State, player: str, a: dict[str, Any]) -> dict[str, Any]:
    p = require_active(d, player, "attack")
    at = p["ship"]["at"]
    card = d["grid"][at]["card"] if at != HARBOR else None
    if card is None or "encounter" not in catalog(d).cards[card]:
        raise Illegal("there is no Merchant ship where your Ship is.")
    if d["turn"]["bought"] >= 2:
        raise Illegal("you may buy or resolve at most 2 Advancements/Encounters each turn.")
    return {"type": "attack_merchant", "card": card, "cannons": a.get("cannons")}


def do_attack_merchant(d: State, player: str, a: dict[str, Any], out: list[dict[str, Any]]) -> None:
    mark_acted(d, player)
    d["turn"]["bought"] += 1
    d["grid"][d["p"][player]["ship"]["at"]]["card"] = None
    d["battle_queue"] = [{"kind": "nonplayer", "card": a["card"], "cannons": a["cannons"]}]
    next_battle(d, out)


def check_attack_building(d: State, player: str, a: dict[str, Any]) -> dict[str, Any]:
    p = require_active(d, player, "attack")
    at = p["ship"]["at"]
    isl = island_at(d, at)
    if (
        not isl
        or isl["controller"] in (None, player)
        or not (isl["buildings"]["fort"] or isl["buildings"]["garrison"])
    ):
        raise Illegal("there is no opponent's Fort or Garrison here (Outposts cannot be attacked).")
    if blockaded(d, at, player):
        raise Illegal(
            "an opponent's Pirate-mode Ship is here: win that battle before attacking the Buildings."
        )
    if f"building:{at}" in d["turn"]["battled"]:
        raise Illegal("you may never battle the same Building more than once in a turn.")
    return {"type": "attack_building", "square": at, "cannons": a.get("cannons")}


def do_attack_building(d: State, player: str, a: dict[str, Any], out: list[dict[str, Any]]) -> None:
    mark_acted(d, player)
    d["battle_queue"] = [{"kind": "building", "square": a["square"], "cannons": a["cannons"]}]
    next_battle(d, out)


def _abilities_for(d: State, color: str, ship_battle: bool) -> tuple[BattleAbility, ...]:
    cat = catalog(d)
    p = d["p"][color]
    out = []
    for cid in p["played"]:
        card = p["cards"][cid]
        wheels = card_icons(cat, card).get("wheel", 0)
        for aid, ab in card_abilities(cat, cid, card):
            if "battle" not in ab or aid in p["used"]:
                continue
            params = dict(ab.get("params", {}))
            if ab["battle"] == "coins_per_wheel_on_win":
                if params.get("ship_battles_only") and not ship_battle:
                    continue
                params = {"coins": params.get("coins", 0) + params.get("per_wheel", 0) * wheels}
            out.append(BattleAbility(id=f"{color}:{aid}", source=cid, effect=ab["battle"], params=params))
    return tuple(out)


def _cubes_for_battle(d: State, color: str) -> int:
    """Cubes in supply plus the non-permanent ones on islands (taken, when short, and not put back)."""
    n = d["p"][color]["cubes"]
    for sq in SQUARES:
        isl = d["grid"][sq]["island"]
        if isl:
            n += isl["cubes"].count(color)
    return n


def _take_island_cubes_for_battle(
    d: State, color: str, short: int, chosen: list[str], out: list[dict[str, Any]]
) -> None:
    """The islands the player chose first ("you may remove one of your non-permanent cubes from any
    island"), then, for what they left unchosen, the islands in board order."""
    for sq in chosen:
        isl = d["grid"][sq]["island"]
        if short > 0 and isl and color in isl["cubes"]:
            isl["cubes"][isl["cubes"].index(color)] = None
            d["p"][color]["cubes"] += 1
            short -= 1
            recheck_control(d, sq, out)
    for sq in SQUARES:
        isl = d["grid"][sq]["island"]
        while short > 0 and isl and color in isl["cubes"]:
            isl["cubes"][isl["cubes"].index(color)] = None
            d["p"][color]["cubes"] += 1  # it joined the battle and now goes back to the supply
            short -= 1
            recheck_control(d, sq, out)


def _cannons_free(d: State, color: str) -> int:
    cat = catalog(d)
    p = d["p"][color]
    return max(0, ship_icon(cat, d, color, "cannon") + played_icons(cat, p, "cannon") - p["cannons_used"])


def _side(
    d: State,
    color: str,
    cannons: int,
    ship_battle: bool,
    *,
    buildings: int = 0,
    in_harbor: bool = False,
    final_bonus: bool = True,
) -> BattleSide:
    """A player's side: step 1's cube count by `rules.battle.battle_cubes` (Cannons, Buildings on their own
    island, +4 defending in Harbor, +2 after their final turn; short of cubes, their island cubes)."""
    p = d["p"][color]
    chosen, fewer = chosen_island_cubes(d, color)
    count = battle_cubes(
        cannons,
        island_buildings=buildings,
        defender_in_harbor=in_harbor,
        after_final_turn=final_bonus and p["final_done"],
        supply=p["cubes"],
        # "you may choose to take fewer cubes": only the island cubes chosen so far, once they say so
        from_islands=len(chosen) if fewer else _cubes_for_battle(d, color) - p["cubes"],
    )
    return BattleSide(
        name=color,
        is_player=True,
        cube_color=color,
        cubes=count.cubes,
        abilities=_abilities_for(d, color, ship_battle),
        hold_room=(room_in_hold(p, 0), room_in_hold(p, 1)),
        wheels=sum(card_icons(catalog(d), p["cards"][c]).get("wheel", 0) for c in p["played"]),
        damage=p["ship"]["damage"],
        pirate_mode=p["ship"]["pirate"],
    )


def build_setup(d: State) -> BattleSetup:
    """The BattleSetup for the pending battle, from the state as it is now (defender cards included)."""
    b = battle_under_way(d)
    me = active_player(d)
    at = d["p"][me]["ship"]["at"]
    free = _cannons_free(d, me)
    cannons = free if b.get("cannons") is None else min(free, b["cannons"])
    kind = b["kind"]
    b["att_cannons"] = cannons
    if kind == "ship":
        att = _side(d, me, cannons, True, buildings=building_bonus(d, me, at))
        dc = b["defender"]
        b["def_cannons"] = _cannons_free(d, dc)
        dfn = _side(
            d, dc, b["def_cannons"], True, buildings=building_bonus(d, dc, at), in_harbor=at == HARBOR
        )
    elif kind == "nonplayer":
        # against a Merchant or a Building only the Cannons count (no Building or final-turn bonus)
        att = _side(d, me, cannons, True, final_bonus=False)
        enc = catalog(d).cards[b["card"]]["encounter"]
        dfn = BattleSide(
            name=f"merchant:{b['card']}",
            is_player=False,
            cube_color="black",
            cubes=min(enc["cubes"], d["supply"]["black"]),
        )
    else:
        att = _side(d, me, cannons, False, final_bonus=False)
        isl = island_at(d, b["square"])
        assert isl is not None  # Buildings stand only on islands
        dfn = BattleSide(
            name=f"building:{b['square']}",
            is_player=False,
            cube_color="black",
            cubes=building_cubes(isl["buildings"]["fort"], isl["buildings"]["garrison"]),
        )
    return BattleSetup(
        battle_id=b["battle_id"],
        kind=kind,
        attacker=att,
        defender=dfn,
        location=at,
        provoked_by_pirate=bool(b.get("provoked")),
    )


_FIELDS: dict[type, tuple[str, ...]] = {}


def to_plain(x: Any) -> Any:
    """`plain(x.to_json())` for the battle seam's dataclasses, without `dataclasses.asdict`'s deep copies
    (a third of a battle's cost): field order, tuples as lists and fresh containers all as before."""
    cls = type(x)
    if cls in _LEAVES:
        return x
    if cls is dict:  # (never a dataclass: tested before the look-up in _FIELDS)
        return {k: v if type(v) in _LEAVES else to_plain(v) for k, v in x.items()}
    if cls is list or cls is tuple:
        return [v if type(v) in _LEAVES else to_plain(v) for v in x]
    names = _FIELDS.get(cls)
    if names is None:
        if not hasattr(cls, "__dataclass_fields__"):
            return x
        names = _FIELDS[cls] = tuple(f.name for f in fields(x))
    return {
        n: v if type(v := getattr(x, n)) in _LEAVES else to_plain(v)
        for n in names
        if n not in OPTIONAL_FIELDS or getattr(x, n)
    }


_LEAVES = frozenset((str, int, bool, float, type(None)))  # returned as they are by plain and to_plain


def next_battle(d: State, out: list[dict[str, Any]]) -> None:
    while d["battle_queue"]:
        nxt = d["battle_queue"].pop(0)
        me = active_player(d)
        if nxt["kind"] == "ship" and (
            d["p"][nxt["defender"]]["ship"]["at"] != d["p"][me]["ship"]["at"]
            or nxt["defender"] in d["turn"]["battled"]
        ):
            continue
        d["turn"]["battles"] += 1
        b = dict(nxt)
        b["battle_id"] = f"t{d['turn_no']}-b{d['turn']['battles']}"
        b["defender_player"] = nxt.get("defender")
        d["battle"] = b
        d["turn"]["battled"].append(
            nxt.get("defender")
            or (f"building:{nxt['square']}" if nxt["kind"] == "building" else f"merchant:{nxt['card']}")
        )
        b["setup"] = setup = to_plain(build_setup(d))
        notice(out, "battle_started", setup=copy_data(setup))  # the event's own copy of the state's
        return


def refresh_battle(d: State, out: list[dict[str, Any]]) -> None:
    battle_under_way(d)["setup"] = setup = to_plain(build_setup(d))
    notice(out, "battle_updated", setup=copy_data(setup))


def tiebreak_cannons(d: State, color: str) -> int:
    """ "the tied players count up all the Cannons on their Ship and on all the cards in their deck": the
    Cannon printed on the Ship board and on every Upgrade tile showing, loaded hold or not (the empty-hold
    rule is about a turn's benefits; the game is over), and on all 12 Sailor cards wherever they are."""
    cat = catalog(d)
    p = d["p"][color]
    ship = 1 + sum(hull_icons(cat, p, space).get("cannon", 0) for space in range(4))
    return ship + sum(card_icons(cat, card).get("cannon", 0) for card in p["cards"].values())


def start_tiebreak(d: State, tied: list[str], out: list[dict[str, Any]]) -> None:
    """The end-of-game tie played out as a battle among every tied player (phase "tiebreak"): each takes one
    cube per Cannon (from the islands when the supply is short; the game is scored, so the state keeps its
    cubes where they are), all drop at once, exploding shots resolve, no Battle abilities. The battle is
    read like any other (tower, camera or by hand) and resolved with `resolve_battle`."""
    scores = d["scores"]
    assert scores is not None, "the tie-break follows the scoring"
    rounds = scores.setdefault("tie_break", [])
    sides = []
    for color in tied:
        p = d["p"][color]
        count = battle_cubes(
            tiebreak_cannons(d, color),
            supply=p["cubes"],
            from_islands=_cubes_for_battle(d, color) - p["cubes"],
        )
        sides.append(BattleSide(name=color, is_player=True, cube_color=color, cubes=count.cubes))
    setup = BattleSetup(
        battle_id=f"tiebreak-{len(rounds) + 1}",
        kind="tiebreak",
        attacker=sides[0],
        defender=sides[1],
        location="table",
        more_sides=tuple(sides[2:]),
    )
    d["phase"] = "tiebreak"
    d["battle"] = {
        "kind": "tiebreak",
        "battle_id": setup.battle_id,
        "players": list(tied),
        "defender_player": None,
        "setup": to_plain(setup),
    }
    notice(out, "tie_break_started", players=list(tied), battle_id=setup.battle_id)
    notice(out, "battle_started", setup=to_plain(setup))


def finish_tiebreak(d: State, setup: BattleSetup, outcome: BattleOutcome, out: list[dict[str, Any]]) -> None:
    """ "The most Battle strength wins the game. If still tied, repeat the battle." Only the players still
    tied fight again; when none of them has a single cube the battle cannot change anything, and they share
    the win (`shared_win`)."""
    d["battle"] = None
    scores = d["scores"]
    assert scores is not None, "the tie-break follows the scoring"
    leaders = outcome.leaders()
    scores["tie_break"].append({"battle_id": setup.battle_id, "strength": dict(outcome.strengths)})
    cubes = {side.name: side.cubes for side in setup.sides()}
    if len(leaders) > 1 and any(cubes[c] for c in leaders):
        scores["tie_break_needed"] = leaders
        start_tiebreak(d, leaders, out)
        return
    scores["tie_break_needed"] = []
    if len(leaders) == 1:
        scores["winner"] = leaders[0]
    else:
        scores["shared_win"] = leaders
    d["phase"] = "over"
    notice(out, "game_over", **scores)


def check_battle_drop_started(d: State, player: str, a: dict[str, Any]) -> dict[str, Any]:
    """The battle session says the Battle cubes are being dropped: "once the battle has begun, you can no
    longer do this [rearrange, jettison] until the battle is over", and the defender's cards are chosen
    in step 1, before the drop. From this action on those are refused until `resolve_battle`."""
    b = d["battle"]
    if not b:
        raise Illegal("there is no battle under way, so no drop can start.")
    if player != "table" and player not in battle_players(d):
        raise Illegal("only the table or the players in the battle may say the drop has started.")
    if b.get("locked"):
        raise Illegal(f"the drop of battle {b['battle_id']} has already started.")
    return {"type": "battle_drop_started", "battle_id": b["battle_id"]}


def do_battle_drop_started(d: State, player: str, a: dict[str, Any], out: list[dict[str, Any]]) -> None:
    battle_under_way(d)["locked"] = True
    notice(out, "battle_locked", battle_id=a["battle_id"])


def check_resolve_battle(d: State, player: str, a: dict[str, Any]) -> dict[str, Any]:
    if not d["battle"]:
        raise Illegal("there is no battle to resolve.")
    if player != "table" and player not in battle_players(d):
        raise Illegal("only the table or the players in the battle may report its result.")
    setup = BattleSetup.from_json(d["battle"]["setup"])
    if "outcome" in a and a.get("record") is None:
        if not d["options"].get("auto_chance"):
            raise Illegal(
                "at a physical table a battle is resolved from its record, not from a ready-made outcome."
            )
        try:
            outcome = BattleOutcome.from_json(a["outcome"])
        except (TypeError, KeyError) as exc:
            raise Invalid(f"the battle outcome is malformed ({exc}).") from None
        rec = None
    else:
        rec = a.get("record")
        if not isinstance(rec, dict):
            raise Invalid("resolve_battle needs the battle 'record' from the refereeing session.")
        try:
            from rules.battle import resolve_battle
            from rules.battle.errors import BattleRecordError
        except ImportError:
            raise Illegal("battle resolution is not available in this build; send an 'outcome'.") from None
        try:
            outcome = resolve_battle(setup, rec)
        except BattleRecordError as exc:
            raise Invalid(f"the battle record was refused: {exc.message}") from None
    return resolved_battle(setup, rec, outcome)


def resolved_battle(setup: BattleSetup, rec: dict[str, Any] | None, outcome: BattleOutcome) -> dict[str, Any]:
    """The last tests of `check_resolve_battle`, on the outcome its record resolved to, and the action as
    the event keeps it."""
    if outcome.battle_id != setup.battle_id:
        raise Invalid(
            f"that result is for battle {outcome.battle_id}, but battle {setup.battle_id} is under way."
        )
    if outcome.winner not in ("attacker", "defender"):
        raise Invalid("the battle's winner must be 'attacker' or 'defender'.")
    if setup.kind == "tiebreak" and set(outcome.strengths) != {side.name for side in setup.sides()}:
        raise Invalid("a tie-break result needs every tied player's Battle strength ('strengths').")
    known = {ab.id for ab in setup.attacker.abilities + setup.defender.abilities}
    if any(x not in known for x in outcome.abilities_used):
        raise Invalid("the battle result uses an ability that neither side had.")
    for side in (outcome.attacker, outcome.defender):
        if min(side.plunder_cargo, side.plunder_coins, side.damage_dealt, side.coins_from_abilities) < 0:
            raise Invalid("the battle result has a negative number.")
    return {
        "type": "resolve_battle",
        "setup": to_plain(setup),
        "record": plain_record(rec),
        "outcome": to_plain(outcome),
    }


def plain_record(rec: Any) -> Any:
    """`plain(rec)` for a battle record, the largest part of a battle's action: a marshal copy (version 2,
    without back-references, so nothing in it is shared) when the record is plain data without tuples,
    which is what `plain` would produce; `plain` itself otherwise. The check for tuples is on marshal's
    type code "(" (a string holding "(" also sends the record to `plain`)."""
    if type(rec) is dict:
        try:
            b = marshal.dumps(rec, 2)
        except ValueError:  # something marshal cannot write
            return plain(rec)
        if b"(" not in b:
            return marshal.loads(b)
    return plain(rec)


def do_resolve_battle(d: State, player: str, a: dict[str, Any], out: list[dict[str, Any]]) -> None:
    setup = BattleSetup.from_json(a["setup"])
    outcome = BattleOutcome.from_json(a["outcome"])
    if setup.kind == "tiebreak":
        notice(out, "battle_resolved", setup=a["setup"], record=a["record"], outcome=a["outcome"])
        finish_tiebreak(d, setup, outcome, out)
        return
    apply_battle_outcome(d, setup, outcome, out)
    notice(out, "battle_resolved", setup=a["setup"], record=a["record"], outcome=a["outcome"])
    if d["turn_log"]:
        d["turn_log"][-1] = {**d["turn_log"][-1], "revealed": True}
    me = active_player(d)
    if d["p"][me]["ship"]["at"] == HARBOR and setup.location != HARBOR:
        d["battle_queue"] = []  # the attacker sank: no further battles
    next_battle(d, out)


def _merchant_effects(d: State, me: str, effects: list[dict[str, Any]], out: list[dict[str, Any]]) -> None:
    """A Merchant's Win or Lose effects (card data: `gain` effects only, docs/cards.md). A gain onto a full
    Ship is owed, not lost (`owe_gain`)."""
    for e in effects:
        n, what = e["amount"], e["what"]
        d["supply"][what] -= n
        if e["to"] == "ship":
            left = gain_to_ship(d, d["p"][me], what, n)
            if left:
                owe_gain(d, me, what, left, out)
        else:
            d["p"][me]["dock" if what == "cargo" else "chest"] += n


def apply_battle_outcome(
    d: State, setup: BattleSetup, outcome: BattleOutcome, out: list[dict[str, Any]]
) -> None:
    """Everything a finished battle changes on the table (the engine's side of the seam)."""
    me = active_player(d)
    b = d["battle"]
    d["battle"] = None
    att_won = outcome.winner == "attacker"
    at = setup.location
    dcol = setup.defender.name if setup.defender.is_player else None
    # cannons and Battle abilities are spent for the turn
    for color, side in ((me, setup.attacker), (dcol, setup.defender)):
        if color and side.cubes > d["p"][color]["cubes"]:
            chosen = (((b or {}).get("island_cubes") or {}).get(color) or {}).get("squares", [])
            _take_island_cubes_for_battle(d, color, side.cubes - d["p"][color]["cubes"], chosen, out)
    d["p"][me]["cannons_used"] += (b or {}).get("att_cannons", 0)
    if dcol:
        d["p"][dcol]["cannons_used"] += (b or {}).get("def_cannons", 0)
    for aid in outcome.abilities_used:
        color, rest = aid.split(":", 1)
        if color in d["players"]:
            d["p"][color]["used"].append(rest)
    # plunder waits for its owner to say where each goes ("placed into a hold with available capacity on
    # their Ship, on the island where the battle is taking place, or discarded back to the supply":
    # `choices.plunder_options`) whenever there is more than the supply to choose from; Coins from
    # abilities are gained on the Ship, owed when they do not fit ("if you cannot fit it onto your Ship
    # then you either have to jettison or unload it")
    for who, res in ((me, outcome.attacker), (dcol, outcome.defender)):
        if who is None:
            continue
        p = d["p"][who]
        for what, n in (("cargo", res.plunder_cargo), ("coins", res.plunder_coins)):
            if setup.kind == "building" or n == 0:
                continue
            d["supply"][what] -= n
            if plunder_has_a_choice(d, who, at):
                leave_plunder(d, who, what, n, at)
            else:  # the supply is the only place it may go
                d["supply"][what] += n
                notice(out, "plunder_placed", player=who, what=what, count=n, to="discard", auto=True)
        if res.coins_from_abilities:
            d["supply"]["coins"] -= res.coins_from_abilities
            left = gain_to_ship(d, p, "coins", res.coins_from_abilities)
            if left:
                owe_gain(d, who, "coins", left, out)
    # damage from the zones and abilities, then 1 Damage to the losing ship
    if dcol:
        deal_damage(d, dcol, outcome.attacker.damage_dealt, me, out, in_battle=True)
    deal_damage(d, me, outcome.defender.damage_dealt, dcol, out, in_battle=True)
    loser = dcol if att_won else me
    if loser:
        # 1 Damage for losing a Ship or Building battle; against a Merchant only its card's Lose effects
        if loser_damage(setup):
            deal_damage(d, loser, loser_damage(setup), me if loser == dcol else dcol, out, in_battle=True)
        if d["p"][loser]["ship"]["pirate"]:
            d["p"][loser]["ship"]["pirate"] = False
    winner = me if att_won else dcol
    if winner and counts_for_legendary(setup, outcome):
        earn_cube(d, winner, "legendary", 4, out)  # "The first 4 times you win a non-Building battle"
    if att_won and dcol:
        d["turn"]["beaten"].append(dcol)
    if setup.kind == "nonplayer":
        card = setup.defender.name.split(":", 1)[1]
        enc = catalog(d).cards[card]["encounter"]
        row = str(catalog(d).cards[card]["row"])
        # "Apply the effect on the back of the Encounter depending on whether you won or lost"
        _merchant_effects(d, me, enc.get("win" if att_won else "lose", []), out)
        if att_won:
            if enc.get("keep_on_win"):
                d["p"][me]["set_aside"].append(card)
            else:
                d["buried"][row].append(card)
        else:
            d["buried"][row].append(card)
    if setup.kind == "building" and att_won:
        isl = island_at(d, at)
        assert isl is not None  # Buildings stand only on islands
        for kind in ("fort", "garrison"):
            if isl["buildings"][kind]:
                isl["buildings"][kind] = False
                d["supply"][kind] += 1
    # ships with 5 or more Damage sink now
    for color, by in ((dcol, me), (me, dcol)):
        if color and sinks(d["p"][color]["ship"]["damage"]):
            sink_ship(d, color, by, out)
    check_achievements(d, me, out)


ACTIONS: tuple[Action[State], ...] = (
    Action("attack", check_attack, do_attack, undoable=False),
    Action("attack_merchant", check_attack_merchant, do_attack_merchant, undoable=False),
    Action("attack_building", check_attack_building, do_attack_building, undoable=False),
    Action("battle_drop_started", check_battle_drop_started, do_battle_drop_started, undoable=False),
    Action("resolve_battle", check_resolve_battle, do_resolve_battle, undoable=False),
)
