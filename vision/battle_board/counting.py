"""Turning the battle board's blobs into cubes: how many cubes a blob holds, which zone each touches
and how sure the reader is (`Cube`).
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass, field

import cv2
import numpy as np

from vision.battle_board.detection import TOUCH_MM, BoardDetection
from vision.camera import CameraError as CameraError  # re-exported: older imports name it here
from vision.geometry import (
    CameraPose,
    apply_homography,
    square_corners,
)


@dataclass(slots=True)
class Cube:
    color: str
    zone: str | None
    center_mm: tuple[float, float]
    on_rail: bool
    confidence: float
    ambiguous: bool
    why: str = ""
    bbox_px: tuple[int, int, int, int] = (0, 0, 0, 0)  # x, y, w, h in the camera image (for crops)
    # Every zone the footprint touches, `zone` first, when it touches more than one (else empty).
    zones: list[str] = field(default_factory=list)


class BoardCounting(BoardDetection):
    """Blobs to cubes: counts, zones and confidence."""

    def _assign(
        self,
        blobs: list[tuple[int, np.ndarray, np.ndarray]],
        pose: CameraPose,
        shape: tuple[int, ...],
        crops: bool = False,
    ) -> tuple[list[Cube], bool]:
        # Long on purpose: each blob's count, split and zone share the pose, the footprint maps and the marker
        # mask; split into steps they would pass a dozen arrays around.
        size = self.layout.cube_size_mm
        top = size * size
        Hc = pose.height_mm
        foot = pose.foot_mm
        W, Hb = self.size_px
        H_top = pose.plane_homography(size)
        # Per blob: area, and the area its cube's visible sides would add if all were labelled.
        info = []
        for lab, stats, pts in blobs:
            area = float(stats[cv2.CC_STAT_AREA]) / (self.s * self.s)
            mean_px = pts.mean(axis=0)
            d = (foot - mean_px / self.s) * size / Hc  # where the bottom face shows, relative to the top face
            sides = size * (abs(d[0]) + abs(d[1]))
            info.append((lab, stats, pts, area, sides, mean_px))
        # How much of the side faces each colour shows under this light (dark sides drop out of the
        # colour's class), learned from the blobs that can only be one cube.
        frac: dict[int, float] = {}
        for lab in {i[0] for i in info}:
            singles = [
                (a - top * 0.97) / max(sd, 1.0)
                for lb, _, _, a, sd, _ in info
                if lb == lab and 0.8 * top < a < 1.8 * top
            ]
            if singles:
                frac[lab] = min(1.2, max(0.0, float(statistics.median(singles))))
        cubes: list[Cube] = []
        pending: list[
            tuple[str, np.ndarray, float, float, str]
        ] = []  # name, footprint, angle, count conf, why unsure
        occluded = False
        for lab, stats, pts, area, sides, mean_px in info:
            name = self.palette.label_name(lab)
            x, y, w, h = (int(v) for v in stats[:4])
            touches_edge = x <= 1 or y <= 1 or x + w >= W - 1 or y + h >= Hb - 1
            # A blob cut by a marker's mask and too big for one cube may hide a second: not sure then.
            mm = self._marker_mask[max(0, y - 3) : y + h + 3, max(0, x - 3) : x + w + 3]
            cut_by_marker = bool(mm.any()) and _touches(pts, stats, mm, (max(0, x - 3), max(0, y - 3)))
            if name == "unknown":
                if area > 3.0 * top or (touches_edge and area > 1.5 * top):
                    occluded = True
                    continue
                if area < 0.6 * top:
                    continue
            if area < 0.35 * top:
                continue  # specks: ink, noise
            partial = area < 0.6 * top  # too small for a whole cube, too big to ignore: ask
            splits: dict[int, list[np.ndarray]] = {}  # k-means per count, reused (deterministic, costly)
            (_, _), (rw, rh), angle = cv2.minAreaRect(_row_ends(pts))
            tops = (
                _tops(pts, stats, (foot - mean_px / self.s) * size / Hc * self.s)
                if area > 1.6 * top
                else None
            )
            one_max = (top + sides) * 1.06 + 4 + 0.6 * top  # one cube, leaning or raised, all sides showing
            # Short by its box: one cube. Short only once its sides are peeled off (`tops`): one cube
            # showing its sides, or two whose sides did not all take the colour (dark sides; the peel
            # then eats top faces): the area must say one cube as well (else count and shape decide).
            short = max(rw, rh) / self.s < 1.9 * size
            if not short and tops is not None and tops[0] / self.s < 1.9 * size:
                n1, c1 = _count(area, top, sides, frac.get(lab))
                short = n1 == 1 and c1 >= 0.8
            if short and area <= one_max:
                # Two cubes' top faces alone need a box 2 cubes long: this blob is one cube (leaning
                # cubes show more of themselves, so their area alone would mislead).
                n, count_conf = 1, 0.95
            else:
                n, count_conf = _count(area, top, sides, frac.get(lab))
                if count_conf < 0.8:
                    # Shape: which number of cubes, drawn where k-means puts them, covers the blob best?
                    share = float(np.clip(frac.get(lab, 0.8), 0.5, 1.0))  # sides mostly show; frac is noisy
                    d_px = (foot - mean_px / self.s) * size / Hc * self.s * share
                    cands = [k for k in range(max(1, n - 1), n + 2) if _count_fits(area, top, sides, k)]
                    best_k, best, second = _shape_count(pts, stats, cands, d_px, size * self.s, angle, splits)
                    if best >= 0.70 and best - second >= 0.035:
                        n, count_conf = best_k, 0.8 if best_k == n else 0.65
                    elif best_k != n:
                        count_conf = min(count_conf, 0.2)
                        if tops is not None and best >= 0.70:
                            # Shape ahead, but narrowly: the top faces alone settle it when they agree.
                            k = tops[1] / (self.s * self.s) / (top * 0.95)
                            if abs(k - round(k)) < 0.2 and round(k) == best_k:
                                n, count_conf = best_k, 0.6
                    if tops is not None and 0.2 < count_conf < 0.6:
                        # The top faces alone (sides peeled off along the parallax direction) agree?
                        k = tops[1] / (self.s * self.s) / (top * 0.95)
                        if abs(k - round(k)) < 0.2 and round(k) == n:
                            count_conf = 0.6  # independent estimates agree
                        elif abs(k - round(k)) < 0.2:
                            count_conf = 0.2  # ... clearly disagree (a leaning or raised cube?): ask
            if n > 8:
                occluded = True  # no pile of 9 touching cubes: a coloured object covers the board
                continue
            centres = [mean_px] if n == 1 else splits.get(n) or _split(pts, n)
            for c_px in centres:
                c = c_px / self.s
                d = (foot - c) * size / Hc
                footprint = c - d / 2 * (1.0 if frac.get(lab) is None else min(1.0, frac[lab]))
                if name == "unknown":
                    why = "unknown"
                elif cut_by_marker and n == 1 and area > 1.15 * (top * 0.97 + frac.get(lab, 1.0) * sides):
                    why = "marker"
                else:
                    why = "partial" if partial else ""
                pending.append((name, footprint, angle, count_conf, why))
        # Zone depths of all footprints in one lookup (per cube it cost more than the rest of the step).
        depths = self._zone_depths(np.array([p[1] for p in pending]).reshape(-1, 2), [p[2] for p in pending])
        for (name, footprint, angle, count_conf, why), depth in zip(pending, depths, strict=True):
            cube = self._zone_of(name, footprint, count_conf, depth)
            if why == "unknown":
                cube.ambiguous, cube.why = True, "a cube of a colour the palette does not know"
                cube.zone = None
            elif why == "marker":
                cube.ambiguous, cube.confidence = True, min(cube.confidence, 0.3)
                cube.why = "partly hidden by a marker's masked area: the count is not sure"
            elif why == "partial":
                cube.ambiguous, cube.confidence = True, min(cube.confidence, 0.3)
                cube.why = "only part of a cube shows in its colour (shadow, glare or cover)"
            if crops:
                cube.bbox_px = self._crop_box(footprint, angle, pose, H_top, shape)
            cubes.append(cube)
        cubes.sort(key=lambda c: (round(c.center_mm[1] / 5), c.center_mm[0]))
        return cubes, occluded

    def _shape_cubes(
        self,
        image: np.ndarray,
        pose: CameraPose,
        cubes: list[Cube],
        points: list[tuple[float, float]],
        crops: bool = False,
        searched: set[tuple[float, float]] | None = None,
    ) -> list[Cube]:
        """Cubes read by their shape (`_cube_by_shape`) at unexplained changes `points`, none within a
        cube's width of a cube already read. `searched`: the places this frame's earlier passes searched
        (added to here); a search there found no cube or one a read cube rules out, and would again."""
        size = self.layout.cube_size_mm
        out: list[Cube] = []
        for q in points:
            if any(math.dist(q, c.center_mm) < size for c in cubes + out):
                continue  # (a change beside a read cube: its sides or shadow, judged by the other checks)
            if searched is not None:
                if q in searched:
                    continue
                searched.add(q)
            found = self._cube_by_shape(image, pose, q)
            if found is None:
                continue
            label, fp, ang = found
            if any(math.dist(fp, c.center_mm) < size for c in cubes + out):
                continue
            depth = self._zone_depths(fp.reshape(1, 2), [ang])[0]
            cube = self._zone_of(self.palette.label_name(label), fp, 0.8, depth)
            if crops:
                cube.bbox_px = self._crop_box(fp, ang, pose, pose.plane_homography(size), image.shape)
            out.append(cube)
        return out

    def _crop_box(
        self, footprint: np.ndarray, angle: float, pose: CameraPose, H_top: np.ndarray, shape: tuple[int, ...]
    ) -> tuple[int, int, int, int]:
        """The cube (footprint and top face, with a margin) as a box in the camera image."""
        size = self.layout.cube_size_mm
        corners = square_corners(footprint, size * 1.8, angle)
        img_pts = np.concatenate(
            [apply_homography(H_top, corners), apply_homography(pose.plane_homography(0.0), corners)]
        )
        if self.camera is not None and np.any(self.camera.dist):
            cam = self.camera.scaled_to(shape[1], shape[0])
            norm = (img_pts - cam.K[:2, 2]) / np.array([cam.K[0, 0], cam.K[1, 1]])
            img_pts, _ = cv2.projectPoints(
                np.column_stack([norm, np.ones(len(norm))]), np.zeros(3), np.zeros(3), cam.K, cam.dist
            )
            img_pts = img_pts.reshape(-1, 2)
        x0, y0 = np.floor(img_pts.min(axis=0)).astype(int)
        x1, y1 = np.ceil(img_pts.max(axis=0)).astype(int)
        x0, y0 = max(0, int(x0)), max(0, int(y0))
        x1, y1 = min(shape[1], int(x1)), min(shape[0], int(y1))
        return (x0, y0, max(0, x1 - x0), max(0, y1 - y0))

    def _zone_depths(self, footprints: np.ndarray, angles: list[float]) -> np.ndarray:
        """(cubes, zones): how deep (mm) each cube's footprint square (corners, edge midpoints and
        centre sampled) reaches into each zone, its deepest sample."""
        if not len(footprints):
            return np.zeros((0, len(self.zone_ids)), np.float32)
        size = self.layout.cube_size_mm
        # As `square_corners`, for all cubes at once (same arithmetic, same values).
        cs = np.array(
            [(math.cos(math.radians(a)) * size / 2, math.sin(math.radians(a)) * size / 2) for a in angles]
        )
        u = cs[:, None, :]
        v = np.stack([-cs[:, 1], cs[:, 0]], 1)[:, None, :]
        ctr = footprints[:, None, :]
        sq = np.concatenate([ctr - u - v, ctr + u - v, ctr + u + v, ctr - u + v], axis=1)  # (n, 4, 2)
        samples = np.concatenate([sq, (sq + sq[:, [1, 2, 3, 0]]) / 2, ctr], axis=1).reshape(-1, 2)
        px = np.clip(
            np.round(samples * self.s - 0.5).astype(int), 0, [self.size_px[0] - 1, self.size_px[1] - 1]
        )
        depth = self.signed[:, px[:, 1], px[:, 0]].reshape(len(self.zone_ids), len(footprints), 9).max(axis=2)
        return depth.T

    def _zone_of(self, color: str, footprint: np.ndarray, count_conf: float, depth: np.ndarray) -> Cube:
        """The cube at `footprint` given its depth in each zone (`_zone_depths`): every zone its footprint
        touches ("if any part of a cube is touching a zone, that cube is considered to be in that zone"),
        deepest first; a re-drop when it touches none; unsure when an edge is too close to tell."""
        order = [int(k) for k in np.argsort(-depth)]
        fp = (float(footprint[0]), float(footprint[1]))
        touching = [k for k in order if depth[k] >= TOUCH_MM]
        unsure = [k for k in order if -TOUCH_MM < depth[k] < TOUCH_MM]
        if unsure:
            d1 = float(depth[order[0]])
            return Cube(
                color,
                self.zone_ids[order[0]] if d1 > 0 else None,
                fp,
                d1 <= 0,
                0.3,
                True,
                "too close to a zone's edge to tell whether it touches",
                zones=[self.zone_ids[k] for k in touching] if len(touching) > 1 else [],
            )
        # Margin: how far the nearest zone edge is from deciding otherwise (touching or not).
        inside = min((float(depth[k]) for k in touching), default=math.inf)
        outside = min((-float(depth[k]) for k in order if k not in touching), default=math.inf)
        margin = min(inside, outside) - TOUCH_MM
        conf = min(count_conf, 0.5 + 0.5 * min(1.0, margin / 2.0))
        amb = count_conf < 0.35
        why = "the number of touching cubes is unclear" if amb else ""
        if not touching:
            return Cube(color, None, fp, True, conf, amb, why)
        zones = [self.zone_ids[k] for k in touching]
        return Cube(color, zones[0], fp, False, conf, amb, why, zones=zones if len(zones) > 1 else [])


def _count(area: float, top: float, sides: float, frac: float | None) -> tuple[int, float]:
    """Cubes in a blob of `area` mm2, and a confidence. Each cube shows its top face (`top`) plus some
    share of its visible sides (`sides`: dark sides drop out of the colour class). When only one count
    fits that range, it is sure; else the colour's typical share in this frame (`frac`) decides."""

    # Upper end: all sides labelled, plus one cube leaning or raised on a rail (it shows more).
    def bounds(k: int) -> tuple[float, float]:
        return k * top * 0.94, k * (top + sides) * 1.06 + 4 + (0.6 * top if k > 1 else 0.0)

    fits = [k for k in range(1, 12) if bounds(k)[0] <= area <= bounds(k)[1]]
    if len(fits) == 1:
        k = fits[0]
        # Closeness to the edges of the range lowers the confidence a little.
        lo, hi = bounds(k)
        margin = min(area - lo, hi - area) / max(hi - lo, 1.0)
        return k, 0.8 + 0.2 * min(1.0, margin * 4)
    if frac is not None and fits:
        # Touching cubes hide some of each other's sides: about half a cube's sides per extra cube.
        def expected(k: int) -> float:
            return k * top * 0.97 + frac * sides * (1 + 0.55 * (k - 1))

        errs = sorted((abs(area - expected(k)) / expected(k), k) for k in fits)
        best_err, n = errs[0]
        second_err = errs[1][0] if len(errs) > 1 else 1.0
        conf = 1.0 - 2.0 * best_err / max(best_err + second_err, 1e-6)
        return n, 0.75 * max(0.0, conf) if best_err < 0.15 else 0.2
    n = max(1, int(round(area / (top + 0.5 * sides))))
    return n, 0.2


