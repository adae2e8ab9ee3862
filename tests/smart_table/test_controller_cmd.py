"""The controller's commands: games list/export (fed to rules replay), tablets add (a real mosquitto
accepts the credentials), tower stats (chi-square flags a shifted board), config and port errors."""

from __future__ import annotations

import json
import random
import socket
import time
from pathlib import Path

from controller import config
from controller.core import TableCore
from controller.credentials import check_password, read_passwd
from controller.gamelog import GameLog
from controller.simplayers import SimPlayers
from controller.testing import Client, running_mosquitto
from controller.towerhealth import chi_square, compute
from tests.support.cli import smart_table as st

REPO = Path(__file__).resolve().parents[2]


def test_games_list_and_export_replay(tmp_path):
    db = tmp_path / "g.db"
    log = GameLog(db)
    core = TableCore(log, "t1")
    core.open_game(["red", "blue"], seed=2)
    sim = SimPlayers(core, seed=1, delay=0)
    for _ in range(30):
        sim.step()
    TableCore(log, "t2").open_game(["green", "yellow", "red"], seed=3)
    log.close()
    listed = [
        json.loads(line) for line in st("games", "list", "--db", str(db), check=True).stdout.splitlines()
    ]
    assert [g["table_id"] for g in listed] == ["t1", "t2"] and listed[0]["seq"] == core.seq
    out = tmp_path / "t1.jsonl"
    st("games", "export", listed[0]["game_id"], "--db", str(db), "--out", str(out), check=True)
    replay = st("rules", "replay", str(out), "--json", check=True)
    assert json.loads(replay.stdout)["data"]["seq"] == core.seq
    bad = st("games", "export", "nope", "--db", str(db))
    assert bad.returncode == 2 and "games list" in bad.stderr and "Traceback" not in bad.stderr
    missing = st("games", "list", "--db", str(tmp_path / "none.db"))
    assert missing.returncode == 2 and "does not exist" in missing.stderr


def test_tablets_add_makes_credentials_mosquitto_accepts(tmp_path):
    pw = tmp_path / "passwd"
    db = ("--db", str(tmp_path / "t.db"))
    r = st("tablets", "add", "red", *db, "--password-file", str(pw), "--host", "10.0.0.5", check=True)
    link = next(line.split(": ", 1)[1] for line in r.stdout.splitlines() if line.startswith("join link"))
    # The login names its table (`table-1/red`): the broker's ACL keys on the table and the seat.
    assert link.startswith("http://10.0.0.5:8080/?table=table-1&player=red&user=table-1/red&pass=")
    assert link.endswith("&ws=ws://10.0.0.5:9001")
    password = link.split("pass=")[1].split("&")[0]
    assert "█" in r.stdout or "▀" in r.stdout or "▄" in r.stdout  # the QR code, drawn in the terminal
    st("tablets", "add", "controller", *db, "--password-file", str(pw))  # not a tablet: refused
    assert set(read_passwd(pw)) == {"table-1/red"} and check_password(
        password, read_passwd(pw)["table-1/red"]
    )
    # The same seat again: the same stored login (the printed link and QR code stay valid) ...
    again = st("tablets", "add", "red", *db, "--password-file", str(pw), "--no-qr", check=True)
    assert f"pass={password}&" in again.stdout
    # ... until --rotate makes a new one.
    rotated = st("tablets", "add", "red", *db, "--password-file", str(pw), "--no-qr", "--rotate", check=True)
    assert f"pass={password}&" not in rotated.stdout and "join link" in rotated.stdout
    assert not check_password(password, read_passwd(pw)["table-1/red"])
    password = rotated.stdout.split("pass=")[1].split("&")[0]
    st(
        "tablets",
        "add",
        "display",
        *db,
        "--password-file",
        str(pw),
        "--password",
        "disp-pw",
        "--no-qr",
        check=True,
    )
    with running_mosquitto(passwd_file=pw) as broker:
        good = Client(broker, "red", password)
        assert good.wait_connected()
        wrong = Client(broker, "red", password + "x")
        assert wrong.wait_connected() is False
        disp = Client(broker, "display", "disp-pw")
        assert disp.wait_connected()
        for c in (good, wrong, disp):
            c.close()
    assert st("tablets", "add", "purple", *db, "--password-file", str(pw)).returncode == 2


