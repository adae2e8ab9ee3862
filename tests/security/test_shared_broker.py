"""Two tables on ONE real Mosquitto (a club's shared broker, or a venue serving tablets directly): every
login names its table (`table-1/red`) and the ACL rendered for both tables (controller.broker.render_acl)
names the table in every line, so red's login at table-1 reads and writes nothing of table-2 (issue #22:
"with two tables on one broker, red's login at table-1 reads table-2's red private state").

What must not get through is checked with a marker published after the forbidden messages: Mosquitto hands
one subscriber its messages in the order it accepted them, so a leak would arrive before the marker."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator

import paho.mqtt.client as mqtt
import pytest

from controller.broker import render_acl
from controller.credentials import PLAYER_COLOURS, login, parse_login
from controller.testing import DEADLINE, Broker, Client, running_mosquitto

pytestmark = pytest.mark.integration

ONE, TWO = "table-1", "table-2"
WILDCARDS = (
    "#",
    "table/#",
    "table/+/player/red/#",
    f"table/{TWO}/#",
    f"table/{TWO}/player/+/+",
    "+/+/player/+/state",
    "+/+/+/+/+",
    "$share/g/table/#",
    "$SYS/#",
)


@pytest.fixture(scope="module")
def broker() -> Iterator[Broker]:
    with running_mosquitto(tables=(ONE, TWO)) as b:
        yield b


def _as(broker: Broker, role: str, table: str, protocol: str = "5") -> Client:
    c = Client(broker, broker.login(role, table), protocol=protocol)
    assert c.wait_connected(), f"{role} at {table} was refused its own login"
    return c


def _secrets(broker: Broker) -> Client:
    """Table-2's controller publishes every seat's private state and prompts, retained."""
    ctl2 = _as(broker, "controller", TWO)
    for seat in PLAYER_COLOURS:
        for suffix in ("state", "prompts", "reply"):
            ctl2.publish(
                f"table/{TWO}/player/{seat}/{suffix}", json.dumps({"secret": f"{TWO} {seat}"}), retain=True
            )
    ctl2.publish(f"table/{TWO}/state", json.dumps({"public": TWO}), retain=True)
    return ctl2


@pytest.mark.parametrize("protocol", ["5", "3.1.1"])
def test_red_at_table_1_never_reads_table_2s_secrets_through_any_filter(
    broker: Broker, protocol: str
) -> None:
    """A player at table-1, with every wildcard, reads table-1's public tree and its own seat: nothing of
    table-2 (not even its public state: a login is good at its own table only)."""
    ctl2 = _secrets(broker)
    ctl1 = _as(broker, "controller", ONE)
    ctl1.publish(f"table/{ONE}/player/red/state", json.dumps({"secret": f"{ONE} red"}), retain=True)
    ctl1.publish(f"table/{ONE}/player/blue/state", json.dumps({"secret": f"{ONE} blue"}), retain=True)
    red = _as(broker, "red", ONE, protocol)
    for f in WILDCARDS:
        red.subscribe(f)
    marker = json.dumps({"marker": protocol})
    ctl1.publish(f"table/{ONE}/state", marker)
    got = red.until(lambda m: m.payload == marker.encode())
    topics = {m.topic for m in got}
    assert not [t for t in topics if t.startswith(f"table/{TWO}/")], f"red at {ONE} read {sorted(topics)}"
    assert f"table/{ONE}/player/blue/state" not in topics
    assert b"secret" not in b"".join(
        m.payload for m in got if not m.topic.endswith(f"{ONE}/player/red/state")
    )
    # The attack was real: the same filters delivered red's own private state at its own table.
    assert f"table/{ONE}/player/red/state" in topics
    for c in (red, ctl1, ctl2):
        c.close()


def test_red_at_table_1_cannot_command_or_forge_anything_at_table_2(broker: Broker) -> None:
    ctl2 = _as(broker, "controller", TWO)
    watcher = _as(broker, "display", TWO)
    ctl2.subscribe(f"table/{TWO}/player/+/cmd")
    ctl2.subscribe(f"table/{TWO}/player/+/presence")
    watcher.subscribe(f"table/{TWO}/#")
    red1 = _as(broker, "red", ONE, protocol="3.1.1")
    for topic in ("player/red/cmd", "player/red/presence", "player/blue/cmd"):
        red1.publish(f"table/{TWO}/{topic}", json.dumps({"request_id": f"from {ONE}"}))
    for topic in (
        "state",
        "availability",
        "events",
        "prompts",
        "seats",
        "player/red/state",
        "player/red/reply",
    ):
        red1.publish(f"table/{TWO}/{topic}", json.dumps({"forged": ONE}), retain=True)
    ctl1 = _as(broker, "controller", ONE)  # table-1's controller owns table-1's tree only
    ctl1.publish(f"table/{TWO}/state", json.dumps({"forged": f"{ONE} controller"}), retain=True)
    ctl1.publish(f"table/{TWO}/player/red/cmd", json.dumps({"request_id": f"{ONE} controller"}))
    red2 = _as(broker, "red", TWO)
    red2.publish(f"table/{TWO}/player/red/cmd", json.dumps({"request_id": "red at table-2"}))  # the marker
    got = ctl2.until(lambda m: b"red at table-2" in m.payload)
    assert [m.payload for m in got] == [b'{"request_id": "red at table-2"}']
    ctl2.publish(f"table/{TWO}/state", json.dumps("marker"))
    seen = watcher.until(lambda m: m.payload == b'"marker"')
    assert not [m for m in seen if b"forged" in m.payload], [m.topic for m in seen]
    for c in (red1, red2, ctl1, ctl2, watcher):
        c.close()


def test_a_login_is_good_at_its_own_table_only(broker: Broker) -> None:
    """The same seat at the other table, or the bare seat name, is refused with this table's password."""
    for role in ("red", "controller", "display"):
        password = broker.users[login(ONE, role)]
        c = Client(broker, login(TWO, role), password)
        assert c.wait_connected() is False, (
            f"{login(TWO, role)} was accepted with {login(ONE, role)}'s password"
        )
        c.close()
        # The bare name, as raw paho sends it (controller.testing.Client would make it table-1's login).
        answers: list[object] = []
        raw = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2)
        raw.username_pw_set(role, password)
        raw.on_connect = lambda _c, _u, _f, rc, _p=None, got=answers: got.append(rc)
        raw.connect(broker.host, broker.port)
        raw.loop_start()
        deadline = time.monotonic() + DEADLINE
        while not answers and time.monotonic() < deadline:
            time.sleep(0.02)
        raw.loop_stop()
        raw.disconnect()
        assert answers and getattr(answers[0], "is_failure", True), f"the bare name {role!r} was accepted"