def _shape_count(
    pts: np.ndarray,
    stats: np.ndarray,
    candidates: list[int],
    d_px: np.ndarray,
    side_px: float,
    angle: float,
    splits: dict[int, list[np.ndarray]] | None = None,
) -> tuple[int, float, float]:
    """For each candidate count k: split the blob into k clusters, draw k cubes there (top face plus
    sides swept along `d_px`) and measure the overlap (IoU) with the blob. Returns the best k, its IoU
    and the runner-up's IoU. `splits` keeps each k's cluster centres for the caller."""
    splits = {} if splits is None else splits
    if not candidates:
        return 0, 0.0, 0.0
    x, y, w, h = (int(v) for v in stats[:4])
    pad = int(side_px) + int(abs(d_px[0]) + abs(d_px[1])) + 2
    blob = np.zeros((h + 2 * pad, w + 2 * pad), np.uint8)
    blob[(pts[:, 1] - y + pad).astype(int), (pts[:, 0] - x + pad).astype(int)] = 1
    n_blob = float(len(pts))
    scores = []
    for k in candidates:
        if k not in splits:
            splits[k] = [pts.mean(axis=0)] if k == 1 else _split(pts, k)
        centres = splits[k]
        model = np.zeros_like(blob)
        for c in centres:
            top = square_corners(c - np.array([x - pad, y - pad]) - d_px / 2, side_px, angle)
            hull = cv2.convexHull(np.concatenate([top, top + d_px]).astype(np.float32))
            cv2.fillConvexPoly(model, np.round(hull.reshape(-1, 2) * 16).astype(np.int32), 1, cv2.LINE_8, 4)
        inter = float(np.count_nonzero(model & blob))
        union = n_blob + float(np.count_nonzero(model)) - inter
        scores.append((inter / union if union else 0.0, k))
    scores.sort(reverse=True)
    return scores[0][1], scores[0][0], scores[1][0] if len(scores) > 1 else 0.0


