"""The game's words for the tablets: every button, card, square, hold and achievement as the rulebook and
the card data name it, never an engine id.

Owns the text only, built in this one place (docs/display.md, "In the game's words"): the controller
adds it to the payloads it publishes (`decorate_public`, `decorate_private`, `decorate_prompts`, called
from controller/core.py); the pages show it and send back the engine's action objects unchanged. It holds
no rule: what is legal, what undo takes back and what the game scored are the engine's answers; this
module only reads the catalogue (rules/data/*.json) and the views to name them.
"""

from __future__ import annotations

import functools
import re
from typing import Any

from controller import deep_legends_words as dlw
from controller.games import add_event_texts
from rules.dead_reckoning.expansions import expansion

SQUARE_RE = re.compile(r"^r(\d+)c(\d+)$")
# Looked up by whatever the engine's JSON holds (a missing key is None): any key, a default for the unknown.
ICON_NAMES: dict[Any, tuple[str, ...]] = {
    "sail": ("Sail", "Sails"),
    "cannon": ("Cannon", "Cannons"),
    "wheel": ("Wheel", "Wheels"),
    "attack_flag": ("Attack Flag", "Attack Flags"),
    "bonus_draw": ("Draw bonus", "Draw bonuses"),
}
ICON_SIGNS = {"sail": "⛵", "cannon": "💣", "wheel": "☸", "attack_flag": "⚑", "bonus_draw": "🂠"}
# The Achievements as the rulebook's Achievements section states them (sentence per requirement).
ACHIEVEMENTS: dict[Any, tuple[str, str]] = {
    "legendary": ("Legendary", "Win 4 non-Building battles with your Ship."),
    "expert_sailors": ("Expert Sailors", "Have 3 cards of level 4."),
    "terror_of_the_sea": ("Terror of the Sea", "Sink a Ship."),
    "builder": ("Builder", "Own 5 or more Buildings."),
    "capitalist": ("Capitalist", "Have 30 or more Coins in your Treasure chest."),
    "settler": ("Settler", "Have a total of 6 or more permanent cubes across islands."),
    "elite_vessel": ("Elite Vessel", "Acquire 4 Ship Upgrades."),
    "explorer": ("Explorer", "Explore {n} Ocean boards."),
    "master_merchant": ("Master Merchant", "Return 12 Cargo from your Ship and/or Dock tile to the supply."),
}
# The Scoring section's categories, in its order (keys of rules/scoring.py's per-player scores).
SCORE_CATEGORIES = [
    ("achievements", "Achievements"),
    ("bonus_token", "Bonus Achievement token"),
    ("coins", "Coins (chest, Ship, islands)"),
    ("buildings", "Buildings"),
    ("upgrades", "Ship Upgrades"),
    ("advancement_effects", "End of game Advancements"),
    ("advancements", "Advancements"),
    ("islands", "Islands"),
]
BUILDING_NAMES = {"fort": "Fort", "garrison": "Garrison", "outpost": "Outpost"}
SLOT_NAMES = {"top": "top", "middle": "middle", "bottom": "bottom"}


def plural(n: int, one: str, many: str | None = None) -> str:
    return f"{n} {one if n == 1 else (many or one + 's')}"


def cargo_coins(cargo: int = 0, coins: int = 0) -> str:
    parts = [plural(cargo, "Cargo", "Cargo") if cargo else "", plural(coins, "Coin") if coins else ""]
    return " and ".join(p for p in parts if p) or "nothing"


@functools.lru_cache(maxsize=512)
def title(key: str) -> str:
    """'first-mate' -> 'First Mate' (Sailor kinds and board names are written this way in the rulebook)."""
    return " ".join(w.capitalize() for w in re.split(r"[-_\s]+", str(key)) if w)


def player_name(color: str | None) -> str:
    return title(color or "") or "?"


# --------------------------------------------------------------------------- the ocean


def square_place(sq: str) -> str:
    """'r1c2' -> 'row 1, column 2'."""
    m = SQUARE_RE.match(str(sq))
    return f"row {m.group(1)}, column {m.group(2)}" if m else str(sq)


def board_name(board: str | None) -> str:
    """'island-09' -> 'Island 9'; 'open-sea-c' -> 'Open sea C'."""
    if not board:
        return "Unexplored"
    m = re.match(r"^island-0*(\d+)$", board)
    if m:
        return f"Island {m.group(1)}"
    m = re.match(r"^open-sea-(\w+)$", board)
    if m:
        return f"Open sea {m.group(1).upper()}"
    return title(board)


def square_name(view: dict[str, Any], sq: str) -> str:
    """'Island 9 (row 1, column 2)', 'the Harbor', 'an unexplored square (row 2, column 1)'."""
    if sq == "harbor":
        return "the Harbor"
    cell = (view.get("grid") or {}).get(sq) or {}
    if not cell.get("board"):
        return f"an unexplored square ({square_place(sq)})"
    return f"{board_name(cell['board'])} ({square_place(sq)})"


def square_short(view: dict[str, Any], sq: str) -> str:
    if sq == "harbor":
        return "Harbor"
    cell = (view.get("grid") or {}).get(sq) or {}
    return board_name(cell.get("board")) if cell.get("board") else "Unexplored"


def squares_words(cat: Any, view: dict[str, Any]) -> dict[str, dict[str, Any]]:
    out: dict[str, dict[str, Any]] = {}
    for sq, cell in (view.get("grid") or {}).items():
        board = cell.get("board")
        m = SQUARE_RE.match(sq)
        w: dict[str, Any] = {
            "name": square_short(view, sq),
            "label": square_name(view, sq),
            "place": square_place(sq),
            "row": int(m.group(1)) if m else 0,
            "col": int(m.group(2)) if m else 0,
            "explored": bool(board),
        }
        spec = cat.boards.get(board) if board else None
        if spec:
            w["kind"] = spec["kind"]
            if spec["kind"] == "island":
                w["slots"] = spec["slots"]
                w["scores"] = list(spec["scores"])
                w["production"] = (
                    "produces "
                    f"{cargo_coins(spec['production'].get('cargo', 0), spec['production'].get('coins', 0))}"
                )
                w["text"] = (
                    f"{w['production']}; scores {' / '.join(map(str, spec['scores']))} Coins for the most "
                    "cubes" + ("; hand-limit icon" if spec.get("hand_limit") else "")
                )
            else:
                arrows = ", ".join(spec.get("arrows") or []) or "none"
                w["text"] = f"open sea, arrows {arrows}"
        if cell.get("card"):
            c = cell["card"]
            w["card"] = (
                f"Merchant ship ({c['name']} on its front)"
                if c.get("merchant")
                else f"{c['name']} (Advancement, {c['slot']} slot) — {plural(c['cost'], 'Cargo', 'Cargo')}"
            )
        if cell.get("island"):
            w["buildings"] = [BUILDING_NAMES.get(b, title(b)) for b in cell["island"].get("buildings", [])]
        out[sq] = w
    return out


