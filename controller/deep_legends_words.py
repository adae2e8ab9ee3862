"""Deep Legends' words for the tablets: a label (and where it cannot be undone, a confirmation) for each saga
action the engine offers, a line of the game's log for each saga event, and the saga's part of the public
words (saga items with their owners, saga cards on the boards, the Book entries read this game).

Joined by `controller.words` (`action_words`, `event_text`, `public_words`) for games with the option
`deep_legends`. Names come from the public view's `deep_legends` part (`rules.dead_reckoning.deep_legends.
views`): a card's printed front, never its back; a Book entry's story only once it was read.
"""

from __future__ import annotations

from typing import Any

from rules.dead_reckoning.deep_legends.ingame import ACTIONS
from rules.dead_reckoning.deep_legends.views import KIND_NAMES

# Every Deep Legends action the engine knows (a test holds this module to them: each has words).
DL_ACTIONS = frozenset(a.type for a in ACTIONS)
# The events the saga adds to a game's log (`saga` notices are told apart by their `what`).
DL_EVENTS = ("saga_item_taken", "saga_item_sold", "saga_trade_offered", "saga_trade_declined", "saga")
SAGA_WHATS = (
    "explored",
    "read_entry",
    "gain_card",
    "add_to_row",
    "bury",
    "eliminate",
    "campaign_points",
    "gain",
    "saga_die",
    "chose",
)


def _name(c: Any) -> str:
    return "".join(w.capitalize() for w in str(c or "?").split("_")) or "?"


def _dl(view: dict[str, Any]) -> dict[str, Any]:
    got = view.get("deep_legends")
    return got if isinstance(got, dict) else {}


def item_name(view: dict[str, Any], item: Any) -> str:
    """A saga item as printed: 'Barnacled Compass (1.04)'."""
    spec = (_dl(view).get("items") or {}).get(item) or {}
    name = spec.get("name")
    return f"{name} ({item})" if name and name != item else f"saga item {item}"


def card_front(view: dict[str, Any], card: Any) -> dict[str, Any]:
    """A saga card's printed front, from the saga cards on the boards (or the items)."""
    for cards in (_dl(view).get("board") or {}).values():
        for c in cards:
            if c.get("id") == card:
                return dict(c)
    return dict((_dl(view).get("items") or {}).get(card) or {"id": card, "name": str(card)})


def price_text(a: dict[str, Any], buyer: str) -> str:
    """What the buyer pays: 'for 2 Cargo from Blue's Dock and 3 Coins', or 'for nothing'."""
    dock = int(a.get("dock") or 0)
    holds = a.get("holds") or [0, 0]
    coins = sum(int(x or 0) for x in (a.get("coin_holds") or [0, 0]))
    cargo_aboard = sum(int(x or 0) for x in holds)
    bits = []
    if dock:
        bits.append(f"{dock} Cargo from {_name(buyer)}'s Dock")
    if cargo_aboard:
        bits.append(f"{cargo_aboard} Cargo from {_name(buyer)}'s Ship")
    if coins:
        bits.append(f"{coins} Coin{'s' if coins != 1 else ''}")
    return "for " + " and ".join(bits) if bits else "for nothing"


def _trade_parts(view: dict[str, Any], player: str, a: dict[str, Any]) -> tuple[str, str, str]:
    """(seller, buyer, item) of a trade proposed or made by `player` with `a["other"]`."""
    item = a.get("item")
    other = str(a.get("other") or a.get("to") or "")
    owner = ((_dl(view).get("items") or {}).get(item) or {}).get("owner")
    seller = str(a.get("seller") or (player if owner == player else other))
    buyer = str(a.get("buyer") or (other if seller == player else player))
    return seller, buyer, str(item)


def _answers(view: dict[str, Any], a: dict[str, Any]) -> str:
    """How the card's Saga die rolls and choices are answered, as the table reports them."""
    bits = [f"the Saga die shows {r}" for r in a.get("rolls") or []]
    bits += [f"option {int(c) + 1}" for c in a.get("choices") or []]
    return ", ".join(bits)


def _answered(
    view: dict[str, Any], a: dict[str, Any], label: str, group: str, unanswered: str
) -> dict[str, Any]:
    """A card's action in the group of that card's actions, told apart by how its back is answered."""
    ans = _answers(view, a)
    return {
        "label": label + (f"; then {ans}" if ans else ""),
        "group": group,
        "title": label,
        "answer": ans or unanswered,
    }


