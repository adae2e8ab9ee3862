"""`smart-table doctor`: parsing and exit codes only; the checks are in controller/doctor.py."""

from __future__ import annotations

import argparse
import json

from smart_table.errors import CliError


def register(top: argparse._SubParsersAction, groups: dict[str, argparse._SubParsersAction]) -> None:
    from controller.doctor import PARTS

    p = top.add_parser("doctor", help="check the installation part by part: one line each, with the fix")
    p.add_argument(
        "--config", help="TOML config to check against (every option: deploy/smart-table.example.toml)"
    )
    p.add_argument(
        "--only",
        action="append",
        choices=PARTS,
        metavar="PART",
        help=f"check only this part (repeatable): {', '.join(PARTS)}",
    )
    p.add_argument("--serial", help="serial device to check (overrides bridge.serial_port)")
    p.add_argument("--camera", help="camera index or video file to check (overrides vision.camera)")
    p.add_argument(
        "--timeout", type=float, default=3.0, help="seconds to wait for the broker and the firmware"
    )
    p.add_argument("--json", action="store_true", help="one JSON object per check instead of lines")
    p.set_defaults(func=cmd_doctor)


def cmd_doctor(args: argparse.Namespace) -> int:
    """Exit 0 when everything needed works, 1 when something needed is missing or broken."""
    import os

    os.environ.setdefault("OPENCV_LOG_LEVEL", "ERROR")  # OpenCV's own warnings would repeat our camera line
    from controller import config, doctor

    try:
        cfg = config.load(args.config)
        # A device named on the command line is checked even where the config switches its part off.
        if args.serial is not None:
            cfg.set("bridge.serial_port", args.serial)
            cfg.set("bridge.enabled", True)
        if args.camera is not None:
            cfg.set("vision.camera", args.camera)
            cfg.set("vision.enabled", True)
    except config.ConfigError as exc:
        print(
            doctor.Check(
                "config",
                "fail",
                str(exc),
                "fix the file; every option is documented in deploy/smart-table.example.toml",
            ).line()
        )
        return 1
    if args.timeout <= 0:
        raise CliError("--timeout must be more than 0 seconds.")
    checks = doctor.run_checks(cfg, args.only or doctor.PARTS, args.timeout)
    for check in checks:
        print(json.dumps(check.to_json(), sort_keys=True) if args.json else check.line(), flush=True)
    failed = [c for c in checks if c.failed]
    if not args.json:
        print(
            f"doctor: {len(failed)} needed part(s) missing or broken"
            if failed
            else "doctor: all needed parts work"
        )
    return 1 if failed else 0
