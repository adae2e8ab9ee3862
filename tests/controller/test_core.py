"""TableCore + GameLog: refusals change nothing, the log is written before publishing, resume is exact."""

from __future__ import annotations

import json

import pytest

from controller.core import TableCore
from controller.gamelog import GameLog
from tests.controller import toy_engine as toy

PLAYERS = ["red", "blue"]


class Recorder:
    def __init__(self, log: GameLog | None = None, game: list | None = None) -> None:
        self.messages: list[tuple[str, dict, bool]] = []
        self.log, self.game = log, game
        self.logged_at_publish: list[int] = []

    def publish(self, topic, payload, retain=False):
        json.dumps(payload)  # every payload must be JSON
        self.messages.append((topic, payload, retain))
        if self.log is not None and self.game:
            self.logged_at_publish.append(len(self.log.events(self.game[0])))


@pytest.fixture
def core(tmp_path):
    log = GameLog(tmp_path / "g.db", snapshot_every=3)
    rec = Recorder(log, [])
    c = TableCore(log, "t1", publisher=rec, engine=toy)
    c.open_game(PLAYERS, seed=5)
    rec.game.append(c.game_id)
    yield c
    log.close()


def cmd(rid, seq, action, **extra):
    return json.dumps({"request_id": rid, "seq": seq, "action": action, **extra})


@pytest.mark.parametrize(
    "raw, kind, words",
    [
        (b"{not json", "invalid", "not valid JSON"),
        (b"[1,2]", "invalid", "JSON object"),
        (json.dumps({"seq": 0, "action": {"type": "advance", "steps": 1}}), "invalid", "request_id"),
        (cmd("r", 0, {"type": "fly"}), "invalid", "Unknown action"),
        (cmd("r", 0, {"type": "advance", "steps": 9}), "illegal", "1, 2 or 3"),
        (cmd("r", 7, {"type": "advance", "steps": 1}), "stale", "moved on"),
        (cmd("r", 0, {"type": "advance", "steps": 1}, player="blue"), "illegal", "cannot act as"),
        (
            json.dumps({"request_id": "r", "seq": "0", "action": {"type": "advance"}}),
            "invalid",
            "integer seq",
        ),
        (json.dumps({"request_id": "r", "prompt_id": "nope", "answer": {}}), "stale", "no longer open"),
        (b"\xff\xfe", "invalid", "not valid JSON"),
    ],
)
def test_bad_commands_are_refused_and_change_nothing(core, raw, kind, words):
    before = (toy.state_to_json(core.state), len(core.log.events(core.game_id)), len(core.publisher.messages))
    reply = core.handle_command("red", raw)
    assert reply["accepted"] is False and reply["kind"] == kind and words in reply["reason"]
    assert reply["seq"] == 0
    after = (toy.state_to_json(core.state), len(core.log.events(core.game_id)), len(core.publisher.messages))
    assert before == after


def test_wrong_player_is_refused_with_the_engine_sentence(core):
    reply = core.handle_command("blue", cmd("b1", 0, {"type": "advance", "steps": 1}))
    assert reply == {
        "request_id": "b1",
        "accepted": False,
        "kind": "illegal",
        "reason": "It is red's turn, not blue's.",
        "seq": 0,
    }


def test_accepted_command_is_logged_before_published(core):
    reply = core.handle_command("red", cmd("r1", 0, {"type": "advance", "steps": 2}))
    assert reply["accepted"] and reply["seq"] == 2
    rec = core.publisher
    assert rec.logged_at_publish and min(rec.logged_at_publish) == 2  # every publish saw both events on disk
    topics = [t for t, _p, _r in rec.messages]
    assert topics[0] == "table/t1/events"
    state = next(p for t, p, r in rec.messages if t == "table/t1/state")
    assert state["epoch"] == core.game_id and state["seq"] == 2 and state["view"]["active"] == "blue"
    assert state["tower"] == {"warning": None} and "battle" in state
    red = next(p for t, p, r in rec.messages if t == "table/t1/player/red/state")
    blue = next(p for t, p, r in rec.messages if t == "table/t1/player/blue/state")
    assert red["view"]["secret"] != blue["view"]["secret"]
    assert blue["legal_actions"] and not red["legal_actions"]
    # public topics never carry a secret
    for t, p, _r in rec.messages:
        if "/player/" not in t:
            assert "secret" not in json.dumps(p)


