"""Favor (rulebook: "Gaining and Losing Favor", "Ways to Gain and Lose Favor", "Favor Rewards"): the Current
and Peak Favor markers on each Empire's track, gaining (the peak moves and grants the space's reward; at
the right end 2 gold instead) and losing (at the left end 2 gold from the chest), trading a wanted Prime
Cargo in Harbor (`trade_favour`), Trade vessels won or lost, rival penalties, and the rewards, those that
need a choice settled by the player with `claim` (or `decline`).
"""

from __future__ import annotations

from typing import Any

from contracts.grid import HARBOR, SQUARES
from rules.core.actions import Action
from rules.core.errors import Ambiguous, Illegal, Invalid
from rules.core.events import notice
from rules.dead_reckoning.abilities import check_effect, do_effect
from rules.dead_reckoning.achievements import check_achievements, earn_cube
from rules.dead_reckoning.cards import BUILDINGS, catalog
from rules.dead_reckoning.letters_of_marque.data import lom_data
from rules.dead_reckoning.letters_of_marque.letters import (
    current_moved,
    letter_of,
    overtake,
    peak_reached,
    take_letter,
)
from rules.dead_reckoning.letters_of_marque.model import find_on_ship, lom, token_field
from rules.dead_reckoning.letters_of_marque.prime_cargo import discard_token, place_hidden, token_of_type
from rules.dead_reckoning.model import State
from rules.dead_reckoning.phases import active_player, mark_acted, require_active
from rules.dead_reckoning.sailors import own_card, queue_draw
from rules.dead_reckoning.ship import int_field

HALLOWED_GUN = "lom-hallowed-gun"


def rival(empire: str) -> str:
    return next(e for e in lom_data().empires if e != empire)


def gain_gold(d: State, color: str, n: int) -> None:
    d["supply"]["coins"] -= n
    d["p"][color]["chest"] += n


def lose_gold(d: State, color: str, n: int) -> int:
    """Up to n gold from the chest back to the supply; how many were lost."""
    p = d["p"][color]
    lost = min(n, p["chest"])
    p["chest"] -= lost
    d["supply"]["coins"] += lost
    return lost


def gain_favour(d: State, color: str, empire: str, out: list[dict[str, Any]]) -> None:
    """ "Move your Current Favor marker forward one space. If it moves ahead of your Peak Favor marker, move
    the Peak Favor marker forward as well and gain the Favor Reward on that space. If already on the
    rightmost space, gain 2 gold instead." """
    f = lom(d)["favour"][color][empire]
    track = lom_data().empires[empire]["track"]
    if f[0] >= track["right"]:
        gain_gold(d, color, 2)
        notice(out, "favour_at_end", player=color, empire=empire, gold=2)
        return
    old = f[0]
    f[0] += 1
    notice(out, "favour_changed", player=color, empire=empire, current=f[0], peak=max(f[1], f[0]))
    current_moved(d, color, empire, old, f[0], out)
    if f[0] > f[1]:
        f[1] = f[0]
        rid = lom(d)["rewards"][empire].get(str(f[0]))
        if rid is not None:
            grant(d, color, rid, out)
        peak_reached(d, color, empire, f[0], out)
        if f[0] in track["rival_spaces"]:
            # "Advancing your Peak Favor to a space with a rival empire's icon causes you to lose one Current
            # Favor on that rival's track."
            lose_favour(d, color, rival(empire), out)


def lose_favour(d: State, color: str, empire: str, out: list[dict[str, Any]]) -> None:
    """ "Move your Current Favor marker back one space. The Peak Favor marker remains. If already on the
    leftmost space, lose 2 gold from your chest." Falling behind the start space puts a bounty on the Ship."""
    f = lom(d)["favour"][color][empire]
    if f[0] <= lom_data().empires[empire]["track"]["left"]:
        notice(out, "favour_at_end", player=color, empire=empire, gold=-lose_gold(d, color, 2))
        return
    old = f[0]
    f[0] -= 1
    notice(out, "favour_changed", player=color, empire=empire, current=f[0], peak=f[1])
    if old == 0:
        notice(out, "bounty", player=color, empire=empire)
    current_moved(d, color, empire, old, f[0], out)


def grant(d: State, color: str, rid: str, out: list[dict[str, Any]]) -> None:
    """A Favor Reward: gold, Cargo and draws at once; one that needs a choice becomes a claim."""
    spec = lom_data().rewards[rid]
    notice(out, "favour_reward", player=color, reward=rid)
    if "gain" in spec or "draw" in spec:
        _plain_reward(d, color, spec)
    else:
        lom(d)["claims"][color].append({"kind": "reward", "reward": rid})


