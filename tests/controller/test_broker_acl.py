"""The deploy/ Mosquitto config and ACL, proven against a real mosquitto.

What must not get through is checked with a marker: a message that is let through, published after the
forbidden ones; everything forbidden that leaked would have arrived before it (`Client.until`)."""

from __future__ import annotations

import threading

import paho.mqtt.client as mqtt
import pytest

from controller.testing import DEADLINE, Client, running_mosquitto

T = "table/table-1"


@pytest.fixture(scope="module")
def broker():
    with running_mosquitto() as b:
        yield b


def test_wrong_password_and_anonymous_are_refused(broker):
    bad = Client(broker, "red", "not-the-password")
    assert bad.wait_connected() is False
    bad.close()
    anon = Client(broker, None)
    assert anon.wait_connected() is False
    anon.close()


def test_red_cannot_read_blue_private_state_but_reads_public_and_own(broker):
    ctl = Client(broker, "controller")
    red = Client(broker, "red")
    assert ctl.wait_connected() and red.wait_connected()
    red.subscribe(f"{T}/#")
    ctl.publish(f"{T}/player/blue/state", '{"secret": "blue"}', retain=True)
    ctl.publish(f"{T}/player/red/state", '{"secret": "red"}', retain=True)
    ctl.publish(f"{T}/state", '{"public": 1}', retain=True)
    got = {m.topic for m in red.until(lambda m: m.topic == f"{T}/state")}
    assert f"{T}/state" in got and f"{T}/player/red/state" in got
    assert f"{T}/player/blue/state" not in got
    red.close()
    ctl.close()


def test_red_cannot_act_as_blue_nor_publish_state(broker):
    ctl = Client(broker, "controller")
    red = Client(broker, "red", transport="websockets")
    assert ctl.wait_connected() and red.wait_connected()
    ctl.publish(f"{T}/state", '{"public": 2}', retain=True)
    ctl.subscribe(f"{T}/player/+/cmd")
    ctl.subscribe(f"{T}/state")
    ctl.wait_for(lambda m: m.payload == b'{"public": 2}')  # the retained state, before red's attempts
    red.publish(f"{T}/player/blue/cmd", '{"request_id": "x"}')
    red.publish(f"{T}/state", '{"forged": true}', retain=True)
    red.publish(f"{T}/player/red/cmd", '{"request_id": "ok"}')
    got = [(m.topic, m.payload) for m in ctl.until(lambda m: m.payload == b'{"request_id": "ok"}')]
    assert got == [(f"{T}/player/red/cmd", b'{"request_id": "ok"}')]
    red.close()
    ctl.close()


def test_display_reads_public_only_and_cannot_command(broker):
    ctl = Client(broker, "controller")
    disp = Client(broker, "display", protocol="3.1.1")
    green = Client(broker, "green")
    assert ctl.wait_connected() and disp.wait_connected() and green.wait_connected()
    disp.subscribe(f"{T}/#")
    ctl.subscribe(f"{T}/player/+/cmd")
    ctl.publish(f"{T}/player/green/prompts", '{"p": 1}', retain=True)
    ctl.publish(f"{T}/events", '{"e": 1}')
    topics = {m.topic for m in disp.until(lambda m: m.topic == f"{T}/events")}
    assert f"{T}/player/green/prompts" not in topics
    disp.publish(f"{T}/player/green/cmd", '{"from": "display"}')
    green.publish(f"{T}/player/green/cmd", '{"from": "green"}')  # the marker: green may command its seat
    got = ctl.until(lambda m: m.payload == b'{"from": "green"}')
    assert [m.payload for m in got] == [b'{"from": "green"}']
    for c in (disp, ctl, green):
        c.close()


def test_a_seat_says_hello_only_for_itself_and_everyone_reads_the_seats(broker):
    ctl = Client(broker, "controller")
    red = Client(broker, "red")
    disp = Client(broker, "display")
    assert ctl.wait_connected() and red.wait_connected() and disp.wait_connected()
    ctl.subscribe(f"{T}/player/+/presence")
    disp.subscribe(f"{T}/seats")
    red.publish(f"{T}/player/blue/presence", '{"presence": "hello", "device": "evil", "take_over": true}')
    red.publish(f"{T}/seats", '{"blue": {"online": false}}', retain=True)
    red.publish(f"{T}/player/red/presence", '{"presence": "hello", "device": "d1"}')
    ctl.publish(f"{T}/seats", '{"red": {"online": true}}', retain=True)
    got = ctl.until(lambda m: m.topic == f"{T}/player/red/presence")
    assert [m.topic for m in got] == [f"{T}/player/red/presence"]
    got = disp.until(lambda m: m.payload == b'{"red": {"online": true}}')
    assert [m.payload for m in got] == [b'{"red": {"online": true}}']
    for c in (ctl, red, disp):
        c.close()


def test_a_client_id_is_its_username_so_no_login_takes_over_another(broker):
    ctl = Client(broker, "controller")
    assert ctl.wait_connected()
    ctl.subscribe(f"{T}/player/+/cmd")
    lost: list = []
    ctl.client.on_disconnect = lambda *a: lost.append(a)
    for proto in (mqtt.MQTTv5, mqtt.MQTTv311):
        c = mqtt.Client(
            mqtt.CallbackAPIVersion.VERSION2, client_id=broker.login("controller"), protocol=proto
        )
        c.username_pw_set(broker.login("red"), broker.users["red"])
        connected = threading.Event()
        c.on_connect = lambda *a, done=connected: done.set()
        c.connect(broker.host, broker.port)
        c.loop_start()
        assert connected.wait(DEADLINE)
        # A takeover would have closed the controller's session before red's login was accepted: the
        # controller then never sees what red publishes after it.
        marker = f'{{"request_id": "{proto}"}}'.encode()
        c.publish(f"{T}/player/red/cmd", marker, qos=1).wait_for_publish(DEADLINE)
        try:
            ctl.wait_for(lambda m, marker=marker: m.payload == marker)
        except TimeoutError:
            assert lost == [], "a red login with the client id `controller` closed the controller's session"
            raise
        c.loop_stop()
        c.disconnect()
    assert lost == [], "a red login with the client id `controller` closed the controller's session"
    ctl.close()
