"""The saga (Deep Legends rulebook, "Saga Setup" and "New Rules for Sagas"): the saga content as data and
the saga state that lasts between games.

Content (`load_saga`, format `dead-reckoning/saga@1`, docs/deep-legends.md): the cards with a small
"1.00" that start in the Row decks, the tuck box of hidden cards addressed by number (1.XX), the
Encounter Book by entry, and the Saga die's faces. The book's text is the owner's: the shipped file
(`rules/data/deep_legends/saga1.json`) is an invented sample for tests.

State (`SagaState`, plain JSON kept by the controller with the campaign): which saga cards are in each
Row deck, which are still in the tuck box, eliminated (behind the divider), buried for this game, who
owns each saga item, the entries read and the Saga die's recorded rolls.

Instructions are effects (`resolve`): "read Book 1.XX" (`read`), "gain card 1.XX" (`gain_card`), "add
card 1.XX to the Row X deck" (`add_to_row`), `bury`, `eliminate`, Campaign points (`campaign_points`),
a Saga die roll (`roll`: a chance outcome the table reports, never drawn here), a choice (`choose`),
and gains of Coins/Cargo (`gain`, reported for the table to hand out). Every function returns a new
state; a refusal is a `RulesError` whose sentence says what to do; a missing roll or choice is
`Ambiguous` with the faces or options to give.
"""

from __future__ import annotations

import json
from importlib import resources
from pathlib import Path
from typing import Any, NotRequired, TypedDict, cast

from rules.core.errors import Ambiguous, Illegal, Invalid
from rules.dead_reckoning.cards import CardFileError, validate_cards

FORMAT = "dead-reckoning/saga@1"
STATE_FORMAT = "dead-reckoning/saga-state@1"
KINDS = ("advancement", "merchant", "encounter", "fortune", "saga_item")
PLACES = ("row", "tuck_box")
EFFECTS = (
    "read",
    "gain_card",
    "add_to_row",
    "bury",
    "eliminate",
    "campaign_points",
    "roll",
    "choose",
    "gain",
)
MAX_PRICE_COINS = 5  # "The price paid will be any amount of Cargo and/or up to 5 Coins"
MAX_DEPTH = 20  # a Book entry that reads itself forever is a data error


class SagaFileError(Invalid):
    """The saga file is wrong; the message names the file, the card or entry and the field."""


class SagaState(TypedDict):
    format: str
    saga: str  # the saga's id ("1" for Deep Legends)
    rows: dict[str, list[str]]  # saga cards shuffled into each Row deck next game
    tuck_box: list[str]  # numbers still in the tuck box
    eliminated: list[str]
    buried: dict[str, list[str]]  # this game only: back into the Row deck next game
    items: dict[str, str]  # saga item -> its owner (a Sailor deck's colour or a Campaign Log id)
    gained: dict[str, str]  # other saga cards gained this game -> who gained them
    read: list[str]  # Book entries read, in order
    rolls: list[int]  # the Saga die's recorded rolls, in order
    file: NotRequired[str | None]  # the owner's saga file (None: the shipped sample)


class Outcome(TypedDict):
    state: SagaState
    notices: list[dict[str, Any]]  # what the table does/reads: read_entry, gain, campaign_points, ...
    rolls_used: int
    choices_used: int
    draw_again: NotRequired[bool]


def _fail(where: str, what: str, fld: str, msg: str) -> SagaFileError:
    return SagaFileError(f"{where}: {what} field {fld!r} {msg}; fix the file and load it again.")