# --------------------------------------------------------------------------- cards and abilities


def icons_text(icons: dict[str, int] | None) -> str:
    bits = []
    for k, n in (icons or {}).items():
        if n:
            one, many = ICON_NAMES.get(k, (title(k), title(k) + "s"))
            bits.append(f"{n} {one if n == 1 else many}")
    return ", ".join(bits)


def effect_text(e: dict[str, Any]) -> str:
    do = e.get("do")
    n = int(e.get("amount", 1) or 0)
    if do == "gain":
        what = e.get("what")
        thing = plural(n, "Cargo", "Cargo") if what == "cargo" else plural(n, "Coin")
        to = e.get("to")
        if to == "dock":
            where = "onto your Dock" if what == "cargo" else "into your Treasure chest"
        elif to == "ship":
            where = "onto your Ship"
        else:
            where = "onto your Dock or Ship"
        per = e.get("per")
        tail = f" for each {ICON_NAMES.get(per, (title(per),))[0]} on this card" if per else ""
        return f"gain {thing} {where}{tail}"
    if do == "influence":
        return f"place {plural(n, 'Influence cube')}"
    if do == "produce":
        boost = e.get("boost") or {}
        extra = (
            f" (each also gains {cargo_coins(boost.get('cargo', 0), boost.get('coins', 0))})" if boost else ""
        )
        return f"produce on up to {plural(n, 'island')}{extra}"
    if do == "build":
        return f"build up to {plural(n, 'Building')}"
    if do == "upgrade":
        return f"take a {str(e.get('category', '')).capitalize()} Ship Upgrade"
    if do == "repair":
        return f"repair {plural(n, 'Damage', 'Damage')}"
    if do == "sails":
        return f"{plural(n, 'extra Sail')}"
    return title(str(do)).lower()


BATTLE_TEXT = {
    "drop_extra_cubes": lambda p: f"drop {plural(int(p.get('cubes', 1)), 'extra Battle cube')}",
    "move_cube_adjacent": lambda p: "move 1 cube to an adjacent zone",
    "remove_cube_for_damage_and_coins": lambda p: (
        f"remove 1 of your cubes from the board to deal "
        f"{plural(int(p.get('damage', 0)), 'Damage', 'Damage')} and gain "
        f"{plural(int(p.get('coins', 0)), 'Coin')}"
    ),
    "coins_per_wheel_on_win": lambda p: (
        "if you win, gain "
        + (
            f"{plural(int(p.get('coins', 0)), 'Coin')} for each Wheel"
            if p.get("per_wheel")
            else plural(int(p.get("coins", 0)), "Coin")
        )
        + (" (Ship battles only)" if p.get("ship_battles_only") else "")
    ),
    "extra_damage": lambda p: "deal 1 extra Damage",
    "redrop_cube": lambda p: "drop 1 of your cubes again",
}


def battle_text(effect: str, params: dict[str, Any] | None) -> str:
    f = BATTLE_TEXT.get(effect)
    return f"BATTLE: {f(params or {}) if f else title(effect).lower()}"


def ability_text(ab: dict[str, Any]) -> str:
    """One ability in words: 'gain 1 Cargo onto your Dock', 'pay 2 Cargo (Ship or Dock): repair 1 Damage'."""
    if "battle" in ab:
        return battle_text(ab["battle"], ab.get("params"))
    if "choice" in ab:
        return " / ".join(ability_text(alt) for alt in ab["choice"])
    text = ", then ".join(effect_text(e) for e in ab.get("effects", []))
    pay = ab.get("pay")
    if pay and pay.get("cargo"):
        src = "Ship or Dock" if pay.get("from") == "ship_or_dock" else "Ship"
        text = f"pay {plural(int(pay['cargo']), 'Cargo', 'Cargo')} ({src}): {text}"
    if ab.get("where") == "harbor":
        text += " (in Harbor only)"
    return text


def scoring_text(rule: dict[str, Any]) -> str:
    kind, coins = rule.get("score"), int(rule.get("coins", 0))
    if kind == "per_cargo":
        return f"end of game: {plural(coins, 'Coin')} for every {rule.get('per')} Cargo you own"
    if kind == "per_island_without_cubes":
        return f"end of game: {plural(coins, 'Coin')} for every island where you have no cubes"
    if kind == "per_icon":
        icon = ICON_NAMES.get(rule.get("icon"), ("icon",))[0]
        return f"end of game: {plural(coins, 'Coin')} for each {icon} on this card"
    return f"end of game: {plural(coins, 'Coin')}"


def card_name(card: dict[str, Any]) -> str:
    """'Crew (level 1)'."""
    return f"{title(card.get('sailor', '?'))} (level {card.get('level', '?')})"


def advancement_words(cat: Any, adv: str) -> dict[str, Any]:
    c = cat.cards.get(adv) or {}
    return {
        "name": c.get("name", "an Advancement"),
        "slot": c.get("slot"),
        "cost": c.get("cost"),
        "icons": icons_text(c.get("icons")),
        "abilities": [ability_text(a) for a in c.get("abilities", [])],
        "scoring": [scoring_text(r) for r in c.get("scoring", [])],
    }


_CARD_MEMO: dict[tuple, dict[str, Any]] = {}


def card_words(cat: Any, card: dict[str, Any]) -> dict[str, Any]:
    """A Sailor card as the player reads it: name, level, icons (its level's and its sleeve's), ability text.
    Memoised on what the card is (every publish names every known card; the result is read-only)."""
    sl = card.get("slots") or {}
    key = (id(cat), card.get("sailor"), card.get("level"), sl.get("top"), sl.get("middle"), sl.get("bottom"))
    got = _CARD_MEMO.get(key)
    if got is None:
        if len(_CARD_MEMO) > 4096:
            _CARD_MEMO.clear()
        got = _CARD_MEMO[key] = _card_words(cat, card)
    return got


def _card_words(cat: Any, card: dict[str, Any]) -> dict[str, Any]:
    kind, level = card.get("sailor"), int(card.get("level") or 1)
    levels = cat.sailors.get(kind) or []
    spec = levels[level - 1] if 0 < level <= len(levels) else {}
    icons = dict(spec.get("icons", {}))
    sleeved = []
    for slot in ("top", "middle", "bottom"):
        adv = (card.get("slots") or {}).get(slot)
        if adv:
            w = advancement_words(cat, adv)
            sleeved.append({"slot": slot, **w})
            for k, n in ((cat.cards.get(adv) or {}).get("icons") or {}).items():
                icons[k] = icons.get(k, 0) + n
    nxt = levels[level] if level < len(levels) else None
    return {
        "name": title(kind or "?"),
        "level": level,
        "title": card_name(card),
        "icons": icons,
        "icons_text": icons_text(icons),
        "abilities": [ability_text(a) for a in spec.get("abilities", [])],
        "sleeved": sleeved,
        "next_level": (
            f"level {level + 1}: "
            + (
                "; ".join(ability_text(a) for a in nxt.get("abilities", []))
                or icons_text(nxt.get("icons"))
                or "no ability"
            )
        )
        if nxt
        else None,
    }


