"""The cameras' calibrations reach `smart-table run`: vision.table_calibration and vision.sea_map (paths
beside the config; sea-map-<side>.png beside it by default) become the `--table-calibration` of
`vision ships-watch` and the `--bare-map` of `vision regions-watch`; an unusable file is one sentence at
start and the camera starts without it."""

from __future__ import annotations

import io
import json
import socket
import subprocess
from pathlib import Path

import cv2
import numpy as np
import pytest

from controller import config
from controller.camera_calibrations import sea_map, table_calibration
from controller.supervisor import Supervisor
from vision.ocean_grid.calibration import BackModel, TableCalibration
from vision.sea_regions.detection import top_size
from vision.sea_regions.layout import default_layout_path, load_sea_layout

REPO = Path(__file__).resolve().parents[2]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _table_calibration(path: Path) -> Path:
    """A table calibration as `calibrate table --out` writes it (its own class saves it)."""
    TableCalibration(BackModel(np.array([0.3, -0.2]), np.eye(2) * 0.01), np.ones(3), True).save(path)
    return path


def _bare_map(path: Path, side: str, size: tuple[int, int] | None = None) -> Path:
    """A PNG of the size `calibrate sea-map` writes for this side (or `size`)."""
    w, h = size or top_size(load_sea_layout(default_layout_path(side)))
    cv2.imwrite(str(path), np.full((h, w, 3), 128, np.uint8))
    return path


def _config(tmp_path: Path, game: str, vision: str = "") -> config.Config:
    path = tmp_path / "table.toml"
    path.write_text(
        f'[table]\ngame = "{game}"\nplayers = ["red", "yellow"]\ndatabase = "t.db"\n'
        f'[vision]\nships_camera = "{tmp_path / "table.avi"}"\nships_events = "tcp://127.0.0.1:{_free_port()}"\n'
        + vision
    )
    return config.load(path)


def _children(cfg: config.Config) -> tuple[dict[str, list[str]], str]:
    out = io.StringIO()
    s = Supervisor(cfg, simulate=False, limits={}, out=out)
    s._plan_cameras()
    # Only what is said about the ocean/map camera (the battle board camera's missing palette is not ours).
    said = "".join(
        x for x in out.getvalue().splitlines(True) if not x.startswith("vision: no vision.palette")
    )
    return {c.name: c.argv for c in s.children}, said


def test_the_keys_are_paths_beside_the_config(tmp_path) -> None:
    cfg = _config(
        tmp_path, "dead-reckoning", 'table_calibration = "cal/table.json"\nsea_map = "/abs/m.png"\n'
    )
    assert cfg.table_calibration_path() == tmp_path / "cal" / "table.json"
    assert cfg.sea_map_path("2") == Path("/abs/m.png")
    empty = _config(tmp_path, "dead-reckoning")
    assert empty["vision"]["table_calibration"] == "" and empty.table_calibration_path() is None
    # Absent key: `calibrate sea-map --config` saves sea-map-<side>.png beside the config; used where it is.
    assert empty.sea_map_path("2") is None
    _bare_map(tmp_path / "sea-map-2.png", "2")
    assert empty.sea_map_path("2") == tmp_path / "sea-map-2.png" and empty.sea_map_path("4") is None
    with pytest.raises(config.ConfigError, match="vision.sea_map must be str"):
        _config(tmp_path, "dead-reckoning", "sea_map = 4\n")


def test_ships_watch_gets_the_table_calibration(tmp_path) -> None:
    _table_calibration(tmp_path / "table-calibration.json")
    cfg = _config(tmp_path, "dead-reckoning", 'table_calibration = "table-calibration.json"\n')
    children, said = _children(cfg)
    argv = children["ships-camera"]
    assert argv[argv.index("--table-calibration") + 1] == str(tmp_path / "table-calibration.json")
    assert said == ""
    assert "--table-calibration" not in _children(_config(tmp_path, "dead-reckoning"))[0]["ships-camera"]


