"""Colour calibration: learn each cube colour from the cubes placed on the layout's swatches, and the
colours of the bare board, under the current light. One image, well under a second: re-run it whenever
the light changes. Owns the learning; the palette format and classifier are `vision.palette`.
"""

from __future__ import annotations

import math
from typing import Any

import cv2
import numpy as np

from vision.battle_board.layout import BoardLayout
from vision.battle_board.reader import BoardReader
from vision.board_print import zone_mask
from vision.camera import CameraModel
from vision.geometry import apply_homography
from vision.palette import (
    ColorModel,
    Palette,
    background_bins_from_pixels,
    color_distance,
    log_covariance,
)

# A middle square less even than this (median BGR distance) is looked for nearby (`_most_even_patch`).
RESEARCH_SPREAD = 8.0
SEARCH_MM = 3.0


class CalibrationError(ValueError):
    """Calibration could not be done; the message says what to fix."""


def learn_palette(
    image: np.ndarray,
    layout: BoardLayout,
    camera: CameraModel | dict | str | None = None,
    colors: list[str] | None = None,
    questions: list[dict[str, Any]] | None = None,
) -> Palette:
    """A palette from an image of the board with one cube on each swatch (or on those of `colors`).

    Refuses (CalibrationError) only what cannot work: no board, several empty-looking swatches (one alone
    is asked about: a dark cube on a dark rail can look bare), two cubes swapped. What a person should
    look at (a swatch that may be empty, two colours close under this light, a cube colour the print also
    shows) is appended to `questions` (`{"kind", "colors", "text", "crops": {colour: BGR image}}`, the
    shape a CLI or tablet shows) and the palette is still returned: the caller asks and discards it on a
    "no"."""
    # Long on purpose: one pass over the swatches whose checks share their crops and measurements; each check
    # is a few lines and reads best in order.
    questions = [] if questions is None else questions
    if not layout.swatches:
        raise CalibrationError(f"layout {layout.name!r} has no 'swatches': add one per cube colour")
    wanted = [s for s in layout.swatches if colors is None or s.color in colors]
    unknown = sorted(set(colors or []) - {s.color for s in layout.swatches})
    if unknown:
        raise CalibrationError(
            f"the layout has no swatch for {', '.join(unknown)}; "
            f"it has {', '.join(s.color for s in layout.swatches)}"
        )
    reader = BoardReader(layout, Palette(colors=[]), camera)
    gray = cv2.cvtColor(image, cv2.COLOR_BGR2GRAY)
    located = reader.locate(gray)
    if isinstance(located, str):
        raise CalibrationError(f"cannot find the board: {located}")
    _, pose, _ = located
    s = reader.s
    # Swatches are printed on the rail: the cubes' top faces are a rail height higher than in a zone.
    top = reader.rectify(image, pose, layout.cube_size_mm + layout.rail_height_mm).astype(np.float32)
    flat = reader.rectify(image, pose, 0.0)

    models: list[ColorModel] = []
    maybe_empty: list[str] = []
    no_edges: list[str] = []  # ... of those, the ones whose spot shows no cube's outline either
    crops: dict[str, np.ndarray] = {}
    for sw in wanted:
        cx, cy = sw.center_mm * s
        r_in = 2.5 * s  # the middle 5 x 5 mm of the top face: safe if the cube is 2 mm off the spot
        patch = top[int(cy - r_in) : int(cy + r_in) + 1, int(cx - r_in) : int(cx + r_in) + 1].reshape(-1, 3)
        ring = _ring(top, (cx, cy), 11.0 * s, 14.0 * s)
        if patch.size == 0:
            raise CalibrationError(f"swatch {sw.color!r} at {sw.center_mm.tolist()} mm is outside the image")
        r_crop = int(16 * s)
        crops[sw.color] = top[
            max(0, int(cy) - r_crop) : int(cy) + r_crop, max(0, int(cx) - r_crop) : int(cx) + r_crop
        ].astype(np.uint8)
        bgr = np.median(patch, axis=0)
        spread = float(np.median(np.linalg.norm(patch - bgr, axis=1)))
        surround = np.median(ring, axis=0)
        if spread > RESEARCH_SPREAD:
            # A cube placed further off the spot, or turned: the middle square takes in a side face.
            # The most even 5 x 5 mm square within SEARCH_MM that is neither the bare spot nor the rail.
            bgr, spread, patch = _most_even_patch(
                top, (cx, cy), r_in, SEARCH_MM * s, surround, (bgr, spread, patch)
            )
        if _same_as_rail(bgr, surround):
            # The rail's colour, with or without a cube's outline: a person looks. A black cube on a dark
            # rail under a dim lamp shows neither its colour nor clear edges (fresh Cycles design 7372,
            # round 8: refused though the cube was plainly there); two such spots are refused below.
            maybe_empty.append(sw.color)
            if not _has_edges(top, (cx, cy), s):
                no_edges.append(sw.color)
        elif _neutral_mid(bgr):
            # A grey spot, or a dark cube under a bright lamp (it photographs mid-grey): a person can tell.
            maybe_empty.append(sw.color)
            if not _has_edges(top, (cx, cy), s):
                no_edges.append(sw.color)
        if spread > 25:
            _ask(
                questions,
                "uneven-top",
                [sw.color],
                f"the {sw.color} cube's top face is not one colour (glare, "
                "shadow or off the spot): is the crop the cube, centred?",
                crops,
            )
        # Rounded as the file stores them, so a saved palette classifies exactly like this one.
        models.append(
            ColorModel(
                name=sw.color,
                bgr=np.round(bgr.astype(np.float64), 2),
                spread=round(max(spread, 1.0), 2),
                # The distribution of the top face under this light (stored as the file rounds it).
                cov=np.array([float(f"{v:.3g}") for v in log_covariance(patch).ravel()]).reshape(3, 3),
            )
        )
    if len(no_edges) > 1 or 2 * len(maybe_empty) > len(wanted):
        # More than one bare-looking spot without a cube's outline, or most spots bare-looking, is no
        # lighting trick: cubes are missing. (A blue cube greyed by warm light beside a black one in the
        # rail's colour, both with a cube's edges, is asked about: tuning design 8042, round 6.)
        empty = no_edges if len(no_edges) > 1 else maybe_empty
        sw = next(x for x in wanted if x.color == empty[0])
        raise CalibrationError(
            f"swatch {sw.color!r} at {sw.center_mm.tolist()} mm looks empty (so do "
            f"{', '.join(empty[1:]) or 'no others'}): put one cube of each colour on its "
            "swatch and run again"
        )
    for color in maybe_empty:
        looks = "the bare rail, with no cube's edges" if color in no_edges else "a grey spot"
        _ask(
            questions,
            "swatch-maybe-empty",
            [color],
            f"is there a {color} cube on the {color} swatch? Under this light it looks like {looks}; "
            f"if there is none, put one there and run again",
            crops,
        )
    swapped = _swapped(models)
    if swapped:
        raise CalibrationError(
            f"the {swapped[0]} and {swapped[1]} cubes look swapped (each looks like the other's "
            "colour): put each on its own swatch and run again"
        )
    for i, a in enumerate(models):
        for b in models[i + 1 :]:
            ab = color_distance(b.bgr.reshape(1, 3).astype(np.float32), a)[0]
            ba = color_distance(a.bgr.reshape(1, 3).astype(np.float32), b)[0]
            if max(ab, ba) < 4.0:
                # Close under this light, yet a person may see them plainly apart: show both and ask.
                _ask(
                    questions,
                    "colors-close",
                    [a.name, b.name],
                    f"{a.name} and {b.name} look close under this "
                    "light: are the two crops the right cubes? (whiter, more even light separates them "
                    "better)",
                    crops,
                )

    # The bare board: every board pixel away from the swatches and markers.
    keep = reader.valid.copy()
    for sw in layout.swatches:
        cv2.circle(keep, (int(sw.center_mm[0] * s), int(sw.center_mm[1] * s)), int(13 * s), 0, -1)
    board_px = flat[keep > 0]
    # The bare board at 1 px/mm, with what the swatch cubes cover filled in from the board around.
    ref = cv2.resize(
        flat, (int(round(layout.size_mm[0])), int(round(layout.size_mm[1]))), interpolation=cv2.INTER_AREA
    )
    ref = bare_board(ref, layout, pose)
    palette = Palette(
        colors=models,
        background_bins=background_bins_from_pixels(board_px),
        meta={"layout": layout.name, "swatches": [m.name for m in models], "reference": "bare"},
        white=markers_white(flat, layout, s),
        reference=ref,
    )
    # A cube colour the board itself shows (a red print under a red cube) would be missed: say so.
    lut = palette.lut()
    for m in models:
        from vision.palette import bin_index

        if lut[bin_index(np.clip(m.bgr, 0, 255).astype(np.uint8).reshape(1, 1, 3))][0, 0] == 0:
            _ask(
                questions,
                "color-like-print",
                [m.name],
                f"{m.name} cubes look like part of the board's print "
                "under this light; they are told apart by place (the bare board in this photo): is the crop "
                "a "
                f"{m.name} cube?",
                crops,
            )
    return palette


