"""The firmware's protocol code under real MicroPython (the WebAssembly port, run by node) produces
byte-for-byte what it produces under CPython, where the rest of these tests run it against the bridge."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
HOST = REPO / "firmware_bridge" / "firmware" / "mpy_host"
SCRIPT = Path(__file__).with_name("mpy_conformance.py")
MODULES = [
    REPO / "firmware_bridge" / "wire.py",
    REPO / "firmware_bridge" / "device.py",
    REPO / "firmware_bridge" / "firmware" / "tower.py",
]


def _micropython_available() -> bool:
    return shutil.which("node") is not None and (HOST / "node_modules" / "@micropython").is_dir()


@pytest.mark.skipif(
    not _micropython_available(),
    reason="MicroPython for the host is not installed: (cd firmware_bridge/firmware/mpy_host && npm install)",
)
def test_firmware_protocol_code_behaves_identically_under_micropython() -> None:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    cpython = subprocess.run(
        [sys.executable, str(SCRIPT)], env=env, capture_output=True, text=True, timeout=60
    )
    assert cpython.returncode == 0, cpython.stderr
    mpy = subprocess.run(
        ["node", "run.mjs", *map(str, MODULES), str(SCRIPT)],
        cwd=HOST,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert mpy.returncode == 0, mpy.stderr
    assert "micropython" not in cpython.stdout  # two different interpreters really ran
    lines = cpython.stdout.splitlines()
    assert lines[0] == "crc 0x6f91"
    assert sum(line.startswith("dev ") for line in lines) >= 12
    assert sum(line.startswith("tower ") for line in lines) >= 10
    assert mpy.stdout.splitlines() == lines


def test_the_runner_really_is_micropython(tmp_path: Path) -> None:
    if not _micropython_available():
        pytest.skip(
            "MicroPython for the host is not installed: (cd firmware_bridge/firmware/mpy_host && npm install)"
        )
    probe = tmp_path / "probe_impl.py"
    probe.write_text("import sys\nprint(sys.implementation.name)\n")
    try:
        result = subprocess.run(
            ["node", "run.mjs", str(probe)], cwd=HOST, capture_output=True, text=True, timeout=60
        )
    finally:
        probe.unlink()
    assert result.stdout.strip() == "micropython"


def test_the_board_only_files_compile_under_micropython(tmp_path: Path) -> None:
    # main.py and tcs34725.py need the board's pins to run; MicroPython's own compiler still checks them.
    if not _micropython_available():
        pytest.skip(
            "MicroPython for the host is not installed: (cd firmware_bridge/firmware/mpy_host && npm install)"
        )
    firmware = REPO / "firmware_bridge" / "firmware"
    broken = tmp_path / "broken.py"
    broken.write_text("def f(:\n    pass\n")
    files = [firmware / "main.py", firmware / "tcs34725.py", broken]
    script = tmp_path / "compile_all.py"
    script.write_text(
        "for name in ('main.py', 'tcs34725.py', 'broken.py'):\n"
        "    try:\n"
        "        compile(open('/' + name).read(), name, 'exec')\n"
        "        print(name + ' ok')\n"
        "    except SyntaxError:\n"
        "        print(name + ' syntax error')\n"
    )
    result = subprocess.run(
        ["node", "run.mjs", *map(str, files), str(script)],
        cwd=HOST,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.stdout.split("\n")[:3] == ["main.py ok", "tcs34725.py ok", "broken.py syntax error"], (
        result.stderr
    )
