"""The legal-action generator of The Great Sea: concrete actions a seat may take now.

Owns the enumeration only; every offered action passes its action's check. A turn's offers are built from
the checks' own tests, not by running them (docs/great-sea.md "Performance"; the map's Ships are read in
`fleet_offers`); tests/rules/great_sea/test_legal.py holds both directions. It offers a representative set
where the choices are combinatorial: single-Ship moves plus the Ships gathered into a region and sent
together out of one (other groups may be sent), Damage placed filling one unit first, discounts of 0 or the
most that helps, one place per Fort tile (the engine's default), the loser's retreat home or filling one
other Shipyard, and the pip sequences of setup once per multiset.
"""

from __future__ import annotations

from itertools import combinations
from typing import Any, cast

from rules.core.errors import RulesError
from rules.core.state import GameState
from rules.great_sea.combat import consolations, retreats
from rules.great_sea.combat_cards import is_basic
from rules.great_sea.construct import pip_step, ship_cost
from rules.great_sea.control import controls, players_present, refreshed_posts
from rules.great_sea.data import CLASSES, DICE, FORTS, PARTS, board
from rules.great_sea.develop import IMPROVABLE, improve_costs, sizes
from rules.great_sea.dice import raisable, value
from rules.great_sea.fleet_offers import Fleet, Room, move_candidates, scan, shipyard_moves
from rules.great_sea.fortify import fort_requirement
from rules.great_sea.game import GAME
from rules.great_sea.map import adjacency, foundation_regions
from rules.great_sea.model import Open, Player, State, resource
from rules.great_sea.setup import draw_chance, pips_owed
from rules.great_sea.special_actions import card_effect
from rules.great_sea.special_effects import PLACES
from rules.great_sea.trade import post_requirement
from rules.great_sea.upgrades import (
    fort_room,
    pile_table,
    shipyard_regions,
    shipyard_tiles,
    tile_cost,
    tile_types,
)


def passes(d: State, player: str, action: dict[str, Any]) -> bool:
    try:
        GAME.actions[action["type"]].check(d, player, action)
    except RulesError:
        return False
    return True


def legal_actions(state: GameState, player: str) -> list[dict[str, Any]]:
    """Every action `player` may take now. A turn's offers (all but setup, chance and Combat) are built
    straight from their checks' own tests, in one pass each, and only the few noted run their check; the
    rest (setup, chance, Combat: a few offers each) go through their checks. Results are not kept in
    `state.offers`: a check here costs less than keeping it (docs/bench/rules.md)."""
    d = cast(State, state.data)
    if not d["pending"]:
        phase = d["phase"]
        if phase == "main":
            c = d["combat"]
            if c is None:
                return turn_offers(d, player) if player == d["turn_player"] else []
            if c["stage"] == "consolation" and player == c["loser"]:
                return consolation_offers(d, player)
        elif phase == "setup" and d["stage"] == "pips":
            # setup.check_setup_pips' tests: the player whose turn it is to gain them, the pips owed, the
            # first on the Develop Die, every Die allowed to rise (pip_sequences walks only those)
            if player != d["active"]:
                return []
            return [
                {"type": "setup_pips", "dice": s} for s in pip_sequences(d["p"][player], pips_owed(d, player))
            ]
    return [a for a in candidates(d, player) if passes(d, player, a)]


def consolation_offers(d: State, player: str) -> list[dict[str, Any]]:
    """combat.check_consolation's tests: one of `consolations` (the loser's), and a Small Fort tile only
    where its grid has room (`upgrades.check_fort_tile` places it at the first place)."""
    p = d["p"][player]
    return [a for a in consolations(d, player) if a["choice"] != "small_fort" or fort_room(p, a["fort"], 1)]


def candidates(d: State, player: str) -> list[dict[str, Any]]:
    """Setup's, chance's and Combat's candidates (each still to pass its check)."""
    if d["phase"] == "over":
        return []
    if d["pending"]:
        if player != "table":
            return []
        req = d["pending"][0]
        if req["type"] == "choose_first_player":
            return [{"type": "choose_first_player", "first": c} for c in d["players"]]
        tmp = cast(State, {**d, "rng": (d["rng"] ^ (d["seq"] * 0x9E3779B97F4A7C15)) & ((1 << 64) - 1)})
        return [draw_chance(tmp, req)]
    if player not in d["p"]:
        return []
    if d["phase"] == "setup":
        if player != d["active"]:
            return []
        if d["stage"] == "special":
            return [{"type": "choose_special", "pile": k} for k in sorted(d["specials"])]
        return [
            {"type": "setup_pips", "dice": s} for s in pip_sequences(d["p"][player], pips_owed(d, player))
        ]
    if d["combat"] is not None:
        return combat_candidates(d, player)
    return []


