"""Combat in its nine steps (rulebook: "Combat", "Combat Steps in Detail", "Combat Cards").

1-2. `start_combat` (from `initiate_combat`): each side's Combat Stats from its Ships and Forts in the region
     (a Damaged Ship counts in full but has 1 Health), plus the attacker's unused Mobilise pips as Mobility.
3.   `play_combat_card` by each side, secretly (views hide it until both are in).
4-5. Both revealed together; their effects resolved (`resolve_cards`).
6-7. The more Mobile side attacks first (the attacker on a tie): Damage = Attack - (Shields - Flames);
     the side taking Damage places it (`assign_damage`; all of it at once when it destroys everything).
8.   Winner: the only survivor, else the most Strength, else the attacker.
9.   Results: the winner gains 1 Combat Point and loses its card; the loser takes its card back and
     chooses a consolation (`consolation`), loses its Forts in the region, its Ships retreat to its
     Shipyards (`retreat`, when it has a Shipyard besides its home region), gains a Neutral Worker when
     weakened; Ships with Damage are laid down.
"""

from __future__ import annotations

from typing import Any

from rules.core.actions import Action
from rules.core.errors import Illegal, Invalid
from rules.core.events import notice
from rules.great_sea.combat_cards import card_spec, is_basic
from rules.great_sea.control import refresh_one, regions_present
from rules.great_sea.data import COMBAT_STATS, DICE, PARTS
from rules.great_sea.develop import fleet_limit, fleet_used, size
from rules.great_sea.dice import check_pip, gain_pip
from rules.great_sea.end_of_game import advance, check_end
from rules.great_sea.map import adjacent
from rules.great_sea.model import State, Stats, gain
from rules.great_sea.special_actions import card_effect
from rules.great_sea.temples import recheck
from rules.great_sea.upgrades import (
    add,
    check_fort_tile,
    fort_stats,
    is_shipyard,
    place_fort_tile,
    ship_stats,
    top,
)
from rules.great_sea.upgrades import take as take_tile
from rules.great_sea.worker import close_action

Unit = dict[str, Any]


def units_of(d: State, color: str, region: str) -> list[Unit]:
    p = d["p"][color]
    reg = d["regions"][region]
    out: list[Unit] = []
    for s in reg["ships"]:
        if s["owner"] == color:
            st = ship_stats(p, s["cls"])
            health = 1 if s["damaged"] else max(1, st.get("health", 1))
            out.append(_unit("ship", s["cls"], health, st, s["damaged"]))
    for f in reg["forts"]:
        if f[0] == color:
            st = fort_stats(p, f[1])
            out.append(_unit("fort", f[1], max(1, st.get("health", 1)), st, False))
    return out


def _unit(kind: str, cls: str, health: int, st: Stats, was_damaged: bool) -> Unit:
    return {
        "kind": kind,
        "cls": cls,
        "health": health,
        "damage": 0,
        "stats": {k: st.get(k, 0) for k in COMBAT_STATS},
        "was_damaged": was_damaged,
    }


def totals(units: list[Unit]) -> Stats:
    out: Stats = dict.fromkeys(COMBAT_STATS, 0)
    for u in units:
        add(out, u["stats"])
    return out


def start_combat(
    d: State, attacker: str, defender: str, region: str, mobility: int, out: list[dict[str, Any]]
) -> None:
    """Steps 1-2: "Each player adds up all their Combat Stats, and marks them on their Stat Track" (with
    the Mobility of unused pips and a Mobilise Special Action Card's "when initiating Combat" gain)."""
    units = {attacker: units_of(d, attacker, region), defender: units_of(d, defender, region)}
    stats = {c: totals(u) for c, u in units.items()}
    stats[attacker]["mobility"] += mobility
    add(stats[attacker], card_effect(d["p"][attacker]["cards"]["6"]["id"]).get("combat", {}))
    d["combat"] = {
        "attacker": attacker,
        "defender": defender,
        "region": region,
        "tracks": {attacker: 1, defender: 2},  # step 1: the two numbered Stat Tracks
        "units": units,
        "stats": stats,
        "stage": "choose",
        "chosen": {attacker: None, defender: None},
        "order": [],
        "next": 0,
        "await": None,
        "winner": None,
        "loser": None,
        "present": {c: sorted({(u["kind"] + ":" + u["cls"]) for u in us}) for c, us in units.items()},
    }
    d["active"] = attacker
    notice(out, "combat_started", attacker=attacker, defender=defender, region=region, stats=stats)


