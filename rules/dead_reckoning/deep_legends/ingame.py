"""Deep Legends inside an engine game (option `deep_legends`): a campaign game's Tenacity Bonuses gained at
the start, saga items carried into the game, taken when sinking a Ship and bought and sold between players.

`extend(base)` is the base game with this module's setup step and actions (`rules/dead_reckoning/game.py`
`game_for` uses it only when the option is given, so the base game is untouched without it). The option:

    {"items": {colour: [saga item, ...]},
     "tenacity": {colour: {"bonus": "coins" | "cargo" | "level_up" | "ship_upgrade", "tile"?: id}}}

The state gains `deep_legends`: `{"items": {item: colour}, "may_take": [{"winner", "loser"}]}`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any, cast

from rules.core.actions import Action, Game, Notices
from rules.core.errors import Illegal, Invalid
from rules.core.events import notice
from rules.core.state import rng_below
from rules.dead_reckoning.achievements import check_achievements
from rules.dead_reckoning.cards import catalog
from rules.dead_reckoning.deep_legends import saga
from rules.dead_reckoning.deep_legends.cards import CATALOG_KINDS
from rules.dead_reckoning.deep_legends.saga import MAX_PRICE_COINS
from rules.dead_reckoning.islands import check_influence, place_influence
from rules.dead_reckoning.model import State
from rules.dead_reckoning.phases import mark_acted, need_pending, require_active
from rules.dead_reckoning.ship import BASE_HULL, ship_icon

Setup = Callable[[State, dict[str, Any], Notices], None]
Effect = Callable[[State, str, dict[str, Any], Notices], None]
After = Callable[[State, Notices], None]
BONUSES = ("coins", "cargo", "level_up", "ship_upgrade")
OPTION_KEYS = ("items", "tenacity", "saga", "accelerate", "golden_island", "influence_tiles")
TENACITY_COINS = 5  # "Gain 5 coin to your chest."
TENACITY_CARGO = 4  # "Gain 4 cargo to your Harbor."


def _dl(d: State) -> dict[str, Any]:
    return cast(dict[str, Any], cast(dict[str, Any], d)["deep_legends"])


def check_option(opt: Any, players: list[str]) -> dict[str, Any]:
    """The `deep_legends` option, checked: a mistake is one sentence naming the field."""
    if not isinstance(opt, dict) or set(opt) - set(OPTION_KEYS):
        raise Invalid(f"option 'deep_legends' must be an object with some of: {', '.join(OPTION_KEYS)}.")
    for flag in ("golden_island", "influence_tiles"):
        if not isinstance(opt.get(flag, False), bool):
            raise Invalid(f"deep_legends {flag!r} must be true or false.")
    acc = opt.get("accelerate", False)
    if not isinstance(acc, bool) and not (
        isinstance(acc, dict)
        and set(acc) <= {"1", "2", "3", "4"}
        and all(isinstance(v, list) and all(isinstance(c, str) for c in v) for v in acc.values())
    ):
        raise Invalid(
            "deep_legends 'accelerate' must be true (5 cards of each Row deck buried at random) or the cards "
            'the table buried per row, e.g. {"1": ["r1-01", ...]}.'
        )
    sg_state = opt.get("saga")
    if sg_state is not None and (
        not isinstance(sg_state, dict) or sg_state.get("format") != saga.STATE_FORMAT
    ):
        raise Invalid(
            f"deep_legends 'saga' must be a saga state ({saga.STATE_FORMAT}); see docs/deep-legends.md."
        )
    items = opt.get("items", {})
    if not isinstance(items, dict) or any(c not in players for c in items):
        raise Invalid(
            f"deep_legends 'items' must map colours of this game ({', '.join(players)}) to item lists."
        )
    seen: set[str] = set()
    for c, lst in items.items():
        if not isinstance(lst, list) or not all(isinstance(i, str) and i for i in lst):
            raise Invalid(f"deep_legends items of {c} must be a list of card numbers such as '1.07'.")
        if seen & set(lst):
            raise Invalid(f"saga item {sorted(seen & set(lst))[0]} is given to two players.")
        seen |= set(lst)
    ten = opt.get("tenacity", {})
    if not isinstance(ten, dict) or any(c not in players for c in ten):
        raise Invalid(
            f"deep_legends 'tenacity' must map colours of this game ({', '.join(players)}) to a bonus."
        )
    for c, b in ten.items():
        if not isinstance(b, dict) or b.get("bonus") not in BONUSES:
            raise Invalid(
                f"{c}'s Tenacity Bonus must be one of {', '.join(BONUSES)} (a Sea Dog is drawn at the table)."
            )
    return opt


def set_up(base: Setup) -> Setup:
    """The base setup, then the campaign's part: saga items to their owners, Tenacity Bonuses gained."""

    def run(d: State, action: dict[str, Any], out: Notices) -> None:
        base(d, action, out)
        opt = check_option(action["options"]["deep_legends"], list(action["players"]))
        items = {i: c for c, lst in opt.get("items", {}).items() for i in lst}
        dl: dict[str, Any] = {"items": items, "may_take": []}
        if opt.get("saga") is not None:
            # the saga cards in each Row deck, those on the boards, and the saga state the game changes
            dl["saga"] = opt["saga"]
            dl["rows"] = {r: list(c) for r, c in saga.deck_additions(opt["saga"]).items()}
            dl["board"] = {}
            dl["campaign_points"] = {}
        cast(dict[str, Any], d)["deep_legends"] = dl
        if opt.get("accelerate"):
            _accelerate(d, opt["accelerate"])
        cat = catalog(d)
        for color, b in sorted(opt.get("tenacity", {}).items()):
            p = d["p"][color]
            bonus = b["bonus"]
            if bonus == "coins":
                p["chest"] += TENACITY_COINS
                d["supply"]["coins"] -= TENACITY_COINS
            elif bonus == "cargo":
                p["dock"] += TENACITY_CARGO
                d["supply"]["cargo"] -= TENACITY_CARGO
            elif bonus == "level_up":
                p["level_up"] = True  # "a free level-up, any card", before their first action
            else:  # "a basic non-sail ship upgrade" on the first blank hull space
                tiles = sorted(
                    t
                    for t, s in cat.upgrades.items()
                    if s["category"] == "basic"
                    and not s.get("icons", {}).get("sail")
                    and d["upgrade_supply"][t] > 0
                )
                tile = b.get("tile", tiles[0] if tiles else None)
                if tile not in tiles:
                    raise Invalid(
                        f"{color}'s Tenacity upgrade must be a basic non-sail tile: {', '.join(tiles)}."
                    )
                space = next(i for i in range(4) if not p["ship"]["hull"][i] and not BASE_HULL[i])
                p["ship"]["hull"][space].append(tile)
                d["upgrade_supply"][tile] -= 1

    return run


