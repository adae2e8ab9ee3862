"""Pieces in the top-down copy of the map: each pixel's player colour (a look-up table over the balanced
colour, by chromaticity so shade does not matter; black by darkness and greyness), blobs per colour, and
each blob matched against every piece the layout describes (Ships upright or laid down, Strongholds,
Outposts), their height smearing the blob away from the camera by parallax. A blob that fits no piece,
or two pieces about as well, is unsure: never a guess."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache, partial

import cv2
import numpy as np

from contracts.sea_regions import SHIP_CLASSES
from vision.sea_regions.layout import SeaLayout

# Chromaticity (r, g of r+g+b = 1) distance under which a pixel takes a player's colour.
CHROMA_TOLERANCE = 0.1
# ... measured from the colour or the same hue up to this much more saturated (`_saturation_distance`).
SATURATION_REACH = 0.12
# The looser colour test of a blob's edge pixels, and how far (px) a blob grows into them.
EDGE_LOOSENESS = 1.4
EDGE_GROW_PX = 1
# A pixel darker than this (balanced, white = 235) has too little light for its chromaticity to count.
MIN_BRIGHTNESS = 28
# Black pieces: brightest channel at most this share of white and grey (max - min <= GREYNESS * max).
BLACK_BRIGHTNESS = 0.26
BLACK_GREYNESS = 0.3
BLACK_CLOSE = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5))
# With a bare map a black piece is also told by its change: a pixel of brightness up to
# BLACK_CHANGED_BRIGHTNESS (the darkness test's own: 0.36 let other colours' shaded faces in), tinted up to
# BLACK_CHANGED_GREYNESS (a warm lamp half corrected browns black paint), at most BLACK_CHANGE_RATIO as
# bright as the bare map there under this frame's light (a shadow keeps more of it).
BLACK_CHANGED_BRIGHTNESS = 0.26
BLACK_CHANGED_GREYNESS = 0.6
BLACK_CHANGE_RATIO = 0.5
# A chromatic player's blob whose brightest tenth is under this share of its paint's brightest channel is
# too dark to be its piece (read ones: 0.58 and up on heldgen 500-529; black pieces as purple: 0.19-0.30).
DARK_SHARE = 0.45
# A blob is a piece when its extents and area fit one within FIT_MM and the next best is FIT_MARGIN_MM worse.
FIT_MM = 3.6
FIT_MARGIN_MM = 1.0
# Where a camera pixel spans more than REF_MM_PER_PX, the blob's breadths spread more (blur over coarser
# pixels): FIT_MM grows by FIT_BLUR_PX camera pixels per mm of that excess.
FIT_BLUR_PX = 2.0
REF_MM_PER_PX = 0.7
# A blob's pixels this bright (share of its 90th percentile) are its top face.
TOP_SHARE = 0.82
# One piece's blob is convex (a block swept along its parallax): less solid than this, it is several.
MIN_SOLIDITY = 0.92
# The piece's foot must lie this far inside its region, else it stands on a border.
BORDER_MM = 3.0
# A blob read as a piece smaller than some other, whose colour (a looser test, REACH_LOOSENESS; the bare
# map's print excluded) covers more than CUT_SHORT_SHARE of a ring REACH_MM wide around it, may be a
# larger piece cut short (by a shadow band, a darker face): never taken as sure.
REACH_MM = 3.0
REACH_LOOSENESS = 2.0
CUT_SHORT_SHARE = 0.5
# ... and fits its piece this loosely (mm; a piece seen whole fits closer, docs/bench/vision.md round 3).
CUT_SHORT_FIT_MM = 2.4


@dataclass(frozen=True)
class Hypothesis:
    kind: str
    damaged: bool
    length: float
    width: float
    height: float


@dataclass
class Blob:
    owner: str
    label: int
    centroid_mm: tuple[float, float]
    area_mm2: float
    bbox_px: tuple[int, int, int, int]  # in the top-down copy: x0, y0, x1, y1
    touches_other: bool
    hull_mm: np.ndarray  # the blob's convex hull
    top_mm: np.ndarray  # its brightest part: the piece's top face under light from above
    mask: np.ndarray  # uint8 (bbox_px's size): 1 on the blob's pixels
    solidity: float  # its area over its convex hull's
    cut: bool = False  # cut out of a blob of several pieces: its sides may be cut short, its top is whole
    brightness: float = 0.0  # its pixels' brightest channel, 90th percentile (balanced: white is 235)
    # The share of a ring around the blob (REACH_MM wide) whose pixels pass its player's looser colour test
    # and are no print: its colour reaching past it (`_reach`); computed only when asked (it costs ~1 ms).
    reach_fn: Callable[[], float] | None = None
    # The camera's sampling at the blob (2x2: d(image px) / d(board mm), `Registration.camera_scale`):
    # blur spreads over camera pixels, so the fit's allowances for it scale with the mm a pixel spans.
    camera: np.ndarray | None = None

    def reach(self) -> float:
        return self.reach_fn() if self.reach_fn is not None else 0.0


def hypotheses(layout: SeaLayout) -> list[Hypothesis]:
    out = []
    for kind, size in layout.pieces.items():
        out.append(Hypothesis(kind, False, size.length, size.width, size.height))
        if kind in SHIP_CLASSES:  # laid down on its side: its profile up, its thickness as height
            out.append(Hypothesis(kind, True, size.length, size.height, size.width))
    return out


def _chromaticity(bgr: np.ndarray) -> np.ndarray:
    s = bgr.sum(axis=-1, keepdims=True).astype(np.float64) + 1e-6
    return np.concatenate([bgr[..., 2:3] / s, bgr[..., 1:2] / s], axis=-1)


def is_black(colour: tuple[int, int, int]) -> bool:
    """A player colour told by darkness and greyness rather than by chromaticity."""
    ref = np.array(colour, np.float64)
    return bool(ref.max() < 0.36 * 255 and ref.max() - ref.min() < 0.45 * ref.max() + 8)


def _saturation_distance(chroma: np.ndarray, ref: np.ndarray) -> np.ndarray:
    """Chromaticity distance from `ref` or from the same hue more saturated (up to SATURATION_REACH further
    from grey): a paint's shaded faces, its stain and JPEG's colour blur push its pixels outward, never
    toward another hue."""
    grey = np.array([1 / 3, 1 / 3])
    out = ref - grey
    unit = out / max(float(np.linalg.norm(out)), 1e-9)
    along = np.clip((chroma - ref) @ unit, 0.0, SATURATION_REACH)
    dist: np.ndarray = np.linalg.norm(chroma - (ref + along[:, None] * unit), axis=1)
    return dist


@lru_cache(maxsize=8)
def _lut(players: tuple[tuple[str, tuple[int, int, int]], ...], loose: float = 1.0) -> np.ndarray:
    """Label (0 none, k = players[k-1]) of every colour quantised to 5 bits a channel; `loose` widens
    every tolerance by that factor (the edge pixels a blob may grow into)."""
    q = (np.arange(32) * 8 + 4).astype(np.float64)
    b, g, r = np.meshgrid(q, q, q, indexing="ij")
    bgr = np.stack([b, g, r], axis=-1).reshape(-1, 3)
    chroma = _chromaticity(bgr)
    mx, mn = bgr.max(axis=1), bgr.min(axis=1)
    labels = np.zeros(len(bgr), np.uint8)
    best = np.full(len(bgr), np.inf)
    for k, (_, colour) in enumerate(players, start=1):
        ref = np.array(colour, np.float64)
        if is_black(colour):
            hit = (mx <= BLACK_BRIGHTNESS * 235 * loose) & (mx - mn <= BLACK_GREYNESS * loose * mx + 6)
            labels[hit & np.isinf(best)] = k
            best[hit & np.isinf(best)] = 1.0  # any chromatic match closer wins
            continue
        d = _saturation_distance(chroma, _chromaticity(ref[None, :])[0])
        hit = (d < CHROMA_TOLERANCE * loose) & (mx >= MIN_BRIGHTNESS / loose) & (d < best)
        labels[hit] = k
        best[hit] = d[hit]
    return labels.reshape(32, 32, 32)


def colour_index(top: np.ndarray) -> np.ndarray:
    """Each pixel's colour quantised to 5 bits a channel, as one index into `_lut`'s tables."""
    q = (top >> 3).astype(np.uint16)
    idx: np.ndarray = (q[..., 0] << 10) | (q[..., 1] << 5) | q[..., 2]
    return idx


def label_pixels(
    top: np.ndarray, layout: SeaLayout, loose: float = 1.0, index: np.ndarray | None = None
) -> np.ndarray:
    """Each pixel's player index (0: none) in the balanced top-down copy (`loose`: see `_lut`); `index`:
    `colour_index(top)` when the caller has it (the strict and the looser test share it)."""
    lut = _lut(tuple(layout.players.items()), loose).reshape(-1)
    out: np.ndarray = lut.take(colour_index(top) if index is None else index)
    return out


def brightest(top: np.ndarray) -> np.ndarray:
    """Each pixel's brightest channel (numpy's max over the short last axis is several times slower)."""
    b, g, r = cv2.split(top)
    out: np.ndarray = cv2.max(cv2.max(b, g), r)
    return out


def black_by_change(
    top: np.ndarray,
    layout: SeaLayout,
    labels: np.ndarray,
    ratio: Callable[[np.ndarray, np.ndarray], np.ndarray],
    loose: float = 1.0,
    light: np.ndarray | None = None,
) -> None:
    """Label as the black player's (in place) the unlabelled pixels of `labels` that are dark
    (BLACK_CHANGED_BRIGHTNESS), tinted at most BLACK_CHANGED_GREYNESS (`loose` widens both as in `_lut`)
    and at most BLACK_CHANGE_RATIO as bright as the bare map there (`ratio(ys, xs)`: the bare map's
    brightness ratio); `light`: `brightest(top)` when the caller has it."""
    names = list(layout.players)
    black = [k for k, n in enumerate(names, start=1) if is_black(layout.players[n])]
    if not black:
        return
    mx = brightest(top) if light is None else light
    dark = (mx <= BLACK_CHANGED_BRIGHTNESS * 235 * loose) & (labels == 0)
    ys, xs = np.nonzero(dark)
    if len(ys) == 0:
        return
    px = top[ys, xs].astype(np.int32)
    hi, lo = px.max(axis=1), px.min(axis=1)
    ok = hi - lo <= BLACK_CHANGED_GREYNESS * loose * hi + 6
    ys, xs = ys[ok], xs[ok]
    if len(ys) == 0:
        return
    changed = ratio(ys, xs) <= BLACK_CHANGE_RATIO
    labels[ys[changed], xs[changed]] = black[0]


def blobs(
    labels: np.ndarray,
    top: np.ndarray,
    layout: SeaLayout,
    origin_mm: tuple[float, float],
    px_per_mm: float,
    print_mask: np.ndarray | None = None,
    is_print: Callable[[np.ndarray, np.ndarray], np.ndarray] | None = None,
    edge: np.ndarray | None = None,
    light: np.ndarray | None = None,
) -> list[Blob]:
    """Connected pieces of each player's colour, thin print lines and specks opened away; pixels where
    `print_mask` is True (the bare map's print, see `bare_map`) are no candidates; `is_print(ys, xs)`
    answers the same for any pixels (the rings of the cut-short test); `edge`: the labels at
    EDGE_LOOSENESS when the caller has them already; `light`: `brightest(top)` likewise."""
    names = list(layout.players)
    smallest = min(min(p.width, p.length) for p in layout.pieces.values())
    k = max(3, int(round(smallest * px_per_mm * 0.35)) | 1)
    kernel = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (k, k))
    small = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3, 3))
    out: list[Blob] = []
    masks: list[np.ndarray] = []
    # Edge pixels blurred with the background miss the strict colour test: a blob grows into the
    # neighbouring pixels that pass a looser one (hysteresis), so its breadths are the piece's.
    edge = label_pixels(top, layout, EDGE_LOOSENESS) if edge is None else edge.copy()
    if print_mask is not None:
        labels = labels.copy()
        labels[print_mask] = 0
        edge[print_mask] = 0
    for idx in range(1, len(names) + 1):
        m = (labels == idx).view(np.uint8)
        if is_black(layout.players[names[idx - 1]]):
            # A black piece's lit faces sit at the darkness test's limit and come out speckled: close the
            # speckles into one piece before thin things are opened away.
            m = cv2.morphologyEx(m, cv2.MORPH_CLOSE, BLACK_CLOSE)
        opened = cv2.morphologyEx(m, cv2.MORPH_OPEN, kernel)
        # The opening rounds a piece's corners off (its diagonal breadths fell short by 1-2 mm): take back
        # the pixels of the colour within the kernel's reach of what survived it.
        opened = cv2.bitwise_and(m, cv2.dilate(opened, kernel))
        m = cv2.morphologyEx(opened, cv2.MORPH_CLOSE, small)
        near = (edge == idx).view(np.uint8)
        for _ in range(EDGE_GROW_PX):
            # Grown, never shrunk: a black piece's brownish pixels may take a chromatic player's label in
            # the looser test (its chromatic matches come first) and must not leave the blob for it.
            m = cv2.bitwise_or(m, cv2.bitwise_and(cv2.dilate(m, small), near))
        masks.append(m)
    min_area = 0.3 * min(p.length * p.width for p in layout.pieces.values()) * px_per_mm**2
    black = [k for k, n in enumerate(names) if is_black(layout.players[n])]
    # Each colour's outlines of a blob's size; the chromatic colours' first, as a blob far darker than its
    # paint can look goes to the black player's mask (`_too_dark`) before black's outlines are found.
    found: dict[int, list[tuple[np.ndarray, int, int, int, int]]] = {}
    if light is None:
        light = brightest(top)
    for k in [k for k in range(len(masks)) if k not in black] + black:
        m = masks[k]
        contours, _ = cv2.findContours(m, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        found[k] = []
        for cnt in contours:
            x, y, w, h = cv2.boundingRect(cnt)
            if w * h < min_area:
                continue
            outline: np.ndarray = np.zeros((h, w), np.uint8)
            cv2.drawContours(outline, [cnt - np.array([x, y], np.int32)], -1, 1, -1)
            if k not in black:
                sel = (outline > 0) & (m[y : y + h, x : x + w] > 0)
                if _too_dark(light[y : y + h, x : x + w][sel], layout.players[names[k]]):
                    m[y : y + h, x : x + w][sel] = 0
                    if black:
                        masks[black[0]][y : y + h, x : x + w][sel] = 1
                    continue
            found[k].append((outline, x, y, w, h))
    anything = np.zeros_like(labels, np.uint8)
    for m in masks:
        np.bitwise_or(anything, m, out=anything)
    origin = np.array(origin_mm)
    box = np.ones((5, 5), np.uint8)
    H, W = labels.shape[:2]
    for idx, m in enumerate(masks, start=1):
        for outline, x, y, w, h in found[idx - 1]:
            # Holes filled: noise and dark edges between faces leave holes in one piece, never a second piece.
            crop: np.ndarray = outline
            area = int(np.count_nonzero(crop))
            if area < min_area:
                continue
            # Another colour within 2 px: one piece may hide part of the other (dilated around the blob only).
            x0, y0, x1, y1 = max(0, x - 2), max(0, y - 2), min(W, x + w + 2), min(H, y + h + 2)
            others = anything[y0:y1, x0:x1].copy()
            others[m[y0:y1, x0:x1] > 0] = 0
            near = cv2.dilate(others, box)[y - y0 : y - y0 + h, x - x0 : x - x0 + w]
            touches = bool(np.any((near > 0) & (crop > 0)))
            b = _blob(names[idx - 1], idx, crop, x, y, top, touches, px_per_mm, origin, light=light)
            b.reach_fn = partial(_reach, crop, x, y, top, layout, idx, px_per_mm, is_print)
            out.append(b)
    return out


def _too_dark(light: np.ndarray, paint: tuple[int, int, int]) -> bool:
    """A chromatic player's blob (its pixels' brightest channels `light`) far darker than its paint can
    look (its brightest tenth under DARK_SHARE of the paint's brightest channel) is no piece of that
    colour: a black piece tinted by the lamp, or dark print."""
    return _p90(light) < DARK_SHARE * max(paint)


def _reach(
    crop: np.ndarray,
    x: int,
    y: int,
    top: np.ndarray,
    layout: SeaLayout,
    idx: int,
    px_per_mm: float,
    is_print: Callable[[np.ndarray, np.ndarray], np.ndarray] | None,
) -> float:
    """The share of a ring REACH_MM wide around a blob (mask `crop` at x, y of the top-down copy `top`)
    whose pixels pass its player's looser colour test (REACH_LOOSENESS) and are not the bare map's print."""
    r = max(1, int(round(REACH_MM * px_per_mm)))
    h, w = crop.shape
    H, W = top.shape[:2]
    x0, y0, x1, y1 = max(0, x - r), max(0, y - r), min(W, x + w + r), min(H, y + h + r)
    pad = np.zeros((y1 - y0, x1 - x0), np.uint8)
    pad[y - y0 : y - y0 + h, x - x0 : x - x0 + w] = crop
    ring = (cv2.dilate(pad, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * r + 1, 2 * r + 1))) > 0) & (
        pad == 0
    )
    ys, xs = np.nonzero(ring)
    if len(ys) == 0:
        return 0.0
    ys, xs = ys + y0, xs + x0
    hit = label_pixels(top[ys, xs], layout, REACH_LOOSENESS) == idx
    if is_print is not None and np.any(hit):
        hit[hit] = ~is_print(ys[hit], xs[hit])
    return float(np.count_nonzero(hit)) / len(ys)


def _blob(
    owner: str,
    idx: int,
    crop: np.ndarray,
    x: int,
    y: int,
    top: np.ndarray,
    touches: bool,
    px_per_mm: float,
    origin: np.ndarray,
    top_mask: np.ndarray | None = None,
    light: np.ndarray | None = None,
) -> Blob:
    """A Blob from its mask `crop` (uint8, 1 inside) at (x, y) of the top-down copy; its top face is its
    brightest part (or `top_mask`, given when the blob was cut out of a larger one)."""
    h, w = crop.shape
    inside = crop > 0
    cut = top_mask is not None
    # Each pixel's brightest channel (`light`: `brightest(top)` when the caller has it).
    bright = brightest(top[y : y + h, x : x + w]) if light is None else light[y : y + h, x : x + w]
    if top_mask is None:
        top_mask = top_face(crop, bright)
    ys, xs = np.nonzero(inside & top_mask)
    tops = (np.column_stack([xs + x, ys + y]).astype(np.float32) + 0.5) / px_per_mm + origin.astype(
        np.float32
    )
    top_hull = cv2.convexHull(tops).reshape(-1, 2).astype(np.float64) if len(tops) >= 3 else tops
    contours, _ = cv2.findContours(crop, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
    cnt = np.concatenate(contours) + np.array([x, y], np.int32)
    hull_px = cv2.convexHull(cnt).reshape(-1, 2).astype(np.float64)
    mo = cv2.moments(crop, binaryImage=True)
    cx, cy = mo["m10"] / mo["m00"] + x, mo["m01"] / mo["m00"] + y
    hull_area = max(float(cv2.contourArea(hull_px.astype(np.float32))), 1.0)
    return Blob(
        owner,
        idx,
        (float((cx + 0.5) / px_per_mm + origin[0]), float((cy + 0.5) / px_per_mm + origin[1])),
        int(np.count_nonzero(inside)) / px_per_mm**2,
        (x, y, x + w, y + h),
        touches,
        (hull_px + 0.5) / px_per_mm + origin,
        top_hull,
        crop,
        min(1.0, float(np.count_nonzero(inside)) / hull_area),
        cut=cut,
        brightness=_p90(bright[inside]),
    )


def _p90(vals: np.ndarray) -> float:
    if len(vals) == 0:
        return 0.0
    k = int(0.9 * (len(vals) - 1))
    return float(np.partition(vals, k)[k])


def top_face(crop: np.ndarray, patch: np.ndarray) -> np.ndarray:
    """The brightest part of a blob (its mask `crop` over the top-down `patch`, BGR or its brightest
    channel): the pieces' top faces under light from above."""
    light = brightest(patch) if patch.ndim == 3 else patch
    inside = crop > 0
    vals = light[inside]
    k = int(0.9 * (len(vals) - 1))
    thr = TOP_SHARE * float(np.partition(vals, k)[k])
    out: np.ndarray = inside & (light >= thr)
    return out


def split_blob(
    blob: Blob, top: np.ndarray, layout: SeaLayout, px_per_mm: float, origin_mm: tuple[float, float]
) -> list[Blob]:
    """One blob of several pieces of a colour (tall pieces lean into each other by parallax) cut into one
    blob per top face: each top face seeds a watershed over the blob's colours, so the cut follows the
    dark seam between two pieces. Empty when the blob shows fewer than two top faces (stacked or one
    piece); the caller fits each part and takes the cut only if every part fits a piece."""
    x0, y0, x1, y1 = blob.bbox_px
    crop = blob.mask
    patch = top[y0:y1, x0:x1]
    tops = cv2.morphologyEx(
        top_face(crop, patch).view(np.uint8),
        cv2.MORPH_OPEN,
        cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (3, 3)),
    )
    n, comp, stats, _ = cv2.connectedComponentsWithStats(tops, connectivity=8)
    smallest_top = min(p.length * p.width for p in layout.pieces.values()) * px_per_mm**2
    seeds = [i for i in range(1, n) if stats[i, cv2.CC_STAT_AREA] >= 0.4 * smallest_top]
    if len(seeds) < 2:
        return []
    markers = np.zeros(crop.shape, np.int32)
    markers[crop == 0] = 1  # the background
    for k, i in enumerate(seeds, start=2):
        markers[comp == i] = k
    pad = 2  # watershed leaves its outer ring unlabelled: give it room
    img = cv2.copyMakeBorder(np.ascontiguousarray(patch), pad, pad, pad, pad, cv2.BORDER_REPLICATE)
    mk = cv2.copyMakeBorder(markers, pad, pad, pad, pad, cv2.BORDER_CONSTANT, value=1)
    cv2.watershed(img, mk)
    mk = mk[pad:-pad, pad:-pad]
    origin = np.array(origin_mm)
    parts = []
    for k, i in enumerate(seeds, start=2):
        part = ((mk == k) & (crop > 0)).view(np.uint8)
        # The seam itself (-1) goes to neither part: grow each part back over it within the blob.
        part = cv2.bitwise_and(cv2.dilate(part, np.ones((3, 3), np.uint8)), crop)
        part[(mk > 1) & (mk != k)] = 0
        if np.count_nonzero(part) < 0.3 * smallest_top:
            return []
        parts.append(
            _blob(blob.owner, blob.label, part, x0, y0, top, blob.touches_other, px_per_mm, origin, comp == i)
        )
    return parts