def pip_sequences(p: Player, n: int) -> list[list[str]]:
    """Every way to place `n` setup pips, the first on the Develop Die, each on a Die that may rise then
    (dice.may_raise), once per multiset of Dice."""
    seen: set[tuple[str, ...]] = set()
    out: list[list[str]] = []

    def walk(dice: list[int], seq: list[str]) -> None:
        if len(seq) == n:
            key = tuple(sorted(seq))
            if key not in seen:
                seen.add(key)
                out.append(list(seq))
            return
        dev = dice[0]
        for i in range(6) if seq else (0,):
            v = dice[i] + 1
            if v <= 6 and (i == 0 or v <= dev):
                nd = list(dice)
                nd[i] = v
                walk(nd, [*seq, DICE[i]])

    walk(list(p["dice"]), [])
    return out


def combat_candidates(d: State, player: str) -> list[dict[str, Any]]:
    c = d["combat"]
    assert c is not None
    if player not in (c["attacker"], c["defender"]):
        return []
    if c["stage"] == "choose":
        if c["chosen"][player] is not None:
            return []
        if not d["p"][player]["hand"]:
            return [{"type": "play_combat_card", "card": None}]
        out: list[dict[str, Any]] = []
        for card in d["p"][player]["hand"]:
            if is_basic(card):
                out.append({"type": "play_combat_card", "card": card})
            elif card == "reinforce":
                out.append({"type": "play_combat_card", "card": card, "side": "stats"})
                out += reinforce_candidates(d, c, player)
            else:
                out += [{"type": "play_combat_card", "card": card, "side": s} for s in ("stats", "ability")]
        return out
    if c["stage"] == "damage":
        aw = c["await"]
        if aw is None or aw["player"] != player:
            return []
        units = c["units"][player]
        alive = [i for i, u in enumerate(units) if u["damage"] < u["health"]]
        res: list[dict[str, Any]] = []
        for first in alive:
            left, placed = aw["damage"], []
            for i in [first, *(j for j in alive if j != first)]:
                n = min(left, units[i]["health"] - units[i]["damage"])
                if n:
                    placed.append([i, n])
                    left -= n
            res.append({"type": "assign_damage", "placed": placed})
        return res
    if c["stage"] == "consolation" and player == c["loser"]:
        return consolations(d, player)
    if c["stage"] == "retreat" and player == c["loser"]:
        return retreats(d, c)
    return []


def turn_offers(d: State, player: str) -> list[dict[str, Any]]:
    """The turn player's offers, each family built from its check's own tests (noted where a check runs)."""
    p = d["p"][player]
    t = d["turn"]
    op = t["open"]
    out: list[dict[str, Any]] = []
    if op is None:
        if 2 + p["neutral"] - t["placed"] > 0:  # worker.workers_left
            used = t["used"]
            for n in range(1, 7):
                if n not in used:
                    out.append({"type": "take_action", "card": n})
        if not t["start_done"]:
            start_offers(d, player, p, out)
        out.append({"type": "end_turn"})
        return out
    out.append({"type": "finish_action"})
    card, step = op["card"], op["step"]
    dice = raisable(p) if card == 1 or card == 5 else []
    if card == 1:
        if step <= 1:
            develop_offers(p, step, dice, out)
    elif card == 2:
        if step == 0:
            fortify_offers(d, player, p, out)
    elif card == 3:
        if step == 0:
            trade_offers(d, player, p, out)
    elif card == 4:
        if step == 0 and op["pips"] > 0:
            research_offers(d, p, op, out)
        # research.check_refresh's tests: an exhausted Trade Post to refresh, or the card's own gain
        if step <= 1 and (
            has_exhausted_post(d, player) or card_effect(p["cards"]["4"]["id"]).get("second_gain")
        ):
            out.append({"type": "research_refresh"})
    elif card == 5:
        if step == 0 and op["pips"] > 0:
            for a in construct_candidates(d, player, p, op["pips"]):
                out.append(a)
        if step <= pip_step(p):
            for x in dice:
                out.append({"type": "construct_pip", "die": x})
    elif op["pips"] > 0:  # card 6
        scanned = scan(d, player, p, movable=True) if step == 0 else None
        if scanned is not None:
            out += move_candidates(d, player, p, scanned)
        if step <= 1:
            combat_offers(d, player, out, None if scanned is None else scanned[1])
    eff = card_effect(p["cards"][str(card)]["id"])
    if eff:
        for key, at in PLACES.items():
            if key in eff and step <= at:
                special_candidates(d, player, p, eff[key], dice or raisable(p), out)
    return out


