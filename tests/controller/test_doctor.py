"""`smart-table doctor` with each part missing or broken: no broker, wrong password, a broker without
the project's ACL, no serial device, wrong permissions, a device that never answers HELLO, the firmware
simulator answering it, a camera giving black frames, a rendered board with its markers, an unbuilt
display; and `smart-table run` printing doctor's line instead of a traceback."""

from __future__ import annotations

import json
import os
import pty
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import cv2
import numpy as np

from controller import config, doctor
from controller.testing import MOSQUITTO, free_port, running_mosquitto
from firmware_bridge.sim import FirmwareSim
from tests.support.cli import smart_table

REPO = Path(__file__).resolve().parents[2]
ENV = {**os.environ, "PYTHONPATH": str(REPO), "OPENCV_LOG_LEVEL": "ERROR"}


def st(*args: str, cwd: Path | None = None, env: dict[str, str] | None = None, timeout: float = 60):
    return smart_table(*args, cwd=cwd, env=env or ENV, timeout=timeout)


def write_config(path: Path, **sections: dict[str, object]) -> Path:
    lines = []
    for section, values in sections.items():
        lines.append(f"[{section}]")
        lines += [f"{k} = {json.dumps(v)}" for k, v in values.items()]
    path.write_text("\n".join(lines) + "\n")
    return path


def lines_of(out: str, name: str) -> list[str]:
    return [ln for ln in out.splitlines() if ln[6:].split(" ", 1)[0] == name]


# -- broker ------------------------------------------------------------------------------------------------


def test_no_broker(tmp_path):
    cfg = write_config(tmp_path / "t.toml", mqtt={"embedded": False, "port": free_port(), "password": "x"})
    r = st("doctor", "--config", str(cfg), "--only", "broker", "--timeout", "2")
    assert r.returncode == 1, r.stdout + r.stderr
    (line,) = lines_of(r.stdout, "broker")
    assert (
        line.startswith("FAIL") and "no MQTT broker answers" in line and "systemctl start mosquitto" in line
    )
    assert "Traceback" not in r.stderr


def test_mosquitto_with_the_right_and_a_wrong_password(tmp_path):
    with running_mosquitto() as broker:
        good = write_config(
            tmp_path / "good.toml",
            mqtt={
                "embedded": False,
                "port": broker.port,
                "ws_port": broker.ws_port,
                "password": broker.users["controller"],
            },
        )
        r = st("doctor", "--config", str(good), "--only", "broker")
        assert r.returncode == 0, r.stdout
        for name in ("broker", "acl", "websocket"):
            (line,) = lines_of(r.stdout, name)
            assert line.startswith("OK"), line
        bad = write_config(
            tmp_path / "bad.toml",
            mqtt={"embedded": False, "port": broker.port, "ws_port": broker.ws_port, "password": "not-it"},
        )
        r = st("doctor", "--config", str(bad), "--only", "broker")
    assert r.returncode == 1
    (line,) = lines_of(r.stdout, "broker")
    assert line.startswith("FAIL") and "refuses the controller's login" in line and "mosquitto_passwd" in line
    assert lines_of(r.stdout, "acl")[0].startswith("OK")  # the broker itself is configured right


