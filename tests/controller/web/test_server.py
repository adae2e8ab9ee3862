"""The display's HTTP server: static files, the npm-installed MQTT client, settings, clear failures."""

from __future__ import annotations

import json
import urllib.error
import urllib.request

import pytest

from controller.web import server
from controller.web.server import DisplayNotBuilt, serve_display


def get(url: str) -> tuple[int, str, bytes]:
    try:
        with urllib.request.urlopen(url, timeout=5) as r:
            return r.status, r.headers.get("Content-Type", ""), r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.headers.get("Content-Type", ""), e.read()


@pytest.fixture
def handle():
    h = serve_display("127.0.0.1", 0, {"table": "t9", "ws": "ws://10.0.0.5:9001", "password": "secret"})
    yield h
    h.stop()


def test_serves_the_app_the_bundle_and_settings(handle) -> None:
    status, ctype, body = get(handle.url)
    assert status == 200 and ctype.startswith("text/html") and b"/vendor/mqtt.min.js" in body
    status, ctype, body = get(handle.url + "vendor/mqtt.min.js")
    assert status == 200 and "javascript" in ctype and body == server.MQTT_BUNDLE.read_bytes()
    status, ctype, body = get(handle.url + "app.js")
    assert status == 200 and "javascript" in ctype
    status, _, body = get(handle.url + "settings.json")
    settings = json.loads(body)
    # Only the public keys leave the server: a password in the settings never reaches a page.
    assert set(settings) == {"table", "ws", "title", "board"} and "secret" not in body.decode()
    assert settings["table"] == "t9" and settings["ws"] == "ws://10.0.0.5:9001"
    assert settings["board"]["zones"]["explode"] == {"kind": "exploding"}  # the rules' default board


def test_unknown_paths_and_escapes_are_404(handle) -> None:
    assert get(handle.url + "nope.js")[0] == 404
    assert get(handle.url + "../server.py")[0] == 404
    assert get(handle.url + "%2e%2e/server.py")[0] == 404
    assert get(handle.url + "static/../../server.py")[0] == 404


def test_without_node_modules_it_says_to_run_npm_install(monkeypatch, tmp_path) -> None:
    monkeypatch.setattr(server, "MQTT_BUNDLE", tmp_path / "node_modules" / "mqtt" / "dist" / "mqtt.min.js")
    with pytest.raises(DisplayNotBuilt, match=r"run `npm install` in controller/web"):
        serve_display("127.0.0.1", 0, {})


def test_stop_frees_the_port() -> None:
    h = serve_display("127.0.0.1", 0, {})
    port = h.port
    h.stop()
    h.stop()  # twice is harmless
    again = serve_display("127.0.0.1", port, {})
    again.stop()
