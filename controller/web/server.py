"""The display's HTTP server: serves the tablets' web app, the MQTT client bundle, `/settings.json` and
`/join.json` (each open seat's join link and QR code, for the table view's join screen).

Owns only static serving and the join screen's data; a request path that is not exactly a file of the
static folder (`..`, encoded or not, a NUL byte, a backslash, a link out of the folder) is a 404.
`/join.json` answers only a request carrying the display's password (`Authorization: Bearer <pw>`,
the password the table view's own link holds): the seats' links carry their passwords. The pages talk to
the broker directly over MQTT/WebSockets with each
tablet's own credentials (the broker's ACL keeps secrets), so this server never sees game state.
The MQTT client (mqtt.js) comes from the npm registry at build time into `controller/web/node_modules`
(`npm install` in controller/web, or `bash deploy/install-dev.sh`); it is never committed.

Must not: hold a rule, touch MQTT, or write anywhere.
"""

from __future__ import annotations

import hmac
import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

WEB_ROOT = Path(__file__).resolve().parent
STATIC_ROOT = WEB_ROOT / "static"
MQTT_BUNDLE = WEB_ROOT / "node_modules" / "mqtt" / "dist" / "mqtt.min.js"

# URL path -> file, outside the static folder (the npm-installed client).
_VENDOR = {"/vendor/mqtt.min.js": MQTT_BUNDLE}

_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".json": "application/json",
    ".png": "image/png",
    ".svg": "image/svg+xml",
    ".ico": "image/x-icon",
}

# Keys /settings.json may carry; anything else in `settings` stays on the server.
_PUBLIC_SETTINGS = ("table", "ws", "title", "board")
DEFAULT_SETTINGS: dict[str, Any] = {
    "table": "table-1",
    "ws": "ws://127.0.0.1:9001",
    "title": "",  # empty: the game's own title, from the state the pages receive
}


class DisplayNotBuilt(RuntimeError):
    """The MQTT client bundle is missing: the display was not built with `npm install`."""


@dataclass
class DisplayHandle:
    """A running display server; `stop()` shuts it down and joins its thread."""

    host: str
    port: int
    _server: ThreadingHTTPServer
    _thread: threading.Thread
    _stopped: bool = field(default=False)

    @property
    def url(self) -> str:
        host = "127.0.0.1" if self.host in ("", "0.0.0.0") else self.host
        return f"http://{host}:{self.port}/"

    def stop(self) -> None:
        if self._stopped:
            return
        self._stopped = True
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)


def check_built() -> None:
    """Raise DisplayNotBuilt with the sentence saying what to run when node_modules is missing."""
    if not MQTT_BUNDLE.is_file():
        raise DisplayNotBuilt(
            f"The display's MQTT client is missing ({MQTT_BUNDLE} not found): "
            "run `npm install` in controller/web (or `bash deploy/install-dev.sh`) and start again."
        )


def public_settings(settings: dict[str, Any]) -> dict[str, Any]:
    """What /settings.json tells the pages. `board` is the battle board's zone model (the one the battle
    session referees with; the rules' reconstruction of the printed board when not given): the pages
    need every zone's kind to draw and label empty zones and to offer zones when correcting a reading."""
    merged = {**DEFAULT_SETTINGS, **{k: v for k, v in settings.items() if v is not None}}
    if "board" not in merged:
        from rules.battle.board import DEFAULT_BOARD  # data only; the display holds no rule

        merged["board"] = DEFAULT_BOARD
    return {k: merged[k] for k in _PUBLIC_SETTINGS if k in merged}


def qr_matrix(text: str) -> list[str]:
    """The QR code of `text` as rows of '1' (dark) and '0', quiet zone included; join.js draws it as SVG."""
    import qrcode

    qr = qrcode.QRCode(border=2, error_correction=qrcode.constants.ERROR_CORRECT_M)
    qr.add_data(text)
    qr.make(fit=True)
    return ["".join("1" if cell else "0" for cell in row) for row in qr.get_matrix()]