def develop_offers(p: Player, step: int, dice: list[str], out: list[dict[str, Any]]) -> None:
    """develop.check_develop_pip's and check_develop_second's tests: a Die that may rise (twice for 2 Wood's
    pips), the Wood and Coins for each improvement."""
    if step == 0:
        gains = ("coins", "wood") if p["cards"]["1"]["flipped"] else ("coins",)
        for x in dice:
            for g in gains:
                out.append({"type": "develop_pip", "die": x, "gain": g})
    for x in dice:
        out.append({"type": "develop_second", "choice": "pip", "die": x})
    if p["wood"] >= 2:
        dv = p["dice"]
        for x in dice:
            i = DICE.index(x)
            v = dv[i] + 2
            if v <= 6 and (i == 0 or v <= dv[0]):  # dice.may_raise_twice
                out.append({"type": "develop_second", "choice": "wood_pips", "dice": [x, x]})
    # each tile's next improvement (resource, cost), None once removed (develop.improve_cost)
    costs = improve_costs()
    nxt: dict[str, tuple[str, int] | None] = {}
    for tile in IMPROVABLE:
        res, table = costs[tile]
        stage = p["fleet"] if tile == "fleet" else p["classes"][tile]
        nxt[tile] = (res, table[stage]) if stage < len(table) else None
    wood, coins = p["wood"], p["coins"]
    for tiles in IMPROVE_SETS:
        spend = {"wood": 0, "coins": 0}
        for tile in tiles:
            c = nxt[tile]
            if c is None:
                break
            spend[c[0]] += c[1]
        else:
            if spend["wood"] <= wood and spend["coins"] <= coins:
                out.append({"type": "develop_second", "choice": "improve", "tiles": list(tiles)})


IMPROVE_SETS = tuple((x,) for x in IMPROVABLE) + tuple(combinations(IMPROVABLE, 2))


def fortify_offers(d: State, player: str, p: Player, out: list[dict[str, Any]]) -> None:
    """fortify.check_fortify's tests: Control, a free Foundation, the next Fort's column within the Die."""
    have = value(p, 2)
    forts = [f for f in FORTS if (need := fort_requirement(p, f)) is not None and need <= have]
    if not forts:
        return
    regions = d["regions"]
    for r in foundation_regions(d["map"]):
        reg = regions[r]
        if reg["foundations"] and controls(reg, player):
            for f in forts:
                out.append({"type": "fortify", "region": r, "fort": f})


def trade_offers(d: State, player: str, p: Player, out: list[dict[str, Any]]) -> None:
    """trade.check_trade's tests: incomes always (a card's "twice" variant too); a Trade Post (with both
    incomes on the "all" card) with Control, not owned there already, the next post's column within the
    Die."""
    out.append({"type": "trade", "gains": ["coins", "wood"]})
    variant = card_effect(p["cards"]["3"]["id"]).get("trade_gains")
    if variant == "twice":  # an income twice: nothing more to test
        out.append({"type": "trade", "gains": ["coins", "coins"]})
        out.append({"type": "trade", "gains": ["wood", "wood"]})
    need = post_requirement(p)
    if need is None or value(p, 3) < need:
        return
    for r, reg in d["regions"].items():
        post = reg["post"]
        if (post is None or post[0] != player) and controls(reg, player):
            out.append({"type": "trade", "gains": ["coins", "post"], "region": r})
            out.append({"type": "trade", "gains": ["wood", "post"], "region": r})
            if variant == "all":  # both incomes and the Trade Post: the same tests
                out.append({"type": "trade", "gains": ["coins", "wood", "post"], "region": r})


