"""A battle's result reaches the tablets, and a reading corrected after the result changes the game.

The controller runs in this process (TableCore + MqttLink + BattleDriver, as controller.service wires
them) on a real Mosquitto with the deploy/ ACL; this test plays the tower and the camera. The table view
(`display`) and the players' tablets are real MQTT clients.
"""

from __future__ import annotations

import json
from pathlib import Path

import rules.api as api
from controller.battles import BattleDriver
from controller.core import TableCore
from controller.gamelog import GameLog
from controller.mqtt import MqttLink
from controller.testing import Client
from tests.controller.test_table_only import TABLE
from tests.support.broker import mosquitto  # noqa: F401
from tests.support.game import play_until_battle, table_in_battle


def _payload(msg) -> dict:
    return json.loads(msg.payload)


def _drop_and_read(
    driver: BattleDriver, unsure_first: bool = False, defender_hits: bool = True
) -> list[dict]:
    """One drop of every cube: the tower counts them and the camera reads them, the attacker's all in the miss
    zone (the first one unsure when `unsure_first`), the defender's first in strength 1 when `defender_hits`;
    a crop per cube ("jpeg-of-<i>"). Returns the cubes as read."""
    att, dfd = driver.session.setup.attacker, driver.session.setup.defender
    cubes = [
        {"color": att.cube_color, "zone": "miss", "confidence": 0.2 if unsure_first and i == 0 else 0.95}
        for i in range(att.cubes)
    ]
    cubes += [
        {
            "color": dfd.cube_color,
            "zone": "str-1a" if defender_hits and i == 0 else "miss",
            "confidence": 0.95,
        }
        for i in range(dfd.cubes)
    ]
    crops = [{"index": i, "jpeg_base64": f"jpeg-of-{i}"} for i in range(len(cubes))]
    driver.start_drop({})
    driver.tower_totals({att.cube_color: att.cubes, dfd.cube_color: dfd.cubes})
    driver.camera({"status": "ok", "cubes": cubes, "redrop": [], "ambiguous": []}, settled=True, crops=crops)
    return cubes


