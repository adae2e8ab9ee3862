"""The Great Sea's words for the tablets: every button, region, card and tile in the rulebook's words
(docs/display.md, "The Great Sea"), never an engine id; kept apart from Dead Reckoning's controller/words.py.

Built only from what the payload it decorates already holds (the public view for public topics, the
player's own view for theirs), so a word never carries a secret to a topic that may not see it: a Combat
Card chosen but not revealed is named only in its chooser's private words.
"""

from __future__ import annotations

import re
from typing import Any

from controller.games import add_event_texts
from rules.great_sea import combat_cards, special_actions, upgrades

DIE_NAMES = {
    "develop": "Develop",
    "fortify": "Fortify",
    "trade": "Trade",
    "research": "Research",
    "construct": "Construct",
    "mobilise": "Mobilise",
}
ACTION_NUMBERS = {i + 1: name for i, name in enumerate(DIE_NAMES.values())}
CLASS_NAMES = {"small": "Small Ship", "medium": "Medium Ship", "large": "Large Ship"}
FORT_NAMES = {"stronghold": "Stronghold", "outpost": "Outpost"}
PART_NAMES = {"stern": "Stern", "hull": "Hull", "bow": "Bow"}
STAT_NAMES = {
    "mobility": "Mobility",
    "attack": "Attack",
    "shields": "Shields",
    "flames": "Flames",
    "strength": "Strength",
    "speed": "Speed",
    "health": "Health",
    "shipyard": "Shipyard",
    "fleet": "Fleet Limit",
}
GAIN_NAMES = {
    "coins": "Coins",
    "wood": "Wood",
    "post": "a Trade Post",
    "pip": "a pip",
    "neutral": "a Neutral Worker",
}
FOUNDATION_NAMES = {"coins": "Coins", "wood": "Wood", "pip": "pip"}
ROW_LETTERS = "ABCDEFGH"
REGION_RE = re.compile(r"^r(\d+)c(\d+)$")
PHASES = {"setup": "setting up", "main": "playing", "over": "game over"}
TRACKS = {"temple": "Temple", "combat": "Combat", "trade": "Trade"}


def title(key: Any) -> str:
    return " ".join(w.capitalize() for w in re.split(r"[-_\s]+", str(key)) if w)


def player_name(color: Any) -> str:
    return title(color or "") or "?"


def plural(n: int, one: str, many: str | None = None) -> str:
    return f"{n} {one if n == 1 else (many or one + 's')}"


def region_name(region: Any) -> str:
    """'r0c2' -> 'A3' (rows lettered from the top, columns numbered from the left, as on a chart)."""
    m = REGION_RE.match(str(region))
    if not m:
        return "a region"
    return f"{ROW_LETTERS[int(m.group(1)) % len(ROW_LETTERS)]}{int(m.group(2)) + 1}"


def region_label(view: dict[str, Any], region: Any) -> str:
    """'A1 (Red's home)', 'B2 (Temple 5)' or 'C3'."""
    reg = (view.get("regions") or {}).get(region) or {}
    name = region_name(region)
    if reg.get("home"):
        return f"{name} ({player_name(reg['home'])}'s home)"
    if reg.get("temple"):
        return f"{name} (Temple {reg['temple']})"
    return name


def shipyard_label(view: dict[str, Any], player: str, region: Any) -> str:
    """A retreating player's Shipyard: 'A1 (your home)' on their own tablet's buttons, else its label."""
    reg = (view.get("regions") or {}).get(region) or {}
    if reg.get("home") == player:
        return f"{region_name(region)} (your home)"
    return region_label(view, region)


def retreat_text(view: dict[str, Any]) -> str | None:
    """Who retreats which Ships from the Combat's region, and to which Shipyards (the engine's `retreat`)."""
    c = view.get("combat") or {}
    r = c.get("retreat")
    if not isinstance(r, dict):
        return None
    who = player_name(r.get("player"))
    ships = [CLASS_NAMES.get(str(x), "Ship") for x in r.get("ships") or []]
    where = []
    for cls, regions in (r.get("shipyards") or {}).items():
        names = [region_label(view, x) for x in regions]
        listed = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]
        where.append(f"{CLASS_NAMES.get(str(cls), 'Ships')}s to {listed}")
    return (
        f"{who} retreats {', '.join(ships) or 'no Ships'} from {region_label(view, c.get('region'))} to "
        f"their Shipyards ({'; '.join(where)}), within their Fleet Limits"
    )


GRID_ICON_NAMES = {"health": "Health"}