def join_body(info: dict[str, Any], authorization: str | None) -> tuple[HTTPStatus, dict[str, Any]]:
    """What /join.json answers: the seats' links and QR codes for the display's password only."""
    expected = info.get("display_password")
    if not expected:
        return HTTPStatus.NOT_FOUND, {"error": "This table has no join screen (no display login is stored)."}
    given = (authorization or "").removeprefix("Bearer ").strip()
    if not hmac.compare_digest(given.encode(), str(expected).encode()):
        return HTTPStatus.FORBIDDEN, {"error": "Only the table view's own link may read the seats' links."}
    seats = {p: {"link": link, "qr": qr_matrix(link)} for p, link in info.get("links", {}).items()}
    return HTTPStatus.OK, {"seats": seats}


def _make_handler(
    settings_body: bytes, join: Callable[[], dict[str, Any]] | None = None
) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        server_version = "smart-table-display"

        def do_GET(self) -> None:  # noqa: N802 (http.server's name)
            self._serve(send_body=True)

        def do_HEAD(self) -> None:  # noqa: N802
            self._serve(send_body=False)

        def _serve(self, send_body: bool) -> None:
            path = urlsplit(self.path).path
            if path == "/join.json":
                status, data = join_body(
                    join() if join is not None else {}, self.headers.get("Authorization")
                )
                self._reply(status, "application/json", json.dumps(data).encode(), send_body)
                return
            if path == "/settings.json":
                self._reply(HTTPStatus.OK, "application/json", settings_body, send_body, cache=False)
                return
            if path == "/favicon.ico":
                self._reply(HTTPStatus.NO_CONTENT, "image/x-icon", b"", send_body)
                return
            file = _VENDOR.get(path) or _static_file(path)
            if file is None or not file.is_file():
                body = f"Not found: {path}. The display lives at / (add ?view=table or ?player=red).\n"
                self._reply(HTTPStatus.NOT_FOUND, "text/plain; charset=utf-8", body.encode(), send_body)
                return
            ctype = _TYPES.get(file.suffix, "application/octet-stream")
            self._reply(HTTPStatus.OK, ctype, file.read_bytes(), send_body, cache=path.startswith("/vendor/"))

        def _reply(
            self, status: HTTPStatus, ctype: str, body: bytes, send_body: bool, cache: bool = False
        ) -> None:
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            # The app is tiny and changes with the code; only the vendored bundle may be cached.
            self.send_header("Cache-Control", "max-age=3600" if cache else "no-store")
            self.end_headers()
            if send_body:
                self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
            pass  # tablets poll nothing; access logs would only be noise in the controller's log

    return Handler


def _static_file(path: str) -> Path | None:
    """The static file a URL path names, or None. Decoded first, so `%2e%2e/` is `../` and refused."""
    path = unquote(path)
    if path in ("", "/"):
        path = "/index.html"
    parts = path.lstrip("/").split("/")
    if (
        "\x00" in path
        or "\\" in path
        or any(part in ("", ".", "..") or part.startswith(".") for part in parts)
    ):
        return None
    try:
        candidate = (STATIC_ROOT / "/".join(parts)).resolve()
    except (OSError, ValueError, RuntimeError):
        return None
    # Refuse anything that still escapes the static folder (a symbolic link out of it).
    if STATIC_ROOT.resolve() not in candidate.parents:
        return None
    return candidate


def serve_display(
    host: str, port: int, settings: dict[str, Any], join: Callable[[], dict[str, Any]] | None = None
) -> DisplayHandle:
    """Serve the display on host:port in a background thread (port 0 picks a free one).

    `settings` gives `table` (table id), `ws` (the broker's WebSocket URL the pages use when the
    join link does not name one) and optionally `board` (the battle board's zone model) and `title`.
    `join` returns {"display_password", "links": {seat: link}} for /join.json (read on each request, so a
    rotated password shows at once). Raises DisplayNotBuilt when node_modules is missing and OSError (e.g.
    port busy) from the bind.
    """
    check_built()
    body = json.dumps(public_settings(settings)).encode()
    server = ThreadingHTTPServer((host, port), _make_handler(body, join))
    server.daemon_threads = True
    thread = threading.Thread(target=server.serve_forever, name="display-http", daemon=True)
    thread.start()
    return DisplayHandle(host=host, port=server.server_address[1], _server=server, _thread=thread)
