"""Campaign storage and `smart-table campaign ...`: a whole six-game campaign of simulated players,
recording a game of the game log through the CLI, export/import, refusals in one sentence."""

from __future__ import annotations

import json

import pytest

from controller.campaign import EXPORT_FORMAT, CampaignError, CampaignStore, bot_command, game_seats, simulate
from controller.gamelog import GameLog
from rules import api
from rules.dead_reckoning.deep_legends import campaign as cp
from smart_table.main import main

SPECS: list[cp.PlayerSpec] = [
    {"id": "ana", "memoir": "Ana the Bold"},
    {"id": "ben", "memoir": "Ben", "saga_items": ["1.04"]},
    {"id": "cai", "memoir": "Cai"},
    {"id": "dee", "memoir": "Dee"},
]


def cli(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out = capsys.readouterr()
    return code, out.out, out.err


def test_a_six_game_campaign_of_simulated_players_is_played_and_scored_end_to_end():
    """Six whole games, each to the engine's own end (4 Achievement markers, final round, scoring),
    random legal actions through rules.api; then the campaign's final scoring names the winners."""
    c = simulate(cp.new_campaign("e2e", SPECS), seed=11)
    assert [g["number"] for g in c["games"]] == [1, 2, 3, 4, 5, 6]
    st = cp.standings(c)
    assert st["finished"] and st["winners"]
    for k, log in c["logs"].items():
        # placement points are exactly those of each game's place among 4
        assert log["placement"] == [[6, 3, 1, 0][g["order"].index(k)] for g in c["games"]]
        assert log["game6_score"] == c["games"][5]["scores"][k]
        assert all(0 <= n <= 4 for n in log["achievements"].values())
        assert all(0 <= n <= 3 for n in log["sailors"].values())
        s = st["scores"][k]
        assert s["total"] == sum(v for key, v in s.items() if key != "total")
    # games 2-5 each gave two Tenacity Bonuses (3rd and last of 4), none before game 6
    assert sum(len(log["tenacity"]) for log in c["logs"].values()) == 8
    assert all(t["game"] in (2, 3, 4, 5) for log in c["logs"].values() for t in log["tenacity"])
    assert st["scores"]["ben"]["start_penalty"] == -2
    best = max(s["total"] for s in st["scores"].values())
    assert st["winners"] == [k for k, s in st["scores"].items() if s["total"] == best]


def test_cli_new_show_list_export_import(tmp_path, capsys):
    db = str(tmp_path / "t.db")
    code, out, err = cli(
        capsys,
        "campaign",
        "new",
        "spring",
        "--db",
        db,
        "--player",
        "ana=Ana",
        "--player",
        "ben=Ben",
        "--items",
        "ben=1.04,1.07",
    )
    assert code == 0 and "spring" in out, err
    code, out, _ = cli(capsys, "campaign", "list", "--db", db)
    (line,) = out.splitlines()
    assert json.loads(line)["players"] == ["ana", "ben"] and json.loads(line)["games"] == 0
    code, out, _ = cli(capsys, "campaign", "saga-points", "spring", "ana", "3", "Book 1.03", "--db", db)
    assert code == 0
    code, out, _ = cli(capsys, "campaign", "show", "spring", "--db", db)
    assert "Voyages of Ana" in out and "0 of 6 games" in out
    code, out, _ = cli(capsys, "campaign", "show", "spring", "--db", db, "--json")
    shown = json.loads(out)
    assert shown["standings"]["scores"]["ana"]["saga"] == 3
    assert shown["standings"]["scores"]["ben"]["start_penalty"] == -4
    exported = tmp_path / "spring.json"
    assert cli(capsys, "campaign", "export", "spring", "--db", db, "--out", str(exported))[0] == 0
    doc = json.loads(exported.read_text())
    assert doc["format"] == EXPORT_FORMAT and doc["saga"]["tuck_box"]  # a fresh saga state came along
    assert [s["kind"] for s in doc["steps"]] == ["new", "saga_points"]
    # into another database, and under another name in the same one
    db2 = str(tmp_path / "other.db")
    assert cli(capsys, "campaign", "import", str(exported), "--db", db2)[0] == 0
    assert cli(capsys, "campaign", "import", str(exported), "--db", db, "--name", "spring-copy")[0] == 0
    s2 = CampaignStore(db2)
    assert s2.get("spring").data == doc["campaign"] and s2.get("spring").saga == doc["saga"]
    s2.close()
    code, _, err = cli(capsys, "campaign", "import", str(exported), "--db", db)
    assert code == 2 and "exists already" in err


def test_cli_refusals_are_one_sentence(tmp_path, capsys):
    db = str(tmp_path / "t.db")
    code, _, err = cli(capsys, "campaign", "show", "nope", "--db", db)
    assert code == 2 and "no campaign 'nope'" in err and "Traceback" not in err
    code, _, err = cli(capsys, "campaign", "new", "x", "--db", db, "--player", "ana")
    assert code == 2 and "ID=VALUE" in err
    code, _, err = cli(capsys, "campaign", "new", "x", "--db", db, "--player", "ana=A", "--items", "bob=1.04")
    assert code == 2 and "not a --player" in err
    code, _, err = cli(capsys, "campaign", "new", "x", "--db", db, "--mode", "coop", "--player", "ana=A")
    assert code == 2 and "coop campaign takes 2" in err
    assert cli(capsys, "campaign", "new", "x", "--db", db, "--player", "ana=A", "--player", "bo=B")[0] == 0
    code, _, err = cli(capsys, "campaign", "tenacity", "x", "ana", "coins", "--db", db)
    assert code == 2 and "gains no Tenacity Bonus now" in err
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": "something-else"}')
    code, _, err = cli(capsys, "campaign", "import", str(bad), "--db", db)
    assert code == 2 and "not a campaign export" in err
    bad.write_text("{not json")
    code, _, err = cli(capsys, "campaign", "import", str(bad), "--db", db)
    assert code == 2 and "is not JSON" in err


def test_a_game_of_the_game_log_is_recorded_by_the_cli(tmp_path, capsys):
    """`smart-table campaign record` reads a finished game from the controller's game log."""
    db = tmp_path / "t.db"
    assert (
        cli(capsys, "campaign", "new", "rec", "--db", str(db), "--player", "ana=A", "--player", "ben=B")[0]
        == 0
    )
    log = GameLog(db, snapshot_every=10_000)
    state, events = api.new_game_with_events(["red", "blue"], 5)
    gid = log.create_game("t", ["red", "blue"], 5, {}, events, api.state_to_json(state), state.seq)
    code, _, err = cli(
        capsys, "campaign", "record", "rec", gid, "--seats", "red=ana,blue=ben", "--db", str(db)
    )
    assert code == 2 and "not over yet" in err
    while state.phase != "over":
        command = bot_command(state, 5, 1)
        state, evs = api.apply(state, command, inplace=True)
        events += evs
    # the log's whole game in one transaction (the per-command path is the crash test's)
    log.append(gid, {"player": "table", "bulk": True}, events[len(log.events(gid)) :], state.seq)
    log.close()
    totals = state.data["scores"]["totals"]
    tie = ["red", "blue"] if totals["red"] == totals["blue"] else []
    args = ["--tie-order", ",".join(tie)] if tie else []
    code, out, err = cli(
        capsys, "campaign", "record", "rec", gid, "--seats", "red=ana,blue=ben", "--db", str(db), *args
    )
    assert code == 0, err
    store = CampaignStore(db)
    row = store.get("rec")
    expected = cp.result_from_state(state, {"red": "ana", "blue": "ben"}, tie or None)
    assert row.data["games"][0]["order"] == expected["order"]
    assert row.data["games"][0]["scores"] == {"ana": totals["red"], "ben": totals["blue"]}
    assert row.data["tenacity_due"] == [row.data["games"][0]["order"][1]]
    assert store.games(row.campaign_id)[0]["game_id"] == gid
    store.close()
    again = ["campaign", "record", "rec", gid, "--seats", "red=ana,blue=ben", "--db", str(db), *args]
    code, _, err = cli(capsys, *again)
    assert code == 2 and "already recorded as game 1" in err


def test_a_change_made_to_an_older_version_is_refused(tmp_path):
    store = CampaignStore(tmp_path / "t.db")
    row = store.create(cp.new_campaign("v", SPECS[:2]), {})
    store.update(row, "saga_points", {}, cp.add_saga_points(row.data, "ana", 1, "x"))
    with pytest.raises(CampaignError, match="changed meanwhile"):
        store.update(row, "saga_points", {}, cp.add_saga_points(row.data, "ben", 1, "x"))
    assert cp.campaign_score(store.get("v").data, "ben")["saga"] == 0
    store.close()


def test_simulated_players_refuse_solo_campaigns():
    with pytest.raises(CampaignError, match="group campaigns only"):
        simulate(cp.new_campaign("s", SPECS[:1], mode="solo"), seed=1)


def test_the_saga_at_the_table_is_kept_with_the_campaign(tmp_path, capsys):
    """`smart-table campaign saga`: an Encounter explored, a Fortune Encounter's Saga die roll asked for and
    then given, a saga item sold; Campaign points from Saga and the items reach the Campaign Logs."""
    db = str(tmp_path / "t.db")
    new = [
        "campaign",
        "new",
        "sg",
        "--db",
        db,
        "--player",
        "ana=A",
        "--player",
        "ben=B",
        "--items",
        "ben=1.07",
    ]
    assert cli(capsys, *new)[0] == 0
    code, out, err = cli(
        capsys, "campaign", "saga", "sg", "explore", "1.00-a", "--player", "ana", "--coins", "2", "--db", db
    )
    assert code == 0, err
    assert "Read Book 1.01 aloud" in out and "ana gains card 1.04" in out
    code, _, err = cli(capsys, "campaign", "saga", "sg", "fortune", "1.00-b", "--player", "ben", "--db", db)
    assert code == 2 and "roll the Saga die" in err and "One of: 0, 1, 2, 3." in err
    code, out, _ = cli(
        capsys, "campaign", "saga", "sg", "fortune", "1.00-b", "--player", "ben", "--roll", "2", "--db", db
    )
    assert code == 0 and "ben rolled 2" in out and "ben marks 1 Campaign points" in out
    code, _, err = cli(
        capsys,
        "campaign",
        "saga",
        "sg",
        "trade",
        "1.04",
        "--seller",
        "ana",
        "--buyer",
        "ben",
        "--coins",
        "6",
        "--db",
        db,
    )
    assert code == 2 and "at most 5 Coins" in err
    sell = ["--seller", "ana", "--buyer", "ben", "--coins", "5", "--cargo", "3", "--player", "ben"]
    assert cli(capsys, "campaign", "saga", "sg", "trade", "1.04", *sell, "--db", db)[0] == 0
    store = CampaignStore(db)
    row = store.get("sg")
    assert row.data["logs"]["ben"]["saga_items"] == ["1.04", "1.07"]
    assert row.data["logs"]["ana"]["saga_items"] == []
    assert cp.campaign_score(row.data, "ben")["saga"] == 1
    assert row.saga["eliminated"] == ["1.00-a"] and row.saga["buried"]["2"] == ["1.00-b"]
    assert [s["kind"] for s in store.steps(row.campaign_id)][1:] == [
        "saga_explore",
        "saga_fortune",
        "saga_trade",
    ]
    store.close()
    assert cli(capsys, "campaign", "saga", "sg", "end-game", "--db", db)[0] == 0
    assert "1.00-b" in CampaignStore(db).get("sg").saga["rows"]["2"]
    # a super-campaign keeps the saga state and each player's items (FAQ); a reset puts them back
    again = ["--db", db, "--player", "ana=A2", "--player", "ben=B2", "--after", "sg"]
    assert cli(capsys, "campaign", "new", "sg2", *again)[0] == 0
    row2 = CampaignStore(db).get("sg2")
    assert row2.data["logs"]["ben"]["saga_items"] == ["1.04", "1.07"] and row2.saga["eliminated"] == [
        "1.00-a"
    ]
    assert cp.campaign_score(row2.data, "ben")["start_penalty"] == -4
    assert cli(capsys, "campaign", "new", "sg3", *again, "--reset-saga")[0] == 0
    row3 = CampaignStore(db).get("sg3")
    assert row3.data["logs"]["ben"]["saga_items"] == [] and row3.saga["tuck_box"] == [
        "1.04",
        "1.05",
        "1.06",
        "1.07",
    ]


def test_a_solo_game_recorded_by_hand(tmp_path, capsys):
    """`smart-table campaign result`: a game played without the table's log (here a solo game against the
    AI, which the engine does not play) goes onto the Campaign Logs."""
    db = str(tmp_path / "t.db")
    assert cli(capsys, "campaign", "new", "solo", "--db", db, "--mode", "solo", "--player", "ana=A")[0] == 0
    args = ["--order", "ai,ana", "--scores", "ana=61,ai=70", "--achievements", "ai=explorer,master_merchant"]
    code, out, err = cli(capsys, "campaign", "result", "solo", *args, "--level4", "ana=crew,crew", "--db", db)
    assert code == 0 and "ai +6" in out, err
    c = CampaignStore(db).get("solo").data
    assert (
        c["logs"]["ai"]["achievements"]["explorer"] == 1
        and c["logs"]["ai"]["achievements"]["master_merchant"] == 0
    )
    assert c["logs"]["ana"]["sailors"]["crew-1"] == 1 and c["tenacity_due"] == ["ana"]
    code, _, err = cli(capsys, "campaign", "result", "solo", *args, "--db", db)
    assert code == 2 and "must choose a Tenacity Bonus" in err
    code, _, err = cli(
        capsys, "campaign", "result", "solo", "--order", "ai,ana", "--scores", "ana=x", "--db", db
    )
    assert code == 2 and "whole number" in err


def test_a_stored_campaign_game_carries_the_saga_into_the_engine_and_back(tmp_path):
    """`campaign play` gives the engine game the campaign's saga state (its cards in the Row decks), each
    player's saga items and the Tenacity Bonus; the stored result equals the same game in memory."""
    from controller.campaign import play
    from rules.dead_reckoning.deep_legends import saga as sg

    start = cp.new_campaign("sg", SPECS[:2])
    saga_state = sg.assign_items(sg.new_saga_state(sg.load_saga()), {"1.04": "ben"})
    store = CampaignStore(tmp_path / "t.db")
    store.create(start, saga_state)
    log = GameLog(tmp_path / "t.db")
    row = play(store, log, "sg", seed=5, games=1)
    assert row.data == simulate(start, 5, games=1, saga=saga_state)
    (game,) = log.games(f"campaign-{row.campaign_id}-1")
    created = log.events(game.game_id)[0]["action"]["options"]["deep_legends"]
    assert created["saga"]["rows"] == saga_state["rows"] and created["items"] == {"blue": ["1.04"]}
    # the item may have changed hands in the game (bought, sold or taken): saga state and logs agree
    (owner,) = row.saga["items"].values()
    assert set(row.saga["items"]) == {"1.04"} and row.data["logs"][owner]["saga_items"] == ["1.04"]
    log.close()
    store.close()


def test_bots_use_every_deep_legends_action_in_a_six_game_saga_campaign():
    """Random legal players (`simulate`, 4 players, the sample saga) are offered and take every Deep Legends
    action: saga items bought and sold ("The active player may buy or sell Saga items") and taken after a
    sinking ("you may choose any 1 Saga item the other player has and take it"), Non-Merchant Encounters
    explored ("you may pay the indicated Coins cost to explore them"), Fortune Encounters encountered, saga
    Advancements bought and saga Merchant ships attacked; the campaign is scored end to end with the
    Campaign points from Saga the games gave and each log holding the saga items it ended with."""
    from collections import Counter

    from rules.dead_reckoning.deep_legends import saga as sg

    seen: Counter[str] = Counter()
    points: Counter[str] = Counter()

    def watch(number: int, command: dict, events: list[dict]) -> None:
        seen[command["action"]["type"]] += 1
        for e in events:
            card = e.get("action", {}).get("card", "")
            if e["type"] in ("buy", "attack_merchant") and card in sg.load_saga()["by_id"]:
                seen[f"{e['type']} saga card"] += 1
            if e["type"] == "saga" and e["what"] == "campaign_points":
                points[f"{number}:{e['player']}"] += e["points"]

    start = cp.new_campaign("legends", SPECS)
    saga_state = sg.assign_items(sg.new_saga_state(sg.load_saga()), {"1.04": "ben"})
    # (any seed whose six games meet every kind: exploring is rare, 0-2 times in six random games)
    c = simulate(start, seed=5, saga=saga_state, watch=watch)
    for kind in (
        "trade_saga_item",
        "take_saga_item",
        "explore_encounter",
        "encounter_fortune",
        "buy saga card",
        "attack_merchant saga card",
    ):
        assert seen[kind] > 0, f"no {kind} in six games: {dict(seen)}"
    st = cp.standings(c)
    assert st["finished"] and len(c["games"]) == 6 and st["winners"]
    # every game's Campaign points from Saga are on the log of the player whose seat gained them
    seats = game_seats(start)  # all four play every game, in the same seats
    from_games: Counter[str] = Counter()
    for key, n in points.items():
        from_games[seats[key.split(":")[1]]] += n
    assert sum(from_games.values()) > 0
    for k, log in c["logs"].items():
        assert sum(e["points"] for e in log["saga_points"]) == from_games[k]
        assert st["scores"][k]["saga"] == from_games[k]
    items = sorted(i for log in c["logs"].values() for i in log["saga_items"])
    assert "1.04" in items and len(items) == len(set(items))


def test_the_cli_plays_the_last_games_of_a_saga_campaign_with_bots_and_scores_it(tmp_path, capsys):
    """`smart-table campaign new` (with the sample saga), the first four games played in memory and brought
    in with `campaign import`, the last two played by `campaign play` (random legal players, every command
    in the game log), then `campaign show --json`: the six games are scored end to end, equal to the same
    games in memory, and the stored games' logs hold the saga's own actions."""
    from controller.campaign import simulate_with_saga

    db = str(tmp_path / "t.db")
    players = ["--player", "ana=Ana", "--player", "ben=Ben", "--player", "cai=Cai", "--player", "dee=Dee"]
    code, _, err = cli(capsys, "campaign", "new", "legends", *players, "--items", "ben=1.04", "--db", db)
    assert code == 0, err
    store = CampaignStore(db)
    row = store.get("legends")
    assert row.saga["items"] == {"1.04": "ben"}
    first4, saga4 = simulate_with_saga(row.data, 4, games=4, saga=row.saga)
    expected = simulate(first4, 4, saga=saga4)  # the last two, in memory
    doc = {"format": EXPORT_FORMAT, "name": "legends4", "campaign": first4, "saga": saga4, "games": []}
    (tmp_path / "first4.json").write_text(json.dumps(doc))
    store.close()
    code, _, err = cli(
        capsys, "campaign", "import", str(tmp_path / "first4.json"), "--name", "legends4", "--db", db
    )
    assert code == 0, err
    code, _, err = cli(capsys, "campaign", "play", "legends4", "--seed", "4", "--db", db)
    assert code == 0, err
    code, out, err = cli(capsys, "campaign", "show", "legends4", "--json", "--db", db)
    assert code == 0, err
    shown = json.loads(out)
    assert shown["standings"]["finished"] and shown["standings"]["winners"]
    assert shown["campaign"]["games"] == expected["games"] and shown["campaign"]["logs"] == expected["logs"]
    log = GameLog(db)
    kinds: set[str] = set()
    for g in shown["games"]:
        kinds |= {e["type"] for e in log.events(g["game_id"])}
    assert "trade_saga_item" in kinds
    log.close()