def _effects(where: str, what: str, fld: str, effects: Any, cards: set[str], book: set[str]) -> None:
    if not isinstance(effects, list):
        raise _fail(where, what, fld, "must be a list of effects")
    for i, e in enumerate(effects):
        f = f"{fld}[{i}]"
        if not isinstance(e, dict) or e.get("do") not in EFFECTS:
            raise _fail(where, what, f"{f}.do", f"must be one of {', '.join(EFFECTS)}")
        do = e["do"]
        if do == "read" and e.get("entry") not in book:
            raise _fail(
                where, what, f"{f}.entry", f"must name a Book entry of this file, not {e.get('entry')!r}"
            )
        if do in ("gain_card", "add_to_row") and e.get("card") not in cards:
            raise _fail(where, what, f"{f}.card", f"must name a card of this file, not {e.get('card')!r}")
        if do in ("bury", "eliminate") and e.get("card", "this") not in cards | {"this"}:
            raise _fail(where, what, f"{f}.card", "must be 'this' or a card of this file")
        if do == "add_to_row" and e.get("row") not in (1, 2, 3, 4):
            raise _fail(where, what, f"{f}.row", "must be 1, 2, 3 or 4")
        if do in ("campaign_points", "gain"):
            n = e.get("points" if do == "campaign_points" else "amount")
            if not isinstance(n, int) or isinstance(n, bool):
                raise _fail(
                    where,
                    what,
                    f"{f}.{'points' if do == 'campaign_points' else 'amount'}",
                    "must be a whole number",
                )
        if do == "gain" and e.get("what") not in ("coins", "cargo"):
            raise _fail(where, what, f"{f}.what", "must be 'coins' or 'cargo'")
        if do == "roll":
            faces = e.get("faces")
            if not isinstance(faces, dict) or not faces:
                raise _fail(where, what, f"{f}.faces", "must map die faces ('0', '1-2', ...) to effects")
            for key, sub in faces.items():
                _face_range(where, what, f"{f}.faces.{key}", key)
                _effects(where, what, f"{f}.faces.{key}", sub, cards, book)
        if do == "choose":
            opts = e.get("options")
            if not isinstance(opts, list) or len(opts) < 2:
                raise _fail(where, what, f"{f}.options", "must list at least two options")
            for j, o in enumerate(opts):
                if not isinstance(o, dict) or not isinstance(o.get("label"), str):
                    raise _fail(where, what, f"{f}.options[{j}].label", "must be the option's words")
                _effects(where, what, f"{f}.options[{j}].effects", o.get("effects"), cards, book)


def _face_range(where: str, what: str, fld: str, key: str) -> tuple[int, int]:
    lo, _, hi = key.partition("-")
    if not lo.isdigit() or (hi and not hi.isdigit()):
        raise _fail(where, what, fld, "must be a face ('2') or a range ('1-3')")
    return int(lo), int(hi or lo)


def _asks(effects: list[dict[str, Any]], book: dict[str, Any], depth: int) -> bool:
    """Whether following `effects` (through the entries they read) rolls the Saga die or offers a choice."""
    if depth > MAX_DEPTH:
        return False  # an endless read is refused when followed
    for e in effects:
        if e["do"] in ("roll", "choose"):
            return True
        if e["do"] == "read" and _asks(book[e["entry"]].get("effects", []), book, depth + 1):
            return True
    return False


def validate_saga(doc: Any, where: str = "saga") -> dict[str, Any]:
    """Check a saga file; returns it with a `by_id` map of its cards."""
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise SagaFileError(f"{where}: expected an object with format {FORMAT!r}; see docs/deep-legends.md.")
    if not isinstance(doc.get("saga"), str) or not doc["saga"]:
        raise _fail(where, "the saga", "saga", "must name the saga (e.g. '1')")
    die = doc.get("die")
    if not isinstance(die, list) or len(die) != 6 or not all(isinstance(f, int) and f >= 0 for f in die):
        raise _fail(where, "the Saga die", "die", "must list its 6 faces as whole numbers")
    cards = doc.get("cards")
    book = doc.get("book")
    if not isinstance(cards, list) or not isinstance(book, dict):
        raise SagaFileError(f"{where}: needs a 'cards' list and a 'book' object; see docs/deep-legends.md.")
    by_id: dict[str, dict[str, Any]] = {}
    for i, c in enumerate(cards):
        cid = c.get("id") if isinstance(c, dict) else None
        if not isinstance(cid, str) or not cid or cid in by_id:
            raise _fail(where, f"card #{i}", "id", "must be a distinct non-empty string such as '1.07'")
        by_id[cid] = c
    ids, entries = set(by_id), set(book)
    for cid, c in by_id.items():
        what = f"card {cid!r}"
        if c.get("kind") not in KINDS:
            raise _fail(where, what, "kind", f"must be one of {', '.join(KINDS)}")
        if c.get("place") not in PLACES:
            raise _fail(where, what, "place", "must be 'row' (a 1.00 card) or 'tuck_box'")
        if c["place"] == "row" or c["kind"] in ("advancement", "merchant", "encounter", "fortune"):
            if c.get("row") not in (1, 2, 3, 4):
                raise _fail(where, what, "row", "must be 1, 2, 3 or 4 (its Advancement row)")
        if c["kind"] == "encounter":
            cost = c.get("explore_coins")
            if not isinstance(cost, int) or isinstance(cost, bool) or cost < 0:
                raise _fail(where, what, "explore_coins", "must be the Coins it costs to explore")
            _effects(where, what, "back", c.get("back"), ids, entries)
        if c["kind"] == "fortune":
            if not isinstance(c.get("condition"), str):
                raise _fail(
                    where, what, "condition", "must be the words on its front saying when it is encountered"
                )
            _effects(where, what, "effects", c.get("effects"), ids, entries)
        if c["kind"] in ("advancement", "merchant"):
            # printed like the base game's cards (docs/cards.md): bought, sleeved and fought as they are
            try:
                validate_cards({"cards": [c]}, where)
            except CardFileError as exc:
                raise SagaFileError(exc.message) from None
            if c["kind"] == "merchant" and "encounter" not in c:
                raise _fail(where, what, "encounter", "must be the Merchant ship's back (docs/cards.md)")
            for side in ("saga_win", "saga_lose"):
                if side in c:
                    if c["kind"] != "merchant":
                        raise _fail(where, what, side, "is a saga Merchant ship's field only")
                    _effects(where, what, side, c[side], ids, entries)
    for cid, c in by_id.items():
        for side in ("saga_win", "saga_lose"):
            # followed as the battle is resolved, when nobody can be asked for a roll or a choice
            if side in c and _asks(c[side], book, 0):
                raise _fail(
                    where, f"card {cid!r}", side, "must not roll the Saga die or offer a choice (read or not)"
                )
        if c["kind"] == "saga_item":
            if not isinstance(c.get("text"), str):
                raise _fail(where, what, "text", "must be the item's words (how and when it is used)")
            _effects(where, what, "effects", c.get("effects", []), ids, entries)
    for key, entry in book.items():
        what = f"Book entry {key!r}"
        if not isinstance(entry, dict) or not isinstance(entry.get("story", ""), str):
            raise _fail(where, what, "story", "must be the entry's narrative words")
        _effects(where, what, "effects", entry.get("effects", []), ids, entries)
    return {**doc, "by_id": by_id}


