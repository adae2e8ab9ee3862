"""The ocean table's calibration (`smart-table/table-calibration@1`): what the Ocean boards' back looks like
under this table's own light, learned from the setup photo `smart-table calibrate table` takes.

A face-down board is a large flat region of the back's print filling its square with no face-up marker on
it; the layout file says where the squares are, the photo says what the print looks like. The back is
learned as a distribution (mean and covariance of log-chroma, the pixels' log B-G and R-G after the
frame's white balance) over the face-down squares of the photo, like the battle board learns its print;
the reader accepts a pixel within a Mahalanobis distance of it. Without a calibration the reader falls
back to the layout's `boards.back` hue band (the game's purple).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.ocean_grid.classification import _max3, _patch
from vision.ocean_grid.layout import TableLayout

SCHEMA = "smart-table/table-calibration@1"
# Accept a pixel as the back's print within this squared Mahalanobis distance (chi-square, 2 degrees of
# freedom: 99.6 %).
ACCEPT_D2 = 11.0
# Floor on the learned spread (log units): white-balance and exposure drift, JPEG chroma and noise
# between the calibration photo and play move a pixel's chroma by this much without the print changing.
MIN_SIGMA = 0.07
# A square joins the back's sample when its median chroma lies this close (log units) to the median of
# the unmarked squares' medians: the back is the same print on every board; an odd square out (a hand,
# a face-up board whose marker the photo missed) is left out.
SAME_PRINT = 0.3
# Pixels darker than this (0-255, largest channel) say nothing about colour.
MIN_VALUE = 20.0
# The back's print as a picture: the inside of a square seen from above at PRINT_PX x PRINT_PX, compared
# to the learned one within +-PRINT_SHIFT px (a board lies a few mm off its square's centre). A hand of
# the back's very colour over a face-up board matches the colour but not the print's lines.
PRINT_PX = 64
PRINT_SHIFT = 4
# Normalised correlation with the learned print needed to call a square face down.
PRINT_MATCH = 0.2
# ... and that calls a square with no marker face down by its print alone, whatever its colour (glare or
# a clipped exposure washes the colour out, not the lines). Tuning sessions (round 7): face-up boards
# whose marker was not read, under hands too, match at 0.27 at most; the face-down boards left unsure
# under no hand, at 0.6-0.97 for two thirds of them.
PRINT_ALONE = 0.6
# A learned print whose contrast (std of its lines relative to their surround) is below this is plain:
# the colour alone decides then.
PRINT_MIN_CONTRAST = 0.02


class TableCalibrationError(ValueError):
    """A table calibration file that cannot be used; the message says what and how to fix it."""


@dataclass(frozen=True)
class BackModel:
    mean: np.ndarray  # (2,) log-chroma (B-G, R-G)
    cov: np.ndarray  # (2, 2)
    # The covariance's inverse, computed once (every frame asks several times).
    inv: np.ndarray = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "inv", np.linalg.inv(self.cov))

    def accept(self, pixels_bgr: np.ndarray, gains: np.ndarray) -> np.ndarray:
        """Which pixels (any shape x 3, uint8) look like the back's print under `gains`."""
        raw = chroma(pixels_bgr, gains)
        c = raw - self.mean
        inv = self.inv
        d2 = c[..., 0] * (inv[0, 0] * c[..., 0] + 2 * inv[0, 1] * c[..., 1]) + inv[1, 1] * c[..., 1] ** 2
        # Grey is not the back: the frame's white, a marker's quiet zone and black, a shadow are neutral
        # (chroma 0 after the white balance), and a pixel nearer neutral than the back's colour is taken
        # for neutral. This only bites where the back itself lies near neutral (a pale back burnt out by
        # a bright exposure), where colour cannot tell the back from the frame.
        n2 = (
            raw[..., 0] * (inv[0, 0] * raw[..., 0] + 2 * inv[0, 1] * raw[..., 1])
            + inv[1, 1] * raw[..., 1] ** 2
        )
        return (d2 <= ACCEPT_D2) & (d2 < n2) & (_max3(pixels_bgr) > MIN_VALUE)


