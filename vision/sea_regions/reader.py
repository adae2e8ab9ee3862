"""Reading a photo of The Great Sea's map (`read_regions`, `read_regions_detailed`): which Ships (by player
colour, upright or laid down when Damaged) and Forts stand in each region. Knows no rules; the JSON it
returns is the `smart-table vision regions` contract (docs/great-sea.md). A piece it cannot tell (fits
no piece, fits two, touches another colour's piece, stands on a border) is listed under `unsure` with
its crop and makes the reading "ambiguous": never a confident wrong answer.
"""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from contracts.sea_regions import READING_FORMAT, SHIP_CLASSES
from vision.sea_regions.bare_map import BareMap
from vision.sea_regions.classification import (
    BORDER_MM,
    CUT_SHORT_FIT_MM,
    CUT_SHORT_SHARE,
    EDGE_LOOSENESS,
    FACES_GAP_MM,
    FIT_BLUR_PX,
    FIT_MARGIN_MM,
    FIT_MM,
    MIN_SOLIDITY,
    REF_MM_PER_PX,
    Blob,
    Fit,
    Hypothesis,
    black_by_change,
    blob_mm_per_px,
    blobs,
    brightest,
    colour_index,
    faces_split,
    fit_blob,
    hypotheses,
    label_pixels,
    split_blob,
)
from vision.sea_regions.detection import PX_PER_MM, NoTable, register
from vision.sea_regions.layout import SeaLayout, load_sea_layout, locate

CROP_MARGIN_MM = 12.0
# With a bare map: a patch of the map changed beyond doubt, at least UNEXPLAINED_SHARE of the smallest
# piece's footprint and farther than UNEXPLAINED_MARGIN_MM from every blob, is a piece nobody read.
UNEXPLAINED_SHARE = 0.5
UNEXPLAINED_MARGIN_MM = 3.0
# A Ship fitted looser than CUT_SHORT_FIT_MM whose longer sibling's ends would lie on print of its colour
# (more than PRINT_CUT_SHARE of either end's strip) may be that longer Ship: unsure (`_print_cut`).
PRINT_CUT_SHARE = 0.5


@dataclass
class RegionsReading:
    """One photo's reading; `to_json()` is the `vision regions` contract, the rest is for diagnostics."""

    status: str
    side: str
    regions: dict[str, dict[str, Any]]
    unsure: list[dict[str, Any]]
    reason: str | None = None
    crops: list[np.ndarray] = field(default_factory=list)  # one BGR crop per `unsure` entry
    timings_ms: dict[str, float] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "format": READING_FORMAT,
            "status": self.status,
            "map": self.side,
            "regions": self.regions,
            "unsure": self.unsure,
        }
        if self.reason:
            out["reason"] = self.reason
        return out