def fort_grid_words(view: dict[str, Any]) -> dict[str, dict[str, list[list[str]]]]:
    """Each player's Fort grids in words: per space (rows of columns) what shows there ('Starting Health
    (+1 Health)', 'Fort tile (+1 Fleet Limit) · 2 tiles high', '' for an empty printed space)."""
    out: dict[str, dict[str, list[list[str]]]] = {}
    for color in view.get("players") or []:
        grids = ((view.get("p") or {}).get(color) or {}).get("fort_grids") or {}
        out[color] = {}
        for cls, rows in grids.items():
            texts = []
            for row in rows:
                line = []
                for cell in row:
                    icons = cell.get("icons") or {}
                    shown = ", ".join(
                        f"Foundation modifier ×{n}"
                        if k == "foundation"
                        else f"+{n} {GRID_ICON_NAMES.get(k) or STAT_NAMES.get(k, title(k))}"
                        for k, n in icons.items()
                        if n
                    )
                    if cell.get("tile"):
                        kind = tile_name(cell["tile"]).split(" (")[0]
                        high = (
                            f" · {cell.get('height')} tiles high" if int(cell.get("height") or 0) > 1 else ""
                        )
                        line.append(f"{kind}: {shown or 'no icon'}{high}")
                    elif cell.get("locked"):
                        line.append(f"Starting Health ({shown}), never covered")
                    else:
                        line.append(f"Printed: {shown}" if shown else "")
                texts.append(line)
            out[color][str(cls)] = texts
    return out


def stats_text(stats: dict[str, Any] | None) -> str:
    bits = [
        f"{'+' if int(n) > 0 else ''}{n} {STAT_NAMES.get(k, title(k))}" for k, n in (stats or {}).items() if n
    ]
    return ", ".join(bits) or "no Combat Stats"


def gains_text(gain: dict[str, Any] | None) -> str:
    bits = []
    for k, n in (gain or {}).items():
        if not n:
            continue
        if k == "wood":
            bits.append(f"{n} Wood")
        elif k == "coins":
            bits.append(plural(int(n), "Coin"))
        else:
            bits.append(f"{n} {GAIN_NAMES.get(k, title(k))}")
    return " and ".join(bits) or "nothing"


def combat_card_words(card: Any) -> dict[str, str]:
    """A Combat Card's name, stats and text (Basic cards have no printed name: their stats name them)."""
    if card is None:
        return {"name": "no Combat Card", "text": "No Combat Card left: nothing added."}
    try:
        spec = combat_cards.card_spec(str(card))
    except KeyError:
        return {"name": "a Combat Card", "text": ""}
    stats = stats_text(spec.get("stats"))
    if spec.get("kind") == "basic":
        lose = spec.get("if_lose") or {}
        text = f"{stats}" + (f"; if you lose: gain {gains_text(lose)}" if lose else "")
        name = "Bluff" if not spec.get("stats") else stats
        return {"name": f"Basic card: {name}", "text": text}
    return {
        "name": str(spec.get("name") or title(card)),
        "text": f"{stats}. {spec.get('ability', '')}".strip(),
    }


def action_card_name(cards: dict[str, Any], number: Any) -> str:
    """The Action Card in slot 1-6 of a player's board: 'Trade' or 'Trade (Special Action Card)'."""
    slot = cards.get(str(number)) or {}
    base = ACTION_NUMBERS.get(int(number), "an Action Card") if str(number).isdigit() else "an Action Card"
    special = slot.get("id") not in (None, *DIE_NAMES)
    flipped = " (flipped)" if slot.get("flipped") else ""
    return f"{base}{' (Special Action Card)' if special else ''}{flipped}"


def special_text(card_id: Any) -> str:
    spec = special_actions.specials().get(str(card_id))
    return str(spec["text"]) if spec else ""


def icons_text(icons: dict[str, Any] | None) -> str:
    return ", ".join(
        f"{STAT_NAMES.get(k, title(k))}" if k == "shipyard" else f"+{n} {STAT_NAMES.get(k, title(k))}"
        for k, n in (icons or {}).items()
        if n
    )


def _face_up(spec: dict[str, Any], index: int) -> str:
    """A pile's `index`th tile by its row and the icons it shows face up: 'Bow tile (+1 Strength)'."""
    row = str(spec["row"])
    kind = (
        "Small Fort tile"
        if row == "small_fort"
        else "Fort tile"
        if row == "fort"
        else f"{PART_NAMES[row]} tile"
    )
    return f"{kind} ({icons_text(spec['tiles'][index]['icons'])})"