def test_resume_from_snapshot_plus_events_equals_replay(tmp_path):
    log = GameLog(tmp_path / "g.db", snapshot_every=3)
    c = TableCore(log, "t1", engine=toy)
    assert c.open_game(PLAYERS, seed=9) is False
    initial = toy.new_game(PLAYERS, 9)
    for i in range(7):
        p = PLAYERS[i % 2]
        c.submit(p, {"type": "advance", "steps": 1 + i % 3}, c.seq)
    assert log.latest_snapshot(c.game_id).n in (
        12,
        14,
    )  # snapshots land every 3 events, at command boundaries
    again = TableCore(GameLog(tmp_path / "g.db"), "t1", engine=toy)
    assert again.open_game(PLAYERS, seed=123) is True
    assert again.game_id == c.game_id and again.state == c.state
    assert toy.replay(log.events(c.game_id), initial) == c.state
    # another table in the same database is a different game
    other = TableCore(GameLog(tmp_path / "g.db"), "t2", engine=toy)
    assert other.open_game(PLAYERS, seed=1) is False and other.game_id != c.game_id
    assert {g.table_id for g in log.games()} == {"t1", "t2"}
    lines = list(log.export_lines(c.game_id))
    assert [json.loads(x) for x in lines] == log.events(c.game_id) and len(lines) == 14


def test_level_up_prompt_follows_the_engine_and_its_answer_is_the_action(tmp_path):
    import rules.api as api
    from controller.simplayers import SimPlayers

    log = GameLog(tmp_path / "l.db")
    rec = Recorder()
    c = TableCore(log, "lv", publisher=rec)
    c.open_game(["red", "blue", "green", "yellow"], seed=2)
    sim = SimPlayers(c, seed=3, delay=0)
    for _ in range(400):
        c.publish_state()
        if any(p.kind == "level_up" for p in c.prompts.values()):
            break
        assert sim.step()
    prompt = next(p for p in c.prompts.values() if p.kind == "level_up")
    player, card = prompt.player, prompt.data["cards"][0]
    assert {"type": "level_up", "card": card} in api.legal_actions(c.state, player)
    published = [p for t, p, _r in rec.messages if t == f"table/lv/player/{player}/prompts"]
    assert any(x["id"] == prompt.id for x in published[-1]["prompts"])
    bad = c.handle_command(
        player, json.dumps({"request_id": "1", "prompt_id": prompt.id, "answer": {"card": "x"}})
    )
    assert (bad["accepted"], bad["kind"]) == (False, "invalid")
    ok = c.handle_command(
        player, json.dumps({"request_id": "2", "prompt_id": prompt.id, "answer": {"card": card}})
    )
    assert ok["accepted"], ok
    assert log.commands(c.game_id)[-1]["action"] == {"type": "level_up", "card": card}


def test_no_input_crashes_the_command_handler_or_changes_state(tmp_path):
    from hypothesis import HealthCheck, given, settings
    from hypothesis import strategies as st

    log = GameLog(tmp_path / "f.db")
    c = TableCore(log, "fz")
    c.open_game(["red", "blue"], seed=1)
    json_values = st.recursive(
        st.none() | st.booleans() | st.integers() | st.text(max_size=8),
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3),
        max_leaves=8,
    )
    actions = st.fixed_dictionaries(
        {"type": st.sampled_from(["move", "buy", "end_turn", "teleport", "level_up"])},
        optional={"path": json_values, "card": json_values},
    )
    commands = st.one_of(
        st.binary(max_size=40),
        json_values.map(lambda v: json.dumps(v).encode()),
        st.fixed_dictionaries(
            {"request_id": st.text(min_size=1, max_size=5), "seq": st.integers(-2, 30), "action": actions}
        ).map(lambda v: json.dumps(v).encode()),
        st.fixed_dictionaries(
            {"request_id": st.text(min_size=1, max_size=5), "prompt_id": json_values, "answer": json_values}
        ).map(lambda v: json.dumps(v).encode()),
    )

    @settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(player=st.sampled_from(["red", "blue", "green"]), raw=commands)
    def check(player, raw):
        before = (json.dumps(c.engine.state_to_json(c.state), sort_keys=True), len(log.events(c.game_id)))
        reply = c.handle_command(player, raw)
        assert set(reply) == {"request_id", "accepted", "kind", "reason", "seq"}
        if not reply["accepted"]:
            assert reply["kind"] in ("invalid", "illegal", "ambiguous", "stale") and reply["reason"]
            assert (
                json.dumps(c.engine.state_to_json(c.state), sort_keys=True),
                len(log.events(c.game_id)),
            ) == before

    check()
