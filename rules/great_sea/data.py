"""The printed values of the Player Board and Main Board tracks (a documented sample: rules/data/great_sea/
board.json) and the names the other modules share."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parents[1] / "data" / "great_sea"
DICE = ("develop", "fortify", "trade", "research", "construct", "mobilise")
CLASSES = ("small", "medium", "large")
FORTS = ("stronghold", "outpost")
PARTS = ("stern", "hull", "bow")
COMBAT_STATS = ("mobility", "attack", "shields", "flames", "strength")


def load(name: str) -> Any:
    return json.loads((DATA / name).read_text())


@cache
def board() -> dict[str, Any]:
    data: dict[str, Any] = load("board.json")
    return data
