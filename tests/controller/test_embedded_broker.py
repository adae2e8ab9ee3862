"""The embedded broker is Mosquitto configured from deploy/mosquitto/ (controller/broker.py): the same
config lines and ACL, private files, loopback-only listeners when asked, and the same logins as a system
Mosquitto whose password file `smart-table tablets add` writes. Seat holding (controller.mqtt.Seats)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from controller.broker import DEPLOY, mosquitto_binary, render_config, write_broker_files, ws_bind
from controller.credentials import CredentialStore, set_user, table_logins
from controller.mqtt import SEAT_GRACE_S, Seats
from controller.testing import Broker, Client, _wait_listening, free_port, running_mosquitto


def test_the_embedded_config_is_the_deploy_config_with_its_paths_and_listeners(tmp_path: Path) -> None:
    template = (DEPLOY / "mosquitto.conf").read_text()
    text = render_config(template, tmp_path, "127.0.0.1", 1999, 2999, "127.0.0.1")
    kept = [
        ln
        for ln in template.splitlines()
        if ln and not ln.startswith(("#", "listener", "password_file", "acl_file"))
    ]
    assert all(ln in text.splitlines() for ln in kept)  # allow_anonymous false, use_username_as_clientid, ...
    assert "listener 1999 127.0.0.1" in text and "listener 2999 lo" in text
    assert f"password_file {tmp_path / 'passwd'}" in text and f"acl_file {tmp_path / 'acl'}" in text
    assert ws_bind("0.0.0.0") == "" and ws_bind("192.168.1.20") == "" and ws_bind("localhost") == "lo"
    assert "listener 2999\n" in render_config(template, tmp_path, "127.0.0.1", 1999, 2999, "0.0.0.0")


def test_embedded_and_system_mosquitto_accept_the_same_stored_logins(tmp_path: Path) -> None:
    with CredentialStore(tmp_path / "game.db") as store:
        users = store.ensure("table-1", ["controller", "display", "red", "blue"])
    assert oct((tmp_path / "game.db").stat().st_mode & 0o777) == "0o600"
    # The system broker's password file, as `smart-table tablets add red` writes it.
    system = tmp_path / "system.passwd"
    set_user(system, "table-1/red", users["red"])
    # The embedded broker's files, as `smart-table run` writes them.
    port, ws = free_port(), free_port()
    logins = table_logins("table-1", users)
    conf = write_broker_files(tmp_path / "embedded", logins, "127.0.0.1", port, ws, "127.0.0.1")
    assert (tmp_path / "embedded").stat().st_mode & 0o077 == 0
    assert all(f.stat().st_mode & 0o077 == 0 for f in (tmp_path / "embedded").iterdir())
    binary = mosquitto_binary()
    assert binary is not None
    proc = subprocess.Popen([binary, "-c", str(conf)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        embedded = Broker("127.0.0.1", port, ws, logins, tmp_path / "embedded", proc)
        _wait_listening(embedded, 10)
        with running_mosquitto(passwd_file=system) as system_broker:
            for b in (embedded, system_broker):
                ok = Client(b, "red", users["red"])
                bad = Client(b, "red", users["red"] + "x")
                assert ok.wait_connected() and bad.wait_connected() is False
                ok.close()
                bad.close()
    finally:
        proc.kill()
        proc.wait(timeout=5)


def test_a_seat_has_one_device_and_a_second_is_told_it_is_taken() -> None:
    now = [1000.0]
    seats = Seats(clock=lambda: now[0])
    assert seats.hello("red", "phone", False)["presence"] == "granted"
    assert seats.hello("red", "phone", False)["presence"] == "granted"  # a reload is the same device
    taken = seats.hello("red", "tablet", False)
    assert taken["presence"] == "taken" and "another device" in taken["reason"]
    # The phone was knocked off by the tablet's connection: its Last Will arrives first; still taken.
    assert seats.offline("red", "phone")
    assert seats.hello("red", "tablet", False)["presence"] == "taken"
    assert seats.hello("red", "phone", False)["presence"] == "granted"  # the phone's reconnect
    # Taking over is always granted; the old device is then the one told.
    assert seats.hello("red", "tablet", True)["took_over"] is True
    assert seats.hello("red", "phone", False)["presence"] == "taken"
    assert not seats.offline("red", "phone")  # not the holder: no change
    # A device that left long ago leaves the seat free.
    assert seats.offline("red", "tablet")
    now[0] += SEAT_GRACE_S + 0.1
    assert seats.hello("red", "phone", False)["presence"] == "granted"
    assert seats.public() == {"red": {"online": True, "since": now[0]}}
    assert seats.hello("blue", "x", False)["presence"] == "granted"
