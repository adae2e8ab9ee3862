"""The legal-action generator: for any state, concrete actions a seat may take now.

Owns the enumeration only; legality itself is decided by the actions' checks, which every offered
action passes (candidates are filtered through them, or through exactly their tests: see
docs/rules-engine.md). Chance steps are offered too, as outcomes the table could report; in simulation
a battle can be resolved with a record drawn from a throwaway RNG derived from the state (the state's
own RNG is not advanced by looking). Checks run here are kept in `state.offers` for `apply`.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from functools import partial
from typing import Any, Literal, cast

from contracts.grid import ADJACENT, HARBOR, SQUARES
from rules.battle.contract import BattleOutcome, BattleSetup, SideResult
from rules.battle.resolve import outcome_of
from rules.battle.simulate import random_record_played
from rules.core.errors import RulesError
from rules.core.state import GameState, Offers, peek_rng, rng_below
from rules.dead_reckoning.abilities import always_passes, check_use_ability, sure_ability
from rules.dead_reckoning.battles import resolved_battle
from rules.dead_reckoning.cards import Catalog, building_cost, card_abilities, catalog, played_icons
from rules.dead_reckoning.choices import choice_actions
from rules.dead_reckoning.expansions import expansion, saga_part
from rules.dead_reckoning.game import expansions_of, game_for
from rules.dead_reckoning.islands import check_influence, cube_sources, island_at
from rules.dead_reckoning.model import Island, PlayerBoard, SailorCard, Ship, State
from rules.dead_reckoning.phases import battle_under_way
from rules.dead_reckoning.sailing import board_choices
from rules.dead_reckoning.ship import BASE_HULL, HOLD_CAP


def _ok(d: State, player: str, action: dict[str, Any]) -> bool:
    try:
        game_for(d["options"]).actions[action["type"]].check(d, player, action)
        return True
    except RulesError:
        return False


def offer(
    d: State,
    player: str,
    action: dict[str, Any],
    offers: Offers,
    found: tuple[str, dict[str, Any]] | None = None,
) -> bool:
    """Run `action`'s full check against `d`; if it passes, keep the result in `offers` so that `apply`, sent
    the same action unchanged against the same state and seq, does not check it a second time.
    `found`: for an ability, (card, ability) as the caller found it on a played card of `player`."""
    if found is not None and sure_ability(d, player, action, found):
        return True  # nothing kept: only the action chosen needs its normalised form, and apply checks it
    try:
        if found is not None:
            norm = check_use_ability(d, player, action, found)
        else:
            norm = game_for(d["options"]).actions[action["type"]].check(d, player, action)
    except RulesError:
        return False
    offers.keep(player, action, norm)
    return True


def chance_actions(d: State, limit: int = 40) -> list[dict[str, Any]]:
    req = d["pending"][0]
    kind = req["kind"]
    if kind == "reveal_board":
        return [{"type": "reveal_board", "square": req["square"], "board": b} for b in board_choices(d)][
            :limit
        ]
    if kind == "draw_advancement":
        return [
            {"type": "draw_advancement", "square": req["square"], "card": c}
            for c in d["decks"][str(req["row"])]
        ][:limit]
    if kind == "choose_first_player":
        return [{"type": "choose_first_player", "first": c} for c in d["players"]]
    for name in expansions_of(d["options"]) if "expansions" in d["options"] else ():
        more = expansion(name).chance_options
        opts = more(d, req) if more is not None else None
        if opts is not None:  # an expansion's outcomes a person reads off the table (die faces, tokens)
            return opts[:limit]
    # combinatorial outcomes (hands, token pairs): offer one, drawn without advancing the state's RNG
    tmp = cast(State, {**d, "rng": (d["rng"] ^ (d["seq"] * 0x9E3779B97F4A7C15)) & ((1 << 64) - 1)})
    return [game_for(d["options"]).draw_chance(tmp, req)]


def simulated_outcome(setup: BattleSetup, seed: int) -> BattleOutcome:
    """A plausible battle result for simulation: each cube lands in a random zone of a small model board."""
    r = peek_rng(seed)
    res = {}
    for name, side in (("attacker", setup.attacker), ("defender", setup.defender)):
        strength = dmg = cargo = coins = 0
        for _ in range(side.cubes):
            z = rng_below(r, 10)
            if z < 4:
                strength += 1
            elif z < 6:
                strength += 2
            elif z < 8:
                dmg += 1
            elif z == 8:
                cargo += 1
            else:
                coins += 1
        if not side.is_player:
            cargo = coins = 0
        if setup.kind == "building":
            cargo = coins = 0
        res[name] = (strength, dmg, cargo, coins)
    winner: Literal["attacker", "defender"] = (
        "attacker" if res["attacker"][0] >= res["defender"][0] else "defender"
    )
    sides = {
        n: SideResult(plunder_cargo=v[2], plunder_coins=v[3], damage_dealt=v[1], strength=v[0])
        for n, v in res.items()
    }
    return BattleOutcome(
        battle_id=setup.battle_id, winner=winner, attacker=sides["attacker"], defender=sides["defender"]
    )


def battle_actions(d: State, player: str, offers: Offers) -> list[dict[str, Any]]:
    b = battle_under_way(d)
    out: list[dict[str, Any]] = []
    if player == b.get("defender_player"):
        for c in d["p"][player]["hand"]:
            a: dict[str, Any] = {"type": "play_card", "card": c}
            if _ok(d, player, a):
                out.append(a)
    if player in (d["active"], "table") and d["options"].get("auto_chance"):
        setup = BattleSetup.from_json(b["setup"])
        seed = d["rng"] ^ (d["seq"] * 0xBF58476D1CE4E5B9)
        rec, played = random_record_played(setup, random.Random(seed))
        a = {"type": "resolve_battle", "record": rec}
        # The record was played on a tracker as it was drawn: its outcome is what `resolve_battle`'s
        # replay of the record reads (tests/rules/dead_reckoning/test_legal.py), so apply need not replay it
        # again.
        try:
            offers.keep(player, a, resolved_battle(setup, rec, outcome_of(played)))
        except RulesError:
            pass  # left to apply's full check
        out.append(a)
    return out


def _sleeve_plan(d: State, player: str) -> list[dict[str, str]]:
    cat = catalog(d)
    p = d["p"][player]
    taken: set[tuple[str, str]] = set()
    plan = []
    for adv in p["set_aside"]:
        slot = cat.cards[adv]["slot"]
        for c in p["played"]:
            if not p["cards"][c]["slots"][slot] and (c, slot) not in taken:
                taken.add((c, slot))
                plan.append({"advancement": adv, "card": c})
                break
    return plan


def _ability_args(d: State, player: str, ab: dict[str, Any]) -> dict[str, Any]:
    args: dict[str, Any] = {}
    for e in ab.get("effects", []):
        do = e["do"]
        if do == "produce":
            grid = d["grid"]
            mine, others = [], []  # own islands first, then those no opponent's Fort or Garrison guards
            for sq in SQUARES:
                isl = grid[sq]["island"]
                if isl:
                    if isl["controller"] == player:
                        mine.append(sq)
                    elif not (
                        isl["controller"] and (isl["buildings"]["fort"] or isl["buildings"]["garrison"])
                    ):
                        others.append(sq)  # not guarded: `engine.fortified_against` is False
            args["islands"] = (mine + others)[: e["amount"]]
        elif do == "build":
            for sq in SQUARES:
                isl = d["grid"][sq]["island"]
                if isl and isl["controller"] == player:
                    for kind in ("outpost", "garrison", "fort"):
                        if not isl["buildings"][kind] and d["supply"][kind] > 0:
                            args["builds"] = [{"square": sq, "building": kind}]
                            break
                if "builds" in args:
                    break
        elif do == "upgrade":
            supply = d["upgrade_supply"]
            for t, s in catalog(d).upgrades.items():  # the first tile of the category left in the supply
                if s["category"] == e["category"] and supply[t] > 0:
                    args["tile"] = t
                    break
            if all(d["p"][player]["ship"]["hull"][i] for i in (1, 2)):
                args["space"] = 1
        elif do == "influence":
            isl = island_at(d, d["p"][player]["ship"]["at"])
            if isl:
                others = [c for c in isl["cubes"] if c and c != player]
                if others:
                    args["replace"] = [others[0]] * e["amount"]
    return args


def _cube_source_variants(
    d: State, player: str, p: PlayerBoard, alt: dict[str, Any], a: dict[str, Any]
) -> list[dict[str, Any]]:
    """An Influence ability offered once per island its first cube could be taken back from when the
    player's supply may run out ("you may remove one of your non-permanent cubes from any island"): the
    player's choice; the cubes after the first come from the islands in board order."""
    for e in alt.get("effects", ()):
        if e["do"] == "influence" and p["cubes"] <= e["amount"]:  # the +1: a permanent cube on control
            sources = dict.fromkeys(cube_sources(d, player, p["ship"]["at"]))
            if len(sources) > 1:
                return [{**a, "args": {**a["args"], "take_from": [sq]}} for sq in sources]
    return [a]


