"""Prime Cargo (rulebook: "Prime Cargo", "Prime Cargo When Exploring Ocean Boards", "Loading Prime Cargo",
"Prime Discovery Icon", "Using Prime Cargo"): Random Prime Cargo placed face down on boards as they are
explored, discovered with the Prime Discovery icon (`discover_prime_cargo`, then `flip_prime_cargo`, the
chance outcome: which token it is) with the edge icons that seed neighbouring boards, loaded onto the Ship
(`load_prime`; unloaded to the player's Harbor with `unload_prime`), discarded for its built-in reward
(`discard_prime`) or spent for an ability, and the discard pile reshuffled into the supply when it runs out.
"""

from __future__ import annotations

import functools
from typing import Any

from contracts.grid import HARBOR, SQUARES, step
from rules.core.actions import Action
from rules.core.errors import Illegal, Invalid
from rules.core.events import notice
from rules.dead_reckoning.abilities import check_effect, do_effect
from rules.dead_reckoning.achievements import check_achievements
from rules.dead_reckoning.cards import card_icons, catalog
from rules.dead_reckoning.islands import blockaded, controlled_by
from rules.dead_reckoning.letters_of_marque.data import EXPLORER, lom_data
from rules.dead_reckoning.letters_of_marque.model import (
    PART,
    find_on_ship,
    lom,
    pile_size,
    sync_hull,
    token_field,
    used_now,
    used_view,
)
from rules.dead_reckoning.model import State
from rules.dead_reckoning.phases import mark_acted, need_pending, require_active
from rules.dead_reckoning.sailors import queue_draw
from rules.dead_reckoning.ship import hold_index, room_in_hold, ship_icon

# a Prime Cargo's built-in reward as the base game's effect it grants (draw, Attack Flag and Cannon: below)
REWARD_EFFECTS: dict[str, dict[str, Any]] = {
    "cargo": {"do": "gain", "what": "cargo", "amount": 1, "to": "dock"},
    "sail": {"do": "sails", "amount": 1},
    "repair": {"do": "repair", "amount": 1},
    "produce": {"do": "produce", "amount": 1},
    "influence": {"do": "influence", "amount": 1},
}


def place_hidden(d: State, sq: str, part: str, out: list[dict[str, Any]]) -> bool:
    """One Undiscovered Prime Cargo from the supply onto a board's water or island; False when none is left
    even after reshuffling the discards ("if possible")."""
    x = lom(d)
    if pile_size(x) == 0 and x["discard"]:
        # "If the supply of Random Cargo runs out, shuffle all discarded Random Cargo face down into the
        # supply"
        x["bag"] = sorted(x["bag"] + x["discard"])
        notice(out, "prime_cargo_reshuffled", tokens=len(x["discard"]))
        x["discard"] = []
    if pile_size(x) == 0:
        return False
    x["hidden_out"] += 1
    x["boards"][sq][part]["hidden"] += 1
    return True


def after_reveal(d: State, player: str, a: dict[str, Any], out: list[dict[str, Any]]) -> None:
    """A board turned face up gains an Undiscovered Prime Cargo in the water, and one on the island if it has
    one. Its reminder token (every board face down at setup has one) becomes the one in the water."""
    x = lom(d)
    sq = a["square"]
    if sq in x["reminders"]:
        x["reminders"].remove(sq)
        x["boards"][sq]["water"]["hidden"] += 1
    else:
        place_hidden(d, sq, "water", out)
    if d["grid"][sq]["island"] is not None:
        place_hidden(d, sq, "island", out)


@functools.cache
def discovery_tiles() -> frozenset[str]:
    """The expansion's Ship Upgrade tiles that show the Prime Discovery icon (its data, read once)."""
    return frozenset(t["id"] for t in lom_data().cards["upgrades"] if "prime_discovery" in t["icons"])


def discoveries_left(d: State, player: str) -> int:
    """Prime Discovery icons this turn: on played cards and the Ship (Upgrade tiles, Letters), less those
    used."""
    p = d["p"][player]
    ship = "prime_discovery" in p.get("extra_icons", ())
    if not ship:
        tiles = discovery_tiles()
        for stack in p["ship"]["hull"]:
            if stack and stack[-1] in tiles:
                ship = True
                break
    # base card and tile files cannot print the icon (cards.ICONS): of the cards, only the Explorer Sailor
    # card shows it (its levels' data), so it is the one played card counted
    explorer = EXPLORER in p["played"]
    if not ship and not explorer:
        return 0
    cat = catalog(d)
    have = card_icons(cat, p["cards"][EXPLORER]).get("prime_discovery", 0) if explorer else 0
    if ship:
        have += ship_icon(cat, d, player, "prime_discovery")
    n: int = have - used_view(d, player)[1]
    return n