def pile_name(pile: Any) -> str:
    """'bow_strength' -> 'Bow tile (+1 Strength)': the row and the icons its tiles show face up."""
    spec = upgrades.tile_types().get(str(pile))
    if spec is None:
        return "an Upgrade Tile"
    return _face_up(spec, 0)


def tile_name(tile: Any) -> str:
    """'bow_strength:4' (one tile) -> its face-up icons, with its row."""
    pile, _, index = str(tile).partition(":")
    spec = upgrades.tile_types().get(pile)
    if spec is None or not index.isdigit() or int(index) >= len(spec["tiles"]):
        return pile_name(pile)
    return _face_up(spec, int(index))


def dice_list(dice: list[Any]) -> str:
    names = [DIE_NAMES.get(str(x), title(x)) for x in dice]
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + " and " + names[-1]


def unit_name(unit: dict[str, Any]) -> str:
    if unit.get("kind") == "ship":
        damaged = "Damaged " if unit.get("was_damaged") else ""
        return damaged + CLASS_NAMES.get(str(unit.get("cls")), "Ship")
    return FORT_NAMES.get(str(unit.get("cls")), "Fort")


def _move_text(view: dict[str, Any], moves: list[Any]) -> str:
    bits = [
        f"your {CLASS_NAMES.get(str(m[2]), 'Ship')} from {region_label(view, m[0])} to "
        f"{region_label(view, m[1])}"
        for m in moves
        if isinstance(m, list) and len(m) == 3
    ]
    return "; ".join(bits) or "no Ship"


def _turn_label(view: dict[str, Any], player: str, a: dict[str, Any]) -> tuple[str, str | None] | None:
    """Setup, the turn's Workers and its end, and the chance a tablet reports."""
    t = a.get("type")
    p = (view.get("p") or {}).get(player) or {}
    confirm: str | None = None
    if t == "take_action":
        card = a.get("card")
        die = DIE_NAMES.get(ACTION_NUMBERS.get(int(str(card)), "").lower(), "") if str(card).isdigit() else ""
        value = (p.get("die_values") or {}).get(die.lower()) if die else None
        label = f"Place a Worker on {action_card_name(p.get('cards') or {}, card)}" + (
            f" (Die {value})" if value is not None else ""
        )
    elif t == "end_turn":
        label, confirm = (
            "End your turn",
            "End your turn? Your Workers stay where they are; it cannot be undone.",
        )
    elif t == "finish_action":
        label = "Finish this action (skip its other effects)"
    elif t == "choose_special":
        pile = a.get("pile")
        top = ((view.get("special_piles") or {}).get(str(pile)) or {}).get("top")
        label = f"Take Special Action Card Pile {pile}" + (f": {special_text(top)}" if top else "")
    elif t == "setup_pips":
        label = f"Starting pips on {dice_list(list(a.get('dice') or []))}"
    elif t == "choose_first_player":
        label = f"{player_name(a.get('first'))} goes first"
    elif t == "deal_special":
        label = "Deal the last Special Action Card Pile"
    else:
        return None
    return label, confirm