def action_words(view: dict[str, Any], player: str, a: dict[str, Any]) -> dict[str, Any]:
    """{label, confirm?, group?, title?, answer?, text?} for one Deep Legends action of `player` (view: their
    view). `group` gathers the actions of one card (an Encounter explored with each way to answer its back)
    or of one trade (each price), `title` names the group, `answer` tells its actions apart, `text` is a
    sentence to show with them."""
    t = a.get("type")
    if t == "take_saga_item":
        owner = ((_dl(view).get("items") or {}).get(a.get("item")) or {}).get("owner") or a.get("from")
        return {"label": f"Take {item_name(view, a.get('item'))} from {_name(owner)} (you sank their Ship)"}
    if t in ("trade_saga_item", "offer_saga_trade"):
        seller, buyer, item = _trade_parts(view, player, a)
        price = price_text(a, buyer)
        if seller == player:
            deal = f"Sell {item_name(view, item)} to {_name(buyer)} {price}"
        else:
            deal = f"Buy {item_name(view, item)} from {_name(seller)} {price}"
        other = buyer if seller == player else seller
        if t == "offer_saga_trade":
            return {
                "label": f"Offer: {deal[0].lower()}{deal[1:]}",
                "group": f"trade:{item}:{other}",
                "title": deal.split(" for ")[0] + "…",
                "answer": price,
                "text": f"{_name(other)} accepts or declines on their own tablet.",
            }
        return {"label": deal, "confirm": f"{deal}? {_name(other)} agreed at the table."}
    if t == "answer_saga_trade":
        offer = _dl(view).get("offer") or {}
        seller, buyer = str(offer.get("seller") or ""), str(offer.get("buyer") or "")
        item = item_name(view, offer.get("item"))
        price = price_text(offer, buyer)
        deal = (
            f"sell {item} to {_name(buyer)} {price}"
            if seller == player
            else f"buy {item} from {_name(seller)} {price}"
        )
        if a.get("accept"):
            return {
                "label": f"Accept: {deal}",
                "confirm": f"{deal[0].upper()}{deal[1:]}? It cannot be undone.",
            }
        return {"label": f"Decline {_name(offer.get('by'))}'s offer"}
    if t == "explore_encounter":
        at = ((view.get("p") or {}).get(player) or {}).get("ship", {}).get("at")
        cards = [c for c in (_dl(view).get("board") or {}).get(at, []) if c.get("kind") == "encounter"]
        c = cards[0] if cards else {}
        coins = int(a.get("chest") or 0) + sum(int(x or 0) for x in a.get("coin_holds") or [0, 0])
        label = f"Explore {c.get('name', 'the Encounter')} (Non-Merchant Encounter): pay {coins} Coins"
        return {
            **_answered(view, a, label, f"explore:{c.get('id', '')}", "turn it over and read its back"),
            "confirm": f"Pay {coins} Coins and turn {c.get('name', 'the Encounter')} over? "
            "It cannot be undone.",
        }
    if t == "encounter_fortune":
        c = card_front(view, a.get("card"))
        label = f"Encounter {c.get('name', 'the Fortune Encounter')} (Fortune Encounter)"
        return {
            **_answered(view, a, label, f"fortune:{a.get('card')}", "follow it"),
            "text": str(c.get("condition") or ""),
            "confirm": f"Encounter {c.get('name', 'it')}? "
            f"{c.get('condition') or 'Its condition is met.'} It cannot be undone.",
        }
    if t == "tile_influence":
        rep = a.get("replace") or []
        whose = f", replacing {_name(rep[0])}'s cube" if rep and rep[0] != player else ""
        return {"label": f"Place an Influence cube here with your Influence tile{whose}"}
    return {"label": _name(t)}


def saga_card_turned_up(view: dict[str, Any], a: dict[str, Any]) -> str | None:
    """A saga card reported as drawn onto a board (None: not a saga card of this game)."""
    card = a.get("card")
    for cards in (_dl(view).get("board") or {}).values():
        for c in cards:
            if c.get("id") == card:
                return f"{c['name']} ({KIND_NAMES.get(c['kind'], 'saga card')}) was turned up"
    return None


