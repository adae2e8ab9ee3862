"""The battle board's layout file as plain JSON, without OpenCV: for parts that only need its zones."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

DEFAULT_LAYOUT_PATH = Path(__file__).parent / "data" / "battle-board.json"


def battle_board_json(path: str | Path | None = None) -> dict[str, Any]:
    """The layout at `path`, or the shipped default battle board; raises OSError or ValueError."""
    return json.loads(Path(path or DEFAULT_LAYOUT_PATH).read_text())
