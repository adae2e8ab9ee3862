"""Lists the functions over N lines (default 80) outside rules/, vision/synth/ and tests/, longest first.

    python3 .ci/long_functions.py [N]

House rule (docs/architecture.md, "Long functions"): such a function is split, or says at its top why it
is long. A list for review, not a gate.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SKIP = {"synth", "rules", "tests", "node_modules"}


def long_functions(over: int) -> list[tuple[int, str]]:
    found = []
    for path in sorted(ROOT.rglob("*.py")):
        rel = path.relative_to(ROOT)
        if SKIP & set(rel.parts) or rel.parts[0].startswith("."):
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                lines = (node.end_lineno or node.lineno) - node.lineno + 1
                if lines > over:
                    found.append((lines, f"{rel}:{node.lineno} {node.name}"))
    return sorted(found, reverse=True)


if __name__ == "__main__":
    for lines, where in long_functions(int(sys.argv[1]) if len(sys.argv) > 1 else 80):
        print(f"{lines:4d}  {where}")