def read_regions_detailed(
    image_bgr: np.ndarray,
    layout: SeaLayout | dict[str, Any] | str,
    camera: Any = None,
    bare_map: BareMap | None = None,
) -> RegionsReading:
    """Read one photo. Each region lists the pieces seen in it (`owner`, `kind`, `damaged`,
    `confidence`, `at_mm`) and says whether it is `complete` (nothing unsure in it). `bare_map` (the
    calibration photo of the bare map, `vision.sea_regions.bare_map`): print of a piece's colour is no
    candidate."""
    # Long: registration, colours and the per-blob verdicts share the timings and the unsure list; split
    # once a live mode needs the stages apart.
    t0 = time.perf_counter()
    lay = load_sea_layout(layout)
    if not isinstance(image_bgr, np.ndarray) or image_bgr.dtype != np.uint8 or image_bgr.ndim not in (2, 3):
        raise ValueError("image must be an 8-bit grey or BGR array")
    if image_bgr.ndim == 2:
        image_bgr = np.repeat(image_bgr[..., None], 3, axis=2)
    regions: dict[str, dict[str, Any]] = {r.id: {"pieces": [], "complete": True} for r in lay.regions}
    try:
        reg = register(image_bgr, lay, camera)
    except NoTable as exc:
        for r in regions.values():
            r["complete"] = False
        return RegionsReading(
            "no-table", lay.side, regions, [], reason=str(exc), timings_ms={"total": _ms(t0)}
        )
    t1 = time.perf_counter()
    index = colour_index(reg.top)
    labels = label_pixels(reg.top, lay, index=index)
    edge = label_pixels(reg.top, lay, EDGE_LOOSENESS, index)
    printed = is_print = None
    light = brightest(reg.top)
    if bare_map is not None:
        printed = bare_map.print_mask(reg.top, edge > 0)
        now, known = reg.top, bare_map

        def ratio(ys: np.ndarray, xs: np.ndarray) -> np.ndarray:
            return known.brightness_ratio(now, ys, xs)

        # Black paint under a warm lamp is tinted past the darkness test: told by its change instead.
        black_by_change(now, lay, labels, ratio, light=light)
        black_by_change(now, lay, edge, ratio, EDGE_LOOSENESS, light)

        def is_print(ys: np.ndarray, xs: np.ndarray) -> np.ndarray:
            return known.is_print(now, ys, xs)

    found = blobs(labels, reg.top, lay, reg.origin_mm, PX_PER_MM, printed, is_print, edge, light)
    for b in found:
        b.camera = reg.camera_scale(b.centroid_mm)
    t2 = time.perf_counter()
    hyps = hypotheses(lay)
    foot, cam_h = reg.pose.foot_mm, reg.pose.height_mm
    unsure: list[dict[str, Any]] = []
    crops: list[np.ndarray] = []
    view = _View(reg.top, reg.origin_mm, edge, printed)
    for b in found:
        verdict = _judge(b, lay, hyps, foot, cam_h, view)
        if verdict.why == "pieces touching or stacked":
            # Several pieces of one colour leaning into each other: cut at their top faces, and take the
            # cut only when every part is a piece read for sure.
            cut = split_blob(b, reg.top, lay, PX_PER_MM, reg.origin_mm)
            for part in cut:
                part.camera = reg.camera_scale(part.centroid_mm)
            parts = [_judge(part, lay, hyps, foot, cam_h, view) for part in cut]
            if parts and all(v.why is None for v in parts):
                for v in parts:
                    _record(regions, v)
                continue
        if verdict.why is None:
            _record(regions, verdict)
            continue
        at = [round(verdict.fit.foot_mm[0], 1), round(verdict.fit.foot_mm[1], 1)]
        if verdict.place is not None:
            regions[verdict.place]["complete"] = False
        else:
            for rid in _regions_near(lay, verdict.fit.foot_mm):
                regions[rid]["complete"] = False
        box = _crop_box(reg, b.centroid_mm, image_bgr.shape)
        x0, y0, x1, y1 = box
        crops.append(image_bgr[y0:y1, x0:x1].copy())
        unsure.append(
            {
                "region": verdict.place,
                "owner": b.owner,
                "at_mm": at,
                "reason": verdict.why,
                "crop_px": list(box),
            }
        )
    if bare_map is not None:
        # A piece no colour test found (a paint off its colour under this light, print of its colour all
        # around it) still changed the map: its region is left to be checked by hand, never read as empty.
        covered: np.ndarray = np.zeros(reg.top.shape[:2], np.uint8)
        for b in found:
            x0, y0, x1, y1 = b.bbox_px
            covered[y0:y1, x0:x1] |= b.mask
        reach = int(round(UNEXPLAINED_MARGIN_MM * PX_PER_MM))
        covered = cv2.dilate(covered, cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (2 * reach + 1,) * 2))
        smallest = min(p.length * p.width for p in lay.pieces.values())
        for cx, cy in bare_map.unexplained(reg.top, covered, UNEXPLAINED_SHARE * smallest * PX_PER_MM**2):
            at_mm = reg.to_mm(np.array([[cx, cy]]))[0]
            place, _ = locate(lay, float(at_mm[0]), float(at_mm[1]))
            if place is None:
                continue
            regions[place]["complete"] = False
            box = _crop_box(reg, (float(at_mm[0]), float(at_mm[1])), image_bgr.shape)
            x0, y0, x1, y1 = box
            crops.append(image_bgr[y0:y1, x0:x1].copy())
            unsure.append(
                {
                    "region": place,
                    "owner": None,
                    "at_mm": [round(float(at_mm[0]), 1), round(float(at_mm[1]), 1)],
                    "reason": "the map changed here but no piece was read (check by hand)",
                    "crop_px": list(box),
                }
            )
    for r in regions.values():
        r["pieces"].sort(key=lambda p: (p["owner"], p["kind"], p["damaged"]))
    t3 = time.perf_counter()
    return RegionsReading(
        "ambiguous" if unsure else "ok",
        lay.side,
        regions,
        unsure,
        crops=crops,
        timings_ms={
            "register": (t1 - t0) * 1000,
            "colours": (t2 - t1) * 1000,
            "pieces": (t3 - t2) * 1000,
            "total": (t3 - t0) * 1000,
        },
    )


