"""The legal-action generator of The Great Sea: concrete actions a seat may take now.

Owns the enumeration only; every offered action passes its action's check (kept in `state.offers` for
`apply`). It offers a representative set where the choices are combinatorial: single-Ship moves plus the
Ships gathered into a region and sent together out of one (other groups may be sent), Damage placed filling
one unit first, discounts of 0 or the most that helps, one place per Fort tile (the engine's default), the
loser's retreat home or filling one other Shipyard, and the pip sequences of setup once per multiset.
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
from rules.great_sea.develop import IMPROVABLE, fleet_limit, fleet_used, size
from rules.great_sea.dice import may_raise, may_raise_twice, raisable, value
from rules.great_sea.fortify import fort_requirement
from rules.great_sea.game import GAME
from rules.great_sea.map import adjacency, reachable
from rules.great_sea.mobilise import blocked
from rules.great_sea.model import Player, State, resource
from rules.great_sea.setup import draw_chance, pips_owed
from rules.great_sea.special_actions import card_effect
from rules.great_sea.special_effects import PLACES
from rules.great_sea.trade import post_requirement
from rules.great_sea.upgrades import (
    fort_places_for,
    fort_stats,
    ship_stats,
    shipyard_regions,
    tile_cost,
    tile_types,
)
from rules.great_sea.worker import workers_left


class Checked(list[dict[str, Any]]):
    """Candidates the generator built from exactly the tests of their check (no need to run it again);
    tests/rules/great_sea/test_legal.py checks every offered action against its check."""


def passes(d: State, player: str, action: dict[str, Any]) -> bool:
    try:
        GAME.actions[action["type"]].check(d, player, action)
    except RulesError:
        return False
    return True


def legal_actions(state: GameState, player: str) -> list[dict[str, Any]]:
    """Every candidate that passes its action's check. Families whose members differ only in a field the
    check treats alike (the Ship class a Research tile goes on, the Fort grid) are checked once. Results are
    not kept in `state.offers`: a check here costs less than keeping it (docs/bench/rules.md)."""
    d = cast(State, state.data)
    out: list[dict[str, Any]] = []
    for family in candidates(d, player):
        if isinstance(family, Checked) or passes(d, player, family[0]):
            out += family
    return out


def candidates(d: State, player: str) -> list[list[dict[str, Any]]]:
    fams = families(d, player)
    return [f if isinstance(f, list) else [f] for f in fams]  # a Checked family stays Checked


def families(d: State, player: str) -> list[Any]:
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
    if player != d["turn_player"]:
        return []
    return turn_candidates(d, player)


def pip_sequences(p: Player, n: int) -> list[list[str]]:
    seen: set[tuple[str, ...]] = set()
    out: list[list[str]] = []

    def walk(dice: list[int], seq: list[str]) -> None:
        if len(seq) == n:
            key = tuple(sorted(seq))
            if key not in seen:
                seen.add(key)
                out.append(list(seq))
            return
        trial = cast(Player, {**p, "dice": dice})
        for i in range(6) if seq else (0,):
            if may_raise(trial, i):
                nd = list(dice)
                nd[i] += 1
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


def turn_candidates(d: State, player: str) -> list[Any]:
    p = d["p"][player]
    t = d["turn"]
    op = t["open"]
    out: list[Any] = []
    if op is None:
        if workers_left(d, player) > 0:
            out.append(Checked({"type": "take_action", "card": n} for n in range(1, 7) if n not in t["used"]))
        if not t["start_done"]:
            out += start_candidates(d, player, p)
        out.append(Checked([{"type": "end_turn"}]))
        return out
    out.append(Checked([{"type": "finish_action"}]))
    card, step = op["card"], op["step"]
    dice = raisable(p) if card in (1, 5) else []
    if card == 1:
        if step == 0:
            gains = ("coins", "wood") if p["cards"]["1"]["flipped"] else ("coins",)
            out.append(Checked({"type": "develop_pip", "die": x, "gain": g} for x in dice for g in gains))
        if step <= 1:
            out.append(Checked({"type": "develop_second", "choice": "pip", "die": x} for x in dice))
            if p["wood"] >= 2:  # check_develop_second's tests: 2 Wood, the Die may rise twice
                out.append(
                    Checked(
                        {"type": "develop_second", "choice": "wood_pips", "dice": [x, x]}
                        for x in dice
                        if may_raise_twice(p, DICE.index(x))
                    )
                )
            for tiles in [[x] for x in IMPROVABLE] + [list(x) for x in combinations(IMPROVABLE, 2)]:
                if affordable(p, tiles):
                    out.append(Checked([{"type": "develop_second", "choice": "improve", "tiles": tiles}]))
    elif card == 2 and step == 0:
        # fortify.check_fortify's tests: Control, a free Foundation, the next Fort's column within the Die
        have = value(p, 2)
        forts = [f for f in FORTS if (need := fort_requirement(p, f)) is not None and need <= have]
        if forts:
            for r, reg in d["regions"].items():
                if reg["foundations"] and controls(reg, player):
                    out.append(Checked({"type": "fortify", "region": r, "fort": f} for f in forts))
    elif card == 3 and step == 0:
        # trade.check_trade's tests: incomes always; a Trade Post with Control, not already owned there, the
        # next post's column within the Die
        out.append(Checked([{"type": "trade", "gains": ["coins", "wood"]}]))
        variant = card_effect(p["cards"]["3"]["id"]).get("trade_gains")
        if variant == "twice":
            out += [{"type": "trade", "gains": [g, g]} for g in ("coins", "wood")]
        need = post_requirement(p)
        if need is not None and value(p, 3) >= need:
            for r, reg in d["regions"].items():
                if (reg["post"] is None or reg["post"][0] != player) and controls(reg, player):
                    out.append(
                        Checked(
                            {"type": "trade", "gains": [g, "post"], "region": r} for g in ("coins", "wood")
                        )
                    )
                    if variant == "all":
                        out.append({"type": "trade", "gains": ["coins", "wood", "post"], "region": r})
    elif card == 4:
        if step == 0 and op["pips"] > 0:
            for pile, spec in tile_types().items():
                if pile in op["piles"] or not d["piles"][pile]:
                    continue
                # built from research.check_gain's tests: a Pile not gained from this turn with a tile on top,
                # 1 + discount pips left, Coins for the discounted cost; check_remove's: a tile, a pip
                cost = tile_cost(d, pile)
                most = max(0, min(op["pips"] - 1, cost))
                targets = (
                    [{"cls": c} for c in CLASSES]
                    if spec["row"] in PARTS
                    else [{"fort": f} for f in FORTS if fort_places_for(p, f, pile + ":0")]  # room for it
                )
                for disc in sorted({0, most}):
                    if p["coins"] >= max(0, cost - disc):
                        out.append(
                            Checked(
                                {"type": "research_gain", "pile": pile, "discount": disc, **tg}
                                for tg in targets
                            )
                        )
                out.append(Checked([{"type": "research_remove", "pile": pile}]))
        if step <= 1:
            out.append({"type": "research_refresh"})
    elif card == 5:
        if step == 0 and op["pips"] > 0:
            out.append(construct_candidates(d, player, p, op["pips"]))
        if step <= pip_step(p):
            out.append(Checked({"type": "construct_pip", "die": x} for x in dice))
    elif card == 6:
        if step == 0 and op["pips"] > 0:
            out.append(move_candidates(d, player, p))
        if step <= 1 and op["pips"] > 0:
            for r, reg in d["regions"].items():
                if not reg["ships"] and not reg["forts"]:
                    continue
                there = players_present(reg)
                if player in there and len(there) > 1:
                    out.append(
                        Checked(
                            {"type": "initiate_combat", "region": r, "opponent": opp}
                            for opp in d["players"]
                            if opp != player and opp in there
                        )
                    )
    eff = card_effect(p["cards"][str(card)]["id"])
    for key, at in PLACES.items():
        if key in eff and step <= at:
            out += special_candidates(d, player, p, eff[key], dice or raisable(p))
    return out


def start_candidates(d: State, player: str, p: Player) -> list[Any]:
    """The start-of-turn actions, built from their checks' own tests (the turn has not used one yet)."""
    posts = len(refreshed_posts(d, player))
    pays = [x for x, ok in (("posts", posts >= 2), ("coins", p["coins"] >= 4)) if ok]
    out = Checked({"type": "start_pip", "die": x, "pay": pay} for x in raisable(p) for pay in pays)
    if posts >= 3:
        out.append({"type": "start_worker"})
    if posts >= 1:
        out += [{"type": "start_move", **m} for m in shipyard_moves(d, player, p)]  # the same tests
    repays = [x for x, ok in (("post", posts >= 1), ("wood", p["wood"] >= 2)) if ok]
    seen: set[tuple[str, str]] = set()
    for r, reg in d["regions"].items():
        for s in reg["ships"]:
            if s["owner"] == player and s["damaged"] and (r, s["cls"]) not in seen:
                seen.add((r, s["cls"]))
                out += [{"type": "start_repair", "region": r, "cls": s["cls"], "pay": x} for x in repays]
    return [out]


