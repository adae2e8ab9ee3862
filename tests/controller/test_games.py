"""The table serves either game by the game's own declaration (issue 21, "Game choice"): config
`table.game`, the controller's payloads and words per game, the new-game screen, the ocean-grid camera only
for the game that has one, and a chosen Combat Card in no payload but its chooser's before the reveal."""

from __future__ import annotations

import json
import random
import re
from typing import Any

import pytest

from controller import config as config_mod
from controller import games
from controller.core import TableCore
from controller.gamelog import GameLog
from rules import api

ENGINE_ID = re.compile(r"\b[a-z]+_[a-z_]+\b|\br\d+c\d+\b|\bNone\b")


class Recorder:
    def __init__(self) -> None:
        self.messages: list[tuple[str, Any]] = []

    def publish(self, topic: str, payload: Any, retain: bool = False) -> None:
        self.messages.append((topic, json.loads(json.dumps(payload))))

    def last(self, topic: str) -> Any:
        return next(p for t, p in reversed(self.messages) if t == topic)


def sea_core(tmp_path: Any, players: list[str], seed: int = 3) -> tuple[TableCore, Recorder, GameLog]:
    log = GameLog(tmp_path / "g.db")
    rec = Recorder()
    core = TableCore(log, "t1", publisher=rec)
    core.new_game_options = lambda name: games.by_name(name).new_options({}, False)
    core.open_game(players, seed, {"game": "great-sea"})
    return core, rec, log


def play(core: TableCore, rng: random.Random, until: Any = None, limit: int = 5000) -> None:
    """Random legal actions through the core (as tablets would send them) until `until(core)` or the end."""
    for _ in range(limit):
        if api.is_over(core.state) or (until is not None and until(core)):
            return
        player = core.state.data["active"]
        legal = core.engine.legal_actions(core.state, player)
        core.submit(player, rng.choice(legal), core.seq)


def write(tmp_path: Any, text: str) -> Any:
    path = tmp_path / "table.toml"
    path.write_text(text)
    return path


# -- config ------------------------------------------------------------------------------------------


def test_the_registry_is_the_configs_list_of_games() -> None:
    assert tuple(games.games()) == games.NAMES
    assert games.games()[games.DEFAULT].name == "dead-reckoning"
    assert set(api.GAMES) == set(games.NAMES)  # every game the engine plays is served at the table


def test_table_game_picks_the_game_and_a_bad_value_is_one_sentence(tmp_path: Any) -> None:
    assert config_mod.load(write(tmp_path, '[table]\ngame = "great-sea"\n'))["table"]["game"] == "great-sea"
    assert config_mod.load(None)["table"]["game"] == "dead-reckoning"
    with pytest.raises(config_mod.ConfigError) as exc:
        config_mod.load(write(tmp_path, '[table]\ngame = "chess"\n'))
    msg = str(exc.value)
    assert "table.toml" in msg and "table.game" in msg and '"dead-reckoning", "great-sea"' in msg
    assert "\n" not in msg


def test_table_engine_accepts_only_rules_api(tmp_path: Any) -> None:
    with pytest.raises(config_mod.ConfigError) as exc:
        config_mod.load(write(tmp_path, '[table]\nengine = "my.engine"\n'))
    assert "table.engine" in str(exc.value) and '"rules.api"' in str(exc.value)


def test_the_great_sea_refuses_dead_reckonings_expansions(tmp_path: Any) -> None:
    with pytest.raises(config_mod.ConfigError) as exc:
        config_mod.load(write(tmp_path, '[table]\ngame = "great-sea"\nexpansions = ["letters-of-marque"]\n'))
    assert "table.expansions" in str(exc.value) and "The Great Sea has none" in str(exc.value)


# -- payloads ----------------------------------------------------------------------------------------