ACCELERATE_BURY = 5  # "remove 5 randomly selected non-Saga cards from each Row deck and bury them"


def _accelerate(d: State, how: bool | dict[str, list[str]]) -> None:
    """Accelerated discovery: "Before your game, remove 5 randomly selected non-Saga cards from each Row deck
    and bury them (i.e. place them out of the game beneath the Row deck). These cards should NOT include
    Saga Encounters." `True`: drawn with the game's seeded RNG (a simulated table); a mapping: the cards
    the table buried, per row (fewer only when the deck holds fewer)."""
    for row, deck in sorted(d["decks"].items()):
        want = min(ACCELERATE_BURY, len(deck))
        if isinstance(how, dict):
            chosen = list(how.get(row, []))
            if len(chosen) != want or len(set(chosen)) != want or not set(chosen) <= set(deck):
                raise Invalid(
                    f"accelerated discovery buries {want} different non-saga cards of the Row {row} deck; "
                    f"give {want} of: {', '.join(deck)}."
                )
        else:
            chosen = []
            for _ in range(want):
                left = [c for c in deck if c not in chosen]
                chosen.append(left[rng_below(d, len(left))])
        for c in chosen:
            deck.remove(c)
            d["buried"][row].append(c)


def _watch(effect: Effect) -> Effect:
    """An action's effect, then: a Ship sunk by a player lets them take one of its owner's saga items this
    turn; a new turn ends that chance."""

    def run(d: State, player: str, a: dict[str, Any], out: Notices) -> None:
        n = len(out)
        effect(d, player, a, out)
        _note(d, out, n)

    return run


def _watch_after(after: After) -> After:
    def run(d: State, out: Notices) -> None:
        n = len(out)
        after(d, out)
        _note(d, out, n)

    return run


