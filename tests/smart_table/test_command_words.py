"""`smart-table WORD ...` builds only the part of the command tree WORD needs (smart_table/main.py
`_COMMAND_WORDS`), so a camera or bridge child the supervisor starts does not import the rules engine and
doctor first. Kept honest here: the words listed are exactly what each module registers, and every first word
gets the same commands and options as in the whole tree."""

from __future__ import annotations

import argparse
import importlib
import subprocess
import sys
from pathlib import Path

from smart_table import main

REPO = Path(__file__).resolve().parents[2]


def _subparsers(parser: argparse.ArgumentParser) -> argparse._SubParsersAction:
    (action,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return action


def _tree(parser: argparse.ArgumentParser) -> dict[str, object]:
    """Every command path of a parser with its options' flags (what a person can type)."""
    out: dict[str, object] = {}
    for a in parser._actions:
        if isinstance(a, argparse._SubParsersAction):
            for name, sub in a.choices.items():
                out[name] = _tree(sub)
    out["--"] = sorted(f for a in parser._actions for f in a.option_strings)
    return out


def test_the_words_listed_are_what_each_module_registers() -> None:
    assert set(main._COMMAND_WORDS) == set(main._COMMAND_MODULES)
    for name in main._COMMAND_MODULES:
        parser = argparse.ArgumentParser()
        top = parser.add_subparsers()
        groups = {g: top.add_parser(g).add_subparsers() for g in main._GROUPS}
        importlib.import_module(name).register(top, groups)
        words = (set(top.choices) - set(main._GROUPS)) | {g for g, sub in groups.items() if sub.choices}
        assert words == set(main._COMMAND_WORDS[name]), name


def test_every_first_word_gets_the_commands_of_the_whole_tree() -> None:
    whole = _tree(main.build_parser())
    for word in _subparsers(main.build_parser()).choices:
        part = _tree(main.build_parser(main.modules_for([word, "--help"])))
        assert part[word] == whole[word], word
    # No word, a flag or a typo: the whole tree (its help and "invalid choice" list every command).
    for argv in ([], ["--help"], ["vison"]):
        assert main.modules_for(argv) == main._COMMAND_MODULES


def test_a_camera_child_does_not_import_the_rules_engine_or_doctor() -> None:
    code = (
        "import sys; from smart_table.main import build_parser, modules_for; "
        "build_parser(modules_for(['vision', 'ships-watch'])); "
        "heavy = ('rules.api', 'controller.doctor', 'firmware_bridge.host'); "
        "print(sorted(m for m in heavy if m in sys.modules))"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=REPO, timeout=60)
    assert r.returncode == 0 and r.stdout.strip() == "[]", r.stdout + r.stderr