def research_offers(d: State, p: Player, op: Open, out: list[dict[str, Any]]) -> None:
    """research.check_gain's tests: a Pile not gained from this turn with a tile on top, 1 + discount pips
    left, Coins for the discounted cost (upgrades.tile_cost), room on the Fort grid; check_remove's: a tile,
    a pip. Discounts offered: none, and the most that helps."""
    pips, coins, gained, piles = op["pips"], p["coins"], op["piles"], d["piles"]
    b = board()
    columns, small, yards = b["upgrade_columns"], b["small_fort_cost"], shipyard_tiles()
    col: dict[str, int] = {}
    for in_row in d["rows"].values():
        for i, pile in enumerate(in_row):
            col[pile] = i
    room: dict[tuple[str, int], bool] = {}
    for pile, (row, n) in pile_table().items():
        tiles = piles[pile]
        if not tiles or pile in gained:
            continue
        cost = small if row == "small_fort" else columns[col[pile]]
        if tiles[0] in yards:
            cost -= 1
        most = max(0, min(pips - 1, cost))
        if n:
            key, targets = "fort", []
            for f in FORTS:
                if (f, n) not in room:
                    room[f, n] = fort_room(p, f, n)
                if room[f, n]:
                    targets.append(f)
        else:
            key, targets = "cls", list(CLASSES)
        for disc in (0, most) if most else (0,):
            if coins >= cost - disc:
                for tg in targets:
                    out.append({"type": "research_gain", "pile": pile, "discount": disc, key: tg})
        out.append({"type": "research_remove", "pile": pile})


def combat_offers(
    d: State, player: str, out: list[dict[str, Any]], ships_in: dict[str, int] | None = None
) -> None:
    """mobilise.check_initiate's tests: both players present in the region. `ships_in`: the regions with the
    player's Ships, when the caller's `scan` has them."""
    order = d["players"]
    for r, reg in d["regions"].items():
        mine = False
        if ships_in is not None:
            mine = r in ships_in
        else:
            for s in reg["ships"]:
                if s["owner"] == player:
                    mine = True
                    break
        if not mine:
            for f in reg["forts"]:
                if f[0] == player:
                    mine = True
                    break
        if not mine:
            continue
        there = players_present(reg)
        if len(there) > 1:
            for opp in order:
                if opp != player and opp in there:
                    out.append({"type": "initiate_combat", "region": r, "opponent": opp})


def has_exhausted_post(d: State, player: str) -> bool:
    for reg in d["regions"].values():
        post = reg["post"]
        if post is not None and post[1] and post[0] == player:
            return True
    return False


def start_offers(d: State, player: str, p: Player, out: list[dict[str, Any]]) -> None:
    """The start-of-turn actions, built from their checks' own tests (the turn has not used one yet), from
    one pass over the map: the refreshed Trade Posts, the Damaged Ships, the undamaged ones."""
    posts = 0
    damaged: dict[tuple[str, str], None] = {}
    ships: Fleet = {}
    used: dict[str, int] = {}
    table, stage = sizes(), p["classes"]
    for r, reg in d["regions"].items():
        post = reg["post"]
        if post is not None and not post[1] and post[0] == player:
            posts += 1
        for s in reg["ships"]:
            if s["owner"] == player:
                cls = s["cls"]
                used[r] = used.get(r, 0) + table[cls][stage[cls]]
                k = (r, cls)
                if s["damaged"]:
                    damaged[k] = None
                else:
                    ships[k] = ships.get(k, 0) + 1
    pays = [x for x, ok in (("posts", posts >= 2), ("coins", p["coins"] >= 4)) if ok]
    if pays:
        for x in raisable(p):
            for pay in pays:
                out.append({"type": "start_pip", "die": x, "pay": pay})
    if posts >= 3:
        out.append({"type": "start_worker"})
    if posts >= 1:
        for m in shipyard_moves(d, player, p, (ships, used)):
            out.append({"type": "start_move", **m})
    repays = [x for x, ok in (("post", posts >= 1), ("wood", p["wood"] >= 2)) if ok]
    for r, cls in damaged:
        for x in repays:
            out.append({"type": "start_repair", "region": r, "cls": cls, "pay": x})


def construct_candidates(
    d: State, player: str, p: Player, pips: int, classes: tuple[str, ...] | list[str] = CLASSES, less: int = 0
) -> list[dict[str, Any]]:
    """construct.check_construct's tests: a Ship left, a Shipyard of the player for that class, room under
    the Fleet Limit, 1 + discount pips, the Wood for the discounted cost."""
    out: list[dict[str, Any]] = []
    yards: dict[str, set[str]] | None = None
    room = Room(d, p, player)
    table, stage = sizes(), p["classes"]
    for cls in classes:
        if p["ships"][cls] <= 0:
            continue
        if yards is None:
            yards = shipyard_regions(d, player)
        need, cost = table[cls][stage[cls]], max(0, ship_cost(p, cls) - less)
        for r in sorted(yards[cls]):
            left = room(r)
            if left is not None and need > left:
                continue
            for x in (0, pips - 1) if pips > 1 else (0,):  # sorted({0, pips - 1}): pips >= 1
                if p["wood"] >= max(0, cost - x):
                    out.append({"type": "construct", "cls": cls, "region": r, "discount": x})
    return out


