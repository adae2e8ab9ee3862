"""The link end to end over a real pseudo-terminal: the simulator on one side, the bridge on the other."""

from __future__ import annotations

import queue
import time

import pytest

from firmware_bridge.sim import Faults, SimError


def _wait_for_type(q: queue.Queue[dict], kind: str, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while (left := deadline - time.monotonic()) > 0:
        try:
            if q.get(timeout=left)["type"] == kind:
                return True
        except queue.Empty:
            return False
    return False


def test_ten_thousand_events_on_a_lossy_line_arrive_once_in_order_uncorrupted(make_link) -> None:
    link = make_link(Faults(drop=0.005, flip=0.005, dup=0.02), seed=11)
    assert link.bridge.wait_synced(5)
    link.sim.play_random(10_000)
    assert link.sim.wait_done(85), link.sim.status()
    assert link.wait_for(lambda: len(link.events()) >= 10_000, 30)
    got = link.events()
    assert [m["seq"] for m in got] == list(range(1, 10_001))
    assert got == link.sim.sent  # every field of every event, exactly as the device meant it
    health = link.bridge.health()
    # The faults were really there and really recovered from.
    assert health["crc_errors"] > 100 and health["duplicates"] > 10 and health["retransmissions"] > 100
    # A 16-bit CRC lets about 1 in 65,536 corrupted frames through; with ~3,000 corrupted frames a run
    # sees one such frame now and then. The payload check must catch it and the resend recover it.
    assert health["resend_requests"] > 10 and health["malformed"] <= 3


def test_unplug_and_replug_in_the_middle_loses_nothing(make_link) -> None:
    link = make_link(seed=3, interval_ms=2)
    assert link.bridge.wait_synced(5)
    link.sim.play_random(800)
    assert link.wait_for(lambda: len(link.events()) >= 150, 30)
    link.sim.unplug(700)
    assert link.wait_for(lambda: "down" in link.link_states, 30), "unplug not noticed"
    assert link.wait_for(lambda: link.sim.status()["plugged"], 30)
    # The link is back at once on an idle machine; the deadline is for a loaded one, not a latency bound.
    assert link.wait_for(lambda: link.bridge.health()["link"] == "up", 30), "link not back after the replug"
    assert link.sim.wait_done(30)
    assert link.wait_for(lambda: len(link.events()) >= 800, 30)
    assert link.events() == link.sim.sent
    assert [m["seq"] for m in link.events()] == list(range(1, 801))
    health = link.bridge.health()
    assert health["reconnects"] == 2 and health["resyncs"] == 2 and health["reboots"] == 0
    hellos = [m for m in link.got if m["type"] == "hello"]
    assert len(hellos) == 2 and not hellos[1]["rebooted"]


def test_a_reboot_is_noticed_and_resynchronised_from_a_full_state(make_link) -> None:
    link = make_link(seed=4)
    assert link.bridge.wait_synced(5)
    link.sim.drop({"red": 3})
    assert link.wait_for(lambda: len([m for m in link.events() if m["type"] == "tower_quiet"]) == 1, 30)
    link.sim.set_zones({"r2c3": True})
    assert link.wait_for(lambda: len(link.events()) == 5, 30)
    link.sim.reboot()
    assert link.wait_for(lambda: any(m["type"] == "hello" and m["rebooted"] for m in link.got), 30)
    assert link.wait_for(lambda: any(m["type"] == "full_state" and m["boot"] == 2 for m in link.got), 30)
    state = next(m for m in link.got if m["type"] == "full_state" and m["boot"] == 2)
    assert state["totals"]["red"] == 0 and state["squares"]["r2c3"]  # counters restart; ships stay put
    link.sim.drop({"blue": 2})
    assert link.wait_for(lambda: len(link.events()) == 8, 30)
    after = link.events()[5:]
    assert [(m["boot"], m["seq"], m["type"]) for m in after] == [
        (2, 1, "cube_dropped"),
        (2, 2, "cube_dropped"),
        (2, 3, "tower_quiet"),
    ]
    assert after[1]["totals"]["blue"] == 2
    assert link.events() == link.sim.sent
    health = link.bridge.health()
    assert health["reboots"] == 1 and health["boot"] == 2 and health["link"] == "up"


def test_unplug_with_a_power_cycle_resynchronises(make_link) -> None:
    link = make_link(seed=5)
    assert link.bridge.wait_synced(5)
    link.sim.drop({"green": 2})
    assert link.wait_for(lambda: len(link.events()) == 3, 30)
    link.sim.unplug(300, reboot=True)
    assert link.wait_for(
        lambda: link.bridge.health()["boot"] == 2 and link.bridge.health()["link"] == "up", 4
    )
    link.sim.control({"move": {"from": "r1c1", "to": "r4c4"}})
    assert link.wait_for(lambda: len(link.events()) == 4, 30)
    last = link.events()[-1]
    assert (last["boot"], last["seq"], last["squares"]["r4c4"]) == (2, 1, True)


def test_commands_are_acknowledged_and_executed_once_on_a_noisy_line(make_link) -> None:
    link = make_link(Faults(drop=0.01, flip=0.01), seed=6)
    assert link.bridge.wait_synced(10)
    results = [
        link.bridge.command({"cmd": "buzzer", "freq_hz": 440 + i, "ms": 50}, timeout=10) for i in range(12)
    ]
    assert all(r["ok"] for r in results), results
    # retries never execute twice
    assert link.sim.outputs.buzzes == [(440 + i, 50) for i in range(12)], (results, link.sim.outputs)
    assert sum(r["attempts"] for r in results) > 12
    # The same 10 s as above: on this line a round trip fails about half the time, and a loaded machine
    # stretches the 0.1 s between retries.
    r = link.bridge.command(
        {"cmd": "led", "rgb": "#ff8000", "pattern": "pulse", "period_ms": 800}, timeout=10
    )
    assert r["ok"] and link.sim.outputs.led == (255, 128, 0, "pulse", 800), (r, link.sim.outputs)
    r = link.bridge.command({"cmd": "calibrate", "colour": "yellow"}, timeout=10)
    assert r["ok"] and link.sim.outputs.calibrations == ["yellow"], (r, link.sim.outputs)


def test_request_state_and_reset_counters(make_link) -> None:
    link = make_link(seed=7)
    assert link.bridge.wait_synced(5)
    link.sim.drop({"black": 4})
    link.sim.set_zones({"r1c2": True, "harbor": [True, False, False, True]})
    assert link.wait_for(lambda: len(link.events()) == 6, 30)
    r = link.bridge.command({"cmd": "request_state"})
    assert r["ok"] and r["state"]["totals"]["black"] == 4
    assert r["state"]["squares"]["r1c2"] and r["state"]["harbor"] == [True, False, False, True]
    assert link.bridge.command({"cmd": "reset_counters"})["ok"]
    assert link.bridge.command({"cmd": "request_state"})["state"]["totals"]["black"] == 0


def test_bad_commands_get_a_sentence_and_change_nothing(make_link) -> None:
    link = make_link(seed=8)
    assert link.bridge.wait_synced(5)
    r = link.bridge.command({"cmd": "led", "rgb": [300, 0, 0]})
    assert not r["ok"] and "0..255" in r["error"]
    r = link.bridge.command({"cmd": "dance"})
    assert not r["ok"] and "unknown command 'dance'" in r["error"]
    assert link.sim.outputs.led is None
    with pytest.raises(SimError, match="colour 'mauve' is not one of"):
        link.sim.control({"drop": {"mauve": 1}})
    with pytest.raises(SimError, match="off the 4x4 grid"):
        link.sim.control({"zones": {"r9c9": True}})


def test_a_command_waits_for_the_link_and_fails_clearly_when_it_never_comes(make_link) -> None:
    link = make_link(seed=9)
    assert link.bridge.wait_synced(5)
    link.sim.unplug(5000)
    assert link.wait_for(
        lambda: link.bridge.health()["link"] == "down", 4
    )  # down for 5 s: polling sees it within that
    r = link.bridge.command({"cmd": "buzzer"}, timeout=0.5)
    assert not r["ok"] and "down" in r["error"]


def test_delayed_and_duplicated_frames_still_arrive_once_in_order(make_link) -> None:
    link = make_link(Faults(dup=0.2, delay_ms=30), seed=12)
    assert link.bridge.wait_synced(5)
    link.sim.play_random(300)
    assert link.sim.wait_done(30)
    assert link.wait_for(lambda: len(link.events()) >= 300, 30)
    assert link.events() == link.sim.sent
    assert link.bridge.health()["duplicates"] > 10


def test_a_silent_device_makes_the_link_stale_and_traffic_brings_it_back(tmp_path) -> None:
    from firmware_bridge.host import Bridge
    from firmware_bridge.sim import FirmwareSim

    sim = FirmwareSim(link=str(tmp_path / "tower"), heartbeat_ms=60_000)
    bridge = Bridge(sim.start(), stale_after=0.3, health_interval=30)
    bridge.start()
    try:
        assert bridge.wait_synced(5)
        deadline = time.monotonic() + 30
        while bridge.health()["link"] != "stale" and time.monotonic() < deadline:
            time.sleep(0.02)
        assert bridge.health()["link"] == "stale"
        sim.drop({"white": 1})
        deadline = time.monotonic() + 30
        while bridge.health()["link"] != "up" and time.monotonic() < deadline:
            time.sleep(0.02)
        assert bridge.health()["link"] == "up"
    finally:
        bridge.stop()
        sim.stop()


def test_the_port_is_found_by_usb_id(tmp_path, monkeypatch) -> None:
    # No USB device can exist here: only the port listing is faked; opening, syncing and events run for real.
    import serial.tools.list_ports
    from serial.tools.list_ports_common import ListPortInfo

    from firmware_bridge.host import Bridge, BridgeError, resolve_device
    from firmware_bridge.sim import FirmwareSim

    sim = FirmwareSim(link=str(tmp_path / "tower"))
    path = sim.start()
    info = ListPortInfo(path, skip_link_detection=True)
    info.vid, info.pid, info.serial_number = 0x2E8A, 0x0005, "E661"
    monkeypatch.setattr(serial.tools.list_ports, "comports", lambda: [info])
    assert resolve_device("usb:2e8a:0005:E661") == path
    with pytest.raises(BridgeError, match="no USB serial device 2e8a:0006"):
        resolve_device("usb:2e8a:0006")
    got: queue.Queue[dict] = queue.Queue()
    bridge = Bridge("usb:2e8a:0005", events=got).start()
    try:
        assert bridge.wait_synced(5)
        sim.drop({"purple": 1})
        # The state is asked only once the cube's event has arrived: before it, 0 would be the right answer.
        assert _wait_for_type(got, "tower_quiet", 30)
        assert bridge.command({"cmd": "request_state"})["state"]["totals"]["purple"] == 1
    finally:
        bridge.stop()
        sim.stop()


def test_the_sim_speaks_on_an_existing_tty(tmp_path) -> None:
    # Two pty pairs relayed into one another (what socat does): the sim opens one slave with --device
    # semantics, the bridge the other.
    import os
    import pty
    import select
    import threading
    import tty

    from firmware_bridge.host import Bridge
    from firmware_bridge.sim import FirmwareSim

    m1, s1 = pty.openpty()
    m2, s2 = pty.openpty()
    for fd in (s1, s2):
        tty.setraw(fd)
    stop = threading.Event()

    def relay() -> None:
        while not stop.is_set():
            ready, _, _ = select.select([m1, m2], [], [], 0.01)
            for fd in ready:
                try:
                    os.write(m2 if fd == m1 else m1, os.read(fd, 4096))
                except OSError:
                    pass

    thread = threading.Thread(target=relay, daemon=True)
    thread.start()
    sim = FirmwareSim(device=os.ttyname(s1))
    assert sim.start() == os.ttyname(s1)
    bridge = Bridge(os.ttyname(s2)).start()
    try:
        assert bridge.wait_synced(5)
        sim.drop({"black": 2})
        assert sim.wait_done(5)  # every event acknowledged, so the bridge has delivered them
        assert bridge.health()["events"] == 3
    finally:
        bridge.stop()
        sim.stop()
        stop.set()
        thread.join(1)
        for fd in (m1, s1, m2, s2):
            os.close(fd)


def test_a_restarted_bridge_picks_up_what_the_device_kept(make_link) -> None:
    import queue as queue_mod

    from firmware_bridge.host import Bridge

    link = make_link(seed=13)
    assert link.bridge.wait_synced(5)
    link.sim.drop({"red": 2})
    assert link.wait_for(lambda: len(link.events()) == 3 and link.sim.status()["acked"] == 3, 30)
    link.bridge.stop()
    link.sim.drop({"yellow": 3})  # nobody listening: the device keeps them unacknowledged
    assert link.wait_for(lambda: link.sim.status()["last_seq"] == 7, 30)
    q: queue_mod.Queue = queue_mod.Queue()
    link.bridge = Bridge(link.path, events=q).start()
    got: list[dict] = []
    deadline = time.monotonic() + 30
    while len([m for m in got if m["type"] == "tower_quiet"]) < 1 and time.monotonic() < deadline:
        try:
            got.append(q.get(timeout=0.1))
        except queue_mod.Empty:
            pass
    events = [m for m in got if m["type"] in ("cube_dropped", "tower_quiet")]
    assert [(m["seq"], m.get("colour")) for m in events] == [
        (4, "yellow"),
        (5, "yellow"),
        (6, "yellow"),
        (7, None),
    ]
    assert events == link.sim.sent[3:]
