"""The battle-board reader (`BoardReader`, `read_board`): detection and counting composed per frame
into the reading JSON (`smart-table vision read`). Reports what it sees; knows nothing of the rules.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.battle_board import detection
from vision.battle_board.counting import BoardCounting, Cube
from vision.battle_board.detection import LIGHT_DRIFT_LOG, SHAPE_PASSES, _bin_index
from vision.battle_board.layout import BoardLayout
from vision.camera import CameraModel
from vision.geometry import CameraPose
from vision.palette import Palette


@dataclass(slots=True)
class BoardReading:
    status: str
    cubes: list[Cube] = field(default_factory=list)
    reason: str = ""
    occluded: bool = False
    markers_seen: list[int] = field(default_factory=list)
    homography: np.ndarray | None = None  # board mm -> ideal image px
    timings_ms: dict[str, float] = field(default_factory=dict)
    light_gain: tuple[float, float, float] = (
        1.0,
        1.0,
        1.0,
    )  # board now / bare board at calibration (B, G, R)

    def to_json(self) -> dict[str, Any]:
        counts: dict[str, dict[str, int]] = {}
        redrop, ambiguous = [], []
        for i, c in enumerate(self.cubes):
            if c.ambiguous:
                ambiguous.append(i)
            elif c.on_rail:
                redrop.append(i)
            elif c.zone is not None:
                counts.setdefault(c.color, {}).setdefault(c.zone, 0)
                counts[c.color][c.zone] += 1
        out: dict[str, Any] = {
            "status": self.status,
            "cubes": [
                {
                    "color": c.color,
                    "zone": c.zone,
                    "center_mm": [round(c.center_mm[0], 1), round(c.center_mm[1], 1)],
                    "on_rail": c.on_rail,
                    "confidence": round(c.confidence, 3),
                    **({"zones": list(c.zones)} if len(c.zones) > 1 else {}),
                }
                for c in self.cubes
            ],
            "counts": counts,
            "redrop": redrop,
            "ambiguous": ambiguous,
        }
        if self.reason:
            out["reason"] = self.reason
        if max(abs(math.log(max(g, 1e-3))) for g in self.light_gain) > LIGHT_DRIFT_LOG:
            # Read under the calibration's light as far as a gain goes; a person should re-calibrate.
            out["warning"] = (
                f"the light changed since calibration (board {', '.join(f'{g:.2f}' for g in self.light_gain)}"
                " x as bright in B, G, R): run 'smart-table calibrate colors' again"
            )
        return out


class BoardReader(BoardCounting):
    """Reads one layout with one palette (and optionally one camera); caches what does not change."""

    def read(self, image: np.ndarray, crops: bool = False, reuse_pose: bool = False) -> BoardReading:
        """Read one frame; `crops` also fills each cube's box in the image (for the live crops);
        `reuse_pose` skips marker detection and uses the previous frame's registration (the live loop
        does this while the scene has stayed still since that frame)."""
        # The per-frame pipeline in order with its timings; each step it times is already its own method.
        t0 = detection.CLOCK()
        if (
            not isinstance(image, np.ndarray)
            or image.ndim != 3
            or image.shape[2] != 3
            or image.dtype != np.uint8
        ):
            raise ValueError("the image must be an 8-bit BGR colour image")
        if reuse_pose and self._last_located is not None and self._last_shape == image.shape:
            located: tuple[np.ndarray, CameraPose, list[int]] | str = self._last_located
        else:
            located = self.locate(image)
        self._last_located = located if not isinstance(located, str) else None
        self._last_shape = image.shape
        t1 = detection.CLOCK()
        if isinstance(located, str):
            return BoardReading(status="no-board", reason=located, timings_ms={"markers": (t1 - t0) * 1e3})
        H, pose, ids = located
        cube_h = self.layout.cube_size_mm
        cam = self.camera.scaled_to(image.shape[1], image.shape[0]) if self.camera else None
        blobs = None
        if cam is None or not np.any(cam.dist):
            blobs, warp_s = self._blobs_coarse_to_fine(image, pose, cube_h)
            t3 = detection.CLOCK()
            t2 = t1 + warp_s
        if blobs is None:  # lens distortion, or regions that kept growing: the whole board at full resolution
            t1b = detection.CLOCK()
            rect = self.rectify(image, pose, cube_h)
            # A light blur first: sensor noise otherwise speckles dark colours (black) between classes.
            rect = cv2.blur(rect, (3, 3))
            t2 = detection.CLOCK()
            labels = self._lut.take(_bin_index(rect))
            if self.print is not None:
                to_mm = (
                    np.array([[1.0, 0, -0.5], [0, 1.0, -0.5], [0, 0, 1.0]])
                    @ np.linalg.inv(pose.plane_homography(0.0))
                    @ pose.plane_homography(cube_h)
                    @ np.diag([1.0 / self.s, 1.0 / self.s, 1.0])
                )
                ref_r, ok_r = self.print.warp(to_mm, self.size_px)
                self.print.fit_gain(rect, ref_r, ok_r)
                labels = self._with_print(rect, ref_r, ok_r)
            labels[self._on_board(pose, cube_h) == 0] = 0
            blobs = self._blobs(labels)
            t3 = detection.CLOCK()
            t2 -= t1b - t1
        cubes, occluded = self._assign(blobs, pose, image.shape, crops)
        cubes = self._without_gloss(image, pose, cubes)  # (a dark print under a moved highlight is no cube)
        t4 = detection.CLOCK()
        unexplained: list[tuple[float, float]] = []
        if not occluded and self.palette.reference is not None:
            occluded = self._foreign_object(image, pose, cubes, unexplained)
        if not occluded and self.print is not None:
            # (always: each unexplained change needs its own flag at its own place, not one for all)
            self._structure_changes(image, pose, cubes, unexplained)
        # A cube on print of its own colour shows as an unexplained change: read it by its shape where
        # its top face is a clear square; then look again with it (each pass may find one more).
        undistorted = cam is None or not np.any(cam.dist)
        # A pass searches only places no earlier pass searched: the same frame, pose and light give the
        # same answer there (no cube, or one a read cube rules out), and the read cubes only grow.
        searched: set[tuple[float, float]] = set()
        for _ in range(SHAPE_PASSES if undistorted and self.print is not None else 0):
            if occluded or not unexplained:
                break
            added = self._shape_cubes(image, pose, cubes, unexplained, crops, searched)
            if not added:
                break
            cubes = sorted(cubes + added, key=lambda c: (round(c.center_mm[1] / 5), c.center_mm[0]))
            unexplained = []
            occluded = self._foreign_object(image, pose, cubes, unexplained)
            if not occluded:
                self._structure_changes(image, pose, cubes, unexplained)
        self._flag_hidden_print(cubes)  # (a swatch spot's print is unknown: a cube read there is unsure)
        t5 = detection.CLOCK()
        timings = {
            "markers": (t1 - t0) * 1e3,
            "warp": (t2 - t1) * 1e3,
            "segment": (t3 - t2) * 1e3,
            "assign": (t4 - t3) * 1e3,
            "occlusion": (t5 - t4) * 1e3,
        }
        missing = sorted(self._marker_ids - set(ids))
        if occluded:
            return BoardReading(
                status="ambiguous",
                cubes=cubes,
                occluded=True,
                markers_seen=ids,
                homography=H,
                reason="something that is not a cube (a hand?) covers part of the board; "
                "clear the board and read again",
                timings_ms=timings,
            )
        status = "ok"
        reason = ""
        if unexplained:
            # Something cube-sized changed the board and no colour names it (a cube on a print of its own
            # colour, a cube of another colour): a person must look; never a confident count without it.
            x, y = unexplained[0]
            status, reason = (
                "ambiguous",
                (
                    f"something cube-sized at [{x:.0f}, {y:.0f}] mm is no colour the palette "
                    "knows (a cube on print of its own colour?): look and correct"
                ),
            )
        elif any(c.ambiguous for c in cubes):
            # a flag always says where to look and why (a person checks the crop, never a bare "ambiguous")
            c = next(c for c in cubes if c.ambiguous)
            x, y = c.center_mm
            status = "ambiguous"
            reason = (
                f"the {c.color} cube at [{x:.0f}, {y:.0f}] mm is uncertain"
                f"{f' ({c.why})' if c.why else ''}: look and correct"
            )
        elif any(c.on_rail for c in cubes):
            status = "redrop"
        reading = BoardReading(
            status=status, cubes=cubes, markers_seen=ids, homography=H, timings_ms=timings, reason=reason
        )
        if self.print is not None:
            reading.light_gain = tuple(float(g) for g in self.print.gain)  # type: ignore[assignment]
        if missing and len(missing) > len(ids):
            reading.reason = f"read with only markers {ids}; markers {missing} were not seen"
        return reading


_READERS: dict[tuple[int, int, int], BoardReader] = {}


def read_board(
    image_bgr: np.ndarray,
    layout: BoardLayout,
    palette: Palette | dict | str | Path,
    camera: CameraModel | dict | str | Path | None = None,
    timings: dict[str, float] | None = None,
) -> dict[str, Any]:
    """Read one image: the `smart-table vision read` JSON (status, cubes, counts, redrop, ambiguous[,
    reason])."""
    key = (id(layout), id(palette), id(camera))
    reader = _READERS.get(key)
    if reader is None or reader.layout is not layout:
        if len(_READERS) > 8:
            _READERS.clear()
        reader = BoardReader(layout, palette, camera)
        _READERS[key] = reader
        reader._keep = (palette, camera)  # type: ignore[attr-defined]  # pins the ids the key uses
    reading = reader.read(image_bgr)
    if timings is not None:
        timings.update(reading.timings_ms)
    return reading.to_json()
