"""The pages against a real Mosquitto, fed real engine payloads by a publisher with the controller's login.

The payloads are built by rules.api (public/private views, legal actions) and a real battle session;
these tests pin the display's own duties (rendering what arrives, privacy through the ACL, connection
state). test_with_controller.py drives the same pages through the real controller.
"""

from __future__ import annotations

import json
from typing import Any

from controller.testing import Client
from rules import api
from rules.battle.contract import BattleSetup, BattleSide
from rules.battle.session import BattleSession
from tests.controller.web.conftest import PHONE, TABLE, open_page, private_payload, state_payload

BASE = f"table/{TABLE}"


def publish_game(ctl: Client, state: Any, battle: dict | None = None, seats: dict | None = None) -> None:
    ctl.publish(f"{BASE}/availability", json.dumps("online"), retain=True)
    ctl.publish(
        f"{BASE}/state",
        json.dumps({**state_payload(state, battle), **({"seats": seats} if seats else {})}),
        retain=True,
    )
    for p in state.players:
        ctl.publish(f"{BASE}/player/{p}/state", json.dumps(private_payload(state, p)), retain=True)


def controller_client(broker) -> Client:
    ctl = Client(broker, "controller")
    assert ctl.wait_connected()
    return ctl


def test_table_view_follows_each_published_state(browser, broker, display) -> None:
    """Each state the controller publishes shows on the table view (its latency, under a second, is
    measured by bench/display_latency.py: a wall-clock bound here would fail on a loaded machine)."""
    ctl = controller_client(broker)
    state = api.new_game(["red", "blue"], 5, None)
    publish_game(ctl, state)
    with open_page(browser, display, broker) as page:
        page.wait_for_selector("#conn[data-status=live]", timeout=10_000)
        page.wait_for_function(
            f"document.getElementById('main').dataset.seq === '{state.seq}'", timeout=5_000
        )
        assert page.locator(".square").count() == len(api.public_view(state)["grid"])
        for _ in range(3):
            player = state.active
            assert player is not None  # the main phase: someone has the turn
            action = next(a for a in api.legal_actions(state, player) if a["type"] == "end_turn")
            state, _events = api.apply(state, {"seq": state.seq, "player": player, "action": action})
            publish_game(ctl, state)
            page.wait_for_function(
                f"document.getElementById('main').dataset.seq === '{state.seq}'", timeout=30_000
            )
            assert state.active is not None
            assert f"{state.active.capitalize()}'s turn" in page.inner_text("#turn")
    ctl.close()


def test_table_view_shows_who_sits_where(browser, broker, display) -> None:
    """`run --bots blue`: the table view tells the person's seat from the one the table plays."""
    ctl = controller_client(broker)
    state = api.new_game(["red", "blue"], 5, None)
    publish_game(ctl, state, seats={"red": "person", "blue": "bot"})
    with open_page(browser, display, broker) as page:
        page.wait_for_selector(".pcard[data-player=blue] .seat[data-seat=bot]", timeout=10_000)
        assert "played by the table" in page.inner_text(".pcard[data-player=blue]")
        assert "a person" in page.inner_text(".pcard[data-player=red]")
    ctl.close()


def test_player_page_shows_own_coins_never_anothers(browser, broker, display) -> None:
    ctl = controller_client(broker)
    state = api.new_game(["red", "blue"], 5, None)
    state.data["p"]["red"]["chest"], state.data["p"]["blue"]["chest"] = 23, 41  # tell the chests apart
    publish_game(ctl, state)
    with open_page(browser, display, broker, player="red", viewport=PHONE) as page:
        page.wait_for_selector("#conn[data-status=live]", timeout=10_000)
        page.wait_for_selector("#coins[data-coins='23']", timeout=5_000)
        state.data["p"]["red"]["chest"], state.data["p"]["blue"]["chest"] = 24, 42
        state.data["seq"] += 1
        publish_game(ctl, state)
        page.wait_for_selector("#coins[data-coins='24']", timeout=5_000)
        text = page.inner_text("body")
        assert "24 coins" in text and "41" not in text and "42" not in text
        # Nothing of blue's tree ever reached the page's MQTT client either.
        topics = page.evaluate("window.__seenTopics")
        assert f"{BASE}/player/red/state" in topics and not [t for t in topics if "/player/blue/" in t]
    ctl.close()


