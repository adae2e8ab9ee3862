"""The board's own print, learned from the bare board in the calibration photo, as a reader's filter.

A pixel that takes a cube colour is a cube's only where the board there looks different from what the
bare board showed at calibration (after this frame's light is matched to the calibration's): a zone
printed near a cube colour (charcoal, brick, ochre, navy, forest), a printed cube or coin, busy ink in a
vivid colour, all stay the board. "Different" is what a shadow cannot do: a shadow only darkens and keeps
the colour, down to a limit; a cube changes the colour, brightens, or darkens far more.

Owns the comparison only; the reader (`vision.battle_board`) decides what a blob is.
"""

from __future__ import annotations

from typing import Any

import cv2
import numpy as np

# A shadow keeps at least this share of the light (cube shadows and arms over the board; measured on
# the tuning renderer and kept wide, see docs/bench/vision.md).
SHADOW_MIN = 0.33
BRIGHTER_MAX = 1.18  # noise, JPEG and a moved glossy reflection stay under this (plus OFFSET)
OFFSET = 8.0  # 8-bit units added to both sides of a ratio: dark pixels' noise is not a change
CHROMA_KEEP = 0.055  # a shadow moves the normalised colour (b, g, r) / sum less than this
CHROMA_SHADOW = 0.08  # ... plus this much times how much darker the pixel is (a shadow's colour cast)
# ... computed with this added to each channel: a dark pixel's noise is no colour
CHROMA_OFFSET = 24.0
DARKER = 0.78  # a cube-sized patch this much darker than its print, with no cube to cast it, is a cube
STRONG_DARKER, STRONG_BRIGHTER, STRONG_CHROMA = 0.2, 1.6, 0.12  # a change no print misregistration makes
GLOSS_PALER = 0.02  # a brighter pixel this much less saturated than the print is the print under gloss
SWATCH_R_MM = 15.0  # the calibration photo has cubes on the swatches: no reference there
GUESSED = 128  # `BoardPrint.ref_valid` where the bare board was filled in (see there)
# A glossy highlight in the calibration photo: a patch at least this much brighter (log of the channel
# sum, after a 3 mm blur that removes print lines) than the median of its region (one zone, or the rail)
# and at least this large is the lamp's reflection as likely as the print (docs/bench/vision.md round 4b).
HIGHLIGHT_LOG = 0.35
HIGHLIGHT_BLUR_MM = 3.0
HIGHLIGHT_MIN_MM2 = 150
HIGHLIGHT_RIM_MM = 4  # the highlight's soft rim beyond the threshold


def zone_mask(layout: Any, size_px: tuple[int, int]) -> np.ndarray:
    """255 inside any zone of `layout`, at 1 px/mm (`size_px`: width, height)."""
    from vision.geometry import rasterize_polygons

    return rasterize_polygons([z.polygon_mm for z in layout.zones], size_px, 1.0, [255] * len(layout.zones))