def ability_owner(cat: Any, cards: dict[str, dict[str, Any]], aid: str) -> tuple[str, dict[str, Any] | None]:
    """'crew-1:L1:0' -> ('Crew (level 1)', the ability); 'crew-1:r1-03:0' -> ('Quartermaster on Crew (level
    1)', ...)."""
    parts = str(aid).split(":")
    if len(parts) != 3:
        return "an ability", None
    cid, src, idx = parts
    card = cards.get(cid)
    if card is None:
        return "a card", None
    try:
        i = int(idx)
    except ValueError:
        return card_name(card), None
    if src.startswith("L"):
        levels = cat.sailors.get(card.get("sailor")) or []
        lvl = int(card.get("level") or 1)
        abl = levels[lvl - 1].get("abilities", []) if 0 < lvl <= len(levels) else []
        return card_name(card), abl[i] if i < len(abl) else None
    adv = cat.cards.get(src) or {}
    abl = adv.get("abilities", [])
    return f"{adv.get('name', 'an Advancement')} on {card_name(card)}", abl[i] if i < len(abl) else None


# --------------------------------------------------------------------------- actions


def hold_name(h: Any) -> str:
    """Holds are numbered from 1 everywhere (the engine's index 0 is hold 1), as its refusals say."""
    try:
        return f"hold {int(h) + 1}"
    except (TypeError, ValueError):
        return "a hold"


def _args_text(cat: Any, view: dict[str, Any], args: dict[str, Any]) -> str:
    bits = []
    if args.get("islands"):
        bits.append("on " + ", ".join(square_short(view, s) for s in args["islands"]))
    for b in args.get("builds") or []:
        bits.append(
            f"a {BUILDING_NAMES.get(b.get('building'), title(b.get('building', '')))} on "
            f"{square_short(view, b.get('square', ''))}"
        )
    if args.get("tile"):
        t = cat.upgrades.get(args["tile"]) or {}
        bits.append(f"the {tile_title(args['tile'], t)} tile ({icons_text(t.get('icons'))})")
    if args.get("space") is not None:
        bits.append(f"on hull space {int(args['space']) + 1}")
    if args.get("replace"):
        bits.append("replacing " + ", ".join(f"{player_name(c)}'s cube" for c in args["replace"]))
    if args.get("take_from"):  # out of cubes: which island's non-permanent cube the player takes back
        bits.append(
            "your cube taken back from " + ", ".join(square_short(view, s) for s in args["take_from"])
        )
    return "; ".join(bits)


def action_words(
    cat: Any, view: dict[str, Any], player: str, a: dict[str, Any], cards: dict[str, dict[str, Any]]
) -> dict[str, Any]:
    """{label, confirm?, square?} for one legal action of `player` (view: their private view)."""
    # Long on purpose: one short branch per action type, a flat table of sentences; splitting it would scatter
    # the wording of one screen.
    t = a.get("type")
    me = (view.get("p") or {}).get(player) or {}
    at = (me.get("ship") or {}).get("at")
    you = view.get("you") or {}
    out: dict[str, Any] = {}

    def named(cid: Any) -> str:
        c = cards.get(cid)
        return card_name(c) if c else "a Sailor card"

    if t == "move":
        path = a.get("path") or []
        dest = path[-1] if path else "?"
        sails = len(path)
        label = f"Sail to {square_name(view, dest)} — {plural(sails, 'Sail')}"
        if dest != "harbor" and not ((view.get("grid") or {}).get(dest) or {}).get("board"):
            label += " (explores it)"
        if len(path) > 1:
            label += " via " + ", ".join(square_short(view, s) for s in path[:-1])
        if a.get("fight_order"):
            label += "; fight " + ", then ".join(f"{player_name(c)}'s Ship" for c in a["fight_order"])
        out["square"] = dest
        out["label"] = label
    elif t == "set_sails":
        n = you.get("sails_if_set_now")
        out["label"] = "Set Sails" + (f" ({plural(n, 'Sail')})" if isinstance(n, int) else "")
    elif t == "play_card":
        c = cards.get(a["card"]) if isinstance(a.get("card"), str) else None
        w = card_words(cat, c) if c else None
        out["label"] = f"Play {named(a.get('card'))}" + (
            f": {'; '.join(w['abilities'])}" if w and w["abilities"] else ""
        )
    elif t == "level_up":
        c = cards.get(a["card"]) if isinstance(a.get("card"), str) else None
        out["label"] = (
            f"Level up {title(c.get('sailor', '?'))} from level {c.get('level')} to "
            f"{int(c.get('level') or 0) + 1}"
            if c
            else "Level up a Sailor card"
        )
    elif t == "use_ability":
        owner, ab = ability_owner(cat, cards, a.get("ability", ""))
        if (
            ab is not None
            and "choice" in ab
            and isinstance(a.get("choice"), int)
            and a["choice"] < len(ab["choice"])
        ):
            text = ability_text(ab["choice"][a["choice"]])
        else:
            text = ability_text(ab) if ab is not None else "use its ability"
        extra = _args_text(cat, view, a.get("args") or {})
        out["label"] = f"{owner}: {text}" + (f" ({extra})" if extra else "")
    elif t in ("load", "unload"):
        what = cargo_coins(int(a.get("cargo") or 0), int(a.get("coins") or 0))
        place = "your Dock" if at == "harbor" else square_short(view, at) if at else "here"
        if t == "load":
            out["label"] = f"Load {what} from {place} into {hold_name(a.get('hold'))}"
        else:
            out["label"] = f"Unload {what} from {hold_name(a.get('hold'))} onto {place}"
    elif t == "jettison":  # offered to make room for a gain owed to a full Ship (choices.py)
        out["label"] = choice_option_label(view, a)
    elif t == "buy":
        card = ((view.get("grid") or {}).get(at) or {}).get("card") or {}
        if a.get("card"):  # a logged buy names its card (the square no longer shows it)
            c = cat.cards.get(a["card"]) or {}
            card = {"name": c.get("name"), "slot": c.get("slot"), "cost": c.get("cost")}
        out["label"] = (
            f"Buy {card.get('name', 'the Advancement')} ({card.get('slot', '?')} slot) — "
            f"{plural(int(card.get('cost') or 0), 'Cargo', 'Cargo')}"
        )
    elif t == "attack_merchant":
        out["label"] = "Attack the Merchant ship here"
        out["confirm"] = "Attack the Merchant ship? The battle starts at once and cannot be undone."
    elif t == "attack":
        out["label"] = f"Attack {player_name(a.get('target'))}'s Ship"
        out["confirm"] = f"Attack {player_name(a.get('target'))}'s Ship? The battle cannot be undone."
    elif t == "attack_building":
        isl = ((view.get("grid") or {}).get(at) or {}).get("island") or {}
        kinds = [BUILDING_NAMES.get(b, b) for b in isl.get("buildings", []) if b in ("fort", "garrison")]
        out["label"] = (
            f"Attack the {' and '.join(kinds) or 'Buildings'} of {player_name(isl.get('controller'))}"
        )
        out["confirm"] = f"{out['label']}? The battle cannot be undone."
    elif t == "master_merchant":
        out["label"] = "Return 12 Cargo for the Master Merchant Achievement"
        out["confirm"] = "Return 12 Cargo to the supply for Master Merchant?"
    elif t == "end_turn":
        sleeve = a.get("sleeve") or []
        label = "End turn and raise the Pirate flag" if a.get("pirate") else "End turn"
        if sleeve:
            label += "; sleeve " + ", ".join(
                f"{(cat.cards.get(s.get('advancement')) or {}).get('name', 'an Advancement')} onto "
                f"{named(s.get('card'))}"
                for s in sleeve
            )
        out["label"] = label
        out["confirm"] = (
            "End your turn with the Pirate flag raised (Pirate mode)? Ending the turn cannot be undone."
            if a.get("pirate")
            else "End your turn? It cannot be undone."
        )
    elif t == "choose_bonus":
        out["label"] = "Keep the Bonus token: " + " + ".join(
            ACHIEVEMENTS.get(x, (title(x), ""))[0] for x in (a.get("token") or [])
        )
    elif t == "draw_advancement":
        c = cat.cards.get(a.get("card")) or {}
        name = c.get("name") or (
            f"Saga card {a.get('card')}" if view.get("deep_legends") else "An Advancement"
        )
        out["label"] = f"{name} was turned up on {square_name(view, a.get('square', ''))}"
    elif t == "choose_first_player":
        out["label"] = f"{player_name(a.get('first'))} goes first"
    elif t == "draw_sailors":
        out["label"] = f"I drew {plural(len(a.get('cards') or []), 'card')}"
    elif t == "deal_bonus":
        out["label"] = "Deal the Bonus Achievement tokens"
    elif t == "reveal_board":
        out["label"] = f"{board_name(a.get('board'))} was turned up at {square_place(a.get('square', ''))}"
    elif t == "undo":
        out["label"] = "Undo"
    elif t == "choose":
        out["label"] = choice_option_label(view, a)
    elif t in LOM_ACTIONS:
        out.update(lom_action_words(view, player, a, named))
    elif t in dlw.DL_ACTIONS:  # Deep Legends (controller/deep_legends_words.py)
        out.update(dlw.action_words(view, player, a))
    else:
        out["label"] = title(str(t))
    return out


