"""Deep Legends campaigns at the venue (venue/campaigns.py, `smart-table venue campaign`) on a real
PostgreSQL: a group plays a game of its campaign at table-1, pushes it, pulls it at table-2 and plays on
there; both ways are idempotent and never take a campaign back.

Deep Legends: "the campaign is played over six games" and each game's result is written in the Campaign
Log before the next (docs/deep-legends.md): whatever table the next game is at, it must start from the
Campaign Logs the last game left."""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from controller.campaign import EXPORT_FORMAT, CampaignStore, play
from controller.gamelog import GameLog
from rules.dead_reckoning.deep_legends import campaign as cp
from smart_table.main import main
from tests.support.postgres import Postgres, empty_database, shared_postgres
from venue.campaigns import VenueCampaignError, campaigns, digest, fetch, pull_into, push
from venue.store import VenueStore

pytestmark = pytest.mark.integration

SPECS: list[cp.PlayerSpec] = [
    {"id": "ana", "memoir": "Ana the Bold"},
    {"id": "ben", "memoir": "Ben", "saga_items": ["1.04"]},
    {"id": "cai", "memoir": "Cai"},
]


@pytest.fixture
def postgres(postgres_cluster: Postgres) -> Postgres:
    return shared_postgres(postgres_cluster)


@pytest.fixture
def dsn(postgres: Postgres) -> str:
    empty_database(postgres.dsn)
    return postgres.dsn


@dataclass
class Ran:
    returncode: int
    stdout: str
    stderr: str


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str], dsn: str) -> Callable[..., Ran]:
    """`smart-table venue --dsn DSN campaign ...` in this process (a process each is seconds on a loaded
    machine; tests/smart_table run the command line itself)."""

    def run(*args: str, dsn: str = dsn) -> Ran:
        code = main(["venue", "--dsn", dsn, "campaign", *args])
        out = capsys.readouterr()
        return Ran(code, out.out, out.err)

    return run


def _play(db: Path, name: str, seed: int) -> dict:
    """One more game of the campaign at the table whose database is `db`, by its simulated players."""
    store, log = CampaignStore(db), GameLog(db)
    try:
        play(store, log, name, seed, games=1)
        return store.export(name)
    finally:
        log.close()
        store.close()


def test_a_group_continues_its_campaign_at_another_table(cli: Callable[..., Ran], tmp_path: Path) -> None:
    one, two = tmp_path / "table-1.db", tmp_path / "table-2.db"
    store = CampaignStore(one)
    store.create(cp.new_campaign("autumn", SPECS), {})
    store.close()
    after_1 = _play(one, "autumn", seed=3)
    assert len(after_1["campaign"]["games"]) == 1

    pushed = cli("push", "autumn", "--db", str(one), "--table", "table-1")
    assert pushed.returncode == 0, pushed.stderr
    assert "1 games recorded" in pushed.stdout and "revision 1" in pushed.stdout
    again = cli("push", "autumn", "--db", str(one), "--table", "table-1")
    assert again.returncode == 0 and "unchanged (revision 1)" in again.stdout

    pulled = cli("pull", "autumn", "--db", str(two), "--table", "table-2")
    assert pulled.returncode == 0, pulled.stderr
    assert "imported at table-2" in pulled.stdout
    at_two = CampaignStore(two)
    assert digest(at_two.export("autumn")) == digest(after_1)  # the Campaign Logs, saga and games, all of it
    at_two.close()
    assert "unchanged" in cli("pull", "autumn", "--db", str(two), "--table", "table-2").stdout

    # Game 2 at table-2, from the Campaign Logs game 1 left; pushed, and pulled back at table-1.
    after_2 = _play(two, "autumn", seed=4)
    assert [g["number"] for g in after_2["campaign"]["games"]] == [1, 2]
    assert after_2["campaign"]["games"][0] == after_1["campaign"]["games"][0]
    assert cli("push", "autumn", "--db", str(two), "--table", "table-2").returncode == 0
    # Table-1 still holds game 1 only: its push would take the venue's campaign back, so it is refused.
    stale = cli("push", "autumn", "--db", str(one), "--table", "table-1")
    assert stale.returncode == 2 and "Traceback" not in stale.stderr
    assert "has 2 games recorded (pushed from table-2)" in stale.stderr and "pull it here" in stale.stderr
    back = cli("pull", "autumn", "--db", str(one), "--table", "table-1")
    assert back.returncode == 0 and "replaced at table-1" in back.stdout, back.stderr
    at_one = CampaignStore(one)
    assert digest(at_one.export("autumn")) == digest(after_2)
    at_one.close()

    listed = cli("list", "--json")
    rows = [json.loads(line) for line in listed.stdout.splitlines()]
    assert [(r["name"], r["games"], r["revision"], r["pushed_from"], r["pulled_to"]) for r in rows] == [
        ("autumn", 2, 2, "table-2", "table-1")
    ]


