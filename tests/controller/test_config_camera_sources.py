"""A camera key naming a relative file (a video, an image folder) is read beside the config, as every other
file key is (controller/config.py `CAMERA_KEYS`, `Config.camera_source`); a device index, a device path, a
stream URL or the Pi camera is left as written. Before, `smart-table run` started in another folder handed
`vision watch` the relative file as written, and it looked for it in the start folder: "does not exist"."""

from __future__ import annotations

import io
import json
import socket
from pathlib import Path

import cv2
import numpy as np
import pytest

from controller import config, doctor
from controller.supervisor import Supervisor


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _video(path: Path, frames: int = 4) -> Path:
    """A real (tiny) video file OpenCV can read back."""
    path.parent.mkdir(parents=True, exist_ok=True)
    out = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"MJPG"), 10.0, (64, 48))
    for i in range(frames):
        out.write(np.full((48, 64, 3), 100 + 10 * i, np.uint8))
    out.release()
    assert path.is_file() and path.stat().st_size > 0
    return path


def _config(folder: Path, camera: str, ships_camera: str) -> config.Config:
    path = folder / "table.toml"
    path.write_text(
        '[table]\nplayers = ["red", "yellow"]\n'
        f'[vision]\ncamera = "{camera}"\nships_camera = "{ships_camera}"\npalette = "palette.json"\n'
        f'events = "tcp://127.0.0.1:{_free_port()}"\nships_events = "tcp://127.0.0.1:{_free_port()}"\n'
    )
    return config.load(path)


def _planned(cfg: config.Config) -> dict[str, list[str]]:
    s = Supervisor(cfg, simulate=False, limits={}, out=io.StringIO())
    s._plan_cameras()
    return {c.name: c.argv for c in s.children}


def _after(argv: list[str], flag: str) -> str:
    return argv[argv.index(flag) + 1]


def test_a_relative_camera_file_is_read_beside_the_config_from_another_folder(tmp_path, monkeypatch) -> None:
    table = tmp_path / "table"
    _video(table / "clips" / "board.avi")
    (table / "frames").mkdir()
    cv2.imwrite(str(table / "frames" / "0001.png"), np.full((48, 64, 3), 120, np.uint8))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    cfg = _config(table, "clips/board.avi", "frames")

    assert cfg.camera_source("vision.camera") == str(table / "clips" / "board.avi")
    children = _planned(cfg)
    assert _after(children["vision"], "--video") == str(table / "clips" / "board.avi")
    assert _after(children["ships-camera"], "--video") == str(table / "frames")
    # The controller child gets them resolved too; the config itself stays as written.
    sent = cfg.with_paths_resolved()
    assert sent["vision"]["camera"] == str(table / "clips" / "board.avi")
    assert sent["vision"]["ships_camera"] == str(table / "frames")
    assert cfg["vision"]["camera"] == "clips/board.avi"

    # `run`'s preflight and `doctor` open the file beside the config, from this other folder.
    assert [c for c in doctor.preflight(cfg, simulate=False) if c.name == "camera"] == []
    [opened, *_] = doctor.check_camera(cfg, frames=3)
    assert opened.name == "camera" and opened.status == "ok", opened
    assert str(table / "clips" / "board.avi") in opened.detail
    # Every camera key is checked (config.CAMERA_KEYS), not only vision.camera: the table camera too.
    checks = {c.name: c for c in doctor.check_camera(cfg, frames=3)}
    table_cam = checks["ships-camera"]
    assert table_cam.status == "ok" and f"vision.ships_camera {table / 'frames'}: 64x48" in table_cam.detail
    assert checks["ships-image"].status in ("ok", "warn"), checks["ships-image"].line()


def test_a_missing_relative_camera_file_is_said_with_the_place_looked_at(tmp_path, monkeypatch) -> None:
    monkeypatch.chdir(tmp_path)
    table = tmp_path / "table"
    table.mkdir()
    cfg = _config(table, "gone.avi", "")
    [fail] = [c for c in doctor.preflight(cfg, simulate=False) if c.name == "camera"]
    assert fail.status == "fail" and f"vision.camera {table / 'gone.avi'} does not exist" in fail.detail


def test_a_table_camera_that_cannot_be_read_fails_doctor_and_run_s_preflight(tmp_path) -> None:
    """`vision.ships_camera` is started whenever it is set: doctor opens it as it opens vision.camera, and a
    missing file fails both doctor and `smart-table run`'s preflight, naming the key and the place."""
    table = tmp_path / "table"
    _video(table / "board.avi")
    cfg = _config(table, "board.avi", "phone/gone.mp4")
    [fail] = [c for c in doctor.preflight(cfg, simulate=False) if c.name == "ships-camera"]
    assert fail.failed and f"vision.ships_camera {table / 'phone/gone.mp4'} does not exist" in fail.detail
    checks = {c.name: c for c in doctor.check_camera(cfg, frames=3)}
    assert checks["camera"].status == "ok"
    assert checks["ships-camera"].failed and "vision.ships_camera" in checks["ships-camera"].detail
    assert "ships-image" not in checks
    # Black frames on the table camera: the lens cap line, as for the board's camera.
    black = cv2.VideoWriter(str(table / "black.avi"), cv2.VideoWriter.fourcc(*"MJPG"), 10.0, (64, 48))
    for _ in range(4):
        black.write(np.zeros((48, 64, 3), np.uint8))
    black.release()
    cfg = _config(table, "board.avi", "black.avi")
    checks = {c.name: c for c in doctor.check_camera(cfg, frames=3)}
    assert checks["ships-camera"].status == "ok"
    assert checks["ships-image"].failed and "lens cap" in checks["ships-image"].fix


@pytest.mark.parametrize(
    "source",
    [
        "0",
        "2",
        "/dev/video0",
        "rtsp://127.0.0.1:8554/table",
        "rtsps://cam.local/x",
        "http://192.168.1.20:8080/video",
        "https://cam.local/mjpeg",
        "picamera2",
        "picamera2:1",
    ],
)
def test_a_device_url_or_pi_camera_is_left_as_written(tmp_path, monkeypatch, source: str) -> None:
    monkeypatch.chdir(tmp_path)
    table = tmp_path / "table"
    table.mkdir()
    cfg = _config(table, source, source)
    assert cfg.camera_source("vision.camera") == source
    assert cfg.camera_source("vision.ships_camera") == source
    sent = cfg.with_paths_resolved().to_json()
    assert (sent["vision"]["camera"], sent["vision"]["ships_camera"]) == (source, source)
    children = _planned(cfg)
    flag = "--camera" if source.isdigit() else "--video"
    assert _after(children["vision"], flag) == source
    assert _after(children["ships-camera"], flag) == source
    # Only a file or a device path is looked for before the start: a stream is opened by the camera itself.
    camera_fails = [c for c in doctor.preflight(cfg, simulate=False) if c.name == "camera"]
    assert camera_fails == [] or source == "/dev/video0" and not Path(source).exists()


def test_an_absolute_camera_file_and_an_unset_table_camera_stay_as_written(tmp_path) -> None:
    video = _video(tmp_path / "abs" / "board.avi")
    cfg = _config(tmp_path, str(video), "")
    assert cfg.camera_source("vision.camera") == str(video)
    assert cfg.camera_source("vision.ships_camera") == ""
    assert json.loads(json.dumps(cfg.with_paths_resolved().to_json()))["vision"]["ships_camera"] == ""
    assert "ships-camera" not in _planned(cfg)