# Letters of Marque's actions (rules/dead_reckoning/letters_of_marque): their words on the tablets
LOM_ACTIONS = frozenset(a.type for a in expansion("letters-of-marque").actions)
PRIME_REWARDS = {
    "draw": "draw a card",
    "cargo": "gain 1 Cargo",
    "sail": "gain a Sail",
    "attack_flag": "gain an Attack Flag",
    "repair": "repair 1 Damage",
    "produce": "an island produces",
    "influence": "gain 1 Influence",
    "cannon": "gain a Cannon",
}


def prime_name(token: Any) -> str:
    """A Prime Cargo token as people call it (its type), e.g. "Moon Salt"."""
    from rules.dead_reckoning.letters_of_marque.data import lom_data

    spec = lom_data().tokens.get(token) if isinstance(token, str) else None
    return lom_data().names[spec["type"]] if spec else "Prime Cargo"


def empire_name(empire: Any) -> str:
    from rules.dead_reckoning.letters_of_marque.data import lom_data

    spec = lom_data().empires.get(empire) if isinstance(empire, str) else None
    return str(spec["name"]) if spec else "the Empire"


def lom_action_words(
    view: dict[str, Any], player: str, a: dict[str, Any], named: Any = None
) -> dict[str, Any]:
    from rules.dead_reckoning.letters_of_marque.data import lom_data

    t = a.get("type")
    tok = a.get("token")
    where = "on the island" if a.get("part") == "island" else "in the water"
    if t == "discover_prime_cargo":
        if a.get("source") == "outpost":
            return {
                "label": f"Turn over Prime Cargo on the island at {square_place(a.get('square', ''))} "
                "(Bolstered Outpost)"
            }
        return {"label": f"Discover a Prime Cargo {where} here (Prime Discovery)"}
    if t == "flip_prime_cargo":
        return {"label": f"It is {token_text(tok)}"}
    if t == "load_prime":
        return {"label": f"Load {prime_name(tok)} into {hold_name(a.get('hold'))}"}
    if t == "unload_prime":
        return {"label": f"Unload {prime_name(tok)} to your Harbor"}
    if t == "discard_prime":
        spec = lom_data().tokens.get(tok) if isinstance(tok, str) else None
        reward = PRIME_REWARDS.get(spec["reward"], "its reward") if spec else "its reward"
        return {"label": f"Discard {prime_name(tok)}: {reward}"}
    if t == "trade_favour":
        return {"label": f"Trade {prime_name(tok)} to {empire_name(a.get('empire'))} for 1 Favor"}
    if t == "claim":
        claim = _claim_of(view, player, a.get("index"))
        return {"label": "Take " + _claim_text(claim, a.get("args") or {}, named)}
    if t == "decline":
        return {"label": "Decline the reward", "confirm": "Give up this reward for good?"}
    if t == "bolster_outpost":
        return {"label": f"Bolster the Outpost at {square_place(a.get('square', ''))} with 1 Moon Salt"}
    if t == "outpost_to_harbor":
        n = len(a.get("tokens") or [])
        return {
            "label": f"Move {plural(n, 'Prime Cargo', 'Prime Cargo')} from the Bolstered Outpost to your "
            "Harbor"
        }
    if t == "drop_saga_die":
        return {"label": "Drop the Saga die into the tower (Hallowed Gun)"}
    if t == "saga_die":
        return {"label": f"It shows {a.get('face')}"}
    return {"label": "Lay out the Favor Reward tokens as the table view then shows them"}