def _combat(d: State, player: str) -> dict[str, Any]:
    c = d["combat"]
    if c is None:
        raise Illegal("no Combat is under way.")
    if player not in (c["attacker"], c["defender"]):
        raise Illegal("only the two players in the Combat take part in it.")
    return c


def check_play_card(d: State, player: str, action: dict[str, Any]) -> dict[str, Any]:
    c = _combat(d, player)
    if c["stage"] != "choose" or c["chosen"][player] is not None:
        raise Illegal("you have already chosen your Combat Card.")
    card = action.get("card")
    if not d["p"][player]["hand"]:
        # every card lost to victories: nothing to play (a decision, docs/great-sea.md)
        if card is not None:
            raise Illegal("you have no Combat Card left in hand: play none (card null).")
        return {"type": "play_combat_card", "card": None, "side": "none"}
    if card not in d["p"][player]["hand"]:
        raise Invalid(f"'{card}' is not a Combat Card in your hand.")
    side = "stats" if is_basic(str(card)) else action.get("side", "stats")
    if side not in ("stats", "ability"):
        raise Invalid("a Standard Combat Card is played with side 'stats' or 'ability' upright.")
    if side == "ability":
        if card == "evasion" and player != c["attacker"]:
            raise Illegal("only the attacker may play Evasion for its ability.")
        if card == "reinforce":
            if player != c["defender"]:
                raise Illegal("only the defender may play Reinforce for its ability.")
            return {
                "type": "play_combat_card",
                "card": card,
                "side": side,
                "reinforce": check_reinforce(d, c, player, action.get("reinforce")),
            }
    return {"type": "play_combat_card", "card": card, "side": side}


def check_reinforce(d: State, c: dict[str, Any], player: str, spec: object) -> dict[str, Any]:
    """Reinforce: "they may bring in any number of Ships from 1 adjacent region, acting as if that region has
    1 additional Fleet Limit for their Ships." Chosen with the card (secret with it): `reinforce` is
    {"from": region, "ships": [class, ...]} (none: bring nothing)."""
    if spec is None:
        return {"from": None, "ships": []}
    if not isinstance(spec, dict) or not isinstance(spec.get("ships"), list):
        raise Invalid("reinforce is {'from': region, 'ships': [classes]} (or leave it out to bring none).")
    src, ships = spec.get("from"), spec["ships"]
    if not isinstance(src, str) or src not in d["regions"] or not adjacent(d["map"], src, c["region"]):
        raise Illegal(f"Reinforce brings Ships from 1 region adjacent to {c['region']}.")
    p = d["p"][player]
    have = [s["cls"] for s in d["regions"][src]["ships"] if s["owner"] == player and not s["damaged"]]
    for cls in ships:
        if cls not in have:
            raise Illegal(f"you have no more undamaged {cls} Ships in {src} to bring in.")
        have.remove(cls)
    reg = d["regions"][c["region"]]
    lim = fleet_limit(reg, p, player)
    if lim is not None and fleet_used(reg, p, player) + sum(size(p, x) for x in ships) > lim + 1:
        raise Illegal(f"that would exceed your Fleet Limit there, even with Reinforce's 1 more ({lim + 1}).")
    return {"from": src, "ships": list(ships)}


