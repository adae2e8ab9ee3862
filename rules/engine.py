"""The Dead Reckoning base-game rules: setup, every action's legality and effect, chance, cleanup, end.

Owns the meaning of each action and event. `apply` checks a command completely before touching
anything (so a refusal never changes the state), then executes it on a copy through `fold`, the same
function replay uses: the state is always the fold of its events. Chance outcomes (boards flipped,
cards drawn, tokens dealt) are actions of their own, sent by the table or, with `auto_chance`, drawn
from the seeded RNG in the state and recorded in the event so replay needs no RNG.
Must not do I/O, read clocks or import other packages; battles are resolved by `rules.battle`.
"""

from __future__ import annotations

import marshal
from dataclasses import fields
from typing import Any

from rules.battle.contract import BattleAbility, BattleOutcome, BattleSetup, BattleSide
from rules.cards import ACHIEVEMENTS, BUILDINGS, Catalog, load_catalog
from rules.errors import Ambiguous, Illegal, Invalid, RulesError
from rules.state import (
    HARBOR,
    SQUARES,
    GameState,
    copy_data,
    from_saved,
    neighbours,
    next_base,
    plain,
    restore_base,
    rng_below,
    step,
)

ISLANDS_BY_COUNT = {2: 8, 3: 9, 4: 10}
HOLD_CAP = (4, 3)
HOLD_SPACE = (0, 3)  # hull spaces that carry a hold
BASE_HULL: tuple[dict[str, int], ...] = ({"sail": 1}, {}, {}, {"sail": 1})
MAX_SAILS = 8
SUPPLY_START = {"cargo": 400, "coins": 800, "black": 20}
HAND_LIMIT = 6
DRAW = 4
SINK_AT = 5
CHANCE_TYPES = ("reveal_board", "draw_advancement", "draw_sailors", "choose_first_player", "deal_bonus")


# --------------------------------------------------------------------------- catalogue and helpers


_DEFAULT: list[Catalog] = []


def catalog(d: dict[str, Any]) -> Catalog:
    o = d["options"]
    if o["cards_file"] is None and o["boards_file"] is None and o["upgrades_file"] is None:
        if _DEFAULT:
            return _DEFAULT[0]
        _DEFAULT.append(load_catalog())
        return _DEFAULT[0]
    return load_catalog(o["cards_file"], o["boards_file"], o["upgrades_file"])


def _p(d: dict[str, Any], color: str) -> dict[str, Any]:
    return d["p"][color]


def hold_load(h: list[int]) -> int:
    return h[0] + h[1]


def ship_cargo(p: dict[str, Any]) -> int:
    return sum(h[0] for h in p["ship"]["holds"])


def ship_coins(p: dict[str, Any]) -> int:
    return sum(h[1] for h in p["ship"]["holds"])


def hull_icons(cat: Catalog, p: dict[str, Any], space: int) -> dict[str, int]:
    tiles = p["ship"]["hull"][space]
    return cat.upgrades[tiles[-1]]["icons"] if tiles else BASE_HULL[space]


_ICONS_MEMO: dict[tuple, dict[str, int]] = {}
_ABILITIES_MEMO: dict[tuple, list[tuple[str, dict[str, Any]]]] = {}


def card_icons(cat: Catalog, card: dict[str, Any]) -> dict[str, int]:
    """Icons visible on one Sailor card: its level's icons plus those of the Advancements in its sleeve.
    Memoised on what the card is (a read-only result: callers must not modify it)."""
    sl = card["slots"]
    key = (id(cat), card["sailor"], card["level"], sl["top"], sl["middle"], sl["bottom"])
    got = _ICONS_MEMO.get(key)
    if got is None:
        got = dict(cat.sailors[card["sailor"]][card["level"] - 1].get("icons", {}))
        for adv in sl.values():
            if adv:
                for k, n in cat.cards[adv].get("icons", {}).items():
                    got[k] = got.get(k, 0) + n
        _ICONS_MEMO[key] = got
    return got


