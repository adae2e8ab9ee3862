"""The embedded amqtt broker with a password file: the same credentials and ACL model as Mosquitto.

A real `python -m controller.broker --passwd FILE` child process on free ports, real paho clients (MQTT
3.1.1, all amqtt speaks): anonymous and wrong-password logins are refused, red cannot read blue's
private tree nor act as blue, a tablet cannot publish state, the controller reads every command topic.
"""

from __future__ import annotations

import json
import secrets
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from controller.broker import write_amqtt_passwd
from tests.support.broker import Broker, Client, free_port


@pytest.fixture
def amqtt_broker(tmp_path: Path) -> Iterator[Broker]:
    users = {u: secrets.token_urlsafe(9) for u in ("controller", "display", "red", "blue")}
    passwd = tmp_path / "amqtt.passwd"
    write_amqtt_passwd(passwd, users)
    port, ws_port = free_port(), free_port()
    proc = subprocess.Popen([sys.executable, "-m", "controller.broker", "--port", str(port), "--ws-port",
                             str(ws_port), "--passwd", str(passwd)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, start_new_session=True)
    broker = Broker("127.0.0.1", port, ws_port, users, tmp_path, proc)
    try:
        deadline = time.monotonic() + 20
        while True:
            assert proc.poll() is None, proc.stderr.read().decode()
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                assert time.monotonic() < deadline, "the embedded broker did not listen"
                time.sleep(0.05)
        yield broker
    finally:
        proc.kill()
        proc.wait(timeout=5)
        proc.stderr.close()


def _client(broker: Broker, user: str | None, password: str | None = None) -> Client:
    return Client(broker, user, password, protocol="3.1.1")


def test_embedded_broker_has_no_anonymous_access_and_keeps_secrets(amqtt_broker: Broker) -> None:
    b = amqtt_broker
    anonymous = _client(b, None)
    assert anonymous.wait_connected(10) is False
    wrong = _client(b, "red", "not-the-password")
    assert wrong.wait_connected(10) is False
    anonymous.close()
    wrong.close()

    controller, red, blue = _client(b, "controller"), _client(b, "red"), _client(b, "blue")
    try:
        assert controller.wait_connected(10) and red.wait_connected(10) and blue.wait_connected(10)
        controller.subscribe("table/t1/player/+/cmd")
        red.subscribe("table/t1/state")
        red.subscribe("table/t1/player/red/state")
        for spy in ("table/t1/player/blue/state", "table/t1/player/+/state", "table/#", "#"):
            red.subscribe(spy)  # refused by the ACL: nothing of blue's may arrive through them
        blue.subscribe("table/t1/player/blue/state")
        time.sleep(0.3)
        controller.publish("table/t1/state", json.dumps({"seq": 1}))
        controller.publish("table/t1/player/blue/state", json.dumps({"secret": "blue's hand"}))
        controller.publish("table/t1/player/red/state", json.dumps({"mine": "red's hand"}))
        assert blue.wait_for(lambda m: m.topic == "table/t1/player/blue/state", 5)
        got = red.collect(1.5)
        topics = [m.topic for m in got]
        assert "table/t1/state" in topics and "table/t1/player/red/state" in topics
        assert not any(b"blue's hand" in m.payload for m in got), topics
        # Red acts only as red: its own command topic reaches the controller, blue's and the state do not.
        red.publish("table/t1/player/blue/cmd", json.dumps({"request_id": "spoof"}))
        red.publish("table/t1/state", json.dumps({"seq": 999}))
        red.publish("table/t1/player/red/cmd", json.dumps({"request_id": "mine"}))
        seen = controller.collect(1.5)
        assert [m.topic for m in seen] == ["table/t1/player/red/cmd"], [m.topic for m in seen]
        assert not any(m.topic == "table/t1/state" and b"999" in m.payload for m in red.collect(0.5))
    finally:
        for c in (controller, red, blue):
            c.close()
