"""`smart-table doctor`: checks an installation part by part, one line per check with the fix.

Owns the checks (Python and packages, config, broker, display build, serial port and firmware HELLO,
camera, free disk, clock) and their one-line verdicts. Each check returns `Check` objects and never
raises: a part that is missing or broken is a line saying what was found and what to do. The same
lines are printed by `smart-table run` (`preflight`) when it cannot start a part. Holds no table logic.
"""

from __future__ import annotations

import base64
import importlib.metadata
import os
import shutil
import socket
import struct
import subprocess
import sys
import time
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from controller.config import CAMERA_KEYS, Config, is_file_source

REPO = Path(__file__).resolve().parents[1]

# Distribution name -> import name of the package's runtime dependencies (pyproject.toml).
DEPENDENCIES = {
    "numpy": "numpy",
    "opencv-python-headless": "cv2",
    "pyserial": "serial",
    "pyzmq": "zmq",
    "paho-mqtt": "paho.mqtt",
    "qrcode": "qrcode",
}
MIN_PYTHON = (3, 11)
# Thresholds: a frame darker than this mean grey level is "black"; sharpness is the variance of the
# Laplacian on a 640 px wide grey copy, below which ArUco and cube edges are unreliable.
BLACK_MEAN = 12.0
BLUR_VARIANCE = 40.0
CALIBRATION_OLD_DAYS = 90
# The board's median brightness now / at the colour calibration outside this range: the light changed.
LIGHT_RATIO = (0.8, 1.25)
DISK_FAIL_MB = 200
DISK_WARN_MB = 1024


@dataclass
class Check:
    """One verdict. status: ok | warn | fail | skip; `needed`: a fail makes doctor exit non-zero."""

    name: str
    status: str
    detail: str
    fix: str = ""
    needed: bool = True

    def line(self) -> str:
        text = f"{self.status.upper():<4}  {self.name:<9} {self.detail}"
        return text + (f"; fix: {self.fix}" if self.fix and self.status in ("fail", "warn") else "")

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @property
    def failed(self) -> bool:
        return self.status == "fail" and self.needed


def _ok(name: str, detail: str) -> Check:
    return Check(name, "ok", detail)


def _fail(name: str, detail: str, fix: str, needed: bool = True) -> Check:
    return Check(name, "fail", detail, fix, needed)


def _warn(name: str, detail: str, fix: str = "") -> Check:
    return Check(name, "warn", detail, fix, needed=False)


def _skip(name: str, detail: str) -> Check:
    return Check(name, "skip", detail, needed=False)


# -- Python and packages ----------------------------------------------------------------------------------


def check_python() -> list[Check]:
    v = sys.version_info
    venv = sys.prefix != sys.base_prefix
    where = f"{sys.executable}{' (virtual environment)' if venv else ''}"
    if v[:2] < MIN_PYTHON:
        out = [
            _fail(
                "python",
                f"Python {v.major}.{v.minor} at {where}; the table needs 3.11 or newer",
                "run `bash deploy/install-dev.sh` with Debian 12's python3, or install Python 3.11",
            )
        ]
    else:
        out = [_ok("python", f"Python {v.major}.{v.minor}.{v.micro} at {where}")]
    try:
        own = importlib.metadata.version("smart-table")
    except importlib.metadata.PackageNotFoundError:
        own = "not installed (running from the checkout)"
    missing, versions = [], []
    for dist, module in DEPENDENCIES.items():
        try:
            versions.append(f"{dist} {importlib.metadata.version(dist)}")
            __import__(module)
        except importlib.metadata.PackageNotFoundError:
            missing.append(dist)
        except ImportError as exc:
            missing.append(f"{dist} (installed but does not import: {exc})")
    if missing:
        out.append(
            _fail(
                "packages",
                f"smart-table {own}; missing: {', '.join(missing)}",
                "run `bash deploy/install-dev.sh` (it installs them into .venv)",
            )
        )
    else:
        out.append(_ok("packages", f"smart-table {own}; {', '.join(versions)}"))
    return out


# -- broker ------------------------------------------------------------------------------------------------