def _note(d: State, out: Notices, n: int) -> None:
    dl = cast(dict[str, Any], d).get("deep_legends")
    if dl is None:
        return
    _drop_refills(d)
    for ev in out[n:]:
        if ev["type"] == "turn_started":
            dl["may_take"] = []
            dl.pop("traded", None)
            dl.pop("tile_influence", None)
            dl.pop("offer", None)  # an offer not answered in its turn lapses
        elif ev["type"] == "ship_sunk" and ev.get("by") in d["players"]:
            loser = ev["player"]
            if any(owner == loser for owner in dl["items"].values()):
                dl["may_take"].append({"winner": ev["by"], "loser": loser})


def check_take(d: State, player: str, a: dict[str, Any]) -> dict[str, Any]:
    """ "If you ever sink an opposing Ship, you may choose any 1 Saga item the other player has and take
    it." Once per Ship sunk, during the turn it sank."""
    dl = _dl(d)
    item = a.get("item")
    owner = dl["items"].get(item) if isinstance(item, str) else None
    if owner is None:
        raise Invalid(f"{item!r} is not a saga item in this game.")
    if {"winner": player, "loser": owner} not in dl["may_take"]:
        raise Illegal(f"{player} may take a saga item of {owner} only in the turn they sank {owner}'s Ship.")
    return {"type": "take_saga_item", "item": item, "from": owner}


def do_take(d: State, player: str, a: dict[str, Any], out: Notices) -> None:
    dl = _dl(d)
    dl["items"][a["item"]] = player
    dl["may_take"].remove({"winner": player, "loser": a["from"]})
    notice(out, "saga_item_taken", player=player, item=a["item"], owner=a["from"])


def _amount(a: dict[str, Any], key: str, hi: int) -> int:
    v = a.get(key, 0)
    if not isinstance(v, int) or isinstance(v, bool) or not 0 <= v <= hi:
        raise Invalid(f"field {key!r} must be a whole number from 0 to {hi}.")
    return v


def check_trade(d: State, player: str, a: dict[str, Any]) -> dict[str, Any]:
    """ "The active player may buy or sell Saga items to/from any other player as long as neither player is
    in the middle of a battle or Encounter. The price paid will be any amount of Cargo and/or up to 5
    Coins ... The buyer may use Cargo/Coins from their own Dock tile and/or their Ship. The selling
    player puts the paid Cargo/Coins directly onto their Dock tile or Treasure chest." Fields: `item`,
    `other` (the other player), `cargo` from the buyer's Dock (`dock`) and holds (`holds`: [hold 0, hold
    1]), `coins` from the buyer's holds (`coin_holds`); the seller's Cargo goes to their Dock, Coins to
    their chest."""
    require_active(d, player, "buy or sell a saga item")
    dl = _dl(d)
    item, other = a.get("item"), a.get("other")
    if other not in d["players"] or other == player:
        raise Invalid("name the other player of the trade ('other').")
    owner = dl["items"].get(item) if isinstance(item, str) else None
    if owner not in (player, other):
        raise Illegal(f"{item!r} is not a saga item of {player} or {other}.")
    buyer = other if owner == player else player
    b = d["p"][buyer]
    dock = _amount(a, "dock", b["dock"])
    holds = a.get("holds", [0, 0])
    coin_holds = a.get("coin_holds", [0, 0])
    for key, lst, i in (("holds", holds, 0), ("coin_holds", coin_holds, 1)):
        if not isinstance(lst, list) or len(lst) != 2:
            raise Invalid(f"field {key!r} must be [hold 0, hold 1].")
        for h in (0, 1):
            if not isinstance(lst[h], int) or not 0 <= lst[h] <= b["ship"]["holds"][h][i]:
                raise Illegal(f"{buyer}'s hold {h} does not carry {lst[h]} {'Cargo' if i == 0 else 'Coins'}.")
    coins = coin_holds[0] + coin_holds[1]
    if coins > MAX_PRICE_COINS:
        raise Illegal(f"the price may include at most {MAX_PRICE_COINS} Coins (and any Cargo).")
    return {
        "type": "trade_saga_item",
        "item": item,
        "seller": owner,
        "buyer": buyer,
        "dock": dock,
        "holds": list(holds),
        "coin_holds": list(coin_holds),
    }