Fleet = dict[tuple[str, str], int]  # (region, class) -> how many of the player's Ships


class Room:
    """The room left under the player's Fleet Limit in each region (None: a home region), read lazily."""

    __slots__ = ("d", "p", "player", "left")

    def __init__(self, d: State, p: Player, player: str) -> None:
        self.d, self.p, self.player = d, p, player
        self.left: dict[str, int | None] = {}

    def __call__(self, r: str) -> int | None:
        if r not in self.left:
            reg = self.d["regions"][r]
            lim = fleet_limit(reg, self.p, self.player)
            self.left[r] = None if lim is None else lim - fleet_used(reg, self.p, self.player)
        return self.left[r]


def fleets(d: State, player: str, movable: bool) -> Fleet:
    """The player's undamaged Ships by region and class (`movable`: also not moved this action)."""
    out: Fleet = {}
    for r, reg in d["regions"].items():
        for s in reg["ships"]:
            if s["owner"] == player and not s["damaged"] and not (movable and s["moved"]):
                k = (r, s["cls"])
                out[k] = out.get(k, 0) + 1
    return out


def move_candidates(d: State, player: str, p: Player) -> Checked:
    """One pip's moves, built from `mobilise.check_moves`' own tests (an undamaged Ship not yet moved this
    action, a destination within its Speed that is not an opponent's home region, the Fleet Limit there):
    every single-Ship move, and for each region the Ships that can reach it gathered there and the Ships of
    each region sent there together (as many as fit, in map order). Other groups may be sent."""
    out = Checked()
    ships = fleets(d, player, movable=True)
    if not ships:
        return out
    regions = d["regions"]
    block = blocked(d, player)
    room = Room(d, p, player)
    sizes = {c: size(p, c) for c in CLASSES}
    base = {c: ship_stats(p, c).get("speed", 0) for c in CLASSES}
    extra: dict[str, int] = {}
    into: dict[str, list[tuple[str, str, int]]] = {}  # destination -> (from, class, count) that fit alone
    for (r, cls), n in ships.items():
        if r not in extra:
            extra[r] = sum(fort_stats(p, f[1]).get("speed", 0) for f in regions[r]["forts"] if f[0] == player)
        for dest in reachable(d["map"], r, base[cls] + extra[r], block):
            if dest == r:
                continue
            left = room(dest)
            if left is None or sizes[cls] <= left:
                out.append({"type": "move", "region": dest, "moves": [[r, dest, cls]]})
                into.setdefault(dest, []).append((r, cls, n))

    def fill(dest: str, group: list[tuple[str, str, int]]) -> list[list[str]]:
        left = room(dest)
        moves = []
        for r, cls, n in group:
            for _ in range(n):
                if left is not None and sizes[cls] > left:
                    break
                moves.append([r, dest, cls])
                left = None if left is None else left - sizes[cls]
        return moves

    for dest, group in into.items():
        if len(group) == 1 and group[0][2] == 1:
            continue
        moves = fill(dest, group)
        if len(moves) > 1:
            out.append({"type": "move", "region": dest, "moves": moves})
        sources = dict.fromkeys(g[0] for g in group)
        if len(sources) == 1:
            continue  # sending them out of their one region is the same move
        for src in sources:
            mine = [g for g in group if g[0] == src]
            if len(mine) > 1 or mine[0][2] > 1:
                moves = fill(dest, mine)
                if len(moves) > 1:
                    out.append({"type": "move", "region": src, "moves": moves})
    return out


