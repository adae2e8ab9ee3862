"""Entry point of `smart-table`: builds the command tree from each part's module and dispatches.

Each part registers its own subcommands through `register(top, groups)`:
`top` is the root subparsers object, `groups` maps a group name (`rules`, `vision`, `calibrate`,
`games`, `tablets`, `tower`) to that group's subparsers, so two modules can share a group.
A handler is set with `set_defaults(func=handler)`; it takes the parsed args and returns an exit code.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from smart_table.errors import CliError

# Modules that add subcommands; one per part of the product, each owned by that part.
_COMMAND_MODULES = (
    "smart_table.rules_cmd",
    "smart_table.vision_cmd",
    "smart_table.ships_cmd",
    "smart_table.regions_cmd",
    "smart_table.bridge_cmd",
    "smart_table.controller_cmd",
    "smart_table.doctor_cmd",
    "smart_table.venue_cmd",
    "smart_table.campaign_cmd",
)

# The first words each module registers (its own commands, and the groups it adds subcommands to).
# `smart-table WORD ...` imports only the modules that register WORD: a camera or bridge child the supervisor
# starts then pays for its own command's imports and not for the rules engine's or doctor's (about 0.4 s of
# CPU at every start, more on a Pi). Any other first word (none, `--help`, a typo) builds the whole tree.
# tests/smart_table/test_command_words.py compares this with what each module registers.
_COMMAND_WORDS = {
    "smart_table.rules_cmd": ("rules",),
    "smart_table.vision_cmd": ("vision", "calibrate"),
    "smart_table.ships_cmd": ("vision", "calibrate"),
    "smart_table.regions_cmd": ("vision", "calibrate"),
    "smart_table.bridge_cmd": ("bridge", "firmware-sim"),
    "smart_table.controller_cmd": ("run", "games", "tablets", "tower"),
    "smart_table.doctor_cmd": ("doctor",),
    "smart_table.venue_cmd": ("venue",),
    "smart_table.campaign_cmd": ("campaign",),
}

_GROUPS = {
    "rules": "the rules engine: new game, apply an action, show, replay",
    "vision": "read the battle board, the ocean grid and the Great Sea map from images or a camera",
    "calibrate": "camera, board and colour calibration",
    "games": "games kept in the controller's log",
    "tablets": "tablet credentials and join codes",
    "tower": "battle tower health",
}


def modules_for(argv: Sequence[str] | None) -> tuple[str, ...]:
    """The command modules `argv` needs: those registering its first word, or every one."""
    word = argv[0] if argv else None
    needed = tuple(m for m in _COMMAND_MODULES if word in _COMMAND_WORDS.get(m, ()))
    return needed or _COMMAND_MODULES


def build_parser(modules: Sequence[str] = _COMMAND_MODULES) -> argparse.ArgumentParser:
    """The command tree of `modules` (by default all of it)."""
    parser = argparse.ArgumentParser(prog="smart-table", description="Controller of the smart game table.")
    top = parser.add_subparsers(dest="command", metavar="COMMAND")
    groups: dict[str, argparse._SubParsersAction] = {}
    for name, help_text in _GROUPS.items():
        group_parser = top.add_parser(name, help=help_text)
        groups[name] = group_parser.add_subparsers(dest=f"{name}_command", metavar="SUBCOMMAND")
        group_parser.set_defaults(func=_usage(group_parser))
    for module_name in modules:
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name == module_name:
                continue  # that part has no commands yet
            raise
        module.register(top, groups)
    return parser


def _usage(parser: argparse.ArgumentParser):
    def show(_args: argparse.Namespace) -> int:
        parser.print_help(sys.stderr)
        return 2

    return show


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser(modules_for(sys.argv[1:] if argv is None else argv))
    args = parser.parse_args(argv)
    func = getattr(args, "func", None)
    if func is None:
        parser.print_help(sys.stderr)
        return 2
    try:
        return int(func(args) or 0)
    except CliError as exc:
        print(f"smart-table: {exc}", file=sys.stderr)
        return exc.code
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


if __name__ == "__main__":
    sys.exit(main())