def do_trade(d: State, player: str, a: dict[str, Any], out: Notices) -> None:
    b, s = d["p"][a["buyer"]], d["p"][a["seller"]]
    cargo = a["dock"] + a["holds"][0] + a["holds"][1]
    b["dock"] -= a["dock"]
    for h in (0, 1):
        b["ship"]["holds"][h][0] -= a["holds"][h]
        b["ship"]["holds"][h][1] -= a["coin_holds"][h]
    s["dock"] += cargo
    s["chest"] += a["coin_holds"][0] + a["coin_holds"][1]
    _dl(d)["items"][a["item"]] = a["buyer"]
    _dl(d).setdefault("traded", []).append(a["item"])  # this turn's trades (`deep_legends.legal`)
    notice(out, "saga_item_sold", player=a["seller"], item=a["item"], buyer=a["buyer"], cargo=cargo)


def check_offer(d: State, player: str, a: dict[str, Any]) -> dict[str, Any]:
    """A trade the active player proposes at the table (the price "freely negotiated"): the same fields and
    checks as `trade_saga_item`; nothing changes hands until the other player accepts it on their own
    tablet (`answer_saga_trade`). A new offer replaces an unanswered one; an offer lapses when the turn
    ends."""
    trade = check_trade(d, player, a)
    other = trade["buyer"] if trade["seller"] == player else trade["seller"]
    return {**trade, "type": "offer_saga_trade", "by": player, "to": other}


def do_offer(d: State, player: str, a: dict[str, Any], out: Notices) -> None:
    offer = {k: v for k, v in a.items() if k != "type"}
    _dl(d)["offer"] = offer
    notice(out, "saga_trade_offered", player=player, **{k: v for k, v in offer.items() if k != "by"})


def check_answer(d: State, player: str, a: dict[str, Any]) -> dict[str, Any]:
    """The other player's answer to the trade offered to them: `accept` true (the trade is made as offered,
    checked again now) or false (nothing changes hands)."""
    offer = _dl(d).get("offer")
    if offer is None or offer["to"] != player:
        raise Illegal(f"no saga item trade is offered to {player} now.")
    accept = a.get("accept")
    if not isinstance(accept, bool):
        raise Invalid("field 'accept' must be true or false.")
    if accept:
        fields = {k: offer[k] for k in ("item", "dock", "holds", "coin_holds")}
        check_trade(d, offer["by"], {**fields, "other": player})
    return {"type": "answer_saga_trade", "accept": accept}


def do_answer(d: State, player: str, a: dict[str, Any], out: Notices) -> None:
    offer = _dl(d).pop("offer")
    if a["accept"]:
        do_trade(d, offer["by"], {**offer, "type": "trade_saga_item"}, out)
    else:
        notice(out, "saga_trade_declined", player=player, item=offer["item"], by=offer["by"])


_BOOKS: dict[str, dict[str, Any]] = {}


def book_of(d: State) -> dict[str, Any]:
    """The saga content this game plays with (read once per file, like the card catalogue)."""
    path = _dl(d)["saga"].get("file")
    key = str(path)
    if key not in _BOOKS:
        _BOOKS[key] = saga.load_saga(path)
    return _BOOKS[key]


def _saga_on(d: State) -> bool:
    dl = cast(dict[str, Any], d).get("deep_legends")
    return dl is not None and "saga" in dl


def draw_chance(
    base: Callable[[State, dict[str, Any]], dict[str, Any]],
) -> Callable[[State, dict[str, Any]], dict[str, Any]]:
    """A card drawn from a Row deck may be one of the saga's cards shuffled into it (Saga Setup)."""

    def run(d: State, req: dict[str, Any]) -> dict[str, Any]:
        if req["kind"] != "draw_advancement" or not _saga_on(d):
            return base(d, req)
        pool = sorted(d["decks"][str(req["row"])]) + sorted(_dl(d)["rows"][str(req["row"])])
        return {"type": "draw_advancement", "square": req["square"], "card": pool[rng_below(d, len(pool))]}

    return run


def check_draw(base: Any) -> Any:
    def run(d: State, player: str, a: dict[str, Any]) -> dict[str, Any]:
        if _saga_on(d):
            req = need_pending(d, "draw_advancement")
            if a.get("card") in _dl(d)["rows"][str(req["row"])] and a.get("square") == req["square"]:
                return {"type": "draw_advancement", "square": req["square"], "card": a["card"]}
        result: dict[str, Any] = base(d, player, a)
        return result

    return run


