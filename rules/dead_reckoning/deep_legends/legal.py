"""Deep Legends' legal actions (joined to the base game's by `rules.dead_reckoning.legal.legal_actions` when
the game has the option `deep_legends`): a saga card a draw may report, exploring a Non-Merchant Encounter,
encountering a Fortune Encounter, buying and selling saga items, taking one after a sinking.

Every action offered passes its check (`legal.offer`, kept in the state's offers for `apply`). Like the
base generator it offers concrete examples where a choice is open: a trade at one price (1 Cargo from the
buyer's Dock, else 1 Coin from a hold, else free), each different face of the Saga die (the table reports
what it shows), one action per
option of each choice on the card. A Fortune Encounter is offered wherever the Ship is at one: its printed
condition is the players' judgement (docs/deep-legends.md).
"""

from __future__ import annotations

from typing import Any, cast

from rules.core.errors import Ambiguous, RulesError
from rules.core.state import Offers
from rules.dead_reckoning.deep_legends import saga
from rules.dead_reckoning.deep_legends.ingame import book_of
from rules.dead_reckoning.legal import offer
from rules.dead_reckoning.model import State

ANSWERS = 12  # at most this many ways (rolls, choices) to answer one card's instructions are offered


def more_actions(d: State, player: str, acts: list[dict[str, Any]], offers: Offers) -> list[dict[str, Any]]:
    """`acts` (the base game's offer to `player`) with the saga's actions `player` may take now."""
    dl = cast(dict[str, Any], d).get("deep_legends")
    if dl is None or d["phase"] == "over":
        return acts
    out = list(acts)
    proposed = dl.get("offer")
    if proposed is not None and proposed["to"] == player and not d["pending"]:  # asked on their own tablet
        for yes in (True, False):
            _add(d, player, {"type": "answer_saga_trade", "accept": yes}, offers, out)
    if d["pending"]:
        req = d["pending"][0]
        if req["kind"] == "draw_advancement" and "saga" in dl:  # the saga's cards are in the box too
            for c in sorted(dl["rows"][str(req["row"])]):
                out.append({"type": "draw_advancement", "square": req["square"], "card": c})
        return out
    for chance in dl["may_take"]:  # any seat: a defender can sink the attacker
        if chance["winner"] == player:
            for item in sorted(i for i, o in dl["items"].items() if o == chance["loser"]):
                _add(d, player, {"type": "take_saga_item", "item": item}, offers, out)
    if player != d["active"] or d["phase"] != "main" or d["battle"]:
        return out
    _trades(d, player, dl, offers, out)
    if not dl.get("tile_influence"):
        _tile_influence(d, player, offers, out)
    if "saga" in dl:
        _encounters(d, player, dl, offers, out)
    return out


def _tile_influence(d: State, player: str, offers: Offers, out: list[dict[str, Any]]) -> None:
    """The Influence tile's cube, where the Ship is at an island: one action, or one per opponent whose
    cube it may replace when the island is full (its check decides the rest)."""
    at = d["p"][player]["ship"]["at"]
    isl = d["grid"][at]["island"] if at in d["grid"] else None
    if isl is None:
        return
    cands: list[dict[str, Any]] = [{"type": "tile_influence"}]
    if None not in isl["cubes"]:
        others = sorted({c for c in isl["cubes"] if c is not None and c != player})
        cands = [{"type": "tile_influence", "replace": [c]} for c in others]
    for a in cands:
        _add(d, player, a, offers, out)


def _add(d: State, player: str, a: dict[str, Any], offers: Offers, out: list[dict[str, Any]]) -> None:
    if offer(d, player, a, offers):
        out.append(a)