def _touches(pts: np.ndarray, stats: np.ndarray, mask: np.ndarray, origin: tuple[int, int]) -> bool:
    """True when the blob's pixels come within 2 px of a set pixel of `mask` (placed at `origin`)."""
    grown = cv2.dilate(mask, np.ones((5, 5), np.uint8))
    xs = pts[:, 0].astype(int) - origin[0]
    ys = pts[:, 1].astype(int) - origin[1]
    ok = (xs >= 0) & (ys >= 0) & (xs < grown.shape[1]) & (ys < grown.shape[0])
    return bool(grown[ys[ok], xs[ok]].any())


def _count_fits(area: float, top: float, sides: float, k: int) -> bool:
    return k * top * 0.94 <= area <= k * (top + sides) * 1.06 + 4 + 0.6 * top


def _tops(pts: np.ndarray, stats: np.ndarray, d_px: np.ndarray) -> tuple[float, int] | None:
    """The blob with its side faces peeled off: eroded along the parallax direction `d_px` (where the
    sides show, from the top faces toward the camera's foot). Returns (long side of its minimum-area
    box, pixel count), in rectified pixels."""
    x, y, w, h = (int(v) for v in stats[:4])
    r = int(math.ceil(max(abs(d_px[0]), abs(d_px[1])))) + 1
    mask = np.zeros((h + 2 * r, w + 2 * r), np.uint8)
    mask[(pts[:, 1] - y + r).astype(int), (pts[:, 0] - x + r).astype(int)] = 1
    kernel = np.zeros((2 * r + 1, 2 * r + 1), np.uint8)
    cv2.line(kernel, (r, r), (int(round(r + d_px[0])), int(round(r + d_px[1]))), 1, 1)
    core = cv2.erode(mask, kernel, anchor=(r, r))
    ys, xs = np.nonzero(core)
    if len(xs) < 20:
        return None
    (_, _), (rw, rh), _ = cv2.minAreaRect(_row_ends(np.stack([xs, ys], 1).astype(np.float32)))
    return float(max(rw, rh)), int(len(xs))