def _worker_label(view: dict[str, Any], player: str, a: dict[str, Any]) -> tuple[str, str | None] | None:
    """The six worker actions' effects, Mobilise's moves and starting a Combat."""
    t = a.get("type")
    confirm: str | None = None
    if t == "develop_pip":
        gain = a.get("gain")
        label = f"Develop: +1 pip on your {DIE_NAMES.get(str(a.get('die')), 'a')} Die" + (
            f" and gain 1 {GAIN_NAMES.get(str(gain), title(gain)).rstrip('s')}" if gain else ""
        )
    elif t == "develop_second":
        choice = a.get("choice")
        if choice == "pip":
            label = f"Develop: +1 more pip on your {DIE_NAMES.get(str(a.get('die')), '')} Die"
        elif choice == "wood_pips":
            label = f"Develop: spend Wood for 2 pips on {dice_list(list(a.get('dice') or []))}"
        else:
            tiles = [
                CLASS_NAMES.get(str(x), "Fleet Tile" if x == "fleet" else title(x))
                for x in a.get("tiles") or []
            ]
            label = f"Develop: improve your {' and '.join(tiles)} tile"
    elif t == "fortify":
        fort = FORT_NAMES.get(str(a.get("fort")), "Fort")
        label = f"Fortify: place a {fort} in {region_label(view, a.get('region'))}"
        if a.get("dice"):
            label += f" (Foundation pip on {dice_list(list(a['dice']))})"
    elif t == "trade":
        gains = [GAIN_NAMES.get(str(g), title(g)) for g in a.get("gains") or []]
        label = "Trade: gain " + " and ".join(gains)
        if a.get("region"):
            label += f" (Trade Post in {region_label(view, a['region'])})"
    elif t == "research_gain":
        whom = (
            CLASS_NAMES.get(str(a.get("cls")), "") + "s"
            if a.get("cls")
            else FORT_NAMES.get(str(a.get("fort")), "")
        )
        label = f"Research: take a {pile_name(a.get('pile'))} for your {whom}"
        if a.get("discount"):
            label += f" ({plural(int(a['discount']), 'pip')} on a discount)"
    elif t == "research_remove":
        label = f"Research: remove the top {pile_name(a.get('pile'))} from its Pile"
    elif t == "research_refresh":
        label = "Research: refresh the Upgrade grid"
    elif t == "construct":
        cls = CLASS_NAMES.get(str(a.get("cls")), "Ship")
        label = f"Construct a {cls} in {region_label(view, a.get('region'))}"
        if a.get("discount"):
            label += f" ({plural(int(a['discount']), 'pip')} on a discount)"
    elif t == "construct_pip":
        label = f"Construct: +1 pip on your {DIE_NAMES.get(str(a.get('die')), '')} Die"
    elif t == "move":
        label = "Move " + _move_text(view, list(a.get("moves") or []))
    elif t == "initiate_combat":
        opp = player_name(a.get("opponent"))
        label = f"Attack {opp} in {region_label(view, a.get('region'))}"
        confirm = (
            f"Start a Combat against {opp} in {region_label(view, a.get('region'))}? It cannot be undone."
        )
    else:
        return None
    return label, confirm


def _start_label(view: dict[str, Any], player: str, a: dict[str, Any]) -> tuple[str, str | None] | None:
    """The Start-of-Turn Actions."""
    t = a.get("type")
    confirm: str | None = None
    if t == "start_move":
        label = "Start of turn (exhaust a Trade Post): move " + _move_text(
            view, [[a.get("from"), a.get("to"), a.get("cls")]]
        )
    elif t == "start_repair":
        pay = "exhaust a Trade Post" if a.get("pay") == "post" else "spend 2 Wood"
        label = (
            f"Start of turn ({pay}): repair your {CLASS_NAMES.get(str(a.get('cls')), 'Ship')} in "
            f"{region_label(view, a.get('region'))}"
        )
    elif t == "start_pip":
        pay = "exhaust 2 Trade Posts" if a.get("pay") == "posts" else "spend 4 Coins"
        label = f"Start of turn ({pay}): +1 pip on your {DIE_NAMES.get(str(a.get('die')), '')} Die"
    elif t == "start_worker":
        label = "Start of turn (exhaust 3 Trade Posts): gain a Neutral Worker"
    else:
        return None
    return label, confirm


def _combat_label(view: dict[str, Any], player: str, a: dict[str, Any]) -> tuple[str, str | None] | None:
    """A Combat's choices and the Special Action Cards' 3rd Effects."""
    t = a.get("type")
    confirm: str | None = None
    if t == "play_combat_card":
        card = combat_card_words(a.get("card"))
        side = {"stats": " (its Combat Stats)", "ability": " (its ability)"}.get(str(a.get("side")), "")
        label = f"Play {card['name']}{side}" if a.get("card") is not None else "Play no Combat Card"
        reinforce = a.get("reinforce")
        if isinstance(reinforce, dict) and reinforce.get("ships"):
            label += f", bringing Ships from {region_label(view, reinforce.get('from'))}"
    elif t == "assign_damage":
        units = (((view.get("combat") or {}).get("units") or {}).get(player)) or []
        bits = []
        for i, n in a.get("placed") or []:
            u = units[i] if isinstance(i, int) and 0 <= i < len(units) else {}
            bits.append(f"{n} on your {unit_name(u)}")
        label = "Place Damage: " + ", ".join(bits)
    elif t == "consolation":
        choice = a.get("choice")
        if choice == "flip":
            label = (
                f"Consolation: flip your {CLASS_NAMES.get(str(a.get('cls')), 'Ship')}'s "
                f"{PART_NAMES.get(str(a.get('part')), '')} tile"
            )
        elif choice == "small_fort":
            label = f"Consolation: a Small Fort tile for your {FORT_NAMES.get(str(a.get('fort')), 'Forts')}s"
        else:
            label = f"Consolation: +1 pip on your {DIE_NAMES.get(str(a.get('die')), '')} Die"
    elif t == "retreat":
        ships = ((view.get("combat") or {}).get("retreat") or {}).get("ships") or []
        to = [r for r in a.get("to") or [] if isinstance(r, str)]
        bits = [
            f"your {CLASS_NAMES.get(str(cls), 'Ship')} to {shipyard_label(view, player, r)}"
            for cls, r in zip(ships, to, strict=False)
        ]
        label = "Retreat " + (", ".join(bits) if bits else "your Ships to your Shipyards")
    elif t == "special_effect":
        if "die" in a:
            label = f"Special Action: +1 pip on your {DIE_NAMES.get(str(a['die']), '')} Die"
        elif "tiles" in a:
            tiles = [CLASS_NAMES.get(str(x), "Fleet Tile" if x == "fleet" else title(x)) for x in a["tiles"]]
            label = f"Special Action: improve your {' and '.join(tiles)} tile"
        elif "region" in a:
            label = f"Special Action: place a Fort in {region_label(view, a['region'])}"
        else:
            label = (
                f"Special Action: flip your {CLASS_NAMES.get(str(a.get('cls')), 'Ship')}'s "
                f"{PART_NAMES.get(str(a.get('part')), '')} tile"
            )
    else:
        return None
    return label, confirm