def check_discover(d: State, player: str, a: dict[str, Any]) -> dict[str, Any]:
    p = require_active(d, player, "discover Prime Cargo")
    part = a.get("part", "water")
    if part not in PART:
        raise Invalid("field 'part' must be 'water' or 'island'.")
    source = a.get("source", "icon")
    x = lom(d)
    if source == "icon":
        sq = p["ship"]["at"]
        if sq == HARBOR:
            raise Illegal(
                "Prime Discovery turns over Prime Cargo on the Ocean board your Ship is on, not Harbor."
            )
        if discoveries_left(d, player) <= 0:
            raise Illegal("you have no unused Prime Discovery icon this turn.")
    elif source == "outpost":
        named = a.get("square")
        if not isinstance(named, str) or named not in SQUARES:
            raise Invalid("a Bolstered Outpost discovery names its island's 'square' (r1c1..r4c3).")
        sq = named
        if x["bolstered"].get(sq) != player or controlled_by(d, sq) != player:
            raise Illegal(f"you have no Bolstered Outpost at {sq}.")
        if part != "island":
            raise Illegal("a Bolstered Outpost turns over Prime Cargo on its island only.")
        if f"flip:{sq}" in used_view(d, player)[2]:
            raise Illegal(f"the Bolstered Outpost at {sq} has already turned one over this turn.")
    else:
        raise Invalid(
            "field 'source' must be 'icon' (a Prime Discovery icon) or 'outpost' (a Bolstered Outpost)."
        )
    if x["boards"][sq][part]["hidden"] <= 0:
        raise Illegal(
            f"there is no Undiscovered Prime Cargo "
            f"{'in the water' if part == 'water' else 'on the island'} at {sq}."
        )
    return {"type": "discover_prime_cargo", "square": sq, "part": part, "source": source}


def do_discover(d: State, player: str, a: dict[str, Any], out: list[dict[str, Any]]) -> None:
    mark_acted(d, player)
    rec = used_now(d, player)
    if a["source"] == "icon":
        rec[1] += 1
    else:
        rec[2] = [*rec[2], f"flip:{a['square']}"]
    if d["turn_log"]:
        d["turn_log"][-1] = {**d["turn_log"][-1], "revealed": True}  # replaced, never edited
    d["pending"].append(
        {"kind": "flip_prime_cargo", "square": a["square"], "part": a["part"], "player": player}
    )


def check_flip(d: State, player: str, a: dict[str, Any]) -> dict[str, Any]:
    req = need_pending(d, "flip_prime_cargo")
    token = token_field(a)
    if token not in lom_data().tokens:
        raise Invalid(f"{token!r} is not a Prime Cargo token of this game; re-read the token.")
    if token not in lom(d)["bag"]:
        raise Illegal(
            f"{token} is not face down anywhere: it is face up on the table or in the discard pile."
        )
    return {"type": "flip_prime_cargo", "square": req["square"], "part": req["part"], "token": token}


def do_flip(d: State, player: str, a: dict[str, Any], out: list[dict[str, Any]]) -> None:
    req = d["pending"].pop(0)
    x = lom(d)
    sq, part, token = a["square"], a["part"], a["token"]
    x["bag"].remove(token)
    x["hidden_out"] -= 1
    spot = x["boards"][sq][part]
    spot["hidden"] -= 1
    spot["found"].append(token)
    notice(out, "prime_cargo_discovered", player=req["player"], square=sq, part=part, token=token)
    for direction, what in lom_data().tokens[token]["edges"].items():
        if direction == "any":
            # "An icon showing an island with a plus sign allows you to add one ... to any island": the
            # discoverer chooses which (a claim)
            x["claims"][req["player"]].append({"kind": "any_island"})
            continue
        nb = step(sq, direction)
        # "one space in the relative direction (if possible)": a face-up board there, with an island for one
        if nb is None or nb == HARBOR or d["grid"][nb]["board"] is None:
            continue
        if what == "island" and d["grid"][nb]["island"] is None:
            continue
        if place_hidden(d, nb, what, out):
            notice(out, "prime_cargo_placed", square=nb, part=what)


def check_load_prime(d: State, player: str, a: dict[str, Any]) -> dict[str, Any]:
    p = require_active(d, player, "load Prime Cargo")
    token = token_field(a)
    h = hold_index(a)
    x = lom(d)
    at = p["ship"]["at"]
    if at == HARBOR:
        if token not in x["harbor"][player]:
            raise Illegal(f"{token} is not at your Harbor.")
        src = "harbor"
    elif token in x["boards"][at]["water"]["found"]:
        src = "water"  # "may be loaded onto your Ship on the same Ocean board without restriction"
    elif token in x["boards"][at]["island"]["found"]:
        if controlled_by(d, at) != player:
            raise Illegal("to load Prime Cargo from an island onto your Ship you must control the island.")
        if blockaded(d, at, player):
            raise Illegal("an opponent's Pirate-mode ship blockades this island: you cannot load here.")
        src = "island"
    else:
        raise Illegal(
            f"{token} is not face up where your Ship is: you never load Undiscovered Prime Cargo "
            "(discover it first)."
        )
    if room_in_hold(p, h) < 1:
        raise Illegal(f"hold {h} is full: each Prime Cargo takes one hull space, like Cargo.")
    return {"type": "load_prime", "token": token, "hold": h, "from": src}


