"""Finding what lies on the battle board in a frame: the board's markers and camera pose, the image
rectified onto the cubes' top faces, and the changed blobs (colour, the board's own print, structure).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

import cv2
import numpy as np

from vision.battle_board.layout import BoardLayout
from vision.board_print import SWATCH_R_MM, BoardPrint, zone_mask
from vision.camera import CameraModel
from vision.geometry import (
    CameraPose,
    GeometryError,
    apply_homography,
    default_intrinsics,
    detect_markers,
    detection_copy,
    fit_homography,
    merge_boxes,
    pose_from_points,
    rasterize_polygons,
    undistort_pixels,
    upsample_grid,
)
from vision.palette import (
    LEVELS,
    LOG_OFFSET,
    Palette,
    build_lut,
    load_palette,
)

if TYPE_CHECKING:
    from vision.battle_board.counting import Cube

# The clock of `BoardReading.timings_ms`: wall time; a benchmark may set `time.thread_time` (CPU time of
# the reading thread, which is all of it with OpenCV held to one thread) to leave out a busy host's waits.
CLOCK: Callable[[], float] = time.perf_counter

PX_PER_MM = 2.0  # resolution of the rectified board image
TOUCH_MM = 1.0  # a footprint this deep in a zone touches it; this far outside does not; between: unsure
MIN_MARKERS = 2
REF_MM = 3.0  # mm per pixel of the bare-board comparison (a hand is large; this is cheap)
# Coarse-to-fine: coloured pixels are looked for on the board at this resolution, then only the regions
# around them are warped at `PX_PER_MM`, with this margin. A 10 mm cube's top is 5 x 5 px here, and the
# smallest part the fine pass still reports (0.35 of the top, about 6 x 6 mm) 3 x 3 px: enough to be found.
COARSE_PX_PER_MM = 0.5
ROI_MARGIN_MM = 5.0
LIGHT_DRIFT_LOG = 0.3  # a channel this far (log) from the calibration's light: ask for a new calibration
UNEXPLAINED_MIN = 0.6  # of a cube's top face: a smaller unexplained change is ink, noise or an edge
STRUCT_SIGMA_MM = 4.0  # detail finer than this is compared with the print's (light and shadows are smoother)
# ... and coarser than this (print and frame differ in sharpness: camera distance, resampling)
STRUCT_FINE_MM = 1.0
STRUCT_OFFSET = 8.0  # added before the log: a dark pixel's noise is no edge
STRUCT_DEV = 0.12  # log units outside the print's own 3x3 range: a new edge
STRUCT_SHIFT = 0.04  # mean log shift over a 7 mm square beyond the print's range: a cube's face
STRUCT_EDGE_MM = 5  # the board's outer 5 mm (its cut edge, the table beyond) is not compared
STRUCT_MASS = 4.0  # summed excess (log units x mm2) of a group of new edges that makes it a cube's
# ... of which this share lies within one window this many sides wide (tuning set: cubes' outlines 0.86-1.0,
# shifted print lines and shadow-band edges 0.60-0.85; docs/bench/vision.md round 8).
STRUCT_COMPACT = 0.8
STRUCT_WINDOW_SIDES = 1.4
# A shifted face brighter than its print by this much (median) is a highlight, not a cube on print of its
# own colour (tuning: missed cubes' faces 0.42-1.08, a black cube's top sheen up to 1.42; moved highlights
# 1.5-4.5).
STRUCT_FACE_GLOSS = 1.5
# A pixel at most this share of its print's brightness is no shadow on the board (both renderers'
# deepest shadows keep ~0.55 of the light in 8-bit terms; docs/bench/vision.md round 3): if it is a cube
# colour's own lit face (squared Mahalanobis distance under LIT_MAHALANOBIS2, chi-square 3 dof at 99.9 %),
# it is that cube even where the ratio alone would allow a shadow.
SHADOW_CUBE = 0.5
LIT_MAHALANOBIS2 = 16.3
CHROMA_MAHALANOBIS2 = 13.8  # ... its chroma alone (2 dof at 99.9 %), for a colour without a hue
# ... where a pixel is darker than this share of its print (its brightness then says nothing: a dark cube's
# top under a lamp is any grey); a cube's contact shadow on pale print reached 0.38-0.45 (tuning 8002/11,
# 7354/8; docs/bench/vision.md, physically based set round 8).
HUELESS_DEEP = 0.38
# A shadow may tint the print by the room light's colour: log-chroma residual of this width (1 sigma) ...
SHADOW_CAST_LOG = 0.06
SHADOW_MARGIN2 = 9.0  # ... and the cube must explain the pixel this much better (squared distance)
# A cube on print of its own colour, read by its shape (`_cube_by_shape`): the top-face plane sampled at
# this resolution in a window this wide (half width) around an unexplained change; each edge's step
# measured this far inside and outside it, along its middle 7 mm; log units (brightness + SHAPE_OFFSET).
SHAPE_PX_PER_MM = 3.0
SHAPE_WINDOW_MM = 18.0
SHAPE_STEP_MM = 1.0
SHAPE_OFFSET = 24.0
SHAPE_NOISE = 0.02  # added to an edge's spread: a perfectly flat render is no infinitely sure edge
SHAPE_STEP_LOG = 0.15  # an edge's step at least this (a cube's face against the board or its side)
SHAPE_PRINT_SHARE = 0.5  # ... and the print's own step there less than this share of it
SHAPE_SHIFT_MM = 2.0  # the print's step looked for this far across each edge (its registration)
SHAPE_T = 4.0  # step over spread on the third-best edge (candidates without a cube reached 1.9)
SHAPE_EVEN = 0.06  # spread (log) of the square's inside: one face of one paint
# The inside's colour: within twice the lit face's distance of one palette colour (the light over the
# board is not the swatch's everywhere), and the runner-up at least this many times farther (squared).
SHAPE_COLOUR_GATE = 4.0
SHAPE_COLOUR_MARGIN = 3.0
SHAPE_PASSES = 3  # read by shape, then look again with those cubes, at most this often
# A glossy highlight that moved with the camera is no hand (`_gloss`): brighter than the print in every
# channel in at least this share of its pixels, and the light it adds this smooth (mean departure from
# its own 3 mm blur, as a share of its peak: highlights of the tuning set 0.011-0.065, hands of the tuning
# renderer 0.115-0.32; docs/bench/vision.md round 5).
GLOSS_BRIGHTER = 0.95
GLOSS_ROUGH = 0.09
# A cube of the darkest colour is darker than the bare print it covers, or, on a print as dark as itself,
# brighter only by its own top's sheen, within the top face (true black cubes of the tuning sets: the
# region brighter than the print by GLOSS_REGION_RATIO around the top 88-139 mm2). A "black cube" brighter
# than the print (median over its top face above GLOSS_DARK_TOP) inside a brighter region larger than
# GLOSS_REGION_TOPS top faces is a glossy highlight that moved with the camera (those of the tuning sets
# 161-2,232 mm2), unless a cube's square shows there by its shape (a real black cube inside a highlight;
# docs/bench/vision.md, round 7).
GLOSS_DARK_TOP = 1.0
GLOSS_REGION_RATIO = 1.08
GLOSS_REGION_TOPS = 1.5
# A cube read this near a swatch's centre (for 10 mm cubes) stands where the calibration's cube hid the
# bare board or `bare_board` filled it in from a guess: false black re-drops of the randomised tuning set
# lay up to 12.4 mm from the centre, a real re-drop of the tuning renderer 14 mm (docs/bench/vision.md,
# round 6).
SPOT_GUESSED_MM = 13.0


class BoardDetection:
    """The reader's state for one layout, palette and camera, and the registration and blob finding
    that use it."""

    def __init__(
        self,
        layout: BoardLayout,
        palette: Palette | dict | str | Path,
        camera: CameraModel | dict | str | Path | None = None,
        px_per_mm: float = PX_PER_MM,
    ) -> None:
        self.layout = layout
        self.palette = load_palette(palette)
        self.camera = CameraModel.load(camera) if camera is not None else None
        self.s = px_per_mm
        W, H = layout.size_mm
        self.size_px = (int(math.ceil(W * self.s)), int(math.ceil(H * self.s)))
        self._lut = self.palette.lut()
        # With the bare board learned at calibration, the board's own print is told from cubes by place
        # (`BoardPrint`): a cube colour the board also shows elsewhere is no longer ruled out everywhere.
        self.print: BoardPrint | None = None
        # Swatches whose print a second calibration photo showed (`calibration.bare_swatches`, palette
        # `meta.bare_swatches`): known there, so neither left out nor guessed; the others are filled in.
        known = self.palette.meta.get("bare_swatches", [])
        self._bare_swatches = {str(c) for c in known} if isinstance(known, list) else set()
        self._hidden_swatches = [sw for sw in layout.swatches if sw.color not in self._bare_swatches]
        if self.palette.reference is not None:
            self.print = BoardPrint(
                self.palette.reference,
                layout.size_mm,
                [sw.center_mm for sw in self._hidden_swatches],
                bare=self.palette.meta.get("reference") == "bare",
                zones=zone_mask(layout, self.palette.reference.shape[1::-1]),
            )
            self._lut_bg = self._lut  # where the reference has nothing (swatch spots): the board's colours
            self._lut = build_lut(Palette(colors=self.palette.colors, white=self.palette.white))
        self._lit_models, self._lit_bins = _lit_tables(self.palette, self._lut)
        self._build_maps()
        self._marker_ids = {m.id for m in layout.markers}
        self._ref_small: np.ndarray | None = None
        self._marker_mask = np.zeros((self.size_px[1], self.size_px[0]), np.uint8)
        self._last_located: tuple[np.ndarray, CameraPose, list[int]] | None = None
        self._last_shape: tuple[int, ...] = ()
        self._small: np.ndarray | None = None  # the last located frame's half-size copy
        self._small_of: np.ndarray | None = None  # ... and that frame
        # Set with _ref_small (the first _foreign_object call) and read only after it.
        self._ref_keep: np.ndarray = np.empty(0)
        self._ref_A: np.ndarray = np.empty(0)
        self._ref_log: np.ndarray = np.empty(0)
        self._ref_chroma: np.ndarray = np.empty(0)
        self._ref_print_small: np.ndarray | None = None
        self._struct_ref: tuple[np.ndarray, np.ndarray] | None = None
        self._b1: np.ndarray = np.empty(0)  # `_board_1mm`'s last frame, and which frame and pose it was
        self._b1_of: np.ndarray | None = None
        self._b1_pose: CameraPose | None = None
        self._struct_keep: np.ndarray = np.empty(0)
        self._disc5: np.ndarray = np.empty(0)
        self._box7: np.ndarray = np.empty(0)

    def _build_maps(self) -> None:
        L, s = self.layout, self.s
        w, h = self.size_px
        self.zone_ids = [z.id for z in L.zones]
        # Signed distance (mm) of every rectified pixel to each zone, positive inside.
        self.signed = np.empty((len(L.zones), h, w), np.float32)
        for k, z in enumerate(L.zones):
            m = rasterize_polygons([z.polygon_mm], (w, h), s, [255])
            inside = cv2.distanceTransform(m, cv2.DIST_L2, 5)
            outside = cv2.distanceTransform(255 - m, cv2.DIST_L2, 5)
            self.signed[k] = (inside - outside) / s
        # Where cubes are looked for: the board, less the markers (black squares) and a margin.
        valid = np.full((h, w), 255, np.uint8)
        for mk in L.markers:
            lo = np.floor((mk.corners_mm.min(axis=0) - 0.5) * s).astype(int)
            hi = np.ceil((mk.corners_mm.max(axis=0) + 0.5) * s).astype(int)
            valid[max(lo[1], 0) : hi[1], max(lo[0], 0) : hi[0]] = 0
        self.valid = valid
        self.kernel = cv2.getStructuringElement(cv2.MORPH_RECT, (3, 3))
        # The board's outline (half a pixel in) and each marker's printed square grown by 1.8 mm.
        Wmm, Hmm = L.size_mm
        pts = [np.array([[0.5, 0.5], [Wmm - 0.5, 0.5], [Wmm - 0.5, Hmm - 0.5], [0.5, Hmm - 0.5]])]
        for mk in L.markers:
            c = mk.corners_mm.mean(axis=0)
            pts.append(
                c + (mk.corners_mm - c) * (1 + 1.8 / max(1.0, float(np.linalg.norm(mk.corners_mm[0] - c))))
            )
        self._outline_and_markers_mm = np.concatenate(pts)

    def locate(self, image: np.ndarray) -> tuple[np.ndarray, CameraPose, list[int]] | str:
        """Homography (board mm -> ideal px), pose and marker ids, or the reason there is no board.
        `image` is BGR or grey."""
        # The half-size copy the markers are found on also serves the coarse pass (`_blobs_coarse_to_fine`).
        self._small, self._small_of = detection_copy(image), image
        found = detect_markers(
            image, self.layout.aruco_dictionary, expected=self.layout.marker_points(), small=self._small
        )
        ids = [i for i in sorted(found) if i in self._marker_ids]
        if len(ids) < MIN_MARKERS:
            want = sorted(self._marker_ids)
            return (
                f"found {len(ids)} of the layout's markers {want} (need {MIN_MARKERS}): is the board in "
                "view, "
                f"lit and not covered?" + (f" Saw markers {ids}." if ids else "")
            )
        board_pts = np.concatenate([self.layout.marker_points()[i] for i in ids])
        img_pts = np.concatenate([found[i] for i in ids]).astype(np.float64)
        h, w = image.shape[:2]
        cam = self.camera.scaled_to(w, h) if self.camera else None
        if cam is not None and np.any(cam.dist):
            img_pts = undistort_pixels(img_pts, cam.K, cam.dist)
        try:
            H = fit_homography(board_pts, img_pts)
            # A marker far off the others' homography (misread id, a loose sticker): drop it and refit.
            err = np.linalg.norm(apply_homography(H, board_pts) - img_pts, axis=1).reshape(-1, 4).max(axis=1)
            side = np.median(
                np.linalg.norm(img_pts.reshape(-1, 4, 2)[:, 0] - img_pts.reshape(-1, 4, 2)[:, 1], axis=1)
            )
            if err.max() > max(4.0, 0.15 * side) and len(ids) > MIN_MARKERS:
                keep = np.argsort(err)[:-1]
                ids = [ids[i] for i in sorted(keep)]
                sel = np.concatenate([np.arange(4 * i, 4 * i + 4) for i in sorted(keep)])
                board_pts, img_pts = board_pts[sel], img_pts[sel]
                H = fit_homography(board_pts, img_pts)
            K = cam.K if cam is not None else default_intrinsics(w, h, H)
            pose = pose_from_points(board_pts, img_pts, K)
        except GeometryError as exc:
            return f"the markers do not fit the layout: {exc}"
        return H, pose, ids

    def rectify(self, image: np.ndarray, pose: CameraPose, height_mm: float) -> np.ndarray:
        """The image warped onto the plane `height_mm` above the board, at `px_per_mm` (board frame)."""
        S_inv = np.diag([1.0 / self.s, 1.0 / self.s, 1.0])
        M = pose.plane_homography(height_mm) @ S_inv  # rectified px -> ideal image px
        h, w = image.shape[:2]
        cam = self.camera.scaled_to(w, h) if self.camera else None
        if cam is None or not np.any(cam.dist):
            return cv2.warpPerspective(
                image,
                M,
                self.size_px,
                flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                borderMode=cv2.BORDER_CONSTANT,
                borderValue=(0, 0, 0),
            )
        # With lens distortion: map each rectified pixel through the pose, then through the lens.
        step = 8
        gw, gh = self.size_px[0] // step + 2, self.size_px[1] // step + 2
        gx, gy = np.meshgrid(np.arange(gw, dtype=np.float64) * step, np.arange(gh, dtype=np.float64) * step)
        ideal = apply_homography(M, np.stack([gx.ravel(), gy.ravel()], 1))
        norm = (ideal - cam.K[:2, 2]) / np.array([cam.K[0, 0], cam.K[1, 1]])
        pts3 = np.column_stack([norm, np.ones(len(norm))])
        dist_px, _ = cv2.projectPoints(pts3, np.zeros(3), np.zeros(3), cam.K, cam.dist)
        dist_px = dist_px.reshape(gh, gw, 2).astype(np.float32)
        mx = upsample_grid(dist_px[..., 0], step, self.size_px)
        my = upsample_grid(dist_px[..., 1], step, self.size_px)
        w_out, h_out = self.size_px
        return cv2.remap(
            image,
            mx[:h_out, :w_out],
            my[:h_out, :w_out],
            cv2.INTER_LINEAR,
            borderMode=cv2.BORDER_CONSTANT,
            borderValue=(0, 0, 0),
        )

    def _board_polys(self, pose: CameraPose, height_mm: float) -> tuple[np.ndarray, list[np.ndarray]]:
        """Where the board's outline and the printed markers (grown by a margin) show in the image
        rectified at `height_mm`: rectified pixels x 16 (fixed point, 4 fractional bits) as floats."""
        to_rect = np.linalg.inv(pose.plane_homography(height_mm)) @ pose.plane_homography(0.0)
        q = apply_homography(to_rect, self._outline_and_markers_mm) * self.s * 16
        return q[:4], [q[4 * k : 4 * k + 4] for k in range(1, len(self.layout.markers) + 1)]

    def _on_board(self, pose: CameraPose, height_mm: float) -> np.ndarray:
        """Valid pixels of the image rectified at `height_mm`: those whose ray meets the board (not the
        table beyond its edge), less the markers. Also redraws `_marker_mask` (for `_assign`)."""
        outline, markers = self._board_polys(pose, height_mm)
        self._marker_mask = np.zeros(self.valid.shape, np.uint8)  # where markers hide cubes, for _assign
        mask = np.zeros_like(self.valid)
        cv2.fillConvexPoly(mask, np.round(outline).astype(np.int32), 255, cv2.LINE_8, 4)
        for q in markers:
            cv2.fillConvexPoly(mask, np.round(q).astype(np.int32), 0, cv2.LINE_8, 4)
            cv2.fillConvexPoly(self._marker_mask, np.round(q).astype(np.int32), 1, cv2.LINE_8, 4)
        return mask

    def _foreign_object(
        self,
        image: np.ndarray,
        pose: CameraPose,
        cubes: list[Cube] | None = None,
        unexplained: list[tuple[float, float]] | None = None,
    ) -> bool:
        """True when something large that is neither the board nor cubes lies over it (a hand, an arm,
        a card): compared with the bare board learned at calibration, at 3 mm per pixel (cheap).
        `cubes` (the reading's) are left out with their surroundings."""
        # Long on purpose: the bare-board reference is built here on the first call and compared in the same
        # pass; apart, the cache would leave its only reader.
        cam = self.camera.scaled_to(image.shape[1], image.shape[0]) if self.camera else None
        if cam is not None and np.any(cam.dist):
            return False  # (no distortion-aware warp here: hidden markers and blobs still pause)
        reference = self.palette.reference
        if reference is None:
            return False  # no bare board learned at calibration: nothing to compare with (callers check too)
        if self._ref_small is None:
            W, H = self.layout.size_mm
            self._ref_small = cv2.resize(
                reference, (int(W / REF_MM), int(H / REF_MM)), interpolation=cv2.INTER_AREA
            ).astype(np.float32)
            sw_mask: np.ndarray = np.full(self._ref_small.shape[:2], 255, np.uint8)
            for sw in self.layout.swatches:  # covered by cubes when the reference was taken
                cv2.circle(
                    sw_mask,
                    (int(sw.center_mm[0] / REF_MM), int(sw.center_mm[1] / REF_MM)),
                    int(14 / REF_MM),
                    0,
                    -1,
                )
            self._ref_keep = sw_mask
            self._zones_small = (
                cv2.resize(
                    zone_mask(self.layout, (int(W), int(H))),
                    sw_mask.shape[::-1],
                    interpolation=cv2.INTER_AREA,
                )
                > 200
            ).astype(np.uint8)
            hh, ww = sw_mask.shape
            yy, xx = np.mgrid[0:hh, 0:ww]
            self._ref_A = np.stack([np.ones(xx.size), xx.ravel() / ww - 0.5, yy.ravel() / hh - 0.5]).astype(
                np.float32
            )
            self._ref_small = np.ascontiguousarray(self._ref_small.reshape(-1, 3).T)  # channel planes
            self._ref_log = np.log(self._ref_small + 4)
            self._ref_chroma = self._ref_small / (self._ref_small.sum(axis=0, keepdims=True) + 30)
        h, w = self._ref_keep.shape
        # Area-averaged from the 1 mm board, as the reference is: sampling every 3 mm point-wise would
        # hit or miss a printed letter's strokes (dark specks the averaged print does not have).
        now = cv2.resize(self._board_1mm(image, pose), (w, h), interpolation=cv2.INTER_AREA)
        darker = None
        ref_print: np.ndarray | None = None
        if self.print is not None:
            changed = self._changed_print(now, w, h)
            ref_print = self._ref_print_small
            assert ref_print is not None  # _changed_print has just made it
            darker = self.print.darker(now, ref_print)
            # Cube-sized changes are judged as the cube colours are: gloss is no change there.
            changed_cube = self.print.changed(now, ref_print, None).astype(np.uint8)
        else:
            changed = self._changed_colour(now, w, h)
        # Cubes are not foreign: the colours the palette's own table gives (board colours ruled out).
        labels = (self._lut_bg if self.print is not None else self._lut).take(_bin_index(now))
        changed[(labels > 0) & (labels != self.palette.unknown_label)] = 0
        if cubes:
            # Nor their shaded sides and shadows (a 16 mm wide stroke from each cube's footprint to
            # where its top face shows): a crowded board's cubes otherwise add up to a "hand".
            size = self.layout.cube_size_mm
            f = np.array([cb.center_mm for cb in cubes])
            t = f + (f - pose.foot_mm) * size / max(
                pose.height_mm - size, 1.0
            )  # top faces, seen on the board
            segs = np.round(np.stack([f, t], 1) / REF_MM).astype(np.int32)  # one polyline call for all
            cv2.polylines(changed, list(segs), False, 0, int(round(1.6 * size / REF_MM)))
        changed &= self._ref_keep > 0
        if darker is not None and unexplained is not None:
            self._unexplained(
                changed_cube & (self._ref_keep > 0),
                darker,
                labels,
                cubes,
                pose,
                unexplained,
                (now, ref_print) if ref_print is not None else None,
            )
        changed = cv2.morphologyEx(changed, cv2.MORPH_OPEN, self.kernel)
        n, lab, stats, _ = cv2.connectedComponentsWithStats(changed, connectivity=4)
        # More than six cubes' worth of board looks different and is not cube-coloured ...
        big = [
            j
            for j in range(1, n)
            if stats[j, cv2.CC_STAT_AREA] * REF_MM * REF_MM > 6 * self.layout.cube_size_mm**2
        ]
        if not big or self.print is None:
            return bool(big)
        # ... and is not a glossy highlight that moved with the camera (light added to the print, smoothly).
        assert ref_print is not None
        return any(not self._gloss(now, ref_print, lab == j) for j in big)

    def _gloss(self, now: np.ndarray, ref: np.ndarray, part: np.ndarray) -> bool:
        """Whether the changed `part` of the board (at REF_MM) is a glossy highlight, not a hand: brighter
        than the print in every channel nearly everywhere, and the light it adds (linear, the print's own
        under this frame's light taken off) smooth: no edge of its own and none of the print's left in it,
        which a hand or sleeve over the print has (docs/bench/vision.md, round 5)."""
        assert self.print is not None
        g = self.print.gain
        nowp = [now[..., c].astype(np.float32) for c in range(3)]
        refp = [np.minimum(ref[..., c].astype(np.float32) * float(g[c]), 255.0) for c in range(3)]
        brighter = (nowp[0] > refp[0]) & (nowp[1] > refp[1]) & (nowp[2] > refp[2])
        if float(brighter[part].mean()) < GLOSS_BRIGHTER:
            return False
        added = sum(
            ((nowp[c] / 255.0) ** 2.2 - (refp[c] / 255.0) ** 2.2 for c in range(3)),
            np.zeros(now.shape[:2], np.float32),
        )
        peak = float(np.percentile(added[part], 95))
        if peak <= 0.0:
            return False
        rim = cv2.dilate(part.view(np.uint8), self.kernel) > 0
        rough = float(np.abs(added - cv2.GaussianBlur(added, (0, 0), 1.0))[rim].mean()) / peak
        return rough < GLOSS_ROUGH

    def _without_gloss(self, image: np.ndarray, pose: CameraPose, cubes: list[Cube]) -> list[Cube]:
        """The reading's cubes less the "black cubes" that are a glossy highlight: read in the darkest
        palette colour where the board is brighter than its bare print (a black cube covers the print, it
        does not brighten it), within a brighter region wider than a cube's top (its own sheen), and with
        no cube's square there by shape. A dark rail or charcoal zone under a highlight that moved with the
        camera was read as black cubes, with confidence (tuning 8024/1, /5, /10, 8035/2, 8056/5, /10;
        docs/bench/vision.md, round 7). What the highlight changed is judged afterwards as any change is
        (`_unexplained`, `_gloss`)."""
        if self.print is None or not cubes:
            return cubes
        cam = self.camera.scaled_to(image.shape[1], image.shape[0]) if self.camera else None
        if cam is not None and np.any(cam.dist):
            return cubes  # (no distortion-aware warp of the 1 mm board, as in `_foreign_object`)
        darkest = min(self.palette.colors, key=lambda cm: float(np.sum(cm.bgr))).name
        if not any(c.color == darkest for c in cubes):
            return cubes
        board = self._board_1mm(image, pose)
        ref = self.print.ref
        h, w = ref.shape[:2]
        size = self.layout.cube_size_mm
        r = int(round(3 * size))  # the region looked at: a highlight's rim piece lies inside it
        core = int(round(0.35 * size))  # the top face's middle (7 x 7 mm for 10 mm cubes)
        keep = []
        for c in cubes:
            f = np.array(c.center_mm)
            t = f + (f - pose.foot_mm) * size / max(pose.height_mm - size, 1.0)  # the top face, on the board
            x, y = int(round(t[0])), int(round(t[1]))
            if c.color != darkest or not (0 <= x < w and 0 <= y < h):
                keep.append(c)
                continue
            x0, y0, x1, y1 = max(x - r, 0), max(y - r, 0), min(x + r + 1, w), min(y + r + 1, h)
            ratio = self.print.brightness_ratio(board[y0:y1, x0:x1], ref[y0:y1, x0:x1])
            cy, cx = y - y0, x - x0
            top = ratio[max(cy - core, 0) : cy + core + 1, max(cx - core, 0) : cx + core + 1]
            if float(np.median(top)) <= GLOSS_DARK_TOP:
                keep.append(c)
                continue
            n, lab, stats, _ = cv2.connectedComponentsWithStats(
                (ratio > GLOSS_REGION_RATIO).view(np.uint8), connectivity=8
            )
            touched = np.unique(lab[max(cy - core, 0) : cy + core + 1, max(cx - core, 0) : cx + core + 1])
            area = float(sum(int(stats[j, cv2.CC_STAT_AREA]) for j in touched.tolist() if j > 0))
            if area < GLOSS_REGION_TOPS * size * size or self._cube_by_shape(image, pose, c.center_mm):
                keep.append(c)
        return keep

    def _flag_hidden_print(self, cubes: list[Cube]) -> None:
        """Marks unsure every cube read where the bare board is only guessed: on a swatch spot whose print
        no second calibration photo showed (the calibration's cube hid it) or where the calibration photo
        had a glossy highlight. Neither a cube's colour against the print nor its shape against the
        print's edges is evidence there: a dark spot on a dark rail read as a black cube in 9 of 12 photos
        of tuning design 8056, and a dark rail under a former highlight fell apart into black cubes
        (8024/5), all read with confidence (docs/bench/vision.md, round 6). A person looks. A swatch whose
        print the second photo showed is known: a cube there is read like any other (round 8)."""
        if self.print is None:
            return
        glare = self.print.highlight
        h, w = self.print.ref.shape[:2]  # (the highlight map's shape)
        spot_r = SPOT_GUESSED_MM * self.layout.cube_size_mm / 10.0
        for c in cubes:
            x, y = int(c.center_mm[0]), int(c.center_mm[1])
            guessed = not (0 <= x < w and 0 <= y < h) or bool(glare[y, x] > 0)
            guessed = guessed or any(
                math.dist(c.center_mm, sw.center_mm) < spot_r for sw in self._hidden_swatches
            )
            if not c.ambiguous and guessed:
                c.ambiguous, c.confidence = True, min(c.confidence, 0.3)
                c.why = "where the calibration photo did not show the bare board (a swatch's cube, a glare)"

    def _unexplained(
        self,
        changed: np.ndarray,
        darker: np.ndarray,
        labels: np.ndarray,
        cubes: list[Cube] | None,
        pose: CameraPose,
        out: list[tuple[float, float]],
        board: tuple[np.ndarray, np.ndarray] | None = None,
    ) -> None:
        """Compact, cube-sized changes (at REF_MM) that no cube of the reading explains: changed, or
        darker than any light drift (a black cube on a charcoal print darkens it like a shadow, but only
        cubes cast cube-sized shadows, and theirs are left out with them). Appends their centres (mm).
        With `board` (this frame and the print at REF_MM), a glossy highlight (`_gloss`) is no change."""
        size = self.layout.cube_size_mm
        m = ((changed > 0) | darker).astype(np.uint8)
        if cubes:
            f = np.array([cb.center_mm for cb in cubes])
            t = f + (f - pose.foot_mm) * size / max(pose.height_mm - size, 1.0)
            segs = np.round(np.stack([f, t], 1) / REF_MM).astype(np.int32)
            cv2.polylines(m, list(segs), False, 0, int(round(2.2 * size / REF_MM)))
        m &= (self._ref_keep > 0).astype(np.uint8)
        # Judged whole, then counted in the zones: a shadow band across zone and rail is no cube, though the
        # zones' outlines cut it into cube-sized pieces (tuning 8000/6, 8003/6; docs/bench/vision.md round 8).
        whole = cv2.morphologyEx(m, cv2.MORPH_OPEN, self.kernel)
        m &= self._zones_small  # in a zone: where a missed cube changes the count
        m = cv2.morphologyEx(m, cv2.MORPH_OPEN, self.kernel)
        n, lab, stats, cents = cv2.connectedComponentsWithStats(m, connectivity=4)
        top = size * size
        _, lab_whole, stats_whole, _ = cv2.connectedComponentsWithStats(whole, connectivity=4)
        for j in range(1, n):
            area = float(stats[j, cv2.CC_STAT_AREA]) * REF_MM * REF_MM
            long_side = max(stats[j, cv2.CC_STAT_WIDTH], stats[j, cv2.CC_STAT_HEIGHT]) * REF_MM
            if UNEXPLAINED_MIN * top <= area <= 4 * top and long_side <= 3.5 * size:
                part = lab == j
                w_ids = np.unique(lab_whole[part])
                w_ids = w_ids[w_ids > 0]
                if len(w_ids):
                    w_area = float(stats_whole[w_ids, cv2.CC_STAT_AREA].sum()) * REF_MM * REF_MM
                    w_long = (
                        float(
                            np.maximum(
                                stats_whole[w_ids, cv2.CC_STAT_WIDTH], stats_whole[w_ids, cv2.CC_STAT_HEIGHT]
                            ).max()
                        )
                        * REF_MM
                    )
                    if w_area > 4 * top or w_long > 3.5 * size:
                        continue
                if board is not None and self._gloss(board[0], board[1], part):
                    continue
                out.append((float(cents[j][0] * REF_MM), float(cents[j][1] * REF_MM)))

    def _structure_changes(
        self, image: np.ndarray, pose: CameraPose, cubes: list[Cube], out: list[tuple[float, float]]
    ) -> None:
        """Cube-sized changes of the board's fine detail that no cube of the reading explains (a cube on
        print of its own colour shows only its outline, its shaded sides and a slight shift of its top
        face). The detail is the log image less its blur (smooth light and shadows cancel), compared at
        1 px/mm with the bare print's, which may sit a pixel off (its 3x3 range is allowed). Two cues: new
        edges adding up to a cube's outline, or a face-sized square shifted as a whole. Appends centres
        (mm)."""
        assert self.print is not None
        cam = self.camera.scaled_to(image.shape[1], image.shape[0]) if self.camera else None
        if cam is not None and np.any(cam.dist):
            return  # (no distortion-aware warp here, as in `_foreign_object`)
        if self._struct_ref is None:
            self._struct_ref = self._structure_reference()
        lo, hi = self._struct_ref
        h, w = lo.shape[:2]
        now = self._board_1mm(image, pose)
        ln = _LOG_STRUCT.take(now)  # log(v + STRUCT_OFFSET) by table
        hp = cv2.GaussianBlur(ln, (0, 0), STRUCT_FINE_MM) - cv2.GaussianBlur(ln, (0, 0), STRUCT_SIGMA_MM)
        # Per channel plane (numpy's reductions over a last axis of 3 cost several times more): how far
        # outside the print's range, as the largest channel (an edge) and as the channels' mean (a face).
        above = cv2.subtract(hp, hi)
        below = cv2.subtract(lo, hp)
        dev3 = cv2.max(above, below)
        dev = cv2.max(cv2.max(dev3[..., 0], dev3[..., 1]), dev3[..., 2])
        # (lo <= hi: at most one of the two is positive in a channel.)
        signed = np.maximum(above, 0.0) - np.maximum(below, 0.0)
        shift = np.abs(cv2.blur((signed[..., 0] + signed[..., 1] + signed[..., 2]) / 3.0, (7, 7)))
        # Looked at: the board less its edge, the markers, the swatches, and each read cube's surroundings.
        outline, markers = self._board_polys(pose, 0.0)
        look = np.zeros((h, w), np.uint8)
        cv2.fillConvexPoly(look, np.round(outline / self.s).astype(np.int32), 1, cv2.LINE_8, 4)
        for q in markers:
            cv2.fillConvexPoly(look, np.round(q / self.s).astype(np.int32), 0, cv2.LINE_8, 4)
        look = cv2.erode(look, self.kernel, iterations=STRUCT_EDGE_MM) & self._struct_keep
        size = self.layout.cube_size_mm
        if cubes:
            f = np.array([cb.center_mm for cb in cubes])
            t = f + (f - pose.foot_mm) * size / max(pose.height_mm - size, 1.0)
            segs = np.round(np.stack([f, t], 1)).astype(np.int32)
            cv2.polylines(look, list(segs), False, 0, int(round(3.0 * size)))
        edges = cv2.dilate(((dev > STRUCT_DEV) & (look > 0)).view(np.uint8), self._disc5)
        n, cc, stats, cents = _parts(edges, 8)
        excess = np.clip(dev - STRUCT_DEV, 0.0, None)
        win = int(round(STRUCT_WINDOW_SIDES * size))
        for j in range(1, n):
            x, y, bw, bh = (int(v) for v in stats[j, :4])
            # Total deviation beyond the threshold: a cube's outline adds up, a misregistered speck not.
            part = np.where(cc[y : y + bh, x : x + bw] == j, excess[y : y + bh, x : x + bw], 0.0)
            mass = float(part.sum())
            if mass >= STRUCT_MASS and 0.8 * size <= max(bw, bh) <= 3.0 * size and min(bw, bh) >= 0.6 * size:
                # A cube's outline (top, sides, shadow) lies within one window; a shifted printed line or a
                # shadow band's edge spreads along the component.
                held = cv2.boxFilter(part, -1, (win, win), normalize=False, borderType=cv2.BORDER_CONSTANT)
                if float(held.max()) >= STRUCT_COMPACT * mass:
                    out.append((float(cents[j][0]), float(cents[j][1])))
        # A face's 7 mm window must lie wholly where it looks: else it averages in a read cube's edges.
        faces = ((shift > STRUCT_SHIFT) & (cv2.erode(look, self._box7) > 0)).view(np.uint8)
        n, cc, stats, cents = _parts(faces, 8)
        for j in range(1, n):
            x, y, bw, bh = (int(v) for v in stats[j, :4])
            # A cube's face is at most as long as the outline check allows (a longer one is a printed line
            # or a shadow band's edge), and no brighter than a cube's top sheen on its own print (a
            # highlight's light that moved with the camera is).
            if not 5 <= max(bw, bh) <= 3.0 * size:
                continue
            inside = cc[y : y + bh, x : x + bw] == j
            ratio = self.print.brightness_ratio(
                now[y : y + bh, x : x + bw][inside], self.print.ref[y : y + bh, x : x + bw][inside]
            )
            if float(np.median(ratio)) < STRUCT_FACE_GLOSS:
                out.append((float(cents[j][0]), float(cents[j][1])))

    def _cube_by_shape(
        self, image: np.ndarray, pose: CameraPose, near_mm: tuple[float, float]
    ) -> tuple[int, np.ndarray, float] | None:
        """A cube on print of its own colour, read by its shape where colour cannot tell: near `near_mm`
        (an unexplained change), the image rectified onto the cube's top-face plane must show a square of
        the cube's size whose edges hold on at least three sides (one step in brightness all along each,
        several times its own spread) that the bare print there does not have, with an even inside of
        one palette colour. A cube stands in a well (its top at the cube's height) or on a rail (higher
        by the rail's height): each is tried, and only a square whose footprint lies where the board has
        that height counts. Returns (label, footprint centre mm, angle degrees) or None."""
        found = []
        for base in (0.0, self.layout.rail_height_mm) if self.layout.rail_height_mm > 0 else (0.0,):
            if not self._height_possible(near_mm, base):
                continue  # every square the search could return there would be refused below
            at = self._cube_by_shape_at(image, pose, near_mm, base)
            if at is None:
                continue
            # A cube lying flat is wholly in a well (its centre at least half a side, less 1 mm, inside a
            # zone) or wholly on the rail (as far outside every zone); anything between would lean.
            cx = min(max(int(at[1][0] * self.s), 0), self.size_px[0] - 1)
            cy = min(max(int(at[1][1] * self.s), 0), self.size_px[1] - 1)
            depth = float(self.signed[:, cy, cx].max()) if len(self.zone_ids) else -math.inf
            half = self.layout.cube_size_mm / 2 - 1.0
            if (depth >= half) if base == 0.0 else (depth <= -half):
                found.append(at)
        if not found:
            return None
        label, fp, ang, _ = max(found, key=lambda f: f[3])
        return label, fp, ang

    def _height_possible(self, near_mm: tuple[float, float], base_mm: float) -> bool:
        """Whether `_cube_by_shape`'s height rule can accept any footprint the search near `near_mm` may
        return (centres within `_SHAPE_REACH_MM`) for a cube standing `base_mm` up: the rule tried on the
        deepest and the shallowest board pixel of that window (it is monotonic in the depth). A search
        whose every answer would be refused is not run: near the middle of a zone no cube stands on a
        rail, nor in a well far out on the rail (an exact bound, not a guess)."""
        if len(self.zone_ids):
            # The footprint's pixel as `_cube_by_shape` takes it, at either end of the reach (a pixel more).
            lo = [math.floor((c - _SHAPE_REACH_MM) * self.s) - 1 for c in near_mm]
            hi = [math.floor((c + _SHAPE_REACH_MM) * self.s) + 1 for c in near_mm]
            (x0, x1), (y0, y1) = (
                (min(max(lo[i], 0), n - 1), min(max(hi[i], 0), n - 1)) for i, n in enumerate(self.size_px)
            )
            deepest = self.signed[:, y0 : y1 + 1, x0 : x1 + 1].max(axis=0)
            depths = [float(deepest.max()), float(deepest.min())]
        else:
            depths = [-math.inf]
        half = self.layout.cube_size_mm / 2 - 1.0  # as `_cube_by_shape`
        return any((depth >= half) if base_mm == 0.0 else (depth <= -half) for depth in depths)

    def _cube_by_shape_at(
        self, image: np.ndarray, pose: CameraPose, near_mm: tuple[float, float], base_mm: float
    ) -> tuple[int, np.ndarray, float, float] | None:
        """`_cube_by_shape` for a cube standing `base_mm` above the board: (label, footprint, angle,
        score) or None."""
        assert self.print is not None
        size = self.layout.cube_size_mm
        top_mm = base_mm + size
        k, r = SHAPE_PX_PER_MM, SHAPE_WINDOW_MM
        n = int(2 * r * k)
        T = np.array([[1 / k, 0, near_mm[0] - r], [0, 1 / k, near_mm[1] - r], [0, 0, 1.0]])
        flags = cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP
        top = cv2.warpPerspective(image, pose.plane_homography(top_mm) @ T, (n, n), flags=flags)
        # The bare print as this camera sees it along the same rays (the board point behind each top point).
        to_board = np.linalg.inv(pose.plane_homography(0.0)) @ pose.plane_homography(top_mm) @ T
        ref = cv2.warpPerspective(
            self.print.ref,
            np.array([[1, 0, -0.5], [0, 1, -0.5], [0, 0, 1.0]]) @ to_board,
            (n, n),
            flags=flags,
        )
        lum, lum_ref = _LOG_SHAPE.take(_channel_sum(top)), _LOG_SHAPE.take(_channel_sum(ref))

        def search(
            xs: np.ndarray, ys: np.ndarray, angles: np.ndarray, floor: float
        ) -> tuple[float, np.ndarray, float]:
            """The best square (its third-best edge's score, centre offset, angle); when no square reaches
            `floor`, the score alone is right (the caller rejects it)."""
            # Every square at one angle has the same sampling points about its centre: those offsets are
            # made once per angle (edge, angle, point along the edge, xy) and moved to each centre, in
            # the search's order (centre-major, then angle).
            ang = np.radians(angles)
            u = np.stack([np.cos(ang), np.sin(ang)], 1)
            v = np.stack([-u[:, 1], u[:, 0]], 1)
            nrm_a = np.stack([u, v, -u, -v])
            along = (
                np.stack([-nrm_a[..., 1], nrm_a[..., 0]], -1)[:, :, None, :]
                * _SHAPE_ALONG[None, None, :, None]
            )
            # Centres in px, x and y apart (numpy adds long rows far faster than (..., 2) pairs).
            at_x, at_y = (np.repeat(xs, len(ys)) + r) * k, (np.tile(ys, len(xs)) + r) * k
            n_sq = len(xs) * len(ys) * len(ang)

            def points(depth: float) -> tuple[np.ndarray, np.ndarray]:
                """x and y (edge, square, point along the edge) at `depth` mm from each square's centre."""
                off = ((nrm_a * depth)[:, :, None, :] + along) * k
                shape = (4, n_sq, len(_SHAPE_ALONG))
                x = at_x[None, :, None, None] + off[:, None, :, :, 0]
                y = at_y[None, :, None, None] + off[:, None, :, :, 1]
                return x.reshape(shape), y.reshape(shape)

            # All four edges of all squares at once: one sampling call for the whole search.
            p_in = points(size / 2 - SHAPE_STEP_MM)
            p_out = points(size / 2 + SHAPE_STEP_MM)
            d = _sample_steps(lum, p_in, p_out)  # (edge, square, point)
            mean = d.mean(axis=2, keepdims=True)
            m = np.abs(mean[..., 0])
            t, mo = (m / (d.std(axis=2, mean=mean) + SHAPE_NOISE)).T, m.T  # (square, edge)
            # Without the print's test an edge can only hold more often: this score bounds the true one, so
            # the print is sampled only for squares, best bound first, that could still win (its samples
            # are most of the cost: five shifts per edge).
            bound = np.sort(np.where(mo >= SHAPE_STEP_LOG, t, 0.0), axis=1)[:, 1]
            order = np.lexsort((np.arange(n_sq), -bound))
            best, best_j = -1.0, 0
            for start in range(0, len(order), _SHAPE_BATCH):
                idx = order[start : start + _SHAPE_BATCH]
                if bound[idx[0]] < max(best, floor):
                    break
                # The print's step there, allowing for its registration (a lens the reader was not told of,
                # a rail's parallax): the largest within SHAPE_SHIFT_MM across the edge (shift, edge, square).
                nrm = nrm_a[:, idx % len(ang)]  # the squares' normals (edge, square, xy)
                sh = nrm[None] * _SHAPE_SHIFTS[:, None, None, None] * k  # (shift, edge, square, xy)
                steps = _sample_steps(
                    lum_ref,
                    tuple(p[None, :, idx] + sh[..., i, None] for i, p in enumerate(p_in)),
                    tuple(p[None, :, idx] + sh[..., i, None] for i, p in enumerate(p_out)),
                )
                mr = np.abs(steps.mean(axis=3)).max(axis=0).T  # (square, edge)
                # An edge holds: a real step, the same all along the edge, and not the print's own edge.
                holds = (mo[idx] >= SHAPE_STEP_LOG) & (mr < SHAPE_PRINT_SHARE * mo[idx])
                score = np.sort(np.where(holds, t[idx], 0.0), axis=1)[:, 1]  # the third-best edge
                # The batch's best, the first square in the search's order among equals.
                batch_best = float(score.max())
                jj = int(idx[score == batch_best].min())
                if batch_best > best or (batch_best == best and jj < best_j):
                    best, best_j = batch_best, jj
            i_xy, i_ang = divmod(best_j, len(ang))
            # (+ r - r: the centre rounded as the search has always had it; the fine search builds on it.)
            centre = np.array([xs[i_xy // len(ys)], ys[i_xy % len(ys)]]) + r
            return max(best, 0.0), centre - r, float(np.degrees(ang[i_ang]))

        best, c, ang = search(_SHAPE_COARSE, _SHAPE_COARSE, np.arange(0.0, 90.0, 6.0), SHAPE_T / 2)
        if best < SHAPE_T / 2:
            return None
        best, c, ang = search(
            c[0] + _SHAPE_FINE, c[1] + _SHAPE_FINE, ang + np.arange(-4.5, 4.51, 1.5), SHAPE_T
        )
        if best < SHAPE_T:
            return None
        # The inside: even (one paint, one face) and of one palette colour under the calibration's light.
        a = math.radians(ang)
        u, v = np.array([math.cos(a), math.sin(a)]), np.array([-math.sin(a), math.cos(a)])
        g = _SHAPE_INSIDE
        pts = (c + r + g[:, 0:1] * u + g[:, 1:2] * v) * k
        if float(_sample(lum, pts).std()) > SHAPE_EVEN:
            return None
        bgr = np.array(
            [_sample(np.ascontiguousarray(top[..., ch]).astype(np.float32), pts).mean() for ch in range(3)]
        )
        bgr = bgr / self.print.gain
        label = self.palette.face_label(bgr, SHAPE_COLOUR_GATE * LIT_MAHALANOBIS2, SHAPE_COLOUR_MARGIN)
        if not label:
            return None
        return label, c + np.array(near_mm), ang, best

    def _board_1mm(self, image: np.ndarray, pose: CameraPose) -> np.ndarray:
        """The board plane at 1 px/mm (the bare print's grid), warped once per frame from the markers'
        half-size copy (area-averaged: about 1 px/mm at 1080p) and shared by the checks that compare
        with the print."""
        if self._b1_of is image and self._b1_pose is pose:
            return self._b1
        assert self.print is not None
        h, w = self.print.ref.shape[:2]
        src, M = image, pose.plane_homography(0.0)
        if self._small is not None and self._small_of is image and self._small.shape[:2] != image.shape[:2]:
            sx, sy = self._small.shape[1] / image.shape[1], self._small.shape[0] / image.shape[0]
            M = np.array([[sx, 0, 0.5 * sx - 0.5], [0, sy, 0.5 * sy - 0.5], [0, 0, 1.0]]) @ M
            src = self._small
        M = M @ np.array([[1.0, 0, 0.5], [0, 1.0, 0.5], [0, 0, 1.0]])  # pixel centres at x + 0.5 mm
        self._b1 = cv2.warpPerspective(src, M, (w, h), flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP)
        self._b1_of, self._b1_pose = image, pose
        return self._b1

    def _structure_reference(self) -> tuple[np.ndarray, np.ndarray]:
        """The bare print's fine detail, its 3x3 minimum and maximum; sets where it may be compared."""
        assert self.print is not None
        ref = np.log(self.print.ref.astype(np.float32) + STRUCT_OFFSET)
        hp = cv2.GaussianBlur(ref, (0, 0), STRUCT_FINE_MM) - cv2.GaussianBlur(ref, (0, 0), STRUCT_SIGMA_MM)
        keep = cv2.erode(self.print.ref_valid, self.kernel, iterations=3)
        for sw in self._hidden_swatches:  # a filled-in guess of the print under the calibration's cubes
            cv2.circle(keep, (int(sw.center_mm[0]), int(sw.center_mm[1])), int(SWATCH_R_MM) + 2, 0, -1)
        self._struct_keep = (keep > 0).view(np.uint8)
        self._disc5 = cv2.getStructuringElement(cv2.MORPH_ELLIPSE, (5, 5))
        self._box7 = np.ones((7, 7), np.uint8)
        lo, hi = cv2.erode(hp, self.kernel), cv2.dilate(hp, self.kernel)
        # Where the board's height steps (a well's wall), parallax moves the print by up to the rail's
        # height times the tilt's tangent: there the print may sit a few pixels off.
        wells = zone_mask(self.layout, (hp.shape[1], hp.shape[0]))
        step = int(math.ceil(self.layout.rail_height_mm)) * 2 + 1
        if step > 1:
            k = cv2.getStructuringElement(cv2.MORPH_RECT, (step, step))
            walls = cv2.morphologyEx(wells, cv2.MORPH_GRADIENT, k) > 0
            # So does a swatch spot known from the second photo: printed on the rail's top, it is seen on
            # the board plane as far off between that photo's camera and this frame's (the rail's only
            # sharp print; the tuning renderer's blue spot flagged 5 of 30 frames at 6.5 mm, round 8).
            for sw in self.layout.swatches:
                if sw.color in self._bare_swatches:
                    c = (int(sw.center_mm[0]), int(sw.center_mm[1]))
                    cv2.circle(walls.view(np.uint8), c, int(SWATCH_R_MM) + 2, 1, -1)
            lo = np.where(walls[..., None], cv2.erode(hp, k), lo)
            hi = np.where(walls[..., None], cv2.dilate(hp, k), hi)
        return lo, hi

    def _changed_print(self, now: np.ndarray, w: int, h: int) -> np.ndarray:
        """Board pixels (at REF_MM) that are neither the bare print under this frame's light nor its
        shadow."""
        assert self.print is not None
        if self._ref_print_small is None:
            self._ref_print_small = cv2.resize(self.print.ref, (w, h), interpolation=cv2.INTER_AREA)
        ref = self._ref_print_small
        ok = np.full((h, w), 255, np.uint8)
        self.print.fit_gain(now, ref, ok)
        return self.print.changed(now, ref, ok, gloss=False).astype(np.uint8)

    def _changed_colour(self, now: np.ndarray, w: int, h: int) -> np.ndarray:
        """As `_changed_print` for a palette without the print model: a smooth gain fit, then brighter or
        differently coloured pixels."""
        # Channel planes (3, h*w): numpy's max over a short last axis is ~100x slower than over rows.
        nowf = now.reshape(-1, 3).T.astype(np.float32)
        # Light differs from calibration (drift, a board moved under uneven light): fit a smooth gain
        # per channel (a plane in log space), then refit without the worst pixels (the object itself).
        r = self._ref_log - np.log(nowf + 4)
        A = self._ref_A  # (3, h*w): 1, x, y
        keep = self._ref_keep.ravel() > 0
        for _ in range(2):
            # Least squares by the 3x3 normal equations (A is well conditioned: 1, x, y in -0.5..0.5).
            Ak = np.compress(keep, A, axis=1)  # (4x cheaper than boolean indexing along axis 1)
            coef = np.linalg.solve(Ak @ Ak.T, Ak @ np.compress(keep, r, axis=1).T)  # (3 terms, 3 channels)
            resid = np.abs(r - coef.T @ A)
            keep &= np.maximum(np.maximum(resid[0], resid[1]), resid[2]) < 0.12
        nowf = (nowf + 4) * np.exp(coef.T @ A) - 4
        # Shadows only darken and keep the colour: look for brighter or differently coloured board.
        d = nowf - self._ref_small
        brighter = np.maximum(np.maximum(d[0], d[1]), d[2]) > 40
        chroma = np.abs(nowf / (nowf[0] + nowf[1] + nowf[2] + 30) - self._ref_chroma)
        changed = (
            (brighter | (np.maximum(np.maximum(chroma[0], chroma[1]), chroma[2]) > 0.07))
            .astype(np.uint8)
            .reshape(h, w)
        )
        return changed

    def _blobs_coarse_to_fine(
        self, image: np.ndarray, pose: CameraPose, height_mm: float
    ) -> tuple[list[tuple[int, np.ndarray, np.ndarray]] | None, float]:
        """The blobs `_blobs` finds on the whole board rectified at `px_per_mm`, found by warping only
        regions around cubes: a cheap pass at `COARSE_PX_PER_MM` labels the board's colours, and each
        group of coloured pixels (grown by `ROI_MARGIN_MM`) is warped, labelled and split at full
        resolution. A region whose blobs come near its edge inside the board is grown and redone, so
        every blob is whole. Returns (blobs, seconds spent warping), or None when regions kept growing."""
        # Kept whole: the grow-and-redo loop over regions shares the warp clock, the regions and the blobs
        # found so far; its steps are not used apart.
        t_warp = 0.0
        tw = CLOCK()
        M = pose.plane_homography(height_mm) @ np.diag([1.0 / self.s, 1.0 / self.s, 1.0])  # rect px -> image
        outline, markers = self._board_polys(pose, height_mm)
        self._marker_mask = np.zeros(self.valid.shape, np.uint8)  # where markers hide cubes, for _assign
        for q in markers:
            cv2.fillConvexPoly(self._marker_mask, np.round(q).astype(np.int32), 1, cv2.LINE_8, 4)
        c = COARSE_PX_PER_MM / self.s
        cw, ch = int(math.ceil(self.size_px[0] * c)), int(math.ceil(self.size_px[1] * c))
        Mc = M @ np.diag([1.0 / c, 1.0 / c, 1.0])
        src = image
        if self._small is not None and self._small.shape[:2] != image.shape[:2] and self._small_of is image:
            # From the markers' half-size copy (area-averaged: less noise, and 4x fewer bytes to touch).
            sx, sy = self._small.shape[1] / image.shape[1], self._small.shape[0] / image.shape[0]
            Mc = np.array([[sx, 0, 0.5 * sx - 0.5], [0, sy, 0.5 * sy - 0.5], [0, 0, 1.0]]) @ Mc
            src = self._small
        # Nearest sampling: cheaper than bilinear here, and the dilation below bridges its speckle.
        coarse = cv2.warpPerspective(
            src,
            Mc,
            (cw, ch),
            flags=cv2.INTER_NEAREST | cv2.WARP_INVERSE_MAP,
            borderMode=cv2.BORDER_CONSTANT,
            borderValue=(0, 0, 0),
        )
        t_warp += CLOCK() - tw
        to_mm = None
        # Coloured pixels; with the bare print learned, those that differ from it (that comparison labels
        # the colours itself: labelling them first as well was wasted).
        if self.print is None:
            cand: np.ndarray = (self._lut.take(_bin_index(coarse)) > 0).view(np.uint8)
        else:
            # Rectified pixels -> board-plane millimetres (where each pixel's ray meets the board).
            to_mm = (
                np.array([[1.0, 0, -0.5], [0, 1.0, -0.5], [0, 0, 1.0]])
                @ np.linalg.inv(pose.plane_homography(0.0))
                @ M
            )
            ref_c, ok_c = self.print.warp(to_mm @ np.diag([1.0 / c, 1.0 / c, 1.0]), (cw, ch))
            self.print.fit_gain(coarse, ref_c, ok_c)
            cand = (self._with_print(coarse, ref_c, ok_c) > 0).view(np.uint8)
        on = np.zeros((ch, cw), np.uint8)
        cv2.fillConvexPoly(on, np.round(outline * c).astype(np.int32), 1, cv2.LINE_8, 4)
        for q in markers:
            cv2.fillConvexPoly(on, np.round(q * c).astype(np.int32), 0, cv2.LINE_8, 4)
        cand &= on
        # Bridge one-pixel gaps (dark colours are speckled without the blur); a lone speck stays small.
        cand = cv2.dilate(cand, self.kernel)
        contours, _ = cv2.findContours(cand, cv2.RETR_EXTERNAL, cv2.CHAIN_APPROX_SIMPLE)
        W, H = self.size_px
        m = ROI_MARGIN_MM * COARSE_PX_PER_MM
        boxes = []
        for cont in contours:
            # (Every group, a lone pixel too: dilated, it is 3 x 3 coarse pixels, 36 mm2; the fine pass
            # judges its size.)
            x, y, w, h = cv2.boundingRect(cont)
            boxes.append(
                (
                    max(0, int((x - m) / c)),
                    max(0, int((y - m) / c)),
                    min(W, int(math.ceil((x + w + m) / c))),
                    min(H, int(math.ceil((y + h + m) / c))),
                )
            )
        grow = int(round(ROI_MARGIN_MM * self.s))
        outline_f = outline.astype(np.float32).reshape(-1, 1, 2)
        marker_boxes = [(q.min(axis=0) / 16, q.max(axis=0) / 16) for q in markers]
        # Regions are labelled into one board-sized image (zero elsewhere): one blob pass for all.
        labels = np.zeros((H, W), np.uint8)
        pasted: set[tuple[int, int, int, int]] = set()
        for _ in range(4):
            boxes = merge_boxes(boxes)
            todo = [b for b in boxes if b not in pasted]
            pasted.update(todo)
            rois, refs, oks = [], [], []
            for x0, y0, x1, y1 in todo:
                tw = CLOCK()
                Mr = M @ np.array([[1.0, 0.0, x0], [0.0, 1.0, y0], [0.0, 0.0, 1.0]])
                roi = cv2.warpPerspective(
                    image,
                    Mr,
                    (x1 - x0, y1 - y0),
                    flags=cv2.INTER_LINEAR | cv2.WARP_INVERSE_MAP,
                    borderMode=cv2.BORDER_CONSTANT,
                    borderValue=(0, 0, 0),
                )
                rois.append(cv2.blur(roi, (3, 3)).reshape(-1, 1, 3))
                t_warp += CLOCK() - tw
                if to_mm is not None and self.print is not None:  # (to_mm is only set with a print)
                    ref_r, ok_r = self.print.warp(
                        to_mm @ np.array([[1.0, 0, x0], [0, 1.0, y0], [0, 0, 1.0]]), (x1 - x0, y1 - y0)
                    )
                    refs.append(ref_r.reshape(-1, 1, 3))
                    oks.append(ok_r.reshape(-1, 1))
            if not todo:
                labs: list[np.ndarray] = []
            elif refs:
                # All regions' pixels compared with the print in one call: per region, numpy's fixed cost
                # per operation was most of the comparison's time.
                flat = self._with_print(np.concatenate(rois), np.concatenate(refs), np.concatenate(oks))
                labs = np.split(flat.reshape(-1), np.cumsum([len(r) for r in rois])[:-1])
            else:
                labs = [self._lut.take(_bin_index(r)).reshape(-1) for r in rois]
            for (x0, y0, x1, y1), lab_flat in zip(todo, labs, strict=True):
                lab = lab_flat.reshape(y1 - y0, x1 - x0)
                corners = np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]], np.float32) * 16
                inside = all(
                    cv2.pointPolygonTest(outline_f, (float(px), float(py)), True) > 32 for px, py in corners
                )
                near = [
                    q
                    for q, (lo, hi) in zip(markers, marker_boxes, strict=True)
                    if lo[0] < x1 + 1 and lo[1] < y1 + 1 and hi[0] > x0 - 1 and hi[1] > y0 - 1
                ]
                if not inside or near:  # only regions at the board's edge or near a marker need the mask
                    mask = np.zeros(lab.shape, np.uint8)
                    off = np.array([x0 * 16, y0 * 16])
                    cv2.fillConvexPoly(mask, np.round(outline - off).astype(np.int32), 1, cv2.LINE_8, 4)
                    for q in near:
                        cv2.fillConvexPoly(mask, np.round(q - off).astype(np.int32), 0, cv2.LINE_8, 4)
                    lab *= mask
                labels[y0:y1, x0:x1] = lab
            any_mask = cv2.morphologyEx((labels > 0).view(np.uint8), cv2.MORPH_OPEN, self.kernel)
            # Blobs within 3 px of a region's edge inside the board may go on beyond it: grow that side.
            again = False
            for i, (x0, y0, x1, y1) in enumerate(boxes):
                sides = (
                    x0 > 0 and bool(any_mask[y0:y1, x0 : x0 + 3].any()),
                    y0 > 0 and bool(any_mask[y0 : y0 + 3, x0:x1].any()),
                    x1 < W and bool(any_mask[y0:y1, x1 - 3 : x1].any()),
                    y1 < H and bool(any_mask[y1 - 3 : y1, x0:x1].any()),
                )
                if any(sides):
                    again = True
                    boxes[i] = (
                        max(0, x0 - grow * sides[0]),
                        max(0, y0 - grow * sides[1]),
                        min(W, x1 + grow * sides[2]),
                        min(H, y1 + grow * sides[3]),
                    )
            if not again:
                break
        else:
            return None, t_warp
        return self._blobs(labels, any_mask), t_warp

    def _with_print(self, now: np.ndarray, ref: np.ndarray, ok: np.ndarray) -> np.ndarray:
        """Cube-colour labels kept only where the board looks changed from its bare print; the board's own
        colours (`_lut_bg` rules them out) only where it changed beyond doubt; where the reference has
        nothing (under the calibration's swatch cubes), the colours of `_lut_bg`. The comparison runs
        only on pixels that take a cube colour at all (a few percent of the board)."""
        assert self.print is not None
        raw = now
        # Colours as under the calibration's light: this frame's drift (exposure, white balance) undone.
        g = self.print.gain
        if float(np.abs(g - 1.0).max()) > 0.02:
            now = cv2.multiply(now, np.append(1.0 / g, 0.0), dtype=cv2.CV_8U)
        bins = _bin_index(now)
        lab = self._lut.take(bins)
        out = np.zeros(lab.shape, np.uint8)
        idx = np.flatnonzero(lab)
        if not len(idx):
            return out
        flat_out = out.reshape(-1)
        bg = self._lut_bg.take(bins.reshape(-1)[idx])
        # Gathered per channel plane (several times cheaper than gathering (n, 3) rows), once for both tests.
        raw_p = [raw.reshape(-1, 3)[:, c][idx] for c in range(3)]
        ref_p = [ref.reshape(-1, 3)[:, c][idx] for c in range(3)]
        changed, strong = self.print.changed(raw_p, ref_p, None, strong=True)
        lab_idx = lab.reshape(-1)[idx]
        keep = np.where(changed & (bg > 0), bg, np.where(strong, lab_idx, 0))
        # Colours as distributions: a pixel the print test dropped (it could be the print in a shadow) is
        # still the cube when it is that colour's own lit top face (Mahalanobis distance under this light)
        # and either darker than any shadow falls on this board (a black cube on light paper) or a shadow
        # of the print there would need a colour cast far less likely than the cube (log chroma residual).
        # (Only bins whose centre lies within twice the distance count: the exact test runs on few pixels.)
        # (Nor where the bare board was only filled in: a guess is no ground for a colour-only call.)
        sel0 = np.flatnonzero(
            (keep == 0) & (self._lit_bins.take(bins.reshape(-1)[idx]) > 0) & (ok.reshape(-1)[idx] == 255)
        )
        if len(sel0):
            pix = idx[sel0]
            # Channel planes throughout: numpy's reductions over a last axis of 3 cost many times more.
            pn = np.stack([now.reshape(-1, 3)[:, c][pix] for c in range(3)])
            pr = np.stack([v[sel0] for v in ref_p])
            ln = _LOG_U8.take(pn)  # (3, n) log(v + LOG_OFFSET), by table
            d = ln - _LOG_U8.take(pr)
            dm = (d[0] + d[1] + d[2]) / 3.0
            shadow2 = ((d[0] - dm) ** 2 + (d[1] - dm) ** 2 + (d[2] - dm) ** 2) / SHADOW_CAST_LOG**2
            pw = np.stack([v[sel0] for v in raw_p]).astype(np.float32)
            g = self.print.gain
            bright = (pw[0] + pw[1] + pw[2] + 3 * LOG_OFFSET) / (
                pr[0] * g[0] + pr[1] * g[1] + pr[2] * g[2] + 3 * LOG_OFFSET
            )
            deep = bright < SHADOW_CUBE  # as `BoardPrint.brightness_ratio`
            labs0 = lab_idx[sel0]
            for k in np.unique(labs0).tolist():
                if not 1 <= k <= len(self.palette.colors):
                    continue
                m = np.flatnonzero(labs0 == k)
                mu, inv, chroma_inv = self._lit_models[k - 1]
                e0, e1, e2 = ln[0, m] - mu[0], ln[1, m] - mu[1], ln[2, m] - mu[2]
                cube2 = _quad(inv, e0, e1, e2)
                lit = (cube2 < LIT_MAHALANOBIS2) & (deep[m] | (shadow2[m] > cube2 + SHADOW_MARGIN2))
                if chroma_inv is not None:
                    # A colour without a hue (black) darker than any shadow here: its brightness says
                    # nothing (a dark cube's top under a lamp is any grey), its chroma tells it.
                    d = np.flatnonzero((bright[m] < HUELESS_DEEP) & ~lit)
                    if len(d):
                        lit[d] = _quad(chroma_inv, e0[d], e1[d], e2[d]) < CHROMA_MAHALANOBIS2
                keep[sel0[m[lit]]] = k
        miss = ok.reshape(-1)[idx] == 0
        keep[miss] = bg[miss]
        flat_out[idx] = keep
        return out

    def _blobs(
        self, labels: np.ndarray, any_mask: np.ndarray | None = None
    ) -> list[tuple[int, np.ndarray, np.ndarray]]:
        """(label, component stats row [x, y, w, h, area], pixel coordinates) of each coloured blob.

        One opening (`any_mask`, when the caller has it) and one labelling over all colours (cubes are
        sparse), then a per-colour pass only inside the few regions where two colours touch."""
        out: list[tuple[int, np.ndarray, np.ndarray]] = []
        min_area = 25.0 * self.s * self.s  # a quarter of a cube's top face
        if any_mask is None:
            any_mask = cv2.morphologyEx((labels > 0).view(np.uint8), cv2.MORPH_OPEN, self.kernel)
        for _first, stats_k, inside in _components(any_mask, min_area):
            x, y, w, h = (int(v) for v in stats_k[:4])
            sub = np.where(inside, labels[y : y + h, x : x + w], 0)
            counts = np.bincount(sub.ravel(), minlength=2)
            colours = [int(c) for c in np.flatnonzero(counts[1:]) + 1]
            if len(colours) == 1:
                ys, xs = np.nonzero(inside)
                out.append((colours[0], stats_k, np.stack([xs + x, ys + y], 1).astype(np.float32)))
                continue
            for lab in colours:
                m = cv2.morphologyEx((sub == lab).view(np.uint8), cv2.MORPH_OPEN, self.kernel)
                n2, cc2, st2, _ = cv2.connectedComponentsWithStats(m, connectivity=4)
                for j in range(1, n2):
                    if st2[j, cv2.CC_STAT_AREA] < min_area:
                        continue
                    ys, xs = np.nonzero(cc2 == j)
                    row = st2[j].copy()
                    row[0] += x
                    row[1] += y
                    out.append((lab, row, np.stack([xs + x, ys + y], 1).astype(np.float32)))
        return out


# log(v + LOG_OFFSET) of every 8-bit value: a table lookup instead of a log per pixel.
_LOG_U8 = np.log(np.arange(256, dtype=np.float32) + LOG_OFFSET)
_LOG_STRUCT = np.log(np.arange(256, dtype=np.float32) + STRUCT_OFFSET)  # ... and with STRUCT_OFFSET


def _lit_tables(
    palette: Palette, lut: np.ndarray
) -> tuple[list[tuple[np.ndarray, np.ndarray, np.ndarray | None]], np.ndarray]:
    """Per colour, the lit top face's log mean and inverse covariance (`ColorModel.mahalanobis2`) and, for
    a colour without a hue (`Palette.hueless`), the chroma-only one; and a table over the colour bins: the
    bin's label where its centre lies within twice the lit distance of that colour, or on a hueless
    colour's shading line with its chroma as near (a cheap first cut before the exact test), else 0."""
    models: list[tuple[np.ndarray, np.ndarray, np.ndarray | None]] = []
    centres = ((np.arange(LEVELS, dtype=np.float32) + 0.5) * (256 // LEVELS)).astype(np.float32)
    cb, cg, cr = np.meshgrid(centres, centres, centres, indexing="ij")
    allc = np.stack([cb.ravel(), cg.ravel(), cr.ravel()], 1)
    lit_bins = np.zeros(len(allc), np.uint8)
    for k, c in enumerate(palette.colors, start=1):
        mu = np.log(c.bgr.astype(np.float32) + LOG_OFFSET)
        chroma_inv = c.chroma_inverse_cov() if palette.hueless(k) else None
        models.append((mu.astype(np.float32), c.inverse_cov(), chroma_inv))
        sel = np.flatnonzero(lut == k)
        if len(sel):
            near = c.mahalanobis2(allc[sel]) < 4 * LIT_MAHALANOBIS2
            if chroma_inv is not None:
                e = np.log(allc[sel] + LOG_OFFSET) - mu
                near |= _quad(chroma_inv, e[:, 0], e[:, 1], e[:, 2]) < 4 * CHROMA_MAHALANOBIS2
            lit_bins[sel[near]] = k
    return models, lit_bins


def _quad(q: np.ndarray, e0: np.ndarray, e1: np.ndarray, e2: np.ndarray) -> np.ndarray:
    """e' q e for vectors given as their three component arrays (q symmetric 3x3)."""
    return (
        q[0, 0] * e0 * e0
        + q[1, 1] * e1 * e1
        + q[2, 2] * e2 * e2
        + 2 * (q[0, 1] * e0 * e1 + q[0, 2] * e0 * e2 + q[1, 2] * e1 * e2)
    )


def _parts(mask: np.ndarray, connectivity: int) -> tuple[int, np.ndarray, np.ndarray, np.ndarray]:
    """`connectedComponentsWithStats` of a board-sized mask, an empty one answered without labelling it
    (most frames' masks of new detail are empty; labelling the 1 mm board costs ~0.5 ms)."""
    if cv2.countNonZero(mask):
        return cv2.connectedComponentsWithStats(mask, connectivity=connectivity)
    h, w = mask.shape
    stats = np.array([[0, 0, w, h, w * h]], np.int32)
    return 1, np.zeros((h, w), np.int32), stats, np.array([[(w - 1) / 2, (h - 1) / 2]])


def _components(mask: np.ndarray, min_area: float) -> list[tuple[int, np.ndarray, np.ndarray]]:
    """4-connected components of `mask` with at least `min_area` pixels: (first pixel's raster index,
    stats row [x, y, w, h, area] in `mask`, boolean mask of the component inside its box), in the order
    `connectedComponentsWithStats` would number them. The same result, about 3x faster on a sparse
    board: statistics over the whole image cost more than finding the few 8-connected groups first
    (their outer contours) and labelling only inside each group's box."""
    # RETR_CCOMP: a group lying inside another's hole is still an outer boundary (top level).
    contours, hier = cv2.findContours(mask, cv2.RETR_CCOMP, cv2.CHAIN_APPROX_SIMPLE)
    tops = [c for c, link in zip(contours, hier[0] if hier is not None else [], strict=True) if link[3] < 0]
    boxed = [(c, cv2.boundingRect(c)) for c in tops]
    outer = [(c, b) for c, b in boxed if b[2] * b[3] >= min_area]
    if not outer:
        return []
    out = []
    for c, (x, y, w, h) in outer:
        # 8-connected labelling inside the group's box only (the box holds the whole group; other
        # groups reaching into it get other labels).
        _, sub = cv2.connectedComponents(mask[y : y + h, x : x + w], connectivity=8, ltype=cv2.CV_32S)
        group_id = int(sub[c[0, 0, 1] - y, c[0, 0, 0] - x])  # a boundary pixel names its group
        part = (sub == group_id).view(np.uint8)
        n, cc, stats, _ = cv2.connectedComponentsWithStats(part, connectivity=4)
        areas = stats[:, cv2.CC_STAT_AREA].tolist()
        for j in range(1, n):
            if areas[j] < min_area:
                continue
            jx, jy, jw, jh = stats[j, :4].tolist()
            inside = cc[jy : jy + jh, jx : jx + jw] == j
            first = int(inside[0].argmax())
            row_out = stats[j].copy()
            row_out[0] += x
            row_out[1] += y
            out.append(((y + jy) * mask.shape[1] + x + jx + first, row_out, inside))
    out.sort(key=lambda item: item[0])
    return out


# log(B + G + R + SHAPE_OFFSET) of every channel sum: the shape search's brightness by table.
_LOG_SHAPE = np.log(np.arange(766, dtype=np.float32) + SHAPE_OFFSET)
# The shape search's square centres (mm from the change): a coarse grid, then a fine one about its best;
# so every square it can return lies within the reach of the change.
_SHAPE_COARSE = np.arange(-8.0, 8.01, 2.0)
_SHAPE_FINE = np.arange(-1.5, 1.51, 0.5)
_SHAPE_REACH_MM = float(_SHAPE_COARSE.max() + _SHAPE_FINE.max())
_SHAPE_SHIFTS = np.arange(-SHAPE_SHIFT_MM, SHAPE_SHIFT_MM + 0.01, 1.0)
_SHAPE_BATCH = 32  # squares whose print is sampled at once
_SHAPE_ALONG = np.linspace(-3.5, 3.5, 12)  # mm along an edge from its middle (corners left out)
_SHAPE_INSIDE = np.stack(np.meshgrid(np.linspace(-3.0, 3.0, 6), np.linspace(-3.0, 3.0, 6)), -1).reshape(-1, 2)


def _sample(img: np.ndarray, pts: np.ndarray) -> np.ndarray:
    """Bilinear samples of a one-channel float image at pixel positions `pts` (n, 2)."""
    return _sample_xy(img, pts[:, 0], pts[:, 1])


def _sample_xy(img: np.ndarray, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """Bilinear samples of a one-channel float image at pixel positions `x`, `y` (any one shape; flat out)."""
    n = x.size
    w = 1024  # remap's maps must stay under 32767 columns
    mx = np.zeros(-(-n // w) * w, np.float32)
    my = np.zeros_like(mx)
    mx[:n] = x.reshape(-1)
    my[:n] = y.reshape(-1)
    out = cv2.remap(
        img, mx.reshape(-1, w), my.reshape(-1, w), cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
    )
    return out.reshape(-1)[:n]


def _sample_steps(
    img: np.ndarray, p_in: tuple[np.ndarray, np.ndarray], p_out: tuple[np.ndarray, np.ndarray]
) -> np.ndarray:
    """`img` at `p_in` less `img` at `p_out` (bilinear; x and y arrays of one shape), in one call."""
    half = p_in[0].size
    w = 1024  # remap's maps must stay under 32767 columns
    maps = np.zeros((2, -(-2 * half // w) * w), np.float32)
    for c in range(2):
        maps[c, :half] = p_in[c].reshape(-1)
        maps[c, half : 2 * half] = p_out[c].reshape(-1)
    v = cv2.remap(
        img, maps[0].reshape(-1, w), maps[1].reshape(-1, w), cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE
    ).reshape(-1)
    return (v[:half] - v[half : 2 * half]).reshape(p_in[0].shape)


def _channel_sum(bgr: np.ndarray) -> np.ndarray:
    """B + G + R of every pixel of an 8-bit image (0-765), by channel planes."""
    return bgr[..., 0].astype(np.uint16) + bgr[..., 1] + bgr[..., 2]


def _bin_index(bgr: np.ndarray) -> np.ndarray:
    from vision.palette import bin_index

    return bin_index(bgr)
