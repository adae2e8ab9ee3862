"""Reproducible installs: both install scripts give pip the tested versions (deploy/constraints.txt, `-c`), so
a fresh install gets what the suite passed with, not a release of the day (OpenCV 5.1 broke 4 tests in a
clean-clone CI the day it came out). install-dev.sh's pip step is run for real with a stand-in Python that
notes each pip call (no network, the shared venv untouched)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tomllib
from importlib import metadata
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
CONSTRAINTS = REPO / "deploy/constraints.txt"


def pins() -> dict[str, str]:
    out = {}
    for line in CONSTRAINTS.read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            m = re.fullmatch(r"([A-Za-z0-9_.-]+)==([A-Za-z0-9_.+!-]+)", line.strip())
            assert m, f"not a pin (name==version): {line!r}"
            out[canonical(m[1])] = m[2]
    return out


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def test_every_dependency_is_pinned_to_one_version():
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    wanted = project["dependencies"] + project["optional-dependencies"]["test"]
    names = {canonical(re.split(r"[\[<>=!~; ]", d, maxsplit=1)[0]) for d in wanted}
    names.add("psycopg-binary")  # psycopg[binary]'s wheel package
    missing = names - set(pins())
    assert not missing, f"deploy/constraints.txt pins no version of {sorted(missing)}"


def test_the_suite_runs_on_the_pinned_versions():
    """The pins are what the suite passes with only if it runs with them: install-dev.sh installs them."""
    wrong = {}
    for name, version in pins().items():
        try:
            have = metadata.version(name)
        except metadata.PackageNotFoundError:
            continue  # a package of another platform's resolution, not installed here
        if have != version:
            wrong[name] = (have, version)
    assert not wrong, f"installed vs pinned: {wrong}; run bash deploy/install-dev.sh to install the pins"


STAND_IN = """#!/bin/sh
# A Python for install-dev.sh that makes a venv of itself and notes pip's arguments instead of installing.
if [ "$1" = -m ] && [ "$2" = venv ]; then
  mkdir -p "$3/bin" && cp "$0" "$3/bin/python" && printf '#!/bin/sh\\n' > "$3/bin/smart-table"
  chmod +x "$3/bin/smart-table"; exit 0
fi
if [ "$1" = -m ] && [ "$2" = pip ]; then shift 2; echo "pip $*" >> CALLS; exit 0; fi
case "$2" in *"import smart_table.main"*) [ -f "$(dirname "$0")/../installed" ]; exit $? ;; esac
exec /usr/bin/python3 "$@"
"""


def run_install_dev(tmp_path: Path) -> list[str]:
    calls = tmp_path / "calls"
    calls.unlink(missing_ok=True)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["SMART_TABLE_PYTHON"] = str(tmp_path / "python")
    env["SMART_TABLE_BIN"] = str(tmp_path / "bin")
    env["PATH"] = f"{tmp_path / 'shims'}:{env['PATH']}"
    r = subprocess.run(
        ["bash", str(tmp_path / "repo/deploy/install-dev.sh")],
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert r.returncode == 0, r.stdout + r.stderr
    (tmp_path / "repo/.venv/installed").touch()  # what a real pip install makes importable
    return calls.read_text().splitlines() if calls.exists() else []


def test_install_dev_gives_pip_the_constraints_and_installs_again_when_they_change(tmp_path):
    repo = tmp_path / "repo"
    (repo / "deploy").mkdir(parents=True)
    for f in ("deploy/install-dev.sh", "deploy/constraints.txt", "pyproject.toml"):
        shutil.copy(REPO / f, repo / f)
    py = tmp_path / "python"
    py.write_text(STAND_IN.replace("CALLS", str(tmp_path / "calls")))
    shims = tmp_path / "shims"
    shims.mkdir()
    # apt-get and npm must not be needed here (the tools are on this machine); sudo runs what it is given.
    (shims / "apt-get").write_text("#!/bin/sh\necho apt-get was called >&2\nexit 1\n")
    (shims / "sudo").write_text('#!/bin/sh\nexec "$@"\n')
    for f in (py, shims / "apt-get", shims / "sudo"):
        f.chmod(0o755)

    pip = [c for c in run_install_dev(tmp_path) if "--upgrade pip" not in c]
    assert pip == [f"pip install -q -c {repo}/deploy/constraints.txt -e .[test]"]
    assert run_install_dev(tmp_path) == [], "a re-run with nothing changed must not run pip"
    # New tested versions (deploy/update-constraints.sh) are installed by the next run.
    with (repo / "deploy/constraints.txt").open("a") as f:
        f.write("six==1.17.0\n")
    pip = [c for c in run_install_dev(tmp_path) if "--upgrade pip" not in c]
    assert pip == [f"pip install -q -c {repo}/deploy/constraints.txt -e .[test]"]


def test_update_constraints_resolves_in_a_throwaway_venv_and_keeps_the_comment():
    text = (REPO / "deploy/update-constraints.sh").read_text()
    assert "mktemp -d" in text and '-m venv "$work/venv"' in text
    assert 'pip install -q -e "$ROOT[test]"' in text and "-c " not in text.split("pip install", 1)[1][:40]
    assert "pip freeze --exclude-editable" in text and "grep '^#' \"$OUT\"" in text
    assert CONSTRAINTS.read_text().startswith("# The versions the table is tested with")
