"""The controller process over a real Mosquitto with the deploy/ ACL: commands, refusals, retained state,
Last Will, and a restart that brings every tablet back by itself."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import uuid
from pathlib import Path

import pytest

from controller.testing import Client, running_mosquitto
from tests.support.service import start_service

REPO = Path(__file__).resolve().parents[2]
T = "table/mq"


def _start(broker, db: Path, protocol: str = "auto") -> subprocess.Popen:
    table = {"id": "mq", "database": str(db), "players": ["red", "blue"], "seed": 4}
    return start_service(broker, table, protocol=protocol)


def _payload(msg):
    return json.loads(msg.payload)


@pytest.fixture
def table(tmp_path):
    with running_mosquitto(tables=("mq",)) as broker:
        proc = _start(broker, tmp_path / "mq.db")
        try:
            yield broker, proc, tmp_path / "mq.db"
        finally:
            if proc.poll() is None:
                proc.kill()
            proc.wait(timeout=10)
            proc.stderr.close()


def _tablet(broker, who):
    c = Client(broker, who)
    assert c.wait_connected()
    c.subscribe(f"{T}/#")
    return c


def _ask(tablet, who, body) -> dict:
    rid = body.get("request_id") if isinstance(body, dict) else None
    raw = body if isinstance(body, bytes) else json.dumps(body)
    tablet.publish(f"{T}/player/{who}/cmd", raw)
    msg = tablet.wait_for(
        lambda m: m.topic == f"{T}/player/{who}/reply" and (rid is None or _payload(m)["request_id"] == rid),
        timeout=10,
    )
    return _payload(msg)


def test_commands_refusals_and_retained_state(table):
    broker, proc, _db = table
    red = _tablet(broker, "red")
    state = _payload(red.wait_for(lambda m: m.topic == f"{T}/state", timeout=30))
    mine = _payload(red.seen(lambda m: m.topic == f"{T}/player/red/state"))
    assert mine["epoch"] == state["epoch"] and mine["seq"] == state["seq"] >= 1
    active = state["view"]["active"]
    me = red if active == "red" else _tablet(broker, active)
    other = "blue" if active == "red" else "red"
    other_tab = red if other == "red" else _tablet(broker, other)
    legal = _payload(me.seen(lambda m: m.topic == f"{T}/player/{active}/state"))["legal_actions"]
    assert legal
    seq = state["seq"]

    bad = _ask(me, active, b"{this is not json")
    assert bad["accepted"] is False and bad["kind"] == "invalid" and "JSON" in bad["reason"]
    r = _ask(me, active, {"request_id": "u1", "seq": seq, "action": {"type": "teleport"}})
    assert (r["accepted"], r["kind"]) == (False, "invalid") and "teleport" in r["reason"]
    r = _ask(me, active, {"request_id": "s1", "seq": seq - 1, "action": legal[0]})
    assert (r["accepted"], r["kind"]) == (False, "stale") and r["seq"] == seq
    r = _ask(other_tab, other, {"request_id": "w1", "seq": seq, "action": legal[0]})
    assert r["accepted"] is False and r["kind"] in ("illegal", "invalid") and r["reason"]
    r = _ask(me, active, {"request_id": "p1", "player": other, "seq": seq, "action": legal[0]})
    assert (r["accepted"], r["kind"]) == (False, "illegal") and "cannot act as" in r["reason"]
    r = _ask(me, active, {"request_id": "i1", "seq": seq, "action": {"type": "buy", "card": "no-such-card"}})
    assert r["accepted"] is False and r["kind"] in ("illegal", "invalid")
    assert proc.poll() is None  # none of that hurt the controller

    rid = uuid.uuid4().hex
    ok = _ask(me, active, {"request_id": rid, "seq": seq, "action": legal[0]})
    assert ok == {"request_id": rid, "accepted": True, "kind": None, "reason": None, "seq": ok["seq"]}
    assert ok["seq"] > seq
    # The new state was published before the reply (logged, then published, then answered).
    new = [_payload(m) for m in me.history if m.topic == f"{T}/state" and _payload(m)["seq"] == ok["seq"]]
    assert new and new[0]["epoch"] == state["epoch"]

    # A tablet that connects now gets the whole current state at once (retained).
    late = Client(broker, "display")
    assert late.wait_connected()
    late.subscribe(f"{T}/state")
    assert _payload(late.wait_for(lambda m: m.topic == f"{T}/state", timeout=30))["seq"] == ok["seq"]
    for c in {id(x): x for x in (red, me, other_tab, late)}.values():
        c.close()


def test_last_will_and_restart_bring_tablets_back(table):
    broker, proc, db = table
    blue = _tablet(broker, "blue")
    first = _payload(blue.wait_for(lambda m: m.topic == f"{T}/state", timeout=30))
    blue.seen(lambda m: m.topic == f"{T}/availability" and _payload(m) == "online")
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=10)
    # The broker publishes the Last Will once it notices the connection is gone.
    blue.wait_for(lambda m: m.topic == f"{T}/availability" and _payload(m) == "offline", timeout=30)
    again = _start(broker, db, protocol="3.1.1")
    try:
        blue.wait_for(lambda m: m.topic == f"{T}/availability" and _payload(m) == "online", timeout=30)
        back = _payload(blue.wait_for(lambda m: m.topic == f"{T}/state", timeout=30))  # after "online": new
        assert (back["epoch"], back["seq"], back["view"]) == (first["epoch"], first["seq"], first["view"])
        mine = _payload(blue.wait_for(lambda m: m.topic == f"{T}/player/blue/state", timeout=30))
        assert mine["seq"] == first["seq"]
        again.send_signal(signal.SIGTERM)  # a clean stop says offline at once
        assert again.wait(timeout=10) == 0
        blue.wait_for(lambda m: m.topic == f"{T}/availability" and _payload(m) == "offline", timeout=30)
    finally:
        if again.poll() is None:
            again.kill()
        again.wait(timeout=5)
        again.stderr.close()
    blue.close()


def test_mqtt5_reply_carries_correlation_data_and_expiry(table):
    from paho.mqtt.packettypes import PacketTypes
    from paho.mqtt.properties import Properties

    broker, _proc, _db = table
    green = Client(broker, "red")
    assert green.wait_connected()
    green.subscribe(f"{T}/availability")
    green.seen(lambda m: m.topic == f"{T}/availability" and _payload(m) == "online", timeout=30)
    green.subscribe(f"{T}/player/red/reply")
    props = Properties(PacketTypes.PUBLISH)
    props.CorrelationData = b"corr-42"
    props.ResponseTopic = f"{T}/player/red/reply"
    deadline_msg = None
    for _ in range(3):  # online means subscribed: the first try is answered
        green.client.publish(f"{T}/player/red/cmd", b"{broken", qos=1, properties=props).wait_for_publish(5)
        try:
            deadline_msg = green.wait_for(lambda m: m.topic.endswith("/reply"), timeout=30)
            break
        except TimeoutError:
            continue
    assert deadline_msg is not None
    assert deadline_msg.properties.CorrelationData == b"corr-42"
    assert deadline_msg.properties.MessageExpiryInterval == 60
    assert _payload(deadline_msg)["kind"] == "invalid"
    green.close()


def test_controller_with_a_wrong_password_says_which_keys_to_check(tmp_path):
    with running_mosquitto(tables=("mq",)) as broker:
        cfg = json.dumps(
            {
                "table": {"id": "mq", "database": str(tmp_path / "x.db"), "players": ["red", "blue"]},
                "mqtt": {
                    "host": broker.host,
                    "port": broker.port,
                    "username": "controller",
                    "password": "wrong",
                    "protocol": "5",
                },
                "bridge": {"enabled": False},
                "vision": {"enabled": False},
            }
        )
        env = {**os.environ, "PYTHONPATH": str(REPO)}
        run = subprocess.run(
            [sys.executable, "-m", "controller.service", "--config-json", cfg],
            cwd=REPO,
            env=env,
            capture_output=True,
            text=True,
            timeout=120,
        )
    assert run.returncode == 1 and "Traceback" not in run.stderr
    assert "cannot connect to the MQTT broker" in run.stderr and "password" in run.stderr
    # A refused login is final: the controller never waits for the broker to come (it says so each try).
    assert "waiting for the broker" not in run.stderr, run.stderr
