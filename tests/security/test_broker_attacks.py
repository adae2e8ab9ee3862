"""Attacks on the default table's broker, each by a login a player holds (or none): connect-time leaks,
wildcard and $SYS subscriptions, client-id takeover, spoofed state and commands. Each attack that
succeeds fails the suite (issue #14)."""

from __future__ import annotations

import json
import time

import paho.mqtt.client as mqtt
import pytest

from tests.security.conftest import PLAYERS, Login, Table

pytestmark = pytest.mark.integration

PUBLIC = ("availability", "state", "events", "prompts", "seats")


def _allowed(base: str, user: str, topic: str) -> bool:
    """May `user` read `topic`? The public tree, and a player's own private subtree."""
    rest = topic[len(base) + 1 :] if topic.startswith(base + "/") else None
    if rest is None:
        return False
    if rest in PUBLIC or rest.startswith("device/"):
        return True
    return (
        user in PLAYERS
        and rest.startswith(f"player/{user}/")
        and rest.split("/")[2] in ("state", "prompts", "reply")
    )


@pytest.mark.parametrize("protocol", [mqtt.MQTTv5, mqtt.MQTTv311], ids=["mqtt5", "mqtt311"])
def test_no_login_receives_anything_by_merely_connecting(
    table: Table, protocol: mqtt.MQTTProtocolVersion
) -> None:
    """amqtt sent a new client the retained messages of every filter any session had subscribed to."""
    # Every login is watched at once, each for at least 1.5 s after its CONNACK: one window for the five,
    # where one after another spent five.
    logins = {user: Login(table, user, protocol=protocol) for user in ("display", *PLAYERS)}
    try:
        for user, c in logins.items():
            assert c.wait_connected(), f"{user}'s own login was refused"
        window_ends = time.monotonic() + 1.5
        for user, c in logins.items():
            got = c.collect(max(0.0, window_ends - time.monotonic()))
            assert got == [], f"{user} received {[m.topic for m in got]} without subscribing to anything"
    finally:
        for c in logins.values():
            c.close()


@pytest.mark.parametrize("protocol", [mqtt.MQTTv5, mqtt.MQTTv311], ids=["mqtt5", "mqtt311"])
def test_wildcards_never_reach_another_login_s_secrets(
    table: Table, protocol: mqtt.MQTTProtocolVersion
) -> None:
    def filters(user: str) -> list[str]:
        # The logins attack at once (below), so each has a share group of its own: one group for all would
        # split the shared subscription's messages among them, where one login alone gets every one.
        return [
            "#",
            "table/#",
            "+/+/player/+/state",
            f"{table.base}/player/#",
            f"{table.base}/player/+/+",
            "+/+/+/+/+",
            "$SYS/#",
            "$SYS/broker/version",
            f"$share/g-{user}/table/#",
        ]

    # Every login subscribes, then all are watched at once, each for at least 2.5 s after its last
    # SUBACK: one window for the five, where one after another spent five.
    logins = {user: Login(table, user, protocol=protocol) for user in ("display", *PLAYERS)}
    try:
        for user, c in logins.items():
            assert c.wait_connected()
            for f in filters(user):
                try:
                    c.subscribe(f)
                except AssertionError:
                    pass  # a subscription refused outright is fine
        window_ends = time.monotonic() + 2.5
        for user, c in logins.items():
            own = {f"{table.base}/state"} | (
                {f"{table.base}/player/{user}/state"} if user in PLAYERS else set()
            )
            got = c.collect(
                max(0.0, window_ends - time.monotonic()),
                until=lambda got, own=own: own <= {m.topic for m in got},
            )
            leaked = sorted({m.topic for m in got if not _allowed(table.base, user, m.topic)})
            assert not leaked, f"{user} read {leaked} ({sum(len(m.payload) for m in got)} bytes in all)"
            # The attack was real: the same login did get the public state through the same filters.
            assert any(m.topic == f"{table.base}/state" for m in got), f"{user} saw no public state at all"
            if user in PLAYERS:
                assert any(m.topic == f"{table.base}/player/{user}/state" for m in got)
    finally:
        for c in logins.values():
            c.close()


def test_anonymous_and_wrong_password_logins_are_refused(table: Table) -> None:
    # All eight attempts connect at once (each its own connection, answered on its own): one wait for the
    # eight CONNACKs, where one after another waited eight times.
    wrong = [
        (None, None),
        ("red", "wrong"),
        ("controller", "guess"),
        ("admin", "admin"),
        ("red", table.users["blue"]),
    ]
    # A login names its table: the bare role with its right password is no login at all.
    bare = ["red", "controller", "display"]
    attempts = [(f"login {u!r}/{p!r} was accepted", Login(table, u, p)) for u, p in wrong] + [
        (f"the bare name {u!r} was accepted", Login(table, u, table.users[u], exact=True)) for u in bare
    ]
    try:
        for what, c in attempts:
            assert c.wait_connected() is False, what
    finally:
        for _, c in attempts:
            c.close()