def _claim_of(view: dict[str, Any], player: str, index: Any) -> dict[str, Any]:
    """The claim a `claim` action settles, from the expansion's part of the view."""
    x = ((view.get("expansions") or {}).get("letters-of-marque") or {}).get("players") or {}
    claims = (x.get(player) or {}).get("claims") or []
    return claims[index] if isinstance(index, int) and 0 <= index < len(claims) else {}


def _claim_text(claim: dict[str, Any], args: dict[str, Any], named: Any = None) -> str:
    """What taking a claim gives, with the choice its arguments make (never an engine id)."""
    from rules.dead_reckoning.letters_of_marque.data import lom_data

    data = lom_data()
    if "letter" in args:
        return f"the {letter_name(args['letter'])}"
    if claim.get("kind") == "overtake":
        return (
            f"{player_name(claim.get('from'))}'s Letter of Marque of {empire_name(claim.get('empire'))} "
            "(you overtook them; yours goes to them)"
        )
    if "square" in args and "building" in args:
        return f"a free {BUILDING_NAMES.get(args['building'], 'Building')} at {square_place(args['square'])}"
    if "square" in args:
        return f"an Undiscovered Prime Cargo onto the island at {square_place(args['square'])}"
    reward = data.rewards.get(claim.get("reward", "")) or {}
    if "choice" in args and isinstance(reward.get("choice"), list):
        i = args["choice"]
        alts = reward["choice"]
        if isinstance(i, int) and 0 <= i < len(alts):
            return reward_text(alts[i])
    if "card" in args:
        return f"the Favor Reward: level up {named(args['card']) if named else 'a Sailor card'}"
    if "tile" in args:
        where = " covering your first Ship Upgrade space" if args.get("space") == 1 else ""
        return f"the Favor Reward: the Ship Upgrade {upgrade_name(args['tile'])}{where}"
    if reward:
        where = " covering your first Ship Upgrade space" if args.get("space") == 1 else ""
        return f"the Favor Reward: {reward_text(reward)}{where}"
    return "your reward"


def letter_name(letter: Any) -> str:
    """'Swift Passage (Empire A's Letter of Marque)'."""
    from rules.dead_reckoning.letters_of_marque.data import lom_data

    spec = lom_data().letters.get(letter) if isinstance(letter, str) else None
    if not spec:
        return "Letter of Marque"
    name = str(spec["name"]).removeprefix("Letter of Marque: ")
    return f"Letter of Marque “{name}” of {empire_name(spec['empire'])}"


def tile_title(tile: str, spec: dict[str, Any]) -> str:
    """A Ship Upgrade tile's name: the data's own (an expansion's tiles print one: "Hallowed Gun"), else its
    id in words (the base game's sample tiles have none)."""
    return str(spec.get("name") or title(tile))


def upgrade_name(tile: Any) -> str:
    from rules.dead_reckoning.letters_of_marque.data import lom_data

    for t in lom_data().cards["upgrades"]:
        if t["id"] == tile:
            return str(t["name"])
    return title(str(tile).removeprefix("lom-"))


def reward_text(r: dict[str, Any]) -> str:
    """A Favor Reward token's (or one of its choices') printed reward as a sentence part."""
    if "gain" in r:
        g = r["gain"]
        return cargo_coins(int(g.get("cargo") or 0), int(g.get("coins") or 0))
    if "draw" in r:
        return f"draw {plural(int(r['draw']), 'card')}"
    if "repair" in r:
        return f"repair {plural(int(r['repair']), 'Damage', 'Damage')}"
    if "choice" in r:
        return " or ".join(reward_text(x) for x in r["choice"])
    if "upgrade" in r:
        return f"a {title(str(r['upgrade']))} Ship Upgrade"
    if "upgrade_tile" in r:
        return f"the Ship Upgrade {upgrade_name(r['upgrade_tile'])}"
    if "level_up" in r:
        return "level up a Sailor card"
    if "building" in r:
        return "a free Building"
    return "a reward"


EDGE_NAMES = {"N": "north", "S": "south", "E": "east", "W": "west", "any": "any island"}


def token_text(token: Any) -> str:
    """A Prime Cargo token as people see it face up: its type, its discard reward and its edge icons."""
    from rules.dead_reckoning.letters_of_marque.data import lom_data

    spec = lom_data().tokens.get(token) if isinstance(token, str) else None
    if not spec:
        return "Prime Cargo"
    edges = [
        f"{'any island' if d == 'any' else EDGE_NAMES[d] + ' ' + kind}"
        for d, kind in sorted(spec["edges"].items())
    ]
    text = f"{prime_name(token)}, discard: {PRIME_REWARDS.get(spec['reward'], 'its reward')}"
    return text + (f"; edge icon: {', '.join(edges)}" if edges else "")


def lom_words(state: Any, view: dict[str, Any]) -> dict[str, Any] | None:
    """The expansion's words for the tablets' Empire tracks and Prime Cargo (letters_of_marque.js): names of
    the Empires, Prime Cargo types, Favor Rewards and Letters of Marque, each player's claims as sentences,
    and how the table learns what a token or the Saga die shows."""
    x = (view.get("expansions") or {}).get("letters-of-marque")
    if not x:
        return None
    from rules.dead_reckoning.letters_of_marque.data import lom_data

    data = lom_data()
    data_opts = getattr(state, "data", None)
    options = data_opts.get("options", {}) if isinstance(data_opts, dict) else {}
    by_hand = not options.get("auto_chance", True)
    return {
        "empires": {
            e: {"name": spec["name"], "wants": " or ".join(data.names[t] for t in spec["wants"])}
            for e, spec in data.empires.items()
        },
        "types": dict(data.names),
        "prime_rewards": dict(PRIME_REWARDS),
        "rewards": {rid: reward_text(r) for rid, r in data.rewards.items()},
        "letters": {
            lid: {
                "name": letter_name(lid),
                "short": str(spec["name"]).removeprefix("Letter of Marque: "),
                "icons": icons_text(spec.get("icons")),
            }
            for lid, spec in data.letters.items()
        },
        "claims": {
            c: [claim_text(cl) for cl in (p.get("claims") or [])] for c, p in (x.get("players") or {}).items()
        },
        # No camera reads a Prime Cargo token or the Saga die yet: a person reports them on a tablet, or the
        # engine draws them (simulation and tables set to draw chance).
        "sensors": {
            "prime_cargo": "a tablet (tap what the token shows)" if by_hand else "drawn by the table",
            "saga_die": "a tablet (tap the face it shows)" if by_hand else "drawn by the table",
        },
    }