def _saga_notice(view: dict[str, Any], who: str, e: dict[str, Any]) -> str:
    what = e.get("what")
    card = e.get("card")
    if what == "explored":
        return f"{who} explores {e.get('name') or card}, paying {e.get('coins', 0)} Coins"
    if what == "read_entry":
        story = e.get("story")
        return f"Read Book {e.get('entry')}" + (f": “{story}”" if story else "")
    if what == "gain_card":
        kind = KIND_NAMES.get(str(e.get("kind")), "saga card")
        return f"{who} gains {e.get('name') or card} ({kind} {card})"
    if what == "add_to_row":
        return f"Card {card} goes into the Row {e.get('row')} deck"
    if what == "bury":
        return f"{e.get('name') or 'Card'} ({card}) is buried: out of this game"
    if what == "eliminate":
        return f"{e.get('name') or 'Card'} ({card}) is eliminated: behind the divider for good"
    if what == "campaign_points":
        n = int(e.get("points") or 0)
        return f"{who} gains {n} Campaign point{'s' if n != 1 else ''} from the saga"
    if what == "gain":
        n = int(e.get("amount") or 0)
        goods = "Coins" if e.get("goods") == "coins" else "Cargo"
        return f"{who} gains {n} {goods}" + (" to their chest" if goods == "Coins" else " to their Dock")
    if what == "saga_die":
        return f"{who}'s Saga die shows {e.get('face')}"
    if what == "chose":
        return f"{who} chooses “{e.get('option')}”"
    return f"Saga: {_name(what)}"


def event_text(view: dict[str, Any], e: dict[str, Any]) -> str | None:
    """One line of the game's log for a saga event (None: not one)."""
    t = e.get("type")
    who = _name(e.get("player"))
    if t == "saga_item_taken":
        return f"{who} takes {item_name(view, e.get('item'))} from {_name(e.get('owner'))}"
    if t == "saga_item_sold":
        return f"{who} sells {item_name(view, e.get('item'))} to {_name(e.get('buyer'))}"
    if t == "saga_trade_offered":
        seller, buyer = str(e.get("seller")), str(e.get("buyer"))
        deal = (
            f"to sell {item_name(view, e.get('item'))} to {_name(buyer)}"
            if seller == e.get("player")
            else f"to buy {item_name(view, e.get('item'))} from {_name(seller)}"
        )
        return f"{who} offers {deal} {price_text(e, buyer)}"
    if t == "saga_trade_declined":
        return f"{who} declines {_name(e.get('by'))}'s offer for {item_name(view, e.get('item'))}"
    if t == "saga":
        return _saga_notice(view, who, e)
    return None


def public_words(view: dict[str, Any]) -> dict[str, Any] | None:
    """The saga's part of the public words (`words.saga`, drawn by saga.js): each player's saga items, the
    saga cards on each board, the Book entries read this game, the trade on offer; None without it."""
    dl = _dl(view)
    if not dl:
        return None
    owners: dict[str, list[dict[str, Any]]] = {c: [] for c in view.get("players") or []}
    for item, spec in (dl.get("items") or {}).items():
        owners.setdefault(spec.get("owner"), []).append(
            {"id": item, "name": item_name(view, item), "text": spec.get("text", "")}
        )
    board = {}
    for sq, cards in (dl.get("board") or {}).items():
        board[sq] = [
            {
                "id": c["id"],
                "name": c["name"],
                "kind": KIND_NAMES.get(c["kind"], "saga card"),
                "text": (
                    f"explore for {c['explore_coins']} Coins"
                    if c["kind"] == "encounter"
                    else str(c.get("condition") or "")
                ),
            }
            for c in cards
        ]
    offer = dl.get("offer")
    offer_text = None
    if offer:
        offer_text = event_text(view, {"type": "saga_trade_offered", **offer, "player": offer.get("by")})
    return {
        "items": owners,
        "board": board,
        "book": [
            {"entry": b["entry"], "text": f"Book {b['entry']}", "story": b["story"]}
            for b in dl.get("book") or []
        ],
        "offer": {**offer, "text": offer_text} if offer else None,
        "campaign_points": dict(dl.get("campaign_points") or {}),
        "may_take": [
            f"{_name(c['winner'])} sank {_name(c['loser'])}'s Ship and may take one of their saga items"
            for c in dl.get("may_take") or []
        ],
    }
