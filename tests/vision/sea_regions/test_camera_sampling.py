"""The fit's blur allowances are in camera pixels at the blob's own place: a 720p camera's pixel spans
about 1 mm of the map, a 4K one's about 0.35 mm, and blur darkens a top face's rim by about a pixel
(docs/bench/vision.md, "The Great Sea, round 6")."""

from __future__ import annotations

import numpy as np

from vision.sea_regions.classification import Blob, Hypothesis, blob_mm_per_px, fit_blob
from vision.sea_regions.detection import PX_PER_MM, homography_jacobian
from vision.sea_regions.reader import fit_limit

STRONGHOLD = Hypothesis("stronghold", False, 16.0, 16.0, 20.0)
SMALL = Hypothesis("small", False, 22.0, 8.0, 16.0)


def _square(centre: tuple[float, float], side: float) -> np.ndarray:
    cx, cy = centre
    h = side / 2
    return np.array([[cx - h, cy - h], [cx + h, cy - h], [cx + h, cy + h], [cx - h, cy + h]], np.float64)


def _stronghold_blob(top_short_mm: float, camera_px_per_mm: float) -> tuple[Blob, np.ndarray, float]:
    """A Stronghold 300 mm from the point under a camera 1000 mm up, its blob exactly the footprint swept
    by the parallax of its height, its bright part `top_short_mm` smaller than its top face."""
    cam_h, dx = 1000.0, 300.0
    k = STRONGHOLD.height / (cam_h - STRONGHOLD.height)
    shift, side = dx * k, STRONGHOLD.length * (1 + k / 2)
    centre = (dx, 0.0)
    hull = np.vstack([_square((dx - shift / 2, 0.0), side), _square((dx + shift / 2, 0.0), side)])
    hull = hull[[0, 5, 6, 3]]  # the swept outline: the left square's left side, the right one's right side
    top = _square((dx + shift / 2, 0.0), STRONGHOLD.length * (1 + k) - top_short_mm)
    blob = Blob(
        owner="red",
        label=1,
        centroid_mm=centre,
        area_mm2=side * (side + shift),
        bbox_px=(0, 0, 1, 1),
        touches_other=False,
        hull_mm=hull,
        top_mm=top,
        mask=np.ones((1, 1), np.uint8),
        solidity=1.0,
        camera=np.eye(2) * camera_px_per_mm,
    )
    return blob, np.zeros(2), cam_h


def test_a_top_face_short_by_a_camera_pixel_counts_nothing_at_720p_but_counts_at_4k() -> None:
    errors = {}
    for name, px_per_mm in (("720p", 0.94), ("4K", 2.8)):
        blob, foot, cam_h = _stronghold_blob(1.0, px_per_mm)
        fits = fit_blob(blob, [STRONGHOLD, SMALL], foot, cam_h, PX_PER_MM)
        assert fits[0].hypothesis == STRONGHOLD
        errors[name] = fits[0].error_mm
    assert errors["720p"] < 0.1, errors  # 1.0 mm short, a 720p pixel spans 1.06 mm
    assert 0.5 < errors["4K"] < 0.8, errors  # 1.0 mm short less a 4K pixel's 0.36 mm


def test_the_fit_limit_grows_only_where_camera_pixels_are_coarse() -> None:
    fine, _, _ = _stronghold_blob(0.0, 2.8)
    coarse, _, _ = _stronghold_blob(0.0, 0.94)
    assert blob_mm_per_px(coarse) == 1 / 0.94
    assert fit_limit(fine) == 3.6
    assert abs(fit_limit(coarse) - (3.6 + 2.0 * (1 / 0.94 - 0.7))) < 1e-9


def test_the_camera_sampling_is_the_homographys_derivative() -> None:
    H = np.array([[1.9, 0.2, 300.0], [-0.1, 1.7, 120.0], [0.0004, 0.0002, 1.0]])

    def project(x: float, y: float) -> np.ndarray:
        v = H @ np.array([x, y, 1.0])
        return v[:2] / v[2]

    at, e = (250.0, 410.0), 1e-4
    numeric = np.column_stack(
        [
            (project(at[0] + e, at[1]) - project(at[0] - e, at[1])) / (2 * e),
            (project(at[0], at[1] + e) - project(at[0], at[1] - e)) / (2 * e),
        ]
    )
    assert np.allclose(homography_jacobian(H, at), numeric, rtol=1e-6)