@dataclass
class Fit:
    hypothesis: Hypothesis
    error_mm: float
    foot_mm: tuple[float, float]
    yaw: float = 0.0  # the piece's turn (radians, board axes) at its best fit
    top_shift_mm: tuple[float, float] = (0.0, 0.0)  # its top face's shift from its foot by parallax
    top_scale: float = 1.0  # its top face's size over its footprint's


# A runner-up fitting within this much (mm) of the best is checked by its faces (`faces_split`): the piece
# whose top face and sides part the blob's colours better may be the other one.
FACES_GAP_MM = 3.5

# Directions (degrees from the blob's long axis) along which a blob's breadth is measured.
DIRECTIONS = np.radians(np.arange(0, 180, 30))
YAWS = np.radians(np.arange(0, 180, 5))
# Blur and anti-aliasing widen a blob by about this much (mm) in every direction measured (0 since the
# blobs grow into their edges and take their corners back: docs/bench/vision.md round 3).
EDGE_BIAS_MM = 0.0
# A blob's corners may come out rounded (blur, a corner pixel's mixed colour, the opening): its breadths
# between the piece's axes may fall short of a sharp-cornered piece's by a rounding of this radius (mm).
CORNER_MM = 0.75
# Blur darkens a top face's rim below TOP_SHARE: its bright part may fall short of the face by up to this
# many camera pixels (both sides together) along each direction, in mm at the blob's own sampling.
TOP_BLUR_PX = 1.0
# The camera's mm per pixel assumed where a blob carries no sampling (the top-down copy's own).
DEFAULT_MM_PER_PX = 1 / 1.5