def _plain_reward(d: State, color: str, spec: dict[str, Any]) -> None:
    if "gain" in spec:
        g = spec["gain"]  # "gaining gold and/or Cargo at Harbor": to the chest and the Dock
        gain_gold(d, color, g.get("coins", 0))
        d["supply"]["cargo"] -= g.get("cargo", 0)
        d["p"][color]["dock"] += g.get("cargo", 0)
    elif "draw" in spec:
        queue_draw(d, color, spec["draw"])
    elif "repair" in spec:
        ship = d["p"][color]["ship"]
        ship["damage"] = max(0, ship["damage"] - spec["repair"])


def check_trade(d: State, player: str, a: dict[str, Any]) -> dict[str, Any]:
    p = require_active(d, player, "trade to an Empire")
    empire = a.get("empire")
    if not isinstance(empire, str) or empire not in lom_data().empires:
        raise Invalid(f"field 'empire' must be one of {', '.join(lom_data().empires)}.")
    token = token_field(a)
    find_on_ship(lom(d), player, token)
    if p["ship"]["at"] != HARBOR:
        raise Illegal("to trade to an Empire your Ship must be in Harbor.")
    wants = lom_data().empires[empire]["wants"]
    kind = lom_data().tokens[token]["type"]
    if kind not in wants:
        names = lom_data().names
        raise Illegal(
            f"{lom_data().empires[empire]['name']} wants {' or '.join(names[w] for w in wants)}, "
            f"not {names[kind]}."
        )
    return {"type": "trade_favour", "empire": empire, "token": token}


def do_trade(d: State, player: str, a: dict[str, Any], out: list[dict[str, Any]]) -> None:
    mark_acted(d, player)
    discard_token(d, player, a["token"])
    gain_favour(d, player, a["empire"], out)
    check_achievements(d, player, out)


def after_battle(d: State, player: str, a: dict[str, Any], out: list[dict[str, Any]]) -> None:
    """A Trade vessel won or lost: "Winning a battle against a Trade vessel generally grants Favor with an
    empire. Losing ... generally results in losing Favor" (the card's `favour` says which and how much)."""
    setup = a["setup"]  # the plain JSON, read as it is (parsing it again was a third of a battle's fold)
    if setup["kind"] != "nonplayer":
        return
    card = setup["defender"]["name"].split(":", 1)[1]
    fav = catalog(d).cards.get(card, {}).get("favour")
    if not fav:
        return
    me = active_player(d)
    won = a["outcome"]["winner"] == "attacker"
    for _ in range(fav["win"] if won else fav["lose"]):
        (gain_favour if won else lose_favour)(d, me, fav["empire"], out)