def test_a_great_sea_game_is_published_in_its_own_words(tmp_path: Any) -> None:
    core, rec, log = sea_core(tmp_path, ["red", "blue"])
    try:
        play(core, random.Random(1), until=lambda c: c.seq > 60)
        core.publish_all()
        public = rec.last("table/t1/state")
        assert public["game"] == {"name": "great-sea", "title": "The Great Sea"}
        assert public["view"]["game"] == "great-sea"
        w = public["words"]
        assert w["title"] == "The Great Sea" and w["regions"]["r0c0"]["name"] == "A1"
        me = core.state.data["active"]
        private = rec.last(f"table/t1/player/{me}/state")
        labels = [a["label"] for a in private["words"]["actions"]]
        assert len(labels) == len(private["legal_actions"]) > 0
        assert not [x for x in labels if ENGINE_ID.search(x)], labels
    finally:
        log.close()


def test_every_offered_action_has_words_without_engine_ids_over_whole_games() -> None:
    """Over random 2- and 4-player games, every legal action of the player to act has a label in the game's
    words (no snake_case id, no region id); the labels of one state are distinct where the actions are."""
    from controller.games import great_sea_words as gw

    checked = 0
    for players, seed in ((["red", "blue"], 1), (["red", "blue", "green", "yellow"], 2)):
        state = api.new_game(players, seed, {"game": "great-sea"})
        rng = random.Random(seed)
        while not api.is_over(state):
            p = state.data["active"]
            legal = api.legal_actions(state, p)
            view = api.private_view(state, p)
            labels = [gw.action_words(view, p, a)["label"] for a in legal]
            assert not [x for x in labels if ENGINE_ID.search(x)], labels
            checked += len(labels)
            json.dumps(gw.public_words(api.public_view(state)))
            state, _ = api.apply(state, {"seq": state.seq, "player": p, "action": rng.choice(legal)})
        table = gw.score_table(api.public_view(state))
        assert table is not None and table["winner"] == state.data["winner"]
    assert checked > 1000


def _seen_by_others(core: TableCore, applied: Any, chooser: str) -> Any:
    """Everything the controller would publish to anyone but the chooser after this choice."""
    state, events = applied
    core.state = state
    public = core.public_payload()
    public.pop("ts")
    others = {p: core.private_payload(p) for p in core.players if p != chooser}
    shown = [core.engine.event_view(e, None) for e in events]
    return public, others, core.game.decorate_events(state, {"events": shown})


def test_a_chosen_combat_card_is_in_no_payload_but_its_choosers_until_revealed(tmp_path: Any) -> None:
    """ "Each player secretly chooses a Combat Card ... without yet revealing it to their opponent": after
    the first choice, what the public state, the events and the other seats' payloads say is the same
    whichever card was chosen (every player holds the same Basic cards, so the test compares two choices
    rather than looking for a card's name); the chooser's own payload names it."""
    core, rec, log = sea_core(tmp_path, ["red", "blue", "green"], seed=4)
    rng = random.Random(4)
    try:
        compared = 0
        for _ in range(4000):
            if api.is_over(core.state) or compared >= 3:
                break
            player = core.state.data["active"]
            legal = core.engine.legal_actions(core.state, player)
            c = core.state.data["combat"]
            cards = [a for a in legal if a["type"] == "play_combat_card" and a.get("card")]
            if c is not None and c["stage"] == "choose" and all(v is None for v in c["chosen"].values()):
                if len(cards) >= 2:
                    before = core.state
                    cmd = {"seq": core.seq, "player": player}
                    one = core.engine.apply(before, {**cmd, "action": cards[0]})
                    two = core.engine.apply(before, {**cmd, "action": cards[1]})
                    assert _seen_by_others(core, one, player) == _seen_by_others(core, two, player)
                    core.state = one[0]
                    mine = core.private_payload(player)
                    assert mine["view"]["combat"]["chosen"][player]["card"] == cards[0]["card"]
                    assert mine["words"]["chosen"]["name"].startswith(("Basic card", "Play"))
                    core.state = before
                    compared += 1
            combat = [a for a in legal if a["type"] == "initiate_combat"]
            action = combat[0] if combat and rng.random() < 0.5 else rng.choice(legal)
            core.submit(player, action, core.seq)
        assert compared >= 3, "too few Combats in this game"
    finally:
        log.close()