@dataclass(frozen=True)
class TableCalibration:
    """What `calibrate table` learned: the back's print and the white balance it was learned under."""

    back: BackModel | None
    gains: np.ndarray  # (3,) the calibration photo's white-balance gains (B, G, R)
    white_seen: bool  # whether the photo's white frame was unclipped (gains measured, not assumed)
    squares: tuple[str, ...] = ()  # the squares the back was learned from
    # The back's print (grey, PRINT_PX - 2*PRINT_SHIFT square, zero mean, unit std); None when plain.
    print_template: np.ndarray | None = None

    def print_match(self, image: np.ndarray, H: np.ndarray, layout: TableLayout, k: int) -> float:
        """Best normalised correlation of square k's inside with the learned print (1.0 without one)."""
        if self.print_template is None:
            return 1.0
        grey = _print_picture(image, H, layout, k)
        got = cv2.matchTemplate(grey, self.print_template, cv2.TM_CCOEFF_NORMED)
        return float(got.max())

    def read_gains(self, frame_gains: np.ndarray, frame_white_ok: bool) -> np.ndarray:
        """The gains a frame's pixels are balanced with, in the space the back was learned in: the
        frame's own white where both photos saw it; the calibration's where this frame's white is
        burnt out (the camera's white balance is locked after calibration); none where the calibration
        photo's white was burnt out."""
        if not self.white_seen:
            return np.ones(3)
        return frame_gains if frame_white_ok else self.gains

    def to_json(self) -> dict[str, Any]:
        back = None
        if self.back is not None:
            back = {
                "mean": [round(float(v), 5) for v in self.back.mean],
                "cov": [[round(float(v), 7) for v in row] for row in self.back.cov],
                "squares": list(self.squares),
                "print": None
                if self.print_template is None
                else [[round(float(v), 3) for v in row] for row in self.print_template],
            }
        return {
            "schema": SCHEMA,
            "white_balance": {
                "gains_bgr": [round(float(v), 5) for v in self.gains],
                "measured": self.white_seen,
            },
            "back": back,
        }

    def save(self, path: str | Path) -> None:
        Path(path).write_text(json.dumps(self.to_json(), indent=1) + "\n", encoding="utf-8")


def chroma(pixels_bgr: np.ndarray, gains: np.ndarray) -> np.ndarray:
    """Log-chroma (B-G, R-G) of pixels after white-balance gains; the offset keeps dark noise finite."""
    x = np.log(pixels_bgr.astype(np.float32) * gains.astype(np.float32) + 4.0)
    return np.stack([x[..., 0] - x[..., 1], x[..., 2] - x[..., 1]], axis=-1)


def square_patch(image: np.ndarray, H: np.ndarray, layout: TableLayout, k: int, n: int = 24) -> np.ndarray:
    """The inside of square k seen from above (n x n), clear of its edges: a board lies within 2 mm of
    its square's edge and a few mm askew, so the outer 8 % of the side plus 6 mm is left out."""
    poly = layout.squares[k].polygon_mm
    (x0, y0), (x1, y1) = poly.min(axis=0), poly.max(axis=0)
    side = float(min(x1 - x0, y1 - y0))
    half = side / 2 - (0.08 * side + 6.0)
    return _patch(image, H, (float(x0 + x1) / 2, float(y0 + y1) / 2), half, n)


def _print_picture(
    image: np.ndarray, H: np.ndarray, layout: TableLayout, k: int, margin: int = PRINT_SHIFT
) -> np.ndarray:
    """Square k's inside in grey, PRINT_PX square plus `margin` px each side, lightly blurred (the
    print's thin lines survive a pixel of misregistration)."""
    poly = layout.squares[k].polygon_mm
    (x0, y0), (x1, y1) = poly.min(axis=0), poly.max(axis=0)
    side = float(min(x1 - x0, y1 - y0))
    half = side / 2 - (0.08 * side + 6.0)
    step = 2 * half / (PRINT_PX - 1)
    n = PRINT_PX + 2 * margin
    patch = _patch(image, H, (float(x0 + x1) / 2, float(y0 + y1) / 2), half + margin * step, n)
    grey = cv2.cvtColor(patch, cv2.COLOR_BGR2GRAY).astype(np.float32)
    # The print's lines against their surround: a lamp's falloff or a shadow's soft edge across the
    # square is not the print, so the slow change (sigma 6 px) is taken out, relative to its level.
    slow = cv2.GaussianBlur(grey, (0, 0), 6.0)
    return (cv2.GaussianBlur(grey, (0, 0), 1.0) - slow) / np.maximum(slow, 8.0)


def learn_print(
    image: np.ndarray, H: np.ndarray, layout: TableLayout, squares: list[int]
) -> np.ndarray | None:
    """The back's print as a picture: the median of the face-down squares' insides (each normalised),
    cut to its central part; None when the print is plain."""
    if not squares:
        return None
    pics = []
    for k in squares:
        pics.append(_print_picture(image, H, layout, k, margin=0))
    med = np.median(np.array(pics), axis=0)
    if float(med.std()) < PRINT_MIN_CONTRAST:
        return None
    core = med[PRINT_SHIFT:-PRINT_SHIFT, PRINT_SHIFT:-PRINT_SHIFT]
    return ((core - core.mean()) / max(float(core.std()), 1e-6)).astype(np.float32)