def _trades(d: State, player: str, dl: dict[str, Any], offers: Offers, out: list[dict[str, Any]]) -> None:
    """Each saga item bought from its owner or sold to each other player, at a few example prices; an item
    that changed hands this turn is not offered again (nothing forbids it, but random players would pass
    it to and fro for ever)."""
    traded = dl.get("traded", ())
    for item, owner in sorted(dl["items"].items()):
        if item in traded:
            continue
        pairs = [(owner, player)] if owner != player else [(player, o) for o in d["players"] if o != player]
        for _seller, buyer in pairs:
            other = _seller if buyer == player else buyer
            b = d["p"][buyer]
            price: dict[str, Any] = {}  # free, unless the buyer has a Cargo in the Dock or a Coin aboard
            if b["dock"]:
                price = {"dock": 1}
            elif b["ship"]["holds"][0][1] or b["ship"]["holds"][1][1]:
                price = {"coin_holds": [1, 0] if b["ship"]["holds"][0][1] else [0, 1]}
            _add(d, player, {"type": "trade_saga_item", "item": item, "other": other, **price}, offers, out)
            for ask in _prices(b):  # the same trade proposed to the other player, at a few prices
                ask = {"type": "offer_saga_trade", "item": item, "other": other, **ask}
                _add(d, player, ask, offers, out)


OFFER_CARGO = (1, 2, 3)  # the prices a tablet offers (any other is accepted when sent)
OFFER_COINS = (1, 3, 5)


def _prices(b: Any) -> list[dict[str, Any]]:
    """Prices the buyer `b` can pay: nothing, 1-3 Cargo from their Dock, 1, 3 or 5 Coins from their holds
    (hold 0 first)."""
    out: list[dict[str, Any]] = [{}]
    out += [{"dock": n} for n in OFFER_CARGO if n <= b["dock"]]
    h0, h1 = b["ship"]["holds"][0][1], b["ship"]["holds"][1][1]
    for n in OFFER_COINS:
        if n <= h0 + h1:
            out.append({"coin_holds": [min(n, h0), n - min(n, h0)]})
    return out


def _encounters(d: State, player: str, dl: dict[str, Any], offers: Offers, out: list[dict[str, Any]]) -> None:
    p = d["p"][player]
    cards = dl["board"].get(p["ship"]["at"], [])
    if not cards:
        return
    book = book_of(d)
    explored = False
    for card in cards:
        spec = book["by_id"][card]
        if spec["kind"] == "encounter" and not explored:
            explored = True  # the board's one Non-Merchant Encounter (`check_explore` explores the first)
            pay = _coin_plan(p, spec["explore_coins"])
            if pay is None or d["turn"]["bought"] >= 2:
                continue
            for rolls, choices in answers(book, dl["saga"], spec["back"], player, card):
                a = {"type": "explore_encounter", **pay, "rolls": rolls, "choices": choices}
                _add(d, player, a, offers, out)
        elif spec["kind"] == "fortune":
            for rolls, choices in answers(book, dl["saga"], spec["effects"], player, card):
                a = {"type": "encounter_fortune", "card": card, "rolls": rolls, "choices": choices}
                _add(d, player, a, offers, out)


def _coin_plan(p: Any, cost: int) -> dict[str, Any] | None:
    """The Coins paid to explore: from the chest first, then hold 0, then hold 1 (None: not enough)."""
    chest = min(cost, p["chest"])
    left = cost - chest
    holds = p["ship"]["holds"]
    h0 = min(left, holds[0][1])
    h1 = left - h0
    if h1 > holds[1][1]:
        return None
    return {"coin_holds": [h0, h1], "chest": chest}


def answers(
    book: dict[str, Any],
    st: saga.SagaState,
    effects: list[dict[str, Any]],
    player: str,
    card: str,
) -> list[tuple[list[int], list[int]]]:
    """Ways to answer the Saga die rolls and choices `effects` ask for: (rolls, choices), at most
    `ANSWERS`, each complete (the instructions then resolve). Each different face of the Saga die and
    every option of a choice is tried, so a tablet can report whatever the die shows at the table.
    Instructions that cannot be followed at all give none."""
    todo: list[tuple[list[int], list[int]]] = [([], [])]
    done: list[tuple[list[int], list[int]]] = []
    while todo and len(done) < ANSWERS:
        rolls, choices = todo.pop(0)
        try:
            saga.resolve(book, st, effects, player, this=card, rolls=rolls, choices=choices)
        except Ambiguous as asked:
            if asked.options and isinstance(asked.options[0], int):  # the Saga die's faces
                todo += [(rolls + [f], choices) for f in sorted(set(book["die"]))]
            else:  # the labels of a choice: each option
                todo += [(rolls, choices + [i]) for i in range(len(asked.options))]
            continue
        except RulesError:
            continue
        done.append((rolls, choices))
    return done