def read_regions(
    image_bgr: np.ndarray,
    layout: SeaLayout | dict[str, Any] | str,
    camera: Any = None,
    bare_map: BareMap | None = None,
) -> dict[str, Any]:
    """The `vision regions` JSON for one photo (see `read_regions_detailed`)."""
    return read_regions_detailed(image_bgr, layout, camera, bare_map).to_json()


@dataclass
class _Verdict:
    blob: Blob
    fit: Fit
    why: str | None  # None: read for sure
    place: str | None
    confidence: float


@dataclass
class _View:
    top: np.ndarray  # the balanced top-down copy
    origin_mm: tuple[float, float]
    edge: np.ndarray | None = None  # each pixel's player at EDGE_LOOSENESS
    printed: np.ndarray | None = None  # the bare map's print (bool), where it is known


def _judge(
    b: Blob, lay: SeaLayout, hyps: list[Hypothesis], foot: Any, cam_h: float, view: _View | None = None
) -> _Verdict:
    """One blob's verdict: the piece it is (and how sure), or why it is unsure. `view` (the top-down copy):
    a runner-up whose top face and sides part the blob's colours better makes the reading unsure."""
    fits = fit_blob(b, hyps, foot, cam_h, PX_PER_MM)
    best = fits[0]
    place, margin = locate(lay, *best.foot_mm)
    limit = fit_limit(b)
    why = None
    # Less solid than one block is several pieces, even where it fits one closely: that let a Ship cut by a
    # notch be read a size smaller with confidence on held-out photos (docs/bench/vision.md round 6).
    if b.solidity < MIN_SOLIDITY:
        why = "pieces touching or stacked"
    elif best.error_mm > limit:
        big = b.area_mm2 > 1.3 * max(p.length * p.width for p in lay.pieces.values())
        why = "pieces touching or stacked" if big else "a shape that is no piece of the game"
    elif len(fits) > 1 and fits[1].error_mm - best.error_mm < FIT_MARGIN_MM:
        why = f"a {_name(fits[0].hypothesis)} or a {_name(fits[1].hypothesis)}"
    elif b.touches_other:
        why = "touching another colour's piece (one may hide part of the other)"
    elif place is None or margin < BORDER_MM:
        why = "standing on a border between regions"
    elif _cut_short(b, best, hyps):
        why = "perhaps a larger piece cut short (its colour reaches past it)"
    elif view is not None and _print_cut(b, best, hyps, view):
        why = "perhaps a larger piece cut short (print of its colour beside it)"
    elif (
        view is not None
        and len(fits) > 1
        and fits[1].error_mm - best.error_mm < FACES_GAP_MM
        and faces_split(b, view.top, fits[1], PX_PER_MM, view.origin_mm)
        < faces_split(b, view.top, best, PX_PER_MM, view.origin_mm)
    ):
        why = f"a {_name(fits[0].hypothesis)} or a {_name(fits[1].hypothesis)}"
    conf = 0.6 + 0.39 * min(1.0, (limit - best.error_mm) / limit) * min(
        1.0, ((fits[1].error_mm - best.error_mm) if len(fits) > 1 else FIT_MM) / (2 * FIT_MARGIN_MM)
    )
    return _Verdict(b, best, why, place, conf)


def fit_limit(b: Blob) -> float:
    """The loosest fit a blob may have and still be a piece (FIT_MM, more where camera pixels are coarse)."""
    return FIT_MM + FIT_BLUR_PX * max(0.0, blob_mm_per_px(b) - REF_MM_PER_PX)