def test_tower_stats_flags_a_shifted_board(tmp_path):
    db = tmp_path / "t.db"
    log = GameLog(db)
    rng = random.Random(1)
    zones = ["dmg-1", "dmg-2", "str-1a", "str-2", "miss", "explode"]
    t0 = time.time() - 10000
    fair = [(rng.choice(["red", "blue"]), rng.choice(zones)) for _ in range(600)]
    log.record_drops("fair", None, None, fair, ts=t0)
    log.record_drops("shifted", None, None, fair, ts=t0)
    # The board slid: recent cubes pile into the damage zones.
    log.record_drops(
        "shifted", None, None, [("red", rng.choice(zones[:2])) for _ in range(200)], ts=t0 + 5000
    )
    log.record_drops(
        "fair",
        None,
        None,
        [(rng.choice(["red", "blue"]), rng.choice(zones)) for _ in range(200)],
        ts=t0 + 5000,
    )
    log.record_incident("shifted", None, None, "jam", {"sensor": "exit"})
    log.close()
    fair_stats = json.loads(
        st("tower", "stats", "--db", str(db), "--table", "fair", "--json", check=True).stdout
    )
    assert fair_stats["warning"] is None and fair_stats["chi_square"]["p_value"] > 0.01
    shifted = json.loads(
        st("tower", "stats", "--db", str(db), "--table", "shifted", "--json", check=True).stdout
    )
    assert (
        shifted["chi_square"]["p_value"] < 1e-6 and "shifted" in shifted["warning"] and shifted["jams"] == 1
    )
    text = st("tower", "stats", "--db", str(db), "--table", "shifted", check=True).stdout
    assert "UNUSUAL" in text and "dmg-1" in text and "1 jams" in text
    assert chi_square({"a": 3}, {"a": 3}) is None  # too few drops to judge


def test_tower_warning_reaches_the_public_state(tmp_path):
    log = GameLog(tmp_path / "w.db")
    log.record_drops("t", None, None, [("red", z) for z in ["a", "b", "c", "d"] * 100])
    log.record_drops("t", None, None, [("red", "a")] * 200)
    stats = compute(log, "t", window=200)
    assert stats.warning and stats.test.p_value < 1e-10
    log.close()


def test_config_errors_name_the_key(tmp_path):
    cfg = tmp_path / "c.toml"
    for text, words in [
        ("[mqtt]\nport = 'x'\n", "mqtt.port must be int"),
        ("[mqtt]\nprot = 1\n", "unknown key mqtt.prot"),
        ("[tabel]\n", "unknown section [tabel]"),
        ("[table]\nplayers = ['red', 'pink']\n", "table.players"),
        ("[table\n", "not valid TOML"),
    ]:
        cfg.write_text(text)
        r = st("run", "--config", str(cfg))
        assert r.returncode == 2 and words in r.stderr and "Traceback" not in r.stderr, (text, r.stderr)
    example = config.load(REPO / "deploy" / "smart-table.example.toml")
    documented = (REPO / "deploy" / "smart-table.example.toml").read_text()
    for section, keys in config.SCHEMA.items():
        assert f"[{section}]" in documented
        for key in keys:
            assert f"\n{key} = " in documented or f"\n# {key} = " in documented, (
                f"{section}.{key} undocumented"
            )
    assert example["table"]["id"] == "table-1"


def test_busy_port_names_the_option(tmp_path):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        r = st(
            "run", "--simulate", "--mqtt-port", str(port), "--db", str(tmp_path / "x.db"), "--duration", "1"
        )
    assert (
        r.returncode == 1
        and f"port {port}" in r.stderr
        and "mqtt.port" in r.stderr
        and "--mqtt-port" in r.stderr
    )
