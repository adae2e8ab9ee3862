"""Battles with some sensors or none: the drop entered by hand on a tablet and confirmed by the other side,
the tower's and the camera's parts each replaced by hand when missing, and the sensors' status published."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from controller.battles import BattleDriver
from controller.core import TableCore
from controller.gamelog import GameLog
from controller.simplayers import SimPlayers
from controller.simtable import SimTable

PLAYERS = ["red", "blue", "green"]


class Clock:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


def to_battle(
    db: Path, seed: int, sensors: dict[str, bool], clock: Clock | None = None, **kw: Any
) -> tuple[TableCore, BattleDriver]:
    """A real game played by the built-in player until its first battle starts (no battle input yet)."""
    core = TableCore(GameLog(db), "m")
    core.open_game(PLAYERS, seed=seed)
    driver = BattleDriver(core, sensors=sensors, clock=clock or Clock(), **kw)
    driver.sync()
    players = SimPlayers(core, seed=4, delay=0, table=SimTable(driver, seed=2, hardware=False, bots=set()))
    for _ in range(5000):
        if driver.session is not None:
            return core, driver
        assert players.step(), players.reason
    raise AssertionError("no battle in 5000 actions")


def reopen(db: Path, sensors: dict[str, bool], clock: Clock) -> tuple[TableCore, BattleDriver]:
    """A controller restarted on the same log (as after SIGKILL)."""
    core = TableCore(GameLog(db), "m")
    assert core.open_game([], 0) is True
    driver = BattleDriver(core, sensors=sensors, clock=clock)
    driver.sync()
    return core, driver


def shown(core: TableCore) -> dict[str, Any]:
    """The battle view the tablets show (a battle is on the table)."""
    assert core.battle_view is not None, "no battle is shown"
    return core.battle_view


def finished(driver: BattleDriver) -> dict[str, Any]:
    """The battle just resolved: its session, setup and view."""
    assert driver.finished is not None, "no battle has just been resolved"
    return driver.finished


def prompts(core: TableCore, kind: str, player: str | None = "*") -> list[Any]:
    return [p for p in core.prompts.values() if p.kind == kind and (player == "*" or p.player == player)]


def answer(core: TableCore, player: str, prompt: Any, ans: dict[str, Any]) -> dict[str, Any]:
    return core.handle_command(player, json.dumps({"request_id": "r", "prompt_id": prompt.id, "answer": ans}))


def landed(driver: BattleDriver, zone: str = "str-2") -> list[dict[str, Any]]:
    """Every owed cube placed in one zone (a Strength zone: no re-drop follows)."""
    return [
        {"color": c, "zone": zone} for c, n in sorted(driver.session.owed.dropped.items()) for _ in range(n)
    ]


def finish_by_hand(core: TableCore, driver: BattleDriver, battle_id: str) -> None:
    """Enter, confirm and pass until the battle is resolved, as its two players would on their tablets."""
    for _ in range(50):
        if driver.finished is not None and driver.finished["battle_id"] == battle_id:
            return
        enter = [p for p in prompts(core, "enter_drop") if not p.data.get("waiting")]
        confirm = prompts(core, "confirm_drop")
        ability = prompts(core, "battle_ability")
        if confirm:
            assert answer(core, confirm[0].player, confirm[0], {"confirm": True})["accepted"]
        elif enter:
            r = answer(core, enter[0].player, enter[0], {"cubes": landed(driver)})
            assert r["accepted"], r
        elif ability:
            assert answer(core, ability[0].player, ability[0], {"pass": True})["accepted"]
        else:
            raise AssertionError(f"the battle waits for nothing a person can do: {driver.session.prompts()}")
    raise AssertionError("the battle did not end")


def test_no_hardware_the_battle_is_entered_by_hand_confirmed_and_finished(tmp_path: Path) -> None:
    core, driver = to_battle(tmp_path / "m.db", 2, {"tower": False, "camera": False})
    setup = driver.session.setup
    attacker, defender = setup.attacker.name, setup.defender.name
    bystander = next(p for p in PLAYERS if p not in (attacker, defender))
    assert shown(core)["sensors"] == {"tower": "manual", "camera": "manual"}
    # Both players of the battle are asked to enter the drop; the third player is not.
    enter = {p.player: p for p in prompts(core, "enter_drop")}
    assert set(enter) == {attacker, defender}
    assert enter[attacker].data["cubes"] == {c: n for c, n in setup_cubes(driver).items() if n}
    assert set(enter[attacker].data["board"]["zones"]) >= {"str-2", "explode"}
    assert not prompts(core, "enter_drop", bystander)
    r = answer(core, bystander, enter[attacker], {"cubes": landed(driver)})
    assert (r["accepted"], r["kind"]) == (False, "illegal")
    # A wrong number of cubes is refused with what the drop is.
    r = answer(core, attacker, enter[attacker], {"cubes": landed(driver)[:-1]})
    assert (r["accepted"], r["kind"]) == (False, "invalid") and "this drop is" in r["reason"]
    r = answer(core, attacker, enter[attacker], {"cubes": [{"color": "purple", "zone": "str-2"}]})
    assert not r["accepted"] and "purple" in r["reason"]
    # The attacker enters; the defender is asked to confirm, and contests: back to entering.
    assert answer(core, attacker, enter[attacker], {"cubes": landed(driver, "miss")})["accepted"]
    confirm = prompts(core, "confirm_drop", defender)
    assert len(confirm) == 1 and confirm[0].data["by"] == attacker
    assert prompts(core, "enter_drop", attacker)[0].data["waiting"] is True
    r = answer(core, attacker, confirm[0], {"confirm": True})
    assert (r["accepted"], r["kind"]) == (False, "illegal")  # not by the one who entered it
    assert answer(core, defender, confirm[0], {"contest": True})["accepted"]
    assert not prompts(core, "confirm_drop") and {p.player for p in prompts(core, "enter_drop")} == {
        attacker,
        defender,
    }
    assert driver.session.record["steps"] == []
    # Entered again and confirmed: the drop is accepted and the battle goes on to its abilities and result.
    battle_id = setup.battle_id
    finish_by_hand(core, driver, battle_id)
    record = finished(driver)["session"].record
    first = record["steps"][0]
    assert first["step"] == "drop" and first["readings"][-1]["reading"]["source"] == "hand"
    assert first["readings"][-1]["reading"]["confirmed_by"] == defender
    assert (
        core.engine.public_view(core.state)["battle"] is None
        or core.engine.public_view(core.state)["battle"]["battle_id"] != battle_id
    )
    # A restart rebuilds the same finished battle from the logged hand entries.
    core2, driver2 = reopen(tmp_path / "m.db", {"tower": False, "camera": False}, Clock())
    assert driver2.finished is not None and driver2.finished["session"].record == record


def current(driver: BattleDriver) -> Any:
    """The battle's session, under way or just resolved (with no ability to play a battle ends at its
    drop)."""
    return driver.session or finished(driver)["session"]


def setup_cubes(driver: BattleDriver) -> dict[str, int]:
    return dict(driver.session.owed.dropped)


def test_against_a_merchant_ship_the_entry_needs_no_confirmation(tmp_path: Path) -> None:
    # The first seed whose first battle is against a Merchant ship (which seed that is moves with the rules).
    for seed in range(1, 60):
        core, driver = to_battle(tmp_path / f"m{seed}.db", seed, {"tower": False, "camera": False})
        setup = driver.session.setup
        if not setup.defender.is_player:
            break
    assert not setup.defender.is_player, "no seed in 1-59 starts with a battle against a Merchant"
    enter = prompts(core, "enter_drop")
    assert [p.player for p in enter] == [setup.attacker.name]
    assert answer(core, setup.attacker.name, enter[0], {"cubes": landed(driver)})["accepted"]
    assert not prompts(core, "confirm_drop")
    session = driver.session or finished(driver)["session"]  # with no ability to play it may be over already
    assert session.setup.battle_id == setup.battle_id and session.record["steps"][0]["step"] == "drop"


def test_tower_only_the_hand_entry_is_checked_against_the_towers_counts(tmp_path: Path) -> None:
    clock = Clock()
    core, driver = to_battle(tmp_path / "m.db", 2, {"tower": True, "camera": True}, clock)
    driver.sensor_seen("tower")
    driver.tower_totals({"blue": 3}, boot=1)  # a heartbeat: the tower is there, the camera never spoke
    assert shown(core)["sensors"] == {"tower": "live", "camera": "manual"}
    owed = setup_cubes(driver)
    attacker, defender = driver.session.setup.attacker.name, driver.session.setup.defender.name
    enter = prompts(core, "enter_drop", attacker)[0]
    # Entered and confirmed before the tower counted the drop: it waits for the tower, then is checked.
    assert answer(core, attacker, enter, {"cubes": landed(driver)})["accepted"]
    assert answer(core, defender, prompts(core, "confirm_drop", defender)[0], {"confirm": True})["accepted"]
    assert driver.session.record["steps"] == []
    short = {c: n for c, n in owed.items()}
    first = sorted(short)[0]
    short[first] -= 1
    driver.tower_totals({c: n + (3 if c == "blue" else 0) for c, n in short.items()}, boot=1)
    assert driver.session.record["steps"] == []  # the tower missed a cube: the session asks, never guesses
    assert any(p.kind == "missing-cube" and p.data.get("source") == "tower" for p in driver.session.prompts())
    driver.tower_totals({c: n + (3 if c == "blue" else 0) for c, n in owed.items()}, boot=1)
    step = current(driver).record["steps"][0]
    assert step["step"] == "drop" and step["tower_counts"] == {c: n for c, n in owed.items() if n}


def test_camera_only_the_towers_counts_come_from_the_reading(tmp_path: Path) -> None:
    clock = Clock()
    core, driver = to_battle(tmp_path / "m.db", 2, {"tower": True, "camera": True}, clock)
    driver.sensor_seen("camera")
    assert shown(core)["sensors"] == {"tower": "manual", "camera": "live"}
    assert not prompts(core, "enter_drop")  # the camera reads the board: nobody is asked to tap it
    owed = setup_cubes(driver)
    reading = {
        "status": "ok",
        "redrop": [],
        "ambiguous": [],
        "cubes": [
            {"color": c, "zone": "str-1a", "on_rail": False, "confidence": 0.99}
            for c, n in sorted(owed.items())
            for _ in range(n)
        ],
    }
    driver.camera(reading, settled=True)
    step = current(driver).record["steps"][0]
    assert step["tower_counts"] == {c: n for c, n in owed.items() if n}
    assert step["board"][0]["zone"] == "str-1a"


def test_a_camera_that_goes_silent_mid_battle_hands_the_drop_to_the_players(tmp_path: Path) -> None:
    clock = Clock()
    core, driver = to_battle(tmp_path / "m.db", 2, {"tower": False, "camera": True}, clock)
    driver.sensor_seen("camera")
    driver.tick()
    assert not prompts(core, "enter_drop")
    clock.t += 19.0
    driver.tick()
    assert not prompts(core, "enter_drop")
    clock.t += 2.0  # no reading 20 s after the drop: the players enter it
    driver.tick()
    assert shown(core)["sensors"]["camera"] == "manual"
    assert {p.player for p in prompts(core, "enter_drop")} == {
        driver.session.setup.attacker.name,
        driver.session.setup.defender.name,
    }
    # An unplugged camera (vision.health offline) does the same at once.
    core2, driver2 = to_battle(tmp_path / "n.db", 2, {"tower": False, "camera": True}, Clock())
    driver2.sensor_seen("camera")
    assert not prompts(core2, "enter_drop")
    driver2.sensor_seen("camera", online=False)
    assert prompts(core2, "enter_drop")


def test_a_bystander_cannot_correct_or_answer_a_disagreement(tmp_path: Path) -> None:
    core, driver = to_battle(tmp_path / "m.db", 2, {"tower": True, "camera": True})
    driver.sensor_seen("tower")
    driver.sensor_seen("camera")
    setup = driver.session.setup
    bystander = next(p for p in PLAYERS if p not in (setup.attacker.name, setup.defender.name))
    driver.tower_totals({}, boot=1)
    owed = setup_cubes(driver)
    driver.tower_totals({c: n for c, n in owed.items() if n}, boot=1)
    reading = {
        "status": "ok",
        "redrop": [],
        "ambiguous": [0],
        "cubes": [
            {"color": c, "zone": "str-1a", "on_rail": False, "confidence": 0.3}
            for c, n in sorted(owed.items())
            for _ in range(n)
        ],
    }
    driver.camera(reading, settled=True)
    ask = prompts(core, "confirm_reading", None)
    assert ask
    r = answer(core, bystander, ask[0], {"cube": 0, "zone": "str-2"})
    assert (r["accepted"], r["kind"]) == (False, "illegal") and "battle" in r["reason"]
    assert answer(core, setup.attacker.name, ask[0], {"cube": 0, "zone": "str-2"})["accepted"]


def test_after_the_result_only_the_battles_players_correct_and_the_other_side_may_contest(
    tmp_path: Path,
) -> None:
    core, driver = to_battle(tmp_path / "m.db", 2, {"tower": False, "camera": False})
    setup = driver.session.setup
    attacker, defender = setup.attacker.name, setup.defender.name
    bystander = next(p for p in PLAYERS if p not in (attacker, defender))
    finish_by_hand(core, driver, setup.battle_id)
    review = {p.player: p for p in prompts(core, "confirm_reading") if p.data.get("resolved")}
    # "the correction form only for the players in that battle"
    assert set(review) == {attacker, defender}
    step = review[attacker].data["steps"][0]
    cube = step["cubes"][0]
    assert cube["zone"] == "str-2"
    # A correction that changes nothing is refused and logs nothing.
    r = answer(
        core, attacker, review[attacker], {"step": step["step"], "cube": cube["cube"], "zone": "str-2"}
    )
    assert (r["accepted"], r["kind"]) == (False, "invalid") and "change" in r["reason"]
    seq = core.seq
    r = answer(core, attacker, review[attacker], {"step": step["step"], "cube": cube["cube"], "zone": "miss"})
    assert r["accepted"], r
    assert core.seq == seq + 1  # the game gained a referee correction
    fixed = current(driver).record
    # The other side sees it and may contest it; the one who made it gets no such prompt.
    contest = prompts(core, "battle_correction")
    assert [p.player for p in contest] == [defender]
    assert contest[0].data["correction"]["by"] == attacker and contest[0].data["correction"]["zone"] == "miss"
    assert not [p for p in core.prompts.values() if p.player == bystander and "battle_id" in p.data]
    r = answer(core, defender, contest[0], {"contest": True})
    assert r["accepted"], r
    assert finished(driver)["session"].record != fixed
    again = {p.player: p for p in prompts(core, "confirm_reading") if p.data.get("resolved")}
    assert again[attacker].data["steps"][0]["cubes"][0]["zone"] == "str-2"  # put back as it was
    assert not prompts(core, "battle_correction")
    # Every correction is logged with who, what and the evidence (no camera crop for a hand entry).
    kinds = [
        (k, d.get("by"), d.get("from"), d.get("zone"))
        for _t, k, d in core.log.incidents("m")
        if d.get("after_result")
    ]
    assert kinds == [("misread", attacker, "str-2", "miss"), ("contested", defender, "miss", "str-2")]
    assert all("crop" in d for _t, _k, d in core.log.incidents("m") if d.get("after_result"))


def test_a_correction_of_the_live_reading_waits_for_the_other_side_who_may_contest_it(tmp_path: Path) -> None:
    core, driver = to_battle(tmp_path / "m.db", 2, {"tower": True, "camera": True})
    driver.sensor_seen("tower")
    driver.sensor_seen("camera")
    setup = driver.session.setup
    attacker, defender = setup.attacker.name, setup.defender.name
    owed = setup_cubes(driver)
    driver.tower_totals({}, boot=1)
    driver.tower_totals({c: n for c, n in owed.items() if n}, boot=1)
    reading = {
        "status": "ok",
        "redrop": [],
        "ambiguous": [0],
        "cubes": [
            {"color": c, "zone": "str-1a", "on_rail": False, "confidence": 0.3 if i == 0 else 0.99}
            for i, c in enumerate(c for c, n in sorted(owed.items()) for _ in range(n))
        ],
    }
    driver.camera(reading, settled=True)
    ask = prompts(core, "confirm_reading", None)[0]
    # Cube 1 was read with confidence: overriding the camera waits for the other side's answer.
    assert answer(core, attacker, ask, {"cube": 1, "zone": "str-2"})["accepted"]
    assert driver.session._pending_corrections == []
    contest = prompts(core, "battle_correction", defender)
    assert len(contest) == 1 and "Strength 2" in contest[0].text and "str-2" not in contest[0].text
    assert not prompts(core, "battle_correction", attacker)
    # Contested: this drop goes back to the people, entered by hand.
    assert answer(core, defender, contest[0], {"contest": True})["accepted"]
    assert shown(core)["sensors"]["camera"] == "manual"
    assert {p.player for p in prompts(core, "enter_drop")} == {attacker, defender}
    assert answer(core, attacker, prompts(core, "enter_drop", attacker)[0], {"cubes": landed(driver)})[
        "accepted"
    ]
    assert answer(core, defender, prompts(core, "confirm_drop", defender)[0], {"confirm": True})["accepted"]
    assert [c["zone"] for c in current(driver).record["steps"][0]["board"]] == ["str-2"] * sum(owed.values())


def test_the_first_cubes_counted_tell_the_engine_the_battle_has_begun(tmp_path: Path) -> None:
    """Rulebook (Rearranging, Jettisoning): "However, once the battle has begun, you can no longer do this
    until the battle is over." The table's first count of the drop is that moment: the controller tells the
    engine (`battle_drop_started`), which then refuses a side's jettison with that reason."""
    clock = Clock()
    core, driver = to_battle(tmp_path / "m.db", 2, {"tower": True, "camera": True}, clock)
    driver.sensor_seen("tower")
    driver.tower_totals({"blue": 3}, boot=1)  # the baseline: nothing of this battle counted yet
    assert not core.state.data["battle"].get("locked")
    owed = setup_cubes(driver)
    first = sorted(c for c, n in owed.items() if n)[0]
    driver.tower_totals({first: 1 + (3 if first == "blue" else 0)}, boot=1)  # one cube of the drop counted
    assert core.state.data["battle"].get("locked")
    defender = driver.session.setup.defender.name
    r = core.handle_command(
        defender,
        json.dumps(
            {
                "request_id": "j",
                "seq": core.seq,
                "action": {"type": "jettison", "hold": 0, "cargo": 1, "coins": 0},
            }
        ),
    )
    assert not r["accepted"] and "battle has begun" in r["reason"], r