def markers_white(flat: np.ndarray, layout: BoardLayout, s: float) -> np.ndarray | None:
    """The light's colour as this photo shows it: the white cells of the ArUco markers (every marker has
    some; the board's paper may be any colour), the brightest third of each marker's inside, its median
    over the markers; None when no marker shows. Pixels with a channel at or past 250 are clipped (their
    colour is biased towards grey) and are used only where a marker shows no other."""
    whites = []
    h, w = flat.shape[:2]
    for m in layout.markers:
        c = np.asarray(m.corners_mm, np.float64)
        centre = c.mean(axis=0)
        inner = centre + (c - centre) * 0.75  # inside the black border, away from the edge's blur
        mask: np.ndarray = np.zeros((h, w), np.uint8)
        cv2.fillConvexPoly(mask, np.round(inner * s).astype(np.int32), 255)
        px = flat[mask > 0].reshape(-1, 3).astype(np.float32)
        if len(px) < 20:
            continue
        bright = px[px.sum(axis=1) >= np.percentile(px.sum(axis=1), 67)]
        unclipped = bright[bright.max(axis=1) < 250]
        whites.append(np.median(unclipped if len(unclipped) >= 10 else bright, axis=0))
    if not whites:
        return None
    white = np.median(np.array(whites), axis=0)
    return np.round(white.astype(np.float64), 2) if white.sum() >= 30 else None