class BoardPrint:
    """The bare board (BGR, 1 px/mm, from the palette) and the comparison against it."""

    def __init__(
        self,
        reference: np.ndarray,
        size_mm: tuple[float, float],
        swatches_mm: list[np.ndarray],
        bare: bool = False,
        zones: np.ndarray | None = None,
    ) -> None:
        W, H = size_mm
        self.ref = np.ascontiguousarray(
            cv2.resize(reference, (int(round(W)), int(round(H))), interpolation=cv2.INTER_AREA)
        )
        hole = np.zeros(self.ref.shape[:2], np.uint8)
        for c in swatches_mm:
            cv2.circle(hole, (int(round(c[0])), int(round(c[1]))), int(SWATCH_R_MM), 255, -1)
        if bare and zones is not None:
            hole &= zones  # the rail around a swatch is filled in; where a zone was hidden stays unknown
        # Under the calibration's cubes the bare board is unknown: there the reader falls back on the
        # colours the bare board shows anywhere (`bare` palettes have it filled in, but only roughly).
        self.ref_valid = 255 - hole
        # The rail a swatch cube hid is filled in from the rail around it: good enough to compare with
        # (value 128, still valid), not to judge a dark spot there a cube by its colour alone (a printed
        # dark swatch spot shows in play where a light fill was guessed).
        guessed = np.zeros_like(hole)
        for c in swatches_mm:
            cv2.circle(guessed, (int(round(c[0])), int(round(c[1]))), int(SWATCH_R_MM), 255, -1)
        self.ref_valid[(guessed > 0) & (self.ref_valid > 0)] = GUESSED
        # Nor where the calibration photo may show a glossy highlight rather than the print: in play the
        # highlight is gone and the bare print there is "darker than any shadow" (held-out 7202/10, 7403/9).
        self.highlight = _highlights(self.ref, self.ref_valid, zones)
        self.ref_valid[(self.highlight > 0) & (self.ref_valid == 255)] = GUESSED
        self.gain = np.ones(3, np.float32)

    def warp(
        self, M_rect_to_mm: np.ndarray, size: tuple[int, int], nearest: bool = False
    ) -> tuple[np.ndarray, np.ndarray]:
        """The reference and its validity seen in a rectified frame: `M_rect_to_mm` maps that frame's
        pixels to board millimetres on the board plane (the reference's pixels)."""
        flags = (cv2.INTER_NEAREST if nearest else cv2.INTER_LINEAR) | cv2.WARP_INVERSE_MAP
        ref = cv2.warpPerspective(self.ref, M_rect_to_mm, size, flags=flags, borderMode=cv2.BORDER_CONSTANT)
        ok = cv2.warpPerspective(
            self.ref_valid,
            M_rect_to_mm,
            size,
            flags=cv2.INTER_NEAREST | cv2.WARP_INVERSE_MAP,
            borderMode=cv2.BORDER_CONSTANT,
        )
        return ref, ok

    def fit_gain(self, now: np.ndarray, ref: np.ndarray, ok: np.ndarray) -> None:
        """This frame's light relative to the calibration's: one gain per channel (the median ratio over
        the board, which cubes, shadows and hands hardly move: they cover a small part of it)."""
        now, ref, ok = (
            now[::2, ::2],
            ref[::2, ::2],
            ok[::2, ::2],
        )  # a quarter of the pixels: plenty for a median
        # Channel planes: numpy's max and median over a short last axis cost several times more.
        r = [ref[..., c] for c in range(3)]
        n = [now[..., c] for c in range(3)]
        rmax = np.maximum(np.maximum(r[0], r[1]), r[2])
        nmax = np.maximum(np.maximum(n[0], n[1]), n[2])
        sel = (ok > 0) & (rmax > 20) & (rmax < 245) & (nmax < 250)
        if int(np.count_nonzero(sel)) < 200:
            self.gain = np.ones(3, np.float32)
            return
        g = [
            np.median((n[c][sel].astype(np.float32) + OFFSET) / (r[c][sel].astype(np.float32) + OFFSET))
            for c in range(3)
        ]
        self.gain = np.clip(np.array(g, np.float32), 0.25, 4.0).astype(np.float32)

    def brightness_ratio(self, now: np.ndarray, ref: np.ndarray) -> Any:
        """How bright `now` is against the reference under this frame's light (sum of channels; pixel
        lists (n, 3) or images): a shadow's share of the light."""
        n = now.astype(np.float32).sum(axis=-1) + 3 * OFFSET
        p = (ref.astype(np.float32) * self.gain).sum(axis=-1) + 3 * OFFSET
        return n / p

    def darker(self, now: np.ndarray, ref: np.ndarray) -> np.ndarray:
        """Where `now` is darker than the reference under this frame's light by more than drift and noise
        explain (every channel below DARKER of it)."""
        n = now.astype(np.float32) + OFFSET
        p = ref.astype(np.float32) * self.gain + OFFSET
        return np.all(n < DARKER * p, axis=-1)

    def changed(
        self,
        now: np.ndarray | list[np.ndarray],
        ref: np.ndarray | list[np.ndarray],
        ok: np.ndarray | None,
        strong: bool = False,
        gloss: bool = True,
    ) -> Any:
        """Boolean image: where `now` is not the reference under this frame's light nor its shadow
        (meaningless where `ok` is 0: the caller decides there without a reference). With `strong`, also
        where it changed beyond doubt (far darker or brighter, or another colour): (changed, strong).
        Images (h, w, 3), pixel lists (n, 3) or a list of the three channel planes alike. `gloss=False`
        counts a brighter, paler patch as a change (the hand check: a pale hand over a warm print looks
        like gloss)."""
        # Channel planes: numpy's min/max over a short last axis is many times slower than elementwise.
        n = [v.astype(np.float32) + OFFSET for v in _planes(now)]
        p = [v.astype(np.float32) * float(self.gain[c]) + OFFSET for c, v in enumerate(_planes(ref))]
        r = [n[c] / p[c] for c in range(3)]
        lo = np.minimum(np.minimum(r[0], r[1]), r[2])
        hi = np.maximum(np.maximum(r[0], r[1]), r[2])
        k = CHROMA_OFFSET - OFFSET
        sn = n[0] + n[1] + n[2] + 3 * k
        sp = p[0] + p[1] + p[2] + 3 * k
        cn = [(n[c] + k) / sn for c in range(3)]
        cp = [(p[c] + k) / sp for c in range(3)]
        chroma = np.maximum(np.maximum(np.abs(cn[0] - cp[0]), np.abs(cn[1] - cp[1])), np.abs(cn[2] - cp[2]))
        # A shadow hides the lamp but not the room's light, whose colour may differ: the deeper the
        # shadow, the more its colour may move.
        keep = CHROMA_KEEP + CHROMA_SHADOW * np.clip(1.0 - (r[0] + r[1] + r[2]) / 3.0, 0.0, 1.0)
        shadow_like = (lo >= SHADOW_MIN) & (hi <= BRIGHTER_MAX) & (chroma < keep)
        # A glossy reflection (the print seen through the lamp's own colour) brightens and pales it;
        # every cube colour over a print of its kind is darker, or deeper in colour, than the print.
        sat_now = np.maximum(np.maximum(cn[0], cn[1]), cn[2]) - np.minimum(np.minimum(cn[0], cn[1]), cn[2])
        sat_ref = np.maximum(np.maximum(cp[0], cp[1]), cp[2]) - np.minimum(np.minimum(cp[0], cp[1]), cp[2])
        glossy = (lo > 1.0) & (sat_now < sat_ref - GLOSS_PALER) & gloss
        changed = ~(shadow_like | glossy)
        if not strong:
            return changed
        return changed, changed & ((lo < STRONG_DARKER) | (hi > STRONG_BRIGHTER) | (chroma > STRONG_CHROMA))