def test_broker_keeps_blues_tree_from_red(broker) -> None:
    ctl = controller_client(broker)
    state = api.new_game(["red", "blue"], 5, None)
    publish_game(ctl, state)
    red = Client(broker, "red", transport="websockets", protocol="3.1.1")  # as the tablet connects
    assert red.wait_connected()
    red.subscribe(f"{BASE}/player/blue/#")
    red.subscribe(f"{BASE}/player/+/state")
    # Retained messages come in subscription order: blue's, had they got through, before red's own.
    got = red.until(lambda m: m.topic == f"{BASE}/player/red/state")
    assert {m.topic for m in got} == {f"{BASE}/player/red/state"}
    # nor act as blue, nor publish the public state
    watcher = Client(broker, "display")
    assert watcher.wait_connected()
    watcher.subscribe(f"{BASE}/player/+/cmd")
    red.publish(
        f"{BASE}/player/blue/cmd", json.dumps({"request_id": "x", "seq": 1, "action": {"type": "end_turn"}})
    )
    red.publish(f"{BASE}/state", json.dumps({"seq": 99}), retain=True)
    red.publish(f"{BASE}/player/red/cmd", json.dumps({"request_id": "marker"}))
    watcher.subscribe(f"{BASE}/state")
    # The display may not read commands at all (not even red's own, the marker), and the public state
    # is still the controller's.
    states = watcher.until(lambda m: m.topic == f"{BASE}/state")
    assert [m.topic for m in states] == [f"{BASE}/state"]
    assert json.loads(states[0].payload)["seq"] == state.seq
    assert not Client(broker, "red", password="wrong").wait_connected()
    for c in (ctl, red, watcher):
        c.close()


def battle_view() -> tuple[dict, dict]:
    """A real session's view: red attacks blue, 3 red and 2 blue cubes dropped and read."""
    setup = BattleSetup(
        "t3-b1", "ship", BattleSide("red", True, "red", 3), BattleSide("blue", True, "blue", 2), "r2c1"
    )
    session = BattleSession(setup, now=0.0)
    session.tower({"red": 3, "blue": 2}, now=1.0)
    reading = {
        "status": "ok",
        "cubes": [
            {"color": "red", "zone": "str-2", "confidence": 0.9},
            {"color": "red", "zone": "str-2", "confidence": 0.9},
            {"color": "red", "zone": "dmg-1", "confidence": 0.9},
            {"color": "blue", "zone": "plunder-c2", "confidence": 0.9},
            {"color": "blue", "zone": "str-1a", "confidence": 0.9},
        ],
        "redrop": [],
        "ambiguous": [],
    }
    session.camera(reading, settled=True, now=2.0)
    return session.view(), setup.to_json()


def test_battle_board_draws_each_cube_in_its_zone_and_the_tallies(browser, broker, display) -> None:
    ctl = controller_client(broker)
    view, setup = battle_view()
    state = api.new_game(["red", "blue"], 5, None)
    publish_game(ctl, state, battle=view)
    with open_page(browser, display, broker) as page:
        page.wait_for_selector("#battle", timeout=10_000)
        assert page.locator("[data-zone='str-2'] .cube.c-red").count() == 2
        assert page.locator("[data-zone='dmg-1'] .cube.c-red").count() == 1
        assert page.locator("[data-zone='plunder-c2'] .cube.c-blue").count() == 1
        assert page.locator("[data-zone='explode'] .cube").count() == 0  # empty zones are drawn too
        att = view["sides"]["attacker"]
        assert page.inner_text("[data-side='attacker'] [data-tally='strength']") == str(att["strength"])
        assert page.inner_text("[data-side='defender'] [data-tally='plunder']").startswith(
            str(view["sides"]["defender"]["plunder_cargo"])
        )
    ctl.close()


def test_a_wrong_password_says_so_in_one_sentence(browser, broker, display) -> None:
    from tests.controller.web.conftest import TABLET

    ctx = browser.new_context(viewport=TABLET)
    page = ctx.new_page()
    page.goto(
        f"{display.url}?table={TABLE}&player=red&user=red&pass=wrong&ws=ws://127.0.0.1:{broker.ws_port}"
    )
    page.wait_for_selector("#notice:not([hidden])", timeout=10_000)
    assert "refused this tablet's name or password" in page.inner_text("#notice")
    assert page.get_attribute("#conn", "data-status") != "live"
    ctx.close()


