"""Geometry: focal length from a homography, pose, parallax of a top face (no rendering needed)."""

from __future__ import annotations

import numpy as np
import pytest

from vision.geometry import (
    GeometryError,
    aruco_dictionary,
    estimate_focal,
    parallax_to_footprint,
    pose_from_points,
)
from vision.synth.common import look_at_camera


def test_focal_from_a_tilted_view_and_none_from_a_square_on_one() -> None:
    cam = look_at_camera((150, 100), 700, 25, 30, 0, 60.0, (1920, 1080))
    f = estimate_focal(cam.plane_homography(0.0), (960, 540))
    assert f is not None and abs(f - cam.K[0, 0]) / cam.K[0, 0] < 0.01
    flat = look_at_camera((150, 100), 700, 0.0, 0, 0, 60.0, (1920, 1080))
    assert estimate_focal(flat.plane_homography(0.0), (960, 540)) is None


def test_parallax_moves_a_top_face_onto_its_footprint() -> None:
    cam = look_at_camera((150, 100), 600, 20, 200, 3, 65.0, (1920, 1080))
    board = np.array([[0, 0], [288, 0], [288, 208], [0, 208], [144, 104], [20, 180]], float)
    pose = pose_from_points(board, cam.project(np.column_stack([board, np.zeros(6)])), cam.K)
    assert abs(pose.height_mm - (-cam.center_world[2])) < 0.5
    footprint = np.array([[250.0, 30.0], [40.0, 190.0]])
    top = np.column_stack([footprint, np.full(2, -10.0)])  # 10 mm up
    seen_on_board = np.linalg.solve(
        cam.plane_homography(0.0), np.column_stack([cam.project(top), np.ones(2)]).T
    ).T
    seen_on_board = seen_on_board[:, :2] / seen_on_board[:, 2:]
    assert np.linalg.norm(seen_on_board - footprint, axis=1).min() > 2.0  # parallax is real
    corrected = parallax_to_footprint(seen_on_board, pose, 10.0)
    assert np.abs(corrected - footprint).max() < 0.05


def test_unknown_dictionary_is_named() -> None:
    with pytest.raises(GeometryError, match="DICT_4X4_50"):
        aruco_dictionary("DICT_4X4_51")
