"""The rules are a closed world: `rules` imports no other package of the project but `contracts`,
`contracts` imports nothing of the project, there is no import circle inside `rules`, no module uses
another's private names, no module keeps a cache keyed by `id()`, and no module of `rules/` is over
700 lines (the platform issue's layout)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
PROJECT = sorted(p.parent.name for p in ROOT.glob("*/__init__.py"))
MAX_LINES = 700


def _modules(package: str) -> dict[str, Path]:
    out = {}
    for path in sorted((ROOT / package).rglob("*.py")):
        rel = path.relative_to(ROOT).with_suffix("")
        parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
        out[".".join(parts)] = path
    return out


def _imports(path: Path) -> list[tuple[str, list[str]]]:
    """(module imported, names imported from it) for every import in the file, at any depth."""
    tree = ast.parse(path.read_text())
    out: list[tuple[str, list[str]]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out += [(a.name, []) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            out.append((node.module, [a.name for a in node.names]))
    return out


def _target(name: str, known: dict[str, Path]) -> str | None:
    """The project module an import names (`from rules.core import engine` names rules.core.engine)."""
    while name and name not in known:
        name = name.rpartition(".")[0]
    return name or None


def test_the_project_packages_are_found() -> None:
    assert {"rules", "contracts", "controller", "vision"} <= set(PROJECT)


def test_rules_imports_only_rules_and_contracts_and_contracts_imports_nothing_of_the_project() -> None:
    bad = []
    for package, allowed in (("rules", {"rules", "contracts"}), ("contracts", {"contracts"})):
        for mod, path in _modules(package).items():
            for name, _ in _imports(path):
                top = name.split(".")[0]
                if top in PROJECT and top not in allowed:
                    bad.append(f"{mod} imports {name}")
    assert not bad, bad


def test_no_import_circle_inside_rules() -> None:
    known = {**_modules("rules"), **_modules("contracts")}
    graph: dict[str, set[str]] = {m: set() for m in known}
    for mod, path in known.items():
        for name, names in _imports(path):
            for full in [f"{name}.{n}" for n in names] or [name]:
                t = _target(full, known)
                if t and t != mod and not mod.startswith(t + "."):  # a package's own __init__ is not a circle
                    graph[mod].add(t)
    # every edge of the graph, checked for a path back (Tarjan would do; the graph is small)
    state: dict[str, int] = {}
    circles: list[list[str]] = []

    def visit(m: str, stack: list[str]) -> None:
        state[m] = 1
        stack.append(m)
        for n in sorted(graph[m]):
            if state.get(n) == 1:
                circles.append(stack[stack.index(n) :] + [n])
            elif n not in state:
                visit(n, stack)
        stack.pop()
        state[m] = 2

    for m in sorted(graph):
        if m not in state:
            visit(m, [])
    assert not circles, [" -> ".join(c) for c in circles]
    assert graph["rules.dead_reckoning.legal"], "the graph was built (legal imports the chapters)"


def test_no_private_name_used_across_modules() -> None:
    known = {**_modules("rules"), **_modules("contracts")}
    bad = []
    for mod, path in known.items():
        for name, names in _imports(path):
            if name.split(".")[0] in ("rules", "contracts"):
                bad += [f"{mod} imports {name}.{n}" for n in names if n.startswith("_") and n != "__future__"]
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):  # module._private
            if (
                isinstance(node, ast.Attribute)
                and node.attr.startswith("_")
                and not node.attr.startswith("__")
            ):
                if isinstance(node.value, ast.Name) and node.value.id not in ("self", "cls"):
                    bad.append(f"{mod} reads {node.value.id}.{node.attr}")
    assert not bad, bad


def test_no_cache_keyed_by_id_and_no_module_over_700_lines() -> None:
    bad = []
    for mod, path in {**_modules("rules"), **_modules("contracts")}.items():
        text = path.read_text()
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "id":
                bad.append(f"{mod}:{node.lineno} calls id()")
        if text.count("\n") > MAX_LINES:
            bad.append(f"{mod} has {text.count(chr(10))} lines")
    assert not bad, bad
