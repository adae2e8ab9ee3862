"""The expansion's legal actions for the active player (joined to the base game's by `legal.legal_actions`):
each candidate goes through its action's own check, so every offer is one `apply` accepts; base offers
the expansion's checks would refuse (acquiring the Hallowed Gun without Moon Salt) are dropped.
"""

from __future__ import annotations

from typing import Any

from contracts.grid import HARBOR, SQUARES
from rules.core.errors import RulesError
from rules.dead_reckoning.cards import catalog
from rules.dead_reckoning.letters_of_marque import favour, prime_cargo, upgrades
from rules.dead_reckoning.letters_of_marque.data import lom_data
from rules.dead_reckoning.letters_of_marque.favour import HALLOWED_GUN
from rules.dead_reckoning.letters_of_marque.model import lom, ship_tokens
from rules.dead_reckoning.model import State
from rules.dead_reckoning.ship import room_in_hold

Check = Any


def _try(out: list[dict[str, Any]], check: Check, d: State, player: str, a: dict[str, Any]) -> None:
    try:
        check(d, player, a)
    except RulesError:
        return
    out.append(a)


def _claim_args(d: State, player: str, c: dict[str, Any]) -> list[dict[str, Any]]:
    """Argument sets worth offering for a claim (the check decides which pass)."""
    x = lom(d)
    kind = c["kind"]
    if kind == "letter":
        return [{"letter": t} for t in x["letters_free"][c["empire"]]]
    if kind == "any_island":
        return [{"square": sq} for sq in SQUARES if d["grid"][sq]["island"] is not None][:2]
    if kind == "overtake":
        return [{}]
    spec = lom_data().rewards[c["reward"]]
    p = d["p"][player]
    if "choice" in spec:
        return [{"choice": i} for i in range(len(spec["choice"]))]
    if "level_up" in spec:
        return [{"card": cid} for cid in sorted(p["cards"]) if p["cards"][cid]["level"] < 4][:3]
    if "building" in spec:
        for sq in SQUARES:
            isl = d["grid"][sq]["island"]
            if isl is not None and isl["controller"] == player:
                for b in ("outpost", "garrison", "fort"):
                    if not isl["buildings"][b]:
                        return [{"square": sq, "building": b}]
        return []
    if "upgrade" in spec:  # a tile of the category (the check picks a blank space, or asks for one)
        cat = catalog(d)
        for t, tile in cat.upgrades.items():
            if tile["category"] == spec["upgrade"] and d["upgrade_supply"][t] > 0 and t != HALLOWED_GUN:
                return [{"tile": t}, {"tile": t, "space": 1}]
        return []
    return [{}, {"space": 1}]  # a specific tile: on a blank space, else covering one


LANTERN = "lom-lantern"  # the expansion's basic tile listed just before the Hallowed Gun (cards.json)


def _gun_offered(d: State) -> bool:
    """Whether base offers may name the Hallowed Gun: the base game's generator offers the first basic tile
    left in the supply, in catalogue order (`legal._ability_args`)."""
    supply = d["upgrade_supply"]
    if supply.get(LANTERN):  # a basic tile listed before it is left: the generator offers that one
        return False
    for t, spec in catalog(d).upgrades.items():
        if spec["category"] == "basic" and supply[t] > 0:
            return t == HALLOWED_GUN
    return False


def legal(d: State, player: str, offered: list[dict[str, Any]]) -> list[dict[str, Any]]:
    if d["battle"] and not d["pending"]:
        if player in (d["active"], d["battle"].get("defender_player")) and upgrades.has_hallowed_gun(
            d, player
        ):
            _try(offered, upgrades.check_drop_saga_die, d, player, {"type": "drop_saga_die"})
        return offered
    if d["phase"] != "main" or d["pending"] or d["battle"]:
        return offered
    x = lom(d)
    out = offered
    mine = ship_tokens(x, player)
    if _gun_offered(d):
        tokens = lom_data().tokens
        salt = False
        for t in mine:
            if tokens[t]["type"] == "moon_salt":
                salt = True
                break
        if not salt:  # the Hallowed Gun's extra cost (upgrades.py), which the base offers know nothing of
            out = []
            for a in offered:
                if a["type"] != "use_ability" or a["args"].get("tile") != HALLOWED_GUN:
                    out.append(a)
    for i, c in enumerate(x["claims"][player]):
        for args in _claim_args(d, player, c):
            _try(out, favour.check_claim, d, player, {"type": "claim", "index": i, "args": args})
        out.append({"type": "decline", "index": i})
    p = d["p"][player]
    at = p["ship"]["at"]
    if at != HARBOR:
        spot = x["boards"][at]
        if (spot["water"]["hidden"] or spot["island"]["hidden"]) and prime_cargo.discoveries_left(
            d, player
        ) > 0:
            # exactly check_discover's tests once the turn's preconditions hold (above)
            for part in ("water", "island"):
                if spot[part]["hidden"]:
                    out.append({"type": "discover_prime_cargo", "part": part})
        here = spot["water"]["found"] + spot["island"]["found"]
    else:
        here = list(x["harbor"][player])
        for t in mine:
            out.append({"type": "unload_prime", "token": t})
            for e, spec in lom_data().empires.items():
                if lom_data().tokens[t]["type"] in spec["wants"]:
                    out.append({"type": "trade_favour", "empire": e, "token": t})
    for t in here[:3]:
        for h in (0, 1):
            if room_in_hold(p, h) > 0:
                _try(
                    out,
                    prime_cargo.check_load_prime,
                    d,
                    player,
                    {"type": "load_prime", "token": t, "hold": h},
                )
                break
    for t in mine:
        a = {"type": "discard_prime", "token": t, "args": _reward_args(d, player, t)}
        _try(out, prime_cargo.check_discard_prime, d, player, a)
    for sq, who in x["bolstered"].items():
        if who == player:
            _try(
                out,
                prime_cargo.check_discover,
                d,
                player,
                {"type": "discover_prime_cargo", "part": "island", "source": "outpost", "square": sq},
            )
            found = x["boards"][sq]["island"]["found"]
            if found:
                _try(
                    out,
                    upgrades.check_outpost_to_harbor,
                    d,
                    player,
                    {"type": "outpost_to_harbor", "square": sq, "tokens": found[:2]},
                )
    tokens = lom_data().tokens
    salt = False  # bolstering needs 1 Moon Salt from the Ship or the Harbor
    for t in mine + x["harbor"][player]:
        if tokens[t]["type"] == "moon_salt":
            salt = True
            break
    if salt:
        for sq in SQUARES:
            isl = d["grid"][sq]["island"]
            if isl is not None and isl["controller"] == player and isl["buildings"]["outpost"]:
                _try(out, upgrades.check_bolster, d, player, {"type": "bolster_outpost", "square": sq})
    return out


def _reward_args(d: State, player: str, token: str) -> dict[str, Any]:
    reward = lom_data().tokens[token]["reward"]
    at = d["p"][player]["ship"]["at"]
    if reward == "produce":
        for sq in SQUARES:
            isl = d["grid"][sq]["island"]
            if isl is not None and isl["controller"] in (None, player):
                return {"islands": [sq]}
    if reward == "influence" and at != HARBOR:
        isl = d["grid"][at]["island"]
        if isl is not None:
            others = [c for c in isl["cubes"] if c and c != player]
            if None not in isl["cubes"] and others:
                return {"replace": [others[0]]}
    return {}