def mqtt_connect(
    host: str, port: int, username: str | None, password: str | None, timeout: float = 3.0
) -> int:
    """MQTT 3.1.1 CONNECT on a plain socket; the CONNACK return code (0 accepted, 4 bad user name or
    password, 5 not authorised). Raises OSError when nothing answers. Written by hand so a check is one
    round trip with a deadline, without a client library's threads and reconnect loops."""

    def s(text: str) -> bytes:
        raw = text.encode()
        return struct.pack("!H", len(raw)) + raw

    flags = 0x02 | (0x80 if username else 0) | (0x40 if username and password else 0)
    payload = s(f"smart-table-doctor-{os.getpid()}")
    if username:
        payload += s(username)
        if password:
            payload += s(password)
    body = s("MQTT") + bytes([4, flags]) + struct.pack("!H", 10) + payload
    length, rem = b"", len(body)
    while True:
        byte, rem = rem % 128, rem // 128
        length += bytes([byte | (0x80 if rem else 0)])
        if not rem:
            break
    with socket.create_connection((host, port), timeout=timeout) as sock:
        sock.settimeout(timeout)
        sock.sendall(b"\x10" + length + body)
        answer = b""
        while len(answer) < 4:
            chunk = sock.recv(4 - len(answer))
            if not chunk:
                raise ConnectionError("the broker closed the connection without a CONNACK")
            answer += chunk
        if answer[0] != 0x20:
            raise ConnectionError(f"not an MQTT broker (answered 0x{answer[0]:02x})")
        if answer[3] == 0:
            sock.sendall(b"\xe0\x00")  # DISCONNECT
        return answer[3]


def websocket_upgrade(host: str, port: int, timeout: float = 3.0) -> str:
    """The status line the MQTT WebSocket listener answers an upgrade with (101 when it speaks WebSockets)."""
    key = base64.b64encode(os.urandom(16)).decode()
    request = (
        f"GET /mqtt HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: mqtt\r\n\r\n"
    )
    with socket.create_connection((host, port), timeout=timeout) as sock:
        sock.settimeout(timeout)
        sock.sendall(request.encode())
        data = b""
        while b"\r\n" not in data and len(data) < 4096:
            chunk = sock.recv(1024)
            if not chunk:
                break
            data += chunk
    return data.split(b"\r\n", 1)[0].decode(errors="replace")


