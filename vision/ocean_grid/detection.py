"""Finding the ocean grid's ArUco markers in a frame: the frame markers' homography and the boards' and
ships' markers, full-frame or coarse-to-fine.
"""

from __future__ import annotations

import cv2
import numpy as np

from vision.geometry import (
    GeometryError,
    apply_homography,
    aruco_dictionary,
    aruco_markers,
    fit_homography,
    merge_boxes,
)
from vision.ocean_grid.layout import Marker, TableLayout

# A board marker's (and, in the second look, a ship marker's) outline must measure this fraction of its
# expected perimeter in px (from the table homography), smallest to largest: tilt, lens distortion, a
# ship marker's height and a board lying a little off its spot stay well inside.
BOARD_PERIMETER_RANGE = (0.6, 1.6)

_DETECTORS: dict[tuple[str, str], cv2.aruco.ArucoDetector] = {}
# The full-frame pass's marker perimeter limits, as rates of the frame's larger side.
_FRAME_PERIMETER_RATES = (0.03, 0.3)
# The half-size pass's smallest outline (rate of its larger side; 0.03 there is the full-frame pass's
# limit): the art's many small contours are costly there, and the few small tilted ship markers it then
# misses are found by the second look at full size (measured: docs/bench/vision.md).
_COARSE_MIN_PERIMETER_RATE = 0.036
# Margin (mm) around the table's outline when the marker pass reuses the previous frame's registration.
LIVE_MARGIN_MM = 30.0


def _table_box(H: np.ndarray | None, layout: TableLayout, w: int, h: int) -> tuple[int, int, int, int] | None:
    """The table's outline under homography H, widened by LIVE_MARGIN_MM and 16 px, as a pixel box
    (x0, y0, x1, y1) clipped to the frame; None without H or when the box is degenerate."""
    if H is None:
        return None
    W, Ht = layout.size_mm
    m = LIVE_MARGIN_MM
    box = apply_homography(H, np.array([[-m, -m], [W + m, -m], [W + m, Ht + m], [-m, Ht + m]]))
    if not np.all(np.isfinite(box)):
        return None
    x0, y0 = (max(0, int(v) - 16) for v in np.floor(box.min(axis=0)))
    x1, y1 = min(w, int(np.ceil(box[:, 0].max())) + 16), min(h, int(np.ceil(box[:, 1].max())) + 16)
    if x1 - x0 < 64 or y1 - y0 < 64:
        return None
    return x0, y0, x1, y1


def _detector(dictionary_name: str, kind: str) -> cv2.aruco.ArucoDetector:
    """Detectors tuned for speed: one adaptive-threshold window (the research notes: each extra window
    costs a full pass), a minimum perimeter that still admits a 25 mm ship marker at 1 px/mm."""
    key = (dictionary_name, kind)
    det = _DETECTORS.get(key)
    if det is None:
        # "frame-crop": the frame detector for a crop; its perimeter rates are set per call, so it
        # is a separate object and the full-frame detector keeps its own.
        # "fine": the same for the strip of full-resolution crops around half-size candidates;
        # "coarse-crop": the half-size detector for the table's outline (live mode).
        # "bloom": the same for the bloom look, reading each cell by its centre (BLOOM_CELL_MARGIN).
        bloom = kind == "bloom"
        base = {"frame-crop": "frame", "fine": "frame", "bloom": "frame", "coarse-crop": "coarse"}
        kind = base.get(kind, kind)
        p = cv2.aruco.DetectorParameters()
        if bloom:
            p.perspectiveRemoveIgnoredMarginPerCell = BLOOM_CELL_MARGIN
        # "retry": a small window keeps a thin quiet zone white when dark art touches a ship's plate.
        p.adaptiveThreshWinSizeMin = 7 if kind == "retry" else 13
        p.adaptiveThreshWinSizeMax = 7 if kind == "retry" else 13
        p.adaptiveThreshWinSizeStep = 10
        if kind == "coarse":
            # The half-size look of the full-frame pass: the smallest window keeps the thin white plate
            # of a small ship marker apart from dark art (the 13 px window's size there, 7 px, loses
            # some; measured in docs/bench/vision.md).
            p.adaptiveThreshWinSizeMin = p.adaptiveThreshWinSizeMax = 3
        # (Rates are of the image's larger side; the boards' strip of crops is long and thin.)
        p.minMarkerPerimeterRate = {
            "frame": _FRAME_PERIMETER_RATES[0],
            "coarse": _COARSE_MIN_PERIMETER_RATE,
            "retry": 0.04,
        }.get(kind, 0.02)
        p.maxMarkerPerimeterRate = {
            "frame": _FRAME_PERIMETER_RATES[1],
            "coarse": _FRAME_PERIMETER_RATES[1],
            "retry": 0.5,
        }.get(kind, 4.0)
        # More samples per bit: a 25 mm ship marker can be ~20 px in a tilted view.
        p.perspectiveRemovePixelPerCell = 8
        p.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_SUBPIX
        p.cornerRefinementWinSize = 3
        if kind == "coarse":  # its corners only place the full-resolution crops
            p.cornerRefinementMethod = cv2.aruco.CORNER_REFINE_NONE
        # Fewer corrected bits for the ships: a misread id would put a ship on a wrong square. Board
        # markers are small and often soft, and a misread there is caught (only known ids, only at the
        # marker's place, never two squares with one board).
        p.errorCorrectionRate = 0.6 if kind == "board" else 0.3
        det = cv2.aruco.ArucoDetector(aruco_dictionary(dictionary_name), p)
        _DETECTORS[key] = det
    return det