def play_combat_card(d: State, player: str, a: dict[str, Any], out: list[dict[str, Any]]) -> None:
    c = d["combat"]
    assert c is not None
    c["chosen"][player] = {k: v for k, v in a.items() if k != "type"}
    notice(out, "combat_card_chosen", player=player)
    waiting = [x for x in (c["attacker"], c["defender"]) if c["chosen"][x] is None]
    if waiting:
        d["active"] = waiting[0]
        return
    # step 4: "Once both players have chosen a Combat Card, they reveal them along with their Combat Boards"
    notice(out, "combat_revealed", cards={k: dict(v) for k, v in c["chosen"].items()})
    resolve_cards(d, c)
    notice(out, "combat_stats", stats={k: dict(v) for k, v in c["stats"].items()})
    att, dfn = c["attacker"], c["defender"]
    first = att if c["stats"][att]["mobility"] >= c["stats"][dfn]["mobility"] else dfn
    c["order"] = [first, dfn if first == att else att]
    c["stage"] = "attacks"
    proceed(d, out)


def _opponent(c: dict[str, Any], color: str) -> str:
    return str(c["defender"] if color == c["attacker"] else c["attacker"])


def resolve_cards(d: State, c: dict[str, Any]) -> None:
    """Step 5: each card's effects on the Combat Stats."""
    chosen = c["chosen"]
    both_mutiny = all(v["card"] == "mutiny" and v["side"] == "ability" for v in chosen.values())
    for color, ch in chosen.items():
        st: Stats = c["stats"][color]
        opp = _opponent(c, color)
        if ch["card"] is None:
            continue
        spec = card_spec(ch["card"])
        if ch["side"] == "stats":
            add(st, spec["stats"])
            continue
        card = ch["card"]
        if card == "evasion":
            # "Copy the Combat Stats of 1 opposing Stronghold and 1 opposing Outpost in the region"
            for fort in ("stronghold", "outpost"):
                u = next((u for u in c["units"][opp] if u["kind"] == "fort" and u["cls"] == fort), None)
                if u:
                    add(st, u["stats"])
        elif card == "hubris":
            add(st, {"mobility": -1, "strength": -1})
        elif card == "mutiny" and not both_mutiny:
            n = sum(1 for u in c["units"][opp] if u["kind"] == "ship")
            c["stats"][opp]["strength"] -= 2 * n
            st["strength"] += n
        elif card == "pillage":
            add(st, {"attack": 1, "flames": 1})
        elif card == "safe_harbour":
            st["shields"] += 1
        elif card == "reinforce":
            bring_in(d, c, color, ch["reinforce"])
        elif card == "skulduggery":
            if chosen[opp]["card"] is not None:
                add(st, card_spec(chosen[opp]["card"])["stats"])


def bring_in(d: State, c: dict[str, Any], color: str, spec: dict[str, Any]) -> None:
    """Reinforce's Ships move into the Combat region and fight with their full stats."""
    p = d["p"][color]
    src = spec["from"]
    for cls in spec["ships"]:
        ships = d["regions"][src]["ships"]
        i = next(
            i for i, s in enumerate(ships) if s["owner"] == color and s["cls"] == cls and not s["damaged"]
        )
        d["regions"][c["region"]]["ships"].append(ships.pop(i))
        st = ship_stats(p, cls)
        u = _unit("ship", cls, max(1, st.get("health", 1)), st, False)
        c["units"][color].append(u)
        add(c["stats"][color], u["stats"])
        key = "ship:" + cls
        if key not in c["present"][color]:
            c["present"][color] = sorted([*c["present"][color], key])


def damage_of(attack: int, shields: int, flames: int) -> int:
    """ "Active player's Attack value, minus their opponent's Shields less the active player's Flames.\""""
    return max(0, max(0, attack) - max(0, max(0, shields) - max(0, flames)))


def proceed(d: State, out: list[dict[str, Any]]) -> None:
    """Steps 6-8: the attacks in Mobility order, stopping to ask where Damage goes."""
    c = d["combat"]
    assert c is not None
    while c["next"] < 2:
        shooter = c["order"][c["next"]]
        target = _opponent(c, shooter)
        c["next"] += 1
        s, t = c["stats"][shooter], c["stats"][target]
        dmg = damage_of(s["attack"], t["shields"], s["flames"])
        notice(out, "attacks", player=shooter, target=target, damage=dmg)
        alive = [u for u in c["units"][target] if u["damage"] < u["health"]]
        room = sum(u["health"] - u["damage"] for u in alive)
        if dmg >= room and alive:
            destroy_all(c, target)
        elif dmg > 0:
            c["stage"] = "damage"
            c["await"] = {"player": target, "damage": dmg}
            d["active"] = target
            return
        if not any(u["damage"] < u["health"] for u in c["units"][target]):
            break  # "If their opponent no longer has any presence ... move straight to step 8"
    decide_winner(d, c, out)