def check_broker(cfg: Config, timeout: float = 3.0) -> list[Check]:
    # Long on purpose: four checks in order (embedded broker, login, ACL, WebSocket), each one message long.
    m = cfg["mqtt"]
    host, port, ws = m["host"], m["port"], m["ws_port"]
    if m["embedded"]:
        from controller.broker import mosquitto_binary
        from controller.supervisor import port_free  # the check the supervisor makes before it starts one

        if mosquitto_binary() is None:
            return [
                _fail(
                    "broker",
                    "mqtt.embedded = true but Mosquitto is not installed (the table starts its own)",
                    "run `bash deploy/install-dev.sh` (it installs mosquitto with apt), "
                    "or set mqtt.embedded = false and point mqtt.host at a running broker",
                )
            ]
        busy = [str(p) for p in (port, ws) if not port_free(host, p)]
        if busy:
            return [
                _warn(
                    "broker",
                    f"embedded broker: port {', '.join(busy)} on {host} is taken (a running "
                    "smart-table, or another broker)",
                    "stop the other program, or set mqtt.port / mqtt.ws_port to free ports",
                )
            ]
        return [
            _ok(
                "broker",
                f"embedded broker (Mosquitto): `smart-table run` starts it on {host}:{port} and "
                f"WebSockets on {ws}, with the table's stored logins",
            )
        ]
    out: list[Check] = []
    from controller.credentials import resolve_user

    # The controller's login names its table (`table-1/controller`); a bare role in the config means that.
    user = resolve_user(cfg["table"]["id"], m["username"] or "controller")
    try:
        rc = mqtt_connect(host, port, user, m["password"] or None, timeout)
    except (OSError, ConnectionError) as exc:
        return [
            _fail(
                "broker",
                f"no MQTT broker answers at {host}:{port} ({exc})",
                "start Mosquitto (`sudo systemctl start mosquitto`; its log: `journalctl -u mosquitto`) "
                "or set mqtt.host / mqtt.port to where it listens",
            )
        ]
    if rc == 0:
        out.append(_ok("broker", f"{host}:{port} accepts the controller's login (user {user!r})"))
    elif rc in (4, 5):
        out.append(
            _fail(
                "broker",
                f"{host}:{port} refuses the controller's login (user {user!r}, "
                f"CONNACK {rc}: {'bad user name or password' if rc == 4 else 'not authorised'})",
                "set mqtt.password to the controller's password in the broker's password file "
                f"(`sudo mosquitto_passwd /etc/mosquitto/smart-table/passwd {user}`, then reload "
                "mosquitto), or rerun `sudo bash deploy/install-table.sh`",
            )
        )
    else:
        out.append(
            _fail(
                "broker",
                f"{host}:{port} answers CONNACK {rc} to the controller's login",
                "check the broker's log (`journalctl -u mosquitto`)",
            )
        )
    # ACLs loaded: with the project's config no one gets in anonymously or with a wrong password.
    leaks = []
    for who, name, pw in (
        ("anonymous", None, None),
        (
            "a wrong password",
            user,
            "wrong-" + base64.b16encode(os.urandom(4)).decode(),
        ),
    ):
        try:
            if mqtt_connect(host, port, name, pw, timeout) == 0:
                leaks.append(who)
        except (OSError, ConnectionError):
            pass  # a broker that hangs up on a bad login refuses it too
    if leaks:
        out.append(
            _fail(
                "acl",
                f"{host}:{port} accepts {' and '.join(leaks)}: the password file and ACL are not "
                "loaded, so any tablet could read every player's secrets",
                "install deploy/mosquitto/mosquitto.conf as /etc/mosquitto/conf.d/smart-table.conf "
                "(`sudo bash deploy/install-table.sh` does) and restart mosquitto",
            )
        )
    else:
        out.append(
            _ok("acl", "anonymous clients and wrong passwords are refused (password file and ACL loaded)")
        )
    try:
        status = websocket_upgrade(host, ws, timeout)
    except OSError as exc:
        out.append(
            _fail(
                "websocket",
                f"nothing answers on the tablets' WebSocket port {host}:{ws} ({exc})",
                "add the `listener 9001` + `protocol websockets` lines of deploy/mosquitto/mosquitto.conf "
                "to the broker's config, or set mqtt.ws_port to its WebSocket port",
            )
        )
    else:
        if " 101 " in status + " ":
            out.append(_ok("websocket", f"{host}:{ws} speaks MQTT over WebSockets (the tablets' link)"))
        else:
            out.append(
                _fail(
                    "websocket",
                    f"{host}:{ws} answers {status!r}, not a WebSocket upgrade",
                    "point mqtt.ws_port at the broker's `protocol websockets` listener",
                )
            )
    return out


# -- display -------------------------------------------------------------------------------------------------


def check_display(cfg: Config) -> list[Check]:
    if not cfg["display"]["enabled"]:
        return [_skip("display", "display.enabled = false")]
    try:
        from controller.web import server
    except ImportError as exc:
        return [
            _fail("display", f"controller/web cannot be imported ({exc})", "run `bash deploy/install-dev.sh`")
        ]
    index = server.STATIC_ROOT / "index.html"
    if not index.is_file():
        return [
            _fail(
                "display",
                f"the display's web app is missing ({index} not found)",
                "reinstall from a complete checkout",
            )
        ]
    try:
        server.check_built()
    except server.DisplayNotBuilt:
        return [
            _fail(
                "display",
                f"the display is not built: {server.MQTT_BUNDLE} is missing",
                "run `npm install` in controller/web (or `bash deploy/install-dev.sh`)",
            )
        ]
    return [
        _ok(
            "display",
            f"built (MQTT client {server.MQTT_BUNDLE.stat().st_size // 1024} KiB); served on "
            f"{cfg['display']['host']}:{cfg['display']['port']}",
        )
    ]


# -- serial port and firmware -------------------------------------------------------------------------------


def firmware_hello(path: str, timeout: float = 3.0, baudrate: int = 115200) -> dict[str, Any] | None:
    """Ask the device for HELLO and return it decoded (firmware, protocol, kind, boot), or None.

    Only HELLO_REQUEST is sent: the device answers it without touching its acknowledgements, so events
    it still holds for the bridge are not lost."""
    import serial

    from firmware_bridge import events, wire

    reader = wire.FrameReader()
    with serial.Serial(path, baudrate, timeout=0.05, write_timeout=0.5, exclusive=True) as ser:
        deadline = time.monotonic() + timeout
        asked = 0.0
        while time.monotonic() < deadline:
            now = time.monotonic()
            if now - asked > 0.25:
                ser.write(b"\x00" + wire.encode_frame(wire.HELLO_REQUEST, 0, b"", wire.FLAG_FROM_HOST, 0))
                asked = now
            for frame in reader.feed(ser.read(256)):
                if frame.type == wire.HELLO:
                    try:
                        return events.decode(frame, 0)
                    except wire.PayloadError:
                        continue
    return None