def claim_text(claim: dict[str, Any]) -> str:
    """A claim owed to a player, as the prompt's question."""
    kind = claim.get("kind")
    if kind == "letter":
        return f"Take a Letter of Marque of {empire_name(claim.get('empire'))}"
    if kind == "overtake":
        return (
            f"You overtook {player_name(claim.get('from'))} on {empire_name(claim.get('empire'))}'s track: "
            "take their Letter of Marque"
        )
    if kind == "any_island":
        return "Add an Undiscovered Prime Cargo to any island"
    from rules.dead_reckoning.letters_of_marque.data import lom_data

    reward = lom_data().rewards.get(claim.get("reward", "")) or {}
    return f"Favor Reward: {reward_text(reward)}"


# --------------------------------------------------------------------------- payloads


def _catalog(state: Any) -> Any:
    from rules.dead_reckoning.cards import catalog

    return catalog(state.data)


def achievements_words(cat: Any, view: dict[str, Any]) -> dict[str, dict[str, Any]]:
    out = {}
    n_players = len(view.get("players") or [])
    for a in view.get("achievements") or {}:
        name, req = ACHIEVEMENTS.get(a, (title(a), ""))
        if "{n}" in req:
            req = req.replace("{n}", str(cat.explorer_needed.get(str(n_players), "?")))
        out[a] = {"name": name, "requirement": req, "coins": cat.achievements.get(a)}
    return out


def score_table(view: dict[str, Any]) -> dict[str, Any] | None:
    """The engine's scores as rows per category (its numbers; the order and the tie-break sentence are the
    rulebook's). None until the game is scored."""
    s = view.get("scores")
    if not isinstance(s, dict) or "scores" not in s:
        return None
    players = list(view.get("players") or s["scores"].keys())
    per = s["scores"]
    known = {k for k, _ in SCORE_CATEGORIES}
    rows: list[dict[str, Any]] = [
        {"key": k, "label": lab, "values": {c: int(per.get(c, {}).get(k, 0)) for c in players}}
        for k, lab in SCORE_CATEGORIES
    ]
    for k in sorted({k for c in players for k in per.get(c, {})} - known):  # a category the engine adds later
        rows.append({"key": k, "label": title(k), "values": {c: int(per[c].get(k, 0)) for c in players}})
    totals = {c: int((s.get("totals") or {}).get(c, sum(r["values"][c] for r in rows))) for c in players}
    order = sorted(players, key=lambda c: -totals[c])
    tied = list(s.get("tie_break_needed") or [])
    winner = s.get("winner")
    shared = list(s.get("shared_win") or [])
    rounds = list(s.get("tie_break") or [])
    if winner and rounds:
        strength = rounds[-1].get("strength", {})
        verdict = (
            f"{player_name(winner)} wins: tied on {plural(totals[winner], 'Coin')}, they had the most Battle "
            f"strength in the tie-break ({strength.get(winner, 0)})."
        )
    elif winner:
        verdict = f"{player_name(winner)} wins with {plural(totals[winner], 'Coin')}."
    elif shared:
        verdict = (
            f"{' and '.join(player_name(c) for c in shared)} share the win: tied on "
            f"{plural(totals[shared[0]], 'Coin')}, and none of them has a cube to drop in the tie-break."
        )
    elif tied and rounds:
        verdict = (
            f"{' and '.join(player_name(c) for c in tied)} are still tied after the tie-break battle: they "
            "drop their cubes in the tower again; the most Battle strength wins the game."
        )
    elif tied:
        verdict = (
            f"{' and '.join(player_name(c) for c in tied)} are tied on {plural(totals[tied[0]], 'Coin')}: "
            "as the rulebook says, each counts the Cannons on their Ship and on all the cards in their deck, "
            "drops that many of their cubes in the tower at once (exploding shots, no Battle abilities); "
            "the most Battle strength wins the game, and a tie is dropped again."
        )
    else:
        verdict = "The game is scored."
    return {
        "players": order,
        "rows": rows,
        "totals": totals,
        "winner": winner,
        "tied": tied,
        "shared_win": shared,
        "tie_break": rounds,
        "verdict": verdict,
    }


PHASES: dict[Any, str] = {
    "setup": "Setup",
    "main": "Main phase",
    "tiebreak": "Tie-break battle",
    "over": "Game over",
}


def waiting_text(view: dict[str, Any], req: dict[str, Any]) -> str:
    """What the table waits for (the engine's pending chance), as a sentence people can act on."""
    kind, who = req.get("kind"), player_name(req.get("player")) if req.get("player") else None
    if kind == "reveal_board":
        return f"the Ocean board at {square_place(req.get('square', ''))} to be turned up"
    if kind == "draw_advancement":
        return f"an Advancement to be turned up on {square_name(view, req.get('square', ''))}"
    if kind == "draw_sailors":
        return f"{who} to draw {plural(int(req.get('count') or 0), 'Sailor card')}"
    if kind == "choose_first_player":
        return "who goes first"
    if kind == "deal_bonus":
        return f"{who}'s Bonus Achievement tokens to be dealt"
    if kind == "flip_prime_cargo":
        return f"the Prime Cargo {who} discovered at {square_place(req.get('square', ''))} to be turned over"
    if kind == "place_favour_rewards":
        return "the Favor Reward tokens to be placed on the Empire boards"
    if kind == "saga_die":
        return f"{who}'s Saga die to be read"
    return title(str(kind)).lower()


def public_words(state: Any, view: dict[str, Any]) -> dict[str, Any]:
    cat = _catalog(state)
    cards: dict[str, dict[str, Any]] = {}
    for color, board in (view.get("p") or {}).items():
        for pile in ("played", "discard"):
            for cid, c in (board.get(pile) or {}).items():
                cards[f"{color}/{cid}"] = card_words(cat, c)
    from rules.dead_reckoning.ship import BASE_HULL, HOLD_CAP, HOLD_SPACE

    ship = {
        "hold_spaces": list(HOLD_SPACE),
        "hold_caps": list(HOLD_CAP),
        "base_icons": [icons_text(i) for i in BASE_HULL],
    }
    return {
        "squares": squares_words(cat, view),
        "achievements": achievements_words(cat, view),
        "ship": ship,
        "players": {c: player_name(c) for c in view.get("players") or []},
        "cards": cards,
        "scores": score_table(view),
        "phase": PHASES.get(view.get("phase"), title(str(view.get("phase") or ""))),
        "waiting": [waiting_text(view, r) for r in view.get("waiting_for") or []],
        "buildings": BUILDING_NAMES,
        "upgrades": {
            t: {"name": tile_title(t, u), "icons": icons_text(u.get("icons")), "category": u.get("category")}
            for t, u in cat.upgrades.items()
        },
        "lom": lom_words(state, view),
        "saga": dlw.public_words(view),  # Deep Legends (None without it)
    }