def destroy_all(c: dict[str, Any], color: str) -> None:
    for u in c["units"][color]:
        if u["damage"] < u["health"]:
            u["damage"] = u["health"]
            add(c["stats"][color], u["stats"], -1)


def check_assign(d: State, player: str, action: dict[str, Any]) -> dict[str, Any]:
    c = _combat(d, player)
    aw = c["await"]
    if c["stage"] != "damage" or aw is None or aw["player"] != player:
        raise Illegal("you have no Damage to place now.")
    placed = action.get("placed")
    units = c["units"][player]
    if not isinstance(placed, list) or not all(
        isinstance(x, list) and len(x) == 2 and all(isinstance(v, int) for v in x) for x in placed
    ):
        raise Invalid(
            "say where the Damage goes: placed [[unit, amount], ...] (units as listed in the Combat)."
        )
    per: dict[int, int] = {}
    for i, n in placed:
        if not 0 <= i < len(units) or n < 1:
            raise Invalid(
                f"unit {i} is not one of your {len(units)} units in this Combat, or the amount is < 1."
            )
        per[i] = per.get(i, 0) + n
    for i, n in per.items():
        u = units[i]
        if n > u["health"] - u["damage"]:
            raise Illegal(f"unit {i} ({u['cls']}) has only {u['health'] - u['damage']} Health space(s) left.")
    if sum(per.values()) != aw["damage"]:
        raise Illegal(f"place exactly {aw['damage']} Damage.")
    # a class's Health spaces are on the Player Board: Damage fills one Ship of a class until it is destroyed
    # ("it will only lay down 1 Ship of that Class, not all Ships")
    for cls in {u["cls"] for u in units if u["kind"] == "ship"}:
        hurt = [
            i
            for i, u in enumerate(units)
            if u["kind"] == "ship" and u["cls"] == cls and 0 < u["damage"] + per.get(i, 0) < u["health"]
        ]
        if len(hurt) > 1:
            raise Illegal(
                f"Damage on your {cls} Ships goes on one of them until it is destroyed, not spread over "
                "several."
            )
    return {"type": "assign_damage", "placed": [[i, n] for i, n in sorted(per.items())]}


def assign_damage(d: State, player: str, a: dict[str, Any], out: list[dict[str, Any]]) -> None:
    c = d["combat"]
    assert c is not None
    for i, n in a["placed"]:
        u = c["units"][player][i]
        u["damage"] += n
        if u["damage"] >= u["health"]:
            # "After resolving Damage, players must adjust their Combat Stats on their Stat Track accordingly"
            add(c["stats"][player], u["stats"], -1)
            notice(out, "destroyed", player=player, kind=u["kind"], cls=u["cls"])
    c["await"] = None
    c["stage"] = "attacks"
    if not any(u["damage"] < u["health"] for u in c["units"][player]):
        c["next"] = 2
    proceed(d, out)


def decide_winner(d: State, c: dict[str, Any], out: list[dict[str, Any]]) -> None:
    att, dfn = c["attacker"], c["defender"]
    alive = {x: any(u["damage"] < u["health"] for u in c["units"][x]) for x in (att, dfn)}
    if alive[att] != alive[dfn]:
        winner = att if alive[att] else dfn
    elif c["stats"][dfn]["strength"] > c["stats"][att]["strength"]:
        winner = dfn
    else:
        winner = att  # "If tied for Strength, the attacker ... is the winner."
    loser = _opponent(c, winner)
    c["winner"], c["loser"] = winner, loser
    notice(out, "combat_won", winner=winner, loser=loser)
    remove_destroyed(d, c)
    results(d, c, out)


