"""Telling a board's face from its back and an arm over the table by colour: the frame's white balance,
the board-marker patches and the back-art fraction.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.geometry import (
    apply_homography,
)
from vision.ocean_grid.layout import TableLayout, _signed_distance

# Fraction of the board-marker patch that must look like the back art to call a board face down.
BACK_FRACTION = 0.8
# Share of the frame's samples covered (coloured or dark) above which an arm is over the table.
FRAME_COVERED = 0.008
# Per layout object: (the layout, its frame samples). The layout is kept with its entry so that its id
# cannot be reused by another layout while the entry lives (a freed layout's id handed to the next one
# gave that one the old table's samples: a benchmark loading one layout per table read wrong frames).
_FRAME_SAMPLES: dict[int, tuple[TableLayout, np.ndarray]] = {}


def _frame_samples(layout: TableLayout) -> np.ndarray:
    """Table points on the plain frame (outside the Harbor, the squares and the markers): the white
    reference for white balance."""
    key = id(layout)
    entry = _FRAME_SAMPLES.get(key)
    if entry is not None and entry[0] is layout:
        return entry[1]
    W, H = layout.size_mm
    xs, ys = np.meshgrid(np.arange(5, W - 4, 14.0), np.arange(5, H - 4, 14.0))
    cand = np.stack([xs.ravel(), ys.ravel()], axis=1)
    keep = []
    polys = (
        [layout.harbor_mm] + [sq.polygon_mm for sq in layout.squares] + [m.corners_mm for m in layout.markers]
    )
    for x, y in cand:
        if all(_signed_distance(p, x, y) < -8.0 for p in polys):
            keep.append((x, y))
    pts = np.array(keep, dtype=np.float64).reshape(-1, 2)
    _FRAME_SAMPLES[key] = (layout, pts)
    return pts


def _max3(a: np.ndarray) -> np.ndarray:
    """Largest of the last axis's 3 channels (numpy's max over a length-3 axis is several times slower)."""
    return np.maximum(np.maximum(a[..., 0], a[..., 1]), a[..., 2])


def _min3(a: np.ndarray) -> np.ndarray:
    return np.minimum(np.minimum(a[..., 0], a[..., 1]), a[..., 2])


def _frame_colour(image: np.ndarray, layout: TableLayout, H: np.ndarray) -> tuple[np.ndarray, float]:
    """`_frame_white` without whether the white was measured."""
    gains, covered, _ = _frame_white(image, layout, H)
    return gains, covered


def frame_pixels(image: np.ndarray, layout: TableLayout, H: np.ndarray) -> np.ndarray:
    """The image's pixels (N x 3, uint8) at the frame's samples in view (`_frame_samples`): the white
    test and the arm test read the same ones, so they are taken once."""
    pts = _frame_samples(layout)
    if len(pts) == 0:
        return np.zeros((0, 3), np.uint8)
    px = np.round(apply_homography(H, pts)).astype(int)
    h, w = image.shape[:2]
    ok = (px[:, 0] >= 0) & (px[:, 0] < w) & (px[:, 1] >= 0) & (px[:, 1] < h)
    return np.asarray(image[px[ok, 1], px[ok, 0]])


def _frame_white(
    image: np.ndarray, layout: TableLayout, H: np.ndarray, pixels: np.ndarray | None = None
) -> tuple[np.ndarray, float, bool]:
    """Look at the plain white frame around the table: per-channel gains that make it neutral (median
    over unclipped samples), the share of its samples covered by something coloured or dark (an arm
    reaching over the table crosses the frame, a ship never stands on it), and whether the gains were
    measured: a frame burnt out to white by a bright exposure gives no white balance (gains 1) but is
    still the frame, not an arm. `pixels`: the frame's pixels when already taken (`frame_pixels`)."""
    if len(_frame_samples(layout)) < 10:
        return np.ones(3), 0.0, False
    vals = (frame_pixels(image, layout, H) if pixels is None else pixels).astype(np.float64)
    if len(vals) < 10:
        return np.ones(3), 0.0, False
    bright = _max3(vals)
    spread = bright - _min3(vals)
    white = (bright < 250) & (bright > 60) & (spread < 0.35 * bright)  # not glare, not a hand or shadow
    # Burnt out (every channel at the top, or one clipped and the others near it) is white too.
    burnt = (bright >= 250) & (spread < 0.35 * bright)
    if white.sum() < 10:
        # No unclipped white: the frame may be burnt out in one or two channels under a warm or cool
        # lamp (it then looks tinted, not white). Its samples still agree with each other where no arm
        # crosses it: their median is a rough white (clipped channels read low, so the correction is
        # only partial), and a sample far from it is covered.
        lit = vals[bright >= 250]
        if len(lit) < 10:
            return np.ones(3), 1.0, False
        med = np.median(lit, axis=0)
        near = np.max(np.abs(vals - med), axis=1) < 0.15 * 255
        if near.mean() < 0.5:
            return np.ones(3), 1.0, False
        return med.mean() / np.maximum(med, 1.0), float(1.0 - (near | white | burnt).mean()), False
    med = np.median(vals[white], axis=0)
    gains = med.mean() / np.maximum(med, 1.0)
    balanced = vals * gains
    b_bright = _max3(balanced)
    b_spread = b_bright - _min3(balanced)
    level = float(np.median(b_bright[white]))
    covered = ((b_spread > 0.22 * np.maximum(b_bright, 1.0)) | (b_bright < 0.45 * level)) & ~burnt
    return gains, float(covered.mean()), True