def test_spectators_and_displays_only_read_their_tables_public_tree(broker: Broker) -> None:
    ctl1 = _as(broker, "controller", ONE)
    ctl1.subscribe(f"table/{ONE}/#")
    ctl1.publish(f"table/{ONE}/player/green/prompts", json.dumps({"secret": "green"}), retain=True)
    for role in ("spectator", "display"):
        watcher = _as(broker, role, ONE)
        for f in ("#", f"table/{ONE}/player/#"):
            watcher.subscribe(f)
        for topic in ("state", "events", "player/green/cmd", "player/green/presence", "seats"):
            watcher.publish(f"table/{ONE}/{topic}", json.dumps({"forged": role}))
        marker = json.dumps({"marker": role})
        ctl1.publish(f"table/{ONE}/events", marker)
        got = ctl1.until(lambda m, marker=marker: m.payload == marker.encode())
        assert not [m for m in got if b"forged" in m.payload], f"{role} wrote {[m.topic for m in got]}"
        seen = watcher.until(lambda m, marker=marker: m.payload == marker.encode())
        assert {m.topic for m in seen} <= {
            f"table/{ONE}/{s}" for s in ("state", "events", "seats", "availability")
        }
        assert not [m for m in seen if b"secret" in m.payload]
        watcher.close()
    ctl1.close()