def remove_destroyed(d: State, c: dict[str, Any]) -> None:
    reg = d["regions"][c["region"]]
    for color, units in c["units"].items():
        p = d["p"][color]
        for u in units:
            if u["damage"] < u["health"] or u.get("removed"):
                continue
            u["removed"] = True
            if u["kind"] == "ship":
                for i, s in enumerate(reg["ships"]):
                    if s["owner"] == color and s["cls"] == u["cls"] and s["damaged"] == u["was_damaged"]:
                        reg["ships"].pop(i)
                        p["ships"][u["cls"]] += 1  # "returned to their owners' Supplies"
                        break
            else:
                for i, f in enumerate(reg["forts"]):
                    if f == [color, u["cls"]]:
                        reg["forts"].pop(i)
                        p["forts_supply"][u["cls"]] += 1  # Forts go to the Main Supply
                        break


def results(d: State, c: dict[str, Any], out: list[dict[str, Any]]) -> None:
    """Step 9, up to the loser's consolation choice."""
    winner, loser = c["winner"], c["loser"]
    pw, pl = d["p"][winner], d["p"][loser]
    wc, lc = c["chosen"][winner], c["chosen"][loser]
    # Winner: "gains 1 Combat Point, and loses their played Combat Card" (faceup near their board)
    if wc["card"] is not None:
        pw["hand"].remove(wc["card"])
        pw["lost"].append(wc["card"])
    # Loser: "returns their Combat Card to their hand"; a Basic card's "If you lose this combat" gain
    if lc["card"] is not None and is_basic(lc["card"]):
        for k, v in card_spec(lc["card"]).get("if_lose", {}).items():
            gain(pl, k, v)
    reg = d["regions"][c["region"]]
    for color, ch in c["chosen"].items():
        if ch["side"] != "ability":
            continue
        p = d["p"][color]
        if ch["card"] == "hubris":
            pw["neutral"] += 1
        elif ch["card"] == "pillage" and color == winner:
            post = reg["post"]
            if post is not None and post[0] == loser:
                reg["post"] = None
                pl["posts_supply"] += 1
                notice(out, "post_removed", player=loser, region=c["region"])
            refresh_one(d, color)
        elif ch["card"] == "ramming_speed":
            p["coins"] += 2
            ram(d, c, _opponent(c, color), out)
        elif ch["card"] == "safe_harbour":
            p["wood"] += 2
            for u in c["units"][color]:
                if u["kind"] == "ship" and u["damage"] < u["health"]:
                    u["damage"] = 0  # repaired: not laid down
    advance(d, winner, "combat", 1, out)
    c["stage"] = "consolation"
    d["active"] = loser
    if d["phase"] == "over":
        return
    if not consolations(d, loser):
        finish_combat(d, out)


def ram(d: State, c: dict[str, Any], target: str, out: list[dict[str, Any]]) -> None:
    """Ramming Speed: "deal 1 Damage to 2 opposing Ships of different Classes involved in the Combat ... This
    Damage cannot be blocked by Shields." A surviving Ship with 1 Health left is destroyed, else laid down."""
    reg = d["regions"][c["region"]]
    done: set[str] = set()
    for u in c["units"][target]:
        if u["kind"] != "ship" or u["damage"] >= u["health"] or u["cls"] in done or len(done) == 2:
            continue
        done.add(u["cls"])
        u["damage"] += 1
        if u["damage"] >= u["health"]:
            remove_destroyed(d, c)
        else:
            for s in reg["ships"]:
                if s["owner"] == target and s["cls"] == u["cls"] and not s["damaged"]:
                    s["damaged"] = True
                    u["rammed"] = True
                    break
        notice(out, "rammed", player=target, cls=u["cls"])