def check_serial(cfg: Config, timeout: float = 3.0, preflight: bool = False) -> list[Check]:
    if not cfg["bridge"]["enabled"]:
        return [_skip("serial", "bridge.enabled = false (no battle tower)")]
    from firmware_bridge.host import BridgeError, check_device

    device = cfg["bridge"]["serial_port"]
    try:
        path = check_device(device)
    except BridgeError as exc:
        text = str(exc)
        detail, _, fix = text.partition(": ")
        return [_fail("serial", f"bridge.serial_port {device}: {detail}", fix or "see deploy/README.md")]
    if preflight:
        return [_ok("serial", f"{path} is present and readable")]
    try:
        hello = firmware_hello(path, timeout)
    except Exception as exc:  # noqa: BLE001 - pyserial raises SerialException, OSError or ValueError
        return [
            _fail(
                "serial",
                f"{path} cannot be opened ({exc})",
                "stop the program holding it (`sudo systemctl stop smart-table`, or `fuser -v " + path + "`)",
            )
        ]
    if hello is None:
        return [
            _fail(
                "firmware",
                f"{path} opens but no HELLO came back within {timeout:g} s",
                "flash the table's firmware (firmware_bridge/firmware) onto the board, or check that "
                "bridge.serial_port names the tower and not another device",
            )
        ]
    return [
        _ok("serial", f"{path} opens read/write"),
        _ok(
            "firmware",
            f"{hello['kind']} answers HELLO: firmware {hello['firmware']}, protocol "
            f"{hello['protocol']}, boot {hello['boot']}, sensors {', '.join(hello['sensors']) or 'none'}",
        ),
    ]


# -- camera --------------------------------------------------------------------------------------------------


def check_camera(cfg: Config, frames: int = 15, now: float | None = None) -> list[Check]:
    """Every camera the config names (config.CAMERA_KEYS): the battle board's `vision.camera` with its
    markers and colours, then the table camera `vision.ships_camera` where set (`ships-camera`, `ships-image`:
    opened and its frames looked at, as the supervisor would start it)."""
    v = cfg["vision"]
    if not v["enabled"]:
        return [_skip("camera", "vision.enabled = false")]
    out = _board_camera(cfg, frames, now)
    for key in CAMERA_KEYS:
        if key != "vision.camera" and cfg.get(key):
            # Started whenever it is set (no palette needed): needed.
            out += _table_camera(cfg, key, frames)
    return out


def _board_camera(cfg: Config, frames: int, now: float | None) -> list[Check]:
    v = cfg["vision"]
    out = _camera(cfg, frames, now)
    if not v["palette"]:
        # Without a palette `smart-table run` does not start the camera: what is wrong is worth knowing,
        # not a reason to fail.
        for c in out:
            if c.status == "fail":
                c.status, c.needed = "warn", False
                c.detail += " (not needed yet: vision.palette is not set, so the camera is not started)"
    return out


def check_table_camera_calibration(cfg: Config) -> list[Check]:
    """The table camera's calibration file (vision.table_calibration, or vision.sea_map for The Great Sea),
    opened as the camera opens it; needed where vision.ships_camera is set (`smart-table run` would start
    that camera without it)."""
    from controller import camera_calibrations, games

    v = cfg["vision"]
    if not v["enabled"]:
        return []
    if games.by_name(cfg["table"]["game"]).camera_watch is not None:
        name, key, (path, problem) = "sea-map", "vision.sea_map", camera_calibrations.sea_map(cfg)
    else:
        name, key = "ocean-cal", "vision.table_calibration"
        path, problem = camera_calibrations.table_calibration(cfg)
    if problem:
        return [_fail(name, problem, f"or empty {key}", needed=bool(v["ships_camera"]))]
    return [_ok(name, f"{key} {path} can be used")] if path is not None else []


