"""Telling an arm of the back's colour from a face-down board (round 7, issue 12).

A face-down board is the back's print filling its square and ending at the board's outline; no board
lies on the table's frame. An arm or a sleeve reaches a board from the table's edge, over the frame. So a
region of the back's colour that reaches the frame is an arm, whatever its colour says, and a square
whose back-coloured inside belongs to such a region cannot be called face down: either a hand of the
back's colour covers a face-up board (the confident wrong answer of round 6, table 8117 scene 9) or it
lies over a face-down board, and the photo cannot tell which. A hand whose colour breaks between hand
and arm (a brighter palm clipped nearer neutral, a sleeve) does not join the arm's region; so while an arm
of the back's colour is over the table, a square is face down only where its back visibly ends at the
board's outline (the ring around the square shows no back colour, bar neighbouring face-down boards).
The rules were decided on the tuning tables (docs/bench/ships.md, round 7).
"""

from __future__ import annotations

from collections.abc import Callable

import cv2
import numpy as np

from vision.geometry import apply_homography
from vision.ocean_grid.classification import frame_pixels
from vision.ocean_grid.layout import TableLayout

# The top-down view the regions are traced in (mm per pixel): an arm is 5 cm wide or more, a board 15 cm.
REACH_MM_PER_PX = 5.0
# The frame starts this far outside the grid's squares and the Harbor: a board lies at most a few mm past
# its square (the layout's squares leave a little room around each board).
FRAME_ZONE_MM = 12.0
# Back-coloured samples on the frame (its 14 mm sampling grid) from which something of the back's colour
# lies on the frame: an arm 5 cm wide covers a dozen or more, a speck of noise one.
FRAME_BACK_SAMPLES = 3
# A square whose inside is covered this much by a back-coloured region reaching the frame is not read
# face down. A board touched by such a region joins it whole (the same colour, adjacent), so the share is
# either near 0 or most of the square; the value sits between.
REACH_SHARE = 0.25
# The ring around a square where its board's back may not continue: from RING_MM[0] outside the square (a
# board lies within a few mm of it) to RING_MM[1]; the share of it that may look like the back (art and
# noise) where an arm of the back's colour is over the table.
RING_MM = (8.0, 28.0)
RING_BACK = 0.15

Accept = Callable[[np.ndarray], np.ndarray]


def frame_back_count(
    image: np.ndarray, layout: TableLayout, H: np.ndarray, accept: Accept, pixels: np.ndarray | None = None
) -> int:
    """How many of the frame's samples (see `classification._frame_samples`) look like the back;
    `pixels`: those samples' pixels when already taken (`classification.frame_pixels`)."""
    got = frame_pixels(image, layout, H) if pixels is None else pixels
    if len(got) == 0:
        return 0
    return int(accept(got[None]).sum())


def arm_free(
    image: np.ndarray, layout: TableLayout, H: np.ndarray, accept: Accept, down: list[int]
) -> list[int]:
    """The squares of `down` (indices the colour and print call face down) that an arm of the back's
    colour, seen on the frame, does not put in doubt: a square whose back-coloured inside joins a region
    reaching the frame (REACH_SHARE) is under the arm; and where such an arm is over the table, a face-down
    board must show where its back ends: the ring around its square (RING_MM, in view, outside the squares
    still called face down, whose own backs may touch it) must not look like the back (RING_BACK)."""
    s = REACH_MM_PER_PX
    W, Ht = layout.size_mm
    nx, ny = int(np.ceil(W / s)), int(np.ceil(Ht / s))
    to_img = H @ np.array([[s, 0.0, s / 2], [0.0, s, s / 2], [0.0, 0.0, 1.0]])
    top = cv2.warpPerspective(
        image, to_img, (nx, ny), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP, borderValue=(0, 0, 0)
    )
    h, w = image.shape[:2]
    corners = np.array([[0.0, 0.0], [w - 1.0, 0.0], [w - 1.0, h - 1.0], [0.0, h - 1.0]])
    in_view: np.ndarray = np.zeros((ny, nx), np.uint8)
    cv2.fillPoly(in_view, [np.round(apply_homography(np.linalg.inv(to_img), corners)).astype(np.int32)], 1)
    back = accept(top) & (in_view > 0)
    # Single pixels of noise or JPEG chroma do not join two regions; an arm or a board keeps its body.
    mask = cv2.morphologyEx(back.astype(np.uint8), cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
    # Where an arm comes from: the frame (the table outside the squares and the Harbor, FRAME_ZONE_MM
    # clear of them) and the table out of view.
    board_area: np.ndarray = np.zeros((ny, nx), np.uint8)
    for poly in [layout.harbor_mm] + [sq.polygon_mm for sq in layout.squares]:
        cv2.fillPoly(board_area, [np.round(poly / s - 0.5).astype(np.int32)], 1)
    grow = 2 * int(np.ceil(FRAME_ZONE_MM / s)) + 1
    board_area = cv2.dilate(board_area, np.ones((grow, grow), np.uint8))
    origin = (board_area == 0) | (cv2.erode(in_view, np.ones((3, 3), np.uint8)) == 0)
    n, labels = cv2.connectedComponents(mask, connectivity=8)
    reach = np.zeros(n, bool)
    reach[np.unique(labels[origin & (mask > 0)])] = True
    reach[0] = False
    reaching = reach[labels]

    def box(k: int, grow_mm: float) -> tuple[slice, slice]:
        """Square k grown by `grow_mm` (negative: shrunk) as top-view slices."""
        (x0, y0), (x1, y1) = (
            layout.squares[k].polygon_mm.min(axis=0),
            layout.squares[k].polygon_mm.max(axis=0),
        )
        xa, xb = (min(max(round(v / s), 0), nx) for v in (x0 - grow_mm, x1 + grow_mm))
        ya, yb = (min(max(round(v / s), 0), ny) for v in (y0 - grow_mm, y1 + grow_mm))
        return slice(ya, max(yb, ya + 1)), slice(xa, max(xb, xa + 1))

    kept = []
    for k in down:
        poly = layout.squares[k].polygon_mm
        side = float(np.min(poly.max(axis=0) - poly.min(axis=0)))
        cut = reaching[box(k, -(0.08 * side + 6.0))]  # the inside, as `calibration.square_patch` cuts it
        if cut.size == 0 or float(cut.mean()) < REACH_SHARE:
            kept.append(k)
    # The rings, until no square is dropped (a square dropped no longer shields its neighbours' rings).
    view = in_view > 0
    while True:
        others: np.ndarray = np.zeros((ny, nx), bool)
        for j in kept:
            others[box(j, RING_MM[0])] = True
        dropped = []
        for k in kept:
            # Within the ring's outer box only (the same pixels as a whole-table mask, far cheaper).
            ys, xs = box(k, RING_MM[1])
            iy, ix = box(k, RING_MM[0])
            ring = view[ys, xs] & ~others[ys, xs]
            ring[iy.start - ys.start : iy.stop - ys.start, ix.start - xs.start : ix.stop - xs.start] = False
            if ring.any() and float(back[ys, xs][ring].mean()) >= RING_BACK:
                dropped.append(k)
        if not dropped:
            return kept
        kept = [k for k in kept if k not in dropped]