def blob_mm_per_px(blob: Blob) -> float:
    """The mm a camera pixel spans at the blob (the geometric mean over directions)."""
    if blob.camera is None:
        return DEFAULT_MM_PER_PX
    (a, b), (c, d) = blob.camera.tolist()
    return 1.0 / math.sqrt(max(abs(a * d - b * c), 1e-9))


def camera_mm_per_px(blob: Blob, dirs: np.ndarray) -> np.ndarray:
    """The mm one camera pixel spans along each direction (radians, board axes) at the blob."""
    if blob.camera is None:
        return np.full(len(dirs), DEFAULT_MM_PER_PX)
    units = np.vstack([np.cos(dirs), np.sin(dirs)])
    out: np.ndarray = 1.0 / np.maximum(np.linalg.norm(blob.camera @ units, axis=0), 1e-6)
    return out


def _breadths(pts: np.ndarray, angles: np.ndarray) -> np.ndarray:
    """The breadth of a point set along each direction."""
    proj = pts[:, 0:1] * np.cos(angles)[None, :] + pts[:, 1:2] * np.sin(angles)[None, :]
    out: np.ndarray = proj.max(axis=0) - proj.min(axis=0)
    return out


def fit_blob(
    blob: Blob, hyps: list[Hypothesis], foot: np.ndarray, cam_height: float, px_per_mm: float
) -> list[Fit]:
    """Every piece hypothesis scored against the blob (best first), at the piece's best turn: the blob's
    breadths along six directions and its area against those of the piece's footprint swept by the
    parallax of its height, and the breadths of its brightest part against the piece's top face (light
    falls on tops more than on sides) where that part stands out."""
    rect = cv2.minAreaRect(blob.hull_mm.astype(np.float32))
    (rw, rh), ang = rect[1], rect[2]
    theta = math.radians(ang if rw >= rh else ang + 90.0)
    dirs = DIRECTIONS + theta
    meas = _breadths(blob.hull_mm, dirs) - EDGE_BIAS_MM
    use_top = blob.cut or (
        len(blob.top_mm) >= 3 and cv2.contourArea(blob.top_mm.astype(np.float32)) < 0.8 * blob.area_mm2
    )
    top = _breadths(blob.top_mm, dirs) if use_top else None
    cx, cy = blob.centroid_mm
    dx, dy = cx - float(foot[0]), cy - float(foot[1])
    rel = YAWS[:, None] - dirs[None, :]  # (yaw, direction)
    c, s_ = np.abs(np.cos(rel))[None], np.abs(np.sin(rel))[None]
    length = np.array([h.length for h in hyps])[:, None, None]
    width = np.array([h.width for h in hyps])[:, None, None]
    k = np.array([h.height / max(cam_height - h.height, 1.0) for h in hyps])
    sx, sy = dx * k, dy * k  # each piece's top shifted from its foot by parallax
    shift = np.abs(sx[:, None] * np.cos(dirs)[None, :] + sy[:, None] * np.sin(dirs)[None, :])[:, None, :]
    grow = (1 + k / 2)[:, None, None]  # the sides widen from foot to top; on average by half the top's scale
    L, W = length * grow, width * grow
    # Short by up to a CORNER_MM rounding between the piece's axes counts nothing; longer always counts.
    corner = 2 * CORNER_MM * (c + s_ - 1)
    over = L * c + W * s_ + shift - meas[None, None, :]
    # A part cut out of several pieces may lose side pixels to its neighbour: it must only not be larger.
    err = (np.maximum(-over, 0) if blob.cut else np.maximum(over - corner, -over)).max(axis=2)  # (hyp, yaw)
    # Area of the footprint swept along the shift: the rectangle plus the shift times its breadth across.
    turn = YAWS[None, :]  # the piece's turn as the breadths take it (absolute, not from the blob's axis)
    sa = np.abs(sx[:, None] * np.cos(turn) + sy[:, None] * np.sin(turn))
    sb = np.abs(sy[:, None] * np.cos(turn) - sx[:, None] * np.sin(turn))
    L2, W2 = L[:, :, 0], W[:, :, 0]
    area = L2 * W2 + sb * L2 + sa * W2
    extra = (blob.area_mm2 - area) / (L2 + W2)
    err = np.maximum(err, np.maximum(extra, 0) if blob.cut else np.abs(extra))
    if top is not None:
        top_scale = (1 + k)[:, None, None]
        Lt, Wt = length * top_scale, width * top_scale
        short = Lt * c + Wt * s_ - top[None, None, :]  # > 0: the bright part is smaller
        # Short by the blur (TOP_BLUR_PX at this place's sampling) counts nothing either; longer counts.
        blur = TOP_BLUR_PX * camera_mm_per_px(blob, dirs)[None, None, :]
        err = np.maximum(err, np.maximum(short - corner - blur, -short).max(axis=2))
    best = err.min(axis=1)  # each piece at its best turn
    turns = YAWS[err.argmin(axis=1)]
    fits = [
        Fit(
            h,
            float(best[i]),
            (cx - float(sx[i]) / 2, cy - float(sy[i]) / 2),
            float(turns[i]),
            (float(sx[i]), float(sy[i])),
            float(1 + k[i]),
        )
        for i, h in enumerate(hyps)
    ]
    fits.sort(key=lambda f: f.error_mm)
    return fits


