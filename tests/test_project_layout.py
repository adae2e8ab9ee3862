"""The project's shape: production code and benchmarks never import from tests/ (what both need lives in
a project module, e.g. controller/testing.py), and no top-level package takes a name as generic as
`cli` or `testing`, which would collide with other software once installed into site-packages."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = sorted(p.parent.name for p in ROOT.glob("*/__init__.py") if p.parent.name != "tests")


def _imported(path: Path) -> set[str]:
    names: set[str] = set()
    text = path.read_text()
    # A module that imports tests names "tests" in its text: parsing only those (a tenth of the files) is
    # the same check in a fraction of the time.
    if "tests" not in text:
        return names
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Import):
            names |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module)
    return names


def test_production_and_benchmarks_never_import_tests() -> None:
    bad = []
    for folder in [*PACKAGES, "bench"]:
        for path in sorted((ROOT / folder).rglob("*.py")):
            if "node_modules" in path.parts:
                continue
            bad += [
                f"{path.relative_to(ROOT)} imports {n}"
                for n in _imported(path)
                if n == "tests" or n.startswith("tests.")
            ]
    assert not bad, bad


def test_top_level_packages_have_the_projects_own_names() -> None:
    assert "smart_table" in PACKAGES  # the `smart-table` command
    generic = {"cli", "testing", "tests", "utils", "common", "lib", "app", "main", "core"}
    assert not generic & set(PACKAGES), sorted(generic & set(PACKAGES))


# Folders of tests/ that are not a package's mirror: helpers and whole-system suites (docs/architecture.md,
# "Tests").
NOT_MIRRORS = {
    "support": "helpers shared by the tests",
    "deploy": "the deploy/ scripts and config (not a Python package)",
    "security": "attacks on the whole running table",
}


def test_tests_mirror_the_packages_and_every_folder_is_a_package() -> None:
    tests = ROOT / "tests"
    folders = sorted(p.name for p in tests.iterdir() if p.is_dir() and p.name != "__pycache__")
    strays = [f for f in folders if f not in PACKAGES and f not in NOT_MIRRORS]
    assert not strays, f"tests/{strays} mirror no package: name each after the package it tests"
    missing = [
        str(d.relative_to(ROOT))
        for d in [tests, *tests.rglob("*")]
        if d.is_dir() and d.name != "__pycache__" and any(d.glob("*.py")) and not (d / "__init__.py").exists()
    ]
    assert not missing, f"{missing} hold tests but no __init__.py: every test folder is a package"
