"""`smart-table run`: starts the table's processes from one config, restarts a crashed one, stops all cleanly.

Owns the child processes (the embedded Mosquitto, firmware simulator, bridge, controller), their command
lines, checking ports before anything starts (a busy port is one sentence naming the option to change),
the display's HTTP server (in this process: it only serves files), restarts with a log line (a budget of
`supervisor.max_restarts` crashes per `supervisor.restart_window` seconds), and a clean stop on Ctrl-C /
SIGTERM (SIGTERM to every child, SIGKILL after a grace period). On Linux each child also gets SIGTERM
from the kernel if the supervisor dies without a chance to stop it (SIGKILL, OOM).

Secrets never reach a command line or an environment: the controller reads its effective config (with
its MQTT password) from an inherited pipe (`--config-json -`), Mosquitto reads 0600 files in a 0700
folder. The table's logins are stored in the game database (controller.credentials.CredentialStore);
when `smart-table tablets add <seat> --rotate` changes one, the embedded broker reloads within a second.
"""

from __future__ import annotations

import collections
import ctypes
import functools
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO

from controller import camera_calibrations, games
from controller.config import Config
from vision.boardfile import DEFAULT_LAYOUT_PATH  # vision's own default battle board (plain JSON, no OpenCV)

REPO = Path(__file__).resolve().parents[1]
_PR_SET_PDEATHSIG = 1


def _libc_prctl() -> Callable[..., int] | None:
    if not sys.platform.startswith("linux"):
        return None
    try:
        return ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None


# Looked up here, not in the forked child: between fork and exec only this plain C call runs.
_prctl = _libc_prctl()


def _die_with_supervisor(supervisor: int) -> None:
    """In the child before exec: SIGTERM when the supervisor's thread that started it dies (spawn runs on
    the thread of `run`), so no child outlives a SIGKILLed supervisor holding a port or the serial line."""
    if _prctl is not None:
        _prctl(_PR_SET_PDEATHSIG, int(signal.SIGTERM), 0, 0, 0)
        if os.getppid() != supervisor:  # it died between the fork and the line above
            os._exit(1)


class SupervisorError(RuntimeError):
    """A start-up problem (busy port, missing program); the message names what to change."""


@dataclass
class Child:
    name: str
    argv: list[str]
    essential: bool = (
        False  # its clean exit (code 0) ends the run, e.g. the controller after --until-game-over
    )
    stdin: bytes | None = field(default=None, repr=False)  # written to its inherited pipe, then closed
    proc: subprocess.Popen | None = None
    restarts: int = 0
    crashes: collections.deque = field(default_factory=collections.deque, repr=False)  # restart times
    started: float = 0.0
    given_up: bool = False
    log_thread: threading.Thread | None = field(default=None, repr=False)


def port_free(host: str, port: int) -> bool:
    if port == 0:
        return True
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((host, port))
        except OSError:
            return False
    return True


def _source(camera: str, file_flag: str) -> list[str]:
    """A camera index ("0") as `--camera`; anything else (a video file, image folder, /dev/videoN, rtsp://,
    http:// MJPEG, picamera2) as `file_flag`, which `vision watch` opens through vision.camera_source."""
    return ["--camera", camera] if camera.isdigit() else [file_flag, camera]


def zmq_port(endpoint: str) -> tuple[str, int] | None:
    if endpoint.startswith("tcp://"):
        host, _, port = endpoint[6:].rpartition(":")
        if port.isdigit():
            return (host if host not in ("*", "") else "0.0.0.0"), int(port)
    return None