def _highlights(ref: np.ndarray, valid: np.ndarray, zones: np.ndarray | None) -> np.ndarray:
    """255 where the bare board's photo is a smooth bright patch within its region (each zone, and the
    rail around them): a glossy reflection's shape (print lines are thinner than the blur)."""
    lum = np.log(ref.astype(np.float32).sum(axis=-1) + 3 * OFFSET)
    lum = cv2.GaussianBlur(lum, (0, 0), HIGHLIGHT_BLUR_MM)
    if zones is None or zones.shape != lum.shape:
        regions = np.ones(lum.shape, np.int32)
    else:
        n, regions = cv2.connectedComponents((zones > 0).astype(np.uint8), connectivity=4)
        regions = regions.astype(np.int32)
        regions[zones == 0] = n  # the rail: one region
    out = np.zeros(lum.shape, np.uint8)
    for k in np.unique(regions).tolist():
        inside = (regions == k) & (valid == 255)
        if int(np.count_nonzero(inside)) < HIGHLIGHT_MIN_MM2:
            continue
        bright = (inside & (lum > float(np.median(lum[inside])) + HIGHLIGHT_LOG)).astype(np.uint8)
        n, lab, stats, _ = cv2.connectedComponentsWithStats(bright, connectivity=8)
        for i in range(1, n):
            if stats[i, cv2.CC_STAT_AREA] >= HIGHLIGHT_MIN_MM2:
                out[lab == i] = 255
    if out.any():
        rim = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * HIGHLIGHT_RIM_MM + 1,) * 2)
        out = cv2.dilate(out, rim)
    return out


def _planes(x: Any) -> list[np.ndarray]:
    """The three channel planes of an image or pixel list (h, w, 3) / (n, 3), or the planes as given."""
    if isinstance(x, (list, tuple)):
        return list(x)
    return [x[..., c] for c in range(3)]
