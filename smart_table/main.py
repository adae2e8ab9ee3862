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

_GROUPS = {
    "rules": "the rules engine: new game, apply an action, show, replay",
    "vision": "read the battle board, the ocean grid and the Great Sea map from images or a camera",
    "calibrate": "camera, board and colour calibration",
    "games": "games kept in the controller's log",
    "tablets": "tablet credentials and join codes",
    "tower": "battle tower health",
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="smart-table", description="Controller of the smart game table.")
    top = parser.add_subparsers(dest="command", metavar="COMMAND")
    groups: dict[str, argparse._SubParsersAction] = {}
    for name, help_text in _GROUPS.items():
        group_parser = top.add_parser(name, help=help_text)
        groups[name] = group_parser.add_subparsers(dest=f"{name}_command", metavar="SUBCOMMAND")
        group_parser.set_defaults(func=_usage(group_parser))
    for module_name in _COMMAND_MODULES:
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
    parser = build_parser()
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