def test_no_login_takes_over_another_tables_session(broker: Broker) -> None:
    """The client id is the login (use_username_as_clientid): red at table-1 claiming table-2's controller's
    client id gets its own instead, and table-2's controller stays connected."""
    ctl2 = _as(broker, "controller", TWO)
    lost: list[object] = []
    ctl2.client.on_disconnect = lambda *a: lost.append(a)
    ctl2.subscribe(f"table/{TWO}/player/+/cmd")
    attacker = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=login(TWO, "controller"))
    attacker.username_pw_set(login(ONE, "red"), broker.users[login(ONE, "red")])
    attacker.connect(broker.host, broker.port)
    attacker.loop_start()
    red2 = _as(broker, "red", TWO)
    red2.publish(f"table/{TWO}/player/red/cmd", '{"request_id": "still here"}')
    ctl2.wait_for(lambda m: b"still here" in m.payload)
    assert lost == [], "a table-1 login closed table-2's controller's session"
    attacker.loop_stop()
    attacker.disconnect()
    for c in (ctl2, red2):
        c.close()


def test_the_acl_names_a_table_in_every_line() -> None:
    acl = render_acl([ONE, TWO])
    rules = [line for line in acl.splitlines() if line and not line.startswith("#")]
    assert not [r for r in rules if r.startswith("pattern") or "+" in r or "%" in r]
    user = ""
    for rule in rules:
        if rule.startswith("user "):
            user = rule.split(" ", 1)[1]
            assert parse_login(user), f"{user!r} does not name its table"
            continue
        table, role = parse_login(user) or ("", "")
        topic = rule.split()[-1]
        assert topic.startswith(f"table/{table}/"), f"{user}: {rule}"
        if "/player/" in topic:
            assert topic.startswith(f"table/{table}/player/{role}/"), f"{user}: {rule}"


def test_tablets_acl_prints_the_acl_a_shared_broker_needs() -> None:
    import subprocess
    import sys

    run = [sys.executable, "-m", "smart_table", "tablets", "acl"]
    r = subprocess.run([*run, "--table", ONE, "--table", TWO], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and r.stdout == render_acl([ONE, TWO])
    bad = subprocess.run([*run, "--table", "a/b"], capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "is not a table id" in bad.stderr and "Traceback" not in bad.stderr


def test_two_controllers_on_one_broker_serve_only_their_own_table(broker: Broker, tmp_path) -> None:
    """Two real controllers (TableCore + MqttLink, each with its own table's login) on the one broker: red's
    tablet at table-1 gets its own private state from table-1's controller and nothing of table-2, and its
    command on table-2's red topic never reaches table-2's controller, which answers table-2's red."""
    from controller.core import TableCore
    from controller.gamelog import GameLog
    from controller.mqtt import MqttLink

    links, cores, logs = {}, {}, []
    red1 = red2 = None
    try:
        for table, seed in ((ONE, 3), (TWO, 4)):
            log = GameLog(tmp_path / f"{table}.db")
            logs.append(log)
            password = broker.users[login(table, "controller")]
            links[table] = MqttLink(broker.host, broker.port, "controller", password, table_id=table)
            cores[table] = TableCore(log, table_id=table, publisher=links[table])
            cores[table].open_game(["red", "blue"], seed)
            links[table].start(cores[table])
        red1, red2 = _as(broker, "red", ONE), _as(broker, "red", TWO)
        for f in ("#", "table/+/player/red/#"):
            red1.subscribe(f)
        red2.subscribe(f"table/{TWO}/player/red/reply")
        stale = {"seq": -1, "action": {"type": "end_turn"}}
        red1.publish(f"table/{TWO}/player/red/cmd", json.dumps({"request_id": "from-table-1", **stale}))
        red2.publish(f"table/{TWO}/player/red/cmd", json.dumps({"request_id": "from-table-2", **stale}))
        replies = red2.until(lambda m: b"from-table-2" in m.payload)
        assert not [m for m in replies if b"from-table-1" in m.payload], (
            "table-2's controller took table-1's red"
        )
        red1.publish(f"table/{ONE}/player/red/cmd", json.dumps({"request_id": "own", **stale}))
        got = red1.until(lambda m: b'"own"' in m.payload)
        topics = {m.topic for m in got}
        assert f"table/{ONE}/player/red/state" in topics, "table-1's controller never sent red its state"
        assert not [t for t in topics if t.startswith(f"table/{TWO}/")], sorted(topics)
    finally:
        for c in (red1, red2):
            if c is not None:
                c.close()
        for link in links.values():
            link.stop()
        for log in logs:
            log.close()