def consolations(d: State, loser: str) -> list[dict[str, Any]]:
    """The loser's consolation choices ("Flip 1 Ship Upgrade Tile of a Ship Class that was present", "Gain 1
    free Small Fort Upgrade Tile ... for a Fort Class that was present", "Gain 1 pip")."""
    c = d["combat"]
    assert c is not None
    p = d["p"][loser]
    present = c["present"][loser]
    out: list[dict[str, Any]] = []
    for key in present:
        kind, cls = key.split(":")
        if kind == "ship":
            for part in PARTS:
                if p["ship_tiles"][cls][part] is not None:
                    out.append({"type": "consolation", "choice": "flip", "cls": cls, "part": part})
        elif d["piles"]["fort_small"] or d["discards"].get("fort_small"):
            out.append({"type": "consolation", "choice": "small_fort", "fort": cls})
    for die in DICE:
        try:
            check_pip(p, die)
            out.append({"type": "consolation", "choice": "pip", "die": die})
        except Illegal:
            pass
    return out


def check_consolation(d: State, player: str, action: dict[str, Any]) -> dict[str, Any]:
    c = _combat(d, player)
    if c["stage"] != "consolation" or player != c["loser"]:
        raise Illegal("only the loser of the Combat chooses a consolation, after the Combat is decided.")
    offered = consolations(d, player)
    norm: dict[str, Any] = {
        k: action[k] for k in ("type", "choice", "cls", "part", "fort", "die") if k in action
    }
    if norm not in offered:
        raise Illegal("that consolation is not available: " + "; ".join(str(o) for o in offered[:6]))
    if norm["choice"] == "small_fort":
        norm["place"] = check_fort_tile(d["p"][player], norm["fort"], "fort_small", action.get("place"))[1]
    return norm


def consolation(d: State, player: str, a: dict[str, Any], out: list[dict[str, Any]]) -> None:
    p = d["p"][player]
    if a["choice"] == "flip":
        t = p["ship_tiles"][a["cls"]][a["part"]]
        assert t is not None
        t["flipped"] = not t["flipped"]
    elif a["choice"] == "small_fort":
        top(d, "fort_small")
        place_fort_tile(p, a["fort"], take_tile(d, "fort_small"), a["place"])
    else:
        gain_pip(p, a["die"])
    finish_combat(d, out)


def retreating(d: State, c: dict[str, Any]) -> list[str]:
    """The classes of the loser's Ships left in the region, in their order there."""
    return [s["cls"] for s in d["regions"][c["region"]]["ships"] if s["owner"] == c["loser"]]


def retreat_targets(d: State, c: dict[str, Any]) -> dict[str, list[str]]:
    """For each class retreating, the regions where the loser has a Shipyard for it, home first."""
    loser = c["loser"]
    p = d["p"][loser]
    home = p["home"]
    out: dict[str, list[str]] = {}
    for cls in dict.fromkeys(retreating(d, c)):
        others = [
            r
            for r, reg in d["regions"].items()
            if r not in (home, c["region"]) and is_shipyard(reg, p, loser, cls)
        ]
        out[cls] = [home, *others]
    return out


def retreats(d: State, c: dict[str, Any]) -> list[dict[str, Any]]:
    """The retreats offered: every Ship home, and for each other Shipyard, as many Ships as fit there (in
    their order) with the rest home. Any distribution within the Fleet Limits may be sent."""
    ships = retreating(d, c)
    targets = retreat_targets(d, c)
    home = d["p"][c["loser"]]["home"]
    out = [{"type": "retreat", "to": [home] * len(ships)}]
    p = d["p"][c["loser"]]
    for r in sorted({r for rs in targets.values() for r in rs[1:]}):
        reg = d["regions"][r]
        lim = fleet_limit(reg, p, c["loser"])
        room = None if lim is None else lim - fleet_used(reg, p, c["loser"])
        to = []
        for cls in ships:
            n = size(p, cls)
            if r in targets[cls] and (room is None or n <= room):
                to.append(r)
                room = None if room is None else room - n
            else:
                to.append(home)
        if r in to:
            out.append({"type": "retreat", "to": to})
    return out