def learn_back(
    image: np.ndarray, layout: TableLayout, H: np.ndarray, gains: np.ndarray, unmarked: list[int]
) -> tuple[BackModel | None, tuple[str, ...]]:
    """The back's colour from the squares that show no face-up marker (`unmarked`, square indices)."""
    if not unmarked:
        return None, ()
    patches = {k: square_patch(image, H, layout, k).reshape(-1, 3) for k in unmarked}
    lit = {k: p[_max3(p) > MIN_VALUE] for k, p in patches.items()}
    medians = {k: np.median(chroma(p, gains), axis=0) for k, p in lit.items() if len(p) >= 50}
    if not medians:
        return None, ()
    centre = np.median(np.array(list(medians.values())), axis=0)
    same = [k for k, m in medians.items() if float(np.linalg.norm(m - centre)) <= SAME_PRINT]
    if not same:
        return None, ()
    c = chroma(np.concatenate([lit[k] for k in same]), gains).reshape(-1, 2)
    # The print's own lines (compass, border) are part of the back; a ship or a shadow's edge is not:
    # keep the central 95 % of the pixels around the median before the fit.
    dist = np.linalg.norm(c - np.median(c, axis=0), axis=1)
    c = c[dist <= np.quantile(dist, 0.95)]
    mean = c.mean(axis=0)
    cov = np.cov(c.T) + np.eye(2) * MIN_SIGMA**2
    return BackModel(mean, cov), tuple(layout.squares[k].id for k in same)


def load_table_calibration(source: str | Path | dict[str, Any] | TableCalibration) -> TableCalibration:
    """Parse a calibration file; `TableCalibrationError` names what is wrong."""
    if isinstance(source, TableCalibration):
        return source
    where = "the table calibration"
    if isinstance(source, dict):
        data: Any = source
    else:
        where = str(source)
        try:
            data = json.loads(Path(source).read_text(encoding="utf-8"))
        except OSError as exc:
            raise TableCalibrationError(
                f"cannot read table calibration {source}: {exc.strerror}; make it with "
                "'smart-table calibrate table --image PHOTO --out FILE'"
            ) from None
        except json.JSONDecodeError as exc:
            raise TableCalibrationError(
                f"{source} is not JSON ({exc.msg}, line {exc.lineno}); make it again with "
                "'smart-table calibrate table --image PHOTO --out FILE'"
            ) from None
    if not isinstance(data, dict) or data.get("schema") != SCHEMA:
        raise TableCalibrationError(
            f"{where} is not a table calibration (schema {SCHEMA}); make one with "
            "'smart-table calibrate table --image PHOTO --out FILE'"
        )
    try:
        wb = data["white_balance"]
        gains = np.array([float(v) for v in wb["gains_bgr"]], np.float64)
        measured = bool(wb["measured"])
        back = None
        squares: tuple[str, ...] = ()
        if data.get("back") is not None:
            mean = np.array([float(v) for v in data["back"]["mean"]], np.float64)
            cov = np.array([[float(v) for v in row] for row in data["back"]["cov"]], np.float64)
            if mean.shape != (2,) or cov.shape != (2, 2) or np.linalg.det(cov) <= 0:
                raise ValueError("back.mean must be 2 numbers and back.cov a 2x2 positive-definite matrix")
            back = BackModel(mean, cov)
            squares = tuple(str(s) for s in data["back"].get("squares", []))
            if data["back"].get("print") is not None:
                found = np.array(data["back"]["print"], np.float32)
                side = PRINT_PX - 2 * PRINT_SHIFT
                if found.shape != (side, side):
                    raise ValueError(f"back.print must be {side} x {side} numbers")
        if gains.shape != (3,) or not np.all(gains > 0):
            raise ValueError("white_balance.gains_bgr must be 3 positive numbers")
    except (KeyError, TypeError, ValueError) as exc:
        detail = str(exc) if isinstance(exc, ValueError) else f"missing or malformed field {exc}"
        raise TableCalibrationError(
            f"{where}: {detail}; make it again with 'smart-table calibrate table --image PHOTO --out FILE'"
        ) from None
    template: np.ndarray | None = None
    if back is not None and data["back"].get("print") is not None:
        template = np.array(data["back"]["print"], np.float32)
    return TableCalibration(back, gains, measured, squares, template)