def _detect(
    gray: np.ndarray,
    dictionary_name: str,
    kind: str,
    perimeter_rates: tuple[float, float] | None = None,
    rejected: list[np.ndarray] | None = None,
) -> dict[int, list[np.ndarray]]:
    """Markers of one dictionary; `perimeter_rates` (min, max, of the image's larger side) replace the
    detector's own limits for this call when the marker's size in pixels is known. The outlines that did
    not decode go to `rejected` when it is given."""
    det = _detector(dictionary_name, kind)
    if perimeter_rates is not None:
        p = det.getDetectorParameters()
        p.minMarkerPerimeterRate, p.maxMarkerPerimeterRate = perimeter_rates
        det.setDetectorParameters(p)
    corners, ids, undecoded = aruco_markers(det, gray)
    if rejected is not None:
        rejected.extend(np.asarray(q, np.float64).reshape(4, 2) for q in undecoded)
    found: dict[int, list[np.ndarray]] = {}
    if ids is not None:
        for c, i in zip(corners, ids.reshape(-1), strict=True):
            found.setdefault(int(i), []).append(c.reshape(4, 2).astype(np.float64))
    return found


# Margin (px, full resolution) around a half-size candidate's box for its full-resolution look: the
# adaptive threshold's window (13 px), the detector's border distance (3 px) and the half-size corners'
# error (up to ~4 px) stay inside, so a marker found there gets exactly the full-frame pass's corners.
COARSE_MARGIN_PX = 32
# ... and at least this fraction of the candidate's perimeter: the crop's own edge is an outline too,
# and the detector merges outlines whose corners lie within 0.125 perimeters of each other (keeping the
# crop's, which then fails to decode).
COARSE_MARGIN_RATE = 0.15