def test_broker_without_the_acl_and_without_websockets(tmp_path):
    """A stock Mosquitto letting anyone in: every tablet could read every player's secrets."""
    port = free_port()
    conf = tmp_path / "m.conf"
    conf.write_text(
        f"listener {port} 127.0.0.1\nallow_anonymous true\n" + ("user root\n" if os.geteuid() == 0 else "")
    )
    proc = subprocess.Popen(
        [MOSQUITTO, "-c", str(conf)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        deadline = time.monotonic() + 10
        while True:
            try:
                doctor.mqtt_connect("127.0.0.1", port, None, None, 1)
                break
            except OSError:
                assert time.monotonic() < deadline, "mosquitto did not start"
                time.sleep(0.05)
        cfg = write_config(
            tmp_path / "t.toml", mqtt={"embedded": False, "port": port, "ws_port": free_port()}
        )
        r = st("doctor", "--config", str(cfg), "--only", "broker", "--timeout", "2")
    finally:
        proc.terminate()
        proc.wait(10)
    assert r.returncode == 1
    (acl,) = lines_of(r.stdout, "acl")
    assert acl.startswith("FAIL") and "accepts anonymous and a wrong password" in acl
    (ws,) = lines_of(r.stdout, "websocket")
    assert ws.startswith("FAIL") and "nothing answers on the tablets' WebSocket port" in ws


# -- serial port and firmware -------------------------------------------------------------------------------


def test_no_serial_device(tmp_path):
    r = st("doctor", "--only", "serial", "--serial", str(tmp_path / "battle-tower"))
    assert r.returncode == 1
    (line,) = lines_of(r.stdout, "serial")
    assert line.startswith("FAIL") and "no serial device at" in line and "plug the board in" in line


def test_not_a_serial_device(tmp_path):
    (tmp_path / "plain").write_text("")
    r = st("doctor", "--only", "serial", "--serial", str(tmp_path / "plain"))
    assert r.returncode == 1 and "not a serial port" in lines_of(r.stdout, "serial")[0]


def test_serial_device_without_permission(tmp_path):
    """A real permission problem: the device is only the owner's (root's when the tests run as root),
    the check runs as another user (nobody) when we are root."""
    master, slave = pty.openpty()
    path = os.ttyname(slave)
    cfg = config.defaults()
    cfg.set("bridge.serial_port", path)
    try:
        os.chmod(path, 0o600)
        if os.geteuid() != 0:
            os.chmod(path, 0o000)
            checks = doctor.check_serial(cfg, preflight=True)
        else:
            read, write = os.pipe()
            pid = os.fork()
            if pid == 0:  # the child becomes nobody and reports the check's verdict
                try:
                    os.close(read)
                    os.setgroups([])
                    os.setgid(65534)
                    os.setuid(65534)
                    os.write(
                        write,
                        json.dumps([c.to_json() for c in doctor.check_serial(cfg, preflight=True)]).encode(),
                    )
                finally:
                    os._exit(0)
            os.close(write)
            data = b""
            while chunk := os.read(read, 65536):
                data += chunk
            os.close(read)
            os.waitpid(pid, 0)
            checks = [doctor.Check(**c) for c in json.loads(data)]
    finally:
        os.close(master)
        os.close(slave)
    (check,) = checks
    assert check.failed and "no permission to open" in check.line() and "dialout" in check.line()


def test_device_that_never_answers_hello(tmp_path):
    master, slave = pty.openpty()
    try:
        r = st("doctor", "--only", "serial", "--serial", os.ttyname(slave), "--timeout", "1")
    finally:
        os.close(master)
        os.close(slave)
    assert r.returncode == 1
    (line,) = lines_of(r.stdout, "firmware")
    assert line.startswith("FAIL") and "no HELLO came back within 1 s" in line and "flash" in line


def test_firmware_simulator_answers_hello(tmp_path):
    sim = FirmwareSim(link=str(tmp_path / "tower"), seed=3)
    path = sim.start()
    try:
        sim.drop({"red": 2})
        deadline = time.monotonic() + 10
        while sim.status()["last_seq"] < 1:
            assert time.monotonic() < deadline, "the simulator did not send its drops"
            time.sleep(0.01)
        # A long deadline for a loaded machine: the check returns as soon as HELLO comes.
        r = st("doctor", "--only", "serial", "--serial", path, "--timeout", "15")
        status = sim.status()
    finally:
        sim.stop()
    assert r.returncode == 0, r.stdout
    (line,) = lines_of(r.stdout, "firmware")
    assert line.startswith("OK") and "firmware 1.0.0, protocol 1" in line
    # Only HELLO_REQUEST was sent: the drops the device holds for the bridge are still unacknowledged.
    assert status["acked"] == 0 and status["unacked"] == status["last_seq"] >= 1


# -- camera --------------------------------------------------------------------------------------------------


def _video(path: Path, frames: list[np.ndarray], fps: float = 10.0) -> Path:
    h, w = frames[0].shape[:2]
    out = cv2.VideoWriter(str(path), cv2.VideoWriter.fourcc(*"MJPG"), fps, (w, h))
    for f in frames:
        out.write(f)
    out.release()
    assert path.stat().st_size > 0
    return path


def test_camera_giving_black_frames(tmp_path):
    video = _video(tmp_path / "black.avi", [np.zeros((480, 640, 3), np.uint8)] * 20)
    palette = tmp_path / "palette.json"
    palette.write_text("{}")  # the camera is needed once a palette is configured
    cfg = write_config(tmp_path / "t.toml", vision={"camera": str(video), "palette": str(palette)})
    r = st("doctor", "--config", str(cfg), "--only", "camera")
    assert r.returncode == 1, r.stdout
    assert lines_of(r.stdout, "camera")[0].startswith("OK") and "640x480, 10.0 fps (file)" in r.stdout
    (line,) = lines_of(r.stdout, "image")
    assert line.startswith("FAIL") and "frames are black" in line and "lens cap" in line
    # Without a palette the camera is not started: the same finding is a warning, doctor passes.
    cfg = write_config(tmp_path / "u.toml", vision={"camera": str(video)})
    r = st("doctor", "--config", str(cfg), "--only", "camera")
    assert r.returncode == 0 and lines_of(r.stdout, "image")[0].startswith("WARN")


def test_camera_seeing_the_rendered_board(tmp_path):
    from vision.battle_board.layout import default_layout
    from vision.synth.battle import light_session

    layout = default_layout()
    light = light_session(layout, 4242, (1280, 720))
    video = _video(tmp_path / "board.avi", [light.calibration] * 5, fps=30)
    checks = {c.name: c for c in doctor.check_camera(_cfg(vision={"camera": str(video)}))}
    assert checks["camera"].status == "ok" and "1280x720" in checks["camera"].detail
    assert checks["image"].status == "ok", checks["image"].line()
    assert checks["markers"].status == "ok", checks["markers"].line()
    # The same board out of focus: blurred, markers lost.
    blurred = cv2.GaussianBlur(light.calibration, (0, 0), 12)
    video = _video(tmp_path / "blur.avi", [blurred] * 5, fps=30)
    checks = {c.name: c for c in doctor.check_camera(_cfg(vision={"camera": str(video)}))}
    assert checks["image"].status == "warn" and "blurred" in checks["image"].detail
    assert checks["markers"].status != "ok"


def test_light_changed_since_the_colour_calibration(tmp_path):
    """The calibration image's own palette: the same light passes, the board at 60 % brightness warns."""
    from calibration.colors import learn_palette
    from vision.battle_board.layout import default_layout
    from vision.synth.battle import light_session

    layout = default_layout()
    light = light_session(layout, 4243, (1280, 720))
    palette = tmp_path / "palette.json"
    palette.write_text(json.dumps(learn_palette(light.calibration, layout).to_json()))
    same = _video(tmp_path / "same.avi", [light.calibration] * 3, fps=30)
    checks = {
        c.name: c for c in doctor.check_camera(_cfg(vision={"camera": str(same), "palette": str(palette)}))
    }
    assert checks["colours"].status == "ok" and "0.0 days old" in checks["colours"].detail
    assert checks["light"].status == "ok", checks["light"].line()
    dim = (light.calibration.astype(np.float32) * 0.6).astype(np.uint8)
    darker = _video(tmp_path / "dim.avi", [dim] * 3, fps=30)
    checks = {
        c.name: c for c in doctor.check_camera(_cfg(vision={"camera": str(darker), "palette": str(palette)}))
    }
    assert checks["markers"].status == "ok", checks["markers"].line()
    assert (
        checks["light"].status == "warn" and "darker than at the colour calibration" in checks["light"].detail
    )
    assert "calibrate colors" in checks["light"].fix


def test_missing_camera_source(tmp_path):
    checks = doctor.check_camera(_cfg(vision={"camera": str(tmp_path / "none.avi"), "palette": "p.json"}))
    assert checks[0].failed and "does not exist" in checks[0].detail


def _cfg(**sections: dict[str, object]) -> config.Config:
    cfg = config.defaults()
    for section, values in sections.items():
        for key, value in values.items():
            cfg.set(f"{section}.{key}", value)
    return cfg


# -- display, disk, clock, python ---------------------------------------------------------------------------


def test_unbuilt_display(tmp_path):
    """A checkout where `npm install` never ran: a copy of the package without node_modules."""
    parts = [d.name for d in REPO.iterdir() if (d / "__init__.py").exists() and d.name != "tests"]
    for part in parts:
        shutil.copytree(
            REPO / part, tmp_path / part, ignore=shutil.ignore_patterns("node_modules", "__pycache__")
        )
    r = st("doctor", "--only", "display", cwd=tmp_path, env={**ENV, "PYTHONPATH": str(tmp_path)})
    assert r.returncode == 1, r.stdout
    (line,) = lines_of(r.stdout, "display")
    assert line.startswith("FAIL") and "not built" in line and "npm install" in line
    r = st("doctor", "--only", "display")
    assert r.returncode == 0 and lines_of(r.stdout, "display")[0].startswith("OK")


def test_clock_behind_the_installation():
    (check,) = doctor.check_clock(now=1_000_000_000.0, timedatectl=lambda: "yes")  # 2001
    assert check.failed and "2001-09-09" in check.detail and "NTP" in check.fix
    (check,) = doctor.check_clock(timedatectl=lambda: "no")
    assert check.status == "warn" and "not synchronised" in check.detail
    (check,) = doctor.check_clock(timedatectl=lambda: "yes")
    assert check.status == "ok" and "NTP synchronised" in check.detail


def test_whole_doctor_and_its_json(tmp_path):
    cfg = write_config(
        tmp_path / "t.toml",
        bridge={"enabled": False},
        vision={"enabled": False},
        mqtt={"port": free_port(), "ws_port": free_port()},
        table={"database": "g.db"},
    )
    r = st("doctor", "--config", str(cfg))
    assert r.returncode == 0, r.stdout
    names = [ln[6:].split(" ", 1)[0] for ln in r.stdout.splitlines()[:-1]]
    assert names == ["python", "packages", "config", "broker", "display", "serial", "camera", "disk", "clock"]
    r = st("doctor", "--config", str(cfg), "--json", "--only", "python")
    rows = [json.loads(ln) for ln in r.stdout.splitlines()]
    assert {row["name"] for row in rows} == {"python", "packages"} and all(
        row["status"] == "ok" for row in rows
    )


def test_bad_config_is_one_doctor_line(tmp_path):
    cfg = write_config(tmp_path / "t.toml", mqtt={"protocol": "4"})
    r = st("doctor", "--config", str(cfg))
    assert r.returncode == 1 and "Traceback" not in r.stderr
    (line,) = r.stdout.splitlines()
    assert (
        line.startswith("FAIL  config") and str(cfg) in line and "mqtt.protocol" in line and '"3.1.1"' in line
    )


# -- smart-table run -----------------------------------------------------------------------------------------


def test_run_prints_doctors_line_when_the_broker_is_missing(tmp_path):
    cfg = write_config(
        tmp_path / "t.toml",
        mqtt={"embedded": False, "port": free_port(), "password": "x"},
        bridge={"enabled": False},
        vision={"enabled": False},
        display={"port": free_port()},
        table={"database": "g.db"},
    )
    r = st("run", "--config", str(cfg), timeout=60)
    assert r.returncode == 1 and "Traceback" not in r.stderr, r.stderr
    assert "FAIL  broker    no MQTT broker answers" in r.stderr and "systemctl start mosquitto" in r.stderr


def test_run_prints_doctors_line_for_a_missing_tower_and_runs_on(tmp_path):
    cfg = write_config(
        tmp_path / "t.toml",
        mqtt={"port": free_port(), "ws_port": free_port()},
        bridge={
            "serial_port": str(tmp_path / "no-tower"),
            "events": f"tcp://127.0.0.1:{free_port()}",
            "commands": f"tcp://127.0.0.1:{free_port()}",
        },
        vision={"enabled": False},
        display={"port": free_port()},
        table={"database": "g.db"},
    )
    proc = subprocess.Popen(
        [sys.executable, "-m", "smart_table", "run", "--config", str(cfg)],
        cwd=REPO,
        env=ENV,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    seen: list[str] = []
    try:
        deadline = time.monotonic() + 60
        assert proc.stdout is not None
        while time.monotonic() < deadline:
            line = proc.stdout.readline()
            if not line:
                break
            seen.append(line)
            if "started controller" in line:
                break
    finally:
        proc.send_signal(signal.SIGTERM)
        rest, _ = proc.communicate(timeout=30)
    text = "".join(seen) + rest
    assert "FAIL  serial    bridge.serial_port" in text and "no serial device at" in text, text
    assert "started controller" in text and "Traceback" not in text


def test_an_embedded_brokers_taken_port_is_named(tmp_path):
    """The doctor checks the embedded broker's ports as `smart-table run` will before starting it
    (controller.supervisor.port_free): a port another program listens on is named, a free one is not."""
    import socket

    taken = socket.socket()
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    try:
        cfg = config.defaults()
        cfg.set("mqtt.host", "127.0.0.1")
        cfg.set("mqtt.port", taken.getsockname()[1])
        cfg.set("mqtt.ws_port", free_port())
        checks = doctor.check_broker(cfg)
    finally:
        taken.close()
    assert checks[0].status == "warn", [c.to_json() for c in checks]
    detail = checks[0].detail
    assert f"embedded broker: port {cfg['mqtt']['port']} on 127.0.0.1 is taken" in detail, detail
