"""Setup (rulebook: "Preparation (Setup)", the Letters of Marque steps): the Explorer Sailor card in every
starting deck, the new Ship Upgrade tiles and the Trade vessel cards (card data: `data.extend_catalog`),
Current and Peak Favor markers on the start space of both Empire boards, the Letter of Marque tokens on
their boards, the 14 Favor Reward tokens at random across both tracks (`place_favour_rewards`, a chance
outcome), and Random Prime Cargo: a reminder token face down on every undiscovered board (the row-1 boards
get theirs as they are revealed, `prime_cargo.after_reveal`).
"""

from __future__ import annotations

from typing import Any

from contracts.grid import SQUARES
from rules.core.actions import Action
from rules.core.errors import Invalid
from rules.core.state import rng_below
from rules.dead_reckoning.letters_of_marque.data import lom_data
from rules.dead_reckoning.letters_of_marque.model import lom
from rules.dead_reckoning.model import State
from rules.dead_reckoning.phases import need_pending

ROW_1 = ("r1c1", "r1c2", "r1c3")


def set_up(d: State, created: dict[str, Any], out: list[dict[str, Any]]) -> None:
    data = lom_data()
    players = d["players"]
    empires = sorted(data.empires)
    reminders = [sq for sq in SQUARES if sq not in ROW_1]  # face down at setup: a reminder on each
    x: dict[str, Any] = {
        "bag": sorted(data.tokens),
        "hidden_out": len(reminders),
        "discard": [],
        "boards": {
            sq: {"water": {"hidden": 0, "found": []}, "island": {"hidden": 0, "found": []}} for sq in SQUARES
        },
        "reminders": reminders,
        "harbor": {c: [] for c in players},
        "ship": {c: [[], []] for c in players},
        "rewards": {e: {} for e in empires},
        "letters_free": {e: sorted(t["id"] for t in data.empires[e]["letters"]) for e in empires},
        "favour": {c: {e: [0, 0] for e in empires} for c in players},
        "letters": {c: [] for c in players},
        "claims": {c: [] for c in players},
        "used": {},
        "bolstered": {},
    }
    d["lom"] = x  # type: ignore[typeddict-unknown-key]  # the expansion's own part of the state (model.py)
    d["pending"].append({"kind": "place_favour_rewards"})


def check_place_rewards(d: State, player: str, a: dict[str, Any]) -> dict[str, Any]:
    need_pending(d, "place_favour_rewards")
    data = lom_data()
    placed = a.get("rewards")
    if not isinstance(placed, dict) or sorted(placed) != sorted(data.empires):
        raise Invalid(f"'rewards' must map each empire ({', '.join(sorted(data.empires))}) to its tokens.")
    seen: list[str] = []
    for e, ids in placed.items():
        n = len(data.empires[e]["track"]["reward_spaces"])
        if not isinstance(ids, list) or len(ids) != n or not all(isinstance(t, str) for t in ids):
            raise Invalid(f"{e} has {n} reward spaces: list {n} Favor Reward tokens, left to right.")
        seen += ids
    if sorted(seen) != sorted(data.rewards):
        raise Invalid("the Favor Reward tokens must be placed all of them, each once, across both tracks.")
    return {"type": "place_favour_rewards", "rewards": {e: list(ids) for e, ids in sorted(placed.items())}}


def do_place_rewards(d: State, player: str, a: dict[str, Any], out: list[dict[str, Any]]) -> None:
    d["pending"].pop(0)
    data = lom_data()
    for e, ids in a["rewards"].items():
        spaces = data.empires[e]["track"]["reward_spaces"]
        lom(d)["rewards"][e] = {str(s): t for s, t in zip(spaces, ids, strict=True)}


def draw_rewards(d: State) -> dict[str, Any]:
    data = lom_data()
    pool = sorted(data.rewards)
    placed: dict[str, list[str]] = {}
    for e in sorted(data.empires):
        placed[e] = [pool.pop(rng_below(d, len(pool))) for _ in data.empires[e]["track"]["reward_spaces"]]
    return {"type": "place_favour_rewards", "rewards": placed}


ACTIONS: tuple[Action[State], ...] = (
    Action("place_favour_rewards", check_place_rewards, do_place_rewards, chance=True),
)