def _coarse_to_fine(
    gray: np.ndarray, layout: TableLayout, in_play: set[str], box: tuple[int, int, int, int] | None = None
) -> dict[int, list[np.ndarray]] | None:
    """The full-frame marker pass (frame markers and ships, one dictionary) at about half its cost:
    candidates are found and decoded on an exact half-size copy; the frame markers found there get
    their corners refined at full resolution; every ship marker decoded there, every outline of a ship
    marker's size that failed to decode there (small markers often do; only while a ship in play is not
    decoded at half size: the same rule as the second look), and every frame marker the half-size pass
    missed, where the rough table homography puts it, are read again at full resolution, in crops laid
    side by side (one detector call with the full-frame pass's parameters and perimeter limits in px):
    a marker found there has the corners the full-frame pass would give it. None (the caller runs the
    full-frame pass) when the half-size pass does not find 3 frame markers spanning the table, or when
    the ships use another dictionary.

    `box` (x0, y0, x1, y1; live mode: the table's outline in the previous frame) limits the half-size
    pass to that part of the frame; its half-size pixels are the whole frame's there."""
    # Kept whole: the half-size pass, the full-resolution crops and their corners share the candidates' boxes
    # and scales; the docstring is its outline.
    if layout.ships.aruco_dictionary != layout.aruco_dictionary:
        return None
    h, w = gray.shape[:2]
    x0, y0, x1, y1 = (0, 0, w, h) if box is None else box
    x0, y0 = x0 - x0 % 2, y0 - y0 % 2
    hh, hw = (y1 - y0) // 2, (x1 - x0) // 2
    if hh < 64 or hw < 64:
        return None
    # Exactly half (even size and origin): INTER_AREA then averages 2x2 blocks, its fast path.
    half = cv2.resize(gray[y0 : y0 + 2 * hh, x0 : x0 + 2 * hw], (hw, hh), interpolation=cv2.INTER_AREA)
    if box is None:
        det = _detector(layout.aruco_dictionary, "coarse")
    else:
        # The whole frame's perimeter limits in px, as rates of this image's larger side (a detector
        # of its own: changing a detector's parameters makes its next call slower).
        det = _detector(layout.aruco_dictionary, "coarse-crop")
        scale = max(w // 2, h // 2) / float(max(hw, hh))
        p = det.getDetectorParameters()
        p.minMarkerPerimeterRate = _COARSE_MIN_PERIMETER_RATE * scale
        p.maxMarkerPerimeterRate = _FRAME_PERIMETER_RATES[1] * scale
        det.setDetectorParameters(p)
    corners, ids, rejected = aruco_markers(det, half)
    # Half-size px -> full px (pixel centres: half pixel i covers full pixels 2i and 2i+1).
    origin = np.array([x0 + 0.5, y0 + 0.5])
    quads: dict[int, list[np.ndarray]] = {}
    if ids is not None:
        for c, i in zip(corners, ids.reshape(-1), strict=True):
            quads.setdefault(int(i), []).append(c.reshape(4, 2).astype(np.float64) * 2 + origin)
    frame = [(m, quads[m.id][0]) for m in layout.markers if len(quads.get(m.id, [])) == 1]
    if not _spread_ok(layout, [m for m, _ in frame]):
        return None
    try:
        H = fit_homography(
            np.concatenate([m.corners_mm for m, _ in frame]), np.concatenate([q for _, q in frame])
        )
        Hinv = np.linalg.inv(H)
    except (GeometryError, np.linalg.LinAlgError):
        return None
    # Frame markers decoded at half size keep that id (a misread one disagrees with the others and the
    # homography fit drops it) and their half-size corners: the caller settles every frame marker's
    # corners at full resolution (`_settle_corners`). The ships are read again at full resolution (a
    # misread id there would put a ship on a wrong square).
    found: dict[int, list[np.ndarray]] = {m.id: [q] for m, q in frame}
    frame_ids = {m.id for m in layout.markers}
    ship_ids = set(layout.ships.ids.values())
    boxes: list[np.ndarray] = [q for mid, qs in quads.items() if mid in ship_ids for q in qs]
    boxes += [q for mid, qs in quads.items() if mid in frame_ids and len(qs) > 1 for q in qs]
    boxes += [apply_homography(H, m.corners_mm) for m in layout.markers if m.id not in quads]
    unseen = [mid for name, mid in layout.ships.ids.items() if name in in_play and mid not in quads]
    if unseen and len(rejected):
        # Undecoded outlines of a ship marker's size (0.6-1.6x the perimeter the homography predicts
        # where they lie) on or near the table.
        W, Ht = layout.size_mm
        rq = np.array(rejected, dtype=np.float64).reshape(-1, 4, 2) * 2 + origin
        per = _perimeters(rq)
        where = apply_homography(Hinv, rq.mean(axis=1))
        half_mm = layout.ships.marker_size_mm / 2
        sq = (where[:, None, :] + half_mm * np.array([[-1, -1], [1, -1], [1, 1], [-1, 1]])).reshape(-1, 2)
        expect = _perimeters(apply_homography(H, sq).reshape(-1, 4, 2))
        keep = (
            (where[:, 0] >= -40.0)
            & (where[:, 0] <= W + 40.0)
            & (where[:, 1] >= -40.0)
            & (where[:, 1] <= Ht + 40.0)
            & (per >= BOARD_PERIMETER_RANGE[0] * expect)
            & (per <= BOARD_PERIMETER_RANGE[1] * expect)
        )
        boxes += list(rq[keep])
    # Pixel boxes around the candidates, merged where they overlap (a marker must not be found twice).
    raw: list[list[int]] = []
    if boxes:
        qs = np.array(boxes, dtype=np.float64).reshape(-1, 4, 2)
        qs = qs[np.isfinite(qs).all(axis=(1, 2))]
        m = np.maximum(COARSE_MARGIN_PX, np.ceil(COARSE_MARGIN_RATE * _perimeters(qs)))[:, None]
        lo = np.maximum(np.floor(qs.min(axis=1)) - m, 0).astype(int)
        hi = np.minimum(np.ceil(qs.max(axis=1)) + m + 1, [w, h]).astype(int)
        ok = ((hi - lo) >= 16).all(axis=1)
        raw = np.concatenate([lo, hi], axis=1)[ok].tolist()
    rects = merge_boxes([(x0, y0, x1, y1) for x0, y0, x1, y1 in raw])
    if not rects:
        return found
    crops = [gray[y0:y1, x0:x1] for x0, y0, x1, y1 in rects]
    tall = max(c.shape[0] for c in crops)
    # Shorter crops padded with plain white: a replicated edge draws streaks that cost contours.
    strip = np.hstack(
        [cv2.copyMakeBorder(c, 0, tall - c.shape[0], 0, 0, cv2.BORDER_CONSTANT, value=255) for c in crops]
    )
    starts = np.cumsum([0] + [c.shape[1] for c in crops])
    side = float(max(strip.shape[:2]))
    full = float(max(w, h))
    rates = (_FRAME_PERIMETER_RATES[0] * full / side, _FRAME_PERIMETER_RATES[1] * full / side)
    border = _detector(layout.aruco_dictionary, "frame").getDetectorParameters().minDistanceToBorder
    for mid, strip_qs in _detect(strip, layout.aruco_dictionary, "fine", rates).items():
        for strip_q in strip_qs:
            k = int(np.searchsorted(starts, strip_q[:, 0].mean(), side="right")) - 1
            x0, y0 = rects[k][0], rects[k][1]
            q = strip_q + np.array([x0 - starts[k], y0], dtype=np.float64)
            # As the full-frame pass: nothing touching the frame's edge (a crop's edge is not one).
            if q.min() < border or np.any(q.max(axis=0) > np.array([w - 1 - border, h - 1 - border])):
                continue
            # A frame marker kept from the half-size pass, met again in an outline's crop: one marker.
            if any(np.linalg.norm(o.mean(axis=0) - q.mean(axis=0)) < 8.0 for o in found.get(mid, [])):
                continue
            found.setdefault(mid, []).append(q)
    return found


# Grey erosions (min filters) the bloom look tries, in px: a bright exposure blooms a marker's white into
# its black by about a pixel, shrinking the black border's outline and every black cell until the bits no
# longer decode; a min filter of 2 or 3 px gives the black its pixel back (measured on the tuning tables,
# docs/bench/ships.md, round 6).
BLOOM_ERODE_PX = (2, 3)
# Most outlines the bloom look decodes again (the largest first): it is a last look, not a full pass.
BLOOM_MAX_OUTLINES = 12
# Share of each cell's side left out at its edges when the bloom look reads a marker's bits (OpenCV's
# default is 0.13): a bloom eats a black cell from its edges, and a black cell with white on three sides
# (the red ship's marker, id 20, has one) is grey by its mean long before its centre turns white
# (round 8, docs/bench/ships.md).
BLOOM_CELL_MARGIN = 0.3


def _bloom_look(
    gray: np.ndarray, dictionary_name: str, outlines: list[np.ndarray], perimeter_px: tuple[float, float]
) -> dict[int, list[np.ndarray]]:
    """Undecoded outlines of a marker's size (full-frame px) read again where a bright exposure bloomed
    the marker's white into its black: each outline's crop under each grey erosion of BLOOM_ERODE_PX,
    all laid side by side (one detector call per erosion, the full-frame pass's window), corners back in
    full-frame px. Only markers found at one place (within 8 px) under every erosion that finds them."""
    if not outlines:
        return {}
    h, w = gray.shape[:2]
    qs = np.array(outlines, dtype=np.float64).reshape(-1, 4, 2)
    qs = qs[np.argsort(-_perimeters(qs))][:BLOOM_MAX_OUTLINES]
    m = np.ceil(12.0 + COARSE_MARGIN_RATE * _perimeters(qs))[:, None]
    lo = np.maximum(np.floor(qs.min(axis=1)) - m, 0).astype(int)
    hi = np.minimum(np.ceil(qs.max(axis=1)) + m + 1, [w, h]).astype(int)
    ok = ((hi - lo) >= 16).all(axis=1)
    rects = merge_boxes([tuple(r) for r in np.concatenate([lo, hi], axis=1)[ok].tolist()])
    if not rects:
        return {}
    crops = [gray[y0:y1, x0:x1] for x0, y0, x1, y1 in rects]
    tall = max(c.shape[0] for c in crops)
    starts = np.cumsum([0] + [c.shape[1] for c in crops])
    found: dict[int, list[np.ndarray]] = {}
    for k in BLOOM_ERODE_PX:
        kernel = np.ones((k, k), np.uint8)
        strip = np.hstack(
            [
                cv2.copyMakeBorder(
                    cv2.erode(c, kernel), 0, tall - c.shape[0], 0, 0, cv2.BORDER_CONSTANT, value=255
                )
                for c in crops
            ]
        )
        side = float(max(strip.shape[:2]))
        rates = (perimeter_px[0] / side, perimeter_px[1] / side)
        for mid, strip_qs in _detect(strip, dictionary_name, "bloom", rates).items():
            for strip_q in strip_qs:
                i = int(np.searchsorted(starts, strip_q[:, 0].mean(), side="right")) - 1
                q = strip_q + np.array([rects[i][0] - starts[i], rects[i][1]], dtype=np.float64)
                if not any(np.linalg.norm(o.mean(axis=0) - q.mean(axis=0)) < 8.0 for o in found.get(mid, [])):
                    found.setdefault(mid, []).append(q)
    return found


def _settle_corners(gray: np.ndarray, quads: list[np.ndarray]) -> list[np.ndarray]:
    """Frame markers' corners moved to the fixed point of OpenCV's sub-pixel corner search (7x7
    window, as the detector's own refinement) at full resolution: from the detector's corners or from
    the half-size pass's (up to ~4 px off) each lands within 0.001 px of the same place, so a cold and
    a live reading of one frame fit the same homography. (One call for all: each corner is searched
    on its own.)"""
    if not quads:
        return []
    pts = cv2.cornerSubPix(
        gray,
        np.concatenate(quads).astype(np.float32).reshape(-1, 1, 2),
        (3, 3),
        (-1, -1),
        (cv2.TERM_CRITERIA_MAX_ITER | cv2.TERM_CRITERIA_EPS, 100, 1e-4),
    )
    return list(pts.reshape(-1, 4, 2).astype(np.float64))


def _perimeters(quads: np.ndarray) -> np.ndarray:
    """Perimeters of (N, 4, 2) quads."""
    return np.linalg.norm(quads - quads[:, [1, 2, 3, 0]], axis=2).sum(axis=1)


def _perimeter_px(H: np.ndarray, center_mm: tuple[float, float], size_mm: float) -> float:
    """Perimeter in px of a size_mm square lying on the table at center_mm, as the homography draws it."""
    x, y, half = center_mm[0], center_mm[1], size_mm / 2
    quad = apply_homography(
        H, np.array([[x - half, y - half], [x + half, y - half], [x + half, y + half], [x - half, y + half]])
    )
    return float(np.linalg.norm(quad - np.roll(quad, -1, axis=0), axis=1).sum())


# Keyed by the layout's id with the layout kept in the entry (see `classification._FRAME_SAMPLES`).
_SPREAD: dict[tuple[int, tuple[int, ...]], tuple[TableLayout, bool]] = {}


def _spread_ok(layout: TableLayout, markers: list[Marker]) -> bool:
    """At least 3 frame markers whose centres span a triangle of a tenth of the table's area or more."""
    if len(markers) < 3:
        return False
    key = (id(layout), tuple(m.id for m in markers))
    entry = _SPREAD.get(key)
    if entry is not None and entry[0] is layout:
        return entry[1]
    centres = np.array([m.corners_mm.mean(axis=0) for m in markers], dtype=np.float32)
    area = float(cv2.contourArea(cv2.convexHull(centres)))
    ok = area >= 0.1 * layout.size_mm[0] * layout.size_mm[1]
    _SPREAD[key] = (layout, ok)
    return ok
