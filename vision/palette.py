"""Cube colour palettes (`smart-table/palette@1`) and the per-pixel colour classifier built from one.

A palette holds, per cube colour, the BGR colour of a lit top face learned under the current light
(see `calibration.colors`), plus the colours the empty board shows under that light and the colour of
that light itself (the markers' white in the calibration photo). A pixel belongs to a cube colour when
it lies near that colour's face under this light: a scaled copy of the lit face (shaded sides), plus up
to a share of the light's own colour (the sheen of a varnished top: a highlight is brighter and paler
with the same hue; the dichromatic model), and is not a colour the board itself shows. Owns the format
and the lookup table; the learning lives in `calibration`.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

SCHEMA = "smart-table/palette@1"
BITS = 6  # bins per channel = 2**BITS (6: dark colours such as black need the finer steps)
LEVELS = 1 << BITS
SHIFT = 8 - BITS
BACKGROUND = 0
# Shading range: the darkest side face and the brightest highlight, relative to the learned top face.
ALPHA_MIN, ALPHA_MAX = 0.33, 1.45
STRONG_BGR = (
    10.5  # see build_lut: a bin this near a cube colour's line is that colour even if the board shows it
)
# The most sheen a cube's face may add, as a share of the light's white (the markers' white in the
# calibration photo): a varnished top under a lamp shows the lamp's colour over its own (tuning set
# 8350-8353: up to about half the white); more than this is a white or grey thing, no cube.
SHEEN_MAX = 0.6
# ... over a face lit at least this much (a sheen is the lamp seen in a lit top face, never in a shaded side;
# below it a grey would pass for a pale cube colour)
SHEEN_ALPHA_MIN = 0.5
# ... and only for a colour whose hue the white cannot wash out: its direction in BGR at least this far
# (sine of the angle) from the white's. Black and grey are scaled copies of the white: a sheen over them
# is just a grey, which the shading line already covers as far as it can be told from the board.
SHEEN_MIN_SINE = 0.2
# ... and explained that much more tightly than a plain face (a share of its width)
SHEEN_TOL = 0.5
# One candidate's top face (`Palette.face_label`): within this many widths of a colour's lit face, every
# other colour this many times as far and beyond this many widths (the table accepts up to 3).
FACE_ACCEPT = 2.0
FACE_MARGIN = 2.0
FACE_OTHER = 3.0


class PaletteError(ValueError):
    """A palette file that cannot be used; the message says what to fix."""


# A colour's distribution lives in log space (log(v + LOG_OFFSET) per channel): shading and a light's
# gain are shifts there, and a dark colour's noise is not blown up into chroma.
LOG_OFFSET = 8.0
# Covariance floor (log units squared): noise and JPEG a single photo's patch may under-sample, per
# channel, and along the grey axis (the light over the board is not the same everywhere).
COV_FLOOR = 0.03**2
COV_BRIGHTNESS = 0.12**2


@dataclass(slots=True)
class ColorModel:
    name: str
    bgr: np.ndarray  # (3,) median of the lit top face
    spread: float  # typical distance of its pixels from `bgr` (noise), BGR units
    # (3, 3) covariance of the lit top face's pixels in log space around log(bgr + LOG_OFFSET); None in
    # palettes made before it was learned (then a floor-only distribution is used).
    cov: np.ndarray | None = None

    def mahalanobis2(self, pixels: np.ndarray) -> np.ndarray:
        """Squared Mahalanobis distance of `pixels` (N, 3 BGR, under the calibration's light) from this
        colour's lit top face: the learned covariance plus the floors."""
        mu = np.log(self.bgr.astype(np.float32) + LOG_OFFSET)
        d = np.log(pixels.astype(np.float32) + LOG_OFFSET) - mu
        return ((d @ self.inverse_cov()) * d).sum(axis=1)

    def inverse_cov(self) -> np.ndarray:
        """(3, 3) inverse of the covariance `mahalanobis2` uses: the learned one plus the floors."""
        return np.linalg.inv(self._cov()).astype(np.float32)

    def chroma_inverse_cov(self) -> np.ndarray:
        """(3, 3) matrix Q such that e' Q e (e a pixel's log BGR less the face's) is the squared Mahalanobis
        distance of the pixel's chroma alone: its brightness (the grey axis in log space) left out. How a
        colour without a hue is told where its brightness says nothing (`Palette.hueless`)."""
        P = np.eye(3) - np.ones((3, 3)) / 3.0  # the projection off the grey axis
        return (P @ np.linalg.pinv(P @ self._cov() @ P, hermitian=True) @ P).astype(np.float32)

    def _cov(self) -> np.ndarray:
        cov = np.zeros((3, 3)) if self.cov is None else np.asarray(self.cov, np.float64)
        return cov + COV_FLOOR * np.eye(3) + COV_BRIGHTNESS / 3.0 * np.ones((3, 3))


@dataclass(slots=True)
class Palette:
    colors: list[ColorModel]
    background_bins: np.ndarray = field(default_factory=lambda: np.zeros(0, np.int32))
    meta: dict[str, Any] = field(default_factory=dict)
    # The light's own colour as the calibration photo shows it (BGR, the markers' white); None in palettes
    # made before it was learned (then no sheen is allowed: the face's shading line alone).
    white: np.ndarray | None = None
    # The bare board under this light, rectified at 1 px/mm (BGR); finds hands and other objects.
    reference: np.ndarray | None = None
    _lut: np.ndarray | None = None

    @property
    def names(self) -> list[str]:
        return [c.name for c in self.colors]

    @property
    def unknown_label(self) -> int:
        return len(self.colors) + 1

    def label_name(self, label: int) -> str:
        return "unknown" if label == self.unknown_label else self.colors[label - 1].name

    def to_json(self) -> dict[str, Any]:
        return {
            "schema": SCHEMA,
            "colors": {
                c.name: {
                    "bgr": [round(float(v), 2) for v in c.bgr],
                    "spread": round(float(c.spread), 2),
                    **({"cov_log": [float(f"{v:.3g}") for v in c.cov.ravel()]} if c.cov is not None else {}),
                }
                for c in self.colors
            },
            "background_bins": [int(b) for b in np.asarray(self.background_bins).tolist()],
            "bin_bits": BITS,
            **({"white_bgr": [round(float(v), 2) for v in self.white]} if self.white is not None else {}),
            **({"meta": self.meta} if self.meta else {}),
            **({"board_reference_png": _png_b64(self.reference)} if self.reference is not None else {}),
        }

    def lut(self) -> np.ndarray:
        """Label (0 background, 1..n colours, n+1 unknown vivid colour) of every quantised BGR bin."""
        if self._lut is None:
            self._lut = build_lut(self)
        return self._lut

    def classify(self, bgr: np.ndarray) -> np.ndarray:
        """Label image for a BGR image."""
        return self.lut()[bin_index(bgr)]

    def hueless(self, label: int) -> bool:
        """Whether colour `label` (1..n) has no hue of its own under this light: a scaled copy of the light's
        white (black, grey), its direction in BGR within SHEEN_MIN_SINE of the white's (of neutral grey
        in palettes without a white). Such a colour is told from the board by chroma, not brightness."""
        mu = self.colors[label - 1].bgr.astype(np.float64)
        w = np.ones(3) if self.white is None else np.asarray(self.white, np.float64)
        return _sine(mu, w) < SHEEN_MIN_SINE

    def face_label(self, bgr: np.ndarray, gate2: float, margin: float) -> int:
        """The colour (1..n; 0 for none) of one candidate cube's top face, its mean `bgr` under the
        calibration's light: the colour whose distribution holds it (squared Mahalanobis distance under
        `gate2`) with the runner-up at least `margin` times farther; else, with the light's white known,
        the colour whose lit face under this light explains it (its shading line and the lamp's sheen:
        the lookup table's own measure, `color_distance`) within FACE_ACCEPT widths while every other
        colour lies at least FACE_MARGIN times as far and outside the table's acceptance. A varnished top
        under a lamp is its swatch plus the lamp's white, and a dark cube's top under a bright lamp is a
        brighter grey: far from the swatch's distribution, plainly that colour and no other (round 8)."""
        px = np.asarray(bgr, np.float32).reshape(1, 3)
        d2 = sorted((float(cm.mahalanobis2(px)[0]), i + 1) for i, cm in enumerate(self.colors))
        if not d2:
            return 0
        if d2[0][0] < gate2 and (len(d2) == 1 or d2[1][0] >= margin * d2[0][0]):
            return d2[0][1]
        if self.white is None:
            return 0
        dist = sorted(
            (float(color_distance(px, cm, self.white)[0]), i + 1) for i, cm in enumerate(self.colors)
        )
        best, second = dist[0][0], (dist[1][0] if len(dist) > 1 else math.inf)
        if best < FACE_ACCEPT and second >= max(FACE_MARGIN * best, FACE_OTHER):
            return dist[0][1]
        return 0


def _png_b64(img: np.ndarray) -> str:
    import base64

    ok, buf = cv2.imencode(".png", img)
    return base64.b64encode(buf.tobytes()).decode("ascii") if ok else ""


def _png_from_b64(text: str) -> np.ndarray:
    import base64
    import binascii

    try:
        buf = np.frombuffer(base64.b64decode(text, validate=True), np.uint8)
    except (binascii.Error, ValueError) as exc:
        raise PaletteError(
            "palette field 'board_reference_png' is not base64; re-run 'smart-table calibrate colors'"
        ) from exc
    img = cv2.imdecode(buf, cv2.IMREAD_COLOR) if buf.size else None
    if img is None:
        raise PaletteError(
            "palette field 'board_reference_png' is not a PNG; re-run 'smart-table calibrate colors'"
        )
    return img


def bin_index(bgr: np.ndarray) -> np.ndarray:
    """Quantised BGR bin of every pixel: (b << 2*BITS) | (g << BITS) | r."""
    if bgr.dtype == np.uint8:
        # Shift while still 8-bit and widen only the two channels that need it: about 3x faster.
        q = bgr >> SHIFT
        return (q[..., 0].astype(np.int32) << (2 * BITS)) | (q[..., 1].astype(np.int32) << BITS) | q[..., 2]
    q = (bgr >> SHIFT).astype(np.uint32)
    return (q[..., 0] << (2 * BITS)) | (q[..., 1] << BITS) | q[..., 2]


def _bin_centres() -> np.ndarray:
    v = (np.arange(LEVELS, dtype=np.float32) + 0.5) * (1 << SHIFT)
    b, g, r = np.meshgrid(v, v, v, indexing="ij")
    return np.stack([b.ravel(), g.ravel(), r.ravel()], axis=1)


def color_distance(pixels: np.ndarray, model: ColorModel, white: np.ndarray | None = None) -> np.ndarray:
    """How many noise widths `pixels` (N,3 BGR) lie from the shading line of `model` (with `white`, the
    light's colour: from its face under that light, sheen included)."""
    resid, tol = _residual(pixels, model, white)
    return resid / tol


def _residual(
    pixels: np.ndarray, model: ColorModel, white: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """Distance (BGR units) of `pixels` from `model`'s face under this light, and the noise width there.

    The face is alpha * colour (ALPHA_MIN..ALPHA_MAX: shaded sides to a bright top); with `white`, and
    for a colour the white cannot wash out, also a lit face under a sheen: alpha * colour + beta * white
    (alpha SHEEN_ALPHA_MIN..ALPHA_MAX, beta 0..SHEEN_MAX: the varnish reflecting the lamp), taken where it
    explains the pixel better in units of its width, which is SHEEN_TOL of the plain face's."""
    resid, tol = _line_residual(pixels, model)
    if white is None:
        return resid, tol
    under, _, _, r_s, t_s = _sheen_parts(pixels, model, np.asarray(white, np.float32), resid, tol)
    if under is None:
        return resid, tol
    return np.where(under, r_s, resid), np.where(under, t_s, tol)


def _line_residual(pixels: np.ndarray, model: ColorModel) -> tuple[np.ndarray, np.ndarray]:
    mu = model.bgr.astype(np.float32)
    mm = float(mu @ mu)
    alpha = np.clip(pixels @ mu / mm, ALPHA_MIN, ALPHA_MAX)
    resid = np.linalg.norm(pixels - alpha[:, None] * mu[None, :], axis=1)
    # Tolerance: sensor noise plus a share of the face's brightness (colour shifts at edges, JPEG chroma).
    tol = 4.0 + 0.5 * model.spread + 0.05 * alpha * float(np.sqrt(mm))
    return resid, tol


def _sheen_parts(
    pixels: np.ndarray, model: ColorModel, w: np.ndarray, resid: np.ndarray, tol: np.ndarray
) -> tuple[Any, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(where the sheen explains better, alpha, beta, its residual, its width); None first for a colour
    that takes no sheen."""
    mu = model.bgr.astype(np.float32)
    mm = float(mu @ mu)
    if _sine(mu, w) < SHEEN_MIN_SINE:
        return None, resid, resid, resid, tol
    fit, a_s, b_s = _nearest_under_sheen(pixels, mu, w)
    r_s = np.linalg.norm(pixels - fit, axis=1)
    # A sheen adds brightness but no colour: its width is the face's own, narrowed (a grey thing is
    # otherwise within reach of a dull colour's pale top).
    t_s = SHEEN_TOL * (4.0 + 0.5 * model.spread + 0.05 * a_s * float(np.sqrt(mm)))
    return (r_s * tol < resid * t_s) & (b_s > 0), a_s, b_s, r_s, t_s


def _sine(a: np.ndarray, b: np.ndarray) -> float:
    """Sine of the angle between two BGR directions."""
    return float(np.linalg.norm(np.cross(a, b))) / (float(np.linalg.norm(a) * np.linalg.norm(b)) + 1e-6)


def _nearest_under_sheen(
    pixels: np.ndarray, mu: np.ndarray, w: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The point alpha * mu + beta * w (alpha SHEEN_ALPHA_MIN..ALPHA_MAX, beta 0..SHEEN_MAX) nearest each
    pixel, its alpha and its beta. Exact: a convex problem in two unknowns, so the nearest point is the free
    least-squares point when that lies inside the bounds, else the nearest point of one of the four edges."""
    mm, ww, mw = float(mu @ mu), float(w @ w), float(mu @ w)
    pm, pw = pixels @ mu, pixels @ w
    best = np.zeros_like(pixels, dtype=np.float32)
    best_a = np.zeros(len(pixels), np.float32)
    best_b = np.zeros(len(pixels), np.float32)
    best_d = np.full(len(pixels), np.inf, np.float32)

    def consider(a: np.ndarray, b: np.ndarray, ok: np.ndarray | bool = True) -> None:
        nonlocal best, best_a, best_b, best_d
        f = a[:, None] * mu[None, :] + b[:, None] * w[None, :]
        d = np.where(ok, ((pixels - f) ** 2).sum(axis=1), np.inf)
        better = d < best_d
        best = np.where(better[:, None], f, best)
        best_a = np.where(better, a, best_a)
        best_b = np.where(better, b, best_b)
        best_d = np.where(better, d, best_d)

    det = mm * ww - mw * mw
    a = (pm * ww - pw * mw) / det
    b = (pw * mm - pm * mw) / det
    consider(a, b, (a >= SHEEN_ALPHA_MIN) & (a <= ALPHA_MAX) & (b >= 0) & (b <= SHEEN_MAX))
    for b0 in (0.0, SHEEN_MAX):  # the two edges in beta
        a = np.clip((pm - b0 * mw) / mm, SHEEN_ALPHA_MIN, ALPHA_MAX)
        consider(a, np.full_like(a, b0))
    for a0 in (SHEEN_ALPHA_MIN, ALPHA_MAX):  # the two edges in alpha
        b = np.clip((pw - a0 * mw) / ww, 0.0, SHEEN_MAX)
        consider(np.full_like(b, a0), b)
    return best, best_a, best_b


def build_lut(palette: Palette, accept: float = 3.0) -> np.ndarray:
    centres = _bin_centres()
    n = len(palette.colors)
    # Sheen is allowed only off the board's own colours (a pale print is the paper's white over ink:
    # it must stay the board's), so the board's test below keeps to the shading line alone.
    line = [_residual(centres, c) for c in palette.colors]
    resids = line if palette.white is None else [_residual(centres, c, palette.white) for c in palette.colors]
    dists = np.stack([r / t for r, t in resids], axis=1) if n else np.zeros((len(centres), 0))
    lut = np.zeros(len(centres), np.uint8)
    if n:
        best = np.argmin(dists, axis=1)
        dbest = dists[np.arange(len(centres)), best]
        # The nearest colour must also be clearly nearer than the second nearest.
        second = np.partition(dists, 1, axis=1)[:, 1] if n > 1 else np.full(len(centres), np.inf)
        member = (dbest < accept) & (second > dbest * 1.15)
        lut[member] = (best[member] + 1).astype(np.uint8)
    background = np.zeros(len(centres), bool)
    background[np.asarray(palette.background_bins, np.int64)] = True
    if n:
        # A bin the bare board shows stays background unless it sits right on a cube colour's line:
        # within 0.35 of the acceptance width, or within STRONG_BGR units. (The width scales with
        # brightness, so for a dark colour 0.35 of it is ~7 units: the board's shadowed ink took half
        # of a black cube's top face, and a cube under other light than the swatch's lost it all.)
        dline = np.stack([r / t for r, t in line], axis=1)[np.arange(len(centres)), best]
        resid_best = np.stack([r for r, _ in line], axis=1)[np.arange(len(centres)), best]
        strong = (dline < accept * 0.35) | (resid_best < STRONG_BGR)
        lut[background & ~strong] = BACKGROUND
    # Vivid colours nobody calibrated (a hand, a cube of another colour): "unknown".
    lab = (
        cv2.cvtColor(centres.reshape(-1, 1, 3).astype(np.uint8), cv2.COLOR_BGR2Lab)
        .reshape(-1, 3)
        .astype(np.float32)
    )
    chroma = np.hypot(lab[:, 1] - 128, lab[:, 2] - 128)
    unknown = (lut == 0) & ~background & (chroma > 28) & (lab[:, 0] > 60)
    if n:
        unknown &= dbest > accept * 1.6
    lut[unknown] = palette.unknown_label
    return lut


def log_covariance(pixels: np.ndarray) -> np.ndarray:
    """(3, 3) covariance of `pixels` (N, 3 BGR) in log space (see `ColorModel.cov`)."""
    lg = np.log(pixels.reshape(-1, 3).astype(np.float64) + LOG_OFFSET)
    if len(lg) < 4:
        return np.zeros((3, 3))
    return np.cov(lg, rowvar=False)


def background_bins_from_pixels(
    pixels: np.ndarray, shade_levels: tuple[float, ...] = (1.2, 1.1, 1.0, 0.85, 0.7, 0.57), min_count: int = 2
) -> np.ndarray:
    """Bins the bare board occupies, also a little brighter (uneven light) and shadowed (a cube's shadow)."""
    px = pixels.reshape(-1, 3).astype(np.float32)
    counts = np.zeros(LEVELS**3, np.int64)
    for s in shade_levels:
        q = np.clip(px * s, 0, 255).astype(np.uint8)
        counts += np.bincount(bin_index(q.reshape(-1, 1, 3)).ravel().astype(np.int64), minlength=LEVELS**3)
    occupied = (counts >= min_count).reshape(LEVELS, LEVELS, LEVELS)
    # Grow by one bin each way: tomorrow's noise lands next to today's bins.
    for axis in range(3):
        occupied = _grow(occupied, axis)
    return np.flatnonzero(occupied.ravel()).astype(np.int32)


def _grow(occ: np.ndarray, axis: int) -> np.ndarray:
    a = np.moveaxis(occ, axis, 0)
    out = a.copy()
    out[1:] |= a[:-1]
    out[:-1] |= a[1:]
    return np.moveaxis(out, 0, axis)


def load_palette(source: str | Path | dict[str, Any] | Palette) -> Palette:
    """A palette from a file path, a parsed dict or a Palette."""
    if isinstance(source, Palette):
        return source
    if isinstance(source, dict):
        data = source
    else:
        path = Path(source)
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except OSError as exc:
            raise PaletteError(f"cannot read palette file {str(path)!r}: {exc.strerror or exc}") from exc
        except json.JSONDecodeError as exc:
            raise PaletteError(
                f"palette file {str(path)!r} is not valid JSON ({exc.msg} at line {exc.lineno}); "
                "re-run 'smart-table calibrate colors'"
            ) from exc
    if not isinstance(data, dict) or data.get("schema") != SCHEMA:
        raise PaletteError(
            f'a palette must be a JSON object with "schema": "{SCHEMA}"; '
            "make one with 'smart-table calibrate colors'"
        )
    if data.get("bin_bits", BITS) != BITS:
        raise PaletteError(f"palette field 'bin_bits' must be {BITS}; re-run 'smart-table calibrate colors'")
    raw = data.get("colors")
    if not isinstance(raw, dict) or not raw:
        raise PaletteError(
            'palette field \'colors\' must map colour names to {"bgr": [b, g, r], "spread": s}'
        )
    colors = []
    for name, entry in raw.items():
        try:
            bgr = np.array(entry["bgr"], np.float64).reshape(3)
            spread = float(entry.get("spread", 4.0))
        except (KeyError, TypeError, ValueError) as exc:
            raise PaletteError(
                f'palette field \'colors.{name}\' must be {{"bgr": [b, g, r], "spread": s}}'
            ) from exc
        if not np.all(np.isfinite(bgr)) or np.any(bgr < 0) or np.any(bgr > 255) or float(bgr.sum()) < 1:
            raise PaletteError(f"palette field 'colors.{name}.bgr' must be three numbers 0-255, not all 0")
        cov = None
        if isinstance(entry, dict) and "cov_log" in entry:
            try:
                cov = np.array(entry["cov_log"], np.float64).reshape(3, 3)
            except (TypeError, ValueError) as exc:
                raise PaletteError(f"palette field 'colors.{name}.cov_log' must be 9 numbers") from exc
            if not np.all(np.isfinite(cov)) or np.any(np.linalg.eigvalsh((cov + cov.T) / 2) < -1e-9):
                raise PaletteError(
                    f"palette field 'colors.{name}.cov_log' must be a covariance (symmetric, not negative); "
                    "re-run 'smart-table calibrate colors'"
                )
        colors.append(ColorModel(name=str(name), bgr=bgr, spread=spread, cov=cov))
    if len(colors) > 250:
        raise PaletteError("palette field 'colors' lists too many colours (250 at most)")
    bins = np.array(data.get("background_bins", []), dtype=np.int64)
    if bins.size and (bins.min() < 0 or bins.max() >= LEVELS**3):
        raise PaletteError(f"palette field 'background_bins' must hold bin numbers 0-{LEVELS**3 - 1}")
    ref = data.get("board_reference_png")
    reference = _png_from_b64(ref) if isinstance(ref, str) and ref else None
    white = None
    if "white_bgr" in data:
        try:
            white = np.array(data["white_bgr"], np.float64).reshape(3)
        except (TypeError, ValueError) as exc:
            raise PaletteError("palette field 'white_bgr' must be three numbers [b, g, r]") from exc
        if not np.all(np.isfinite(white)) or np.any(white < 0) or np.any(white > 255) or white.sum() < 3:
            raise PaletteError(
                "palette field 'white_bgr' must be three numbers 0-255, not all 0; "
                "re-run 'smart-table calibrate colors'"
            )
    return Palette(
        colors=colors,
        background_bins=bins.astype(np.int32),
        meta=dict(data.get("meta", {})),
        white=white,
        reference=reference,
    )