def _open_camera(
    cfg: Config, key: str, name: str, frames: int, needed: bool
) -> tuple[list[Check], list[Any]]:
    """A camera key's source opened as its watch opens it and up to `frames` frames read: the `name` line
    (size and rate, or why it cannot be read) and the frames (none when it failed)."""
    source = cfg.camera_source(key)
    import cv2

    from vision.live import SourceError, iter_frames

    got: list[Any] = []
    t_first = t_last = 0.0
    try:
        for frame in iter_frames(source):
            # The rate is timed from the first frame on: opening a camera takes longer than a frame.
            t_last = time.monotonic()
            t_first = t_first or t_last
            got.append(frame)
            if len(got) >= frames:
                break
    except SourceError as exc:
        fix = f"plug the camera in (`ls /dev/video*`), check the video group, or set {key}"
        return [_fail(name, f"{key} {source}: {exc}", fix, needed)], []
    elapsed = t_last - t_first
    if not got:
        fix = "check the cable and that no other program uses the camera"
        return [_fail(name, f"{key} {source} opens but gives no frames", fix, needed)], []
    h, w = got[0].shape[:2]
    if source.isdigit():
        rate = (
            f"{(len(got) - 1) / elapsed:.1f} fps measured" if len(got) > 1 and elapsed > 0 else "rate unknown"
        )
    else:
        cap = cv2.VideoCapture(source)
        fps = cap.get(cv2.CAP_PROP_FPS) if cap.isOpened() else 0.0
        cap.release()
        rate = f"{fps:.1f} fps (file)" if fps > 0 else "still images"
    return [_ok(name, f"{key} {source}: {w}x{h}, {rate}, {len(got)} frames read")], got


def _image(got: list[Any], name: str, needed: bool, aim: str) -> list[Check]:
    """The frames' light (every one black fails, some black warns) and the last one's sharpness."""
    import cv2
    import numpy as np

    h, w = got[0].shape[:2]
    greys = [cv2.cvtColor(f, cv2.COLOR_BGR2GRAY) if f.ndim == 3 else f for f in got]
    means = [float(g.mean()) for g in greys]
    black = sum(m < BLACK_MEAN for m in means)
    if black == len(got):
        return [
            _fail(
                name,
                f"all {len(got)} frames are black (mean grey {max(means):.1f} of 255)",
                "take the lens cap off, switch the table light on, or unlock the exposure",
                needed,
            )
        ]
    out = []
    if black:
        out.append(
            _warn(
                name,
                f"{black} of {len(got)} frames are black",
                "check the camera cable and the light (flicker)",
            )
        )
    last = greys[-1]
    small = cv2.resize(last, (640, max(1, int(640 * h / w)))) if w > 640 else last
    sharp = float(cv2.Laplacian(small, cv2.CV_64F).var())
    if sharp < BLUR_VARIANCE:
        out.append(
            _warn(
                name,
                f"blurred (sharpness {sharp:.0f}, want at least {BLUR_VARIANCE:.0f})",
                f"focus the lens on {aim} and clean it",
            )
        )
    else:
        out.append(_ok(name, f"mean grey {np.mean(means):.0f} of 255, sharpness {sharp:.0f}"))
    return out


def _table_camera(cfg: Config, key: str, frames: int) -> list[Check]:
    """A table camera (the ocean grid's, The Great Sea's map): opened and its frames looked at. What it
    reads on them is the watch's (its calibration is the `ocean-cal` / `sea-map` line)."""
    name = key.removeprefix("vision.").replace("_", "-")  # vision.ships_camera: ships-camera
    out, got = _open_camera(cfg, key, name, frames, needed=True)
    return out + _image(got, name.replace("camera", "image"), True, "the table") if got else out