def test_prompt_answers_and_taps_go_out_as_the_controller_expects(browser, broker, display) -> None:
    """What the tablet publishes on its command topic, seen at the broker by the controller's login;
    garbage on a state topic is ignored by the page."""
    ctl = controller_client(broker)
    ctl.subscribe(f"{BASE}/player/+/cmd")
    state = api.new_game(["red", "blue"], 5, None)
    me = state.active
    assert me is not None  # the main phase: someone has the turn
    publish_game(ctl, state)
    option = f"{me}:gunner-1:L3:a"
    ability = {
        "id": "b1:3:0",
        "kind": "battle_ability",
        "text": f"{me}: use one Battle ability or pass.",
        "battle_id": "b1",
        "side": "attacker",
        "options": [
            {
                "id": option,
                "source": "gunner-1",
                "effect": "move_cube_adjacent",
                "params": {},
                "needs": ["cube", "to"],
            }
        ],
        "cubes": [
            {"cube": 0, "color": "red", "zone": "dmg-1", "crop": None},
            {"cube": 1, "color": "blue", "zone": None, "crop": None},
        ],
    }
    ctl.publish(
        f"{BASE}/player/{me}/prompts",
        json.dumps({"epoch": "e1", "seq": state.seq, "prompts": [ability]}),
        retain=True,
    )

    def next_cmd() -> dict:
        return json.loads(ctl.wait_for(lambda m: m.topic == f"{BASE}/player/{me}/cmd", timeout=5).payload)

    with open_page(browser, display, broker, player=me, viewport=PHONE) as page:
        page.wait_for_selector("#conn[data-status=live]", timeout=10_000)
        ctl.publish(f"{BASE}/state", b"{not json", retain=False)
        page.wait_for_selector("[data-kind='battle_ability'] button.pass", timeout=5_000)
        page.click("[data-kind='battle_ability'] button.pass")
        cmd = next_cmd()
        assert cmd["prompt_id"] == "b1:3:0" and cmd["answer"] == {"pass": True} and cmd["request_id"]
        page.locator(f"[data-ability='{option}'] select").last.select_option("str-2")
        page.click(f"[data-ability='{option}'] button")
        assert next_cmd()["answer"] == {"ability": option, "cube": 0, "to": "str-2"}
        # Cubes are named by number, colour and zone, as the controller listed the board.
        picker = page.locator(f"[data-ability='{option}'] select").first
        assert picker.locator("option").all_inner_texts() == [
            "Red cube 1 · Damage · 1",
            "Blue cube 2 · on a rail",
        ]
        picker.select_option("1")
        page.locator(f"[data-ability='{option}'] select").last.select_option("str-2")
        page.click(f"[data-ability='{option}'] button")
        assert next_cmd()["answer"] == {"ability": option, "cube": 1, "to": "str-2"}
        page.locator("button.action").first.click()
        cmd = next_cmd()
        assert cmd["seq"] == state.seq and cmd["action"] in api.legal_actions(state, me)
        assert page.get_attribute("#main", "data-seq") == str(state.seq)  # the garbage changed nothing
    ctl.close()