def swatch_cover(shape: tuple[int, int], layout: BoardLayout, pose: Any) -> list[np.ndarray]:
    """Per swatch (the layout's order), 255 where its calibration cube (placed up to 3 mm off its spot,
    any turn) shows when seen on the board plane from this camera (1 px/mm, `shape` = (h, w)), with its
    shadow's margin: what the photo with the cubes on hides of the print."""
    size, rail = layout.cube_size_mm, layout.rail_height_mm
    to_board = np.linalg.inv(pose.plane_homography(0.0))
    half = size / 2 * math.sqrt(2) + 3.0
    out = []
    for sw in layout.swatches:
        hole: np.ndarray = np.zeros(shape, np.uint8)
        sq = sw.center_mm + np.array([[-half, -half], [half, -half], [half, half], [-half, half]])
        pts = [sq]
        for z in (rail, rail + size):
            img = apply_homography(pose.plane_homography(z), sq)
            pts.append(apply_homography(to_board, img))
        hull = cv2.convexHull(np.concatenate(pts).astype(np.float32)).reshape(-1, 2)
        cv2.fillConvexPoly(hole, np.round(hull).astype(np.int32), 255)
        out.append(cv2.dilate(hole, np.ones((5, 5), np.uint8)))
    return out


def bare_board(ref: np.ndarray, layout: BoardLayout, pose: Any) -> np.ndarray:
    """The calibration photo's board (1 px/mm, board plane) without the swatch cubes: where each cube
    shows from this camera (`swatch_cover`) is filled in from the print around it. Only a guess: a second
    photo with the cubes lifted replaces it (`calibration.bare_swatches`)."""
    hole: np.ndarray = np.zeros(ref.shape[:2], np.uint8)
    for m in swatch_cover(ref.shape[:2], layout, pose):
        hole |= m
    if not hole.any():
        return ref
    # Swatches lie on the rail: fill from the rail only (zones' print set to the rail's median first).
    zones = zone_mask(layout, ref.shape[1::-1])
    src = ref.copy()
    rail = (zones == 0) & (hole == 0)
    if rail.any():
        src[zones > 0] = np.median(ref[rail], axis=0).astype(np.uint8)
    filled = cv2.inpaint(src, hole, 5, cv2.INPAINT_TELEA)
    out = ref.copy()
    out[hole > 0] = filled[hole > 0]
    return out


def _ask(
    questions: list[dict[str, Any]], kind: str, colors: list[str], text: str, crops: dict[str, np.ndarray]
) -> None:
    questions.append(
        {"kind": kind, "colors": colors, "text": text, "crops": {c: crops[c] for c in colors if c in crops}}
    )


def _neutral_mid(bgr: np.ndarray) -> bool:
    """A neutral, mid-light colour: the project's grey swatch spot, or a dark cube under a bright lamp."""
    lab = cv2.cvtColor(np.clip(bgr, 0, 255).astype(np.uint8).reshape(1, 1, 3), cv2.COLOR_BGR2Lab)[0, 0]
    return bool(np.hypot(float(lab[1]) - 128, float(lab[2]) - 128) < 10 and 90 < lab[0] < 215)


