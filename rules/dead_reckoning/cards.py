"""Card and board data: the file formats, their validation, the loaded catalogue, and what a card shows.

Owns the data side of the game (Advancements, Encounters, Ship Upgrade tiles, Ocean boards, the
Sailor Card Reference, printed numbers such as Achievement values). Abilities are data in one small
vocabulary (docs/cards.md), never code, so a user's card file can be validated and played.
Reads files only when asked (`load_catalog(paths)`); the engine itself never does I/O.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from contracts.grid import DIRECTIONS as GRID_DIRECTIONS
from rules.core.errors import Invalid
from rules.dead_reckoning.model import PlayerBoard, SailorCard, State

# "influence": Deep Legends' Ship Upgrade tile ("one Influence cube on an island once per turn")
ICONS = ("sail", "cannon", "wheel", "attack_flag", "bonus_draw", "influence")
SLOTS = ("top", "middle", "bottom")
EFFECTS = ("gain", "influence", "produce", "build", "upgrade", "repair", "sails")
BATTLE_EFFECTS = (
    "drop_extra_cubes",
    "move_cube_adjacent",
    "remove_cube_for_damage_and_coins",
    "coins_per_wheel_on_win",
    "extra_damage",
    "redrop_cube",
)
SCORING = ("per_cargo", "per_island_without_cubes", "per_icon", "flat")
GAIN_TO = ("dock", "ship", "dock_or_ship")
ACHIEVEMENTS = (
    "legendary",
    "expert_sailors",
    "terror_of_the_sea",
    "builder",
    "capitalist",
    "settler",
    "elite_vessel",
    "explorer",
    "master_merchant",
)
BUILDINGS = ("fort", "garrison", "outpost")
DIRECTIONS = tuple(GRID_DIRECTIONS)  # open-sea arrows


class CardFileError(Invalid):
    """A card or board file is wrong; the message names the file, the card and the field."""


@dataclass(slots=True)
class Catalog:
    """Everything printed on the components, as validated plain data."""

    cards: dict[str, dict[str, Any]]  # Advancements and Encounters by id
    sailors: dict[str, list[dict[str, Any]]]  # sailor kind -> 4 levels
    deck: dict[str, int]  # sailor kind -> copies in a starting deck
    boards: dict[str, dict[str, Any]]
    upgrades: dict[str, dict[str, Any]]
    achievements: dict[str, int]
    building_costs: dict[str, int]
    building_supply: dict[str, int]
    explorer_needed: dict[str, int]
    bonus_tokens: list[list[str]]
    rows: dict[int, list[str]] = field(default_factory=dict)  # row -> card ids
    # derived from the data above and kept with it, keyed by what a Sailor card is (kind, level, sleeve):
    # icons (`card_icons`), abilities (`card_abilities`), ability offers (`legal.offer_plan`); read-only
    icons_memo: dict[tuple[Any, ...], dict[str, int]] = field(default_factory=dict)
    abilities_memo: dict[tuple[Any, ...], list[tuple[str, dict[str, Any]]]] = field(default_factory=dict)
    plan_memo: dict[
        tuple[Any, ...], list[tuple[str, dict[str, Any], int | None, dict[str, Any], dict[str, Any] | None]]
    ] = field(default_factory=dict)
    # the offers naming one Sailor card by its id, (`play_card`, `level_up`) (`legal.card_offers`): shared
    # read-only by every offered list, like the other whole offers of `legal` (an offered action is never
    # edited); they depend on the id alone, so a catalogue derived from this one may share them
    card_offers: dict[str, tuple[dict[str, Any], dict[str, Any]]] = field(default_factory=dict)


def _fail(where: str, card: str | None, fld: str, msg: str) -> CardFileError:
    who = f" card {card!r}" if card else ""
    return CardFileError(f"{where}:{who} field {fld!r} {msg}; fix the file and load it again.")


def _int(where: str, card: str | None, fld: str, v: Any, lo: int = 0, hi: int = 99) -> int:
    if not isinstance(v, int) or isinstance(v, bool) or not lo <= v <= hi:
        raise _fail(where, card, fld, f"must be a whole number from {lo} to {hi}, not {v!r}")
    return v


def _icons(where: str, card: str, fld: str, v: Any) -> dict[str, int]:
    if not isinstance(v, dict):
        raise _fail(where, card, fld, "must be an object of icon counts")
    for k, n in v.items():
        if k not in ICONS:
            raise _fail(where, card, f"{fld}.{k}", f"is not an icon (known: {', '.join(ICONS)})")
        _int(where, card, f"{fld}.{k}", n, 0, 9)
    return v


def _effect(where: str, card: str, fld: str, e: Any) -> None:
    if not isinstance(e, dict) or e.get("do") not in EFFECTS:
        raise _fail(where, card, f"{fld}.do", f"must be one of {', '.join(EFFECTS)}")
    do = e["do"]
    if do == "gain":
        if e.get("what") not in ("cargo", "coins"):
            raise _fail(where, card, f"{fld}.what", "must be 'cargo' or 'coins'")
        if e.get("to") not in GAIN_TO:
            raise _fail(where, card, f"{fld}.to", f"must be one of {', '.join(GAIN_TO)}")
        if "per" in e and e["per"] not in ICONS:
            raise _fail(where, card, f"{fld}.per", f"must name an icon ({', '.join(ICONS)})")
    if do == "upgrade":
        if e.get("category") not in ("basic", "advanced"):
            raise _fail(where, card, f"{fld}.category", "must be 'basic' or 'advanced'")
    else:
        _int(where, card, f"{fld}.amount", e.get("amount"), 1, 9)
    if "boost" in e:
        b = e["boost"]
        if not isinstance(b, dict) or set(b) - {"cargo", "coins"}:
            raise _fail(where, card, f"{fld}.boost", "must be an object with 'cargo' and/or 'coins'")


def _ability(where: str, card: str, fld: str, a: Any) -> None:
    if not isinstance(a, dict):
        raise _fail(where, card, fld, "must be an object")
    if "choice" in a:
        if not isinstance(a["choice"], list) or len(a["choice"]) < 2:
            raise _fail(where, card, f"{fld}.choice", "must list at least two alternatives")
        for i, alt in enumerate(a["choice"]):
            if "choice" in alt or "battle" in alt:
                raise _fail(
                    where, card, f"{fld}.choice[{i}]", "must be a plain ability (no nested choice or battle)"
                )
            _ability(where, card, f"{fld}.choice[{i}]", alt)
        return
    if "battle" in a:
        if a["battle"] not in BATTLE_EFFECTS:
            raise _fail(where, card, f"{fld}.battle", f"must be one of {', '.join(BATTLE_EFFECTS)}")
        if not isinstance(a.get("params", {}), dict):
            raise _fail(where, card, f"{fld}.params", "must be an object")
        return
    effects = a.get("effects")
    if not isinstance(effects, list) or not effects:
        raise _fail(where, card, f"{fld}.effects", "must be a non-empty list (or use 'choice' or 'battle')")
    for i, e in enumerate(effects):
        _effect(where, card, f"{fld}.effects[{i}]", e)
    if "pay" in a:
        p = a["pay"]
        if not isinstance(p, dict) or p.get("from") not in ("ship", "ship_or_dock"):
            raise _fail(where, card, f"{fld}.pay.from", "must be 'ship' or 'ship_or_dock'")
        _int(where, card, f"{fld}.pay.cargo", p.get("cargo"), 1, 20)
    if a.get("where") not in (None, "harbor"):
        raise _fail(where, card, f"{fld}.where", "must be 'harbor' or absent")


def _abilities(where: str, card: str, v: Any) -> None:
    if not isinstance(v, list):
        raise _fail(where, card, "abilities", "must be a list")
    for i, a in enumerate(v):
        _ability(where, card, f"abilities[{i}]", a)


def validate_cards(doc: Any, where: str = "cards") -> dict[str, dict[str, Any]]:
    """Validate an Advancement/Encounter file (`{"format": "dead-reckoning/cards@1", "cards": [...]}`)."""
    if not isinstance(doc, dict) or not isinstance(doc.get("cards"), list):
        raise CardFileError(f"{where}: expected an object with a 'cards' list; see docs/cards.md.")
    out: dict[str, dict[str, Any]] = {}
    for i, c in enumerate(doc["cards"]):
        if not isinstance(c, dict) or not isinstance(c.get("id"), str) or not c["id"]:
            raise _fail(where, f"#{i}", "id", "must be a non-empty string")
        cid = c["id"]
        if cid in out:
            raise _fail(where, cid, "id", "is used twice")
        _int(where, cid, "row", c.get("row"), 1, 4)
        _int(where, cid, "cost", c.get("cost"), 0, 30)
        if c.get("slot") not in SLOTS:
            raise _fail(where, cid, "slot", f"must be one of {', '.join(SLOTS)}")
        _icons(where, cid, "icons", c.get("icons", {}))
        _abilities(where, cid, c.get("abilities", []))
        for j, s in enumerate(c.get("scoring", [])):
            if not isinstance(s, dict) or s.get("score") not in SCORING:
                raise _fail(where, cid, f"scoring[{j}].score", f"must be one of {', '.join(SCORING)}")
            _int(where, cid, f"scoring[{j}].coins", s.get("coins"), 0, 30)
            if s["score"] == "per_cargo":
                _int(where, cid, f"scoring[{j}].per", s.get("per"), 1, 30)
            if s["score"] == "per_icon" and s.get("icon") not in ICONS:
                raise _fail(where, cid, f"scoring[{j}].icon", f"must be one of {', '.join(ICONS)}")
        enc = c.get("encounter")
        if enc is not None:
            if not isinstance(enc, dict) or enc.get("kind") != "merchant":
                raise _fail(
                    where, cid, "encounter.kind", "must be 'merchant' (the base game's only Encounter)"
                )
            _int(where, cid, "encounter.cubes", enc.get("cubes"), 0, 20)
            for side in ("win", "lose"):
                if not isinstance(enc.get(side, []), list):
                    raise _fail(where, cid, f"encounter.{side}", "must be a list of effects")
                for j, e in enumerate(enc.get(side, [])):
                    _effect(where, cid, f"encounter.{side}[{j}]", e)
                    if e["do"] != "gain" or "per" in e:  # what the engine applies on a Merchant's back
                        raise _fail(
                            where, cid, f"encounter.{side}[{j}].do", "must be a plain 'gain' (no 'per')"
                        )
            if not isinstance(enc.get("keep_on_win", False), bool):
                raise _fail(where, cid, "encounter.keep_on_win", "must be true or false")
        out[cid] = c
    return out


def validate_boards(doc: Any, where: str = "ocean_boards") -> dict[str, dict[str, Any]]:
    if not isinstance(doc, dict) or not isinstance(doc.get("boards"), dict):
        raise CardFileError(f"{where}: expected an object with a 'boards' object; see docs/cards.md.")
    for name, b in doc["boards"].items():
        if not isinstance(b, dict) or b.get("kind") not in ("island", "open_sea"):
            raise _fail(where, name, "kind", "must be 'island' or 'open_sea'")
        if b["kind"] == "island":
            _int(where, name, "slots", b.get("slots"), 1, 9)
            prod = b.get("production")
            if not isinstance(prod, dict):
                raise _fail(where, name, "production", "must be an object with cargo and coins")
            _int(where, name, "production.cargo", prod.get("cargo", 0), 0, 9)
            _int(where, name, "production.coins", prod.get("coins", 0), 0, 9)
            sc = b.get("scores")
            if not isinstance(sc, list) or not 1 <= len(sc) <= 3 or sorted(sc, reverse=True) != sc:
                raise _fail(where, name, "scores", "must list 1 to 3 coin values, largest first")
            for j, s in enumerate(sc):
                _int(where, name, f"scores[{j}]", s, 0, 30)
            if not isinstance(b.get("hand_limit", False), bool):
                raise _fail(where, name, "hand_limit", "must be true or false")
            # Deep Legends' Golden Island: "the cost of all Buildings added to this island is doubled"
            _int(where, name, "building_cost_factor", b.get("building_cost_factor", 1), 1, 4)
        else:
            arrows = b.get("arrows")
            if not isinstance(arrows, list) or any(a not in DIRECTIONS for a in arrows):
                raise _fail(where, name, "arrows", "must list directions among N, S, E, W")
            if b.get("players") not in (None, 2, 3):
                raise _fail(where, name, "players", "must be null, 2 or 3")
    boards: dict[str, dict[str, Any]] = doc["boards"]
    return boards


def validate_upgrades(doc: Any, where: str = "upgrades") -> dict[str, dict[str, Any]]:
    if not isinstance(doc, dict) or not isinstance(doc.get("tiles"), list):
        raise CardFileError(f"{where}: expected an object with a 'tiles' list; see docs/cards.md.")
    out: dict[str, dict[str, Any]] = {}
    for i, t in enumerate(doc["tiles"]):
        tid = t.get("id") if isinstance(t, dict) else None
        if not isinstance(tid, str):
            raise _fail(where, f"#{i}", "id", "must be a string")
        if t.get("category") not in ("basic", "advanced"):
            raise _fail(where, tid, "category", "must be 'basic' or 'advanced'")
        _icons(where, tid, "icons", t.get("icons", {}))
        _int(where, tid, "count", t.get("count"), 1, 20)
        out[tid] = t
    return out


def validate_sailors(
    doc: Any, where: str = "sailors"
) -> tuple[dict[str, list[dict[str, Any]]], dict[str, int]]:
    if not isinstance(doc, dict) or not isinstance(doc.get("sailors"), dict):
        raise CardFileError(f"{where}: expected an object with a 'sailors' object.")
    for kind, levels in doc["sailors"].items():
        if not isinstance(levels, list) or len(levels) != 4:
            raise _fail(where, kind, "levels", "must list exactly 4 levels")
        for lv, spec in enumerate(levels, 1):
            _icons(where, f"{kind} L{lv}", "icons", spec.get("icons", {}))
            _abilities(where, f"{kind} L{lv}", spec.get("abilities", []))
    deck = doc.get("deck", {})
    if sum(deck.values()) != 12 or set(deck) - set(doc["sailors"]):
        raise CardFileError(f"{where}: field 'deck' must name 12 known Sailor cards.")
    return doc["sailors"], deck


def _read(name: str, override: str | Path | None) -> Any:
    if override is not None:
        path = Path(override)
        try:
            return json.loads(path.read_text(encoding="utf-8"))
        except OSError as exc:
            raise CardFileError(f"{path}: cannot be read ({exc.strerror}); check the path.") from None
        except json.JSONDecodeError as exc:
            raise CardFileError(f"{path}: is not valid JSON (line {exc.lineno}: {exc.msg}).") from None
    return json.loads(resources.files("rules.data").joinpath(name).read_text(encoding="utf-8"))


_CACHE: dict[tuple[Any, ...], Catalog] = {}
# the sample set with these expansions (as in _CACHE), keyed by the name when there is one
_BY_EXPANSIONS: dict[str | tuple[str, ...], Catalog] = {}


def load_catalog(
    cards: str | Path | None = None,
    boards: str | Path | None = None,
    upgrades: str | Path | None = None,
    expansions: tuple[str, ...] = (),
) -> Catalog:
    """The validated catalogue: the shipped sample set, or a user's files in its place, extended by the
    expansions' own data (each expansion module's `extend_catalog` returns a new catalogue)."""
    key = (str(cards), str(boards), str(upgrades), *expansions)
    if key in _CACHE:
        return _CACHE[key]
    if expansions:
        from rules.dead_reckoning.expansions import module  # the expansion's data: imported when named

        ext = load_catalog(cards, boards, upgrades)
        for name in expansions:
            ext = module(name).extend_catalog(ext)
        _CACHE[key] = ext
        if cards is None and boards is None and upgrades is None:
            _BY_EXPANSIONS[expansions[0] if len(expansions) == 1 else expansions] = ext
        return ext
    card_map = validate_cards(_read("advancements.json", cards), str(cards or "advancements.json"))
    board_map = validate_boards(_read("ocean_boards.json", boards), str(boards or "ocean_boards.json"))
    up_map = validate_upgrades(_read("upgrades.json", upgrades), str(upgrades or "upgrades.json"))
    sailors, deck = validate_sailors(_read("sailors.json", None))
    game = _read("game.json", None)
    rows: dict[int, list[str]] = {1: [], 2: [], 3: [], 4: []}
    for cid, c in card_map.items():
        rows[c["row"]].append(cid)
    for r, ids in rows.items():
        if len(ids) < 4:
            raise CardFileError(
                f"{cards or 'advancements.json'}: row {r} has {len(ids)} cards; each row needs 4 or more."
            )
    islands = [n for n, b in board_map.items() if b["kind"] == "island"]
    if len(islands) < 10 or len([n for n, b in board_map.items() if b["kind"] == "open_sea"]) < 4:
        raise CardFileError(
            f"{boards or 'ocean_boards.json'}: needs at least 10 island and 4 open sea boards."
        )
    cat = Catalog(
        card_map,
        sailors,
        deck,
        board_map,
        up_map,
        game["achievements"],
        game["building_costs"],
        game["building_supply"],
        game["explorer_needed"],
        game["bonus_tokens"],
        rows,
    )
    _CACHE[key] = cat
    return cat


@functools.cache
def default_catalog() -> Catalog:
    """The sample set shipped in rules/data, read once (it is never modified)."""
    return load_catalog()


# The options last looked up and their catalogue. A game's options are fixed when it is created (replays and
# tests switch only `auto_chance`, which the catalogue does not read), so a game played in place asks with the
# same mapping thousands of times and is answered by one comparison; a copied state has a mapping of its own
# and is looked up once (docs/bench/rules.md, "Letters of Marque, round 6").
_last: tuple[object, Catalog | None] = (None, None)


def catalog(d: State) -> Catalog:
    """The catalogue a game plays with: the sample set, or the user's files named in its options."""
    global _last
    o = d["options"]
    last_options, last = _last
    if o is last_options and last is not None:
        return last
    cat = _catalog_of(o)
    _last = (o, cat)
    return cat