def undo_offer(
    engine: Any, state: Any, player: str, cards: dict[str, dict[str, Any]], view: dict[str, Any]
) -> dict[str, Any] | None:
    """The engine's undo, offered when the engine would accept it now (it is not among legal_actions):
    {"action": {"type": "undo"}, "label": "Undo: <what it takes back>"}; None otherwise."""
    data = getattr(state, "data", None)
    if not isinstance(data, dict) or data.get("active") != player or not data.get("turn_log"):
        return None
    try:
        engine.apply(state, {"seq": state.seq, "player": player, "action": {"type": "undo"}})
    except Exception:  # noqa: BLE001 - any refusal means the engine does not offer it now
        return None
    last = data["turn_log"][-1].get("action") or {}
    what = (
        action_words(_catalog(state), view, player, last, cards)["label"]
        if last.get("type")
        else "your last action"
    )
    return {"action": {"type": "undo"}, "label": f"Undo: {what}"}


def private_words(
    engine: Any, state: Any, player: str, view: dict[str, Any], legal: list[dict[str, Any]]
) -> dict[str, Any]:
    cat = _catalog(state)
    you = view.get("you") or {}
    board = (view.get("p") or {}).get(player) or {}
    cards = {**(board.get("discard") or {}), **(board.get("played") or {}), **(you.get("hand") or {})}
    deck_cards = {}
    data = getattr(state, "data", None)
    if isinstance(data, dict) and player in data.get("p", {}):
        # the deck's cards are known to their owner (contents, not order): name them as cards too
        for cid in you.get("deck") or []:
            c = data["p"][player]["cards"].get(cid)
            if c:
                deck_cards[cid] = {"sailor": c["sailor"], "level": c["level"], "slots": dict(c["slots"])}
    everything = {**deck_cards, **cards}
    return {
        "actions": [action_words(cat, view, player, a, everything) for a in legal],
        "cards": {cid: card_words(cat, c) for cid, c in everything.items()},
        "set_aside": [advancement_words(cat, x.get("id")) for x in you.get("set_aside") or []],
        "bonus": [ACHIEVEMENTS.get(x, (title(x), ""))[0] for x in (you.get("bonus_token") or [])],
        "undo": undo_offer(engine, state, player, everything, view),
    }


def _source_name(state: Any, player: str | None, source: Any) -> str:
    data = getattr(state, "data", None) or {}
    cards = ((data.get("p") or {}).get(player or "") or {}).get("cards") or {}
    if source in cards:
        return card_name(cards[source])
    for p in (data.get("p") or {}).values():  # a public prompt: the card is someone's
        if source in (p.get("cards") or {}):
            return card_name(p["cards"][source])
    c = _catalog(state).cards.get(source) if data else None
    return c["name"] if c else "a card"


def prompt_words(
    state: Any, view: dict[str, Any], prompt: dict[str, Any], player: str | None = None
) -> dict[str, Any]:
    """Labels for a prompt's options where they are engine ids (squares, ways, cards)."""
    out: dict[str, Any] = {}
    opts = prompt.get("options")
    if isinstance(opts, list):
        labels: list[str | None] = []  # None: an option with no words of its own
        for o in opts:
            if isinstance(o, list):
                labels.append(" → ".join(square_short(view, s) for s in o))
            elif isinstance(o, str) and (SQUARE_RE.match(o) or o == "harbor"):
                labels.append(square_name(view, o))
            elif isinstance(o, str) and o in (view.get("players") or []):
                labels.append(f"{player_name(o)}'s Ship")
            elif isinstance(o, dict) and isinstance(
                o.get("effect"), str
            ):  # a Battle ability, named by its card
                labels.append(
                    f"{_source_name(state, player, o.get('source'))}: "
                    f"{battle_text(o['effect'], o.get('params'))}"
                )
            else:
                labels.append(None)
        if any(labels):
            out["option_labels"] = labels
    cards = prompt.get("cards")
    owner = (getattr(state, "data", {}) or {}).get("p", {}).get(player or "") if player else None
    if isinstance(cards, list) and owner and all(isinstance(c, str) for c in cards):
        out["card_labels"] = [
            card_name(owner["cards"][c]) if c in owner["cards"] else "a Sailor card" for c in cards
        ]
    return out


def _side_name(side: dict[str, Any] | None) -> str:
    name = str((side or {}).get("name") or "?")
    if name.startswith("merchant:"):
        return "the Merchant ship"
    if name.startswith("building:"):
        return "the Buildings"
    return f"{player_name(name)}'s Ship"


def event_text(state: Any, view: dict[str, Any], e: dict[str, Any]) -> str:
    """One line of the game's log as the table view lists it ('Red: Sail to Island 9 ...', 'Blue completes
    Explorer'). `e` is the public event (rules.api.event_view: secrets already removed)."""
    t, who = (
        e.get("type"),
        player_name(e.get("player")) if e.get("player") not in (None, "table", "referee") else None,
    )
    raw = e.get("action")
    a: dict[str, Any] = raw if isinstance(raw, dict) else {}
    isl = lambda sq: square_name(view, sq)  # noqa: E731 - a short local alias
    if t in dlw.DL_EVENTS:
        return dlw.event_text(view, e) or title(str(t))
    if t == "achievement":
        achievement = ACHIEVEMENTS.get(e.get("achievement"), (title(str(e.get("achievement"))), ""))[0]
        return f"{who} completes {achievement}"
    if t == "achievement_cube_owed":
        return f"{who} earns a cube on {achievement_name(e.get('achievement'))} with none in their supply"
    if t == "achievement_cube_placed":
        where = f" from {isl(e['square'])}" if e.get("square") else ""
        return f"{who} places a cube{where} on {achievement_name(e.get('achievement'))}"
    if t == "achievement_cube_unplaced":
        return f"{who} leaves a cube for {achievement_name(e.get('achievement'))} unplaced"
    if t == "battle_started":
        st = e.get("setup") or {}
        attacker, defender = _side_name(st.get("attacker")), _side_name(st.get("defender"))
        return f"Battle at {isl(st.get('location', ''))}: {attacker} attacks {defender}"
    if t == "battle_resolved":
        st, out = e.get("setup") or {}, e.get("outcome") or {}
        return (
            f"{_side_name(st.get(out.get('winner'))).replace(chr(39) + 's Ship', '')} wins the battle"
            if out.get("winner")
            else "The battle is over"
        )
    if t == "cleanup":
        return f"{who} cleans up" + (f" and draws {plural(int(e['draw']), 'card')}" if e.get("draw") else "")
    if t == "control_changed":
        return (
            f"{player_name(e['controller'])} now controls {isl(e.get('square', ''))}"
            if e.get("controller")
            else f"Nobody controls {isl(e.get('square', ''))} now"
        )
    if t == "game_end_triggered":
        return f"{who} triggers the end of the game: everyone else has one final turn"
    if t == "game_over":
        return "The game is over: see the scores"
    if t == "garrison_fire":
        return (
            f"{player_name(e.get('by'))}'s Garrison on {isl(e.get('square', ''))} fires: {who} takes 1 Damage"
        )
    if t == "moved":
        path = e.get("path") or []
        return f"{who} sails to {isl(path[-1])}" if path else f"{who} sails"
    if t == "produced":
        goods = cargo_coins(int(e.get("cargo") or 0), int(e.get("coins") or 0))
        return f"{isl(e.get('square', ''))} produces {goods}"
    if t == "ship_sunk":
        return f"{who}'s Ship sinks" + (f" (sunk by {player_name(e['by'])})" if e.get("by") else "")
    if t == "battle_updated":
        return "The battle's cubes change"
    if t == "game_created":
        return "A new game: " + ", ".join(player_name(c) for c in a.get("players") or [])
    if t == "draw_sailors":
        n = len(a["cards"]) if isinstance(a.get("cards"), list) else a.get("cards_count", 0)
        drawer = player_name(a.get("player_drawing") or e.get("player"))
        return f"{drawer} draws {plural(int(n or 0), 'Sailor card')}"
    if t == "deal_bonus":
        return (
            f"{player_name(a.get('player_dealt') or e.get('player'))} is dealt two Bonus Achievement tokens"
        )
    if t == "choose_bonus" and "token" not in a:
        return f"{who} keeps a Bonus Achievement token"
    if t == "level_up" and "card" not in a:
        return f"{who} levels up a Sailor card"
    if t == "undo":
        return f"{who} takes back their last action"
    if t == "correction":
        return "A referee correction replays the game from a corrected reading"
    if t == "resolve_battle":
        return "The battle's result is recorded"
    if t in ("reveal_board", "draw_advancement", "choose_first_player"):
        return action_words(_catalog(state), view, e.get("player") or "", {"type": t, **a}, {})["label"]
    data = getattr(state, "data", None) or {}
    cards = ((data.get("p") or {}).get(e.get("player") or "") or {}).get("cards") or {}
    label = action_words(_catalog(state), view, e.get("player") or "", {"type": t, **a}, cards)["label"]
    return f"{who}: {label}" if who else label


