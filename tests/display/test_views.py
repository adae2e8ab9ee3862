"""The pages against a real Mosquitto, fed by a publisher with the controller's credentials.

These pin the display's own duties (rendering what arrives, privacy through the ACL, connection state);
test_with_controller.py drives the same pages through the real controller and rules engine.
"""

from __future__ import annotations

import json
import time

from tests.display.conftest import PHONE, TABLE, open_page
from tests.support.broker import Client

BASE = f"table/{TABLE}"


def publish_payloads(ctl: Client, seq: int, view: dict, battle: dict | None = None, coins: dict | None = None) -> None:
    ctl.publish(f"{BASE}/availability", json.dumps("online"), retain=True)
    ctl.publish(f"{BASE}/state", json.dumps({"epoch": "e1", "seq": seq, "view": view, "battle": battle,
                                             "tower": {"warning": None}, "ts": time.time()}), retain=True)
    for player, n in (coins or {}).items():
        ctl.publish(f"{BASE}/player/{player}/state", json.dumps({
            "epoch": "e1", "seq": seq, "view": {"chest": n, "hand": [{"id": "c1", "name": "Cook", "level": 1}]},
            "legal_actions": [{"type": "end_turn"}]}), retain=True)


def small_view(active: str = "red") -> dict:
    return {"active_player": active, "phase": "main",
            "players": {"red": {"ship": {"location": "harbor"}}, "blue": {"ship": {"location": "r1c2"}}}}


def test_table_view_updates_within_a_second(browser, broker, display) -> None:
    ctl = Client(broker, "controller")
    assert ctl.wait_connected()
    publish_payloads(ctl, 1, small_view("red"))
    with open_page(browser, display, broker) as page:
        page.wait_for_selector("#conn[data-status=live]", timeout=10_000)
        page.wait_for_function("document.getElementById('main').dataset.seq === '1'", timeout=5_000)
        for seq in (2, 3, 4):
            t0 = time.monotonic()
            publish_payloads(ctl, seq, small_view("blue" if seq % 2 else "red"))
            page.wait_for_function(f"document.getElementById('main').dataset.seq === '{seq}'", timeout=5_000)
            assert time.monotonic() - t0 < 1.0
        assert "Red's turn" in page.inner_text("#turn")
    ctl.close()


def test_player_page_shows_own_coins_never_anothers(browser, broker, display) -> None:
    ctl = Client(broker, "controller")
    assert ctl.wait_connected()
    publish_payloads(ctl, 1, small_view(), coins={"red": 23, "blue": 41})
    with open_page(browser, display, broker, player="red", viewport=PHONE) as page:
        page.wait_for_selector("#conn[data-status=live]", timeout=10_000)
        page.wait_for_selector("#coins[data-coins='23']", timeout=5_000)
        publish_payloads(ctl, 2, small_view(), coins={"red": 24, "blue": 42})
        page.wait_for_selector("#coins[data-coins='24']", timeout=5_000)
        text = page.inner_text("body")
        assert "24 coins" in text and "41" not in text and "42" not in text
        # Nothing of blue's tree ever reached the page's MQTT client either.
        topics = page.evaluate("window.__seenTopics || []")
        assert topics and not [t for t in topics if "/player/blue/" in t]
    ctl.close()


def test_broker_refuses_red_blues_tree(broker) -> None:
    ctl = Client(broker, "controller")
    assert ctl.wait_connected()
    publish_payloads(ctl, 1, small_view(), coins={"red": 23, "blue": 41})
    red = Client(broker, "red", transport="websockets", protocol="3.1.1")
    assert red.wait_connected()
    red.subscribe(f"{BASE}/player/blue/#")
    red.subscribe(f"{BASE}/player/+/state")
    got = red.collect(1.0)
    assert got and {m.topic for m in got} == {f"{BASE}/player/red/state"}
    # nor act as blue, nor publish state
    watcher = Client(broker, "display")
    assert watcher.wait_connected()
    red.publish(f"{BASE}/player/blue/cmd", json.dumps({"request_id": "x", "seq": 1, "action": {"type": "end_turn"}}))
    red.publish(f"{BASE}/state", json.dumps({"seq": 99}), retain=True)
    watcher.subscribe(f"{BASE}/state")
    states = [json.loads(m.payload) for m in watcher.collect(1.0)]
    assert states and all(s["seq"] == 1 for s in states)
    assert not Client(broker, "red", password="wrong").wait_connected()
    for c in (ctl, red, watcher):
        c.close()


def test_battle_board_draws_each_cube_in_its_zone_and_the_tallies(browser, broker, display) -> None:
    ctl = Client(broker, "controller")
    assert ctl.wait_connected()
    battle = {
        "battle_id": "t3-b1", "kind": "ship", "location": "r2c1", "step": "resolve",
        "attacker": {"name": "red", "cube_color": "red", "is_player": True},
        "defender": {"name": "blue", "cube_color": "blue", "is_player": True},
        "board": {"zones": {"explode": {"kind": "exploding"}, "dmg-1": {"kind": "damage"},
                            "str-2": {"kind": "strength", "strength": 2},
                            "plunder-c2": {"kind": "plunder", "cargo": 2, "coins": 0}}},
        "cubes": [{"id": 0, "color": "red", "zone": "str-2"}, {"id": 1, "color": "red", "zone": "str-2"},
                  {"id": 2, "color": "blue", "zone": "dmg-1"}, {"id": 3, "color": "blue", "zone": "plunder-c2"}],
        "tallies": {"attacker": {"plunder_cargo": 0, "plunder_coins": 0, "damage_dealt": 0, "strength": 4},
                    "defender": {"plunder_cargo": 2, "plunder_coins": 0, "damage_dealt": 1, "strength": 0}},
    }
    publish_payloads(ctl, 5, small_view(), battle=battle)
    with open_page(browser, display, broker) as page:
        page.wait_for_selector("#battle", timeout=10_000)
        assert page.locator("[data-zone='str-2'] .cube.c-red").count() == 2
        assert page.locator("[data-zone='dmg-1'] .cube.c-blue").count() == 1
        assert page.locator("[data-zone='explode'] .cube").count() == 0
        attacker = page.locator("[data-side='attacker']").inner_text()
        assert "Strength" in attacker and "4" in attacker
        assert "2 cargo" in page.locator("[data-side='defender']").inner_text()
        # The result, once the engine has one.
        done = {**battle, "outcome": {"winner": "attacker", "attacker": battle["tallies"]["attacker"],
                                      "defender": battle["tallies"]["defender"]}}
        publish_payloads(ctl, 6, small_view(), battle=done)
        page.wait_for_selector(".result[data-winner='attacker']", timeout=5_000)
    ctl.close()