def shipyard_moves(d: State, player: str, p: Player) -> list[dict[str, str]]:
    """`start_of_turn.check_shipyard_move`'s moves: 1 undamaged Ship across 1 border, to or from a region
    where the player has a Shipyard for its class, never into an opponent's home, within the Fleet Limit."""
    ships = fleets(d, player, movable=False)
    if not ships:
        return []
    regions = d["regions"]
    adj = adjacency(d["map"])
    yards = shipyard_regions(d, player)
    room = Room(d, p, player)
    out: list[dict[str, str]] = []
    for r, cls in ships:
        here = r in yards[cls]
        n = size(p, cls)
        for b in adj[r]:
            if regions[b]["home"] not in (None, player) or not (here or b in yards[cls]):
                continue
            left = room(b)
            if left is None or n <= left:
                out.append({"from": r, "to": b, "cls": cls})
    return out


def affordable(p: Player, tiles: list[str]) -> bool:
    """develop.check_develop_second's test of an improvement: every tile still improvable, the Wood and Coins
    for all of them."""
    spend = {"wood": 0, "coins": 0}
    stages = {t: p["fleet"] if t == "fleet" else p["classes"][t] for t in tiles}
    b = board()
    for t in tiles:
        costs = b["fleet"]["improve_wood"] if t == "fleet" else b["ship_classes"][t]["improve_coins"]
        if stages[t] >= len(costs):
            return False
        spend["wood" if t == "fleet" else "coins"] += costs[stages[t]]
        stages[t] += 1
    return spend["wood"] <= p["wood"] and spend["coins"] <= p["coins"]


