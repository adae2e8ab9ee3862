"""docs/rules-coverage.md cannot go stale: every test it names exists (file and function), every row of the
base rulebook's table names a test or says why it is not testable, the rows are in rulebook order, and (when
the rulebook text is at hand) every rule line of the base rulebook has a row."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOC = ROOT / "docs" / "rules-coverage.md"
BASE = "## Dead Reckoning (base rulebook)"
RULEBOOK = ROOT.parent / "shared" / "rules" / "000_5d8518b29a372cd0.txt"

# `RB/test_x.py::test_y` (an abbreviation the doc defines) or `tests/.../test_x.py::test_y`
REF = re.compile(r"`([\w./-]+\.py)::(\w+)`")
ABBREV = re.compile(r"`(\w+/)` is\s+`(tests/[\w/]+/)`")


def _doc() -> str:
    return DOC.read_text(encoding="utf-8")


def _abbreviations(text: str) -> dict[str, str]:
    return dict(ABBREV.findall(text))


def _resolve(path: str, abbrev: dict[str, str]) -> Path:
    for short, full in abbrev.items():
        if path.startswith(short):
            return ROOT / (full + path[len(short) :])
    return ROOT / path


def _base_section(text: str) -> str:
    start = text.index(BASE)
    nxt = text.find("\n## ", start + len(BASE))
    return text[start : nxt if nxt != -1 else len(text)]


def _rows(section: str) -> list[tuple[int, str, str]]:
    """(rulebook line, sentence, test cell) of every sentence row before "Deviations found"."""
    table = section.split("### Deviations found")[0]
    out = []
    for line in table.splitlines():
        m = re.match(r"\| (\d+) \| (.*) \| (.*) \|$", line)
        if m:
            out.append((int(m.group(1)), m.group(2), m.group(3)))
    return out


def test_the_doc_defines_its_abbreviations():
    abbrev = _abbreviations(_doc())
    assert {"RB/", "DR/", "B/"} <= set(abbrev)
    for full in abbrev.values():
        assert (ROOT / full).is_dir(), f"the abbreviation's folder {full} does not exist"


def test_every_test_named_exists():
    text = _doc()
    abbrev = _abbreviations(text)
    refs = REF.findall(text)
    assert len(refs) > 400
    missing = []
    for path, name in sorted(set(refs)):
        f = _resolve(path, abbrev)
        if not f.is_file():
            missing.append(f"{path} (no such file)")
        elif not re.search(rf"^(async )?def {name}\(", f.read_text(encoding="utf-8"), re.M):
            missing.append(f"{path}::{name} (no such test)")
    assert not missing, "docs/rules-coverage.md names tests that do not exist: " + "; ".join(missing)


def test_every_base_row_names_a_test_or_says_why_not():
    rows = _rows(_base_section(_doc()))
    assert len(rows) > 450
    bare = [
        f"line {n}: {s[:60]}" for n, s, cell in rows if not REF.search(cell) and "not testable:" not in cell
    ]
    assert not bare, "rows with neither a test nor a reason: " + "; ".join(bare)
    lines = [n for n, _, _ in rows]
    assert lines == sorted(lines), "the base rulebook's rows are out of rulebook order"


def test_xfail_rows_name_strict_xfail_tests():
    """Every row marked xfail names a strict xfail, and every strict xfail of the rulebook tests (`RB/`) is
    marked so in a row (the two sets agree, so a pattern that stops matching the table fails here)."""
    text = _doc()
    abbrev = _abbreviations(text)
    listed = set()
    for n, _, cell in _rows(_base_section(text)):
        for m in re.finditer(r"`([\w./-]+\.py)::(\w+)` \(\*\*xfail\*\*", cell):
            src = _resolve(m.group(1), abbrev).read_text(encoding="utf-8")
            decorated = re.search(
                rf"@pytest\.mark\.xfail\(\s*strict=True[^@]*?\)\s*def {m.group(2)}\(", src, re.S
            )
            assert decorated, f"line {n}: {m.group(2)} is listed as an xfail but is not a strict xfail"
            listed.add(m.group(2))
    strict = set()
    for path in sorted(_resolve("RB/", abbrev).glob("test_*.py")):
        src = path.read_text(encoding="utf-8")
        strict |= set(re.findall(r"@pytest\.mark\.xfail\(\s*strict=True[^@]*?\)\s*def (\w+)\(", src, re.S))
    assert strict == listed, f"strict xfails not marked in the table: {sorted(strict - listed)}"


@pytest.mark.skipif(not RULEBOOK.is_file(), reason="the rulebook text is not next to this checkout")
def test_every_rule_line_of_the_base_rulebook_has_a_row():
    covered = {n for n, _, _ in _rows(_base_section(_doc()))}
    lines = RULEBOOK.read_text(encoding="utf-8").splitlines()
    first = lines.index("Overview") + 1
    last = lines.index("Navigating Dead Reckoning")
    rule_lines = [
        n
        for n in range(first, last + 1)
        if len(lines[n - 1].split()) >= 4 and re.search(r"[.!?)]\s*$", lines[n - 1])
    ]
    assert len(rule_lines) > 200
    missing = [n for n in rule_lines if n not in covered]
    assert not missing, f"rulebook lines with no row in docs/rules-coverage.md: {missing}"


@pytest.mark.skipif(not RULEBOOK.is_file(), reason="the rulebook text is not next to this checkout")
def test_rulebook_tests_quote_the_rulebook_verbatim():
    """Every test in tests/rules/dead_reckoning/rulebook/ quotes at least one sentence, and every quoted
    passage ("..." in its docstring, an ellipsis marking a cut) is the rulebook's own words."""
    import ast

    text = " ".join(RULEBOOK.read_text(encoding="utf-8").split())
    quote = re.compile(r'(?:(?<=^)|(?<=[\s(]))"(.+?)"(?=$|[\s),;:.])')
    wrong, unquoted = [], []
    for f in sorted((ROOT / "tests/rules/dead_reckoning/rulebook").glob("test_*.py")):
        for node in ast.parse(f.read_text(encoding="utf-8")).body:
            if not (isinstance(node, ast.FunctionDef) and node.name.startswith("test_")):
                continue
            doc = " ".join((ast.get_docstring(node) or "").split())
            found = 0
            for m in quote.finditer(doc):
                for part in re.split(r"\.\.\.|…", m.group(1)):
                    part = part.strip(" .")
                    if len(part) < 12:
                        continue
                    if part in text:
                        found += 1
                    else:
                        wrong.append(f"{f.name}::{node.name}: {part[:60]!r}")
            if not found:
                unquoted.append(f"{f.name}::{node.name}")
    assert not wrong, "quoted but not in the rulebook: " + "; ".join(wrong)
    assert not unquoted, "rulebook tests that quote no sentence: " + "; ".join(unquoted)