def load_saga(path: str | Path | None = None) -> dict[str, Any]:
    """The saga file at `path`, or the invented sample shipped for tests."""
    if path is None:
        text = resources.files("rules.data").joinpath("deep_legends/saga1.json").read_text(encoding="utf-8")
        where = "deep_legends/saga1.json"
    else:
        where = str(path)
        try:
            text = Path(path).read_text(encoding="utf-8")
        except OSError as exc:
            raise SagaFileError(f"{path}: cannot be read ({exc.strerror}); check the path.") from None
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SagaFileError(f"{where}: is not valid JSON (line {exc.lineno}: {exc.msg}).") from None
    return validate_saga(doc, where)


def new_saga_state(saga: dict[str, Any], file: str | None = None) -> SagaState:
    """Before the first game (Saga Setup): the 1.00 cards go into their Row decks, the rest stay in the
    tuck box."""
    rows: dict[str, list[str]] = {str(r): [] for r in (1, 2, 3, 4)}
    box: list[str] = []
    for cid, c in saga["by_id"].items():
        if c["place"] == "row":
            rows[str(c["row"])].append(cid)
        else:
            box.append(cid)
    return {
        "format": STATE_FORMAT,
        "saga": saga["saga"],
        "rows": rows,
        "tuck_box": sorted(box),
        "eliminated": [],
        "buried": {str(r): [] for r in (1, 2, 3, 4)},
        "items": {},
        "gained": {},
        "read": [],
        "rolls": [],
        "file": file,
    }


def assign_items(st: SagaState, owners: dict[str, str]) -> SagaState:
    """Saga items players already hold when a campaign begins (content partly discovered before)."""
    out = _copy(st)
    for item, owner in owners.items():
        _remove_everywhere(out, item)
        out["items"][item] = owner
    return out


def _copy(st: SagaState) -> SagaState:
    return cast(SagaState, json.loads(json.dumps(st)))


def _remove_everywhere(st: SagaState, cid: str) -> None:
    for pile in list(st["rows"].values()) + list(st["buried"].values()):
        if cid in pile:
            pile.remove(cid)
    if cid in st["tuck_box"]:
        st["tuck_box"].remove(cid)
    st["items"].pop(cid, None)
    st["gained"].pop(cid, None)