def do_draw(base: Effect) -> Effect:
    """A saga card drawn goes onto the board beside the grid's card: "When a Fortune Encounter is drawn from
    a box, place it on the Ocean board and then draw another card from the row deck"; a Non-Merchant
    Encounter is the board's card (explored, not bought); a saga Advancement or Merchant ship is the grid's
    card like a base one (`deep_legends.cards`: they are in this game's catalogue)."""

    def run(d: State, player: str, a: dict[str, Any], out: Notices) -> None:
        if not _saga_on(d) or a["card"] not in _dl(d)["rows"][a["square"][1]]:
            base(d, player, a, out)
            return
        dl = _dl(d)
        req = d["pending"].pop(0)
        row = str(req["row"])
        dl["rows"][row].remove(a["card"])
        if book_of(d)["by_id"][a["card"]]["kind"] in CATALOG_KINDS:
            # a saga Advancement or Merchant ship is the board's card, bought or attacked as a printed one
            d["grid"][a["square"]]["card"] = a["card"]
            return
        dl["board"].setdefault(a["square"], []).append(a["card"])
        if saga.is_fortune(book_of(d), a["card"]) and (d["decks"][row] or dl["rows"][row]):
            d["pending"].insert(0, {"kind": "draw_advancement", "square": a["square"], "row": req["row"]})

    return run


def merchant_back(effect: Effect) -> Effect:
    """`resolve_battle`, then a saga Merchant ship's saga instructions: `saga_win` when the attacker won,
    `saga_lose` when they lost (e.g. "read Book 1.XX"; never a roll or a choice, checked when the file is
    loaded), followed for the attacker after the base game applied the card's Win/Lose back."""

    def run(d: State, player: str, a: dict[str, Any], out: Notices) -> None:
        n = len(out)
        effect(d, player, a, out)
        if not _saga_on(d):
            return
        for ev in out[n:]:
            if ev["type"] != "battle_resolved":
                continue
            name = ev["setup"]["defender"]["name"]
            spec = book_of(d)["by_id"].get(name.split(":", 1)[1]) if name.startswith("merchant:") else None
            if spec is None or spec["kind"] != "merchant":
                continue
            won = ev["outcome"]["winner"] == "attacker"
            effects = spec.get("saga_win" if won else "saga_lose", [])
            if effects:
                me = ev["setup"]["attacker"]["name"]
                _apply_saga(
                    d, me, saga.resolve(book_of(d), _dl(d)["saga"], effects, me, this=spec["id"]), out
                )

    return run


def _occupied(d: State, square: str) -> bool:
    """A board whose non-Fortune card is a saga Encounter needs no card from the Row deck."""
    return any(not saga.is_fortune(book_of(d), c) for c in _dl(d)["board"].get(square, []))


def _drop_refills(d: State) -> None:
    if _saga_on(d):
        d["pending"] = [
            r for r in d["pending"] if r["kind"] != "draw_advancement" or not _occupied(d, r["square"])
        ]


def _apply_saga(d: State, player: str, outcome: saga.Outcome, out: Notices) -> None:
    """What a saga instruction does to this game: Coins/Cargo gained, Campaign points noted, the saga
    state kept; the notices say what the table reads and does."""
    dl = _dl(d)
    dl["saga"] = outcome["state"]
    p = d["p"][player]
    for n in outcome["notices"]:
        if n["type"] == "gain":
            amount = n["amount"]
            if n["what"] == "coins":
                p["chest"] += amount
                d["supply"]["coins"] -= amount
            else:
                p["dock"] += amount
                d["supply"]["cargo"] -= amount
        elif n["type"] == "campaign_points":
            dl["campaign_points"][player] = dl["campaign_points"].get(player, 0) + n["points"]
        elif n["type"] == "gain_card" and n["kind"] == "saga_item":
            dl["items"][n["card"]] = player
        elif n["type"] == "gain_card" and n["kind"] in CATALOG_KINDS:
            p["set_aside"].append(n["card"])  # gained like a bought Advancement: sleeved at the end of turn
        elif n["type"] in ("bury", "eliminate"):
            for cards in dl["board"].values():
                if n["card"] in cards:
                    cards.remove(n["card"])
        elif n["type"] == "add_to_row":
            dl["rows"][str(n["row"])].append(n["card"])
        fields = {k: v for k, v in n.items() if k != "type"}
        if "what" in fields:  # a gain's Coins or Cargo: `what` names the instruction
            fields["goods"] = fields.pop("what")
        notice(out, "saga", **fields, what=n["type"])