def _has_edges(top: np.ndarray, centre: tuple[float, float], s: float) -> bool:
    """Whether the spot (8 mm around it) holds edges well above the typical rail texture around it (11-15 mm):
    a cube's outline and sides, even one coloured like the rail."""
    grey = cv2.cvtColor(np.clip(top, 0, 255).astype(np.uint8), cv2.COLOR_BGR2GRAY).astype(np.float32)
    cx, cy = centre
    r = int(16 * s)
    sub = grey[max(0, int(cy) - r) : int(cy) + r, max(0, int(cx) - r) : int(cx) + r]
    if sub.size == 0:
        return False
    mag = np.hypot(cv2.Sobel(sub, cv2.CV_32F, 1, 0), cv2.Sobel(sub, cv2.CV_32F, 0, 1))
    yy, xx = np.ogrid[: sub.shape[0], : sub.shape[1]]
    d = np.hypot(xx - (cx - max(0, int(cx) - r)), yy - (cy - max(0, int(cy) - r))) / s
    inner, outer = mag[d <= 8], mag[(d >= 11) & (d <= 15)]
    if not inner.size or not outer.size:
        return False
    return float(np.percentile(inner, 90)) > 3.0 * float(np.median(outer)) + 12.0


def _same_as_rail(bgr: np.ndarray, surround: np.ndarray) -> bool:
    """The rail's own colour around the spot: nothing there."""
    return bool(np.linalg.norm(bgr - surround) < 12)


def _looks_empty(bgr: np.ndarray, surround: np.ndarray) -> bool:
    return _neutral_mid(bgr) or _same_as_rail(bgr, surround)


# Hue (degrees, OpenCV Lab a/b) of the game's cube colours in ordinary light; a swap check only.
_NOMINAL_HUE = {"red": 40.0, "yellow": 95.0, "green": 150.0, "blue": 280.0}


def _hue(bgr: np.ndarray) -> tuple[float, float]:
    lab = cv2.cvtColor(np.clip(bgr, 0, 255).astype(np.uint8).reshape(1, 1, 3), cv2.COLOR_BGR2Lab)[
        0, 0
    ].astype(float)
    a, b = lab[1] - 128, lab[2] - 128
    return math.degrees(math.atan2(b, a)) % 360, math.hypot(a, b)


def _swapped(models: list[ColorModel]) -> tuple[str, str] | None:
    """Two known colours each far nearer the other's usual hue than its own (cubes on each other's swatch)."""

    def gap(h: float, n: float) -> float:
        return abs((h - n + 180) % 360 - 180)

    known = [(m.name, *_hue(m.bgr)) for m in models if m.name in _NOMINAL_HUE]
    for i, (na, ha, ca) in enumerate(known):
        for nb, hb, cb in known[i + 1 :]:
            if min(ca, cb) < 15:
                continue  # too grey to tell a hue
            own = gap(ha, _NOMINAL_HUE[na]) + gap(hb, _NOMINAL_HUE[nb])
            other = gap(ha, _NOMINAL_HUE[nb]) + gap(hb, _NOMINAL_HUE[na])
            if other + 60 < own:
                return na, nb
    return None


def _most_even_patch(
    top: np.ndarray,
    centre: tuple[float, float],
    r_in: float,
    reach: float,
    surround: np.ndarray,
    fallback: tuple[np.ndarray, float, np.ndarray],
) -> tuple[np.ndarray, float, np.ndarray]:
    """(median, spread, pixels) of the most even square of half-side `r_in` whose centre lies within `reach`
    pixels of `centre` and that does not look empty; `fallback` when none is more even."""
    cx, cy = centre
    best_score, best = fallback[1], fallback
    for dy in range(-int(reach), int(reach) + 1):
        for dx in range(-int(reach), int(reach) + 1):
            x, y = cx + dx, cy + dy
            patch = top[int(y - r_in) : int(y + r_in) + 1, int(x - r_in) : int(x + r_in) + 1].reshape(-1, 3)
            if patch.size == 0:
                continue
            bgr = np.median(patch, axis=0)
            spread = float(np.median(np.linalg.norm(patch - bgr, axis=1)))
            score = spread + 0.25 * math.hypot(dx, dy)  # ties go to the square nearest the spot
            if score < best_score and not _looks_empty(bgr, surround):
                best_score, best = score, (bgr, spread, patch)
    return best


def _ring(img: np.ndarray, centre: tuple[float, float], r0: float, r1: float) -> np.ndarray:
    h, w = img.shape[:2]
    yy, xx = np.ogrid[:h, :w]
    d2 = (xx - centre[0]) ** 2 + (yy - centre[1]) ** 2
    return img[(d2 >= r0 * r0) & (d2 <= r1 * r1)]


def palette_summary(palette: Palette) -> dict[str, Any]:
    return {
        c.name: {"bgr": [round(float(v)) for v in c.bgr], "spread": round(c.spread, 1)}
        for c in palette.colors
    }
