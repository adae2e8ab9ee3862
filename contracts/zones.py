"""The kinds of zone on the battle board, as the rulebook's five battle steps name them.

The vision layout file (`smart-table/board-layout@1`) and the rules' battle board both use these
names; an exploding zone is resolved first, then plunder, damage and strength; a miss counts for nothing.
"""

from __future__ import annotations

from typing import Literal

ZoneKind = Literal["exploding", "plunder", "damage", "strength", "miss"]
ZONE_KINDS: tuple[str, ...] = ("exploding", "plunder", "damage", "strength", "miss")
