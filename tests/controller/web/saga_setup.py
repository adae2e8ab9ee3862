"""A Deep Legends game laid out close to its saga moments (set-up shortcuts, as a referee would lay out the
table): the active player's Ship on an island where the sample saga's Non-Merchant Encounter (Drifting
Longboat, 1.00-a) and Fortune Encounter (Gull Omen, 1.00-b) lie, with Coins to explore, and the next player
owning the saga item Pearl of the Deep (1.07)."""

from __future__ import annotations

import random
from typing import Any

from rules import api
from rules.core.state import GameState
from rules.dead_reckoning.deep_legends import saga as sg
from tests.rules.helpers import place_island

ENCOUNTER, FORTUNE, ITEM = "1.00-a", "1.00-b", "1.07"
SQUARE = "r1c1"


def saga_options(players: list[str], observed: bool = False) -> dict[str, Any]:
    st = sg.assign_items(sg.new_saga_state(sg.load_saga()), {ITEM: players[1]})
    return {
        "deep_legends": {"saga": st, "items": {players[1]: [ITEM]}, "influence_tiles": True},
        "auto_chance": not observed,
    }


def to_main(state: GameState, seed: int = 2) -> GameState:
    """The set-up's chance steps drawn (boards, hands, first player) until the first turn's main phase."""
    rng = random.Random(seed)
    while state.phase != "main" or state.data["pending"]:
        acts = api.legal_actions(state, "table")
        state, _ = api.apply(state, {"seq": state.seq, "player": "table", "action": rng.choice(acts)})
    return state


def lay_saga_moment(state: GameState) -> str:
    """Lay the two saga cards on SQUARE (an island), the active player's Ship there with 3 Coins in the
    chest; returns the active player."""
    d = state.data
    me = state.active
    assert me is not None
    place_island(state, SQUARE, "island-05")
    dl = d["deep_legends"]
    for card in (ENCOUNTER, FORTUNE):
        row = str(sg.load_saga()["by_id"][card]["row"])
        dl["rows"][row].remove(card)
        dl["board"].setdefault(SQUARE, []).append(card)
    p = d["p"][me]
    p["ship"]["at"] = SQUARE
    p["chest"] = max(p["chest"], 3)
    return me