def _white_gains(image: np.ndarray, layout: TableLayout, H: np.ndarray) -> np.ndarray:
    return _frame_colour(image, layout, H)[0]


def _patch(
    image: np.ndarray, H: np.ndarray, center_mm: tuple[float, float], half_mm: float, n: int = 24
) -> np.ndarray:
    """A small n x n top-down colour patch of the table around `center_mm` (only n*n pixels are warped)."""
    step = 2 * half_mm / (n - 1)
    A = np.array([[step, 0, center_mm[0] - half_mm], [0, step, center_mm[1] - half_mm], [0, 0, 1.0]])
    return cv2.warpPerspective(
        image,
        H @ A,
        (n, n),
        flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
        borderMode=cv2.BORDER_CONSTANT,
        borderValue=(0, 0, 0),
    )


def _back_fractions(patches: list[np.ndarray], gains: np.ndarray, layout: TableLayout) -> list[float]:
    """`_back_fraction` of several equal-sized patches at once (one colour conversion)."""
    n = len(patches)
    return _back_mask(np.concatenate(patches, axis=0), gains, layout).reshape(n, -1).mean(axis=1).tolist()


def _back_fraction(patch_bgr: np.ndarray, gains: np.ndarray, layout: TableLayout) -> float:
    """Fraction of a patch that looks like the Ocean boards' back art (the layout's hue band, saturated)."""
    return float(_back_mask(patch_bgr, gains, layout).mean())


def _back_mask(patch_bgr: np.ndarray, gains: np.ndarray, layout: TableLayout) -> np.ndarray:
    # (Gains are positive: only the top needs clipping. Hue compared as uint8: exact.) A channel burnt out
    # by a bright exposure keeps the back's hue and saturation; glare (all three clipped) has neither.
    balanced = np.minimum(patch_bgr.astype(np.float32) * gains.astype(np.float32), 255).astype(np.uint8)
    hsv = cv2.cvtColor(balanced, cv2.COLOR_BGR2HSV)
    hue, sat, val = hsv[..., 0], hsv[..., 1], hsv[..., 2]
    lo, hi = layout.back_hue
    in_band = (hue >= lo) & (hue <= hi) if lo <= hi else (hue >= lo) | (hue <= hi)
    return in_band & (sat >= layout.back_min_saturation) & (val > 25)