def check_retreat(d: State, player: str, action: dict[str, Any]) -> dict[str, Any]:
    c = _combat(d, player)
    if c["stage"] != "retreat" or player != c["loser"]:
        raise Illegal("only the loser of a Combat retreats, after choosing its consolation.")
    ships = retreating(d, c)
    to = action.get("to")
    if not isinstance(to, list) or len(to) != len(ships) or not all(isinstance(r, str) for r in to):
        raise Invalid(
            f"say where each of your {len(ships)} Ship(s) in {c['region']} ({', '.join(ships)}) retreats: "
            "to [region, ...] in that order."
        )
    targets = retreat_targets(d, c)
    p = d["p"][player]
    added: dict[str, int] = {}
    for cls, r in zip(ships, to, strict=True):
        if r not in targets[cls]:
            raise Illegal(
                f"your {cls} Ships retreat to regions where you have a Shipyard for them: "
                + ", ".join(targets[cls])
                + "."
            )
        added[r] = added.get(r, 0) + size(p, cls)
    for r, n in added.items():
        reg = d["regions"][r]
        lim = fleet_limit(reg, p, player)
        if lim is not None and fleet_used(reg, p, player) + n > lim:
            raise Illegal(f"retreating there would exceed your Fleet Limit of {lim} in {r}.")
    return {"type": "retreat", "to": list(to)}


def retreat(d: State, player: str, a: dict[str, Any], out: list[dict[str, Any]]) -> None:
    c = d["combat"]
    assert c is not None
    move_back(d, c, a["to"], out)
    wrap_up(d, out)


def move_back(d: State, c: dict[str, Any], to: list[str], out: list[dict[str, Any]]) -> None:
    reg = d["regions"][c["region"]]
    ships = [s for s in reg["ships"] if s["owner"] == c["loser"]]
    for s, r in zip(ships, to, strict=True):
        reg["ships"].remove(s)
        d["regions"][r]["ships"].append(s)
    if ships:
        notice(out, "retreated", player=c["loser"], region=c["region"], to=list(to))


def finish_combat(d: State, out: list[dict[str, Any]]) -> None:
    c = d["combat"]
    assert c is not None
    loser, region = c["loser"], c["region"]
    reg = d["regions"][region]
    pl = d["p"][loser]
    # "Any surviving Ships that have Damage Markers on them must be laid down on their sides."
    for color, units in c["units"].items():
        for u in units:
            if (
                u["kind"] == "ship"
                and 0 < u["damage"] < u["health"]
                and not u["was_damaged"]
                and not u.get("rammed")
            ):
                for s in reg["ships"]:
                    if s["owner"] == color and s["cls"] == u["cls"] and not s["damaged"]:
                        s["damaged"] = True
                        break
    # the loser "must destroy all of their Forts that remain in the region, and move all of their Ships ...
    # back to regions where they have Shipyards. If they have multiple Shipyards, they may distribute
    # surviving Ships as they please": a choice only when a Shipyard besides home has room
    for f in [f for f in reg["forts"] if f[0] == loser]:
        reg["forts"].remove(f)
        pl["forts_supply"][f[1]] += 1
    options = retreats(d, c)
    if len(options) > 1:
        c["stage"] = "retreat"
        d["active"] = loser
        return
    move_back(d, c, options[0]["to"], out)
    wrap_up(d, out)


def wrap_up(d: State, out: list[dict[str, Any]]) -> None:
    """The end of step 9 once the loser's Ships are back: a weakened loser's Neutral Worker, the turn goes
    on."""
    c = d["combat"]
    assert c is not None
    loser, region = c["loser"], c["region"]
    pl = d["p"][loser]
    weak = len(regions_present(d, loser)) < 3 or not any(
        s["owner"] == loser for r in d["regions"].values() for s in r["ships"]
    )
    if weak:
        pl["neutral"] += 1
        notice(out, "neutral_worker", player=loser, why="weakened")
    notice(out, "combat_over", winner=c["winner"], loser=loser, region=region)
    d["combat"] = None
    d["active"] = d["turn_player"]
    close_action(d)
    recheck(d, out)
    check_end(d, out)


ACTIONS = (
    Action("play_combat_card", check_play_card, play_combat_card, undoable=False),
    Action("assign_damage", check_assign, assign_damage, undoable=False),
    Action("consolation", check_consolation, consolation, undoable=False),
    Action("retreat", check_retreat, retreat, undoable=False),
)