def decorate_events(state: Any, payload: dict[str, Any]) -> dict[str, Any]:
    """Adds `text` to each public event of an events payload (never raises)."""
    return add_event_texts(state, payload, functools.partial(event_text, state))


def decorate_public(engine: Any, state: Any, payload: dict[str, Any]) -> dict[str, Any]:
    """Adds `words` to a public state payload (never raises: words are a courtesy, the state is not)."""
    try:
        payload["words"] = public_words(state, payload["view"])
    except Exception:  # noqa: BLE001 - a naming gap must never stop the table publishing its state
        payload["words"] = None
    return payload


def decorate_private(engine: Any, state: Any, player: str, payload: dict[str, Any]) -> dict[str, Any]:
    try:
        payload["words"] = private_words(engine, state, player, payload["view"], payload["legal_actions"])
    except Exception:  # noqa: BLE001 - as above
        payload["words"] = None
    return payload


# -- the player's own choices (rules/dead_reckoning/choices.py) ------------------------------------------


def choice_text(view: dict[str, Any], choice: dict[str, Any]) -> str:
    """The prompt of one pending choice, in the game's words."""
    kind = choice.get("choice")
    goods = cargo_coins(int(choice.get("cargo", 0)), int(choice.get("coins", 0)))
    if kind == "plunder":
        return (
            f"Your plunder ({goods}) did not fit in your holds: place it in a hold with room, on "
            f"{square_name(view, str(choice.get('square')))}'s island, or discard it to the supply "
            "(unplaced at the end of the turn, it goes to the island if it may, else the supply)."
        )
    if kind == "owed":
        return (
            f"{goods} did not fit on your Ship: jettison Cargo or Coins to make room for them, unload on "
            "your turn, or let them go back to the supply (at the end of your turn they go back anyway)."
        )
    if kind == "battle_cubes":
        short = int(choice.get("short", 0))
        return (
            f"You are {plural(short, 'Battle cube')} short (supply: {choice.get('supply', 0)}): take one of "
            "your non-permanent cubes from an island for each, or fight with fewer cubes. Island cubes "
            "taken do not go back to the islands."
        )
    if kind == "achievement_cube":
        names = [achievement_name(a) for a in choice.get("achievements") or []]
        return (
            f"You earned a cube on {' and '.join(dict.fromkeys(names))} but your supply is empty: you may "
            "take one of your non-permanent cubes from an island for it, or leave it unplaced (it then does "
            "not count toward the Achievement; unplaced at the end of your turn, it is left)."
        )
    return "Make a choice."


def achievement_name(key: Any) -> str:
    return ACHIEVEMENTS.get(key, (title(str(key)), ""))[0]


def choice_option_label(view: dict[str, Any], action: dict[str, Any]) -> str:
    """One option of a pending choice (a `choose` action, or a jettison that makes room), in words."""
    if action.get("type") == "jettison":
        goods = cargo_coins(int(action.get("cargo", 0)), int(action.get("coins", 0)))
        return f"Jettison {goods} from {hold_name(action.get('hold'))}"
    o = action.get("option") or {}
    kind = action.get("choice")
    if kind == "plunder":
        n = int(o.get("count", 1))
        goods = plural(n, "Cargo", "Cargo") if o.get("what") == "cargo" else plural(n, "Coin")
        if o.get("to") == "hold":
            return f"{goods} into {hold_name(o.get('hold'))}"
        if o.get("to") == "island":
            return f"{goods} onto the island"
        return f"Discard {goods} to the supply"
    if kind == "owed":
        return "Let them go back to the supply"
    if kind == "battle_cubes":
        if o.get("fewer"):
            return "Fight with fewer cubes"
        return f"Take a cube from {square_name(view, str(o.get('square')))}"
    if kind == "achievement_cube":
        name = achievement_name(o.get("achievement"))
        if o.get("leave"):
            return f"Leave the {name} cube unplaced"
        if o.get("supply"):
            return f"{name}: a cube from your supply"
        return f"{name}: take a cube from {square_name(view, str(o.get('square')))}"
    return "Choose"


def decorate_prompts(state: Any, payload: dict[str, Any], player: str | None = None) -> dict[str, Any]:
    """Adds `words` to each prompt of a prompts payload (labels for its options)."""
    if state is None:
        return payload
    try:
        from rules.api import public_view

        view = public_view(state)
        for p in payload.get("prompts") or []:
            w = prompt_words(state, view, p, player)
            if w:
                p["words"] = w
    except Exception:  # noqa: BLE001 - as above
        pass
    return payload