class Supervisor:
    def __init__(self, cfg: Config, simulate: bool, limits: dict[str, Any], out: TextIO = sys.stdout) -> None:
        self.cfg, self.simulate, self.limits, self.out = cfg, simulate, limits, out
        self.children: list[Child] = []
        self.stopping = threading.Event()
        self.display: Any = None
        self.tmp = Path(tempfile.mkdtemp(prefix="smart-table-"))
        self.tmp.chmod(0o700)
        self.embedded_users: dict[
            str, str
        ] = {}  # user -> password on the embedded broker (stored in the game db)
        self.broker_dir: Path | None = None
        self._creds_checked = 0.0
        self.exit_code = 0
        self.display_url: str | None = None
        self.lock = threading.Lock()

    def say(self, text: str) -> None:
        with self.lock:
            try:
                print(text, file=self.out, flush=True)
            except (BrokenPipeError, ValueError, OSError):
                pass  # nobody reads our output any more (e.g. piped into head): the table runs on

    # -- plan ------------------------------------------------------------------------------------

    def check_ports(self) -> None:
        cfg = self.cfg
        wanted: list[tuple[str, str, int]] = []
        if cfg["mqtt"]["embedded"]:
            wanted += [
                ("mqtt.port", cfg["mqtt"]["host"], cfg["mqtt"]["port"]),
                ("mqtt.ws_port", cfg["mqtt"]["host"], cfg["mqtt"]["ws_port"]),
            ]
        if cfg["display"]["enabled"]:
            wanted.append(("display.port", cfg["display"]["host"], cfg["display"]["port"]))
        if cfg["bridge"]["enabled"]:
            for key in ("bridge.events", "bridge.commands"):
                hp = zmq_port(cfg.get(key))
                if hp:
                    wanted.append((key, *hp))
        if self.simulate and cfg["bridge"]["enabled"] and cfg["simulate"]["tower_control"]:
            hp = zmq_port(cfg["simulate"]["tower_control"])
            if hp:
                wanted.append(("simulate.tower_control", *hp))
        if self.simulate and cfg["vision"]["enabled"] and cfg["simulate"]["camera"] in ("scene", "process"):
            for key in ("simulate.camera_control", "vision.events"):
                hp = zmq_port(cfg.get(key))
                if hp:
                    wanted.append((key, *hp))
        seen: dict[int, str] = {}
        for key, host, port in wanted:
            if port in seen and port != 0:
                raise SupervisorError(
                    f"{key} and {seen[port]} are both port {port}; give one of them another port."
                )
            seen[port] = key
            if not port_free(host, port):
                flag = {
                    "mqtt.port": " (or --mqtt-port)",
                    "mqtt.ws_port": " (or --ws-port)",
                    "display.port": " (or --http-port)",
                }.get(key, "")
                raise SupervisorError(
                    f"port {port} on {host} is busy (another program or another smart-table is "
                    f"using it); set {key} in the config{flag} to a free port."
                )

    def plan(self) -> None:
        """The children of this run, in start order: broker, tower, cameras, then the controller."""
        self._plan_broker()
        self._plan_tower()
        self._plan_cameras()
        self._plan_controller()

    def _plan_broker(self) -> None:
        cfg = self.cfg
        if not cfg["mqtt"]["embedded"]:
            return
        from controller.broker import mosquitto_binary, venue_bridge, write_broker_files

        binary = mosquitto_binary()
        if binary is None:
            raise SupervisorError(
                "Mosquitto, the table's broker, is not installed: install it (apt-get install "
                "mosquitto, or bash deploy/install-dev.sh), or set mqtt.embedded = false and "
                "mqtt.host to a running broker."
            )
        if self.simulate:
            cfg.set("mqtt.host", "127.0.0.1")  # a simulated table is reachable from this machine only
        self.embedded_users = self.stored_logins(create=True)
        self.broker_dir = self.tmp / "mosquitto"
        ws_host = "127.0.0.1" if self.simulate else cfg["display"]["host"]
        from controller.credentials import login, table_logins

        conf = write_broker_files(
            self.broker_dir,
            table_logins(cfg["table"]["id"], self.embedded_users),
            cfg["mqtt"]["host"],
            cfg["mqtt"]["port"],
            cfg["mqtt"]["ws_port"],
            ws_host,
            extra=["log_dest stderr", "log_type error", "connection_messages false"]
            + venue_bridge(cfg["table"]["id"], cfg["venue"]),
        )
        self.children.append(Child("broker", [binary, "-c", str(conf)]))
        cfg.set("mqtt.username", login(cfg["table"]["id"], "controller"))
        cfg.set("mqtt.password", self.embedded_users["controller"])

    def _plan_tower(self) -> None:
        cfg, py = self.cfg, sys.executable
        if not cfg["bridge"]["enabled"]:
            return
        device = cfg["bridge"]["serial_port"]
        if self.simulate:
            device = str(self.tmp / "battle-tower")
            control = cfg["simulate"]["tower_control"] or "tcp://127.0.0.1:5592"
            cfg.set("simulate.tower_control", control)
            self.children.append(
                Child(
                    "firmware-sim",
                    [
                        py,
                        "-m",
                        "smart_table",
                        "firmware-sim",
                        "--pty",
                        "--link",
                        device,
                        "--control",
                        control,
                        "--seed",
                        str(cfg["simulate"]["seed"]),
                    ],
                )
            )
        self.children.append(
            Child(
                "bridge",
                [
                    py,
                    "-m",
                    "smart_table",
                    "bridge",
                    "--device",
                    device,
                    "--zmq-pub",
                    cfg["bridge"]["events"],
                    "--zmq-cmd",
                    cfg["bridge"]["commands"],
                ],
            )
        )

    def _plan_cameras(self) -> None:
        cfg, py = self.cfg, sys.executable
        v = cfg["vision"]
        if self.simulate and v["enabled"] and cfg["simulate"]["camera"] in ("scene", "process"):
            # The simulated camera runs as the vision process would: its own child, publishing vision.board.
            cfg.set("simulate.camera", "process")
            self.children.append(
                Child(
                    "camera",
                    [
                        py,
                        "-m",
                        "controller.simcamera",
                        "--control",
                        cfg["simulate"]["camera_control"],
                        "--pub",
                        v["events"],
                        "--seed",
                        str(cfg["simulate"]["seed"]),
                    ],
                )
            )
        if v["enabled"] and not self.simulate:
            if v["palette"]:
                argv = [
                    py,
                    "-m",
                    "smart_table",
                    "vision",
                    "watch",
                    *_source(cfg.camera_source("vision.camera"), "--video"),
                    "--layout",
                    str(cfg.layout_path() or DEFAULT_LAYOUT_PATH),
                    "--palette",
                    str(cfg.palette_path()),
                    "--zmq-pub",
                    v["events"],
                ]
                self.children.append(Child("vision", argv))
            else:
                self.say(
                    "vision: no vision.palette configured (make one with `smart-table calibrate colors`); "
                    "the battle board camera is not started"
                )
            game = games.by_name(cfg["table"]["game"])
            if v["ships_camera"] and game.camera_watch is not None:
                # The game's own table camera (its declaration), on the table camera's source and endpoint.
                bare_map = self._calibration("map-camera", camera_calibrations.sea_map(cfg))
                argv = [
                    py,
                    "-m",
                    "smart_table",
                    "vision",
                    *game.camera_watch(len(cfg["table"]["players"]), bare_map),
                    *_source(cfg.camera_source("vision.ships_camera"), "--video"),
                    "--pub",
                    v["ships_events"],
                ]
                self.children.append(Child("map-camera", argv))
            elif v["ships_camera"]:
                argv = [
                    py,
                    "-m",
                    "smart_table",
                    "vision",
                    "ships-watch",
                    *_source(cfg.camera_source("vision.ships_camera"), "--video"),
                    "--pub",
                    v["ships_events"],
                    "--ships",
                    ",".join(cfg["table"]["players"]),
                ]
                calibration = self._calibration("ships-camera", camera_calibrations.table_calibration(cfg))
                if calibration is not None:
                    argv += ["--table-calibration", str(calibration)]
                self.children.append(Child("ships-camera", argv))

    def _calibration(self, child: str, found: tuple[Path | None, str | None]) -> Path | None:
        """A camera's calibration file, or None; an unusable one is said once and the camera starts
        without it (it reads less well, the table goes on) rather than failing and restarting."""
        path, problem = found
        if problem:
            self.say(f"{child}: {problem} (the camera starts without it)")
        return path

    def _plan_controller(self) -> None:
        cfg, py = self.cfg, sys.executable
        # The config carries the controller's MQTT password: through a pipe, never on the command line.
        argv = [py, "-m", "controller.service", "--config-json", "-"]
        if self.simulate:
            argv.append("--simulate")
        for key in ("max_turns", "duration"):
            if self.limits.get(key):
                argv += [f"--{key.replace('_', '-')}", str(self.limits[key])]
        if self.limits.get("until_game_over"):
            argv.append("--until-game-over")
        self.children.append(
            Child(
                "controller",
                argv,
                essential=True,
                stdin=json.dumps(cfg.with_paths_resolved().to_json()).encode(),
            )
        )

    def stored_logins(self, create: bool = False) -> dict[str, str]:
        """The table's logins from the game database; `create` makes the missing ones (controller, display,
        tools, each seat)."""
        from controller.credentials import CredentialStore

        table = self.cfg["table"]["id"]
        with CredentialStore(self.cfg.database_path()) as store:
            if create:
                return store.ensure(table, ["controller", "display", "tools", *self.cfg["table"]["players"]])
            return store.all(table)

    def links(self, url: str) -> dict[str, str]:
        """Join link per login (display and each seat) from the stored credentials."""
        from controller.credentials import join_link

        m = self.cfg["mqtt"]
        host = url.split("//", 1)[1].rsplit(":", 1)[0]
        port = int(url.rsplit(":", 1)[1].strip("/"))
        table = self.cfg["table"]["id"]
        users = self.stored_logins()
        out: dict[str, str] = {}
        for who in ("display", *self.cfg["table"]["players"]):
            if who in users:
                out[who] = join_link(
                    host, port, m["ws_port"], table, None if who == "display" else who, who, users[who]
                )
        return out

    def join_info(self) -> dict[str, Any]:
        """For the display's /join.json (the table view's join screen): each seat's link and the display's
        password the page must show to read it."""
        url = self.display_url
        if url is None:
            return {}
        links = self.links(url)
        users = self.stored_logins()
        return {
            "display_password": users.get("display"),
            "links": {p: links[p] for p in self.cfg["table"]["players"] if p in links},
        }

    def reload_credentials(self) -> None:
        """`tablets add <seat> --rotate` wrote a new password to the database: the embedded broker takes
        it."""
        now = time.monotonic()
        if self.broker_dir is None or now - self._creds_checked < 1.0:
            return
        self._creds_checked = now
        try:
            users = self.stored_logins()
        except Exception:  # noqa: BLE001 - a locked or busy database: try again next second
            return
        if users and users != self.embedded_users and "controller" in users:
            from controller.broker import update_passwd
            from controller.credentials import table_logins

            self.embedded_users = users
            update_passwd(self.broker_dir, table_logins(self.cfg["table"]["id"], users))
            broker = next((c for c in self.children if c.name == "broker"), None)
            if broker is not None and broker.proc is not None and broker.proc.poll() is None:
                broker.proc.send_signal(signal.SIGHUP)  # Mosquitto rereads its password file
            self.say(
                "smart-table: the table's logins changed (tablets add --rotate); the broker has the new ones"
            )

    # -- run -------------------------------------------------------------------------------------

    def start_display(self) -> str | None:
        d, m = self.cfg["display"], self.cfg["mqtt"]
        if not d["enabled"]:
            return None
        try:
            from controller.web.server import serve_display
        except ImportError:
            self.say("display: controller/web is not installed; no display is served")
            return None
        host = d["public_host"] or ("127.0.0.1" if d["host"] in ("", "0.0.0.0") else d["host"])
        ws = f"ws://{host}:{m['ws_port']}"
        try:
            self.display = serve_display(
                d["host"], d["port"], {"table": self.cfg["table"]["id"], "ws": ws}, join=self.join_info
            )
        except OSError as exc:
            raise SupervisorError(
                f"the display cannot listen on {d['host']}:{d['port']} ({exc.strerror}); "
                "set display.port in the config (or --http-port) to a free port."
            ) from None
        except Exception as exc:  # noqa: BLE001 - e.g. the display's bundle was never built
            self.say(f"display: not served: {exc}")
            return None
        self.display_url = f"http://{host}:{self.display.port}/"
        return self.display_url

    def spawn(self, child: Child) -> None:
        env = {
            **os.environ,
            "PYTHONPATH": os.pathsep.join([str(REPO), os.environ.get("PYTHONPATH", "")]),
            "PYTHONUNBUFFERED": "1",
        }
        child.proc = subprocess.Popen(
            child.argv,
            cwd=os.getcwd(),
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            stdin=subprocess.PIPE if child.stdin is not None else subprocess.DEVNULL,
            preexec_fn=functools.partial(_die_with_supervisor, os.getpid()) if _prctl else None,
        )
        if child.stdin is not None and child.proc.stdin is not None:
            try:
                child.proc.stdin.write(child.stdin)
                child.proc.stdin.close()
            except OSError:
                pass  # it died at once; watch() sees the exit
        child.started = time.monotonic()
        self.say(f"smart-table: started {child.name} (pid {child.proc.pid})")
        child.log_thread = threading.Thread(target=self._pump, args=(child, child.proc), daemon=True)
        child.log_thread.start()

    def _pump(self, child: Child, proc: subprocess.Popen) -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            self.say(f"[{child.name}] {line.decode(errors='replace').rstrip()}")

    def run(self, on_started: Callable[[], None] | None = None) -> int:
        self.check_ports()
        self.plan()
        url = self.start_display()
        m = self.cfg["mqtt"]
        self.say(f"smart-table: table {self.cfg['table']['id']}{' (simulated)' if self.simulate else ''}")
        self.say(f"  display   {url or 'not served'}")
        self.say(f"  MQTT      {m['host']}:{m['port']}" + (" (embedded broker)" if m["embedded"] else ""))
        self.say(f"  WebSocket {m['host']}:{m['ws_port']}")
        self.say(f"  game log  {self.cfg.database_path()}")
        if url:
            # Stable links (stored in the game database until `smart-table tablets add <seat> --rotate`).
            links = self.links(url)
            if "display" in links:
                self.say(f"  table view {links['display']}")
            for p in self.cfg["table"]["players"]:
                self.say(
                    f"  {p:<10} {links[p]}"
                    if p in links
                    else f"  {p:<10} no login stored: `smart-table tablets add {p}` makes one"
                )
        try:
            for child in self.children:
                if child.name == "bridge" and self.simulate:
                    self._wait_for(Path(child.argv[child.argv.index("--device") + 1]), 15)
                self.spawn(child)
            if on_started is not None:
                on_started()
            while not self.stopping.is_set():
                self.watch()
                self.reload_credentials()
                self.stopping.wait(0.2)
        finally:
            self.stop()
        return self.exit_code

    def _wait_for(self, path: Path, seconds: float) -> None:
        """The firmware simulator's pty link, so the bridge finds its device at once."""
        deadline = time.monotonic() + seconds
        while not path.exists() and time.monotonic() < deadline and not self.stopping.is_set():
            time.sleep(0.05)

    def watch(self) -> None:
        sup = self.cfg["supervisor"]
        for child in self.children:
            proc = child.proc
            if proc is None or proc.poll() is None:
                continue
            code = proc.returncode
            if child.essential and code == 0:
                self.say(f"smart-table: {child.name} finished; stopping the table")
                self.stopping.set()
                return
            if child.given_up:
                continue
            # The budget is per time window: a table that crashed a few times an hour ago is not a lost cause.
            now = time.monotonic()
            window = sup["restart_window"]
            while child.crashes and now - child.crashes[0] > window:
                child.crashes.popleft()
            if len(child.crashes) >= sup["max_restarts"]:
                if child.essential:
                    self.say(
                        f"smart-table: {child.name} exited with code {code} and was restarted "
                        f"{len(child.crashes)} times in {window:g} s; giving up and stopping the table"
                    )
                    self.exit_code = 1
                    self.stopping.set()
                    return
                child.given_up = True
                self.say(
                    f"smart-table: {child.name} exited with code {code} and was restarted "
                    f"{len(child.crashes)} "
                    f"times in {window:g} s; the table runs on without it (fix it and restart smart-table)"
                )
                continue
            # Back off: restart_delay, doubling with each recent restart, at most 30 s (no spinning on a dead
            # device).
            if now - child.started < min(30.0, sup["restart_delay"] * 2 ** len(child.crashes)):
                continue
            child.restarts += 1
            child.crashes.append(now)
            self.say(
                f"smart-table: {child.name} exited with code {code}; restarting it "
                f"({len(child.crashes)}/{sup['max_restarts']} in {window:g} s)"
            )
            self.spawn(child)

    def stop(self) -> None:
        self.stopping.set()
        for child in reversed(self.children):
            if child.proc is not None and child.proc.poll() is None:
                child.proc.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + 5
        for child in reversed(self.children):
            if child.proc is None:
                continue
            try:
                child.proc.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                self.say(f"smart-table: {child.name} did not stop within 5 s; killing it")
                child.proc.kill()
                child.proc.wait(timeout=5)
        if self.display is not None:
            self.display.stop()
            self.display = None
        for child in self.children:
            if child.log_thread is not None:
                child.log_thread.join(timeout=1)
        # The run's folder (the broker's config and hashed password file, the simulator's pty link).
        shutil.rmtree(self.tmp, ignore_errors=True)