def test_no_login_can_take_over_the_controller_or_another_seat(table: Table) -> None:
    """A player logging in with the client id `controller` took over the controller's session (amqtt)."""
    watcher = Login(table, "display")
    blue = Login(table, "blue", client_id="blue")
    try:
        assert watcher.wait_connected() and blue.wait_connected()
        watcher.subscribe(f"{table.base}/availability")
        watcher.wait_for(lambda m: json.loads(m.payload) == "online")
        for victim in ("controller", "blue", "display", ""):
            for protocol in (mqtt.MQTTv5, mqtt.MQTTv311):
                attacker = Login(table, "red", client_id=victim or "red", protocol=protocol)
                try:
                    attacker.wait_connected()
                    time.sleep(0.3)  # a takeover shows at once: the victim's session is closed
                finally:
                    attacker.close()
        offline = [m for m in watcher.collect(1.0) if json.loads(m.payload) != "online"]
        assert not offline, "the controller was knocked off (its Last Will said offline)"
        assert blue.disconnects == [], f"blue's connection was taken over: {blue.disconnects}"
        # The controller still hears commands: red's command gets its reply.
        red = Login(table, "red")
        try:
            assert red.wait_connected()
            red.subscribe(f"{table.base}/player/red/reply")
            red.publish(
                f"{table.base}/player/red/cmd",
                json.dumps({"request_id": "after-takeover", "seq": -1, "action": {"type": "end_turn"}}),
            )
            reply = json.loads(red.wait_for(lambda m: b"after-takeover" in m.payload).payload)
            assert reply["accepted"] is False and reply["kind"] in ("stale", "illegal")
        finally:
            red.close()
    finally:
        watcher.close()
        blue.close()


def test_spoofed_state_and_commands_change_nothing(table: Table) -> None:
    red = Login(table, "red")
    blue = Login(table, "blue")
    try:
        assert red.wait_connected() and blue.wait_connected()
        blue.subscribe(f"{table.base}/player/blue/reply")
        red.subscribe(f"{table.base}/player/red/reply")
        fake = json.dumps({"epoch": "spoofed", "seq": 10**9, "view": {"players": []}})
        for topic in (
            "state",
            "availability",
            "prompts",
            "seats",
            "events",
            "player/blue/state",
            "player/blue/prompts",
            "player/blue/reply",
            "device/tower/availability",
        ):
            red.publish(f"{table.base}/{topic}", fake, retain=True)
        # Commands for another seat: on its topic, or naming it on one's own.
        red.publish(
            f"{table.base}/player/blue/cmd",
            json.dumps({"request_id": "spoof-1", "seq": 0, "action": {"type": "end_turn"}}),
        )
        red.publish(
            f"{table.base}/player/blue/presence",
            json.dumps({"presence": "hello", "device": "evil", "take_over": True}),
        )
        red.publish(
            f"{table.base}/player/red/cmd",
            json.dumps({"request_id": "spoof-2", "seq": 0, "player": "blue", "action": {"type": "end_turn"}}),
        )
        own = json.loads(red.wait_for(lambda m: b"spoof-2" in m.payload).payload)
        assert own["accepted"] is False and own["kind"] == "illegal"
        assert not [m for m in blue.collect(1.5) if b"spoof" in m.payload or b"evil" in m.payload]
    finally:
        red.close()
        blue.close()
    # A fresh login sees the controller's retained topics, not the spoofed ones.
    check = Login(table, "blue")
    try:
        assert check.wait_connected()
        for topic in ("state", "availability", "player/blue/state", "seats"):
            check.subscribe(f"{table.base}/{topic}")
        want = {f"{table.base}/{topic}" for topic in ("state", "availability", "player/blue/state")}
        got = {
            m.topic: m.payload for m in check.collect(2.0, until=lambda got: want <= {m.topic for m in got})
        }
        assert got.get(f"{table.base}/availability") == b'"online"'
        assert json.loads(got[f"{table.base}/state"])["epoch"] != "spoofed"
        assert json.loads(got[f"{table.base}/player/blue/state"])["epoch"] != "spoofed"
        assert b"spoofed" not in got.get(f"{table.base}/seats", b"")
    finally:
        check.close()
