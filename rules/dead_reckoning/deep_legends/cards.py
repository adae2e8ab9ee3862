"""The saga's Advancements and Merchant ships in the engine's card catalogue: a game played with the saga
(option `deep_legends` with `saga`) plays with the base catalogue plus every saga card of kind
`advancement` or `merchant` of its saga file, so that such a card drawn onto a board is bought, sleeved,
scored and fought exactly as a printed base card (`buying`, `battles`, `cards.card_icons`). The Row decks
are not changed: saga cards reach the boards from the saga state (`ingame.draw_chance`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from rules.core.errors import Invalid
from rules.dead_reckoning.cards import Catalog, load_catalog
from rules.dead_reckoning.deep_legends import saga

CATALOG_KINDS = ("advancement", "merchant")
_CATS: dict[tuple[Any, ...], Catalog] = {}


def saga_catalog(o: Mapping[str, Any]) -> Catalog:
    """The catalogue a game with options `o` plays with (read once per set of files, like the base one)."""
    opt = o.get("deep_legends") or {}
    sg = opt.get("saga") if isinstance(opt, dict) else None
    exp = o.get("expansions")
    file = sg.get("file") if isinstance(sg, dict) else None
    key = (o["cards_file"], o["boards_file"], o["upgrades_file"], tuple(exp or ()), sg is not None, file)
    got = _CATS.get(key)
    if got is None:
        base = load_catalog(o["cards_file"], o["boards_file"], o["upgrades_file"], tuple(exp or ()))
        got = _CATS[key] = with_saga_cards(base, saga.load_saga(file)) if sg is not None else base
    return got


def with_saga_cards(base: Catalog, book: dict[str, Any]) -> Catalog:
    """`base` plus the saga's Advancements and Merchant ships (a new catalogue with memos of its own)."""
    cards = dict(base.cards)
    for cid, c in book["by_id"].items():
        if c["kind"] in CATALOG_KINDS:
            if cid in base.cards:
                raise Invalid(f"saga card {cid!r} has the id of a base card; give it its own number.")
            cards[cid] = c
    return replace(base, cards=cards, icons_memo={}, abilities_memo={}, plan_memo={})