def test_pull_to_a_file_is_what_campaign_import_reads(
    dsn: str, cli: Callable[..., Ran], tmp_path: Path
) -> None:
    db = tmp_path / "t.db"
    store = CampaignStore(db)
    store.create(cp.new_campaign("spring", SPECS[:2]), {})
    doc = store.export("spring")
    store.close()
    venue = VenueStore(dsn)
    venue.migrate()
    assert push(venue, doc, "table-1").changed
    venue.close()
    out = tmp_path / "spring.json"
    r = cli("pull", "spring", "--out", str(out))
    assert r.returncode == 0, r.stderr
    exported = json.loads(out.read_text())
    assert exported["format"] == EXPORT_FORMAT and digest(exported) == digest(doc)
    other = CampaignStore(tmp_path / "other.db")
    assert other.import_(exported).name == "spring"
    other.close()


def test_refusals_are_one_sentence(cli: Callable[..., Ran], tmp_path: Path) -> None:
    not_export = tmp_path / "x.json"
    not_export.write_text(json.dumps({"format": "something-else"}))
    r = cli("push", "--file", str(not_export), "--table", "table-1")
    assert r.returncode == 2 and "not a campaign export" in r.stderr and "Traceback" not in r.stderr
    r = cli("pull", "winter", "--db", str(tmp_path / "t.db"), "--table", "table-1")
    assert r.returncode == 2 and "no campaign 'winter'" in r.stderr and "Traceback" not in r.stderr
    r = cli("push", "winter", "--db", str(tmp_path / "none.db"), "--table", "table-1")
    assert r.returncode == 2 and "does not exist" in r.stderr and "Traceback" not in r.stderr
    r = cli("list", dsn="host=127.0.0.1 port=1 dbname=x connect_timeout=2")
    assert r.returncode == 1 and "cannot reach the venue database" in r.stderr and "Traceback" not in r.stderr


def test_a_table_with_more_games_than_the_venue_is_not_overwritten_by_a_pull(
    dsn: str, tmp_path: Path
) -> None:
    db = tmp_path / "t.db"
    store = CampaignStore(db)
    store.create(cp.new_campaign("summer", SPECS), {})
    first = store.export("summer")
    store.close()
    venue = VenueStore(dsn)
    venue.migrate()
    push(venue, first, "table-1")
    ahead = _play(db, "summer", seed=5)
    doc, revision = fetch(venue, "summer")
    assert revision == 1 and digest(doc) == digest(first)
    local = CampaignStore(db)
    with pytest.raises(VenueCampaignError, match="push it to the venue instead"):
        pull_into(local, doc)
    assert digest(local.export("summer")) == digest(ahead)  # untouched
    assert pull_into(local, doc, force=True) == "replaced"  # the group chose the venue's copy
    assert digest(local.export("summer")) == digest(first)
    local.close()
    # Forced the other way, and the same push twice is stored once.
    assert push(venue, ahead, "table-1").revision == 2
    assert push(venue, ahead, "table-1").changed is False
    assert [c["revision"] for c in campaigns(venue)] == [2]
    venue.close()
