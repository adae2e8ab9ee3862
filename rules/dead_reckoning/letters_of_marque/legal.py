"""The expansion's legal actions for the active player (joined to the base game's by `legal.legal_actions`):
each candidate goes through its action's own check, or (loads, discoveries) is decided by exactly that
check's tests, so every offer is one `apply` accepts (tests/rules/letters_of_marque/test_legal.py holds every
offer to its check); base offers the expansion's checks would refuse (acquiring the Hallowed Gun without
Moon Salt) are dropped. Most states offer the expansion nothing, so each part starts with the test that
rules it out (docs/bench/rules.md, "Letters of Marque, round 2").
"""

from __future__ import annotations

from typing import Any

from contracts.grid import HARBOR, SQUARES
from rules.core.errors import RulesError
from rules.dead_reckoning.cards import catalog
from rules.dead_reckoning.islands import blockaded, controlled_by
from rules.dead_reckoning.letters_of_marque import favour, prime_cargo, upgrades
from rules.dead_reckoning.letters_of_marque.data import lom_data
from rules.dead_reckoning.letters_of_marque.favour import HALLOWED_GUN
from rules.dead_reckoning.letters_of_marque.model import lom
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
    """Whether base offers may name the Hallowed Gun once the Lantern (listed just before it) is gone from the
    supply: the base game's generator offers the first basic tile left in the supply, in catalogue order
    (`legal._ability_args`)."""
    supply = d["upgrade_supply"]
    for t, spec in catalog(d).upgrades.items():
        if spec["category"] == "basic" and supply[t] > 0:
            return t == HALLOWED_GUN
    return False


def legal(d: State, player: str, offered: list[dict[str, Any]]) -> list[dict[str, Any]]:
    if d["battle"]:
        if not d["pending"] and player in (d["active"], d["battle"].get("defender_player")):
            if upgrades.has_hallowed_gun(d, player):
                _try(offered, upgrades.check_drop_saga_die, d, player, {"type": "drop_saga_die"})
        return offered
    if d["phase"] != "main" or d["pending"]:
        return offered
    # Most states offer the expansion nothing (no Prime Cargo aboard, at the Harbor or here, no claim, no
    # Bolstered Outpost): each part below starts with the test that rules it out, on plain reads of the state.
    x = lom(d)
    holds = x["ship"][player]
    mine = holds[0] + holds[1]
    harbor = x["harbor"][player]
    salt = False  # a Moon Salt aboard (the Hallowed Gun) or at the Harbor too (bolstering an Outpost)
    salt_aboard = False
    if mine or harbor:
        tokens = lom_data().tokens
        for t in mine:
            if tokens[t]["type"] == "moon_salt":
                salt = salt_aboard = True
                break
        if not salt:
            for t in harbor:
                if tokens[t]["type"] == "moon_salt":
                    salt = True
                    break
    out = offered
    # while the Lantern is left the generator offers it, not the Gun (tested here: it is most states' answer)
    if not salt_aboard and not d["upgrade_supply"].get(LANTERN) and _gun_offered(d):
        out = []  # the Hallowed Gun's extra cost (upgrades.py), which the base offers know nothing of
        for a in offered:
            if a["type"] != "use_ability" or a["args"].get("tile") != HALLOWED_GUN:
                out.append(a)
    claims = x["claims"][player]
    if claims:
        for i, c in enumerate(claims):
            for args in _claim_args(d, player, c):
                _try(out, favour.check_claim, d, player, {"type": "claim", "index": i, "args": args})
            out.append({"type": "decline", "index": i})
    p = d["p"][player]
    at = p["ship"]["at"]
    if at != HARBOR:
        spot = x["boards"][at]
        water, island = spot["water"], spot["island"]
        if (water["hidden"] or island["hidden"]) and prime_cargo.discoveries_left(d, player) > 0:
            # exactly check_discover's tests once the turn's preconditions hold (above)
            if water["hidden"]:
                out.append({"type": "discover_prime_cargo", "part": "water"})
            if island["hidden"]:
                out.append({"type": "discover_prime_cargo", "part": "island"})
        if water["found"] or island["found"]:
            _load_offers(d, player, out, water["found"], island["found"], at)
    else:
        if mine:
            tokens, empires = lom_data().tokens, lom_data().empires
            for t in mine:
                out.append({"type": "unload_prime", "token": t})
                kind = tokens[t]["type"]
                for e, spec in empires.items():
                    if kind in spec["wants"]:
                        out.append({"type": "trade_favour", "empire": e, "token": t})
        if harbor:
            _load_offers(d, player, out, harbor, [], None)
    for t in mine:
        a = {"type": "discard_prime", "token": t, "args": _reward_args(d, player, t)}
        _try(out, prime_cargo.check_discard_prime, d, player, a)
    bolstered = x["bolstered"]
    if bolstered:
        for sq, who in bolstered.items():
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
    if salt:  # bolstering needs 1 Moon Salt from the Ship or the Harbor
        for sq in SQUARES:
            isl = d["grid"][sq]["island"]
            if isl is not None and isl["controller"] == player and isl["buildings"]["outpost"]:
                _try(out, upgrades.check_bolster, d, player, {"type": "bolster_outpost", "square": sq})
    return out


def _load_offers(
    d: State, player: str, out: list[dict[str, Any]], first: list[str], island: list[str], at: str | None
) -> None:
    """Loading the first three face-up tokens here into the first hold with room: exactly
    `prime_cargo.check_load_prime`'s tests once the turn's preconditions hold (`first` are the water's tokens,
    or the Harbor's; `island` the island's, loadable only from an island the player controls and that is not
    blockaded)."""
    p = d["p"][player]
    hold = 0 if room_in_hold(p, 0) > 0 else 1 if room_in_hold(p, 1) > 0 else None
    if hold is None:
        return
    here = first + island
    n_first = len(first)
    island_ok: bool | None = None
    for i, t in enumerate(here[:3]):
        if i >= n_first:
            if island_ok is None:
                assert at is not None  # island tokens are offered only at sea
                island_ok = controlled_by(d, at) == player and not blockaded(d, at, player)
            if not island_ok:
                break
        out.append({"type": "load_prime", "token": t, "hold": hold})


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