def resolve(
    saga: dict[str, Any],
    st: SagaState,
    effects: list[dict[str, Any]],
    who: str,
    this: str | None = None,
    rolls: list[int] | None = None,
    choices: list[int] | None = None,
) -> Outcome:
    """Follow a list of saga instructions for player `who` (`this`: the card they are printed on).
    `rolls` are the Saga die's faces the table rolled, in order; `choices` the options the player chose."""
    out = _copy(st)
    notices: list[dict[str, Any]] = []
    rolls = list(rolls or [])
    choices = list(choices or [])
    used = {"rolls": 0, "choices": 0}

    def run(effs: list[dict[str, Any]], depth: int) -> None:
        if depth > MAX_DEPTH:
            raise Invalid("the saga's entries read each other endlessly; fix the saga file.")
        for e in effs:
            do = e["do"]
            card = e.get("card", "this")
            target = this if card == "this" else card
            if do == "read":
                entry = saga["book"][e["entry"]]
                out["read"].append(e["entry"])
                notices.append({"type": "read_entry", "entry": e["entry"], "story": entry.get("story", "")})
                run(entry.get("effects", []), depth + 1)
            elif do == "gain_card":
                if target not in out["tuck_box"]:
                    raise Illegal(f"card {target} is not in the tuck box (already out or eliminated).")
                out["tuck_box"].remove(target)
                spec = saga["by_id"][target]
                if spec["kind"] == "saga_item":
                    out["items"][target] = who
                else:
                    out["gained"][target] = who
                notices.append(
                    {
                        "type": "gain_card",
                        "card": target,
                        "player": who,
                        "kind": spec["kind"],
                        "name": str(spec.get("name") or target),  # read aloud as it is taken
                    }
                )
            elif do == "add_to_row":
                if target not in out["tuck_box"]:
                    raise Illegal(f"card {target} is not in the tuck box (already out or eliminated).")
                out["tuck_box"].remove(target)
                out["rows"][str(e["row"])].append(target)
                notices.append({"type": "add_to_row", "card": target, "row": e["row"]})
            elif do in ("bury", "eliminate"):
                if target is None:
                    raise Invalid(f"'{do} this' needs the card it is printed on.")
                spec = saga["by_id"].get(target)
                _remove_everywhere(out, target)
                if do == "eliminate":
                    out["eliminated"].append(target)
                elif spec is not None and "row" in spec:
                    out["buried"][str(spec["row"])].append(target)
                named = {"name": str(spec["name"])} if spec is not None and spec.get("name") else {}
                notices.append({"type": do, "card": target, **named})
            elif do == "campaign_points":
                notices.append({"type": "campaign_points", "player": who, "points": e["points"]})
            elif do == "gain":
                notices.append(
                    {
                        "type": "gain",
                        "player": who,
                        "what": e["what"],
                        "amount": e["amount"],
                        "to": e.get("to", "dock"),
                    }
                )
            elif do == "roll":
                if used["rolls"] >= len(rolls):
                    raise Ambiguous("roll the Saga die and give the face rolled.", sorted(set(saga["die"])))
                face = rolls[used["rolls"]]
                used["rolls"] += 1
                if face not in saga["die"]:
                    raise Invalid(f"the Saga die has no face {face!r}; its faces are {saga['die']}.")
                out["rolls"].append(face)
                notices.append({"type": "saga_die", "player": who, "face": face})
                for key, sub in e["faces"].items():
                    lo, hi = _face_range("saga", "roll", "faces", key)
                    if lo <= face <= hi:
                        run(sub, depth + 1)
                        break
            elif do == "choose":
                opts = e["options"]
                if used["choices"] >= len(choices):
                    raise Ambiguous("choose one option.", [o["label"] for o in opts])
                pick = choices[used["choices"]]
                used["choices"] += 1
                if not isinstance(pick, int) or not 0 <= pick < len(opts):
                    raise Invalid(f"choose an option from 0 to {len(opts) - 1}.")
                notices.append({"type": "chose", "player": who, "option": opts[pick]["label"]})
                run(opts[pick]["effects"], depth + 1)

    run(effects, 0)
    return {"state": out, "notices": notices, "rolls_used": used["rolls"], "choices_used": used["choices"]}