# -- the new-game screen -----------------------------------------------------------------------------


def test_a_finished_game_offers_a_new_game_of_either_game(tmp_path: Any) -> None:
    core, rec, log = sea_core(tmp_path, ["red", "blue"])
    try:
        assert "new_game" not in core.prompts
        reply = core.handle_command(
            "red", json.dumps({"request_id": "1", "prompt_id": "new_game", "answer": {"game": "great-sea"}})
        )
        assert not reply["accepted"] and reply["kind"] == "stale"  # no new game while one is played
        play(core, random.Random(2))
        core.publish_all()
        prompt = next(p for p in rec.last("table/t1/prompts")["prompts"] if p["kind"] == "new_game")
        assert [o["label"] for o in prompt["options"]] == ["Dead Reckoning", "The Great Sea"]
        old = core.game_id
        bad = core.handle_command(
            "blue", json.dumps({"request_id": "2", "prompt_id": "new_game", "answer": {"game": "chess"}})
        )
        assert not bad["accepted"] and "dead-reckoning, great-sea" in bad["reason"]
        ok = core.handle_command(
            "blue",
            json.dumps({"request_id": "3", "prompt_id": "new_game", "answer": {"game": "dead-reckoning"}}),
        )
        assert ok["accepted"], ok
        assert core.game_id != old and core.game.name == "dead-reckoning"
        public = rec.last("table/t1/state")
        assert public["epoch"] == core.game_id and public["game"]["title"] == "Dead Reckoning"
        assert not [p for p in rec.last("table/t1/prompts")["prompts"] if p["kind"] == "new_game"]
        row = log.active_game("t1")
        assert row is not None and row.game_id == core.game_id  # a restart resumes the new game
    finally:
        log.close()


def test_the_ocean_grid_camera_moves_no_great_sea_ship(tmp_path: Any) -> None:
    from controller.ships import ShipWatcher

    core, rec, log = sea_core(tmp_path, ["red", "blue"])
    try:
        watcher = ShipWatcher(core)
        before = core.seq
        watcher.camera({"reading": {"ships": {"red": "r1c1"}, "boards": {}}})
        watcher.zones({"zones": {}})
        assert core.seq == before and not [k for k in core.prompts if k.startswith("ships:")]
    finally:
        log.close()


def test_the_controller_plays_a_great_sea_demo_to_its_end_and_logs_it(tmp_path: Any) -> None:
    """`smart-table run --demo` with `table.game = "great-sea"`: the controller service (no broker) sets the
    game up from its config, the built-in players play it to its end, and the log marks it finished."""
    from controller.service import ControllerService
    from controller.simplayers import SimLimits

    cfg = config_mod.defaults()
    for key, value in (
        ("table.game", "great-sea"),
        ("table.players", ["red", "blue"]),
        ("table.demo", True),
        ("table.database", str(tmp_path / "t.db")),
        ("simulate.delay", 0.0),
        ("bridge.enabled", False),
        ("vision.enabled", False),
        ("simulate.camera", "model"),
    ):
        cfg.set(key, value)
    svc = ControllerService(cfg, simulate=True, limits=SimLimits(until_game_over=True), mqtt_enabled=False)
    assert svc.run() == 0
    log = GameLog(tmp_path / "t.db")
    try:
        game = log.games()[-1]
        assert game.options["game"] == "great-sea" and game.finished is not None
        state = api.replay([json.loads(x) for x in log.export_lines(game.game_id)])
        assert api.is_over(state) and state.data["winner"] in ("red", "blue")
    finally:
        log.close()
