"""The shape of a Great Sea state: typed views (TypedDicts) of the plain JSON data the core keeps.

Keys are those of the saved JSON (the controller's log and the tablets read them). Stats are plain
`dict[str, int]` keyed by the rulebook's icon names (mobility, attack, shields, flames, strength, health,
speed, fleet, foundation, fortify_reduction, shipyard).
"""

from __future__ import annotations

from typing import Any, TypedDict

Stats = dict[str, int]


class Ship(TypedDict):
    owner: str
    cls: str  # small, medium, large
    damaged: bool  # laid down on its side
    moved: bool  # moved during the current Mobilise action


class Region(TypedDict):
    post: list[Any] | None  # [owner, exhausted] of the Trade Post on its outlined space
    forts: list[list[str]]  # [owner, "stronghold" | "outpost"]
    ships: list[Ship]
    temple: int | None  # the Temple's number (1-6) on a Temple space
    foundations: list[str]  # the free Foundations' benefits: coins, wood, pip
    home: str | None  # whose home region


class Card(TypedDict):
    id: str  # a Player Action Card ("develop" ...) or a Special Action Card id
    flipped: bool


class ShipTile(TypedDict):
    tile: str  # "type:index"
    flipped: bool


class Player(TypedDict):
    seat: int  # 0 = first player
    home: str
    dice: list[int]  # physical values, Develop first (index 0 = Action Card 1)
    cards: dict[str, Card]  # "1".."6"; copy-on-write (the core shares it between copies)
    wood: int
    coins: int
    neutral: int  # Neutral Workers in this player's supply
    ships: dict[str, int]  # Ships left above the Player Board, by class
    classes: dict[str, int]  # Ship Class Tile stage: 0 faceup, 1 turned, 2 removed
    fleet: int  # Fleet Tile stage
    forts: dict[str, int]  # Forts left on the Player Board, by class
    forts_supply: dict[str, int]  # this player's Forts removed to the Main Supply
    posts: int  # Trade Posts left on the Player Board
    posts_supply: int  # this player's Trade Posts returned to the Main Supply
    ship_tiles: dict[str, dict[str, ShipTile | None]]  # class -> stern/hull/bow
    fort_tiles: dict[str, list[str]]  # class -> tiles on its grid, in the order placed (bottom first)
    fort_places: dict[str, list[list[int]]]  # class -> each tile's [row, col] (+ [row2, col2])
    hand: list[str]  # Combat Cards in hand (secret)
    lost: list[str]  # Combat Cards lost (faceup near the board)
    temple: int  # Temple Points
    combat: int  # Combat Points
    trade: int  # Trade Points


class Open(TypedDict):
    card: int  # the Action Card (1-6) holding the Worker
    step: int  # the next effect (0-based); effects run top to bottom
    pips: int  # pips left to use (Research, Construct, Mobilise)
    piles: list[str]  # Upgrade Tile Piles gained from this Research action


class Turn(TypedDict):
    start_done: bool  # the start-of-turn action is taken (or a Worker was placed)
    placed: int  # Workers placed this turn
    used: list[int]  # Action Cards used this turn
    open: Open | None


class State(TypedDict):
    seq: int
    players: list[str]  # turn order from the first player once chosen
    options: dict[str, Any]
    rng: int
    phase: str  # "setup", "main" (a turn, combat included), "over"
    stage: str  # setup: "first", "special", "deal", "pips"; main: "turn"
    active: str | None  # who must act now (during a Combat: who must choose)
    turn_player: str | None
    order: list[str]  # setup: who chooses next (reverse turn order for Special Action Cards)
    map: str  # the Main Board side: "2", "3" or "4"
    regions: dict[str, Region]
    p: dict[str, Player]
    specials: dict[str, list[str]]  # Special Action Card Piles by number, top first (setup)
    piles: dict[str, list[str]]  # Upgrade Tile Piles, top first
    rows: dict[str, list[str]]  # grid row -> Pile ids left to right (stern, hull, bow, fort, small_fort)
    discards: dict[str, list[str]]  # tile type -> tiles removed to the Main Supply
    turn: Turn
    combat: dict[str, Any] | None  # the Combat under way (rules.great_sea.combat)
    pending: list[dict[str, Any]]
    winner: str | None
    turn_no: int
    turn_base: Any
    turn_log: list[dict[str, Any]]
    created: dict[str, Any]


def resource(p: Player, res: str) -> int:
    """The player's Wood or Coins by name."""
    if res == "wood":
        return p["wood"]
    if res == "coins":
        return p["coins"]
    raise ValueError(f"not a resource: {res}")


def gain(p: Player, res: str, n: int) -> None:
    """Add `n` (negative: spend) Wood or Coins; a Neutral Worker as "neutral"."""
    if res == "wood":
        p["wood"] += n
    elif res == "coins":
        p["coins"] += n
    elif res == "neutral":
        p["neutral"] += n
    else:
        raise ValueError(f"not a resource: {res}")