def _rolls(a: dict[str, Any], key: str) -> list[int]:
    v = a.get(key, [])
    if not isinstance(v, list) or not all(isinstance(x, int) and not isinstance(x, bool) for x in v):
        raise Invalid(f"field {key!r} must be a list of whole numbers.")
    return list(v)


def check_explore(d: State, player: str, a: dict[str, Any]) -> dict[str, Any]:
    """Non-Merchant Encounters: "instead of attacking them, you may pay the indicated Coins cost to explore
    them. After you pay the cost (and NOT BEFORE), you turn the Encounter over ... These count as 1 of the
    2 Advancements and/or Encounters you may interact with each turn." Coins come from the Ship's holds
    (`coin_holds`) and/or the chest (`chest`); `rolls` and `choices` answer the back's Saga die and
    options."""
    p = require_active(d, player, "explore an Encounter")
    if not _saga_on(d):
        raise Illegal("this game has no saga content.")
    at = p["ship"]["at"]
    book = book_of(d)
    cards = [c for c in _dl(d)["board"].get(at, []) if book["by_id"][c]["kind"] == "encounter"]
    if not cards:
        raise Illegal("there is no Non-Merchant Encounter where your Ship is.")
    if d["turn"]["bought"] >= 2:
        raise Illegal("you may buy or resolve at most 2 Advancements/Encounters each turn.")
    card = cards[0]
    cost = book["by_id"][card]["explore_coins"]
    coin_holds = a.get("coin_holds", [0, 0])
    if not isinstance(coin_holds, list) or len(coin_holds) != 2:
        raise Invalid("field 'coin_holds' must be [hold 0, hold 1].")
    for h in (0, 1):
        if not isinstance(coin_holds[h], int) or not 0 <= coin_holds[h] <= p["ship"]["holds"][h][1]:
            raise Illegal(f"hold {h} does not carry {coin_holds[h]} Coins.")
    chest = _amount(a, "chest", p["chest"])
    if chest + coin_holds[0] + coin_holds[1] != cost:
        raise Illegal(f"exploring {card} costs {cost} Coins, paid before it is turned over.")
    rolls, choices = _rolls(a, "rolls"), _rolls(a, "choices")
    saga.explore(book, _dl(d)["saga"], card, player, cost, rolls, choices)  # refuses a missing roll or choice
    return {
        "type": "explore_encounter",
        "card": card,
        "coin_holds": list(coin_holds),
        "chest": chest,
        "rolls": rolls,
        "choices": choices,
    }


def do_explore(d: State, player: str, a: dict[str, Any], out: Notices) -> None:
    p = d["p"][player]
    for h in (0, 1):
        p["ship"]["holds"][h][1] -= a["coin_holds"][h]
    p["chest"] -= a["chest"]
    d["supply"]["coins"] += a["chest"] + a["coin_holds"][0] + a["coin_holds"][1]
    d["turn"]["bought"] += 1
    dl = _dl(d)
    book = book_of(d)
    cost = book["by_id"][a["card"]]["explore_coins"]
    outcome = saga.explore(book, dl["saga"], a["card"], player, cost, a["rolls"], a["choices"])
    at = p["ship"]["at"]
    if a["card"] in dl["board"].get(at, []):
        dl["board"][at].remove(a["card"])
    _apply_saga(d, player, outcome, out)


def check_fortune(d: State, player: str, a: dict[str, Any]) -> dict[str, Any]:
    """Fortune Encounters: "The specific condition to encounter a Fortune Encounter will be spelled out on
    it" (the players judge it; `card` names it); they "don't count as 1 of your maximum 2
    Advancements/Encounters for the turn"."""
    p = require_active(d, player, "encounter a Fortune Encounter")
    if not _saga_on(d):
        raise Illegal("this game has no saga content.")
    card = a.get("card")
    if (
        not isinstance(card, str)
        or card not in _dl(d)["board"].get(p["ship"]["at"], [])
        or not saga.is_fortune(book_of(d), card)
    ):
        raise Illegal(f"{card!r} is not a Fortune Encounter where your Ship is.")
    rolls, choices = _rolls(a, "rolls"), _rolls(a, "choices")
    spec = book_of(d)["by_id"][card]
    saga.resolve(book_of(d), _dl(d)["saga"], spec["effects"], player, this=card, rolls=rolls, choices=choices)
    return {"type": "encounter_fortune", "card": card, "rolls": rolls, "choices": choices}