def test_result_published_then_corrected_from_a_tablet(mosquitto, tmp_path: Path) -> None:  # noqa: F811
    log = GameLog(tmp_path / "r.db")
    link = MqttLink(
        mosquitto.host, mosquitto.port, "controller", mosquitto.users["controller"], table_id=TABLE
    )
    core = TableCore(log, table_id=TABLE, publisher=link)
    core.open_game(["red", "blue"], 5)
    driver = BattleDriver(core)
    link.start(core)
    table = Client(mosquitto, "display")
    try:
        play_until_battle(core, driver, seed=5)
        setup = driver.session.setup
        att, dfd = setup.attacker, setup.defender
        assert setup.kind == "ship" and att.cubes >= 1 and dfd.cubes >= 1
        tablet = Client(mosquitto, att.name)
        assert table.wait_connected() and tablet.wait_connected()
        table.subscribe(f"table/{TABLE}/state")
        table.subscribe(f"table/{TABLE}/events")
        tablet.subscribe(f"table/{TABLE}/player/{att.name}/#")
        damage = {p: core.engine.public_view(core.state)["p"][p]["ship"]["damage"] for p in core.players}
        # Read as is, the defender wins 1-0 (the attacker's cubes all missed); the camera is sure of it.
        cubes = _drop_and_read(driver)
        assert core.engine.public_view(core.state)["battle"] is None, "the engine accepted the result"
        resolve_seq = max(e["seq"] for e in log.events(core.open_game_id) if e["type"] == "resolve_battle")

        # 1. The result reaches the table view: the session's final view, phase "resolved", with its result.
        state = _payload(
            table.wait_for(
                lambda m: (
                    m.topic.endswith("/state") and (_payload(m)["battle"] or {}).get("phase") == "resolved"
                )
            )
        )
        result = state["battle"]["result"]
        assert (result["winner"], result["winner_name"], result["loser_name"]) == (
            "defender",
            dfd.name,
            att.name,
        )
        assert (result["attacker"]["strength"], result["defender"]["strength"]) == (0, 1)
        assert result["damage_after"] == {att.name: damage[att.name] + 1, dfd.name: damage[dfd.name]}
        assert result["sunk"] == [] and set(result["plunder"]) == {"attacker", "defender"}
        assert state["battle"]["sides"]["defender"]["strength"] == 1
        # Public events carry their public content, not only their type.
        events = _payload(
            table.seen(
                lambda m: (
                    m.topic.endswith("/events")
                    and any(e["type"] == "resolve_battle" for e in _payload(m)["events"])
                )
            )
        )["events"]
        resolved = next(e for e in events if e["type"] == "resolve_battle")
        assert (
            resolved["action"]["record"]["steps"][0]["board"][0]["zone"] == "miss" and "rng" not in resolved
        )
        notice = next(e for e in events if e["type"] == "battle_resolved")
        assert len(notice) > 3, notice

        # 2. The tablet can correct any cube of the accepted reading, with its crop and the zones it may take.
        prompts = _payload(
            tablet.wait_for(
                lambda m: (
                    m.topic.endswith("/prompts") and any(p.get("resolved") for p in _payload(m)["prompts"])
                )
            )
        )["prompts"]
        review = next(p for p in prompts if p.get("resolved"))
        assert review["kind"] == "confirm_reading" and "str-2" in review["zones"]
        step0 = review["steps"][0]
        assert [(c["cube"], c["zone"], c["crop"]) for c in step0["cubes"]][:2] == [
            (0, "miss", "jpeg-of-0"),
            (1, cubes[1]["zone"], "jpeg-of-1"),
        ]
        # A wrong answer is refused and changes nothing.
        seq = core.seq
        reply = tablet.command(
            f"table/{TABLE}/player/{att.name}/cmd",
            {
                "request_id": "bad",
                "prompt_id": review["id"],
                "answer": {"step": 0, "cube": 0, "zone": "no-such-zone"},
            },
        )
        assert reply["accepted"] is False and reply["reason"] and core.seq == seq

        # 3. The attacker's first cube really lay in the strength-2 zone: the attacker wins 2-1.
        reply = tablet.command(
            f"table/{TABLE}/player/{att.name}/cmd",
            {
                "request_id": "fix",
                "prompt_id": review["id"],
                "answer": {"step": 0, "cube": 0, "zone": "str-2"},
            },
        )
        assert reply["accepted"] is True, reply
        view = core.engine.public_view(core.state)
        assert view["p"][att.name]["ship"]["damage"] == damage[att.name]  # the loser's damage moved
        assert view["p"][dfd.name]["ship"]["damage"] == damage[dfd.name] + 1
        assert view["achievement_cubes"]["legendary"].get(att.name) == 1
        assert not view["achievement_cubes"]["legendary"].get(dfd.name)
        # The log keeps both: the original result and the correction replacing it.
        logged = log.events(core.open_game_id)
        correction = logged[-1]
        assert correction["type"] == "correction" and correction["action"]["target_seq"] == resolve_seq
        assert any(e["type"] == "resolve_battle" and e["seq"] == resolve_seq for e in logged)
        # Replay of the log, and a controller rebuilt from it, give the same (corrected) state.
        assert api.state_to_json(api.replay(logged)) == api.state_to_json(core.state)
        rebuilt, _ = core.rebuild(core.open_game_id)
        assert api.state_to_json(rebuilt) == api.state_to_json(core.state)
        # The tablets see the changed outcome: the public state and the player's own state.
        state = _payload(
            table.wait_for(
                lambda m: (
                    m.topic.endswith("/state")
                    and ((_payload(m)["battle"] or {}).get("result") or {}).get("winner") == "attacker"
                )
            )
        )
        assert state["battle"]["corrections"] == 1 and state["battle"]["phase"] == "resolved"
        assert state["view"]["p"][dfd.name]["ship"]["damage"] == damage[dfd.name] + 1
        mine = _payload(
            tablet.seen(lambda m: m.topic.endswith(f"{att.name}/state") and _payload(m)["seq"] == core.seq)
        )
        assert mine["view"]["p"][att.name]["ship"]["damage"] == damage[att.name]
        events = _payload(
            table.seen(
                lambda m: (
                    m.topic.endswith("/events")
                    and any(e["type"] == "correction" for e in _payload(m)["events"])
                )
            )
        )["events"]
        assert all("state" not in e for e in events if e["type"] == "correction")  # the secrets stay home

        # 4. The result leaves the table at the next turn.
        active = core.state.active
        core.submit(active, {"type": "end_turn"}, core.seq)
        assert core.battle_view is None or core.battle_view.get("phase") != "resolved"
        assert not any(p.data.get("resolved") for p in core.prompts.values())
        tablet.close()
    finally:
        table.close()
        link.stop()
        log.close()


def test_confirm_reading_carries_every_cube_with_its_crop(mosquitto, tmp_path: Path) -> None:  # noqa: F811
    with table_in_battle(mosquitto, tmp_path / "c.db", TABLE) as (core, driver):
        setup = driver.session.setup
        att, dfd = setup.attacker, setup.defender
        tablet = Client(mosquitto, dfd.name)
        assert tablet.wait_connected()
        tablet.subscribe(f"table/{TABLE}/prompts")
        tablet.subscribe(f"table/{TABLE}/player/{dfd.name}/reply")
        # The attacker's first cube is unsure; the defender's cube is read (wrongly) in the miss zone.
        cubes = _drop_and_read(driver, unsure_first=True, defender_hits=False)
        msg = tablet.wait_for(lambda m: any(p["kind"] == "confirm_reading" for p in _payload(m)["prompts"]))
        prompt = next(p for p in _payload(msg)["prompts"] if p["kind"] == "confirm_reading")
        assert prompt["crops"] == {"0": "jpeg-of-0"}  # the cube asked about
        assert "str-2" in prompt["zones"] and "miss" in prompt["zones"] and prompt["step"] == 0
        assert [(c["cube"], c["color"], c["zone"], c["crop"]) for c in prompt["reading"]] == [
            (i, c["color"], c["zone"], f"jpeg-of-{i}") for i, c in enumerate(cubes)
        ]
        # A cube the prompt did not ask about can be corrected too (the defender's, really in str-2).
        their = att.cubes
        reply = tablet.command(
            f"table/{TABLE}/player/{dfd.name}/cmd",
            {"request_id": "d", "prompt_id": prompt["id"], "answer": {"cube": their, "zone": "str-2"}},
        )
        assert reply["accepted"] is True, reply
        # The other side (the attacker) sees the correction and accepts it; only then does it count.
        assert driver.session.view()["sides"]["defender"]["strength"] == 0
        offer = next(p for p in core.prompts.values() if p.kind == "battle_correction")
        assert offer.player == att.name and offer.data["correction"]["zone"] == "str-2"
        r = core.handle_command(
            att.name, json.dumps({"request_id": "a", "prompt_id": offer.id, "answer": {"accept": True}})
        )
        assert r["accepted"], r
        assert driver.session is not None and driver.session.view()["sides"]["defender"]["strength"] == 2
        tablet.close()