def _row_ends(pts: np.ndarray) -> np.ndarray:
    """The first and last point of each row of `pts` (pixel coordinates in raster order, as
    `np.nonzero` gives them): they hold every convex-hull vertex, so `minAreaRect` gives the same
    box from them as from all the points, without sorting them all (~5x cheaper on a cube's blob)."""
    ys = pts[:, 1]
    starts = np.flatnonzero(ys[1:] != ys[:-1]) + 1
    return pts[np.concatenate([[0], starts, starts - 1, [len(pts) - 1]])]


def _split(pts: np.ndarray, n: int) -> list[np.ndarray]:
    """Centres of `n` touching cubes in one blob (k-means on pixel positions, seeded: deterministic)."""
    cv2.setRNGSeed(12345)
    sample = pts if len(pts) <= 4000 else pts[:: int(math.ceil(len(pts) / 4000))]
    crit = (cv2.TERM_CRITERIA_EPS + cv2.TERM_CRITERIA_MAX_ITER, 30, 0.05)
    _, _, centres = cv2.kmeans(  # type: ignore[call-overload]  # stub: bestLabels may be None (OpenCV allocates)
        np.ascontiguousarray(sample, np.float32), n, None, crit, 3, cv2.KMEANS_PP_CENTERS
    )
    return [c for c in centres]
