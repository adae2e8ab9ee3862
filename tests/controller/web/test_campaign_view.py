"""The Deep Legends campaign on the tablets: `smart-table campaign publish` puts the campaign view on the
retained `table/<tid>/campaign` (real Mosquitto with the deploy/ ACL), the table view in Chromium shows the
standings and each player's tablet the Campaign Log seated at its colour; `--clear` takes it off."""

from __future__ import annotations

import json

from controller.campaign import CampaignStore, simulate
from controller.testing import Client
from rules.dead_reckoning.deep_legends import campaign as cp
from rules.dead_reckoning.deep_legends import saga as sg
from smart_table.main import main
from tests.controller.web.conftest import PHONE, TABLE, open_page

SPECS: list[cp.PlayerSpec] = [
    {"id": "ana", "memoir": "Ana the Bold"},
    {"id": "ben", "memoir": "Ben Sails", "saga_items": ["1.04"]},
    {"id": "cai", "memoir": "Cai of the Reef"},
]
SEATS = "red=ana,blue=ben,green=cai"


def publish(broker, db: str, *more: str) -> int:
    args = ["campaign", "publish", *more, "--db", db, "--table", TABLE, "--host", broker.host]
    args += ["--port", str(broker.port), f"--password={broker.users['tools']}"]  # it may begin with -
    return main(args)


def test_the_table_shows_the_standings_and_each_tablet_its_campaign_log(
    browser, broker, display, tmp_path, capsys
):
    db = str(tmp_path / "t.db")
    store = CampaignStore(db)
    saga_state = sg.assign_items(sg.new_saga_state(sg.load_saga()), {"1.04": "ben"})
    row = store.create(simulate(cp.new_campaign("autumn", SPECS), seed=11), saga_state)
    assert row.data["logs"]["ben"]["saga_items"]  # (the seed's games leave Ben an item: the names are shown)
    store.close()
    st = cp.standings(row.data)
    assert publish(broker, db, "autumn", "--seats", SEATS) == 0, capsys.readouterr().err
    # the display's login reads it (the ACL grants the public topic)
    watcher = Client(broker, "display")
    assert watcher.wait_connected()
    watcher.subscribe(f"table/{TABLE}/campaign")
    got = json.loads(watcher.wait_for(lambda m: m.payload != b"", timeout=10).payload)
    watcher.close()
    assert got["format"] == "smart-table/campaign-view@1" and got["seats"] == {
        "red": "ana",
        "blue": "ben",
        "green": "cai",
    }
    order = sorted(st["scores"], key=lambda k: -st["scores"][k]["total"])
    with open_page(browser, display, broker) as page:
        page.wait_for_selector("#campaign-standings tbody tr", timeout=15000)
        rows = page.locator("#campaign-standings tbody tr")
        assert rows.count() == 3
        assert [rows.nth(i).get_attribute("data-log") for i in range(3)] == order
        for i, k in enumerate(order):
            assert rows.nth(i).locator("td.total").inner_text() == str(st["scores"][k]["total"])
        winners = [
            rows.nth(i).get_attribute("data-log")
            for i in range(3)
            if "winner" in (rows.nth(i).get_attribute("class") or "")
        ]
        assert winners == st["winners"]
        assert "final" in page.locator("#campaign-standings h2").text_content()
    with open_page(browser, display, broker, player="blue", viewport=PHONE) as page:
        page.wait_for_selector("#campaign-log", timeout=15000)
        log = row.data["logs"]["ben"]
        assert "Ben Sails" in page.locator("#campaign-log .memoir").inner_text()
        assert page.locator('#campaign-log tr[data-score="total"] td.num').inner_text() == str(
            st["scores"]["ben"]["total"]
        )
        assert page.locator('#campaign-log tr[data-score="start_penalty"] td.num').inner_text() == "-2"
        for a, n in log["achievements"].items():
            assert page.locator(f'#campaign-log tr[data-achievement="{a}"] td.num').inner_text() == f"{n}/4"
        book = sg.load_saga()
        for i in log["saga_items"]:  # each item's name and words, from the saga file
            item = page.locator(f'#campaign-log li[data-item="{i}"]').inner_text()
            assert f"{book['by_id'][i]['name']} ({i})" in item and book["by_id"][i]["text"] in item
        placement = page.locator("#campaign-log .placement").inner_text()
        assert all(f"game {i + 1}: {p}" in placement for i, p in enumerate(log["placement"]))
        # taken off the tablets: the panel goes away
        assert publish(broker, db, "--clear") == 0
        page.wait_for_selector("#campaign", state="hidden", timeout=15000)


def test_publish_refusals_are_one_sentence(broker, tmp_path, capsys):
    db = str(tmp_path / "t.db")
    store = CampaignStore(db)
    store.create(cp.new_campaign("spring", SPECS))
    store.close()
    code = main(
        [
            "campaign",
            "publish",
            "spring",
            "--db",
            db,
            "--table",
            TABLE,
            "--host",
            broker.host,
            "--port",
            str(broker.port),
            "--password",
            "wrong",
        ]
    )
    err = capsys.readouterr().err
    assert code == 2 and "refused the login 'tools'" in err and "Traceback" not in err
    assert publish(broker, db, "spring", "--seats", "red=zed") == 2
    assert "'zed' is not a Campaign Log of 'spring'" in capsys.readouterr().err
    assert main(["campaign", "publish", "--db", db]) == 2
    assert "name the campaign" in capsys.readouterr().err
