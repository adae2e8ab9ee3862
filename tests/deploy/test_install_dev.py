"""The README's two commands: `.ci/run` runs exactly the README's test command on Debian's Python, and
`deploy/install-dev.sh` installs into a virtual environment (never `--break-system-packages`) and is quick
and idempotent when run again."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def readme_commands() -> list[str]:
    section = (REPO / "README.md").read_text().split("## Two commands", 1)[1].split("\n## ", 1)[0]
    return re.findall(r"```sh\n(.*?)\n```", section, re.S)


def test_ci_runs_exactly_the_readme_test_command_with_usr_bin_first():
    run, test = readme_commands()
    assert run == "bash deploy/install-dev.sh && smart-table run --simulate"
    assert test.startswith("bash deploy/install-dev.sh && ")
    lines = [
        ln for ln in (REPO / ".ci/run").read_text().splitlines() if ln.strip() and not ln.startswith("#")
    ]
    assert lines[-1] == test, "the README's test command must be the last line of .ci/run"
    path_line = next(ln for ln in lines if ln.startswith("export PATH="))
    assert path_line.startswith('export PATH="/usr/bin:'), "CI must find Debian's /usr/bin/python3 first"
    # Bytecode caches on (the machine's environment turns them off): the suite's processes load the project
    # compiled once instead of compiling it in each (docs/bench/suite.md, round 3).
    assert "unset PYTHONDONTWRITEBYTECODE" in lines[:-1], "CI must let Python cache bytecode"


def test_no_pep_668_override_anywhere():
    for script in (REPO / "deploy").glob("*.sh"):
        text = script.read_text()
        assert "--break-system-packages" not in text and "PIP_BREAK_SYSTEM_PACKAGES" not in text, script


def test_install_dev_makes_a_venv_and_links_smart_table():
    text = (REPO / "deploy/install-dev.sh").read_text()
    assert '-m venv "$VENV"' in text and 'VENV="$ROOT/.venv"' in text
    assert '"$VENV/bin/python" -m pip install' in text and "python3 -m pip install" not in text
    assert 'ln -sfn "$VENV/bin/smart-table" "$link"' in text


@pytest.mark.skipif(
    not (REPO / ".venv/.smart-table-installed").is_file(),
    reason="install-dev.sh has not run in this checkout (the README's test command runs it first)",
)
def test_rerun_is_quick_and_changes_nothing(tmp_path):
    """A re-run does no work: no apt-get, no npm, no pip (its work is measured, not its seconds, which
    depend on how loaded the machine is)."""
    stamp = (REPO / ".venv/.smart-table-installed").read_text()
    if not stamp.endswith(f" {REPO}\n"):
        pytest.skip("the .venv was made for another checkout")
    # apt-get, npm and sudo found on the PATH are stand-ins that note each call (sudo then runs its
    # command); pip runs inside the venv, so an install shows as a change to its site-packages.
    shims, calls = tmp_path / "shims", tmp_path / "calls"
    shims.mkdir()
    for tool in ("apt-get", "npm"):
        (shims / tool).write_text(f'#!/bin/sh\necho "{tool} $*" >> {calls}\nexit 1\n')
    (shims / "sudo").write_text(f'#!/bin/sh\necho "sudo $*" >> {calls}.sudo\nexec "$@"\n')
    for shim in shims.iterdir():
        shim.chmod(0o755)
    site = sorted((REPO / ".venv/lib").glob("python3*/site-packages"))
    before = [p.stat().st_mtime_ns for p in site]
    # Without SMART_TABLE_PYTHON the script keeps the working .venv this very test runs in.
    env = {k: v for k, v in os.environ.items() if k != "SMART_TABLE_PYTHON"}
    env["SMART_TABLE_BIN"] = str(tmp_path / "bin")
    env["PATH"] = f"{shims}:{env['PATH']}"
    r = subprocess.run(
        ["bash", "deploy/install-dev.sh"], cwd=REPO, capture_output=True, text=True, env=env, timeout=300
    )
    assert r.returncode == 0, r.stdout + r.stderr
    assert not calls.exists(), f"a re-run called {calls.read_text()}"
    assert "installing the package" not in r.stdout and "npm install" not in r.stdout, r.stdout
    assert [p.stat().st_mtime_ns for p in site] == before, "a re-run changed the venv's packages"
    assert os.readlink(tmp_path / "bin/smart-table") == str(REPO / ".venv/bin/smart-table")
    assert (REPO / ".venv/.smart-table-installed").read_text() == stamp
    r = subprocess.run(
        [str(tmp_path / "bin/smart-table"), "doctor", "--only", "python"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 0 and "(virtual environment)" in r.stdout, r.stdout + r.stderr