@pytest.mark.parametrize(
    ("content", "words"),
    [(None, "cannot read table calibration"), ("{}", "is not a table calibration")],
)
def test_an_unusable_table_calibration_is_one_sentence_and_the_camera_starts_without_it(
    tmp_path, content, words
) -> None:
    cal = tmp_path / "table-calibration.json"
    if content is not None:
        cal.write_text(content)
    children, said = _children(_config(tmp_path, "dead-reckoning", f'table_calibration = "{cal}"\n'))
    assert "--table-calibration" not in children["ships-camera"]
    assert len(said.strip().splitlines()) == 1
    assert said.startswith("ships-camera: vision.table_calibration:") and words in said
    assert "calibrate table" in said and "the camera starts without it" in said


def test_regions_watch_gets_the_bare_map_of_the_side_the_seats_play(tmp_path) -> None:
    _bare_map(tmp_path / "sea-map-2.png", "2")
    children, said = _children(_config(tmp_path, "great-sea"))
    argv = children["map-camera"]
    assert argv[argv.index("--layout") + 1].endswith("great-sea-2.json")
    assert argv[argv.index("--bare-map") + 1] == str(tmp_path / "sea-map-2.png") and said == ""
    # A named one wins over the default file.
    _bare_map(tmp_path / "other.png", "2")
    argv = _children(_config(tmp_path, "great-sea", 'sea_map = "other.png"\n'))[0]["map-camera"]
    assert argv[argv.index("--bare-map") + 1] == str(tmp_path / "other.png")


@pytest.mark.parametrize(
    ("make", "words"),
    [
        (None, "does not exist: run `smart-table calibrate sea-map` first"),
        ("text", "is not an image"),
        ("4", "it was taken for another layout"),  # the 4-player side's map on a 2-seat table
    ],
)
def test_an_unusable_sea_map_is_one_sentence_and_the_camera_starts_without_it(tmp_path, make, words) -> None:
    m = tmp_path / "map.png"
    if make == "text":
        m.write_text("not a png")
    elif make == "4":
        _bare_map(m, "4")
    children, said = _children(_config(tmp_path, "great-sea", 'sea_map = "map.png"\n'))
    assert "--bare-map" not in children["map-camera"]
    assert len(said.strip().splitlines()) == 1
    assert said.startswith("map-camera: vision.sea_map: bare map") and words in said, said


def _video(path: Path, frames: int = 3) -> Path:
    out = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"MJPG"), 5, (320, 240))
    for _ in range(frames):
        out.write(np.full((240, 320, 3), 90, np.uint8))
    out.release()
    return path


def test_the_ships_camera_child_started_as_planned_reads_the_calibration(tmp_path) -> None:
    """The planned ships-watch command itself, run: it takes the calibration file; the same command with
    the file spoilt after the plan stops with the loader's one line, so the flag reached the child."""
    _video(tmp_path / "table.avi")
    cal = _table_calibration(tmp_path / "table-calibration.json")
    argv = _children(_config(tmp_path, "dead-reckoning", 'table_calibration = "table-calibration.json"\n'))[
        0
    ]["ships-camera"]
    argv += ["--max-frames", "3"]
    ok = subprocess.run(argv, cwd=REPO, capture_output=True, text=True, timeout=120)
    assert ok.returncode == 0, ok.stderr
    assert "published 0 settled readings" in ok.stderr
    cal.write_text("{}")
    bad = subprocess.run(argv, cwd=REPO, capture_output=True, text=True, timeout=120)
    assert bad.returncode != 0 and len(bad.stderr.strip().splitlines()) == 1, bad.stderr
    assert "is not a table calibration" in bad.stderr


def test_the_calibration_helpers_say_nothing_without_a_key(tmp_path) -> None:
    cfg = _config(tmp_path, "great-sea")
    assert table_calibration(cfg) == (None, None) and sea_map(cfg) == (None, None)


def test_doctor_names_an_unusable_calibration_with_its_key(tmp_path) -> None:
    from controller.doctor import check_table_camera_calibration

    (tmp_path / "cal.json").write_text("[]")
    [check] = check_table_camera_calibration(
        _config(tmp_path, "dead-reckoning", 'table_calibration = "cal.json"\n')
    )
    assert check.name == "ocean-cal" and check.failed and "vision.table_calibration" in check.line()
    assert "is not a table calibration" in check.detail and check.line().count("\n") == 0
    _bare_map(tmp_path / "sea-map-2.png", "2")
    [check] = check_table_camera_calibration(_config(tmp_path, "great-sea"))
    assert check.status == "ok" and str(tmp_path / "sea-map-2.png") in check.detail
    assert check_table_camera_calibration(_config(tmp_path, "dead-reckoning")) == []