def _camera(cfg: Config, frames: int, now: float | None) -> list[Check]:
    # Long on purpose: one check per step of opening a camera (source, frames, markers, light), each a message
    # and its fix, in the order a person fixes them.
    needed = True
    out, got = _open_camera(cfg, "vision.camera", "camera", frames, needed)
    if not got:
        return out
    image = _image(got, "image", needed, "the board")
    out += image
    if any(c.status == "fail" for c in image):
        return out
    found: set[int] = set()
    corners: dict[int, Any] = {}
    layout: Any = None
    try:
        from vision.battle_board.layout import default_layout, load_board_layout
        from vision.geometry import detect_markers

        layout_path = cfg.layout_path()
        layout = load_board_layout(layout_path) if layout_path else default_layout()
        want = {m.id for m in layout.markers}
        corners = detect_markers(got[-1], layout.aruco_dictionary, expected=want)
        found = set(corners) & want
    except Exception as exc:  # noqa: BLE001 - a bad layout file is reported, not raised
        out.append(_fail("markers", f"the board layout cannot be used ({exc})", "fix vision.layout", needed))
    else:
        if len(found) == len(want):
            out.append(_ok("markers", f"all {len(want)} markers of the battle board {layout.name!r} found"))
        elif len(found) >= 3:
            out.append(
                _warn(
                    "markers",
                    f"{len(found)} of {len(want)} board markers found (ids missing: {sorted(want - found)})",
                    "clear what covers them or aim the camera",
                )
            )
        else:
            out.append(
                _fail(
                    "markers",
                    f"{len(found)} of {len(want)} battle board markers found",
                    "put the battle board under the camera, all four corner markers in view",
                    needed,
                )
            )
    p = cfg.palette_path()
    if p is not None:
        if not p.is_file():
            out.append(
                _fail(
                    "colours",
                    f"vision.palette {p} does not exist",
                    "make it with `smart-table calibrate colors`",
                )
            )
        else:
            age = ((now or time.time()) - p.stat().st_mtime) / 86400
            if age > CALIBRATION_OLD_DAYS:
                out.append(
                    _warn(
                        "colours",
                        f"colour calibration {p} is {age:.0f} days old",
                        "recalibrate with `smart-table calibrate colors` if the light changed",
                    )
                )
            else:
                out.append(_ok("colours", f"colour calibration {p} is {age:.1f} days old"))
            if layout is not None and len(found) >= 3:
                out += _light_since_calibration(p, got[-1], layout, {i: corners[i] for i in found})
    return out


def _light_since_calibration(
    palette_path: Path, frame: Any, layout: Any, corners: dict[int, Any]
) -> list[Check]:
    """The bare board now against the bare board the colour calibration saw (the palette's reference,
    1 px/mm): median brightness ratio over the board, swatches left out (cubes stood on them)."""
    import cv2
    import numpy as np

    from vision.geometry import fit_homography
    from vision.palette import PaletteError, load_palette

    try:
        palette = load_palette(palette_path)
    except (PaletteError, OSError, ValueError) as exc:
        return [
            _fail(
                "colours",
                f"vision.palette {palette_path} cannot be used ({exc})",
                "make it again with `smart-table calibrate colors`",
            )
        ]
    ref = palette.reference
    if ref is None:
        return [_skip("light", "the palette holds no picture of the bare board to compare the light with")]
    board = np.concatenate([layout.marker_points([i])[i] for i in corners])
    image = np.concatenate([corners[i] for i in corners])
    H = fit_homography(board, image)
    h, w = ref.shape[:2]
    now = cv2.warpPerspective(frame, H, (w, h), flags=cv2.INTER_AREA | cv2.WARP_INVERSE_MAP)
    keep = np.full((h, w), 255, np.uint8)
    for sw in layout.swatches:
        cv2.circle(keep, (int(sw.center_mm[0]), int(sw.center_mm[1])), 16, 0, -1)
    grey_ref = cv2.cvtColor(ref, cv2.COLOR_BGR2GRAY)[keep > 0]
    grey_now = cv2.cvtColor(now, cv2.COLOR_BGR2GRAY)[keep > 0]
    ratio = float(np.median(grey_now) + 1) / float(np.median(grey_ref) + 1)
    if not LIGHT_RATIO[0] <= ratio <= LIGHT_RATIO[1]:
        return [
            _warn(
                "light",
                f"the board is {abs(ratio - 1):.0%} {'darker' if ratio < 1 else 'brighter'} than at "
                "the colour calibration",
                "restore the table light, or recalibrate with `smart-table calibrate colors`",
            )
        ]
    return [_ok("light", f"the board's brightness is {ratio:.0%} of the colour calibration's")]


# -- disk and clock ------------------------------------------------------------------------------------------