def do_load_prime(d: State, player: str, a: dict[str, Any], out: list[dict[str, Any]]) -> None:
    mark_acted(d, player)
    x = lom(d)
    token = a["token"]
    if a["from"] == "harbor":
        x["harbor"][player].remove(token)
    else:
        x["boards"][d["p"][player]["ship"]["at"]][a["from"]]["found"].remove(token)
    x["ship"][player][a["hold"]].append(token)
    sync_hull(d, player)


def check_unload_prime(d: State, player: str, a: dict[str, Any]) -> dict[str, Any]:
    p = require_active(d, player, "unload Prime Cargo")
    token = token_field(a)
    find_on_ship(lom(d), player, token)
    if p["ship"]["at"] != HARBOR:
        raise Illegal("Prime Cargo is unloaded at your Harbor: sail there first.")
    return {"type": "unload_prime", "token": token}


def do_unload_prime(d: State, player: str, a: dict[str, Any], out: list[dict[str, Any]]) -> None:
    mark_acted(d, player)
    x = lom(d)
    x["ship"][player][find_on_ship(x, player, a["token"])].remove(a["token"])
    x["harbor"][player].append(a["token"])
    sync_hull(d, player)


def discard_token(d: State, player: str, token: str) -> None:
    """A used Prime Cargo (from the Ship or the player's Harbor) to the face-up discard pile."""
    x = lom(d)
    if token in x["harbor"][player]:
        x["harbor"][player].remove(token)
    else:
        x["ship"][player][find_on_ship(x, player, token)].remove(token)
        sync_hull(d, player)
    x["discard"].append(token)


def token_of_type(d: State, player: str, kind: str, a: dict[str, Any], harbor: bool = False) -> str:
    """The Prime Cargo of that type the player spends: the one named in `token`, else the first found on the
    Ship (then at their Harbor when `harbor`)."""
    x = lom(d)
    names = lom_data().names
    have = x["ship"][player][0] + x["ship"][player][1] + (x["harbor"][player] if harbor else [])
    token = a.get("token")
    if token is None:
        for t in have:
            if lom_data().tokens[t]["type"] == kind:
                return str(t)
        where = "Ship or Harbor" if harbor else "Ship"
        raise Illegal(f"this needs 1 {names[kind]} from your {where}, and you have none there.")
    if not isinstance(token, str) or token not in have:
        raise Illegal(f"{token!r} is not on your {'Ship or at your Harbor' if harbor else 'Ship'}.")
    if lom_data().tokens[token]["type"] != kind:
        raise Illegal(f"{token} is not {names[kind]}.")
    return token


def check_discard_prime(d: State, player: str, a: dict[str, Any]) -> dict[str, Any]:
    p = require_active(d, player, "discard Prime Cargo for its reward")
    token = token_field(a)
    find_on_ship(lom(d), player, token)
    reward = lom_data().tokens[token]["reward"]
    norm: dict[str, Any] = {"type": "discard_prime", "token": token, "reward": reward}
    if reward in REWARD_EFFECTS:
        args = a.get("args", {})
        if not isinstance(args, dict):
            raise Invalid("'args' must be an object (as for an ability's effect).")
        norm["x"] = check_effect(d, player, REWARD_EFFECTS[reward], args, {}, {"dock": p["dock"]}, {})
    return norm


def do_discard_prime(d: State, player: str, a: dict[str, Any], out: list[dict[str, Any]]) -> None:
    mark_acted(d, player)
    p = d["p"][player]
    discard_token(d, player, a["token"])
    reward = a["reward"]
    if reward == "draw":
        queue_draw(d, player, 1)
    elif reward == "attack_flag":
        p["flags_used"] -= 1  # one more unused Attack Flag this turn
    elif reward == "cannon":
        p["cannons_used"] -= 1  # one more unused Cannon this turn
    else:
        do_effect(d, player, REWARD_EFFECTS[reward], a["x"], out)
    notice(out, "prime_cargo_used", player=player, token=a["token"], reward=reward)
    check_achievements(d, player, out)


ACTIONS: tuple[Action[State], ...] = (
    Action("discover_prime_cargo", check_discover, do_discover),
    Action("flip_prime_cargo", check_flip, do_flip, chance=True),
    Action("load_prime", check_load_prime, do_load_prime),
    Action("unload_prime", check_unload_prime, do_unload_prime),
    Action("discard_prime", check_discard_prime, do_discard_prime),
)