def special_candidates(
    d: State, player: str, p: Player, third: dict[str, Any], dice: list[str], out: list[dict[str, Any]]
) -> None:
    """The effect a Special Action Card adds, built from `special_effects.check_special_effect`'s tests."""
    if "pip" in third:
        if not all_affordable(p, third["pay"]):
            return
        for x in dice:
            out.append({"type": "special_effect", "die": x})
        return
    pay: dict[str, int] = third.get("pay", {})
    if "improve" in third:
        # develop.improve_cost: the tile not yet removed; the card's payment and the improvement affordable
        costs = improve_costs()
        for x in IMPROVABLE:
            res, table = costs[x]
            stage = p["fleet"] if x == "fleet" else p["classes"][x]
            if stage >= len(table):
                continue
            need = dict(pay)
            need[res] = need.get(res, 0) + table[stage]
            if all_affordable(p, need):
                out.append({"type": "special_effect", "tiles": [x]})
        return
    if "place_fort" in third:
        # fortify.check_place's tests for the card's Fort class, after its payment
        need_die = fort_requirement(p, third["place_fort"])
        if not all_affordable(p, pay) or need_die is None or value(p, 2) < need_die:
            return
        regions = d["regions"]
        for r in foundation_regions(d["map"]):
            reg = regions[r]
            if reg["foundations"] and controls(reg, player):
                out.append({"type": "special_effect", "region": r})
        return
    if "flip_tile" in third:
        if all_affordable(p, pay):
            for c in CLASSES:  # in the rulebook's order, not the dict's (a loaded state's keys are sorted)
                for part in PARTS:
                    if p["ship_tiles"][c][part] is not None:
                        out.append({"type": "special_effect", "cls": c, "part": part})
        return
    if "tile" in third:
        if third.get("exhaust") and not refreshed_posts(d, player):
            return
        # research.check_tile's tests: a tile or discards, the Coins, room on the Fort grid
        for pile, spec in tile_types().items():
            if spec["row"] not in third["tile"] or not (d["piles"][pile] or d["discards"].get(pile)):
                continue
            if p["coins"] < max(0, tile_cost(d, pile) - third["less"]):
                continue
            n = pile_table()[pile][1]
            if n:
                for f in FORTS:
                    if fort_room(p, f, n):
                        out.append({"type": "special_effect", "pile": pile, "fort": f})
            else:
                for c in CLASSES:
                    out.append({"type": "special_effect", "pile": pile, "cls": c})
        return
    # the families below are built from their checks' own tests (construct, move, start-of-turn move)
    if "construct" in third:
        for a in construct_candidates(d, player, p, 1, third["construct"], third["less"]):
            out.append({"type": "special_effect", "cls": a["cls"], "region": a["region"]})
        return
    if third.get("move") == "region":
        for m in move_candidates(d, player, p):
            out.append({"type": "special_effect", "region": m["region"], "moves": m["moves"]})
        return
    if third.get("move") == "shipyard":
        for m in shipyard_moves(d, player, p):
            out.append({"type": "special_effect", **m})
        return
    if "worker" in third:
        op = d["turn"]["open"]
        if op is not None and op["pips"] >= third["worker"]:
            out.append({"type": "special_effect"})


def all_affordable(p: Player, pay: dict[str, int]) -> bool:
    """special_effects.check_special_effect's payment test: the Wood and Coins it names."""
    for res, n in pay.items():
        if resource(p, res) < n:
            return False
    return True


def reinforce_candidates(d: State, c: dict[str, Any], player: str) -> list[dict[str, Any]]:
    """Reinforce's ability bringing nothing, or every undamaged Ship of one adjacent region (the check
    refuses what exceeds the Fleet Limit; any subset may be sent)."""
    base = {"type": "play_combat_card", "card": "reinforce", "side": "ability"}
    out: list[dict[str, Any]] = [base]
    for r in adjacency(d["map"])[c["region"]]:
        ships = [s["cls"] for s in d["regions"][r]["ships"] if s["owner"] == player and not s["damaged"]]
        if ships:
            out.append({**base, "reinforce": {"from": r, "ships": ships}})
    return out
