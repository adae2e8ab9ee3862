"""The `smart-table` command as a person runs it, for tests: `python -m smart_table ...` from the repository,
this checkout's code first on the path, its output captured as text."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def smart_table(
    *args: str,
    timeout: float = 60,
    check: bool = False,
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """Runs `smart-table ARGS` to its end (`env`: the whole environment, when not the test's own)."""
    return subprocess.run(
        [sys.executable, "-m", "smart_table", *args],
        cwd=cwd or REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)} if env is None else env,
        capture_output=True,
        text=True,
        timeout=timeout,
        check=check,
    )