def check_disk(cfg: Config) -> list[Check]:
    folder = cfg.database_path().parent
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    free_mb = shutil.disk_usage(folder).free // 2**20
    if free_mb < DISK_FAIL_MB:
        return [
            _fail(
                "disk",
                f"{free_mb} MB free under {folder} (the game log)",
                "free some space (`sudo journalctl --vacuum-size=100M`, old games exported and removed)",
            )
        ]
    if free_mb < DISK_WARN_MB:
        return [_warn("disk", f"{free_mb} MB free under {folder}", "free some space before a long campaign")]
    return [_ok("disk", f"{free_mb / 1024:.1f} GB free under {folder} (the game log)")]


def check_clock(now: float | None = None, timedatectl: Callable[[], str | None] | None = None) -> list[Check]:
    """A Raspberry Pi has no battery clock: before NTP it starts where it stopped, and game logs get
    wrong dates. The clock is wrong for sure when it is behind the files of this installation."""
    now = now if now is not None else time.time()
    newest = max(p.stat().st_mtime for p in (REPO / "controller").glob("*.py"))
    stamp = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(now))
    if now < newest - 86400:
        return [
            _fail(
                "clock",
                f"the clock says {stamp}, before this installation's files were written",
                "connect the table to a network with NTP, or set it: `sudo date -s 'YYYY-MM-DD HH:MM'`",
            )
        ]
    synced = (timedatectl or _ntp_synchronized)()
    if synced == "no":
        return [
            _warn(
                "clock",
                f"{stamp}, not synchronised with NTP",
                "connect the table to a network once (`timedatectl` shows the state)",
            )
        ]
    return [_ok("clock", f"{stamp}{', NTP synchronised' if synced == 'yes' else ''}")]


def _ntp_synchronized() -> str | None:
    if not shutil.which("timedatectl"):
        return None
    try:
        out = subprocess.run(
            ["timedatectl", "show", "-p", "NTPSynchronized", "--value"],
            capture_output=True,
            text=True,
            timeout=3,
        )
    except (OSError, subprocess.TimeoutExpired):
        return None
    value = out.stdout.strip()
    return value if out.returncode == 0 and value in ("yes", "no") else None


# -- all of it -----------------------------------------------------------------------------------------------


PARTS = ("python", "config", "broker", "display", "serial", "camera", "disk", "clock")


def run_checks(cfg: Config, parts: Iterable[str] = PARTS, timeout: float = 3.0) -> list[Check]:
    out: list[Check] = []
    for part in parts:
        try:
            if part == "python":
                out += check_python()
            elif part == "config":
                out.append(
                    _ok("config", f"{cfg.path} is valid")
                    if cfg.path
                    else _ok("config", "no --config: the defaults of deploy/smart-table.example.toml")
                )
            elif part == "broker":
                out += check_broker(cfg, timeout)
            elif part == "display":
                out += check_display(cfg)
            elif part == "serial":
                out += check_serial(cfg, timeout)
            elif part == "camera":
                out += check_camera(cfg) + check_table_camera_calibration(cfg)
            elif part == "disk":
                out += check_disk(cfg)
            elif part == "clock":
                out += check_clock()
        except Exception as exc:  # noqa: BLE001 - a check's own bug must not hide the other checks
            out.append(
                _fail(
                    part,
                    f"the check itself failed ({type(exc).__name__}: {exc})",
                    "report this with the output of `smart-table doctor`",
                )
            )
    return out


def preflight(cfg: Config, simulate: bool) -> list[Check]:
    """The quick checks `smart-table run` makes before it starts the parts (nothing is opened that a
    part needs for itself): the ones that fail are printed as doctor's lines."""
    out = check_display(cfg)
    if not simulate:
        if not cfg["mqtt"]["embedded"]:
            out += check_broker(cfg, timeout=2.0)[:1]
        out += check_serial(cfg, preflight=True)
        v = cfg["vision"]
        # A file (beside the config) or a device path must exist; a stream or the Pi camera is opened later.
        # Every camera `smart-table run` would start: the board's with a palette, a table camera when set.
        for key in CAMERA_KEYS:
            name = "camera" if key == "vision.camera" else key.removeprefix("vision.").replace("_", "-")
            value = str(cfg.get(key))
            source = cfg.camera_source(key)
            named = is_file_source(value) or value.startswith("/dev/")
            started = bool(value) and (v["palette"] if key == "vision.camera" else True)
            if v["enabled"] and started and named and not Path(source).exists():
                fix = f"set {key} to the camera's index, device, stream URL or a video file"
                out.append(_fail(name, f"{key} {source} does not exist", fix))
    return [c for c in out if c.status == "fail"]