def action_words(view: dict[str, Any], player: str, a: dict[str, Any]) -> dict[str, Any]:
    """One legal action's button: {"label", "confirm"?} (a confirmation where it cannot be undone)."""
    for part in (_turn_label, _worker_label, _start_label, _combat_label):
        found = part(view, player, a)
        if found is not None:
            label, confirm = found
            return {"label": label, "confirm": confirm} if confirm else {"label": label}
    return {"label": title(a.get("type"))}


def score_table(view: dict[str, Any]) -> dict[str, Any] | None:
    """The end of the game: each player's three markers and the winner (whose Temple Marker reached their
    Combat or Trade Marker first)."""
    if view.get("phase") != "over":
        return None
    rows = []
    for c in view.get("players") or []:
        p = (view.get("p") or {}).get(c) or {}
        pts = p.get("points") or {}
        rows.append(
            {
                "player": c,
                "name": player_name(c),
                "temple_space": p.get("temple_space"),
                "temple": pts.get("temple"),
                "combat": pts.get("combat"),
                "trade": pts.get("trade"),
            }
        )
    winner = view.get("winner")
    return {
        "winner": winner,
        "text": f"{player_name(winner)} wins: their Temple Marker reached their Combat or Trade Marker."
        if winner
        else "The game is over.",
        "rows": rows,
    }


def waiting_text(req: dict[str, Any]) -> str:
    t = req.get("type")
    if t == "choose_first_player":
        return "who goes first, to be drawn at the table"
    if t == "deal_special":
        return "the last Special Action Card Pile, to be dealt at the table"
    return title(t).lower()


def combat_words(view: dict[str, Any]) -> dict[str, Any] | None:
    c = view.get("combat")
    if not c:
        return None
    att, dfn = c.get("attacker"), c.get("defender")
    chosen = c.get("chosen") or {}
    revealed = {k: combat_card_words((v or {}).get("card")) for k, v in chosen.items() if isinstance(v, dict)}
    stage = c.get("stage")
    stage_text = {
        "choose": "choosing Combat Cards in secret",
        "damage": "placing Damage",
        "consolation": "the loser's consolation",
        "retreat": "the loser's retreat",
    }.get(str(stage), title(stage).lower())
    return {
        "title": f"{player_name(att)} attacks {player_name(dfn)} in {region_label(view, c.get('region'))}",
        "stage": stage_text,
        "units": {side: [unit_name(u) for u in units] for side, units in (c.get("units") or {}).items()},
        "cards": {side: w["name"] for side, w in revealed.items()},
        "card_texts": {side: w["text"] for side, w in revealed.items()},
        "winner": player_name(c["winner"]) if c.get("winner") else None,
        "retreat": retreat_text(view),
    }