def card_abilities(cat: Catalog, cid: str, card: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """(ability id, ability) for every ability on the card: `<card>:L<level>:<i>` and `<card>:<adv>:<i>`.
    Memoised like `card_icons` (read-only)."""
    sl = card["slots"]
    key = (id(cat), cid, card["sailor"], card["level"], sl["top"], sl["middle"], sl["bottom"])
    got = _ABILITIES_MEMO.get(key)
    if got is None:
        got = [(f"{cid}:L{card['level']}:{i}", a)
               for i, a in enumerate(cat.sailors[card["sailor"]][card["level"] - 1].get("abilities", []))]
        for slot in ("top", "middle", "bottom"):
            adv = sl[slot]
            if adv:
                got += [(f"{cid}:{adv}:{i}", a) for i, a in enumerate(cat.cards[adv].get("abilities", []))]
        _ABILITIES_MEMO[key] = got
    return got


def played_icons(cat: Catalog, p: dict[str, Any], icon: str) -> int:
    n = 0
    cards = p["cards"]
    for c in p["played"]:  # a plain loop: a generator costs a call per card (this runs after most actions)
        n += card_icons(cat, cards[c]).get(icon, 0)
    return n


def ship_icon(cat: Catalog, d: dict[str, Any], color: str, icon: str, setting_sails: bool = False) -> int:
    """Icons on the Ship board: a hull space with a hold gives its benefit only while that hold is empty
    (except when setting Sails in Harbor or at an island you control)."""
    p = d["p"][color]
    free = setting_sails and (p["ship"]["at"] == HARBOR or controller_at(d, p["ship"]["at"]) == color)
    n = 1 if icon == "cannon" else 0  # the Cannon printed on the Ship board
    for space in range(4):
        if space in HOLD_SPACE and not free and hold_load(p["ship"]["holds"][HOLD_SPACE.index(space)]):
            continue
        n += hull_icons(cat, p, space).get(icon, 0)
    return n


def island_at(d: dict[str, Any], square: str) -> dict[str, Any] | None:
    if square == HARBOR:
        return None
    return d["grid"][square]["island"]


def controller_at(d: dict[str, Any], square: str) -> str | None:
    isl = island_at(d, square)
    return isl["controller"] if isl else None


def cube_counts(isl: dict[str, Any]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for c in isl["cubes"]:
        if c:
            counts[c] = counts.get(c, 0) + 1
    for c, n in isl["permanent"].items():
        if n:
            counts[c] = counts.get(c, 0) + n
    return counts


def compute_controller(isl: dict[str, Any]) -> str | None:
    """More cubes than any other player (permanent ones count) and more than the empty slots."""
    counts = cube_counts(isl)
    empty = isl["cubes"].count(None)
    best, best_n, tie = None, -1, False
    for c, n in counts.items():
        if n > best_n:
            best, best_n, tie = c, n, False
        elif n == best_n:
            tie = True
    if best is None or tie or best_n <= empty:
        return None
    return best


def fortified_against(d: dict[str, Any], square: str, color: str) -> bool:
    """Forts and Garrisons keep everyone but the controller from interacting with the island."""
    isl = island_at(d, square)
    if not isl or not isl["controller"] or isl["controller"] == color:
        return False
    return bool(isl["buildings"]["fort"] or isl["buildings"]["garrison"])


def pirates_at(d: dict[str, Any], square: str, color: str) -> list[str]:
    out: list[str] = []
    if square == HARBOR:
        return out
    ps = d["p"]
    for c in d["players"]:
        if c != color and ps[c]["ship"]["at"] == square and ps[c]["ship"]["pirate"]:
            out.append(c)
    return out


def blockaded(d: dict[str, Any], square: str, color: str) -> bool:
    """An opponent's Pirate-mode Ship at the island blocks it until the active player beats it."""
    beaten = d["turn"]["beaten"]
    for c in pirates_at(d, square, color):
        if c not in beaten:
            return True
    return False


def hand_limit(cat: Catalog, d: dict[str, Any], color: str) -> int:
    n = HAND_LIMIT
    for sq in SQUARES:
        isl = d["grid"][sq]["island"]
        if isl and isl["controller"] == color and cat.boards[d["grid"][sq]["board"]]["hand_limit"]:
            n += 1
    return n


def achieved(d: dict[str, Any], color: str) -> list[str]:
    out = []
    achs = d["achievements"]
    for a in ACHIEVEMENTS:  # a plain loop: a comprehension is a call of its own (run at every turn's end)
        if color in achs[a]:
            out.append(a)
    return out


# --------------------------------------------------------------------------- setup


def new_game(players: list[str], seed: int, options: dict[str, Any] | None = None) -> tuple[GameState, list[dict]]:
    """A game set up for 2-4 players; returns the state and its events (game_created, then setup chance)."""
    if not isinstance(players, list) or not 2 <= len(players) <= 4:
        raise Invalid("a game needs 2 to 4 players; name them by colour, e.g. red blue green.")
    if len(set(players)) != len(players) or not all(isinstance(c, str) and c.isidentifier() for c in players):
        raise Invalid("player names must be distinct single words (colours such as red, blue).")
    if players and "table" in players:
        raise Invalid("'table' is reserved for chance outcomes sent by the table; choose another name.")
    if not isinstance(seed, int):
        raise Invalid("the seed must be a whole number.")
    opts = {"auto_chance": True, "bonus_tokens": False, "cards_file": None, "boards_file": None,
            "upgrades_file": None}
    for k, v in (options or {}).items():
        if k not in opts:
            raise Invalid(f"unknown game option {k!r}; known options: {', '.join(opts)}.")
        opts[k] = v
    event = {"seq": 0, "type": "game_created", "player": "table",
             "action": {"type": "game_created", "players": list(players), "seed": seed, "options": opts}}
    d: dict[str, Any] = {"seq": 0}
    out: list[dict] = []
    _fold_into(d, event, out)
    state = GameState(d)
    events = [event, *out]
    return _auto_chance(state, events)


def _setup(d: dict[str, Any], action: dict[str, Any], out: list[dict]) -> None:
    players, opts = action["players"], action["options"]
    d.clear()
    d.update({"seq": 0, "players": list(players), "options": opts, "rng": action["seed"] & ((1 << 64) - 1),
              "phase": "setup", "active": None, "first": None, "turn_no": 0, "pending": [], "after": "start",
              "battle": None, "battle_queue": [], "final": None, "scores": None,
              "turn_base": None, "turn_log": [], "created": copy_data(action)})
    cat = catalog(d)
    n = len(players)
    opens = [b for b, spec in cat.boards.items() if spec["kind"] == "open_sea" and (spec["players"] is None or n <= spec["players"])]
    d["pool"] = {"islands_left": ISLANDS_BY_COUNT[n],
                 "islands": sorted(b for b, s in cat.boards.items() if s["kind"] == "island"),
                 "open_seas": sorted(opens)}
    d["grid"] = {sq: {"board": None, "card": None, "island": None} for sq in SQUARES}
    d["decks"] = {str(r): sorted(ids) for r, ids in cat.rows.items()}
    d["buried"] = {str(r): [] for r in cat.rows}
    d["supply"] = dict(SUPPLY_START)
    d["supply"].update({b: cat.building_supply[b] for b in BUILDINGS})
    d["upgrade_supply"] = {t: spec["count"] for t, spec in cat.upgrades.items()}
    d["achievements"] = {a: [] for a in ACHIEVEMENTS}
    d["achievement_cubes"] = {a: {} for a in ("legendary", "expert_sailors", "explorer")}
    d["bonus_pool"] = list(range(len(cat.bonus_tokens)))
    d["turn"] = _fresh_turn()
    d["p"] = {}
    for color in players:
        cards: dict[str, dict[str, Any]] = {}
        for kind, copies in cat.deck.items():
            for i in range(1, copies + 1):
                cid = kind if copies == 1 else f"{kind}-{i}"
                cards[cid] = {"sailor": kind, "level": 1, "slots": {"top": None, "middle": None, "bottom": None}}
        d["p"][color] = {
            "chest": 15, "dock": 0, "cubes": 29, "markers": 6,  # one cube sits on the Sail track
            "ship": {"at": HARBOR, "holds": [[0, 0], [0, 0]], "sails": 0, "damage": 0, "pirate": False,
                     "hull": [[], [], [], []]},
            "cards": cards, "deck": sorted(cards), "hand": [], "discard": [], "played": [], "set_aside": [],
            "level_up": False, "bonus": None, "bonus_offer": [], "sank": 0, "used": [], "cannons_used": 0,
            "flags_used": 0, "final_done": False,
        }
    for sq in ("r1c1", "r1c2", "r1c3"):
        _request(d, {"kind": "reveal_board", "square": sq})
    for color in players:
        _request(d, {"kind": "draw_sailors", "player": color, "count": DRAW})
    _request(d, {"kind": "choose_first_player"})
    if opts.get("bonus_tokens"):
        for color in players:
            _request(d, {"kind": "deal_bonus", "player": color})


def _fresh_turn() -> dict[str, Any]:
    return {"sails_set": False, "explored": False, "bought": 0, "battled": [], "beaten": [], "extra_sails": 0,
            "battles": 0, "acted": False}


def _request(d: dict[str, Any], req: dict[str, Any]) -> None:
    d["pending"].append(req)


# --------------------------------------------------------------------------- apply / fold


def apply(state: GameState, command: Any, inplace: bool = False) -> tuple[GameState, list[dict]]:
    """Check a command fully, then fold its events into a copy (or, with `inplace`, into `state` itself:
    the checks run before anything is touched, so a refusal still changes nothing). Refusals raise."""
    if not isinstance(command, dict):
        raise Invalid("a command must be an object with seq, player and action.")
    seq, player, action = command.get("seq"), command.get("player"), command.get("action")
    if not isinstance(seq, int) or isinstance(seq, bool):
        raise Invalid("the command has no sequence number; send the seq of the state it was made against.")
    if not isinstance(action, dict) or not isinstance(action.get("type"), str):
        raise Invalid("the command's action must be an object with a 'type'.")
    d = state.data
    if seq != d["seq"]:
        raise Illegal(f"this command was made against state {seq} but the game is at {d['seq']}; "
                      "look again at the table and resend it.")
    if player != "table" and player not in d["players"]:
        raise Invalid(f"{player!r} is not a player in this game (players: {', '.join(d['players'])}).")
    atype = action["type"]
    if atype == "undo":
        return _apply_undo(state, player)
    checker = CHECKS.get(atype)
    if checker is None:
        raise Invalid(f"unknown action type {atype!r}; see docs/rules-engine.md for the list.")
    normalized = _offered_check(d, player, action) if _OFFERED else None
    if normalized is None:
        normalized = checker(d, player, action)
    event = {"seq": d["seq"], "type": atype, "player": player, "action": normalized}
    if inplace:
        new = state
    elif atype in TOUCHES and not d["battle"] and not d["pending"] and d["phase"] == "main":
        squares = _touched_squares(d, player, normalized)
        keys = TOUCHES[atype] if squares is not None else (*TOUCHES[atype], "grid")
        new = state.copy_touching(keys, _touched_players(d, player, normalized), atype == "end_turn", squares or (),
                                  PLAYER_FIELDS.get(atype))
    else:
        new = state.copy()
    out: list[dict] = []
    _fold_into(new.data, event, out)
    events = [event, *out]
    return _auto_chance(new, events) if new.data["pending"] else (new, events)


# Actions `legal_actions` just offered after running their full check on this very state: (state data,
# seq, player, the action object, a copy of it as offered, the check's result) by id of the action object.
_OFFERED: dict[int, tuple[dict[str, Any], int, str, dict[str, Any], dict[str, Any], dict[str, Any]]] = {}


def remember_offer(d: dict[str, Any], player: str, action: dict[str, Any], norm: dict[str, Any]) -> None:
    """Keep `norm`, the result `action`'s full check gives on `d` (the caller proves it), for `apply`."""
    # the action as offered (nested containers as bytes: a caller could edit them in place)
    seen = {k: marshal.dumps(v) if type(v) in (dict, list) else v for k, v in action.items()}
    _OFFERED[id(action)] = (d, d["seq"], player, action, seen, norm)


def offer(d: dict[str, Any], player: str, action: dict[str, Any],
          found: tuple[str, dict[str, Any]] | None = None) -> bool:
    """Run `action`'s full check against `d`; if it passes, remember the result so that `apply`, sent the
    same action object unchanged against the same state and seq, does not check it a second time.
    `found`: for an ability, (card, ability) as the caller found it on a played card of `player`."""
    if found is not None and _sure_ability(d, player, action, found):
        return True  # nothing kept: only the action chosen needs its normalised form, and apply checks it
    try:
        if found is not None:
            norm = check_use_ability(d, player, action, found)
        else:
            norm = CHECKS[action["type"]](d, player, action)
    except RulesError:
        return False
    remember_offer(d, player, action, norm)
    return True


# Abilities whose check cannot refuse them once the turn's preconditions hold (no Harbor-only clause, no
# cost, only Cargo/Coins gained to the Dock and Sails): by id of the ability dict -> (the dict, verdict).
_SURE: dict[int, tuple[dict[str, Any], bool]] = {}


def always_passes(ab: dict[str, Any]) -> bool:
    got = _SURE.get(id(ab))
    if got is None or got[0] is not ab:
        ok = (ab.get("where") != "harbor" and not ab.get("pay", {}).get("cargo", 0) and "effects" in ab
              and all(e["do"] == "sails" or (e["do"] == "gain" and e.get("to") == "dock") for e in ab["effects"]))
        got = _SURE[id(ab)] = (ab, ok)
    return got[1]


def _sure_ability(d: dict[str, Any], player: str, a: dict[str, Any], found: tuple[str, dict[str, Any]]) -> bool:
    """True when `check_use_ability(d, player, a, found)` certainly passes: `a` names an ability found on a
    played card of the active player, unused this turn, of a kind `always_passes` vouches for. Most offered
    abilities are such, and their full check, re-run after every action, was the bulk of `legal_actions`."""
    if d["phase"] != "main" or d["pending"] or d["battle"] or player != d["active"]:
        return False
    ab = found[1]
    if a.get("ability") in d["p"][player]["used"] or "battle" in ab or type(a.get("args", {})) is not dict:
        return False
    if "choice" in ab:
        ch = a.get("choice")
        if type(ch) is not int or not 0 <= ch < len(ab["choice"]):
            return False
        ab = ab["choice"][ch]
    return always_passes(ab)


def forget_offers() -> None:
    _OFFERED.clear()


def _offered_check(d: dict[str, Any], player: str, action: dict[str, Any]) -> dict[str, Any] | None:
    hit = _OFFERED.pop(id(action), None)  # used once: applied again, the action is checked again
    if hit is None or hit[0] is not d or hit[1] != d["seq"] or hit[2] != player or hit[3] is not action:
        return None
    seen = hit[4]
    if action.keys() != seen.keys() or any(
            type(v) is not type(seen[k]) and not (type(v) in (dict, list) and type(seen[k]) is bytes)
            or (marshal.dumps(v) if type(v) in (dict, list) else v) != seen[k] for k, v in action.items()):
        return None  # changed by the caller since it was offered: check it afresh
    return hit[5]


def _touched_players(d: dict[str, Any], player: str, a: dict[str, Any]) -> tuple[str, ...]:
    """The players whose boards an action listed in TOUCHES may change: the actor, and for a move the
    owners of Garrisons on the path (a sinking pays them), for Influence everyone (control can pass to a
    third player, who then takes a permanent cube)."""
    if a["type"] == "move":
        owners = [isl["controller"] for sq in a["path"] if (isl := island_at(d, sq)) and isl["controller"]]
        return (player, *[c for c in dict.fromkeys(owners) if c != player])
    if a["type"] == "use_ability" and any(k[0] == "e" and "replace" in v for k, v in a.items() if isinstance(v, dict)):
        return tuple(d["players"])
    return (player,)


def _touched_squares(d: dict[str, Any], player: str, a: dict[str, Any]) -> tuple[str, ...] | None:
    """The grid squares an action listed in TOUCHES may change (None: possibly any of them)."""
    t = a["type"]
    if t in ("load", "unload", "buy"):
        return (d["p"][player]["ship"]["at"],)
    if t == "move":  # Garrison fire on the way; exploring flips the last board and draws its card
        return tuple(a["path"])
    if t == "use_ability":
        sqs: list[str] = []
        for k, v in a.items():
            if k[0] == "e" and isinstance(v, dict):
                if "replace" in v:
                    return None  # Influence: running out of cubes takes them back from any island
                sqs += v.get("islands", ())
                sqs += [b["square"] for b in v.get("builds", ())]
        return tuple(sqs)
    if t == "end_turn":  # the refills (drawn at once in simulation) land on face-up boards without a card
        grid = d["grid"]
        return tuple(sq for sq in SQUARES if grid[sq]["board"] and grid[sq]["card"] is None)
    return ()


def _auto_chance(state: GameState, events: list[dict]) -> tuple[GameState, list[dict]]:
    d = state.data
    while d["pending"] and not d["battle"] and d["options"].get("auto_chance"):
        action = draw_chance(d, d["pending"][0])
        event = {"seq": d["seq"], "type": action["type"], "player": "table", "action": action, "rng": d["rng"]}
        out: list[dict] = []
        _fold_into(d, event, out)
        events.append(event)
        events.extend(out)
    return state, events


def draw_chance(d: dict[str, Any], req: dict[str, Any]) -> dict[str, Any]:
    """Draw a chance outcome from the seeded RNG (simulation and digital play only). Advances d['rng']."""
    kind = req["kind"]
    if kind == "reveal_board":
        choices = board_choices(d)
        return {"type": "reveal_board", "square": req["square"], "board": choices[rng_below(d, len(choices))]}
    if kind == "draw_advancement":
        deck = d["decks"][str(req["row"])]
        return {"type": "draw_advancement", "square": req["square"], "card": deck[rng_below(d, len(deck))]}
    if kind == "draw_sailors":
        pile = list(d["p"][req["player"]]["deck"])
        cards = []
        for _ in range(req["count"]):
            cards.append(pile.pop(rng_below(d, len(pile))))
        return {"type": "draw_sailors", "player_drawing": req["player"], "cards": cards}
    if kind == "choose_first_player":
        return {"type": "choose_first_player", "first": d["players"][rng_below(d, len(d["players"]))]}
    if kind == "deal_bonus":
        pool = list(d["bonus_pool"])
        a = pool.pop(rng_below(d, len(pool)))
        b = pool.pop(rng_below(d, len(pool)))
        return {"type": "deal_bonus", "player_dealt": req["player"], "tokens": [a, b]}
    raise Invalid(f"unknown chance request {kind!r}.")


def board_choices(d: dict[str, Any]) -> list[str]:
    """Boards that may plausibly be under a face-down square. The face-down squares hold exactly
    `islands_left` island boards (which ones is unknown: the rest stayed in the box) and the in-play open seas."""
    revealed = {d["grid"][sq]["board"] for sq in SQUARES}
    face_down = sum(1 for sq in SQUARES if d["grid"][sq]["board"] is None)
    left = d["pool"]["islands_left"]
    islands = [b for b in d["pool"]["islands"] if b not in revealed] if left > 0 else []
    opens = [b for b in d["pool"]["open_seas"] if b not in revealed] if face_down > left else []
    return islands + opens


def fold(state: GameState, event: dict[str, Any]) -> GameState:
    """The state after one event (copy). Replay is folding the log from `game_created`."""
    if event.get("type") == "game_created":
        d: dict[str, Any] = {"seq": 0}
    else:
        d = copy_data(state.data)
    _fold_into(d, event, [])
    return GameState(d)


def replay(events: list[dict[str, Any]]) -> GameState:
    if not events or events[0].get("type") != "game_created":
        raise Invalid("a game log must start with its game_created event.")
    d: dict[str, Any] = {"seq": 0}
    for ev in events:
        _fold_into(d, ev, [])
    return GameState(d)


def _fold_into(d: dict[str, Any], event: dict[str, Any], out: list[dict]) -> None:
    if not isinstance(event, dict) or "type" not in event:
        raise Invalid("an event must be an object with a type.")
    if event.get("notice"):
        # a consequence already folded with the event that caused it: it only keeps its place in the log
        if not isinstance(event.get("seq"), int) or event["seq"] >= d["seq"]:
            raise Invalid(f"notice {event.get('seq')} comes before the event that caused it; the log is out of order.")
        return
    if event["type"] != "game_created" and event.get("seq") != d["seq"]:
        raise Invalid(f"event {event.get('seq')} does not follow state {d['seq']}; the log is out of order or has a gap.")
    etype = event["type"]
    if etype == "game_created":
        _setup(d, event["action"], out)
        d["seq"] = 1
        return
    if etype == "undo":
        _fold_undo(d, event)
        return
    if etype == "correction":
        seq = d["seq"]
        d.clear()
        d.update(from_saved(event["state"]))
        d["seq"] = seq + 1
        return
    d["seq"] += 1
    if d["phase"] == "main":
        d["turn_log"].append(dict(event))  # the turn so far, for undo (rebuilt from turn_base)
    if "rng" in event:
        d["rng"] = event["rng"]
    DOS[etype](d, event["player"], event["action"], out)
    for n in out:
        if "seq" not in n:
            n["seq"] = d["seq"]
            n["notice"] = True
            d["seq"] += 1


def notice(out: list[dict], etype: str, **data: Any) -> None:
    out.append({"type": etype, **data})


# --------------------------------------------------------------------------- undo


def _apply_undo(state: GameState, player: str) -> tuple[GameState, list[dict]]:
    d = state.data
    if d["phase"] != "main" or player != d["active"]:
        raise Illegal("only the active player may undo, and only during their own turn.")
    log = d["turn_log"]
    if not log:
        raise Illegal("there is nothing to undo this turn.")
    last = log[-1]
    if last["player"] != player and last["type"] not in CHANCE_TYPES:
        raise Illegal(f"the last action was {last['player']}'s, not yours: it cannot be undone by you.")
    if last["type"] in CHANCE_TYPES or last.get("revealed") or last["type"] in ("attack", "attack_merchant", "attack_building", "resolve_battle",
                                                 "end_turn") or d["pending"] or d["battle"]:
        raise Illegal("that cannot be undone: it revealed something (a board, a card or a battle) to the table.")
    event = {"seq": d["seq"], "type": "undo", "player": player, "action": {"type": "undo", "undone": last["seq"]}}
    new = state.copy()
    _fold_undo(new.data, event)
    return new, [event]


_REPLAYING: list[bool] = []


def replay_turn(d: dict[str, Any], log: list[dict[str, Any]]) -> dict[str, Any]:
    """`d` (a turn's base) with the turn's logged events folded over it, as undo does (`state.next_base`)."""
    _REPLAYING.append(True)
    try:
        for e in log:
            d["seq"] = e["seq"]
            _fold_into(d, e, [])
    finally:
        _REPLAYING.pop()
    return d


def _fold_undo(d: dict[str, Any], event: dict[str, Any]) -> None:
    seq = d["seq"]
    keep = [e for e in d["turn_log"] if e["seq"] != event["action"]["undone"]]
    base_ref = d["turn_base"]
    d.clear()
    d.update(restore_base(base_ref))
    d["turn_base"] = base_ref  # immutable: shared by every state of the turn
    for e in keep:
        d["seq"] = e["seq"]
        _fold_into(d, e, [])
    d["seq"] = seq + 1


# --------------------------------------------------------------------------- chance actions


def _need_pending(d: dict[str, Any], kind: str) -> dict[str, Any]:
    if not d["pending"] or d["pending"][0]["kind"] != kind:
        want = d["pending"][0]["kind"] if d["pending"] else "nothing"
        raise Illegal(f"the table is not waiting for {kind.replace('_', ' ')} now (it waits for {want.replace('_', ' ')}).")
    return d["pending"][0]


def check_reveal_board(d: dict[str, Any], player: str, a: dict[str, Any]) -> dict[str, Any]:
    req = _need_pending(d, "reveal_board")
    if a.get("square") != req["square"]:
        raise Illegal(f"the board to reveal is at {req['square']}, not {a.get('square')}.")
    board = a.get("board")
    cat = catalog(d)
    if not isinstance(board, str) or board not in cat.boards:
        raise Invalid(f"{board!r} is not an Ocean board in this game's data; re-read the board.")
    if board not in board_choices(d):
        raise Illegal(f"{board} cannot be under {req['square']}: it is already on the table, not in play for "
                      f"{len(d['players'])} players, or all the island boards are already revealed.")
    return {"type": "reveal_board", "square": req["square"], "board": board}


def do_reveal_board(d: dict[str, Any], player: str, a: dict[str, Any], out: list[dict]) -> None:
    cat = catalog(d)
    d["pending"].pop(0)
    sq, board = a["square"], a["board"]
    spec = cat.boards[board]
    d["grid"][sq]["board"] = board
    if spec["kind"] == "island":
        d["pool"]["islands_left"] -= 1
        d["grid"][sq]["island"] = {"cubes": [None] * spec["slots"], "permanent": {}, "cargo": 0, "coins": 0,
                                   "controller": None, "buildings": {b: False for b in BUILDINGS}, "strikes": {}}
    row = int(sq[1])
    if d["decks"][str(row)]:
        d["pending"].insert(0, {"kind": "draw_advancement", "square": sq, "row": row})
    _after_chance(d, out)


def check_draw_advancement(d: dict[str, Any], player: str, a: dict[str, Any]) -> dict[str, Any]:
    req = _need_pending(d, "draw_advancement")
    if a.get("square") != req["square"]:
        raise Illegal(f"the card to draw is for {req['square']}, not {a.get('square')}.")
    card = a.get("card")
    if not isinstance(card, str) or card not in catalog(d).cards:
        raise Invalid(f"{card!r} is not a card in this game's data; re-read the card.")
    if card not in d["decks"][str(req["row"])]:
        raise Illegal(f"{card} is not in the row {req['row']} box (it is in play, buried, or from another row).")
    return {"type": "draw_advancement", "square": req["square"], "card": card}


def do_draw_advancement(d: dict[str, Any], player: str, a: dict[str, Any], out: list[dict]) -> None:
    req = d["pending"].pop(0)
    deck = d["decks"][str(req["row"])]
    deck.remove(a["card"])
    d["grid"][a["square"]]["card"] = a["card"]
    if not deck:  # that row's box is empty: other spaces of the row waiting for a card stay empty
        d["pending"] = [r for r in d["pending"] if r["kind"] != "draw_advancement" or r["row"] != req["row"]]
    _after_chance(d, out)


def check_draw_sailors(d: dict[str, Any], player: str, a: dict[str, Any]) -> dict[str, Any]:
    req = _need_pending(d, "draw_sailors")
    who = a.get("player_drawing", req["player"])
    if who != req["player"]:
        raise Illegal(f"it is {req['player']} who draws now, not {who}.")
    cards = a.get("cards")
    if not isinstance(cards, list) or len(cards) != req["count"] or not all(isinstance(c, str) for c in cards):
        raise Invalid(f"{req['player']} draws {req['count']} card(s); send exactly that many card ids.")
    pile = d["p"][who]["deck"]
    if len(set(cards)) != len(cards) or any(c not in pile for c in cards):
        bad = [c for c in cards if c not in pile]
        raise Illegal(f"{', '.join(map(str, bad)) or 'a repeated card'} is not in {who}'s Sailor deck; re-read the cards.")
    return {"type": "draw_sailors", "player_drawing": who, "cards": list(cards)}


def do_draw_sailors(d: dict[str, Any], player: str, a: dict[str, Any], out: list[dict]) -> None:
    d["pending"].pop(0)
    p = d["p"][a["player_drawing"]]
    for c in a["cards"]:
        p["deck"].remove(c)
        p["hand"].append(c)
    _after_chance(d, out)


def check_choose_first_player(d: dict[str, Any], player: str, a: dict[str, Any]) -> dict[str, Any]:
    _need_pending(d, "choose_first_player")
    if a.get("first") not in d["players"]:
        raise Invalid(f"the first player must be one of {', '.join(d['players'])}.")
    return {"type": "choose_first_player", "first": a["first"]}


def do_choose_first_player(d: dict[str, Any], player: str, a: dict[str, Any], out: list[dict]) -> None:
    d["pending"].pop(0)
    d["first"] = a["first"]
    i = d["players"].index(a["first"])
    d["players"] = d["players"][i:] + d["players"][:i]  # seat order from the first player
    for seat, color in enumerate(d["players"]):
        p = d["p"][color]
        gain = (1, 2, 3, 2)[seat]
        p["dock"] += gain
        d["supply"]["cargo"] -= gain
        if seat == 3:
            p["level_up"] = True  # the 4th seat may level one card of the opening hand
    _after_chance(d, out)


def check_deal_bonus(d: dict[str, Any], player: str, a: dict[str, Any]) -> dict[str, Any]:
    req = _need_pending(d, "deal_bonus")
    toks = a.get("tokens")
    if (not isinstance(toks, list) or len(toks) != 2 or not all(isinstance(t, int) for t in toks)
            or len(set(toks)) != 2) or any(t not in d["bonus_pool"] for t in toks):
        raise Illegal("deal two different Bonus Achievement tokens that are still in the pool.")
    return {"type": "deal_bonus", "player_dealt": req["player"], "tokens": list(toks)}


def do_deal_bonus(d: dict[str, Any], player: str, a: dict[str, Any], out: list[dict]) -> None:
    d["pending"].pop(0)
    for t in a["tokens"]:
        d["bonus_pool"].remove(t)
    d["p"][a["player_dealt"]]["bonus_offer"] = list(a["tokens"])
    _after_chance(d, out)


def _after_chance(d: dict[str, Any], out: list[dict]) -> None:
    if d["pending"]:
        return
    after, d["after"] = d["after"], None
    if after == "start":
        d["phase"] = "main"
        _start_turn(d, d["players"][0], out)
    elif after == "end_turn":
        _finish_turn(d, out)


# --------------------------------------------------------------------------- turn flow


def _start_turn(d: dict[str, Any], color: str, out: list[dict]) -> None:
    d["active"] = color
    d["turn_no"] += 1
    d["turn"] = _fresh_turn()
    for c in d["players"]:
        p = d["p"][c]
        p["used"], p["cannons_used"], p["flags_used"] = [], 0, 0
    out.append({"type": "turn_started", "player": color, "turn": d["turn_no"]})  # = notice(): no call
    check_achievements(d, color, out)
    # the turn's starting point for undo (none while `replay_turn` refolds a turn: it is thrown away)
    d["turn_base"] = None if _REPLAYING else next_base(d)
    d["turn_log"] = []


def _require_active(d: dict[str, Any], player: str, what: str) -> dict[str, Any]:
    if d["phase"] == "over":
        raise Illegal("the game is over.")
    if d["pending"]:
        raise Illegal(f"the table must first report {d['pending'][0]['kind'].replace('_', ' ')}.")
    if d["battle"]:
        raise Illegal("a battle is under way: finish it first.")
    if d["phase"] != "main" or player != d["active"]:
        raise Illegal(f"only the active player ({d['active']}) may {what} now.")
    return d["p"][player]


def _mark_acted(d: dict[str, Any], player: str) -> None:
    if not d["turn"]["acted"]:
        d["turn"]["acted"] = True
        d["p"][player]["level_up"] = False  # levelling must happen before the turn's first action


# ---- cargo handling


def _int_field(a: dict[str, Any], key: str, default: int = 0, lo: int = 0, hi: int = 999) -> int:
    v = a.get(key, default)
    if not isinstance(v, int) or isinstance(v, bool) or not lo <= v <= hi:
        raise Invalid(f"field {key!r} must be a whole number from {lo} to {hi}, not {v!r}.")
    return v


def _hold_index(a: dict[str, Any], key: str = "hold") -> int:
    h = a.get(key, 0)
    if isinstance(h, bool) or h not in (0, 1):
        raise Invalid(f"field {key!r} must be 0 (the hold of 4) or 1 (the hold of 3).")
    return h


def _room(p: dict[str, Any], h: int) -> int:
    return HOLD_CAP[h] - hold_load(p["ship"]["holds"][h])


def check_load(d: dict[str, Any], player: str, a: dict[str, Any]) -> dict[str, Any]:
    p = _require_active(d, player, "load")
    h = _hold_index(a)
    cargo, coins = _int_field(a, "cargo"), _int_field(a, "coins")
    if cargo + coins == 0:
        raise Invalid("load at least 1 Cargo or Coin.")
    at = p["ship"]["at"]
    if at == HARBOR:
        if coins:
            raise Illegal("in Harbor only Cargo is loaded from your Dock tile; Coins stay in your Treasure chest.")
        if cargo > p["dock"]:
            raise Illegal(f"your Dock tile has only {p['dock']} Cargo.")
    else:
        isl = island_at(d, at)
        if not isl or isl["controller"] != player:
            raise Illegal("you can load only in Harbor or from an island you control.")
        if blockaded(d, at, player):
            raise Illegal("an opponent's Pirate-mode Ship blockades this island: beat it in battle first.")
        if cargo > isl["cargo"] or coins > isl["coins"]:
            raise Illegal(f"the island holds only {isl['cargo']} Cargo and {isl['coins']} Coins.")
    if cargo + coins > _room(p, h):
        raise Illegal(f"hold {h + 1} is full: it takes {HOLD_CAP[h]} and holds {hold_load(p['ship']['holds'][h])}.")
    return {"type": "load", "hold": h, "cargo": cargo, "coins": coins}


def do_load(d: dict[str, Any], player: str, a: dict[str, Any], out: list[dict]) -> None:
    p = d["p"][player]
    _mark_acted(d, player)
    hold = p["ship"]["holds"][a["hold"]]
    if p["ship"]["at"] == HARBOR:
        p["dock"] -= a["cargo"]
    else:
        isl = island_at(d, p["ship"]["at"])
        isl["cargo"] -= a["cargo"]
        isl["coins"] -= a["coins"]
    hold[0] += a["cargo"]
    hold[1] += a["coins"]


def check_unload(d: dict[str, Any], player: str, a: dict[str, Any]) -> dict[str, Any]:
    p = _require_active(d, player, "unload")
    h = _hold_index(a)
    cargo, coins = _int_field(a, "cargo"), _int_field(a, "coins")
    if cargo + coins == 0:
        raise Invalid("unload at least 1 Cargo or Coin.")
    hold = p["ship"]["holds"][h]
    if cargo > hold[0] or coins > hold[1]:
        raise Illegal(f"hold {h + 1} carries only {hold[0]} Cargo and {hold[1]} Coins.")
    at = p["ship"]["at"]
    if at != HARBOR:
        if not island_at(d, at):
            raise Illegal("you can unload only in Harbor or at an island (not on the open sea).")
        if blockaded(d, at, player):
            raise Illegal("an opponent's Pirate-mode Ship blockades this island: beat it in battle first.")
        if fortified_against(d, at, player):
            raise Illegal("an opponent's Fort or Garrison guards this island: you cannot unload onto it.")
    return {"type": "unload", "hold": h, "cargo": cargo, "coins": coins}


def do_unload(d: dict[str, Any], player: str, a: dict[str, Any], out: list[dict]) -> None:
    p = d["p"][player]
    _mark_acted(d, player)
    hold = p["ship"]["holds"][a["hold"]]
    hold[0] -= a["cargo"]
    hold[1] -= a["coins"]
    if p["ship"]["at"] == HARBOR:
        p["dock"] += a["cargo"]
        p["chest"] += a["coins"]
    else:
        isl = island_at(d, p["ship"]["at"])
        isl["cargo"] += a["cargo"]
        isl["coins"] += a["coins"]
    check_achievements(d, player, out)


def _not_in_battle(d: dict[str, Any]) -> None:
    if d["battle"] and d["battle"].get("locked"):
        raise Illegal("the battle has begun: cargo can be rearranged or jettisoned only after it ends.")


def check_rearrange(d: dict[str, Any], player: str, a: dict[str, Any]) -> dict[str, Any]:
    if player not in d["players"]:
        raise Illegal("only a player can rearrange their own Ship.")
    _not_in_battle(d)
    p = d["p"][player]
    src = _hold_index(a, "from_hold")
    dst = 1 - src
    cargo, coins = _int_field(a, "cargo"), _int_field(a, "coins")
    hold = p["ship"]["holds"][src]
    if cargo + coins == 0:
        raise Invalid("move at least 1 Cargo or Coin.")
    if cargo > hold[0] or coins > hold[1]:
        raise Illegal(f"hold {src + 1} carries only {hold[0]} Cargo and {hold[1]} Coins.")
    if cargo + coins > _room(p, dst):
        raise Illegal(f"hold {dst + 1} is full: it takes {HOLD_CAP[dst]} and holds {hold_load(p['ship']['holds'][dst])}.")
    return {"type": "rearrange", "from_hold": src, "cargo": cargo, "coins": coins}


def do_rearrange(d: dict[str, Any], player: str, a: dict[str, Any], out: list[dict]) -> None:
    holds = d["p"][player]["ship"]["holds"]
    s, t = holds[a["from_hold"]], holds[1 - a["from_hold"]]
    s[0] -= a["cargo"]
    s[1] -= a["coins"]
    t[0] += a["cargo"]
    t[1] += a["coins"]
    _battle_side_changed(d, player, out)


def _battle_side_changed(d: dict[str, Any], player: str, out: list[dict]) -> None:
    b = d["battle"]
    if b and player in (d["active"], b.get("defender_player")):
        _refresh_battle(d, out)  # hold room and hull benefits feed the battle setup


def check_jettison(d: dict[str, Any], player: str, a: dict[str, Any]) -> dict[str, Any]:
    if player not in d["players"]:
        raise Illegal("only a player can jettison from their own Ship.")
    _not_in_battle(d)
    p = d["p"][player]
    h = _hold_index(a)
    cargo, coins = _int_field(a, "cargo"), _int_field(a, "coins")
    hold = p["ship"]["holds"][h]
    if cargo + coins == 0:
        raise Invalid("jettison at least 1 Cargo or Coin.")
    if cargo > hold[0] or coins > hold[1]:
        raise Illegal(f"hold {h + 1} carries only {hold[0]} Cargo and {hold[1]} Coins.")
    return {"type": "jettison", "hold": h, "cargo": cargo, "coins": coins}


def do_jettison(d: dict[str, Any], player: str, a: dict[str, Any], out: list[dict]) -> None:
    hold = d["p"][player]["ship"]["holds"][a["hold"]]
    hold[0] -= a["cargo"]
    hold[1] -= a["coins"]
    d["supply"]["cargo"] += a["cargo"]
    d["supply"]["coins"] += a["coins"]
    _battle_side_changed(d, player, out)


# ---- cards


def check_play_card(d: dict[str, Any], player: str, a: dict[str, Any]) -> dict[str, Any]:
    card = a.get("card")
    p = d["p"][player] if player in d["players"] else None
    if p is None or not isinstance(card, str) or card not in p["cards"]:
        raise Invalid(f"{card!r} is not one of {player}'s Sailor cards.")
    if card not in p["hand"]:
        raise Illegal(f"{card} is not in your hand.")
    b = d["battle"]
    if b and player == b["defender_player"] and not b.get("locked"):
        icons = card_icons(catalog(d), p["cards"][card])
        abil = [x for _, x in card_abilities(catalog(d), card, p["cards"][card]) if "battle" in x]
        if not icons.get("cannon") and not abil:
            raise Illegal("while defending you may play only cards with Cannons or Battle abilities.")
        return {"type": "play_card", "card": card}
    _require_active(d, player, "play a card")
    return {"type": "play_card", "card": card}


def do_play_card(d: dict[str, Any], player: str, a: dict[str, Any], out: list[dict]) -> None:
    p = d["p"][player]
    p["hand"].remove(a["card"])
    p["played"].append(a["card"])
    if d["battle"] and player == d["battle"]["defender_player"]:
        _refresh_battle(d, out)
    else:
        _mark_acted(d, player)


def check_level_up(d: dict[str, Any], player: str, a: dict[str, Any]) -> dict[str, Any]:
    if player not in d["players"]:
        raise Invalid("only a player can level up a card.")
    p = d["p"][player]
    card = a.get("card")
    if not isinstance(card, str) or card not in p["cards"]:
        raise Invalid(f"{card!r} is not one of {player}'s Sailor cards.")
    if not p["level_up"]:
        raise Illegal("you may level up one card after your turn ends and before your next turn's first action.")
    if card not in p["hand"]:
        raise Illegal(f"{card} is not in your hand: only a card in hand can be levelled up.")
    if p["cards"][card]["level"] >= 4:
        raise Illegal(f"{card} is already level 4.")
    return {"type": "level_up", "card": card}


def _own_card(p: dict[str, Any], cid: str) -> dict[str, Any]:
    """Copy-on-write: states share Sailor cards (GameState.copy), so a card is edited only after the
    player's card mapping and that one card have been replaced by copies of their own."""
    cards = p["cards"] = dict(p["cards"])
    card = cards[cid] = copy_data(cards[cid])
    return card


def do_level_up(d: dict[str, Any], player: str, a: dict[str, Any], out: list[dict]) -> None:
    p = d["p"][player]
    p["level_up"] = False
    c = _own_card(p, a["card"])
    c["level"] += 1
    if c["level"] == 4 and player not in d["achievements"]["expert_sailors"]:
        cubes = d["achievement_cubes"]["expert_sailors"]
        if cubes.get(player, 0) < 2 and p["cubes"] > 0:
            cubes[player] = cubes.get(player, 0) + 1
            p["cubes"] -= 1
    if d["active"] == player:
        check_achievements(d, player, out)


# ---- sails and movement


def sails_available(d: dict[str, Any], player: str) -> int:
    cat = catalog(d)
    p = d["p"][player]
    return min(MAX_SAILS, ship_icon(cat, d, player, "sail", True) + played_icons(cat, p, "sail") + d["turn"]["extra_sails"])


def check_set_sails(d: dict[str, Any], player: str, a: dict[str, Any]) -> dict[str, Any]:
    _require_active(d, player, "set Sails")
    if d["turn"]["sails_set"]:
        raise Illegal("Sails are set once per turn, and you have already set them.")
    return {"type": "set_sails", "sails": sails_available(d, player)}


def do_set_sails(d: dict[str, Any], player: str, a: dict[str, Any], out: list[dict]) -> None:
    _mark_acted(d, player)
    d["turn"]["sails_set"] = True
    d["p"][player]["ship"]["sails"] = a["sails"]


def check_move(d: dict[str, Any], player: str, a: dict[str, Any]) -> dict[str, Any]:
    p = _require_active(d, player, "move")
    path = a.get("path")
    if isinstance(a.get("to"), str) and path is None:
        path = [a["to"]]
    if not isinstance(path, list) or not path or not all(isinstance(s, str) for s in path):
        raise Invalid("a move needs 'path': the boards entered in order, e.g. [\"r1c2\", \"r2c2\"].")
    if not d["turn"]["sails_set"]:
        raise Illegal("set your Sails before moving.")
    if len(path) > p["ship"]["sails"]:
        raise Illegal(f"that move needs {len(path)} Sails and your Sail track shows {p['ship']['sails']}.")
    here = p["ship"]["at"]
    for sq in path:
        if sq != HARBOR and sq not in SQUARES:
            raise Invalid(f"{sq!r} is not a square (use r1c1..r4c3 or harbor).")
        if sq not in neighbours(here):
            raise Illegal(f"{sq} is not orthogonally next to {here}: ships move one board at a time, no diagonals.")
        here = sq
    last = path[-1]
    if last != HARBOR and d["grid"][last]["board"] is None and d["turn"]["explored"]:
        raise Illegal("you have already explored this turn: you may not stop on another unexplored board.")
    order = a.get("fight_order")
    pir = pirates_at(d, last, player)
    if order is None and len(pir) > 1:
        raise Ambiguous(f"several Pirate-mode ships are at {last}: say in which order you fight them "
                        "('fight_order').", pir)
    if order is None:
        order = pir
    if not isinstance(order, list) or not all(isinstance(c, str) for c in order):
        raise Invalid("'fight_order' must list player colours.")
    if sorted(order) != sorted(pir):
        raise Invalid(f"fight_order must list the Pirate-mode ships at {last}: {', '.join(pir) or 'none'}.")
    return {"type": "move", "path": list(path), "fight_order": list(order), "cannons": a.get("cannons")}


def do_move(d: dict[str, Any], player: str, a: dict[str, Any], out: list[dict]) -> None:
    _mark_acted(d, player)
    p = d["p"][player]
    for sq in a["path"]:
        p["ship"]["sails"] -= 1
        p["ship"]["at"] = sq
        isl = island_at(d, sq)
        if isl and isl["buildings"]["garrison"] and isl["controller"] not in (None, player):
            notice(out, "garrison_fire", player=player, square=sq, by=isl["controller"])
            if _damage(d, player, 1, isl["controller"], out):
                return  # sunk: back in Harbor, the move ends
    last = a["path"][-1]
    notice(out, "moved", player=player, path=a["path"])
    if last != HARBOR and d["grid"][last]["board"] is None:
        d["turn"]["explored"] = True
        if d["turn_log"]:
            d["turn_log"][-1] = {**d["turn_log"][-1], "revealed": True}  # replaced, never edited: copies share it
        _explore_cube(d, player, out)
        d["pending"].append({"kind": "reveal_board", "square": last})
        return
    queue = [c for c in a["fight_order"]]
    if queue:
        d["battle_queue"] = [{"kind": "ship", "defender": c, "provoked": True, "cannons": a.get("cannons")}
                             for c in queue]
        _next_battle(d, out)


def _explore_cube(d: dict[str, Any], player: str, out: list[dict]) -> None:
    if player in d["achievements"]["explorer"]:
        return
    p = d["p"][player]
    cubes = d["achievement_cubes"]["explorer"]
    if p["cubes"] > 0:
        p["cubes"] -= 1
        cubes[player] = cubes.get(player, 0) + 1
    check_achievements(d, player, out)


# ---- damage and sinking


def _damage(d: dict[str, Any], color: str, n: int, by: str | None, out: list[dict], in_battle: bool = False) -> bool:
    """Add Damage; outside a battle the 5th Damage sinks at once. Returns True if the ship sank."""
    p = d["p"][color]
    p["ship"]["damage"] += n
    if not in_battle and p["ship"]["damage"] >= SINK_AT:
        _sink(d, color, by, out)
        return True
    return False


def _sink(d: dict[str, Any], color: str, by: str | None, out: list[dict]) -> None:
    p = d["p"][color]
    on_ship = ship_coins(p)
    if on_ship >= 5:
        lost = on_ship
        for h in p["ship"]["holds"]:
            h[1] = 0
    else:
        lost = min(5, p["chest"])
        p["chest"] -= lost
    if by and by in d["players"]:
        d["p"][by]["chest"] += lost
        d["p"][by]["sank"] += 1
    else:
        d["supply"]["coins"] += lost
    for h in p["ship"]["holds"]:
        p["chest"] += h[1]
        h[1] = 0
    p["ship"].update({"at": HARBOR, "damage": 0, "pirate": False, "sails": 0})
    notice(out, "ship_sunk", player=color, by=by, coins_lost=lost)


# ---- buying and encounters


def check_buy(d: dict[str, Any], player: str, a: dict[str, Any]) -> dict[str, Any]:
    p = _require_active(d, player, "buy")
    at = p["ship"]["at"]
    card = d["grid"][at]["card"] if at != HARBOR else None
    if card is None:
        raise Illegal("there is no Advancement or Encounter where your Ship is.")
    if d["turn"]["bought"] >= 2:
        raise Illegal("you may buy or resolve at most 2 Advancements/Encounters each turn.")
    cost = catalog(d).cards[card]["cost"]
    pay = _pay_plan(p, a.get("pay"), cost, from_dock=False)
    return {"type": "buy", "card": card, "pay": pay}


def _pay_plan(p: dict[str, Any], pay: Any, cost: int, from_dock: bool) -> dict[str, Any]:
    """Where a Cargo cost comes from: explicit {"dock": n, "holds": [a, b]}, or Dock first then holds."""
    holds = p["ship"]["holds"]
    have = holds[0][0] + holds[1][0] + (p["dock"] if from_dock else 0)
    if pay is None:
        if have < cost:
            where = "your Ship and Dock tile" if from_dock else "your Ship"
            raise Illegal(f"that costs {cost} Cargo and {where} carries only {have}.")
        left = cost
        dock = min(left, p["dock"]) if from_dock else 0
        left -= dock
        h0 = min(left, holds[0][0])
        left -= h0
        return {"dock": dock, "holds": [h0, left]}
    if not isinstance(pay, dict):
        raise Invalid("'pay' must be an object like {\"dock\": 1, \"holds\": [2, 0]}.")
    dock = pay.get("dock", 0)
    hs = pay.get("holds", [0, 0])
    if (not isinstance(dock, int) or not isinstance(hs, list) or len(hs) != 2
            or not all(isinstance(x, int) and x >= 0 for x in hs) or dock < 0):
        raise Invalid("'pay' must be an object like {\"dock\": 1, \"holds\": [2, 0]}.")
    if dock and not from_dock:
        raise Illegal("this is paid in Cargo from your Ship only, not from your Dock tile.")
    if dock > p["dock"] or hs[0] > holds[0][0] or hs[1] > holds[1][0]:
        raise Illegal("you do not have that Cargo where you said to pay it from.")
    if dock + hs[0] + hs[1] != cost:
        raise Illegal(f"that costs exactly {cost} Cargo.")
    return {"dock": dock, "holds": list(hs)}


def _pay(d: dict[str, Any], p: dict[str, Any], plan: dict[str, Any]) -> None:
    p["dock"] -= plan["dock"]
    for i in (0, 1):
        p["ship"]["holds"][i][0] -= plan["holds"][i]
    d["supply"]["cargo"] += plan["dock"] + plan["holds"][0] + plan["holds"][1]


def do_buy(d: dict[str, Any], player: str, a: dict[str, Any], out: list[dict]) -> None:
    _mark_acted(d, player)
    p = d["p"][player]
    _pay(d, p, a["pay"])
    d["grid"][p["ship"]["at"]]["card"] = None
    p["set_aside"].append(a["card"])
    d["turn"]["bought"] += 1


def check_master_merchant(d: dict[str, Any], player: str, a: dict[str, Any]) -> dict[str, Any]:
    p = _require_active(d, player, "return Cargo for Master Merchant")
    if player in d["achievements"]["master_merchant"]:
        raise Illegal("you already have the Master Merchant achievement.")
    plan = _pay_plan(p, a.get("pay"), 12, from_dock=True)
    return {"type": "master_merchant", "pay": plan}


def do_master_merchant(d: dict[str, Any], player: str, a: dict[str, Any], out: list[dict]) -> None:
    _mark_acted(d, player)
    _pay(d, d["p"][player], a["pay"])
    _place_marker(d, player, "master_merchant", out)


# ---- abilities


def find_ability(d: dict[str, Any], player: str, ability_id: Any) -> tuple[str, dict[str, Any]]:
    p = d["p"][player]
    if not isinstance(ability_id, str) or ":" not in ability_id:
        raise Invalid("name the ability as '<card>:L<level>:<n>' or '<card>:<advancement>:<n>' (see legal actions).")
    card = ability_id.split(":", 1)[0]
    if card not in p["cards"]:
        raise Invalid(f"{card!r} is not one of {player}'s Sailor cards.")
    if card not in p["played"]:
        raise Illegal(f"{card} has not been played: only abilities of played cards can be used.")
    for aid, ab in card_abilities(catalog(d), card, p["cards"][card]):
        if aid == ability_id:
            return card, ab
    raise Invalid(f"{ability_id} is not an ability on {card} at its current level.")


def check_use_ability(d: dict[str, Any], player: str, a: dict[str, Any],
                      found: tuple[str, dict[str, Any]] | None = None) -> dict[str, Any]:
    """`found`: (card, ability) when the caller has just looked `a["ability"]` up on a played card."""
    p = _require_active(d, player, "use an ability")
    aid = a.get("ability")
    card, ab = found or find_ability(d, player, aid)
    if aid in p["used"]:
        raise Illegal("each ability can be used only once per turn, and this one has been used.")
    if "battle" in ab:
        raise Illegal("a BATTLE ability can be used only during a battle.")
    if "choice" in ab:
        ch = a.get("choice")
        if ch is None:
            raise Ambiguous("this ability offers a choice: say which effect with 'choice' (0, 1, ...).",
                            list(range(len(ab["choice"]))))
        if not isinstance(ch, int) or isinstance(ch, bool) or not 0 <= ch < len(ab["choice"]):
            raise Invalid(f"'choice' must be 0 to {len(ab['choice']) - 1}.")
        ab = ab["choice"][ch]
    norm: dict[str, Any] = {"type": "use_ability", "ability": aid, "choice": a.get("choice")}
    cat = catalog(d)
    icons = card_icons(cat, p["cards"][card])
    if ab.get("where") == "harbor" and p["ship"]["at"] != HARBOR:
        raise Illegal("this ability can be used only while your Ship is in Harbor.")
    cost = ab.get("pay", {}).get("cargo", 0)
    if cost:
        norm["pay"] = _pay_plan(p, a.get("pay"), cost, from_dock=ab["pay"]["from"] == "ship_or_dock")
    sim = {"dock": p["dock"] - norm.get("pay", {}).get("dock", 0)}
    args = a.get("args", {})
    if not isinstance(args, dict):
        raise Invalid("'args' must be an object (e.g. {\"replace\": [\"blue\"]} or {\"islands\": [\"r2c1\"]}).")
    for i, e in enumerate(ab["effects"]):
        norm[f"e{i}"] = _check_effect(d, player, e, args, icons, sim, norm)
    return norm


def _check_effect(d: dict[str, Any], player: str, e: dict[str, Any], args: Any, icons: dict[str, int],
                  sim: dict[str, Any], norm: dict[str, Any]) -> dict[str, Any]:
    cat = catalog(d)
    p = d["p"][player]
    args = args if isinstance(args, dict) else {}
    do = e["do"]
    if do == "gain":
        n = e["amount"] * (icons.get(e["per"], 0) if "per" in e else 1)
        to_ship = 0
        if e["to"] == "ship":
            to_ship = n
        elif e["to"] == "dock_or_ship":
            to_ship = _int_field(args, "to_ship", 0, 0, n)
        if to_ship:
            pay = norm.get("pay", {"holds": [0, 0]})
            room = _room(p, 0) + _room(p, 1) + pay["holds"][0] + pay["holds"][1]
            if to_ship > room:
                raise Illegal(f"your Ship has room for {room} more; unload or jettison first to take {to_ship} on board.")
        return {"what": e["what"], "total": n, "to_ship": to_ship}
    if do == "sails":
        return {"amount": e["amount"]}
    if do == "repair":
        if p["ship"]["damage"] == 0:
            raise Illegal("your Ship has no Damage to repair.")
        return {"amount": e["amount"]}
    if do == "influence":
        return _check_influence(d, player, e["amount"], args)
    if do == "produce":
        sqs = args.get("islands")
        if sqs is None:
            raise Ambiguous(f"choose up to {e['amount']} different islands to produce on ('islands': [squares]).",
                            [sq for sq in SQUARES if d["grid"][sq]["island"]])
        if not isinstance(sqs, list) or len(set(sqs)) != len(sqs) or not 1 <= len(sqs) <= e["amount"]:
            raise Invalid(f"'islands' must list 1 to {e['amount']} different island squares.")
        for sq in sqs:
            if sq not in SQUARES or not d["grid"][sq]["island"]:
                raise Illegal(f"{sq} is not a revealed island.")
            if fortified_against(d, sq, player):
                raise Illegal(f"an opponent's Fort or Garrison guards {sq}: you cannot produce there.")
        return {"islands": list(sqs), "boost": e.get("boost", {})}
    if do == "build":
        builds = args.get("builds")
        if not isinstance(builds, list) or not 1 <= len(builds) <= e["amount"]:
            raise Invalid(f"'builds' must list 1 to {e['amount']} buildings as {{\"square\", \"building\"}}.")
        total = 0
        seen = set()
        for b in builds:
            sq, kind = (b.get("square"), b.get("building")) if isinstance(b, dict) else (None, None)
            if kind not in BUILDINGS or sq not in SQUARES:
                raise Invalid("each build needs a 'square' (r1c1..r4c3) and a 'building' (fort, garrison, outpost).")
            isl = d["grid"][sq]["island"]
            if not isl or isl["controller"] != player:
                raise Illegal(f"you can build only on islands you control, and you do not control {sq}.")
            if isl["buildings"][kind] or (sq, kind) in seen:
                raise Illegal(f"{sq} already has a {kind}: each island has at most one of each Building.")
            if d["supply"][kind] - sum(1 for s in seen if s[1] == kind) <= 0:
                raise Illegal(f"there are no {kind}s left in the supply.")
            seen.add((sq, kind))
            total += cat.building_costs[kind]
        plan = _pay_plan({"dock": sim["dock"], "ship": _ship_after(p, norm)}, args.get("pay"), total, True)
        return {"builds": [{"square": b["square"], "building": b["building"]} for b in builds], "pay": plan}
    if do == "upgrade":
        tile = args.get("tile")
        opts = [t for t, s in cat.upgrades.items() if s["category"] == e["category"] and d["upgrade_supply"][t] > 0]
        if tile is None:
            if len(opts) == 1:
                tile = opts[0]
            else:
                raise Ambiguous(f"choose a {e['category']} Ship Upgrade tile ('tile').", opts)
        if tile not in opts:
            raise Illegal(f"{tile!r} is not an available {e['category']} Ship Upgrade tile.")
        blank = [i for i in range(4) if not p["ship"]["hull"][i] and not BASE_HULL[i]]
        space = args.get("space", blank[0] if blank else None)
        if space is None:
            raise Ambiguous("every hull space is covered: choose which one to cover ('space': 0-3).", [0, 1, 2, 3])
        if space not in (0, 1, 2, 3):
            raise Invalid("'space' must be 0 to 3.")
        return {"tile": tile, "space": space}
    raise Invalid(f"unknown effect {do!r}.")


def _ship_after(p: dict[str, Any], norm: dict[str, Any]) -> dict[str, Any]:
    pay = norm.get("pay", {"holds": [0, 0]})
    return {"holds": [[p["ship"]["holds"][i][0] - pay["holds"][i], 0] for i in (0, 1)]}


def _check_influence(d: dict[str, Any], player: str, n: int, args: dict[str, Any]) -> dict[str, Any]:
    p = d["p"][player]
    at = p["ship"]["at"]
    isl = island_at(d, at)
    if not isl:
        raise Illegal("Influence is placed only while your Ship is at an island.")
    if blockaded(d, at, player):
        raise Illegal("an opponent's Pirate-mode Ship blockades this island: beat it in battle first.")
    if fortified_against(d, at, player):
        raise Illegal("an opponent's Fort or Garrison guards this island: you cannot place cubes there.")
    targets = args.get("replace", [])
    if not isinstance(targets, list):
        raise Invalid("'replace' must list the colours whose cubes you replace, one per cube.")
    sim = list(isl["cubes"])
    strikes = dict(isl["strikes"])
    plan: list[str | None] = []
    ti = 0
    for _ in range(n):
        if None in sim:
            sim[sim.index(None)] = player
            plan.append(None)
            continue
        others = sorted({c for c in sim if c != player})
        if not others:
            break  # every slot holds your cubes: nothing more can be placed
        if ti < len(targets):
            t = targets[ti]
            ti += 1
            if t not in others:
                raise Illegal(f"there is no {t} cube on this island to replace (you may replace: {', '.join(others)}).")
        elif len(others) == 1:
            t = others[0]
        else:
            raise Ambiguous(f"the island is full: say whose cube to replace ('replace'), one of {', '.join(others)}.",
                            others)
        plan.append(t)
        if d["p"][t]["final_done"] and not strikes.get(t):
            strikes[t] = 1  # doubled protection after a final turn: this placement only weakens the cube
            continue
        strikes.pop(t, None)
        sim[sim.index(t)] = player
    return {"replace": plan}


def do_use_ability(d: dict[str, Any], player: str, a: dict[str, Any], out: list[dict]) -> None:
    _mark_acted(d, player)
    p = d["p"][player]
    card, ab = find_ability(d, player, a["ability"])
    if "choice" in ab:
        ab = ab["choice"][a["choice"]]
    p["used"].append(a["ability"])
    if "pay" in a:
        _pay(d, p, a["pay"])
    for i, e in enumerate(ab["effects"]):
        _do_effect(d, player, e, a[f"e{i}"], out)
    check_achievements(d, player, out)


def _gain_to_ship(d: dict[str, Any], p: dict[str, Any], what: str, n: int) -> int:
    """Put n Cargo/Coins into holds with room; returns what did not fit."""
    idx = 0 if what == "cargo" else 1
    for h in (0, 1):
        put = min(n, _room(p, h))
        p["ship"]["holds"][h][idx] += put
        n -= put
    return n


def _do_effect(d: dict[str, Any], player: str, e: dict[str, Any], x: dict[str, Any], out: list[dict]) -> None:
    cat = catalog(d)
    p = d["p"][player]
    do = e["do"]
    if do == "gain":
        what, total, ship = x["what"], x["total"], x["to_ship"]
        d["supply"][what] -= total
        left = _gain_to_ship(d, p, what, ship)
        d["supply"][what] += left
        if what == "cargo":
            p["dock"] += total - ship
        else:
            p["chest"] += total - ship
    elif do == "sails":
        if d["turn"]["sails_set"]:
            p["ship"]["sails"] = min(MAX_SAILS, p["ship"]["sails"] + x["amount"])
        else:
            d["turn"]["extra_sails"] += x["amount"]
    elif do == "repair":
        p["ship"]["damage"] = max(0, p["ship"]["damage"] - x["amount"])
    elif do == "influence":
        _place_influence(d, player, x["replace"], out)
    elif do == "produce":
        for sq in x["islands"]:
            isl = d["grid"][sq]["island"]
            spec = cat.boards[d["grid"][sq]["board"]]
            cargo = spec["production"].get("cargo", 0) + x["boost"].get("cargo", 0)
            coins = spec["production"].get("coins", 0) + x["boost"].get("coins", 0)
            for nb in neighbours(sq):
                if nb == HARBOR:
                    continue
                nbb = d["grid"][nb]["board"]
                if nbb and cat.boards[nbb]["kind"] == "open_sea":
                    cargo += sum(1 for arrow in cat.boards[nbb]["arrows"] if step(nb, arrow) == sq)
            if isl["buildings"]["outpost"]:
                cargo, coins = cargo + 1, coins + 1
            isl["cargo"] += cargo
            isl["coins"] += coins
            d["supply"]["cargo"] -= cargo
            d["supply"]["coins"] -= coins
            notice(out, "produced", square=sq, cargo=cargo, coins=coins)
    elif do == "build":
        _pay(d, p, x["pay"])
        for b in x["builds"]:
            d["grid"][b["square"]]["island"]["buildings"][b["building"]] = True
            d["supply"][b["building"]] -= 1
    elif do == "upgrade":
        d["upgrade_supply"][x["tile"]] -= 1
        p["ship"]["hull"][x["space"]].append(x["tile"])


def _take_cube(d: dict[str, Any], player: str, avoid: str | None) -> bool:
    """A cube from the supply, or (running out) a non-permanent cube taken back from an island."""
    p = d["p"][player]
    if p["cubes"] > 0:
        p["cubes"] -= 1
        return True
    for sq in SQUARES:
        isl = d["grid"][sq]["island"]
        if sq != avoid and isl and player in isl["cubes"]:
            isl["cubes"][isl["cubes"].index(player)] = None
            _recheck_control(d, sq, [])
            return True
    return False


def _place_influence(d: dict[str, Any], player: str, plan: list[str | None], out: list[dict]) -> None:
    sq = d["p"][player]["ship"]["at"]
    isl = island_at(d, sq)
    for target in plan:
        if target is None:
            if None not in isl["cubes"] or not _take_cube(d, player, sq):
                continue
            isl["cubes"][isl["cubes"].index(None)] = player
        else:
            if d["p"][target]["final_done"] and not isl["strikes"].get(target):
                isl["strikes"][target] = 1
                continue
            if target not in isl["cubes"] or not _take_cube(d, player, sq):
                continue
            isl["strikes"].pop(target, None)
            isl["cubes"][isl["cubes"].index(target)] = player
            d["p"][target]["cubes"] += 1
        _recheck_control(d, sq, out)


def _recheck_control(d: dict[str, Any], sq: str, out: list[dict]) -> None:
    isl = d["grid"][sq]["island"]
    new = compute_controller(isl)
    old = isl["controller"]
    if new == old:
        return
    isl["controller"] = new
    if old is not None and new is not None:
        for b in BUILDINGS:  # control passed from one player to another: the Buildings go
            if isl["buildings"][b]:
                isl["buildings"][b] = False
                d["supply"][b] += 1
    if new is not None and _take_cube(d, new, sq):
        isl["permanent"][new] = isl["permanent"].get(new, 0) + 1
    notice(out, "control_changed", square=sq, controller=new, previous=old)


# ---- battles


def check_attack(d: dict[str, Any], player: str, a: dict[str, Any]) -> dict[str, Any]:
    p = _require_active(d, player, "attack")
    target = a.get("target")
    if target not in d["players"] or target == player:
        raise Invalid("'target' must be an opponent's colour.")
    at = p["ship"]["at"]
    if d["p"][target]["ship"]["at"] != at:
        raise Illegal(f"{target}'s Ship is not on your board.")
    if target in d["turn"]["battled"]:
        raise Illegal("you may never battle the same Ship more than once in a turn.")
    cat = catalog(d)
    free = at != HARBOR and d["p"][target]["ship"]["pirate"]
    if not free and played_icons(cat, p, "attack_flag") - p["flags_used"] <= 0:
        raise Illegal("attacking a Ship needs an unused Attack Flag on a card you played this turn.")
    return {"type": "attack", "target": target, "flag": not free, "cannons": a.get("cannons")}


def do_attack(d: dict[str, Any], player: str, a: dict[str, Any], out: list[dict]) -> None:
    _mark_acted(d, player)
    if a["flag"]:
        d["p"][player]["flags_used"] += 1
    d["battle_queue"] = [{"kind": "ship", "defender": a["target"], "provoked": False, "cannons": a["cannons"]}]
    _next_battle(d, out)


def check_attack_merchant(d: dict[str, Any], player: str, a: dict[str, Any]) -> dict[str, Any]:
    p = _require_active(d, player, "attack")
    at = p["ship"]["at"]
    card = d["grid"][at]["card"] if at != HARBOR else None
    if card is None or "encounter" not in catalog(d).cards[card]:
        raise Illegal("there is no Merchant ship where your Ship is.")
    if d["turn"]["bought"] >= 2:
        raise Illegal("you may buy or resolve at most 2 Advancements/Encounters each turn.")
    return {"type": "attack_merchant", "card": card, "cannons": a.get("cannons")}


def do_attack_merchant(d: dict[str, Any], player: str, a: dict[str, Any], out: list[dict]) -> None:
    _mark_acted(d, player)
    d["turn"]["bought"] += 1
    d["grid"][d["p"][player]["ship"]["at"]]["card"] = None
    d["battle_queue"] = [{"kind": "nonplayer", "card": a["card"], "cannons": a["cannons"]}]
    _next_battle(d, out)


def check_attack_building(d: dict[str, Any], player: str, a: dict[str, Any]) -> dict[str, Any]:
    p = _require_active(d, player, "attack")
    at = p["ship"]["at"]
    isl = island_at(d, at)
    if not isl or isl["controller"] in (None, player) or not (isl["buildings"]["fort"] or isl["buildings"]["garrison"]):
        raise Illegal("there is no opponent's Fort or Garrison here (Outposts cannot be attacked).")
    if blockaded(d, at, player):
        raise Illegal("an opponent's Pirate-mode Ship is here: win that battle before attacking the Buildings.")
    if f"building:{at}" in d["turn"]["battled"]:
        raise Illegal("you may never battle the same Building more than once in a turn.")
    return {"type": "attack_building", "square": at, "cannons": a.get("cannons")}


def do_attack_building(d: dict[str, Any], player: str, a: dict[str, Any], out: list[dict]) -> None:
    _mark_acted(d, player)
    d["battle_queue"] = [{"kind": "building", "square": a["square"], "cannons": a["cannons"]}]
    _next_battle(d, out)


def _abilities_for(d: dict[str, Any], color: str, ship_battle: bool) -> tuple[BattleAbility, ...]:
    cat = catalog(d)
    p = d["p"][color]
    out = []
    for cid in p["played"]:
        card = p["cards"][cid]
        wheels = card_icons(cat, card).get("wheel", 0)
        for aid, ab in card_abilities(cat, cid, card):
            if "battle" not in ab or aid in p["used"]:
                continue
            params = dict(ab.get("params", {}))
            if ab["battle"] == "coins_per_wheel_on_win":
                if params.get("ship_battles_only") and not ship_battle:
                    continue
                params = {"coins": params.get("coins", 0) + params.get("per_wheel", 0) * wheels}
            out.append(BattleAbility(id=f"{color}:{aid}", source=cid, effect=ab["battle"], params=params))
    return tuple(out)


def _cubes_for_battle(d: dict[str, Any], color: str) -> int:
    """Cubes in supply plus the non-permanent ones on islands (taken, when short, and not put back)."""
    n = d["p"][color]["cubes"]
    for sq in SQUARES:
        isl = d["grid"][sq]["island"]
        if isl:
            n += isl["cubes"].count(color)
    return n


def _take_island_cubes_for_battle(d: dict[str, Any], color: str, short: int, out: list[dict]) -> None:
    for sq in SQUARES:
        isl = d["grid"][sq]["island"]
        while short > 0 and isl and color in isl["cubes"]:
            isl["cubes"][isl["cubes"].index(color)] = None
            d["p"][color]["cubes"] += 1  # it joined the battle and now goes back to the supply
            short -= 1
            _recheck_control(d, sq, out)


def _cannons_free(d: dict[str, Any], color: str) -> int:
    cat = catalog(d)
    p = d["p"][color]
    return max(0, ship_icon(cat, d, color, "cannon") + played_icons(cat, p, "cannon") - p["cannons_used"])


def _building_bonus(d: dict[str, Any], color: str, sq: str) -> int:
    isl = island_at(d, sq)
    if isl and isl["controller"] == color:
        return sum(1 for b in BUILDINGS if isl["buildings"][b])
    return 0


def _side(d: dict[str, Any], color: str, cannons: int, ship_battle: bool) -> BattleSide:
    p = d["p"][color]
    extra = 2 if p["final_done"] else 0
    return BattleSide(name=color, is_player=True, cube_color=color, cubes=min(cannons + extra, _cubes_for_battle(d, color)),
                      abilities=_abilities_for(d, color, ship_battle),
                      hold_room=(_room(p, 0), _room(p, 1)),
                      wheels=sum(card_icons(catalog(d), p["cards"][c]).get("wheel", 0) for c in p["played"]),
                      damage=p["ship"]["damage"], pirate_mode=p["ship"]["pirate"])


def build_setup(d: dict[str, Any]) -> BattleSetup:
    """The BattleSetup for the pending battle, from the state as it is now (defender cards included)."""
    b = d["battle"]
    me = d["active"]
    at = d["p"][me]["ship"]["at"]
    free = _cannons_free(d, me)
    cannons = free if b.get("cannons") is None else min(free, b["cannons"])
    kind = b["kind"]
    b["att_cannons"] = cannons
    att = _side(d, me, cannons + _building_bonus(d, me, at), kind != "building")
    if kind == "ship":
        dc = b["defender"]
        bonus = _building_bonus(d, dc, at) + (4 if at == HARBOR else 0)
        b["def_cannons"] = _cannons_free(d, dc)
        dfn = _side(d, dc, b["def_cannons"] + bonus, True)
    elif kind == "nonplayer":
        enc = catalog(d).cards[b["card"]]["encounter"]
        dfn = BattleSide(name=f"merchant:{b['card']}", is_player=False, cube_color="black",
                         cubes=min(enc["cubes"], d["supply"]["black"]))
        att = BattleSide(**{**_asdict(att), "cubes": min(cannons, _cubes_for_battle(d, me))})
    else:
        isl = island_at(d, b["square"])
        n = (5 if isl["buildings"]["fort"] else 0) + (2 if isl["buildings"]["garrison"] else 0)
        dfn = BattleSide(name=f"building:{b['square']}", is_player=False, cube_color="black", cubes=n)
        att = BattleSide(**{**_asdict(att), "cubes": min(cannons, _cubes_for_battle(d, me))})
    return BattleSetup(battle_id=b["battle_id"], kind=kind, attacker=att, defender=dfn, location=at,
                       provoked_by_pirate=bool(b.get("provoked")))


def _asdict(side: BattleSide) -> dict[str, Any]:
    return {f: getattr(side, f) for f in side.__slots__}


_FIELDS: dict[type, tuple[str, ...]] = {}


def to_plain(x: Any) -> Any:
    """`plain(x.to_json())` for the battle seam's dataclasses, without `dataclasses.asdict`'s deep copies
    (a third of a battle's cost): field order, tuples as lists and fresh containers all as before."""
    cls = type(x)
    if cls in _LEAVES:
        return x
    if cls is dict:  # (never a dataclass: tested before the look-up in _FIELDS)
        return {k: v if type(v) in _LEAVES else to_plain(v) for k, v in x.items()}
    if cls is list or cls is tuple:
        return [v if type(v) in _LEAVES else to_plain(v) for v in x]
    names = _FIELDS.get(cls)
    if names is None:
        if not hasattr(cls, "__dataclass_fields__"):
            return x
        names = _FIELDS[cls] = tuple(f.name for f in fields(x))
    return {n: v if type(v := getattr(x, n)) in _LEAVES else to_plain(v) for n in names}


_LEAVES = frozenset((str, int, bool, float, type(None)))  # returned as they are by plain and to_plain


def _next_battle(d: dict[str, Any], out: list[dict]) -> None:
    while d["battle_queue"]:
        nxt = d["battle_queue"].pop(0)
        me = d["active"]
        if nxt["kind"] == "ship" and (d["p"][nxt["defender"]]["ship"]["at"] != d["p"][me]["ship"]["at"]
                                      or nxt["defender"] in d["turn"]["battled"]):
            continue
        d["turn"]["battles"] += 1
        b = dict(nxt)
        b["battle_id"] = f"t{d['turn_no']}-b{d['turn']['battles']}"
        b["defender_player"] = nxt.get("defender")
        d["battle"] = b
        d["turn"]["battled"].append(nxt.get("defender") or (f"building:{nxt['square']}" if nxt["kind"] == "building"
                                                              else f"merchant:{nxt['card']}"))
        setup = build_setup(d)
        b["setup"] = to_plain(setup)
        notice(out, "battle_started", setup=to_plain(setup))
        return


def _refresh_battle(d: dict[str, Any], out: list[dict]) -> None:
    setup = build_setup(d)
    d["battle"]["setup"] = to_plain(setup)
    notice(out, "battle_updated", setup=to_plain(setup))


def check_resolve_battle(d: dict[str, Any], player: str, a: dict[str, Any]) -> dict[str, Any]:
    if not d["battle"]:
        raise Illegal("there is no battle to resolve.")
    if player not in ("table", d["active"], d["battle"].get("defender_player")):
        raise Illegal("only the table or the players in the battle may report its result.")
    setup = BattleSetup.from_json(d["battle"]["setup"])
    if "outcome" in a and a.get("record") is None:
        if not d["options"].get("auto_chance"):
            raise Illegal("at a physical table a battle is resolved from its record, not from a ready-made outcome.")
        try:
            outcome = BattleOutcome.from_json(a["outcome"])
        except (TypeError, KeyError) as exc:
            raise Invalid(f"the battle outcome is malformed ({exc}).") from None
        rec = None
    else:
        rec = a.get("record")
        if not isinstance(rec, dict):
            raise Invalid("resolve_battle needs the battle 'record' from the refereeing session.")
        try:
            from rules.battle import resolve_battle
            from rules.battle.errors import BattleRecordError
        except ImportError:
            raise Illegal("battle resolution is not available in this build; send an 'outcome'.") from None
        try:
            outcome = resolve_battle(setup, rec)
        except BattleRecordError as exc:
            raise Invalid(f"the battle record was refused: {exc.message}") from None
    return resolved_battle(setup, rec, outcome)


def resolved_battle(setup: BattleSetup, rec: dict[str, Any] | None, outcome: BattleOutcome) -> dict[str, Any]:
    """The last tests of `check_resolve_battle`, on the outcome its record resolved to, and the action as
    the event keeps it."""
    if outcome.battle_id != setup.battle_id:
        raise Invalid(f"that result is for battle {outcome.battle_id}, but battle {setup.battle_id} is under way.")
    if outcome.winner not in ("attacker", "defender"):
        raise Invalid("the battle's winner must be 'attacker' or 'defender'.")
    known = {ab.id for ab in setup.attacker.abilities + setup.defender.abilities}
    if any(x not in known for x in outcome.abilities_used):
        raise Invalid("the battle result uses an ability that neither side had.")
    for side in (outcome.attacker, outcome.defender):
        if min(side.plunder_cargo, side.plunder_coins, side.damage_dealt, side.coins_from_abilities) < 0:
            raise Invalid("the battle result has a negative number.")
    return {"type": "resolve_battle", "setup": to_plain(setup), "record": _plain_record(rec),
            "outcome": to_plain(outcome)}


def _plain_record(rec: Any) -> Any:
    """`plain(rec)` for a battle record, the largest part of a battle's action: a marshal copy (version 2,
    without back-references, so nothing in it is shared) when the record is plain data without tuples,
    which is what `plain` would produce; `plain` itself otherwise. The check for tuples is on marshal's
    type code "(" (a string holding "(" also sends the record to `plain`)."""
    if type(rec) is dict:
        try:
            b = marshal.dumps(rec, 2)
        except ValueError:  # something marshal cannot write
            return plain(rec)
        if b"(" not in b:
            return marshal.loads(b)
    return plain(rec)


def do_resolve_battle(d: dict[str, Any], player: str, a: dict[str, Any], out: list[dict]) -> None:
    setup = BattleSetup.from_json(a["setup"])
    outcome = BattleOutcome.from_json(a["outcome"])
    apply_battle_outcome(d, setup, outcome, out)
    notice(out, "battle_resolved", setup=a["setup"], record=a["record"], outcome=a["outcome"])
    if d["turn_log"]:
        d["turn_log"][-1] = {**d["turn_log"][-1], "revealed": True}
    me = d["active"]
    if d["p"][me]["ship"]["at"] == HARBOR and setup.location != HARBOR:
        d["battle_queue"] = []  # the attacker sank: no further battles
    _next_battle(d, out)


def apply_battle_outcome(d: dict[str, Any], setup: BattleSetup, outcome: BattleOutcome, out: list[dict]) -> None:
    """Everything a finished battle changes on the table (the engine's side of the seam)."""
    me = d["active"]
    b = d["battle"]
    d["battle"] = None
    att_won = outcome.winner == "attacker"
    at = setup.location
    dcol = setup.defender.name if setup.defender.is_player else None
    # cannons and Battle abilities are spent for the turn
    for color, side in ((me, setup.attacker), (dcol, setup.defender)):
        if color and side.cubes > d["p"][color]["cubes"]:
            _take_island_cubes_for_battle(d, color, side.cubes - d["p"][color]["cubes"], out)
    d["p"][me]["cannons_used"] += (b or {}).get("att_cannons", 0)
    if dcol:
        d["p"][dcol]["cannons_used"] += (b or {}).get("def_cannons", 0)
    for aid in outcome.abilities_used:
        color, rest = aid.split(":", 1)
        if color in d["players"]:
            d["p"][color]["used"].append(rest)
    # plunder and ability coins land in holds with room, then on the island, else back to the supply
    for side, res in ((me, outcome.attacker), (dcol, outcome.defender)):
        if side is None:
            continue
        p = d["p"][side]
        for what, n in (("cargo", res.plunder_cargo), ("coins", res.plunder_coins + res.coins_from_abilities)):
            if setup.kind == "building" or n == 0:
                continue
            d["supply"][what] -= n
            left = _gain_to_ship(d, p, what, n)
            isl = island_at(d, at)
            if left and isl and not fortified_against(d, at, side):
                isl[what] += left
            elif left:
                d["supply"][what] += left
    # damage from the zones and abilities, then 1 Damage to the losing ship
    if dcol:
        _damage(d, dcol, outcome.attacker.damage_dealt, me, out, in_battle=True)
    _damage(d, me, outcome.defender.damage_dealt, dcol, out, in_battle=True)
    loser = dcol if att_won else me
    if loser:
        _damage(d, loser, 1, me if loser == dcol else dcol, out, in_battle=True)
        if d["p"][loser]["ship"]["pirate"]:
            d["p"][loser]["ship"]["pirate"] = False
    winner = me if att_won else dcol
    if winner and setup.kind in ("ship", "nonplayer") and winner not in d["achievements"]["legendary"]:
        cubes = d["achievement_cubes"]["legendary"]
        if cubes.get(winner, 0) < 4 and d["p"][winner]["cubes"] > 0:
            cubes[winner] = cubes.get(winner, 0) + 1
            d["p"][winner]["cubes"] -= 1
    if att_won and dcol:
        d["turn"]["beaten"].append(dcol)
    if setup.kind == "nonplayer":
        card = setup.defender.name.split(":", 1)[1]
        enc = catalog(d).cards[card]["encounter"]
        row = str(catalog(d).cards[card]["row"])
        if att_won:
            for e in enc.get("win", []):
                n = e["amount"]
                if e["do"] == "gain" and e["to"] == "ship":
                    d["supply"][e["what"]] -= n
                    d["supply"][e["what"]] += _gain_to_ship(d, d["p"][me], e["what"], n)
                elif e["do"] == "gain":
                    d["supply"][e["what"]] -= n
                    d["p"][me]["dock" if e["what"] == "cargo" else "chest"] += n
            if enc.get("keep_on_win"):
                d["p"][me]["set_aside"].append(card)
            else:
                d["buried"][row].append(card)
        else:
            d["buried"][row].append(card)
    if setup.kind == "building" and att_won:
        isl = island_at(d, at)
        for kind in ("fort", "garrison"):
            if isl["buildings"][kind]:
                isl["buildings"][kind] = False
                d["supply"][kind] += 1
    # ships with 5 or more Damage sink now
    for color, by in ((dcol, me), (me, dcol)):
        if color and d["p"][color]["ship"]["damage"] >= SINK_AT:
            _sink(d, color, by, out)
    check_achievements(d, me, out)


# ---- cleanup


def check_end_turn(d: dict[str, Any], player: str, a: dict[str, Any]) -> dict[str, Any]:
    p = _require_active(d, player, "end the turn")
    pirate = bool(a.get("pirate", False))
    if pirate and p["ship"]["at"] == HARBOR:
        raise Illegal("Ships in Harbor must be in Mercantile mode.")
    sleeve = a.get("sleeve", [])
    if not isinstance(sleeve, list):
        raise Invalid("'sleeve' must list {\"advancement\", \"card\"} pairs.")
    cat = catalog(d)
    taken: set[tuple[str, str]] = set()
    done: set[str] = set()
    for s in sleeve:
        adv, card = (s.get("advancement"), s.get("card")) if isinstance(s, dict) else (None, None)
        if adv not in p["set_aside"] or adv in done:
            raise Illegal(f"{adv!r} is not one of your set-aside Advancements.")
        if card not in p["played"]:
            raise Illegal(f"{card!r} was not played this turn: you can only sleeve onto a card you played.")
        slot = cat.cards[adv]["slot"]
        if p["cards"][card]["slots"][slot] or (card, slot) in taken:
            raise Illegal(f"{card}'s {slot} slot is taken: an Advancement may not cover another.")
        taken.add((card, slot))
        done.add(adv)
    rest = []
    for x in p["set_aside"]:
        if x not in done:
            rest.append(x)
    if len(rest) > 1:
        free = {(c, s) for c in p["played"] for s in ("top", "middle", "bottom")
                if not p["cards"][c]["slots"][s] and (c, s) not in taken}
        sleevable = [x for x in rest if any(s == cat.cards[x]["slot"] for _, s in free)]
        if sleevable:
            raise Illegal(f"at most 1 Advancement may stay set aside; sleeve {sleevable[0]} onto a played card "
                          "with that slot free.")
    norm = []
    for s in sleeve:
        norm.append({"advancement": s["advancement"], "card": s["card"]})
    return {"type": "end_turn", "pirate": pirate, "sleeve": norm}


def do_end_turn(d: dict[str, Any], player: str, a: dict[str, Any], out: list[dict]) -> None:
    cat = catalog(d)
    p = d["p"][player]
    # 1. refill empty Advancement spaces on face-up boards
    for sq in SQUARES:
        g = d["grid"][sq]
        if g["board"] and g["card"] is None and d["decks"][sq[1]]:
            d["pending"].append({"kind": "draw_advancement", "square": sq, "row": int(sq[1])})
    # 2. Pirate or Mercantile mode
    p["ship"]["pirate"] = a["pirate"] and p["ship"]["at"] != HARBOR
    # 3. lose unspent Sails
    p["ship"]["sails"] = 0
    # 4. sleeve Advancements
    for s in a["sleeve"]:
        adv = s["advancement"]
        _own_card(p, s["card"])["slots"][cat.cards[adv]["slot"]] = adv
        p["set_aside"].remove(adv)
    # 5. discard and draw (the draw is a chance step)
    bonus = played_icons(cat, p, "bonus_draw")
    p["discard"] += p["played"]
    p["played"] = []
    want = max(0, min(DRAW + bonus, hand_limit(cat, d, player) - len(p["hand"])))
    _queue_draw(d, player, want)
    notice(out, "cleanup", player=player, draw=want, pirate=p["ship"]["pirate"])
    d["after"] = "end_turn"
    if not d["pending"]:
        _after_chance(d, out)


def _queue_draw(d: dict[str, Any], player: str, n: int) -> None:
    p = d["p"][player]
    if n <= 0:
        return
    if len(p["deck"]) <= n:
        # the whole draw pile is drawn without chance, then the discards are shuffled into a new deck
        n -= len(p["deck"])
        p["hand"] += p["deck"]
        p["deck"] = sorted(p["discard"])
        p["discard"] = []
        n = min(n, len(p["deck"]))
    if n:
        d["pending"].append({"kind": "draw_sailors", "player": player, "count": n})


def _finish_turn(d: dict[str, Any], out: list[dict]) -> None:
    me = d["active"]
    p = d["p"][me]
    cards = p["cards"]
    can = False
    for c in p["hand"]:
        if cards[c]["level"] < 4:
            can = True
            break
    p["level_up"] = can
    fin = d["final"]
    if fin is None and len(achieved(d, me)) >= 4:
        d["final"] = fin = {"triggered_by": me, "remaining": [c for c in _seat_order_after(d, me)]}
        p["final_done"] = True
        notice(out, "game_end_triggered", player=me)
    elif fin is not None and me in fin["remaining"]:
        fin["remaining"].remove(me)
        p["final_done"] = True
    if fin is not None and not fin["remaining"]:
        _game_over(d, out)
        return
    nxt = fin["remaining"][0] if fin else _seat_order_after(d, me)[0]
    _start_turn(d, nxt, out)


def _seat_order_after(d: dict[str, Any], me: str) -> list[str]:
    i = d["players"].index(me)
    return d["players"][i + 1:] + d["players"][:i]


def _game_over(d: dict[str, Any], out: list[dict]) -> None:
    from rules.scoring import score_game

    d["phase"] = "over"
    d["active"] = None
    d["scores"] = score_game(d)
    notice(out, "game_over", **d["scores"])


# ---- achievements


def _place_marker(d: dict[str, Any], color: str, ach: str, out: list[dict]) -> None:
    p = d["p"][color]
    if color in d["achievements"][ach] or p["markers"] <= 0:
        return
    d["achievements"][ach].append(color)
    p["markers"] -= 1
    if ach in d["achievement_cubes"]:
        p["cubes"] += d["achievement_cubes"][ach].pop(color, 0)
    notice(out, "achievement", player=color, achievement=ach)


def check_achievements(d: dict[str, Any], color: str, out: list[dict]) -> None:
    """Place markers for achievements met; only on the player's own turn (starred ones wait for it)."""
    if d["active"] != color or d["phase"] != "main":
        return
    p = d["p"][color]
    cubes = d["achievement_cubes"]
    achs = d["achievements"]
    if color not in achs["legendary"] and cubes["legendary"].get(color, 0) >= 4:
        _place_marker(d, color, "legendary", out)
    # (plain loops: a comprehension is a call of its own, and this runs after most actions)
    if color not in achs["expert_sailors"]:
        level4 = 0
        for c in p["cards"].values():
            if c["level"] == 4:
                level4 += 1
        if level4 >= 3:
            _place_marker(d, color, "expert_sailors", out)
    if color not in achs["terror_of_the_sea"] and p["sank"]:
        _place_marker(d, color, "terror_of_the_sea", out)
    if color not in achs["capitalist"] and p["chest"] >= 30:
        _place_marker(d, color, "capitalist", out)
    if color not in achs["elite_vessel"] and sum(map(len, p["ship"]["hull"])) >= 4:
        _place_marker(d, color, "elite_vessel", out)
    grid = d["grid"]
    if color not in achs["explorer"]:
        need = catalog(d).explorer_needed[str(len(d["players"]))]
        mine = cubes["explorer"].get(color, 0)
        if mine >= need:
            _place_marker(d, color, "explorer", out)
        else:  # fewer face-down boards left than cubes still needed: it can no longer be met
            short = need - mine
            for sq in SQUARES:
                if grid[sq]["board"] is None:
                    short -= 1
                    if not short:
                        break
            else:
                p["cubes"] += cubes["explorer"].pop(color, 0)
    builder, settler = color not in achs["builder"], color not in achs["settler"]
    if builder or settler:
        buildings = perm = 0
        for g in grid.values():  # every square of the grid (order does not matter for the sums)
            isl = g["island"]
            if isl:
                if isl["permanent"]:
                    perm += isl["permanent"].get(color, 0)
                if isl["controller"] == color:
                    bs = isl["buildings"]
                    buildings += bs["fort"] + bs["garrison"] + bs["outpost"]
        if builder and buildings >= 5:
            _place_marker(d, color, "builder", out)
        if settler and perm >= 6:
            _place_marker(d, color, "settler", out)


# ---- bonus tokens


def check_choose_bonus(d: dict[str, Any], player: str, a: dict[str, Any]) -> dict[str, Any]:
    if player not in d["players"]:
        raise Invalid("only a player keeps a Bonus Achievement token.")
    p = d["p"][player]
    if p["bonus"] is not None or not p["bonus_offer"]:
        raise Illegal("you have no Bonus Achievement tokens to choose from.")
    if a.get("token") not in p["bonus_offer"]:
        raise Illegal(f"choose one of your two dealt tokens: {p['bonus_offer']}.")
    return {"type": "choose_bonus", "token": a["token"]}


def do_choose_bonus(d: dict[str, Any], player: str, a: dict[str, Any], out: list[dict]) -> None:
    p = d["p"][player]
    p["bonus"] = a["token"]
    for t in p["bonus_offer"]:
        if t != a["token"]:
            d["bonus_pool"].append(t)
    p["bonus_offer"] = []


CHECKS = {
    "reveal_board": check_reveal_board, "draw_advancement": check_draw_advancement,
    "draw_sailors": check_draw_sailors, "choose_first_player": check_choose_first_player,
    "deal_bonus": check_deal_bonus, "choose_bonus": check_choose_bonus,
    "load": check_load, "unload": check_unload, "rearrange": check_rearrange, "jettison": check_jettison,
    "play_card": check_play_card, "level_up": check_level_up, "set_sails": check_set_sails, "move": check_move,
    "buy": check_buy, "master_merchant": check_master_merchant, "use_ability": check_use_ability,
    "attack": check_attack, "attack_merchant": check_attack_merchant, "attack_building": check_attack_building,
    "resolve_battle": check_resolve_battle, "end_turn": check_end_turn,
}
# What the commonest actions may change besides seq, rng and the turn log, beyond the acting player's own
# board and the grid squares `_touched_squares` names (outside a battle, in the main phase): `apply` copies
# only these and shares the rest of the state with the previous one. Anything not listed (battles,
# attacks, chance) copies it all.
TOUCHES: dict[str, tuple[str, ...]] = {
    "play_card": ("turn",),
    "set_sails": ("turn",),
    "load": ("turn",),
    "unload": ("turn", "achievements", "achievement_cubes"),
    "level_up": ("turn", "achievements", "achievement_cubes"),
    "rearrange": (),
    "jettison": ("supply",),
    "buy": ("turn", "supply"),
    # exploring flips a board and draws its card (auto chance); Garrison fire may sink the ship
    "move": ("turn", "pending", "pool", "decks", "supply", "achievements", "achievement_cubes", "battle_queue"),
    "use_ability": ("turn", "supply", "upgrade_supply", "achievements", "achievement_cubes"),
    # cleanup: refills and draws (auto chance), the next turn's start resets every player's used abilities
    # (reassigned, so the others' boards are copied one level deep) and may place the next player's markers
    "end_turn": ("turn", "pending", "decks", "supply", "achievements", "achievement_cubes", "final"),
}
# For some of those, the parts of the actor's board they may edit inside (the rest of it is only
# reassigned, field by field: cubes, markers, dock, chest, level_up, cards via `_own_card`).
PLAYER_FIELDS: dict[str, tuple[str, ...]] = {
    "play_card": ("hand", "played"),
    "set_sails": ("ship",),
    "level_up": (),
    "load": ("ship",),
    "unload": ("ship",),
    "rearrange": ("ship",),
    "jettison": ("ship",),
    "buy": ("ship", "set_aside"),
    "move": ("ship",),
    "use_ability": ("used", "ship"),
    # cleanup and the draw after it; the next turn's start reassigns `used` and the counters
    "end_turn": ("hand", "played", "discard", "deck", "set_aside", "ship"),
}
DOS = {
    "reveal_board": do_reveal_board, "draw_advancement": do_draw_advancement, "draw_sailors": do_draw_sailors,
    "choose_first_player": do_choose_first_player, "deal_bonus": do_deal_bonus, "choose_bonus": do_choose_bonus,
    "load": do_load, "unload": do_unload, "rearrange": do_rearrange, "jettison": do_jettison,
    "play_card": do_play_card, "level_up": do_level_up, "set_sails": do_set_sails, "move": do_move,
    "buy": do_buy, "master_merchant": do_master_merchant, "use_ability": do_use_ability, "attack": do_attack,
    "attack_merchant": do_attack_merchant, "attack_building": do_attack_building,
    "resolve_battle": do_resolve_battle, "end_turn": do_end_turn,
}

__all__ = ["apply", "fold", "replay", "new_game", "apply_battle_outcome", "build_setup", "RulesError"]
