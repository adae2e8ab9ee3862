"""controller/words.py: the game's words for every legal action, card, square, achievement and the score
table, checked against the engine over random games (no browser; test_game_words.py checks the pages)."""

from __future__ import annotations

import random
import re
from pathlib import Path

from controller import words
from controller.core import TableCore
from controller.gamelog import GameLog
from rules import api
from tests.controller.web.test_game_words import ENGINE_ID


def walk(seed: int, players: list[str], steps: int, options: dict | None = None):
    """States of a random legal game (every seat's actions considered, the active player first)."""
    state = api.new_game(players, seed, options)
    rng = random.Random(seed)
    yield state
    for _ in range(steps):
        if api.is_over(state):
            return
        for pl in [state.active, *state.players, "table"]:
            if pl is None:
                continue
            acts = api.legal_actions(state, pl)
            if acts:
                state, _ = api.apply(state, {"seq": state.seq, "player": pl, "action": rng.choice(acts)})
                break
        else:
            return
        yield state


def test_every_offered_action_has_its_own_words_and_no_engine_id() -> None:
    kinds: set[str] = set()
    for options in (None, {"auto_chance": False}):
        for seed in (1, 2):
            for state in walk(seed, ["red", "blue", "green"], 250, options):
                for pl in state.players:
                    legal = api.legal_actions(state, pl)
                    w = words.private_words(api, state, pl, api.private_view(state, pl), legal)
                    assert len(w["actions"]) == len(legal)
                    for a, aw in zip(legal, w["actions"], strict=True):
                        kinds.add(a["type"])
                        assert (
                            aw["label"]
                            and aw["label"] != words.title(a["type"])
                            or a["type"] == "resolve_battle"
                        ), (a, aw)
                        assert not ENGINE_ID.search(aw["label"]), (a, aw["label"])
                    for c in w["cards"].values():
                        assert not any(
                            ENGINE_ID.search(t) for t in [c["title"], *c["abilities"], c["icons_text"]]
                        )
    assert {"move", "play_card", "use_ability", "end_turn", "set_sails", "load"} <= kinds, kinds


def test_the_issues_examples_read_as_the_issue_wrote_them() -> None:
    """Issue 13: "Crew (level 1): gain 1 Cargo onto your Dock", "Sail to Island 9 (row 1, column 2) — 1
    Sail"."""
    state = api.new_game(["red", "blue"], 5, None)
    me = state.active
    assert me is not None  # the main phase: someone has the turn
    crew = next(c for c in state.data["p"][me]["hand"] if c.startswith("crew"))
    state, _ = api.apply(
        state, {"seq": state.seq, "player": me, "action": {"type": "play_card", "card": crew}}
    )
    state, _ = api.apply(state, {"seq": state.seq, "player": me, "action": {"type": "set_sails"}})
    legal = api.legal_actions(state, me)
    w = words.private_words(api, state, me, api.private_view(state, me), legal)
    labels = {
        a["type"] + ":" + str(a.get("ability") or a.get("path")): aw["label"]
        for a, aw in zip(legal, w["actions"], strict=True)
    }
    assert labels[f"use_ability:{crew}:L1:0"] == "Crew (level 1): gain 1 Cargo onto your Dock"
    view = api.public_view(state)
    for a, aw in zip(legal, w["actions"], strict=True):
        if a["type"] == "move" and a["path"] != ["harbor"]:
            sq = a["path"][0]
            board = view["grid"][sq]["board"]
            m = re.match(r"^r(\d)c(\d)$", sq)
            assert m, f"{sq} is not a grid square's id"
            place = f"row {m.group(1)}, column {m.group(2)}"
            expected = (
                f"Sail to Island {int(board.split('-')[1])} ({place}) — 1 Sail"
                if board and board.startswith("island")
                else f"Sail to an unexplored square ({place}) — 1 Sail (explores it)"
                if not board
                else None
            )
            if expected:
                assert aw["label"] == expected
    # a card shows its name, level, icons and ability text (from rules/data/sailors.json)
    assert w["cards"][crew]["title"] == "Crew (level 1)" and w["cards"][crew]["abilities"] == [
        "gain 1 Cargo onto your Dock"
    ]
    # holds numbered from 1, as the engine's own refusals count them
    load = [aw["label"] for a, aw in zip(legal, w["actions"], strict=True) if a["type"] == "load"]
    assert all(re.search(r"into hold [12]$", x) for x in load)


def test_undo_is_offered_exactly_when_the_engine_accepts_it() -> None:
    offered = refused = 0
    for state in walk(4, ["red", "blue"], 300):
        me = state.active
        if me is None:
            continue
        w = words.private_words(api, state, me, api.private_view(state, me), api.legal_actions(state, me))
        try:
            api.apply(state, {"seq": state.seq, "player": me, "action": {"type": "undo"}})
            accepted = True
        except api.RulesError:
            accepted = False
        assert (w["undo"] is not None) == accepted
        if w["undo"]:
            offered += 1
            assert w["undo"]["action"] == {"type": "undo"} and w["undo"]["label"].startswith("Undo: ")
            assert not ENGINE_ID.search(w["undo"]["label"])
        else:
            refused += 1
        other = next(p for p in state.players if p != me)
        assert words.private_words(api, state, other, api.private_view(state, other), [])["undo"] is None
    assert offered > 10 and refused > 10