# Whole offers that carry nothing a state decides beyond what they name (a Sailor card, a square, a hold and
# an amount): built once and shared, read-only, by every state's offered list, as the tablets and the
# benchmark receive them. An offered action is never edited, by the rules or by their callers (a caller
# wanting another action builds its own: docs/rules-engine.md); tests/rules/dead_reckoning/
# test_offer_templates.py plays random games and fails when one has changed. The dicts built afresh for
# each state were 2.8 % of a Letters of Marque action (docs/bench/rules.md, "Letters of Marque, round 7").
SET_SAILS: dict[str, Any] = {"type": "set_sails"}
BUY: dict[str, Any] = {"type": "buy"}
ATTACK_MERCHANT: dict[str, Any] = {"type": "attack_merchant"}
ATTACK_BUILDING: dict[str, Any] = {"type": "attack_building"}
MASTER_MERCHANT: dict[str, Any] = {"type": "master_merchant"}
END_TURN: dict[str, Any] = {"type": "end_turn", "pirate": False, "sleeve": []}
END_TURN_PIRATE: dict[str, Any] = {"type": "end_turn", "pirate": True, "sleeve": []}
MOVE_TO: dict[str, dict[str, Any]] = {sq: {"type": "move", "path": [sq]} for sq in (*SQUARES, HARBOR)}
# per hold: loading one Cargo, one Coin; unloading n Cargo, n Coins (n up to 9: any hold's count)
LOAD_ONE: tuple[tuple[dict[str, Any], dict[str, Any]], ...] = tuple(
    ({"type": "load", "hold": h, "cargo": 1}, {"type": "load", "hold": h, "coins": 1}) for h in (0, 1)
)
UNLOAD_ALL: tuple[tuple[tuple[dict[str, Any], ...], tuple[dict[str, Any], ...]], ...] = tuple(
    (
        tuple({"type": "unload", "hold": h, "cargo": n} for n in range(10)),
        tuple({"type": "unload", "hold": h, "coins": n} for n in range(10)),
    )
    for h in (0, 1)
)


