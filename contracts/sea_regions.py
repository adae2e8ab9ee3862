"""The Great Sea at the table: what the camera's region reader and its users agree on.

The table layout keeps its format name `smart-table/table-layout@1`; a layout of The Great Sea's map adds
`"game": "great-sea"`, the Main Board side (`"map"`: "2", "3" or "4") and `regions` (polygons in board
millimetres whose ids are the rules engine's region ids). A reading (`smart-table vision regions`) names,
per region, the pieces seen: `{"owner", "kind", "damaged", "confidence"}` with `kind` one of
`PIECE_KINDS`; what the camera cannot tell is listed under `unsure` with a crop. Shapes: docs/great-sea.md.
"""

from __future__ import annotations

TABLE_LAYOUT_FORMAT = "smart-table/table-layout@1"
GAME = "great-sea"
SIDES: tuple[str, ...] = ("2", "3", "4")
SHIP_CLASSES: tuple[str, ...] = ("small", "medium", "large")
FORT_CLASSES: tuple[str, ...] = ("stronghold", "outpost")
PIECE_KINDS: tuple[str, ...] = SHIP_CLASSES + FORT_CLASSES
STATUSES: tuple[str, ...] = ("ok", "ambiguous", "no-table")
READING_FORMAT = "smart-table/sea-regions-reading@1"
