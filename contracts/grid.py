"""The ocean grid: 4 rows x 3 columns of squares `r1c1`..`r4c3` (row 1 touches the Harbor), and the Harbor.

Squares are named `r<row>c<col>`; `neighbours` gives orthogonal adjacency, the Harbor touching the
three row-1 squares; `step` follows an open-sea arrow (N = toward the Harbor).
"""

from __future__ import annotations

ROWS = 4
COLS = 3
SQUARES: tuple[str, ...] = tuple(f"r{r}c{c}" for r in range(1, ROWS + 1) for c in range(1, COLS + 1))
HARBOR = "harbor"
PLACES: tuple[str, ...] = (HARBOR, *SQUARES)
DIRECTIONS: dict[str, tuple[int, int]] = {"N": (-1, 0), "S": (1, 0), "E": (0, 1), "W": (0, -1)}


def _adjacent(square: str) -> tuple[str, ...]:
    if square == HARBOR:
        return tuple(f"r1c{c}" for c in range(1, COLS + 1))
    r, c = int(square[1]), int(square[3])
    out = []
    if r == 1:
        out.append(HARBOR)
    if r > 1:
        out.append(f"r{r - 1}c{c}")
    if r < ROWS:
        out.append(f"r{r + 1}c{c}")
    if c > 1:
        out.append(f"r{r}c{c - 1}")
    if c < COLS:
        out.append(f"r{r}c{c + 1}")
    return tuple(out)


ADJACENT: dict[str, tuple[str, ...]] = {sq: _adjacent(sq) for sq in PLACES}


def neighbours(square: str) -> list[str]:
    """Orthogonal neighbours of a square or the Harbor (a new list: callers may edit it)."""
    return list(ADJACENT[square])


def step(square: str, direction: str) -> str | None:
    """The square an open-sea arrow points at (N = toward the Harbor); None off the grid."""
    r, c = int(square[1]), int(square[3])
    dr, dc = DIRECTIONS[direction]
    r, c = r + dr, c + dc
    if 1 <= r <= ROWS and 1 <= c <= COLS:
        return f"r{r}c{c}"
    return None
