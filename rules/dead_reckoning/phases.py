"""Phases of a turn (rulebook: "Turn overview"): setup, then each player's turn in the main phase, then
"over". Who may act now (`require_active`), what chance step the table owes (`need_pending`), that a
battle blocks everything else (`not_in_battle`), and a turn's fresh counters (`fresh_turn`).

`STAGES` is the turn structure at a glance (as boardgame.io shows phases, turns and stages): in each stage
of the game, which action types each seat may send. The actions' checks enforce it;
tests/rules/dead_reckoning/test_phases.py plays random games and checks that `legal_actions` never offers
anything outside it and that the checks refuse what it leaves out.
"""

from __future__ import annotations

from typing import Any

from contracts.chance import CHANCE_TYPES
from rules.core.errors import Illegal
from rules.dead_reckoning.model import PlayerBoard, State, Turn

CHANCE = frozenset(CHANCE_TYPES)
# any player, any time before a battle's drop: make room, throw overboard (rulebook: "Cargo and Coins"), and
# answer their own pending choices (`choices`: plunder to place, a gain owed, Battle cubes from islands)
ANY_TIME = frozenset({"rearrange", "jettison", "choose"})
# after their turn, until their next turn's first action; a dealt Bonus token is kept whenever
BETWEEN_TURNS = frozenset({"level_up", "choose_bonus"})
TURN = frozenset(
    {
        "set_sails",
        "move",
        "load",
        "unload",
        "play_card",
        "buy",
        "master_merchant",
        "use_ability",
        "attack",
        "attack_merchant",
        "attack_building",
        "end_turn",
        "undo",
    }
)

# stage -> seat -> action types: "active" is the player whose turn it is, "defender" the player attacked
# in the battle under way, "other" any other player, "table" the table itself (chance and battle records)
STAGES: dict[str, dict[str, frozenset[str]]] = {
    # the table owes a chance outcome (a board, a card, a hand, the first player, Bonus tokens): the game
    # waits for it, but a player may still make room on their Ship
    "chance": {"table": CHANCE, "active": CHANCE | ANY_TIME, "other": CHANCE | ANY_TIME},
    # a battle is under way: the defender may add cards with Cannons, anyone may make room, the table reports
    # the drop (a record), and nothing else happens until it is resolved
    # (`battle_drop_started`: the battle session says the cubes are being dropped; from then on the two
    # sides may no longer make room or add cards: "once the battle has begun")
    "battle": {
        "table": frozenset({"battle_drop_started", "resolve_battle"}),
        "active": ANY_TIME | BETWEEN_TURNS | {"battle_drop_started", "resolve_battle"},
        "defender": ANY_TIME | BETWEEN_TURNS | {"play_card", "battle_drop_started", "resolve_battle"},
        "other": ANY_TIME | BETWEEN_TURNS,
    },
    # a player's turn: its actions (any order, each within its limits), then end_turn runs the Cleanup phase
    "turn": {
        "table": frozenset(),
        "active": TURN | ANY_TIME | BETWEEN_TURNS,
        "other": ANY_TIME | BETWEEN_TURNS,
    },
    # the end-of-game tie-break battle (phase "tiebreak"): the table or a tied player reports its drop; no
    # turn, no making room ("Resolve exploding shots but not Battle abilities")
    "tiebreak": {
        "table": frozenset({"battle_drop_started", "resolve_battle"}),
        "active": frozenset(),
        "other": BETWEEN_TURNS | {"battle_drop_started", "resolve_battle"},
    },
    "over": {"table": frozenset(), "active": frozenset(), "other": frozenset()},
}


def stage_of(d: State) -> str:
    """The stage the game is in: "chance", "battle", "turn", "tiebreak" or "over" (a key of `STAGES`)."""
    if d["phase"] in ("over", "tiebreak"):
        return d["phase"]
    if d["pending"]:
        return "chance"
    if d["battle"]:
        return "battle"
    return "turn"


def battle_players(d: State) -> list[str]:
    """The players fighting the battle under way: the active player and the defender, or every tied player
    of the end-of-game tie-break."""
    b = d["battle"]
    if not b:
        return []
    if b["kind"] == "tiebreak":
        return list(b["players"])
    return [c for c in (d["active"], b.get("defender_player")) if c]


def seat_of(d: State, player: str) -> str:
    """The seat `player` sends from in the current stage (a key of `STAGES[stage]`)."""
    if player == "table":
        return "table"
    if player == d["active"]:
        return "active"
    if d["battle"] and player == d["battle"].get("defender_player"):
        return "defender"
    return "other"


def fresh_turn() -> Turn:
    return {
        "sails_set": False,
        "explored": False,
        "bought": 0,
        "battled": [],
        "beaten": [],
        "extra_sails": 0,
        "battles": 0,
        "acted": False,
    }


def active_player(d: State) -> str:
    """The player whose turn it is: there is one throughout the main phase (None only in setup and after
    the end), so a turn's rules may rely on it."""
    me = d["active"]
    assert me is not None, "a turn's rule ran outside a turn"
    return me


def battle_under_way(d: State) -> dict[str, Any]:
    """The battle being fought: the battle rules run only while there is one."""
    b = d["battle"]
    assert b is not None, "a battle rule ran with no battle under way"
    return b


def need_pending(d: State, kind: str) -> dict[str, Any]:
    if not d["pending"] or d["pending"][0]["kind"] != kind:
        want = d["pending"][0]["kind"] if d["pending"] else "nothing"
        raise Illegal(
            f"the table is not waiting for {kind.replace('_', ' ')} now (it waits for "
            f"{want.replace('_', ' ')})."
        )
    return d["pending"][0]


def require_active(d: State, player: str, what: str) -> PlayerBoard:
    if d["phase"] == "over":
        raise Illegal("the game is over.")
    if d["pending"]:
        raise Illegal(f"the table must first report {d['pending'][0]['kind'].replace('_', ' ')}.")
    if d["battle"]:
        raise Illegal("a battle is under way: finish it first.")
    if d["phase"] != "main" or player != d["active"]:
        raise Illegal(f"only the active player ({d['active']}) may {what} now.")
    return d["p"][player]


def mark_acted(d: State, player: str) -> None:
    if not d["turn"]["acted"]:
        d["turn"]["acted"] = True
        d["p"][player]["level_up"] = False  # levelling must happen before the turn's first action


def not_in_battle(d: State, player: str) -> None:
    """ "once the battle has begun, you can no longer do this until the battle is over": the two sides of
    the battle whose drop has started (a player outside the battle is not held)."""
    if d["phase"] == "tiebreak":
        raise Illegal("the game is over: only the tie-break battle remains, and Ships no longer change.")
    b = d["battle"]
    if b and b.get("locked") and player in (d["active"], b.get("defender_player")):
        raise Illegal("the battle has begun: cargo can be rearranged or jettisoned only after it ends.")
