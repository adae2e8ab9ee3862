"""The table's config: every option documented in deploy/smart-table.example.toml, and a wrong option or
value is one line naming the file, the key and the allowed values."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from controller import config

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "deploy" / "smart-table.example.toml"


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("[mqtt]\nprotocol = '4'\n", ["mqtt.protocol = '4' is not allowed", 'one of "auto", "5", "3.1.1"']),
        ("[mqtt]\nport = 70000\n", ["mqtt.port = 70000 is not allowed", "0 to 65535"]),
        ("[mqtt]\nport = 'x'\n", ["mqtt.port must be int", "a whole number"]),
        ("[tower]\nalpha = 1.5\n", ["tower.alpha = 1.5", "more than 0 and at most 1"]),
        ("[simulate]\ncamera = 'webcam'\n", ["simulate.camera", '"scene", "model", "process"']),
        ("[table]\nid = 'a/b'\n", ["table.id", "without '/'"]),
        ("[table]\nsnapshot_every = 0\n", ["table.snapshot_every = 0", "at least 1"]),
        ("[mqtt]\nprot = 1\n", ["unknown key mqtt.prot", "known keys of [mqtt]: host, port"]),
        ("[tabel]\n", ["unknown section [tabel]", "known: table, mqtt"]),
        ("mqtt = 3\n", ["mqtt must be a [mqtt] table"]),
        ("[table]\nplayers = ['red', 'pink']\n", ["table.players must be 2 to 4 different colours"]),
        ("[table\n", ["is not valid TOML"]),
    ],
)
def test_a_wrong_value_is_one_line_naming_file_key_and_allowed(tmp_path, text, words):
    path = tmp_path / "table.toml"
    path.write_text(text)
    with pytest.raises(config.ConfigError) as err:
        config.load(path)
    message = str(err.value)
    assert "\n" not in message and str(path) in message
    for w in words:
        assert w in message, message
    r = subprocess.run(
        [sys.executable, "-m", "smart_table", "run", "--config", str(path)],
        capture_output=True,
        text=True,
        cwd=REPO,
        env={"PYTHONPATH": str(REPO), "PATH": "/usr/bin:/bin"},
        timeout=60,
    )
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "Traceback" not in r.stderr, r.stderr


def test_every_schema_key_is_documented_with_its_default():
    text = EXAMPLE.read_text()
    example = config.load(EXAMPLE)
    for section, keys in config.SCHEMA.items():
        assert f"\n[{section}]\n" in text, section
        body = text.split(f"\n[{section}]\n", 1)[1].split("\n[", 1)[0]
        for key, spec in keys.items():
            m = re.search(rf"^#? ?{key} = (.*)$", body, re.M)
            assert m, f"{section}.{key} is not documented in {EXAMPLE.name}"
            # An uncommented example value is the default (the appliance's config is written from the
            # example); a commented one may show another allowed value.
            if not m.group(0).startswith("#"):
                assert example[section][key] == spec[1], f"{section}.{key}: example differs from the default"
            # Each option has a comment above it saying what it is.
            before = body[: m.start()].rstrip("\n").splitlines()
            assert before and before[-1].startswith("#"), f"{section}.{key} has no comment"


def test_constraints_are_data_a_new_key_is_one_line(monkeypatch):
    monkeypatch.setitem(config.SCHEMA, "bots", {"level": (str, "easy", ("easy", "hard"))})
    assert config.defaults()["bots"]["level"] == "easy"
    assert config.check("bots", "level", "hard") == "hard"
    with pytest.raises(
        config.ConfigError, match='bots.level = \'mean\' is not allowed; allowed: one of "easy", "hard"'
    ):
        config.check("bots", "level", "mean")
    assert config.allowed_text("tower", "window") == "a whole number, at least 1"


def test_defaults_pass_their_own_checks():
    config.validate(config.defaults())
