"""A Deep Legends campaign played at the table by the controller (config `table.campaign`, issue 20): each
game is set up with the campaign's options, recorded into the campaign the moment the engine ends it, and the
Campaign Logs published to the tablets by themselves (no `campaign publish`), also across a SIGKILL of the
controller between a game's last command and its record."""

from __future__ import annotations

import json
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

from controller.campaign import CampaignStore, TableCampaign, bot_command
from controller.core import TableCore
from controller.gamelog import GameLog
from controller.testing import Client, running_mosquitto
from rules.dead_reckoning.deep_legends import campaign as cp
from rules.dead_reckoning.deep_legends import saga as sg
from tests.support.service import start_service

REPO = Path(__file__).resolve().parents[2]
PLAYERS: list[cp.PlayerSpec] = [
    {"id": "ana", "memoir": "Ana the Bold"},
    {"id": "ben", "memoir": "Ben", "saga_items": ["1.07"]},
]
SEATS = ["red", "blue"]


class Recorder:
    def __init__(self) -> None:
        self.sent: list[tuple[str, Any, bool]] = []

    def publish(self, topic: str, payload: Any, retain: bool = False) -> None:
        self.sent.append((topic, payload, retain))

    def campaign(self) -> list[dict[str, Any]]:
        return [p for t, p, r in self.sent if t.endswith("/campaign") and r]


def new_campaign(db: Path) -> None:
    store = CampaignStore(db)
    saga = sg.assign_items(sg.new_saga_state(sg.load_saga()), {"1.07": "ben"})
    store.create(cp.new_campaign("autumn", PLAYERS), saga)
    store.close()


def play_out(core: TableCore, seed: int = 3, limit: int = 20_000) -> int:
    """The simulated campaign players' commands through the controller's core, to the engine's own end."""
    n = 0
    while core.state.phase != "over":
        assert n < limit, "the game did not end"
        cmd = bot_command(core.state, seed, 1)
        core.submit(cmd["player"], cmd["action"], cmd["seq"])
        n += 1
    return n


def test_the_controller_records_a_campaign_game_when_it_ends_and_publishes_the_logs(tmp_path):
    db = tmp_path / "t.db"
    new_campaign(db)
    log = GameLog(db)
    pub = Recorder()
    core = TableCore(log, table_id="t1", publisher=pub)
    table = TableCampaign(core, db, "autumn", SEATS, seed=3)
    core.open_game(SEATS, table.game_seed(), table.options())
    table.attach()
    opts = core.state.data["options"]["deep_legends"]
    assert opts["items"] == {"blue": ["1.07"]} and "saga" in opts  # the campaign's own game
    play_out(core)
    views = pub.campaign()
    assert len(views) == 1, "published once, when the game ended"
    view = views[0]
    assert view["format"] == "smart-table/campaign-view@1" and view["games_played"] == 1
    assert view["seats"] == {"red": "ana", "blue": "ben"}
    row = table.store.get("autumn")
    assert len(row.data["games"]) == 1
    (game,) = table.store.games(row.campaign_id)
    assert game["game_id"] == core.game_id and game["recorded"] is not None
    totals = core.state.data["scores"]["totals"]
    assert game["result"]["scores"] == {"ana": totals["red"], "ben": totals["blue"]}
    assert view["logs"]["ana"]["placement"] == row.data["logs"]["ana"]["placement"]
    # once only: a later call (another listener, a restart) records nothing more
    assert not table.record_if_over() and len(table.store.get("autumn").data["games"]) == 1
    table.close()
    log.close()


def _start(broker: Any, db: Path) -> subprocess.Popen:
    return start_service(
        broker, {"id": "mq", "database": str(db), "players": SEATS, "seed": 3, "campaign": "autumn"}
    )


def _latest(tablet: Client, wants: dict[str, Any], timeout: float = 30.0) -> dict[str, dict[str, Any]]:
    """The first payload on each topic of `wants` that its predicate accepts (in whatever order they come)."""
    got: dict[str, dict[str, Any]] = {}
    deadline = time.monotonic() + timeout
    while len(got) < len(wants):
        msg = tablet.wait_for(
            lambda m: m.topic in wants and m.topic not in got and m.payload, deadline - time.monotonic()
        )
        payload = json.loads(msg.payload)
        if wants[msg.topic](payload):
            got[msg.topic] = payload
    return got


def test_a_game_ended_before_a_sigkill_is_recorded_and_published_when_the_controller_comes_back(tmp_path):
    """The table played game 1 to its end and the controller died before recording it (here: a core that
    never recorded, as if killed right after the last command was logged). Started again, the controller
    records it, opens game 2 of the campaign with the campaign's options, and the tablets' retained
    campaign shows game 1; killed (SIGKILL) and started again, nothing is recorded twice, game 2 goes on."""
    db = tmp_path / "mq.db"
    new_campaign(db)
    log = GameLog(db)
    core = TableCore(log, table_id="mq")
    table = TableCampaign(core, db, "autumn", SEATS, seed=3)
    core.open_game(SEATS, table.game_seed(), table.options())
    table.link()  # linked as game 1, never recorded: the controller "died" after the last command
    play_out(core)
    first = core.game_id
    table.close()
    log.close()
    with running_mosquitto(tables=("mq",)) as broker:
        tablet = Client(broker, "red")
        assert tablet.wait_connected()
        tablet.subscribe("table/mq/#")
        topic, state_topic = "table/mq/campaign", "table/mq/state"
        proc = _start(broker, db)
        try:
            got = _latest(
                tablet,
                {topic: lambda v: v.get("games_played") == 1, state_topic: lambda s: s.get("epoch") == first},
            )
            view = got[topic]
            assert view["seats"] == {"red": "ana", "blue": "ben"} and view["logs"]["ana"]["placement"]
            assert got[state_topic]["view"]["phase"] == "over"  # game 1's scores, and the new-game screen
            # a person starts the next game on a tablet: the campaign's game 2, its saga item carried
            answer = {"request_id": "n1", "prompt_id": "new_game", "answer": {"game": "dead-reckoning"}}
            tablet.publish("table/mq/player/red/cmd", json.dumps(answer))
            state = _latest(tablet, {state_topic: lambda s: s.get("epoch") not in (None, first)})[state_topic]
            assert set(state["view"]["deep_legends"]["items"]) == {"1.07"}
            proc.send_signal(signal.SIGKILL)
            proc.wait(timeout=10)
            proc.stderr.close()
            tablet.close()
            tablet = Client(broker, "red")
            assert tablet.wait_connected()
            tablet.subscribe("table/mq/#")
            proc = _start(broker, db)
            start = time.monotonic()
            got = _latest(
                tablet,
                {topic: lambda v: v.get("ts", 0) > view["ts"], state_topic: lambda s: bool(s.get("epoch"))},
            )
            assert got[topic]["games_played"] == 1, "recorded once"
            assert got[state_topic]["epoch"] == state["epoch"]  # game 2 resumed, not a third game opened
            assert time.monotonic() - start < 30
        except TimeoutError:
            if proc.poll() is None:
                proc.kill()
            raise AssertionError(proc.stderr.read().decode()[-3000:]) from None
        finally:
            if proc.poll() is None:
                proc.kill()
            proc.wait(timeout=10)
            if proc.stderr:
                proc.stderr.close()
            tablet.close()
    store = CampaignStore(db)
    row = store.get("autumn")
    games = store.games(row.campaign_id)
    assert len(row.data["games"]) == 1 and [g["number"] for g in games] == [1, 2]
    assert games[0]["game_id"] == first and games[1]["game_id"] == state["epoch"]
    store.close()