def test_ship_path_prompt_draws_each_way_with_the_garrison_it_passes(browser, broker, display) -> None:
    """The controller's which-way question (controller.ships): each way on a small grid, numbered in sailing
    order, the Garrison it passes marked; a tap sends that way back as the choice."""
    ctl = controller_client(broker)
    ctl.subscribe(f"{BASE}/player/+/cmd")
    state = api.new_game(["red", "blue"], 5, None)
    me = state.active
    assert me is not None  # the main phase: someone has the turn
    publish_game(ctl, state)
    ways = [["r1c1", "r1c2", "r2c2"], ["r1c1", "r2c1", "r2c2"]]
    prompt = {
        "id": "ships:9:way",
        "kind": "ship_path",
        "text": f"The {me} ship sailed from r1c1 to r2c2: which way did it go?",
        "ship": me,
        "start": "r1c1",
        "end": "r2c2",
        "options": ways,
        "crossings": [["r1c2"], []],
    }
    ctl.publish(
        f"{BASE}/player/{me}/prompts",
        json.dumps({"epoch": "e1", "seq": state.seq, "prompts": [prompt]}),
        retain=True,
    )
    with open_page(browser, display, broker, player=me, viewport=PHONE) as page:
        page.wait_for_selector("[data-kind='ship_path'] button.way", timeout=10_000)
        buttons = page.locator("[data-kind='ship_path'] button.way")
        assert buttons.count() == 2
        first, second = buttons.nth(0), buttons.nth(1)
        # 4 rows of 3 squares (the public view's grid) and the Harbor.
        assert first.locator(".wcell").count() == len(api.public_view(state)["grid"]) + 1
        assert [first.locator(f"[data-square={sq}]").inner_text() for sq in ways[0]] == ["0", "1", "2"]
        assert (
            first.locator(".wcell.hazard").count() == 1
            and first.locator("[data-square=r1c2].hazard").count() == 1
        )
        assert "Garrison on r1c2" in first.inner_text() and "no Garrison" in second.inner_text()
        assert second.locator(".wcell.hazard").count() == 0
        second.click()
        cmd = json.loads(ctl.wait_for(lambda m: m.topic == f"{BASE}/player/{me}/cmd", timeout=5).payload)
        assert cmd["prompt_id"] == "ships:9:way" and cmd["answer"] == {"path": ways[1]}  # docs/mqtt.md
        # The table's question about a ship the camera cannot see, answered as the controller takes it.
        where = {
            "id": "ships:9:0",
            "kind": "sensor_disagree",
            "text": f"The camera cannot see the {me} ship: where is it?",
            "player": None,
            "question": "camera-missing",
            "ship": me,
            "square": None,
            "options": ["r2c2", "r1c1"],
        }
        ctl.publish(
            f"{BASE}/prompts", json.dumps({"epoch": "e1", "seq": state.seq, "prompts": [where]}), retain=True
        )
        page.wait_for_selector("[data-kind='sensor_disagree'] button", timeout=5_000)
        page.locator("[data-kind='sensor_disagree'] button").first.click()
        cmd = json.loads(ctl.wait_for(lambda m: m.topic == f"{BASE}/player/{me}/cmd", timeout=5).payload)
        assert cmd["prompt_id"] == "ships:9:0" and cmd["answer"] == {"ship": me, "square": "r2c2"}
    ctl.close()


def test_exploding_shot_re_drop_prompt_and_tower_warning(browser, broker, display) -> None:
    setup = BattleSetup(
        "t4-b1",
        "nonplayer",
        BattleSide("red", True, "red", 2),
        BattleSide("merchant:r2-03", False, "black", 1),
        "r1c2",
    )
    session = BattleSession(setup, now=0.0)
    session.tower({"red": 2, "black": 1}, now=1.0)
    session.camera(
        {
            "status": "ok",
            "redrop": [],
            "ambiguous": [],
            "cubes": [
                {"color": "red", "zone": "explode", "confidence": 0.9},
                {"color": "red", "zone": "str-2", "confidence": 0.9},
                {"color": "black", "zone": "dmg-1", "confidence": 0.9},
            ],
        },
        settled=True,
        now=2.0,
    )
    view = session.view()
    owed = [p for p in view["prompts"] if p["kind"] == "redrop-exploding"]
    assert owed, view["prompts"]  # the session owes the exploding shot's re-drop
    ctl = controller_client(broker)
    state = api.new_game(["red", "blue"], 5, None)
    ctl.publish(f"{BASE}/availability", json.dumps("online"), retain=True)
    ctl.publish(
        f"{BASE}/state", json.dumps(state_payload(state, view, "zone 3 gets 40% of drops")), retain=True
    )
    with open_page(browser, display, broker, viewport=PHONE) as page:
        page.wait_for_selector("#battle", timeout=10_000)
        assert page.inner_text("#battle .k-redrop-exploding") == owed[0]["text"]
        assert page.locator("[data-zone='explode'] .cube.c-red").count() == 1
        assert page.inner_text("[data-side='attacker'] [data-tally='exploding']") == str(
            view["sides"]["attacker"]["exploding_shots"]
        )
        assert "zone 3 gets 40% of drops" in page.inner_text("#tower-warning")
        assert "Merchant ship" in page.inner_text("[data-side='defender'] h3")
    ctl.close()
