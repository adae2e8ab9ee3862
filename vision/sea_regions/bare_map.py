"""The Great Sea's map as printed, learned from a calibration photo of the bare map (same camera, same
lamp, no pieces): its balanced top-down copy. In play a pixel of a piece colour is a piece's only where the
map there looks different from the bare map (after this frame's light is matched to the calibration's):
a gold border, a reddish sea, a brown island, a printed ship icon and their shadows stay the print.

The comparison is the battle board's (`vision.board_print.BoardPrint`, imported, not copied): a shadow
only darkens and keeps the colour, a piece changes the colour, brightens, or darkens far more. The file
is one PNG (the top-down copy at `detection.PX_PER_MM`); its size must be the layout's.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.board_print import BoardPrint
from vision.sea_regions.detection import NoTable, register, top_size
from vision.sea_regions.layout import SeaLayout


class BareMapError(Exception):
    """A bare-map calibration that cannot be used; the message says what to do."""


class BareMap:
    """The bare map's top-down copy and the comparison of a frame's copy against it."""

    def __init__(self, top: np.ndarray) -> None:
        self.top = np.ascontiguousarray(top)
        h, w = self.top.shape[:2]
        # BoardPrint works in its reference's pixels: give it the copy's own size so nothing is resampled.
        self.print = BoardPrint(self.top, (float(w), float(h)), [])
        self.valid = self.print.ref_valid

    @property
    def size(self) -> tuple[int, int]:
        h, w = self.top.shape[:2]
        return w, h

    def print_mask(self, now: np.ndarray, candidates: np.ndarray | None = None) -> np.ndarray:
        """True where this frame's top-down copy `now` is the bare map or its shadow (never a piece);
        judged only where `candidates` (bool, default everywhere) is True, False elsewhere."""
        if now.shape != self.top.shape:
            raise BareMapError(
                f"the bare map is {self.size[0]}x{self.size[1]} px but this frame's map is "
                f"{now.shape[1]}x{now.shape[0]} px: calibrate the bare map again with this layout"
            )
        # The light's change since calibration: a median over a sixteenth of the map is plenty.
        self.print.fit_gain(now[::2, ::2], self.top[::2, ::2], self.valid[::2, ::2])
        out = np.zeros(now.shape[:2], bool)
        where = np.nonzero(candidates if candidates is not None else np.ones(now.shape[:2], bool))
        if len(where[0]) == 0:
            return out
        # Only the pixels of a piece colour are compared: the whole map costs several times more.
        changed = np.asarray(self.print.changed(now[where], self.top[where], None), bool)
        out[where] = ~changed & (self.valid[where] > 0)
        return out

    def is_print(self, now: np.ndarray, ys: np.ndarray, xs: np.ndarray) -> np.ndarray:
        """`print_mask` at pixels (ys, xs) only, with the light fitted by the last `print_mask` call."""
        changed = np.asarray(self.print.changed(now[ys, xs], self.top[ys, xs], None), bool)
        out: np.ndarray = ~changed & (self.valid[ys, xs] > 0)
        return out

    def brightness_ratio(self, now: np.ndarray, ys: np.ndarray, xs: np.ndarray) -> np.ndarray:
        """How bright `now` is at pixels (ys, xs) against the bare map under this frame's light (fitted by
        the last `print_mask` call): a shadow keeps 0.33 or more of it, a black piece far less."""
        out: np.ndarray = self.print.brightness_ratio(now[ys, xs], self.top[ys, xs])
        return out

    def unexplained(
        self, now: np.ndarray, covered: np.ndarray, min_area_px: float
    ) -> list[tuple[float, float]]:
        """Centres (top-down copy px) of patches of at least `min_area_px` where `now` changed beyond doubt
        against the bare map (far darker or brighter, or another colour; the light fitted by the last
        `print_mask` call) outside `covered` (uint8, the blobs read): a piece no colour test found.
        Judged at half the copy's resolution: a piece is still 9 px across there."""
        n, r = now[::2, ::2], self.top[::2, ::2]
        _, strong = self.print.changed(n, r, None, strong=True)
        m = (np.asarray(strong, bool) & (self.valid[::2, ::2] > 0) & (covered[::2, ::2] == 0)).view(np.uint8)
        m = cv2.morphologyEx(m, cv2.MORPH_OPEN, np.ones((3, 3), np.uint8))
        count, _, stats, centres = cv2.connectedComponentsWithStats(m, connectivity=8)
        return [
            (float(centres[i][0]) * 2 + 0.5, float(centres[i][1]) * 2 + 0.5)
            for i in range(1, count)
            if stats[i, cv2.CC_STAT_AREA] >= min_area_px / 4
        ]

    def save(self, path: Path | str) -> None:
        path = Path(path)
        if path.suffix.lower() != ".png":
            raise BareMapError(f"{path}: the bare map is saved as a PNG file; give a name ending in .png")
        if not cv2.imwrite(str(path), self.top):
            raise BareMapError(f"cannot write {path}: check the folder exists and is writable")


def learn_bare_map(
    image_bgr: np.ndarray, layout: SeaLayout, camera: Any = None, check_empty: bool = False
) -> BareMap:
    """The bare map from its calibration photo; raises BareMapError (with what to do) when the map's
    frame markers cannot be found, or (`check_empty`) when the reader sees a piece for sure on it: a
    piece in the calibration photo would become print, unseen in play."""
    try:
        reg = register(image_bgr, layout, camera)
    except NoTable as exc:
        raise BareMapError(f"no map in the calibration photo: {exc}") from None
    if check_empty:
        from vision.sea_regions.reader import read_regions_detailed

        reading = read_regions_detailed(image_bgr, layout, camera)
        seen = [(rid, p) for rid, r in reading.regions.items() for p in r["pieces"]]
        if seen:
            rid, p = seen[0]
            raise BareMapError(
                f"the calibration photo shows {len(seen)} piece(s) (a {p['owner']} {p['kind']} in region "
                f"{rid}): take every piece off the map and photograph it again"
            )
    return BareMap(reg.top)


def load_bare_map(path: Path | str, layout: SeaLayout) -> BareMap:
    """A saved bare map for `layout`; raises BareMapError naming what is wrong and what to do."""
    path = Path(path)
    if not path.is_file():
        raise BareMapError(f"bare map {path} does not exist: run `smart-table calibrate sea-map` first")
    top = cv2.imread(str(path), cv2.IMREAD_COLOR)
    if top is None:
        raise BareMapError(f"bare map {path} is not an image: run `smart-table calibrate sea-map` again")
    want = top_size(layout)
    if (top.shape[1], top.shape[0]) != want:
        raise BareMapError(
            f"bare map {path} is {top.shape[1]}x{top.shape[0]} px but layout {layout.name} needs "
            f"{want[0]}x{want[1]} px: it was taken for another layout; calibrate the bare map again"
        )
    return BareMap(top)