def card_offers(cat: Catalog, cid: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """The shared offers naming the Sailor card `cid`: playing it, levelling it up (`Catalog.card_offers`)."""
    got = cat.card_offers.get(cid)
    if got is None:
        got = cat.card_offers[cid] = ({"type": "play_card", "card": cid}, {"type": "level_up", "card": cid})
    return got


def offer_plan(
    cat: Catalog, cid: str, card: SailorCard
) -> list[tuple[str, dict[str, Any], int | None, dict[str, Any], dict[str, Any] | None]]:
    """The ability offers a played card can make outside battle, in offer order: (ability id, ability,
    choice index or None, the effect alternative, and where `always_passes` vouches for it, its whole offer
    with no arguments, shared like the other whole offers above). Memoised on what the card is, like
    `card_abilities` (read-only)."""
    sl = card["slots"]
    key = (cid, card["sailor"], card["level"], sl["top"], sl["middle"], sl["bottom"])
    got = cat.plan_memo.get(key)
    if got is None:
        got = []
        for aid, ab in card_abilities(cat, cid, card):
            if "battle" in ab:
                continue
            if "choice" in ab:
                for i, alt in enumerate(ab["choice"]):
                    sure = {"type": "use_ability", "ability": aid, "choice": i, "args": {}}
                    got.append((aid, ab, i, alt, sure if always_passes(alt) else None))
            else:
                sure = {"type": "use_ability", "ability": aid, "args": {}}
                got.append((aid, ab, None, ab, sure if always_passes(ab) else None))
        cat.plan_memo[key] = got
    plan: list[tuple[str, dict[str, Any], int | None, dict[str, Any], dict[str, Any] | None]] = got
    return plan


def _hopeless(ab: dict[str, Any], at: str, isl: Island | None, ship: Ship) -> bool:
    """True when the engine's check would certainly refuse this ability now (Harbor-only away from Harbor,
    Influence away from an island, Repair without Damage); anything else is left to the check."""
    if ab.get("where") == "harbor" and at != HARBOR:
        return True
    for e in ab.get("effects", ()):
        if (e["do"] == "influence" and isl is None and len(ab["effects"]) == 1) or (
            e["do"] == "repair" and ship["damage"] == 0
        ):
            return True
    return False


def _decided(
    d: State, player: str, p: PlayerBoard, cat: Catalog, alt: dict[str, Any], args: dict[str, Any]
) -> bool | None:
    """`check_use_ability`'s verdict on an ability of one effect with the arguments `_ability_args` chose,
    once the turn's preconditions hold (`sure_ok`: they are all its check tests before the cost and the
    effect) and `_hopeless` has let it through (so a Harbor clause holds); None where only the full check
    can tell. A cost passes when Ship (and Dock, if it may pay) carry it. Produce passes with an island to
    produce on (they were chosen as the check wants them: revealed, not guarded against the player), Build
    with a Building found (controlled island, free slot, in supply) whose cost Ship and Dock carry, Repair
    with Damage, Upgrade with a tile in supply and a space to cover, a gain to the Dock or Ship with no
    'to_ship' (all to the Dock); Influence runs the effect's own check, `check_influence`, without the
    rest. `tests/rules/dead_reckoning/test_legal.py` compares the offers with the full checks'."""
    effects = alt.get("effects")
    where = alt.get("where")
    if (where is not None and where != "harbor") or not effects or len(effects) != 1:
        return None
    e = effects[0]
    do = e["do"]
    holds = p["ship"]["holds"]
    cost = alt["pay"].get("cargo", 0) if "pay" in alt else 0
    if cost:
        if do not in ("repair", "upgrade"):
            return None  # effects that read what the payment leaves: the full check
        if holds[0][0] + holds[1][0] + (p["dock"] if alt["pay"]["from"] == "ship_or_dock" else 0) < cost:
            return False
    if do == "influence":
        try:
            check_influence(d, player, e["amount"], args)
        except RulesError:
            return False
        return True
    if do == "produce":
        return bool(args.get("islands"))
    if do == "build":
        if "builds" not in args or e["amount"] < 1:
            return False
        b = args["builds"][0]
        return holds[0][0] + holds[1][0] + p["dock"] >= building_cost(
            cat, d["grid"][b["square"]]["board"], b["building"]
        )
    if do == "repair":
        return p["ship"]["damage"] > 0
    if do == "upgrade":
        if "tile" not in args:
            return False  # no tile of the category in supply
        hull = p["ship"]["hull"]
        return "space" in args or any(not hull[i] and not BASE_HULL[i] for i in range(4))
    if do == "gain" and e["to"] == "dock_or_ship":
        return True
    return None


def main_actions(d: State, player: str, offers: Offers) -> list[dict[str, Any]]:
    # Built with plain loops and appends, in the order offered: a comprehension is a call of its own, and
    # this runs for most states of a game.
    cat = catalog(d)
    ps = d["p"]
    p = ps[player]
    ship = p["ship"]
    at = ship["at"]
    turn = d["turn"]
    # the turn's preconditions every check of the active player's actions tests first (`require_active`):
    # `_legal_actions` comes here only with no chance pending and no battle under way
    sure_ok = d["phase"] == "main"
    # legal by construction here (active player, main phase, nothing pending): no check needed
    out: list[dict[str, Any]] = []
    add = out.append
    hand = p["hand"]
    by_card = cat.card_offers  # (play_card, level_up) per card id, shared
    if p["level_up"]:
        cards = p["cards"]
        for c in hand:
            if cards[c]["level"] < 4:
                add((by_card.get(c) or card_offers(cat, c))[1])
    for c in hand:
        add((by_card.get(c) or card_offers(cat, c))[0])
    grid = d["grid"]
    isl = grid[at]["island"] if at != HARBOR else None
    # the opponents' Ships, read once in seat order: those here (attack candidates, the blockade) and those
    # in Pirate mode (a move's fights: `pirates_at`; the blockade: `blockaded`)
    rivals_here: list[str] = []
    pirates: list[str] = []
    for c in d["players"]:
        if c != player:
            s = ps[c]["ship"]
            if s["at"] == at:
                rivals_here.append(c)
            if s["pirate"]:
                pirates.append(c)
    if not turn["sails_set"]:
        add(SET_SAILS)
    elif ship["sails"] > 0:  # one board at a time; not onto a second unexplored board this turn
        explored = turn["explored"]
        for n in ADJACENT[at]:
            if n == HARBOR:
                add(MOVE_TO[n])
            elif not explored or grid[n]["board"] is not None:
                if len(pirates) > 1:  # an order of fights only matters with two Pirate ships there
                    pir = []  # = pirates_at
                    for c in pirates:
                        if ps[c]["ship"]["at"] == n:
                            pir.append(c)
                    if len(pir) > 1:
                        add({"type": "move", "path": [n], "fight_order": pir})
                        continue
                add(MOVE_TO[n])
    # Candidates below pass the engine's full checks: where the cheap tests in front of them are exactly
    # the check's (and `sure_ok` holds) they are offered as they are, otherwise through `offer`.
    holds = ship["holds"]
    on_ship = holds[0][0] + holds[1][0]
    here = grid[at] if at != HARBOR else None
    card_here = here["card"] if here else None
    # buy, attack and attack_merchant are filtered here with exactly their checks' tests
    if card_here and turn["bought"] < 2:
        if cat.cards[card_here]["cost"] <= on_ship:  # check_buy: the Ship pays (pay plan from the holds)
            if sure_ok or offer(d, player, BUY, offers):
                add(BUY)
        if "encounter" in cat.cards[card_here]:
            if sure_ok or offer(d, player, ATTACK_MERCHANT, offers):
                add(ATTACK_MERCHANT)
    flags = -1
    battled = turn["battled"]
    for c in rivals_here:
        if c not in battled:
            if at == HARBOR or not ps[c]["ship"]["pirate"]:  # attacking a Mercantile ship takes a flag
                if flags < 0:
                    flags = played_icons(cat, p, "attack_flag") - p["flags_used"]
                if flags <= 0:
                    continue
            a: dict[str, Any] = {"type": "attack", "target": c}
            if sure_ok or offer(d, player, a, offers):
                add(a)
    # an opponent's Fort or Garrison here (`fortified_against`); attacking it is left to its check, which
    # also tests the blockade and the battles of the turn
    guarded = (
        isl is not None
        and isl["controller"] not in (None, player)
        and bool(isl["buildings"]["fort"] or isl["buildings"]["garrison"])
    )
    if guarded and offer(d, player, ATTACK_BUILDING, offers):
        add(ATTACK_BUILDING)
    used = p["used"]
    cards = p["cards"]
    plans = cat.plan_memo
    for cid in p["played"]:
        card = cards[cid]
        sl = card["slots"]
        plan = plans.get(
            (cid, card["sailor"], card["level"], sl["top"], sl["middle"], sl["bottom"])
        ) or offer_plan(cat, cid, card)
        for aid, ab, choice, alt, sure in plan:
            if aid in used:
                continue
            if sure_ok and sure is not None:  # never hopeless, and no arguments to choose
                add(sure)
            elif not _hopeless(alt, at, isl, ship):
                args = _ability_args(d, player, alt)
                a = (
                    {"type": "use_ability", "ability": aid, "args": args}
                    if choice is None
                    else {"type": "use_ability", "ability": aid, "choice": choice, "args": args}
                )
                for v in _cube_source_variants(d, player, p, alt, a):
                    verdict = _decided(d, player, p, cat, alt, v["args"]) if sure_ok else None
                    if verdict or (verdict is None and offer(d, player, v, offers, (cid, ab))):
                        add(v)
    # Loading and unloading are decided here with exactly the engine's tests (check_load, check_unload):
    # they are a third of all candidates. In Harbor both always may; at an island, not while an opponent's
    # Pirate-mode ship blockades it (`blockaded`), nor unloading onto an opponent's Fort or Garrison;
    # never on open sea.
    if at == HARBOR:
        ok_here = True
    elif isl is None:
        ok_here = False
    else:
        ok_here = True
        beaten = turn["beaten"]
        for c in rivals_here:
            if ps[c]["ship"]["pirate"] and c not in beaten:
                ok_here = False
                break
    if ok_here:
        mine = isl is not None and isl["controller"] == player
        other = ship.get("other")  # hull spaces an expansion's goods take
        for h in (0, 1):
            hold = holds[h]
            if hold[0] + hold[1] + (other[h] if other else 0) < HOLD_CAP[h]:
                one_cargo, one_coin = LOAD_ONE[h]
                if at == HARBOR and p["dock"]:
                    add(one_cargo)
                if mine and isl is not None:
                    if isl["cargo"]:
                        add(one_cargo)
                    if isl["coins"]:
                        add(one_coin)
            if not guarded:
                if hold[0]:
                    add(UNLOAD_ALL[h][0][hold[0]])
                if hold[1]:
                    add(UNLOAD_ALL[h][1][hold[1]])
    if p["dock"] + on_ship >= 12 and player not in d["achievements"]["master_merchant"]:
        # its check: Dock and Ship carry the 12 Cargo (pay plan)
        if sure_ok or offer(d, player, MASTER_MERCHANT, offers):
            add(MASTER_MERCHANT)
    if p["set_aside"]:
        end = {"type": "end_turn", "pirate": False, "sleeve": _sleeve_plan(d, player)}
        add(end)
        if at != HARBOR:
            add({**end, "pirate": True})
    else:
        add(END_TURN)
        if at != HARBOR:
            add(END_TURN_PIRATE)
    return out


def legal_actions(state: GameState, player: str) -> list[dict[str, Any]]:
    """Actions `player` may send now. While a chance step is pending every seat (and "table") is offered
    its outcomes; the active player always has at least one action (end_turn) until the game is over."""
    d = state.data
    hooks = expansion_hooks(d["options"])
    if "deep_legends" in d["options"]:  # the saga's own actions (docs/deep-legends.md)
        acts = _legal_actions(hooks, state, player)
        more: list[dict[str, Any]] = saga_part("legal").more_actions(
            cast(State, d), player, acts, state.offers
        )
        return more
    return _legal_actions(hooks, state, player)


LegalHook = Callable[[State, str, list[dict[str, Any]]], list[dict[str, Any]]]


def expansion_hooks(options: dict[str, Any]) -> tuple[LegalHook, ...]:
    """The `legal` hooks of the expansions a game's options name, in their order."""
    hooks = []
    for name in expansions_of(options):
        more = expansion(name).legal
        if more is not None:
            hooks.append(more)
    return tuple(hooks)


def generator(options: dict[str, Any]) -> Callable[[GameState, str], list[dict[str, Any]]]:
    """`legal_actions` for games with these options, the expansions' hooks joined once (the facade keeps it
    as the game's `legal` and calls it): no look-up of the expansions per state."""
    if options.get("deep_legends"):
        return legal_actions
    return partial(_legal_actions, expansion_hooks(options))


def _legal_actions(hooks: tuple[LegalHook, ...], state: GameState, player: str) -> list[dict[str, Any]]:
    # the JSON edge: the core keeps plain data (typed here without `cast`, a function call at run time)
    d: State = state.data  # type: ignore[assignment]
    if d["phase"] == "over":
        return []
    offers = state.offers
    offers.start(d["seq"])
    if d["pending"]:
        return chance_actions(d)
    # the player's own pending choices (plunder to place, a gain owed, an achievement cube, Battle cubes from
    # islands): each kept on the player's board or, for Battle cubes, in the battle; most states have none
    mine: list[dict[str, Any]] = []
    if player in d["players"]:
        p = d["p"][player]
        if d["battle"] or "plunder" in p or "owed" in p or "cubes_owed" in p:
            mine = choice_actions(d, player)
    if d["battle"] or player == d["active"]:
        acts = battle_actions(d, player, offers) if d["battle"] else main_actions(d, player, offers)
        for more in hooks:  # the expansions' offers (each may add its own and drop base ones it refuses)
            acts = more(d, player, acts)
        return acts + mine if mine else acts
    if player in d["players"]:
        out: list[dict[str, Any]] = mine
        if p["level_up"]:
            out += [{"type": "level_up", "card": c} for c in p["hand"] if p["cards"][c]["level"] < 4]
        if p["bonus_offer"] and p["bonus"] is None:
            out += [{"type": "choose_bonus", "token": t} for t in p["bonus_offer"]]
        return out
    return []


__all__ = ["legal_actions", "simulated_outcome", "chance_actions"]