def faces_split(
    blob: Blob, top: np.ndarray, fit: Fit, px_per_mm: float, origin_mm: tuple[float, float]
) -> float:
    """How well the piece of `fit` parts the blob into its top face and the sides seen below it: the
    colour spread left inside the two parts over the blob's whole spread (0: two flat faces exactly where
    the piece puts them; 1: no better than one colour). Whichever face is brighter: a height cue that
    holds under a lamp from the side, where the brightest part takes in a lit side."""
    x0, y0, x1, y1 = blob.bbox_px
    ys, xs = np.nonzero(blob.mask)
    if len(ys) < 10:
        return 1.0
    col = top[y0:y1, x0:x1][ys, xs].astype(np.float64)
    px = (xs + x0 + 0.5) / px_per_mm + origin_mm[0]
    py = (ys + y0 + 0.5) / px_per_mm + origin_mm[1]
    h = fit.hypothesis
    tx, ty = fit.foot_mm[0] + fit.top_shift_mm[0], fit.foot_mm[1] + fit.top_shift_mm[1]
    cu, su = math.cos(fit.yaw), math.sin(fit.yaw)
    u = (px - tx) * cu + (py - ty) * su
    v = -(px - tx) * su + (py - ty) * cu
    on_top = (np.abs(u) <= h.length * fit.top_scale / 2) & (np.abs(v) <= h.width * fit.top_scale / 2)
    n_top = int(np.count_nonzero(on_top))
    if n_top < 5 or len(ys) - n_top < 5:
        return 1.0
    total = float(((col - col.mean(axis=0)) ** 2).sum())
    if total <= 0:
        return 1.0
    a, b = col[on_top], col[~on_top]
    within = float(((a - a.mean(axis=0)) ** 2).sum() + ((b - b.mean(axis=0)) ** 2).sum())
    return within / total