def test_the_battle_camera_gets_its_palette_and_layout_beside_the_config(tmp_path, monkeypatch) -> None:
    """vision.palette and vision.layout are paths beside the config as vision.table_calibration is: the
    planned `vision watch` names them so, whatever folder `smart-table run` was started in."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    cfg = _config(tmp_path, "dead-reckoning", 'palette = "cal/palette.json"\nlayout = "board.json"\n')
    assert cfg.palette_path() == tmp_path / "cal" / "palette.json"
    assert cfg.layout_path() == tmp_path / "board.json"
    argv = _children(cfg)[0]["vision"]
    assert argv[argv.index("--palette") + 1] == str(tmp_path / "cal" / "palette.json")
    assert argv[argv.index("--layout") + 1] == str(tmp_path / "board.json")
    # Absolute paths stay as written; no layout is vision's default one.
    cfg = _config(tmp_path, "dead-reckoning", 'palette = "/abs/palette.json"\n')
    argv = _children(cfg)[0]["vision"]
    assert argv[argv.index("--palette") + 1] == "/abs/palette.json"
    assert argv[argv.index("--layout") + 1].endswith("battle-board.json") and cfg.layout_path() is None
    assert (
        "vision" not in _children(_config(tmp_path, "dead-reckoning"))[0]
        and _config(tmp_path, "dead-reckoning").palette_path() is None
    )


def test_the_controller_child_gets_the_config_files_where_they_are(tmp_path, monkeypatch) -> None:
    """The controller process gets the config as JSON, without its file, in the folder `run` was started
    in: every key naming a file reaches it beside the config (the game log was opened in the start folder)."""
    monkeypatch.chdir(REPO)
    cfg = _config(tmp_path, "dead-reckoning", 'palette = "palette.json"\ntable_calibration = "/abs/t.json"\n')
    s = Supervisor(cfg, simulate=False, limits={}, out=io.StringIO())
    s._plan_controller()
    [child] = [c for c in s.children if c.name == "controller"]
    assert child.stdin is not None
    sent = json.loads(child.stdin)
    assert sent["table"]["database"] == str(tmp_path / "t.db") == str(cfg.database_path())
    assert sent["mqtt"]["password_file"] == str(tmp_path / "tablets.passwd")
    assert sent["vision"]["palette"] == str(tmp_path / "palette.json")
    assert sent["vision"]["table_calibration"] == "/abs/t.json"
    assert sent["vision"]["layout"] == "" and sent["vision"]["sea_map"] == ""  # unset stays unset
    # The config itself is unchanged (doctor and the other children read it as written).
    assert cfg["table"]["database"] == "t.db" and cfg["vision"]["palette"] == "palette.json"


def test_the_battle_camera_child_started_as_planned_reads_the_palette_beside_the_config(tmp_path) -> None:
    """The planned `vision watch` itself, run in another folder than the config's: it loads the palette
    named relative to the config (it looked in its own folder before, and stopped: no such file)."""
    from calibration.colors import learn_palette
    from vision.battle_board.layout import default_layout
    from vision.synth.battle import light_session

    layout = default_layout()
    light = light_session(layout, 4243, (640, 360))
    (tmp_path / "palette.json").write_text(json.dumps(learn_palette(light.calibration, layout).to_json()))
    video = tmp_path / "board.avi"
    out = cv2.VideoWriter(str(video), cv2.VideoWriter.fourcc(*"MJPG"), 5, (640, 360))
    for _ in range(3):
        out.write(light.calibration)
    out.release()
    cfg = _config(
        tmp_path,
        "dead-reckoning",
        f'camera = "{video}"\npalette = "palette.json"\nevents = "tcp://127.0.0.1:{_free_port()}"\n',
    )
    argv = _children(cfg)[0]["vision"] + ["--max-frames", "3", "--start-delay", "0"]
    run = subprocess.run(argv, cwd=REPO, capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
