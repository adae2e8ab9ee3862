"""Sailor cards and levelling (rulebook: "Sailor cards", "Level up"): drawing (`draw_sailors`, a chance
outcome; the discards reshuffled when the deck runs short), playing a card (`play_card`, also the
defender's Cannon cards in a battle), levelling one up after a turn (`level_up`), the hand limit.
"""

from __future__ import annotations

from typing import Any

from rules.core.actions import Action
from rules.core.errors import Illegal, Invalid
from rules.core.state import copy_data
from rules.dead_reckoning.achievements import affected, check_achievements, earn_cube
from rules.dead_reckoning.battles import refresh_battle
from rules.dead_reckoning.cards import Catalog, card_abilities, card_icons, catalog
from rules.dead_reckoning.model import PlayerBoard, SailorCard, State
from rules.dead_reckoning.phases import mark_acted, need_pending, require_active

HAND_LIMIT = 6


DRAW = 4


def hand_limit(cat: Catalog, d: State, color: str) -> int:
    n = HAND_LIMIT
    for g in d["grid"].values():  # every square (a count: the order does not matter)
        isl = g["island"]
        if isl and isl["controller"] == color:
            board = g["board"]
            if board and cat.boards[board]["hand_limit"]:
                n += 1
    return n


def check_draw_sailors(d: State, player: str, a: dict[str, Any]) -> dict[str, Any]:
    req = need_pending(d, "draw_sailors")
    who = a.get("player_drawing", req["player"])
    if who != req["player"]:
        raise Illegal(f"it is {req['player']} who draws now, not {who}.")
    cards = a.get("cards")
    if (
        not isinstance(cards, list)
        or len(cards) != req["count"]
        or not all(isinstance(c, str) for c in cards)
    ):
        raise Invalid(f"{req['player']} draws {req['count']} card(s); send exactly that many card ids.")
    pile = d["p"][who]["deck"]
    if len(set(cards)) != len(cards) or any(c not in pile for c in cards):
        bad = [c for c in cards if c not in pile]
        raise Illegal(
            f"{', '.join(map(str, bad)) or 'a repeated card'} is not in {who}'s Sailor deck; re-read the "
            "cards."
        )
    return {"type": "draw_sailors", "player_drawing": who, "cards": list(cards)}


def do_draw_sailors(d: State, player: str, a: dict[str, Any], out: list[dict[str, Any]]) -> None:
    d["pending"].pop(0)
    p = d["p"][a["player_drawing"]]
    for c in a["cards"]:
        p["deck"].remove(c)
        p["hand"].append(c)


def check_play_card(d: State, player: str, a: dict[str, Any]) -> dict[str, Any]:
    card = a.get("card")
    p = d["p"][player] if player in d["players"] else None
    if p is None or not isinstance(card, str) or card not in p["cards"]:
        raise Invalid(f"{card!r} is not one of {player}'s Sailor cards.")
    if card not in p["hand"]:
        raise Illegal(f"{card} is not in your hand.")
    b = d["battle"]
    if b and player == b["defender_player"] and b.get("locked"):
        raise Illegal(
            "the battle has begun (its cubes are being dropped): a defender's Cannon and Battle cards are "
            "played before the drop; wait until the battle is over."
        )
    if b and player == b["defender_player"]:
        icons = card_icons(catalog(d), p["cards"][card])
        abil = [x for _, x in card_abilities(catalog(d), card, p["cards"][card]) if "battle" in x]
        if not icons.get("cannon") and not abil:
            raise Illegal("while defending you may play only cards with Cannons or Battle abilities.")
        return {"type": "play_card", "card": card}
    require_active(d, player, "play a card")
    return {"type": "play_card", "card": card}


def do_play_card(d: State, player: str, a: dict[str, Any], out: list[dict[str, Any]]) -> None:
    p = d["p"][player]
    p["hand"].remove(a["card"])
    p["played"].append(a["card"])
    if d["battle"] and player == d["battle"]["defender_player"]:
        refresh_battle(d, out)
    else:
        mark_acted(d, player)


def check_level_up(d: State, player: str, a: dict[str, Any]) -> dict[str, Any]:
    if player not in d["players"]:
        raise Invalid("only a player can level up a card.")
    p = d["p"][player]
    card = a.get("card")
    if not isinstance(card, str) or card not in p["cards"]:
        raise Invalid(f"{card!r} is not one of {player}'s Sailor cards.")
    if not p["level_up"]:
        raise Illegal(
            "you may level up one card after your turn ends and before your next turn's first action."
        )
    if card not in p["hand"]:
        raise Illegal(f"{card} is not in your hand: only a card in hand can be levelled up.")
    if p["cards"][card]["level"] >= 4:
        raise Illegal(f"{card} is already level 4.")
    return {"type": "level_up", "card": card}


def own_card(p: PlayerBoard, cid: str) -> SailorCard:
    """Copy-on-write: states share Sailor cards (GameState.copy), so a card is edited only after the
    player's card mapping and that one card have been replaced by copies of their own."""
    cards = p["cards"] = dict(p["cards"])
    card: SailorCard = copy_data(cards[cid])
    cards[cid] = card
    return card


# what a level-up changes of the achievements' inputs (`achievements.ACHIEVEMENT_INPUTS`): a card's level, and
# at level 4 an Expert Sailors cube (from the supply, or owed to the player's choice)
LEVEL_UP_CHANGES = frozenset({"levels", "cubes"})
_AFTER_LEVEL_UP = affected(LEVEL_UP_CHANGES)


def do_level_up(d: State, player: str, a: dict[str, Any], out: list[dict[str, Any]]) -> None:
    p = d["p"][player]
    p["level_up"] = False
    c = own_card(p, a["card"])
    c["level"] += 1
    if c["level"] == 4:
        earn_cube(d, player, "expert_sailors", 2, out)  # "The first 2 times you get a card to level 4"
    if d["active"] == player:
        check_achievements(d, player, out, _AFTER_LEVEL_UP)


def queue_draw(d: State, player: str, n: int) -> None:
    p = d["p"][player]
    if n <= 0:
        return
    if len(p["deck"]) < n:
        # "if you ever run out of cards in your deck and need to draw more, shuffle": the whole pile is
        # drawn without chance and the discards become the new deck only when more cards are still owed
        # (a pile of exactly n is drawn by chance and the discards stay put).
        n -= len(p["deck"])
        p["hand"] += p["deck"]
        p["deck"] = sorted(p["discard"])
        p["discard"] = []
        n = min(n, len(p["deck"]))
    if n:
        d["pending"].append({"kind": "draw_sailors", "player": player, "count": n})


ACTIONS: tuple[Action[State], ...] = (
    Action("draw_sailors", check_draw_sailors, do_draw_sailors, chance=True),
    Action("play_card", check_play_card, do_play_card),
    Action("level_up", check_level_up, do_level_up),
)