def test_a_restart_keeps_the_crops_and_the_result_still_open_to_correction(tmp_path: Path) -> None:
    """Controllers killed and started again on the same log (as after SIGKILL): mid-battle the correction
    prompt comes back with the camera's crops; after the result, the result and its correction prompt come
    back, a correction made there changes the game, and at the next turn the result leaves the table."""
    db = tmp_path / "k.db"
    logs: list[GameLog] = []

    def restart() -> tuple[TableCore, BattleDriver]:
        logs.append(GameLog(db))
        core = TableCore(logs[-1], table_id="k")
        assert core.open_game([], 0) is True  # resumes the game in the log
        driver = BattleDriver(core)
        driver.sync()  # what controller.service does when it starts
        return core, driver

    def answer(core: TableCore, player: str, prompt_id: str, ans: dict) -> dict:
        return core.handle_command(
            player, json.dumps({"request_id": "r", "prompt_id": prompt_id, "answer": ans})
        )

    logs.append(GameLog(db))
    core = TableCore(logs[-1], table_id="k")
    core.open_game(["red", "blue"], 5)
    driver = BattleDriver(core)
    try:
        play_until_battle(core, driver, seed=5)
        att, dfd = driver.session.setup.attacker, driver.session.setup.defender
        # The attacker's first cube is unsure; the defender's first cube is in the strength-1 zone.
        cubes = _drop_and_read(driver, unsure_first=True)
        before = next(p for p in core.prompts.values() if p.kind == "confirm_reading")

        # 1. Restart mid-battle: the same prompt, with the crops the camera took before the crash.
        core, driver = restart()
        prompt = next(p for p in core.prompts.values() if p.kind == "confirm_reading")
        assert prompt.data["crops"] == before.data["crops"] == {"0": "jpeg-of-0"}
        assert [c["crop"] for c in prompt.data["reading"]] == [f"jpeg-of-{i}" for i in range(len(cubes))]
        reply = answer(core, prompt.player or dfd.name, prompt.id, {"cube": 0, "zone": "miss"})
        assert reply["accepted"] is True, reply
        assert core.engine.public_view(core.state)["battle"] is None, "the battle was resolved"
        assert core.battle_view is not None, "the result stays on the table"
        assert core.battle_view["result"]["winner"] == "defender"
        resolved_seq = core.seq

        # 2. Restart after the result: it is still on the table, with a review prompt for every player.
        core, driver = restart()
        assert core.battle_view is not None and core.battle_view["phase"] == "resolved"
        assert core.battle_view["result"]["winner"] == "defender" and core.seq == resolved_seq
        reviews = {p.player: p for p in core.prompts.values() if p.data.get("resolved")}
        assert set(reviews) == set(core.players)
        step0 = reviews[att.name].data["steps"][0]
        assert [c["crop"] for c in step0["cubes"]] == [f"jpeg-of-{i}" for i in range(len(cubes))]
        damage = core.engine.public_view(core.state)["p"][dfd.name]["ship"]["damage"]
        # The attacker's first cube really lay in the strength-2 zone: the attacker wins 2-1, after the
        # restart.
        reply = answer(core, att.name, reviews[att.name].id, {"step": 0, "cube": 0, "zone": "str-2"})
        assert reply["accepted"] is True, reply
        assert core.battle_view["result"]["winner"] == "attacker"
        assert core.engine.public_view(core.state)["p"][dfd.name]["ship"]["damage"] == damage + 1
        view, state = core.battle_view, api.state_to_json(core.state)
        assert view["corrections"] == 2  # the unsure cube confirmed mid-battle, then this one

        # 3. Again: the corrected result comes back (the correction was logged with the game's).
        core, driver = restart()
        assert core.battle_view == view and api.state_to_json(core.state) == state
        assert any(p.data.get("resolved") for p in core.prompts.values())

        # 4. The next turn takes the result off the table, and a restart does not bring it back.
        core.submit(core.state.active, {"type": "end_turn"}, core.seq)
        assert not any(p.data.get("resolved") for p in core.prompts.values())
        core, driver = restart()
        assert core.battle_view is None and not any(p.data.get("resolved") for p in core.prompts.values())
    finally:
        for log in logs:
            log.close()
