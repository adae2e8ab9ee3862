"""Camera calibration from rendered ChArUco views with a known lens, and colour-palette round trips."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import cv2
import numpy as np

from calibration.camera import CharucoSpec, calibrate_from_images
from vision.palette import load_palette
from vision.synth.common import add_noise, apply_distortion, look_at_camera, project_texture

REPO = Path(__file__).resolve().parents[2]


def _views(n: int, k1: float) -> tuple[list[tuple[str, np.ndarray]], np.ndarray]:
    spec = CharucoSpec()
    px_per_mm = 4.0
    margin = 10.0
    board = cv2.cvtColor(spec.image(px_per_mm, margin), cv2.COLOR_GRAY2BGR)
    # The printed board's origin is its top-left margin corner: shift so board mm match the texture.
    w_mm, h_mm = board.shape[1] / px_per_mm, board.shape[0] / px_per_mm
    rng = np.random.default_rng(5)
    views: list[tuple[str, np.ndarray]] = []
    K = np.eye(3)  # replaced by the last view's camera (n >= 1)
    for i in range(n):
        cam = look_at_camera(
            (w_mm / 2 + rng.normal(0, 25), h_mm / 2 + rng.normal(0, 20)),
            rng.uniform(380, 520),
            rng.uniform(10, 40),
            rng.uniform(0, 360),
            rng.normal(0, 10),
            62.0,
            (960, 540),
            dist=(k1, 0.0, 0.0, 0.0, 0.0),
        )
        img = apply_distortion(cam, project_texture(cam, board, px_per_mm, background=(90, 90, 90)))
        views.append((f"v{i}.png", add_noise(img, rng, 1.5)))
        K = cam.K
    return views, K


def test_charuco_recovers_focal_length_and_distortion() -> None:
    views, K = _views(10, k1=-0.12)
    result = calibrate_from_images(views)
    assert result["rms_px"] < 1.0
    fx = result["K"][0][0]
    assert abs(fx - K[0, 0]) / K[0, 0] < 0.03, (fx, K[0, 0])
    assert abs(result["dist"][0] - (-0.12)) < 0.05
    assert len(result["views_used"]) >= 8


def test_calibrate_camera_command(tmp_path: Path) -> None:
    views, _ = _views(6, k1=0.0)
    for name, img in views:
        cv2.imwrite(str(tmp_path / name), img)
    cv2.imwrite(str(tmp_path / "blank.png"), np.full((540, 960, 3), 128, np.uint8))
    out = tmp_path / "camera.json"
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "smart_table",
            "calibrate",
            "camera",
            "--images",
            str(tmp_path),
            "--out",
            str(out),
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    summary = json.loads(proc.stdout)
    assert summary["views_used"] == 6 and summary["views_rejected"] == 1
    cam = json.loads(out.read_text())
    assert cam["schema"] == "smart-table/camera@1" and cam["image_size"] == [960, 540]


def test_too_few_views_is_one_clear_line(tmp_path: Path) -> None:
    cv2.imwrite(str(tmp_path / "blank.png"), np.full((100, 100, 3), 128, np.uint8))
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "smart_table",
            "calibrate",
            "camera",
            "--images",
            str(tmp_path),
            "--out",
            str(tmp_path / "c.json"),
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode != 0 and proc.stderr.count("\n") == 1 and "usable views" in proc.stderr


def test_palette_round_trips_through_json(session) -> None:
    data = json.loads(json.dumps(session.palette.to_json()))
    again = load_palette(data)
    assert again.names == session.palette.names
    assert np.array_equal(again.lut(), session.palette.lut())
    assert again.reference is not None and again.reference.shape == session.palette.reference.shape