def do_fortune(d: State, player: str, a: dict[str, Any], out: Notices) -> None:
    dl = _dl(d)
    book = book_of(d)
    spec = book["by_id"][a["card"]]
    outcome = saga.resolve(
        book, dl["saga"], spec["effects"], player, this=a["card"], rolls=a["rolls"], choices=a["choices"]
    )
    _apply_saga(d, player, outcome, out)


def check_tile_influence(d: State, player: str, a: dict[str, Any]) -> dict[str, Any]:
    """ "If you have a Ship Upgrade tile with an Influence icon, so long as you have no Cargo or Coins in that
    hold, then you may place one Influence cube on an island once per turn." Fields as an Influence
    effect's: `replace` (whose cube, when the island is full), `take_from`."""
    require_active(d, player, "place Influence from a Ship Upgrade tile")
    if ship_icon(catalog(d), d, player, "influence") < 1:
        raise Illegal(
            "you need a Ship Upgrade tile with an Influence icon, with no Cargo or Coins in its hold."
        )
    if _dl(d).get("tile_influence"):
        raise Illegal("the Influence tile places one cube once per turn, and you placed it this turn.")
    norm = check_influence(d, player, 1, a)
    if not norm["replace"]:
        raise Illegal("every slot of this island holds your cubes already: there is nowhere to place one.")
    return {"type": "tile_influence", **norm}


def do_tile_influence(d: State, player: str, a: dict[str, Any], out: Notices) -> None:
    mark_acted(d, player)
    place_influence(d, player, a["replace"], out, a.get("take_from"))
    _dl(d)["tile_influence"] = True
    check_achievements(d, player, out)


ACTIONS: tuple[Action[State], ...] = (
    Action("take_saga_item", check_take, do_take),
    Action("trade_saga_item", check_trade, do_trade),
    Action("offer_saga_trade", check_offer, do_offer),
    # the other player's answer: never taken back by the active player's undo (it is not theirs)
    Action("answer_saga_trade", check_answer, do_answer, undoable=False),
    Action("explore_encounter", check_explore, do_explore, undoable=False),  # it turns a card over
    Action("encounter_fortune", check_fortune, do_fortune, undoable=False),
    Action("tile_influence", check_tile_influence, do_tile_influence),
)


def extend(base: Game[State]) -> Game[State]:
    """The base game with Deep Legends: the same actions (their effects watched for sinkings), this
    module's actions, the setup step."""
    actions = {
        t: Action(a.type, a.check, _watch(a.effect), a.chance, a.undoable) for t, a in base.actions.items()
    }
    draw = base.actions["draw_advancement"]
    actions["draw_advancement"] = Action(
        draw.type, check_draw(draw.check), _watch(do_draw(draw.effect)), draw.chance, draw.undoable
    )
    fight = base.actions["resolve_battle"]
    actions["resolve_battle"] = replace(fight, effect=_watch(merchant_back(fight.effect)))
    for a in ACTIONS:
        if a.type in actions:
            raise ValueError(f"action {a.type!r} is defined twice")
        actions[a.type] = a
    return Game(
        name=f"{base.name}+deep_legends",
        actions=actions,
        setup=set_up(base.setup),
        draw_chance=draw_chance(base.draw_chance),
        after_chance=_watch_after(base.after_chance),
        next_chance=base.next_chance,
        undo_blocked=base.undo_blocked,
        turn_notice=base.turn_notice,
        options=base.options,
    )


def items_of(d: State) -> dict[str, list[str]]:
    """Each colour's saga items now (for the campaign's record of the game)."""
    out: dict[str, list[str]] = {c: [] for c in d["players"]}
    dl = cast(dict[str, Any], d).get("deep_legends")
    for item, owner in sorted((dl or {}).get("items", {}).items()):
        out[owner].append(item)
    return out
