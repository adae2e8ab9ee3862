"""The shape of a Dead Reckoning state: typed views (TypedDicts) of the plain data the core keeps.

The state stays plain JSON data at run time (so a save, a copy, an undo base and the MQTT views need no
conversion and stay byte-identical); these types are what the chapters are checked against statically
(mypy). Keys are those of the saved JSON, which the controller's log and the tablets read, so they keep
their historical spelling where it differs from the rulebook's words: an island's `controller` is the
player who controls it (the rulebook's "controls the island"; the functions say `controlled_by`), `p`
maps each player's colour to their player board, a hold is `[cargo, coins]`.
"""

from __future__ import annotations

from typing import Any, NotRequired, TypedDict


class Ship(TypedDict):
    at: str  # a square r1c1..r4c3 or "harbor"
    holds: list[list[int]]  # [hold of 4, hold of 3], each [cargo, coins]
    sails: int
    damage: int
    pirate: bool  # Pirate mode (else Mercantile)
    hull: list[list[str]]  # the 4 hull spaces, Ship Upgrade tiles stacked (last on top)
    # hull spaces of each hold taken by goods other than Cargo and Coins (an expansion's, e.g. Prime Cargo);
    # present only while an expansion has put some aboard
    other: NotRequired[list[int]]


class SailorCard(TypedDict):
    sailor: str  # the kind (captain, gunner, ...)
    level: int  # 1-4
    slots: dict[str, str | None]  # sleeve slots top/middle/bottom -> Advancement id


class PlayerBoard(TypedDict):
    chest: int  # Treasure chest Coins (secret)
    dock: int  # Cargo on the Dock
    cubes: int  # cubes in the player's supply
    markers: int  # Achievement markers left
    ship: Ship
    cards: dict[str, SailorCard]  # copy-on-write: replaced, never edited in place
    deck: list[str]
    hand: list[str]
    discard: list[str]
    played: list[str]
    set_aside: list[str]  # Advancements bought this turn, to sleeve at cleanup
    level_up: bool  # may level a card (after their turn, until their next first action)
    bonus: int | None
    bonus_offer: list[int]
    sank: int  # ships this player sank (Terror of the Sea)
    used: list[str]  # abilities used this turn
    cannons_used: int
    flags_used: int
    final_done: bool
    # Cargo/Coins a gain put on a full Ship (present only while some are owed): taken aboard as soon as the
    # player makes room (jettison, unload), returned to the supply at the end of their turn (ship.owe_gain)
    owed: NotRequired[dict[str, int]]
    # Plunder that found no hold with room, waiting for the player to place it (`choices`): "cargo", "coins"
    # and "square" (the battle's square, whose island may take it)
    plunder: NotRequired[dict[str, Any]]
    # achievement cubes earned with an empty supply (present only while owed), one achievement name per cube:
    # the player chooses the island it comes from, or leaves it unplaced (`choices`, kind `achievement_cube`)
    cubes_owed: NotRequired[list[str]]
    # icons an expansion's ongoing pieces give (e.g. a Letter of Marque), counted as printed on the Ship board
    extra_icons: NotRequired[dict[str, int]]


class Island(TypedDict):
    cubes: list[str | None]  # Influence slots: a colour or None (empty)
    permanent: dict[str, int]  # permanent cubes by colour
    cargo: int
    coins: int
    controller: str | None  # the player who controls the island (rulebook: "controls")
    buildings: dict[str, bool]  # fort, garrison, outpost
    strikes: dict[str, int]
    # whose the Buildings are while nobody controls the island (present only then): docs/rules-engine.md
    built_by: NotRequired[str]


class Square(TypedDict):
    board: str | None  # the Ocean board id once revealed
    card: str | None  # the Advancement/Encounter on it
    island: Island | None


class Turn(TypedDict):
    sails_set: bool
    explored: bool
    bought: int
    battled: list[str]
    beaten: list[str]  # opponents beaten this turn (their blockade is lifted)
    extra_sails: int
    battles: int
    acted: bool  # the active player has acted (levelling is over)


class FinalRound(TypedDict):
    triggered_by: str
    remaining: list[str]


class Pool(TypedDict):
    islands_left: int
    islands: list[str]
    open_seas: list[str]


class State(TypedDict):
    seq: int
    players: list[str]  # seat order, from the first player once chosen
    options: dict[str, Any]
    rng: int
    phase: str  # "setup", "main" (a player's turn), "tiebreak" (the end-of-game tie-break battle), "over"
    active: str | None
    first: str | None
    turn_no: int
    pending: list[dict[str, Any]]  # chance requests the table owes, first first
    after: str | None  # what follows once they are answered: "start" or "end_turn"
    battle: dict[str, Any] | None  # the battle under way (kind, defender, setup as JSON, cannons)
    battle_queue: list[dict[str, Any]]
    final: FinalRound | None
    scores: dict[str, Any] | None
    turn_base: Any  # the turn's undo base (rules.core.state)
    turn_log: list[dict[str, Any]]
    created: dict[str, Any]
    pool: Pool
    grid: dict[str, Square]
    decks: dict[str, list[str]]  # row -> card ids still in its box
    buried: dict[str, list[str]]
    supply: dict[str, int]
    upgrade_supply: dict[str, int]
    achievements: dict[str, list[str]]  # achievement -> colours with a marker on it
    achievement_cubes: dict[str, dict[str, int]]
    bonus_pool: list[int]
    turn: Turn
    p: dict[str, PlayerBoard]