def test_achievements_show_their_requirement() -> None:
    """Rulebook, Achievements: 'Explorer: Explore the required number of Ocean boards (2-player game: 5
    spaces; 3-player game: 4 spaces; 4-player game: 3 spaces).'"""
    for players, n in (
        (["red", "blue"], 5),
        (["red", "blue", "green"], 4),
        (["red", "blue", "green", "yellow"], 3),
    ):
        state = api.new_game(players, 1, None)
        aw = words.public_words(state, api.public_view(state))["achievements"]
        assert aw["explorer"]["requirement"] == f"Explore {n} Ocean boards."
        assert aw["legendary"]["requirement"] == "Win 4 non-Building battles with your Ship."
        assert all(isinstance(a["coins"], int) for a in aw.values())


def test_score_table_is_the_engines_scores_in_the_rulebooks_order() -> None:
    *_, state = walk(6, ["red", "blue", "green"], 5000)
    assert state is not None and api.is_over(state)
    view = api.public_view(state)
    table = words.score_table(view)
    assert table is not None
    assert [r["key"] for r in table["rows"]] == [k for k, _ in words.SCORE_CATEGORIES]
    for c in state.players:
        assert sum(r["values"][c] for r in table["rows"]) == view["scores"]["totals"][c] == table["totals"][c]
    assert table["players"][0] == max(state.players, key=lambda c: view["scores"]["totals"][c])
    if view["scores"]["winner"]:
        assert table["verdict"].startswith(words.player_name(view["scores"]["winner"]) + " wins")
    assert words.score_table(api.public_view(api.new_game(["red", "blue"], 1, None))) is None


def test_prompt_options_get_square_names() -> None:
    state = api.new_game(["red", "blue"], 5, None)
    view = api.public_view(state)
    w = words.prompt_words(state, view, {"kind": "ship_path", "options": [["r1c1", "r2c1"], ["harbor"]]})
    assert w["option_labels"][1] == "Harbor" and "r1c1" not in w["option_labels"][0]
    lv = words.prompt_words(state, view, {"kind": "level_up", "cards": ["crew-1"]}, "red")
    assert lv["card_labels"] == ["Crew (level 1)"]


def test_the_controller_publishes_the_words(tmp_path: Path) -> None:
    log = GameLog(tmp_path / "w.db")
    core = TableCore(log, table_id="t")
    core.open_game(["red", "blue"], 5)
    pub = core.public_payload()
    assert pub["words"]["squares"]["r1c1"]["place"] == "row 1, column 1"
    priv = core.private_payload(core.state.active)
    assert len(priv["words"]["actions"]) == len(priv["legal_actions"])
    # the engine's action objects go out unchanged: the words are beside them, never inside
    assert all("label" not in a for a in priv["legal_actions"])
    log.close()


def test_words_never_stop_the_table_publishing() -> None:
    """A state the words cannot read (a toy engine) gets `words: null`, never an exception."""
    payload = words.decorate_public(None, object(), {"view": {}})
    assert payload["words"] is None
    assert words.decorate_private(None, object(), "red", {"view": {}, "legal_actions": []})["words"] is None


def test_battle_ability_options_are_named_by_their_card() -> None:
    state = api.new_game(["red", "blue"], 5, None)
    view = api.public_view(state)
    prompt = {
        "kind": "battle_ability",
        "options": [
            {
                "id": "red:gunner-1:L1:0",
                "source": "gunner-1",
                "effect": "drop_extra_cubes",
                "params": {"cubes": 2},
                "needs": [],
            }
        ],
    }
    w = words.prompt_words(state, view, prompt, "red")
    assert w["option_labels"] == ["Gunner (level 1): BATTLE: drop 2 extra Battle cubes"]


class Recorder:
    def __init__(self) -> None:
        self.sent: list[tuple[str, dict]] = []

    def publish(self, topic: str, payload, retain: bool = False) -> None:
        self.sent.append((topic, payload))


def test_the_public_log_reads_in_words_and_keeps_secrets(tmp_path: Path) -> None:
    log = GameLog(tmp_path / "e.db")
    rec = Recorder()
    core = TableCore(log, table_id="t", publisher=rec)
    core.open_game(["red", "blue"], 8)
    rng = random.Random(8)
    for _ in range(400):
        if api.is_over(core.state):
            break
        for pl in [core.state.active, *core.players]:
            acts = api.legal_actions(core.state, pl)
            if acts:
                core.submit(pl, rng.choice(acts), core.seq)
                break
    events = [e for topic, p in rec.sent if topic.endswith("/events") for e in p["events"]]
    assert len(events) > 300
    kinds = set()
    for e in events:
        kinds.add(e["type"])
        assert e.get("text"), e
        assert not ENGINE_ID.search(e["text"]), (e["type"], e["text"])
        if e["type"] == "level_up":  # which card was levelled is secret (rules/views.py)
            assert e["text"].endswith("levels up a Sailor card")
    assert {"moved", "cleanup", "play_card", "end_turn"} <= kinds, kinds
    log.close()
