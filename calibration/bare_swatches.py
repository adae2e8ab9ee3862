"""The print under the swatches, learned from an optional second calibration photo: the board as it stands
before the first drop (the calibration's cubes taken off their swatches), under the same light.

The colour calibration photo has one cube on each swatch, so the print under them is only filled in from
the rail around (`calibration.colors.bare_board`), and the reader asks about every cube it reads there
(`BoardDetection._flag_hidden_print`: a dark swatch spot on a dark rail was read as a black cube). With
this photo the print there is known: the palette's bare board gets the second photo's swatch spots
(matched to the first photo's light on a ring around each), and `meta.bare_swatches` names the swatches
learned so; a cube on one of them is read like any other cube. State of the calibration, persisted with
the palette; nothing is remembered across the reader's frames.
"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

import cv2
import numpy as np

from calibration.colors import CalibrationError, swatch_cover
from vision.battle_board.layout import BoardLayout
from vision.battle_board.reader import BoardReader
from vision.board_print import OFFSET, SWATCH_R_MM
from vision.camera import CameraModel
from vision.palette import Palette, color_distance

META_KEY = "bare_swatches"  # palette `meta`: the swatch colours whose print is known (this module)
PASTE_MARGIN_MM = 3.0  # beyond the circle the reader marks guessed: the cube's shadow of the first photo
RING_MM = 6.0  # the ring around a pasted spot whose light matches the two photos
# A light change between the two photos beyond this (log of a channel's median ratio over the board) is
# no longer "the same light": asked about, the spots are matched on their rings all the same.
LIGHT_CHANGED_LOG = 0.15
# The spot's middle still this close to its cube's learned colour: the cube may not have been lifted ...
STILL_THERE = 3.0
# ... and, with the first photo given, less than this share of what its cube hid changed between the two
# photos by more than STILL_CHANGE (max channel): lifted cubes of the 12 tuning designs changed 0.14-0.36
# of it (a black cube on a dark spot by its sides' shading), a cube left there changes it by noise only.
STILL_SHARE = 0.05
STILL_CHANGE = 20.0


def learn_bare_swatches(
    palette: Palette,
    image: np.ndarray,
    layout: BoardLayout,
    camera: CameraModel | dict | str | None = None,
    questions: list[dict[str, Any]] | None = None,
    first: np.ndarray | None = None,
) -> Palette:
    """`palette` (from `learn_palette` on the photo with the cubes on the swatches) with the print under
    every swatch taken from `image`, a photo of the same board under the same light with those cubes
    lifted. Refuses (CalibrationError) a photo whose board cannot be found, and a palette without a bare
    board; appends to `questions` (the shape of `learn_palette`'s) a swatch that may still hold its cube
    (its middle still the cube's colour and, with `first`, the photo with the cubes on, nothing changed
    where the cube stood) and a light that changed between the photos. Returns a new palette;
    `meta.bare_swatches` lists the swatches learned."""
    questions = [] if questions is None else questions
    if palette.reference is None:
        raise CalibrationError(
            "this palette has no bare board; run 'smart-table calibrate colors' again before the second photo"
        )
    reader = BoardReader(layout, Palette(colors=[]), camera)
    located = reader.locate(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY))
    if isinstance(located, str):
        raise CalibrationError(f"cannot find the board in the photo without cubes: {located}")
    _, pose, _ = located
    s = reader.s
    W, H = (int(round(v)) for v in layout.size_mm)
    flat = reader.rectify(image, pose, 0.0)
    bare = cv2.resize(flat, (W, H), interpolation=cv2.INTER_AREA)
    ref = palette.reference.copy()
    if ref.shape[:2] != (H, W):
        raise CalibrationError(
            "this palette's bare board does not fit the layout; run 'smart-table calibrate colors' again"
        )
    # The spots: what a swatch cube hides from this camera (as `bare_board` fills in), and the circle the
    # reader treats as guessed with its margin (the first photo's cube shadow falls in it).
    r_paste = int(math.ceil(SWATCH_R_MM + PASTE_MARGIN_MM))
    spots = []
    for sw, cover in zip(layout.swatches, swatch_cover((H, W), layout, pose), strict=True):
        disc: np.ndarray = np.zeros((H, W), np.uint8)
        cv2.circle(disc, (int(round(sw.center_mm[0])), int(round(sw.center_mm[1]))), r_paste, 255, -1)
        spots.append(disc | cover)
    anywhere = np.zeros((H, W), np.uint8)
    for m in spots:
        anywhere |= m
    on_board = cv2.resize(reader.valid, (W, H), interpolation=cv2.INTER_NEAREST) > 0
    _light_question(ref, bare, on_board & (anywhere == 0), questions, reader, image)
    before = None
    if first is not None:
        at = reader.locate(cv2.cvtColor(first, cv2.COLOR_BGR2GRAY))
        if not isinstance(at, str):
            before = cv2.resize(reader.rectify(first, at[1], 0.0), (W, H), interpolation=cv2.INTER_AREA)
    covers = swatch_cover((H, W), layout, pose)
    top = reader.rectify(image, pose, layout.cube_size_mm + layout.rail_height_mm).astype(np.float32)
    learned = []
    ring_k = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * int(RING_MM) + 1,) * 2)
    for sw, spot, cover in zip(layout.swatches, spots, covers, strict=True):
        model = next((c for c in palette.colors if c.name == sw.color), None)
        still = model is not None and _still_there(top, sw.center_mm * s, s, model)
        if still and before is not None:
            change = np.abs(before.astype(np.float32) - bare.astype(np.float32)).max(axis=2)[cover > 0]
            still = not len(change) or float(np.mean(change > STILL_CHANGE)) < STILL_SHARE
        if still:
            crop = _crop(top, sw.center_mm * s, s)
            questions.append(
                {
                    "kind": "swatch-still-covered",
                    "colors": [sw.color],
                    "text": f"the {sw.color} swatch still looks like it holds its cube: is the spot bare "
                    "in the crop?",
                    "crops": {sw.color: crop},
                }
            )
        ring = (cv2.dilate(spot, ring_k) > 0) & (spot == 0) & on_board & (anywhere == 0)
        if int(np.count_nonzero(ring)) < 30:
            continue  # no board around it to match the light on: the spot stays filled in
        gain = [
            float(np.median((ref[..., c][ring] + OFFSET) / (bare[..., c][ring].astype(np.float32) + OFFSET)))
            for c in range(3)
        ]
        paste = (spot > 0) & on_board
        matched = (bare.astype(np.float32) + OFFSET) * np.array(gain, np.float32) - OFFSET
        ref[paste] = np.clip(matched[paste] + 0.5, 0, 255).astype(np.uint8)
        learned.append(sw.color)
    meta = {**palette.meta, META_KEY: learned}
    return replace(palette, meta=meta, reference=ref, _lut=None)


def known_swatches(palette: Palette) -> set[str]:
    """The swatch colours whose print `learn_bare_swatches` learned (empty for a one-photo calibration)."""
    names = palette.meta.get(META_KEY, [])
    return {str(n) for n in names} if isinstance(names, list) else set()


def _light_question(
    ref: np.ndarray,
    bare: np.ndarray,
    where: np.ndarray,
    questions: list[dict[str, Any]],
    reader: BoardReader,
    image: np.ndarray,
) -> None:
    """Asks when the two photos' light differs by more than a lamp's flicker (median over the board)."""
    if int(np.count_nonzero(where)) < 200:
        return
    ratios = [
        (bare[..., c][where].astype(np.float32) + OFFSET) / (ref[..., c][where].astype(np.float32) + OFFSET)
        for c in range(3)
    ]
    logs = [abs(math.log(float(np.median(r)))) for r in ratios]
    if max(logs) > LIGHT_CHANGED_LOG:
        small = cv2.resize(image, (image.shape[1] // 4, image.shape[0] // 4), interpolation=cv2.INTER_AREA)
        questions.append(
            {
                "kind": "bare-light-changed",
                "colors": [],
                "text": "the light changed between the two photos (by "
                f"{100 * (math.exp(max(logs)) - 1):.0f} %): were both taken under the same lamps? (the "
                "spots are matched to the first photo's light all the same)",
                "crops": {"board": small},
            }
        )


def _still_there(top: np.ndarray, centre: np.ndarray, s: float, model: Any) -> bool:
    """The spot's middle 5 x 5 mm, seen where a cube's top would be, is still the cube's colour."""
    cx, cy = float(centre[0]), float(centre[1])
    r = 2.5 * s
    patch = top[int(cy - r) : int(cy + r) + 1, int(cx - r) : int(cx + r) + 1].reshape(-1, 3)
    if not len(patch):
        return False
    med = np.median(patch, axis=0).astype(np.float32).reshape(1, 3)
    return bool(color_distance(med, model)[0] < STILL_THERE)


def _crop(top: np.ndarray, centre: np.ndarray, s: float) -> np.ndarray:
    r = int(16 * s)
    cx, cy = int(centre[0]), int(centre[1])
    return np.clip(top[max(0, cy - r) : cy + r, max(0, cx - r) : cx + r], 0, 255).astype(np.uint8)