def check_claim(d: State, player: str, a: dict[str, Any]) -> dict[str, Any]:
    """Settle a claim: choose a Favor Reward's option, take a Letter of Marque, seed an island."""
    p = require_active(d, player, "settle a reward")
    x = lom(d)
    claims = x["claims"][player]
    i = int_field(a, "index", 0, 0, 99)
    if i >= len(claims):
        raise Illegal(f"you have {len(claims)} reward(s) to settle; 'index' {i} is not one of them.")
    c = claims[i]
    args = a.get("args", {})
    if not isinstance(args, dict):
        raise Invalid("'args' must be an object.")
    norm: dict[str, Any] = {"type": "claim", "index": i, "kind": c["kind"]}
    kind = c["kind"]
    if kind == "letter":
        free = x["letters_free"][c["empire"]]
        letter = args.get("letter")
        if letter is not None and not isinstance(letter, str):
            raise Invalid("'letter' names a Letter of Marque token (see the Empire board).")
        if letter is None and len(free) == 1:
            letter = free[0]
        if letter is None:
            raise Ambiguous("choose a Letter of Marque ('letter').", list(free))
        if letter not in free:
            raise Illegal(f"{letter!r} is not an available Letter of Marque of that empire.")
        norm["letter"] = letter
    elif kind == "overtake":
        if not letter_of(d, c["from"], c["empire"]):
            raise Illegal(f"{c['from']} no longer holds a Letter of Marque from that empire.")
        norm.update(empire=c["empire"], victim=c["from"])
    elif kind == "any_island":
        sq = args.get("square")
        if sq not in SQUARES or d["grid"][sq]["island"] is None:
            raise Invalid(
                "name the island to add an Undiscovered Prime Cargo to ('square': a face-up island)."
            )
        if not x["bag"] or (len(x["bag"]) <= x["hidden_out"] and not x["discard"]):
            raise Illegal("no Random Prime Cargo is left in the supply or the discard pile.")
        norm["square"] = sq
    else:
        spec = lom_data().rewards[c["reward"]]
        if "choice" in spec:
            ch = args.get("choice")
            if not isinstance(ch, int) or isinstance(ch, bool) or not 0 <= ch < len(spec["choice"]):
                raise Ambiguous(
                    f"choose one of the reward's options ('choice': 0 to {len(spec['choice']) - 1}).",
                    list(range(len(spec["choice"]))),
                )
            if "repair" in spec["choice"][ch] and p["ship"]["damage"] == 0:
                raise Illegal("your Ship has no Damage to repair: choose the other option.")
            norm["choice"] = ch
        elif "upgrade" in spec or "upgrade_tile" in spec:
            cat = catalog(d)
            if "upgrade_tile" in spec:
                tile = spec["upgrade_tile"]
                up = {"do": "upgrade", "category": cat.upgrades[tile]["category"]}
                args = {**args, "tile": tile}
            else:
                up = {"do": "upgrade", "category": spec["upgrade"]}
            norm["x"] = check_effect(d, player, up, args, {}, {}, {})
            if norm["x"]["tile"] == HALLOWED_GUN:
                # "To acquire it, you must pay 1 Moon Salt from your Ship in addition to any other costs."
                norm["moon_salt"] = token_of_type(d, player, "moon_salt", args)
        elif "level_up" in spec:
            card = args.get("card")
            if not isinstance(card, str) or card not in p["cards"]:
                raise Invalid("name the Sailor card to level up ('card').")
            if p["cards"][card]["level"] >= 4:
                raise Illegal(f"{card} is already at level 4.")
            norm["card"] = card
        elif "building" in spec:
            sq, b = args.get("square"), args.get("building")
            if sq not in SQUARES or b not in BUILDINGS:
                raise Invalid(
                    "name the island ('square') and the Building ('building': fort, garrison, outpost)."
                )
            isl = d["grid"][sq]["island"]
            if isl is None or isl["controller"] != player:
                raise Illegal(
                    f"you can add a Building only to an island you control, and you do not control {sq}."
                )
            if isl["buildings"][b]:
                raise Illegal(f"{sq} already has a {b}.")
            if d["supply"][b] <= 0:
                raise Illegal(f"there are no {b}s left in the supply.")
            norm.update(square=sq, building=b)
    return norm


def do_claim(d: State, player: str, a: dict[str, Any], out: list[dict[str, Any]]) -> None:
    mark_acted(d, player)
    x = lom(d)
    c = x["claims"][player].pop(a["index"])
    kind = c["kind"]
    if kind == "letter":
        take_letter(d, player, a["letter"], out)
    elif kind == "overtake":
        overtake(d, player, a["empire"], a["victim"], out)
    elif kind == "any_island":
        if place_hidden(d, a["square"], "island", out):
            notice(out, "prime_cargo_placed", square=a["square"], part="island")
    else:
        spec = lom_data().rewards[c["reward"]]
        p = d["p"][player]
        if "choice" in a:
            _plain_reward(d, player, spec["choice"][a["choice"]])
        elif "x" in a:
            if "moon_salt" in a:
                discard_token(d, player, a["moon_salt"])
            do_effect(d, player, {"do": "upgrade"}, a["x"], out)
        elif "card" in a:
            card = own_card(p, a["card"])
            card["level"] += 1
            if card["level"] == 4:
                earn_cube(d, player, "expert_sailors", 2, out)  # as a level-up at the end of a turn
        elif "building" in a:
            isl = d["grid"][a["square"]]["island"]
            assert isl is not None  # the check named a controlled island
            isl["buildings"][a["building"]] = True
            d["supply"][a["building"]] -= 1
    check_achievements(d, player, out)


def check_decline(d: State, player: str, a: dict[str, Any]) -> dict[str, Any]:
    require_active(d, player, "decline a reward")
    i = int_field(a, "index", 0, 0, 99)
    if i >= len(lom(d)["claims"][player]):
        raise Illegal(f"there is no reward {i} to decline.")
    return {"type": "decline", "index": i}


def do_decline(d: State, player: str, a: dict[str, Any], out: list[dict[str, Any]]) -> None:
    lom(d)["claims"][player].pop(a["index"])


ACTIONS: tuple[Action[State], ...] = (
    Action("trade_favour", check_trade, do_trade),
    Action("claim", check_claim, do_claim),
    Action("decline", check_decline, do_decline),
)