def construct_candidates(
    d: State, player: str, p: Player, pips: int, classes: tuple[str, ...] | list[str] = CLASSES, less: int = 0
) -> Checked:
    """construct.check_construct's tests: a Ship left, a Shipyard of the player for that class, room under
    the Fleet Limit, 1 + discount pips, the Wood for the discounted cost."""
    out = Checked()
    yards = shipyard_regions(d, player)
    room = Room(d, p, player)
    for cls in classes:
        if p["ships"][cls] <= 0:
            continue
        need, cost = size(p, cls), max(0, ship_cost(p, cls) - less)
        for r in sorted(yards[cls]):
            left = room(r)
            if left is not None and need > left:
                continue
            for x in sorted({0, pips - 1}):
                if p["wood"] >= max(0, cost - x):
                    out.append({"type": "construct", "cls": cls, "region": r, "discount": x})
    return out


def special_candidates(d: State, player: str, p: Player, third: dict[str, Any], dice: list[str]) -> list[Any]:
    """The effect a Special Action Card adds, as `special_effects.check_special_effect` reads it."""
    if "pip" in third:
        if any(resource(p, res) < n for res, n in third["pay"].items()):
            return []
        return [Checked({"type": "special_effect", "die": x} for x in dice)]
    if "improve" in third:
        return [{"type": "special_effect", "tiles": [x]} for x in IMPROVABLE]
    if "place_fort" in third:
        return [
            {"type": "special_effect", "region": r}
            for r, reg in d["regions"].items()
            if reg["foundations"] and controls(reg, player)
        ]
    if "flip_tile" in third:
        return [
            {"type": "special_effect", "cls": c, "part": part}
            for c, parts in p["ship_tiles"].items()
            for part, t in parts.items()
            if t is not None
        ]
    if "tile" in third:
        if third.get("exhaust") and not refreshed_posts(d, player):
            return []
        # research.check_tile's tests: a tile or discards, the Coins, room on the Fort grid
        out = Checked()
        for pile, spec in tile_types().items():
            if spec["row"] not in third["tile"] or not (d["piles"][pile] or d["discards"].get(pile)):
                continue
            if p["coins"] < max(0, tile_cost(d, pile) - third["less"]):
                continue
            targets = (
                [{"cls": c} for c in CLASSES]
                if spec["row"] in PARTS
                else [{"fort": f} for f in FORTS if fort_places_for(p, f, pile + ":0")]
            )
            out += [{"type": "special_effect", "pile": pile, **tg} for tg in targets]
        return [out]
    # the families below are built from their checks' own tests (construct, move, start-of-turn move)
    if "construct" in third:
        builds = construct_candidates(d, player, p, 1, third["construct"], third["less"])
        return [Checked({"type": "special_effect", "cls": a["cls"], "region": a["region"]} for a in builds)]
    if third.get("move") == "region":
        moves = move_candidates(d, player, p)
        return [
            Checked({"type": "special_effect", "region": m["region"], "moves": m["moves"]} for m in moves)
        ]
    if third.get("move") == "shipyard":
        return [Checked({"type": "special_effect", **m} for m in shipyard_moves(d, player, p))]
    if "worker" in third:
        op = d["turn"]["open"]
        return (
            [Checked([{"type": "special_effect"}])]
            if op is not None and op["pips"] >= third["worker"]
            else []
        )
    return []


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
