"""A table's Mosquitto bridged to a venue Mosquitto (issue: a venue of many tables), two real brokers.

What a venue relies on: the table's public topics reach the venue, a player's secrets never do, what the
table publishes while the venue is down arrives once it is back, and one table's login at the venue can
write only its own table's topics.
"""

from __future__ import annotations

import json
import secrets
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from contracts.topics import MQTT_PUBLIC, VENUE_REFILL_IN, VENUE_REFILL_OUT
from controller.broker import DEPLOY, render_acl, render_venue_acl, venue_bridge, write_broker_files
from controller.credentials import ROLES, login
from controller.testing import Broker, Client, free_port
from tests.support.venue import Venue, make_venue, mosquitto_at, start_venue, wait_for

TABLE = "table-1"


@pytest.fixture
def venue_and_table() -> Iterator[tuple[Venue, Broker, Path, dict[str, str]]]:
    with tempfile.TemporaryDirectory(prefix="venue-") as tmp:
        root = Path(tmp)
        venue = make_venue(root / "venue", [TABLE, "table-2"])
        venue_users = venue.users

        table_users = {login(TABLE, role): secrets.token_urlsafe(9) for role in ROLES}
        table_port, table_ws = free_port(), free_port()
        bridge = venue_bridge(
            TABLE,
            {"host": "127.0.0.1", "port": venue.port, "password": venue_users[login(TABLE, "bridge")]},
        )
        table_conf = write_broker_files(
            root / "table", table_users, "127.0.0.1", table_port, table_ws, "127.0.0.1", extra=bridge
        )
        with mosquitto_at(table_conf, root / "table", table_port, table_ws, table_users) as table:
            yield venue, table, root, venue_users


def test_public_topics_cross_to_the_venue_and_secrets_never_do(venue_and_table) -> None:
    venue_cfg, table, _root, venue_users = venue_and_table
    with start_venue(venue_cfg) as venue:
        watcher = Client(venue, "venue", venue_users["venue"], protocol="3.1.1")
        assert watcher.wait_connected()
        watcher.subscribe("#")
        controller = Client(table, "controller", protocol="3.1.1")
        assert controller.wait_connected()
        # The bridge may still be connecting: the venue link's own notification says when it is up.
        assert wait_for(watcher, f"table/{TABLE}/venue", "1"), "the table's bridge never reached the venue"
        controller.publish(f"table/{TABLE}/player/red/state", json.dumps({"hand": ["crew-1"]}))
        controller.publish(f"table/{TABLE}/player/red/reply", json.dumps({"ok": True}))
        for suffix in MQTT_PUBLIC:
            topic = f"table/{TABLE}/{suffix.replace('#', 'tower/availability')}"
            controller.publish(topic, json.dumps({"public": suffix}))
        controller.publish(f"table/{TABLE}/state", json.dumps("last"))
        assert wait_for(watcher, f"table/{TABLE}/state", json.dumps("last"))
        seen = {m.topic for m in watcher.history}
        for suffix in MQTT_PUBLIC:
            assert f"table/{TABLE}/{suffix.replace('#', 'tower/availability')}" in seen
        assert not [t for t in seen if "/player/" in t], f"a private topic reached the venue: {seen}"


def test_what_the_table_publishes_while_the_venue_is_down_arrives_when_it_is_back(venue_and_table) -> None:
    venue_cfg, table, _root, venue_users = venue_and_table
    controller = Client(table, "controller", protocol="3.1.1")
    assert controller.wait_connected()
    with start_venue(venue_cfg) as venue:
        watcher = Client(venue, "venue", venue_users["venue"], protocol="3.1.1")
        assert watcher.wait_connected()
        watcher.subscribe(f"table/{TABLE}/#")
        assert wait_for(watcher, f"table/{TABLE}/venue", "1")
        watcher.client.disconnect()
    # The venue is down: the table plays on and publishes three events.
    for n in range(3):
        controller.publish(f"table/{TABLE}/events", json.dumps({"n": n}))
    with start_venue(venue_cfg) as venue:
        watcher = Client(venue, "venue", venue_users["venue"], protocol="3.1.1")
        assert watcher.wait_connected()
        watcher.subscribe(f"table/{TABLE}/#")
        assert wait_for(watcher, f"table/{TABLE}/events", json.dumps({"n": 2}), timeout=60)
        events = [m.payload.decode() for m in watcher.history if m.topic == f"table/{TABLE}/events"]
        assert events == [json.dumps({"n": n}) for n in range(3)]


def test_one_tables_login_cannot_write_another_tables_topics_and_spectators_only_read(
    venue_and_table,
) -> None:
    venue_cfg, _table, _root, venue_users = venue_and_table
    with start_venue(venue_cfg) as venue:
        watcher = Client(venue, "venue", venue_users["venue"], protocol="3.1.1")
        assert watcher.wait_connected()
        watcher.subscribe("table/#")
        other = Client(venue, "table-2/bridge", venue_users["table-2/bridge"], protocol="3.1.1")
        assert other.wait_connected()
        spectator = Client(venue, "spectator", venue_users["spectator"], protocol="3.1.1")
        assert spectator.wait_connected()
        other.publish(f"table/{TABLE}/state", json.dumps("forged by table-2"))
        spectator.publish(f"table/{TABLE}/state", json.dumps("forged by a spectator"))
        other.publish("table/table-2/state", json.dumps("table-2's own"))
        assert wait_for(watcher, "table/table-2/state", json.dumps("table-2's own"))
        forged = [m for m in watcher.history if m.topic == f"table/{TABLE}/state"]
        assert forged == [], [m.payload for m in forged]


def test_no_venue_means_no_bridge() -> None:
    assert venue_bridge(TABLE, {"host": ""}) == []
    lines = venue_bridge(TABLE, {"host": "venue.local", "port": 8883, "cafile": "/etc/ca.pem"})
    assert "address venue.local:8883" in lines and "bridge_cafile /etc/ca.pem" in lines
    assert all("/player/" not in line for line in lines)


def test_the_acls_grant_exactly_the_public_topics_of_the_contract() -> None:
    table_acl = (DEPLOY / "acl").read_text().split("\n\n")
    display = next(block for block in table_acl if block.startswith("user table-1/display\n"))
    read = {
        line.split("table/table-1/", 1)[1] for line in display.splitlines() if line.startswith("topic read ")
    }
    assert read == set(MQTT_PUBLIC)
    venue_acl = (DEPLOY / "venue-acl").read_text()
    assert venue_acl == render_venue_acl(["table-1"]) and (DEPLOY / "acl").read_text() == render_acl(
        ["table-1"]
    )
    bridge = venue_acl.split("user table-1/bridge\n", 1)[1].splitlines()
    writes = {line.split("table/table-1/", 1)[1] for line in bridge if line.startswith("topic write ")}
    assert writes == set(MQTT_PUBLIC) | {"venue"} | set(VENUE_REFILL_OUT)
    # The refill's answers and index never reach a tablet or spectator: no read but the table's own ask.
    reads = [line for line in venue_acl.splitlines() if line.startswith("topic read") and "refill" in line]
    assert reads == [f"topic read table/table-1/{VENUE_REFILL_IN}"]
