"""The saga's Advancements and Merchant ships in the engine's card catalogue: a game played with the saga
(option `deep_legends` with `saga`) plays with the base catalogue plus every saga card of kind
`advancement` or `merchant` of its saga file, so that such a card drawn onto a board is bought, sleeved,
scored and fought exactly as a printed base card (`buying`, `battles`, `cards.card_icons`). The Row decks
are not changed: saga cards reach the boards from the saga state (`ingame.draw_chance`).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import replace
from importlib import resources
from typing import Any

from rules.core.errors import Invalid
from rules.dead_reckoning.cards import Catalog, load_catalog, validate_boards, validate_upgrades
from rules.dead_reckoning.deep_legends import saga

CATALOG_KINDS = ("advancement", "merchant")
_CATS: dict[tuple[Any, ...], Catalog] = {}


def saga_catalog(o: Mapping[str, Any]) -> Catalog:
    """The catalogue a game with options `o` plays with (read once per set of files, like the base one):
    with the saga's cards when it plays the saga, with Golden Island when `golden_island` is set, with
    the Influence tiles when `influence_tiles` is."""
    opt = o.get("deep_legends") or {}
    sg = opt.get("saga") if isinstance(opt, dict) else None
    golden = bool(opt.get("golden_island")) if isinstance(opt, dict) else False
    tiles = bool(opt.get("influence_tiles")) if isinstance(opt, dict) else False
    exp = o.get("expansions")
    file = sg.get("file") if isinstance(sg, dict) else None
    key = (
        o["cards_file"],
        o["boards_file"],
        o["upgrades_file"],
        tuple(exp or ()),
        sg is not None,
        file,
        golden,
        tiles,
    )
    got = _CATS.get(key)
    if got is None:
        got = load_catalog(o["cards_file"], o["boards_file"], o["upgrades_file"], tuple(exp or ()))
        if sg is not None:
            got = with_saga_cards(got, saga.load_saga(file))
        if golden:
            got = with_golden_island(got)
        if tiles:
            got = with_influence_tiles(got)
        _CATS[key] = got
    return got


def non_saga_data() -> dict[str, Any]:
    """The Non-Saga Content shipped as data (`rules/data/deep_legends/non_saga.json`, invented values)."""
    text = resources.files("rules.data").joinpath("deep_legends/non_saga.json").read_text(encoding="utf-8")
    doc: dict[str, Any] = json.loads(text)
    validate_boards(doc, "deep_legends/non_saga.json")
    validate_upgrades(doc, "deep_legends/non_saga.json")
    return doc


def with_golden_island(base: Catalog) -> Catalog:
    """ "The new Ocean board is named Golden Island ... These can simply be added to your game right away":
    its board joins the island boards a face-down square may hold."""
    return replace(base, boards={**base.boards, **non_saga_data()["boards"]})


def with_saga_cards(base: Catalog, book: dict[str, Any]) -> Catalog:
    """`base` plus the saga's Advancements and Merchant ships (a new catalogue with memos of its own)."""
    cards = dict(base.cards)
    for cid, c in book["by_id"].items():
        if c["kind"] in CATALOG_KINDS:
            if cid in base.cards:
                raise Invalid(f"saga card {cid!r} has the id of a base card; give it its own number.")
            cards[cid] = c
    return replace(base, cards=cards, icons_memo={}, abilities_memo={}, plan_memo={})


def with_influence_tiles(base: Catalog) -> Catalog:
    """ "If you have a Ship Upgrade tile with an Influence icon, so long as you have no Cargo or Coins in
    that hold, then you may place one Influence cube on an island once per turn": its tiles join the
    supply (the action is `ingame.tile_influence`)."""
    tiles = {t["id"]: t for t in non_saga_data()["tiles"]}
    clash = sorted(set(tiles) & set(base.upgrades))
    if clash:
        raise Invalid(f"the Influence tile {clash[0]!r} has the id of a tile of the game's data; rename it.")
    return replace(base, upgrades={**base.upgrades, **tiles}, icons_memo={}, abilities_memo={}, plan_memo={})