def explore(
    saga: dict[str, Any],
    st: SagaState,
    card: str,
    who: str,
    coins_paid: int,
    rolls: list[int] | None = None,
    choices: list[int] | None = None,
) -> Outcome:
    """A Non-Merchant Encounter: "you may pay the indicated Coins cost to explore them. After you pay the
    cost (and NOT BEFORE), you turn the Encounter over and read out loud what it says on the other side."
    The card was drawn onto the board from its Row deck; what its back does follows."""
    spec = saga["by_id"].get(card)
    if spec is None or spec["kind"] != "encounter":
        raise Invalid(f"{card!r} is not a Non-Merchant Encounter of this saga.")
    if coins_paid != spec["explore_coins"]:
        raise Illegal(f"exploring {card} costs {spec['explore_coins']} Coins, paid before it is turned over.")
    out = _copy(st)
    if card in out["rows"][str(spec["row"])]:
        out["rows"][str(spec["row"])].remove(card)
    res = resolve(saga, out, spec["back"], who, this=card, rolls=rolls, choices=choices)
    named = str(spec.get("name") or card)
    res["notices"].insert(
        0, {"type": "explored", "card": card, "name": named, "player": who, "coins": coins_paid}
    )
    return res


def is_fortune(saga: dict[str, Any], card: str) -> bool:
    spec = saga["by_id"].get(card)
    return spec is not None and spec["kind"] == "fortune"


def place_drawn(saga: dict[str, Any], on_board: list[str], drawn: str) -> tuple[list[str], bool]:
    """A card drawn onto an Ocean board: "When a Fortune Encounter is drawn from a box, place it on the
    Ocean board and then draw another card from the row deck and also place it on the same board."
    Returns the board's cards and whether another must be drawn (until a non-Fortune card is there)."""
    cards = [*on_board, drawn]
    return cards, not any(not is_fortune(saga, c) for c in cards)


def counts_toward_turn_limit(saga: dict[str, Any], card: str) -> bool:
    """Fortune Encounters "don't count as 1 of your maximum 2 Advancements/Encounters for the turn";
    Non-Merchant Encounters "count as 1 of the 2"."""
    return not is_fortune(saga, card)


def take_on_sinking(st: SagaState, winner: str, loser: str, item: str | None) -> SagaState:
    """ "If you ever sink an opposing Ship, you may choose any 1 Saga item the other player has and take
    it." `item` None: the winner takes none."""
    if item is None:
        return _copy(st)
    if st["items"].get(item) != loser:
        raise Illegal(f"{loser} does not own saga item {item}; choose one of theirs.")
    out = _copy(st)
    out["items"][item] = winner
    return out


def trade(
    st: SagaState,
    seller: str,
    buyer: str,
    item: str,
    cargo: int,
    coins: int,
    active: str,
    busy: bool = False,
    coop: bool = False,
    same_location: bool = False,
) -> SagaState:
    """ "The active player may buy or sell Saga items to/from any other player as long as neither player is
    in the middle of a battle or Encounter. The price paid will be any amount of Cargo and/or up to 5
    Coins." In 2-player co-op items are given, never sold, and only between Ships in the same location."""
    if st["items"].get(item) != seller:
        raise Illegal(f"{seller} does not own saga item {item}.")
    if seller == buyer:
        raise Invalid("a saga item is traded between two different players.")
    if coop:
        if cargo or coins:
            raise Illegal("in 2-player co-op saga items may not be sold, only given.")
        if not same_location:
            raise Illegal("in co-op saga items are given only between Ships in the same location.")
    else:
        if active not in (seller, buyer):
            raise Illegal("only the active player may buy or sell saga items, with another player.")
        if busy:
            raise Illegal("saga items cannot change hands while either player is in a battle or Encounter.")
        if not isinstance(cargo, int) or not isinstance(coins, int) or cargo < 0 or coins < 0:
            raise Invalid("the price is a number of Cargo and Coins, 0 or more.")
        if coins > MAX_PRICE_COINS:
            raise Illegal(f"the price may include at most {MAX_PRICE_COINS} Coins (and any Cargo).")
    out = _copy(st)
    out["items"][item] = buyer
    return out


def end_game(saga: dict[str, Any], st: SagaState) -> SagaState:
    """After a game: buried cards go back into their Row decks ("shuffled into that Advancement deck box
    in future games"), and a gained saga card other than an item becomes part of its Row deck for future
    games (docs/deep-legends.md); saga items stay with their owners."""
    out = _copy(st)
    for row, cards in out["buried"].items():
        out["rows"][row] += cards
        out["buried"][row] = []
    for cid in list(out["gained"]):
        spec = saga["by_id"][cid]
        if "row" in spec:
            out["rows"][str(spec["row"])].append(cid)
        del out["gained"][cid]
    return out


def deck_additions(st: SagaState) -> dict[str, list[str]]:
    """The saga cards to shuffle into each Row deck at the next game's setup."""
    return {r: sorted(c) for r, c in st["rows"].items()}
