"""Deep Legends' part of the public view (`view["deep_legends"]`, joined by `views.public_view` when the game
has the option): what lies open on the table. Saga items are cards kept face up beside their owner's Sailor
deck; a saga card on an Ocean board shows its front (its name, an Encounter's Coins cost, a Fortune
Encounter's condition), never its back or a Book entry not yet read; an offered trade is said aloud.
"""

from __future__ import annotations

from typing import Any, cast

from rules.dead_reckoning.deep_legends.ingame import book_of
from rules.dead_reckoning.model import State

KIND_NAMES = {
    "encounter": "Non-Merchant Encounter",
    "fortune": "Fortune Encounter",
    "saga_item": "saga item",
    "advancement": "saga Advancement",
    "merchant": "saga Merchant ship",
}


def front(spec: dict[str, Any]) -> dict[str, Any]:
    """A saga card's printed front: what everyone at the table may read."""
    out: dict[str, Any] = {
        "id": spec["id"],
        "kind": spec["kind"],
        "name": str(spec.get("name") or spec["id"]),
    }
    for key in ("explore_coins", "condition", "text", "row"):
        if key in spec:
            out[key] = spec[key]
    return out


def saga_view(d: State) -> dict[str, Any]:
    dl = cast(dict[str, Any], d)["deep_legends"]
    book = book_of(d) if "saga" in dl else None
    items: dict[str, Any] = {}
    for item, owner in sorted(dl["items"].items()):
        spec = (book or {}).get("by_id", {}).get(item)
        items[item] = {
            **(front(spec) if spec else {"id": item, "kind": "saga_item", "name": item}),
            "owner": owner,
        }
    out: dict[str, Any] = {
        "items": items,
        "may_take": [dict(c) for c in dl["may_take"]],
        "saga": book is not None,
    }
    if book is not None:
        out["board"] = {
            sq: [front(book["by_id"][c]) for c in cards] for sq, cards in dl["board"].items() if cards
        }
        out["campaign_points"] = dict(dl["campaign_points"])
        # the Book entries read aloud in this game (an entry read again is listed again), with their story
        before = len((d["options"]["deep_legends"].get("saga") or {}).get("read", []))
        entries = book["book"]
        read = dl["saga"]["read"][before:]
        out["book"] = [{"entry": e, "story": str(entries.get(e, {}).get("story", ""))} for e in read]
    if "offer" in dl:
        out["offer"] = dict(dl["offer"])
    return out