def _cut_short(b: Blob, best: Fit, hyps: list[Hypothesis]) -> bool:
    """A loose fit of a piece smaller than another, its colour reaching past the blob (a shadow band or
    print of its colour may have cut it short): the larger piece is as likely."""
    h = best.hypothesis
    if (
        b.cut
        or best.error_mm <= CUT_SHORT_FIT_MM
        or all(o.length * o.width <= h.length * h.width for o in hyps)
    ):
        return False
    return b.reach() > CUT_SHORT_SHARE


def _print_cut(b: Blob, best: Fit, hyps: list[Hypothesis], view: _View) -> bool:
    """A loose fit of a Ship shorter than another of its standing, where the bare map's print of its
    colour covers more than PRINT_CUT_SHARE of the strip the longer Ship would reach past either of its
    ends: a piece over print of its own colour looks like the print there, so the longer one is as likely."""
    h = best.hypothesis
    if view.printed is None or view.edge is None or b.cut or best.error_mm <= CUT_SHORT_FIT_MM:
        return False
    longer = [
        o.length for o in hyps if o.damaged == h.damaged and o.kind in SHIP_CLASSES and o.length > h.length
    ]
    if h.kind not in SHIP_CLASSES or not longer:
        return False
    reach = min(longer) - h.length
    cu, su = math.cos(best.yaw), math.sin(best.yaw)
    step = 1 / PX_PER_MM
    us = np.arange(step / 2, reach, step)
    vs = np.arange(-h.width / 2 + step / 2, h.width / 2, step)
    uu, vv = np.meshgrid(us, vs)
    cx, cy = b.centroid_mm
    H, W = view.printed.shape
    for sign in (1.0, -1.0):
        u = sign * (h.length / 2 + uu)
        xs = np.round((cx + u * cu - vv * su - view.origin_mm[0]) * PX_PER_MM - 0.5).astype(int).ravel()
        ys = np.round((cy + u * su + vv * cu - view.origin_mm[1]) * PX_PER_MM - 0.5).astype(int).ravel()
        ok = (xs >= 0) & (xs < W) & (ys >= 0) & (ys < H)
        if not np.any(ok):
            continue
        xs, ys = xs[ok], ys[ok]
        own = view.printed[ys, xs] & (view.edge[ys, xs] == b.label)
        if np.count_nonzero(own) > PRINT_CUT_SHARE * len(xs):
            return True
    return False


def _record(regions: dict[str, dict[str, Any]], v: _Verdict) -> None:
    h = v.fit.hypothesis
    assert v.place is not None
    regions[v.place]["pieces"].append(
        {
            "owner": v.blob.owner,
            "kind": h.kind,
            "damaged": h.damaged,
            "confidence": round(v.confidence, 3),
            "at_mm": [round(v.fit.foot_mm[0], 1), round(v.fit.foot_mm[1], 1)],
        }
    )


def _ms(t0: float) -> float:
    return (time.perf_counter() - t0) * 1000


def _name(h: Any) -> str:
    return (
        f"damaged {h.kind} ship"
        if h.damaged
        else (f"{h.kind} ship" if h.kind in ("small", "medium", "large") else h.kind)
    )


def _regions_near(lay: SeaLayout, at: tuple[float, float]) -> list[str]:
    """The regions within a piece's reach of a point (a piece on a border leaves each of them unsure)."""
    reach = max(p.length for p in lay.pieces.values())
    return [
        r.id
        for r in lay.regions
        if cv2.pointPolygonTest(r.polygon_mm.reshape(-1, 1, 2), (float(at[0]), float(at[1])), True) > -reach
    ]


def _crop_box(reg: Any, at_mm: tuple[float, float], shape: tuple[int, ...]) -> tuple[int, int, int, int]:
    m = CROP_MARGIN_MM + 20.0
    corners = np.array(
        [
            [at_mm[0] - m, at_mm[1] - m],
            [at_mm[0] + m, at_mm[1] - m],
            [at_mm[0] + m, at_mm[1] + m],
            [at_mm[0] - m, at_mm[1] + m],
        ]
    )
    px = reg.to_image(corners)
    h, w = shape[:2]
    x0, y0 = (int(max(0, v)) for v in np.floor(px.min(axis=0)))
    x1, y1 = int(min(w, np.ceil(px[:, 0].max()))), int(min(h, np.ceil(px[:, 1].max())))
    return x0, y0, max(x1, x0 + 1), max(y1, y0 + 1)