def public_words(view: dict[str, Any]) -> dict[str, Any]:
    players = view.get("players") or []
    tiles: dict[str, str] = {}
    for row in (view.get("upgrade_grid") or {}).values():
        for pl in row:
            tiles[str(pl.get("pile"))] = pile_name(pl.get("pile"))
            if pl.get("top"):
                tiles[str(pl["top"])] = tile_name(pl["top"])
    cards: dict[str, dict[str, dict[str, str]]] = {}
    for c in players:
        p = (view.get("p") or {}).get(c) or {}
        for parts in (p.get("ship_tiles") or {}).values():
            for t in (parts or {}).values():
                if t and t.get("tile"):
                    tiles[str(t["tile"])] = tile_name(t["tile"])
        for lst in (p.get("fort_tiles") or {}).values():
            for t in lst or []:
                tiles[str(t)] = tile_name(t)
        cards[c] = {
            str(n): {
                "name": action_card_name(p.get("cards") or {}, n),
                "text": special_text(slot.get("id")),
            }
            for n, slot in (p.get("cards") or {}).items()
        }
        for lost in p.get("combat_cards_lost") or []:
            tiles[f"card:{lost}"] = combat_card_words(lost)["name"]
    return {
        "title": "The Great Sea",
        "regions": {
            r: {"name": region_name(r), "label": region_label(view, r)} for r in view.get("regions") or {}
        },
        "players": {c: player_name(c) for c in players},
        "dice": DIE_NAMES,
        "classes": CLASS_NAMES,
        "forts": FORT_NAMES,
        "stats": {k: STAT_NAMES[k] for k in ("mobility", "attack", "shields", "flames", "strength")},
        "action_cards": cards,
        "specials": {
            k: {"name": f"Pile {k}", "text": special_text(v.get("top"))}
            for k, v in (view.get("special_piles") or {}).items()
        },
        "tiles": tiles,
        "combat": combat_words(view),
        "fort_grids": fort_grid_words(view),
        "reef": "The rocky reef: the regions on either side are not adjacent" if view.get("reef") else None,
        "scores": score_table(view),
        "phase": PHASES.get(str(view.get("phase")), title(view.get("phase"))),
        "waiting": [waiting_text(r) for r in view.get("waiting_for") or []],
    }


def private_words(view: dict[str, Any], player: str, legal: list[dict[str, Any]]) -> dict[str, Any]:
    hand = (view.get("you") or {}).get("hand") or []
    mine = ((view.get("combat") or {}).get("chosen") or {}).get(player)
    return {
        "actions": [action_words(view, player, a) for a in legal],
        "hand": {str(c): combat_card_words(c) for c in hand},
        "chosen": combat_card_words(mine.get("card")) if isinstance(mine, dict) else None,
    }


def event_text(view: dict[str, Any], e: dict[str, Any]) -> str:
    """A public event in words (from the public event view: a chosen card is not in it)."""
    t = e.get("type")
    who = player_name(e.get("player")) if e.get("player") and e.get("player") != "table" else ""
    if t == "play_combat_card":
        return f"{who} chose a Combat Card in secret"
    if t == "combat_revealed":
        cards = e.get("cards") or {}
        return "Combat Cards revealed: " + "; ".join(
            f"{player_name(k)} played {combat_card_words((v or {}).get('card'))['name']}"
            for k, v in cards.items()
        )
    if t == "combat_won":
        return f"{player_name(e.get('winner'))} wins the Combat against {player_name(e.get('loser'))}"
    if t == "game_over":
        return f"Game over: {player_name(e.get('winner'))} wins"
    action = e.get("action")
    if isinstance(action, dict) and action.get("type") and not e.get("notice"):
        label = action_words(view, str(e.get("player") or ""), action)["label"]
        return f"{who}: {label}" if who else label
    return f"{who}: {title(t).lower()}" if who else title(t)


def decorate_public(engine: Any, state: Any, payload: dict[str, Any]) -> dict[str, Any]:
    """Adds `words` to a public state payload (never raises: words are a courtesy, the state is not)."""
    try:
        payload["words"] = public_words(payload["view"])
    except Exception:  # noqa: BLE001 - a naming gap must never stop the table publishing its state
        payload["words"] = None
    return payload


def decorate_private(engine: Any, state: Any, player: str, payload: dict[str, Any]) -> dict[str, Any]:
    try:
        payload["words"] = private_words(payload["view"], player, payload["legal_actions"])
    except Exception:  # noqa: BLE001 - as above
        payload["words"] = None
    return payload


def decorate_prompts(state: Any, payload: dict[str, Any], player: str | None = None) -> dict[str, Any]:
    """The Great Sea asks nothing through prompts (every choice is a legal action): unchanged."""
    return payload


def decorate_events(state: Any, payload: dict[str, Any]) -> dict[str, Any]:
    """Adds `text` to each public event (from the public view only, never raises)."""
    return add_event_texts(state, payload, event_text)