def _catalog_of(o: dict[str, Any]) -> Catalog:
    if "deep_legends" in o:  # the saga's Advancements and Merchants join the cards (docs/deep-legends.md)
        from rules.dead_reckoning.expansions import saga_part  # the saga's data: imported when named

        saga_cards: Catalog = saga_part("cards").saga_catalog(o)
        return saga_cards
    if o["cards_file"] is None and o["boards_file"] is None and o["upgrades_file"] is None:
        exp = o.get("expansions")
        if exp is None:
            return default_catalog()
        got = _BY_EXPANSIONS.get(exp[0] if len(exp) == 1 else tuple(exp))
        if got is not None:
            return got
    return load_catalog(o["cards_file"], o["boards_file"], o["upgrades_file"], tuple(o.get("expansions", ())))


def building_cost(cat: Catalog, board: str | None, kind: str) -> int:
    """A Building's Cargo cost on the island of `board`: a board may multiply it (`building_cost_factor`,
    Deep Legends' Golden Island: "the cost of all Buildings added to this island is doubled")."""
    factor: int = cat.boards[board].get("building_cost_factor", 1) if board else 1
    return cat.building_costs[kind] * factor


def card_icons(cat: Catalog, card: SailorCard) -> dict[str, int]:
    """Icons visible on one Sailor card: its level's icons plus those of the Advancements in its sleeve.
    Memoised in the catalogue on what the card is (a read-only result: callers must not modify it)."""
    sl = card["slots"]
    key = (card["sailor"], card["level"], sl["top"], sl["middle"], sl["bottom"])
    got = cat.icons_memo.get(key)
    if got is None:
        got = dict(cat.sailors[card["sailor"]][card["level"] - 1].get("icons", {}))
        for adv in sl.values():
            if adv:
                for k, n in cat.cards[adv].get("icons", {}).items():
                    got[k] = got.get(k, 0) + n
        cat.icons_memo[key] = got
    return got


def card_abilities(cat: Catalog, cid: str, card: SailorCard) -> list[tuple[str, dict[str, Any]]]:
    """(ability id, ability) for every ability on the card: `<card>:L<level>:<i>` and `<card>:<adv>:<i>`.
    Memoised like `card_icons` (read-only)."""
    sl = card["slots"]
    key = (cid, card["sailor"], card["level"], sl["top"], sl["middle"], sl["bottom"])
    got = cat.abilities_memo.get(key)
    if got is None:
        got = [
            (f"{cid}:L{card['level']}:{i}", a)
            for i, a in enumerate(cat.sailors[card["sailor"]][card["level"] - 1].get("abilities", []))
        ]
        for slot in ("top", "middle", "bottom"):
            adv = sl[slot]
            if adv:
                got += [(f"{cid}:{adv}:{i}", a) for i, a in enumerate(cat.cards[adv].get("abilities", []))]
        cat.abilities_memo[key] = got
    return got


def played_icons(cat: Catalog, p: PlayerBoard, icon: str) -> int:
    n = 0
    cards = p["cards"]
    for c in p["played"]:  # a plain loop: a generator costs a call per card (this runs after most actions)
        n += card_icons(cat, cards[c]).get(icon, 0)
    return n
