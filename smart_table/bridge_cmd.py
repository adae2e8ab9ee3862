"""`smart-table bridge` and `smart-table firmware-sim`: parsing, files and exit codes only; the work is
in firmware_bridge.host and firmware_bridge.sim."""

from __future__ import annotations

import argparse
import json
import signal
import sys
import threading
import time
from typing import Any

from smart_table.errors import CliError


def register(top: argparse._SubParsersAction, groups: dict[str, argparse._SubParsersAction]) -> None:
    from firmware_bridge.host import DEFAULT_CMD, DEFAULT_PUB

    p = top.add_parser("bridge", help="own the battle tower's serial port and publish its events on ZeroMQ")
    p.add_argument(
        "--device",
        required=True,
        help="serial port path (a udev name like /dev/battle-tower) or usb:VID:PID[:SERIAL]",
    )
    p.add_argument("--print", action="store_true", help="also print every event as one JSON line on stdout")
    p.add_argument(
        "--zmq-pub", default=DEFAULT_PUB, help=f"PUB endpoint for events and health (default {DEFAULT_PUB})"
    )
    p.add_argument(
        "--zmq-cmd", default=DEFAULT_CMD, help=f"REP endpoint for commands (default {DEFAULT_CMD})"
    )
    p.add_argument("--baud", type=int, default=115200, help="baud rate (default 115200)")
    p.add_argument(
        "--wait-device",
        type=float,
        default=2.0,
        metavar="S",
        help="wait this long for a missing device to appear before giving up (default 2)",
    )
    p.set_defaults(func=_bridge)

    s = top.add_parser("firmware-sim", help="simulate the tower/zone firmware on a pseudo-terminal")
    where = s.add_mutually_exclusive_group(required=True)
    where.add_argument("--pty", action="store_true", help="create a pseudo-terminal and print its path")
    where.add_argument("--device", help="speak on an existing tty instead")
    s.add_argument(
        "--link", help="with --pty: keep this symlink pointing at the pty (a stable name across replugs)"
    )
    play = s.add_mutually_exclusive_group()
    play.add_argument("--script", help="JSON-lines file of drops, zone changes, waits, unplugs, reboots")
    play.add_argument("--random", action="store_true", help="play seeded random drops and ship moves")
    s.add_argument("--seed", type=int, default=0, help="seed for --random and the line faults (default 0)")
    s.add_argument("--count", type=int, help="number of events; exit once all are acknowledged by the host")
    s.add_argument("--log", help="write every event given a sequence number to this JSON-lines file")
    s.add_argument("--drop", type=float, default=0.0, help="probability of dropping each byte")
    s.add_argument("--flip", type=float, default=0.0, help="probability of corrupting each byte")
    s.add_argument("--dup", type=float, default=0.0, help="probability of sending a frame twice")
    s.add_argument("--delay", type=float, default=0.0, help="delay every frame by this many milliseconds")
    s.add_argument(
        "--control", help="ZeroMQ REP endpoint taking JSON control commands, e.g. tcp://127.0.0.1:5592"
    )
    s.add_argument("--baud", type=int, help="pace output at this baud rate (a pty has no limit of its own)")
    s.add_argument("--interval", type=float, default=0.0, help="at least this many ms between events")
    s.add_argument("--boot", type=int, default=1, help="boot counter to start from (default 1)")
    s.set_defaults(func=_firmware_sim)


def _on_sigterm(_signum: int, _frame: Any) -> None:
    raise KeyboardInterrupt


def _bridge(args: argparse.Namespace) -> int:
    from firmware_bridge.host import Bridge, BridgeError, check_device

    # A board still enumerating, or a simulator still creating its pty, gets a moment to appear.
    deadline = time.monotonic() + max(0.0, args.wait_device)
    while True:
        try:
            check_device(args.device)
            break
        except BridgeError as exc:
            if (
                time.monotonic() >= deadline
                or "no serial device" not in str(exc)
                and "no USB" not in str(exc)
            ):
                raise CliError(str(exc), code=1) from None
            time.sleep(0.1)

    def show(message: dict[str, Any]) -> None:
        sys.stdout.write(json.dumps(message, separators=(",", ":")) + "\n")
        sys.stdout.flush()

    bridge = Bridge(
        args.device,
        baudrate=args.baud,
        zmq_pub=args.zmq_pub,
        zmq_cmd=args.zmq_cmd,
        on_event=show if args.print else None,
    )
    try:
        bridge.start()
    except BridgeError as exc:
        raise CliError(str(exc), code=1) from None
    print(
        f"bridge: {args.device}; events on {bridge.pub_address}, commands on {bridge.cmd_address}",
        file=sys.stderr,
        flush=True,
    )
    signal.signal(signal.SIGTERM, _on_sigterm)
    try:
        while True:
            time.sleep(0.5)
    except KeyboardInterrupt:
        pass
    finally:
        bridge.stop()
    return 0


def _probability(name: str, value: float) -> float:
    if not 0.0 <= value <= 1.0:
        raise CliError(f"--{name} is a probability between 0 and 1, not {value}")
    return value


def _read_script(path: str) -> list[dict[str, Any]]:
    try:
        with open(path, encoding="utf-8") as fh:
            lines = fh.read().splitlines()
    except OSError as exc:
        raise CliError(f"cannot read script {path}: {exc.strerror}") from None
    items = []
    for number, line in enumerate(lines, 1):
        if not line.strip() or line.lstrip().startswith("#"):
            continue
        try:
            items.append(json.loads(line))
        except ValueError:
            raise CliError(
                f'{path}:{number}: not a JSON object; write one command a line, e.g. {{"drop": {{"red": 3}}}}'
            ) from None
    return items


def _firmware_sim(args: argparse.Namespace) -> int:
    from firmware_bridge.sim import Faults, FirmwareSim, SimError

    faults = Faults(
        drop=_probability("drop", args.drop),
        flip=_probability("flip", args.flip),
        dup=_probability("dup", args.dup),
        delay_ms=max(0.0, args.delay),
    )
    if args.random and args.count is None:
        raise CliError("--random needs --count N: how many events to play")
    if args.count is not None and args.count < 0:
        raise CliError("--count must be zero or more")
    script = _read_script(args.script) if args.script else None
    sim = FirmwareSim(
        link=args.link if args.pty else None,
        device=args.device,
        faults=faults,
        seed=args.seed,
        log=args.log,
        baud=args.baud,
        interval_ms=args.interval,
        boot_counter=args.boot,
    )
    if script is not None:
        try:
            sim.play_script(script)
        except SimError as exc:
            raise CliError(f"{args.script}: {exc}") from None
    try:
        path = sim.start()
    except OSError as exc:
        raise CliError(
            f"cannot open {args.device or 'a pseudo-terminal'}: {exc.strerror}; pass an existing tty "
            f"with --device or use --pty"
        ) from None
    print(path, flush=True)
    if args.control:
        try:
            endpoint = sim.serve_control(args.control)
        except Exception as exc:  # zmq.ZMQError: address in use or malformed
            sim.stop()
            raise CliError(f"cannot bind --control {args.control}: {exc}") from None
        print(f"control {endpoint}", file=sys.stderr, flush=True)
    if args.random:
        sim.play_random(args.count)
    signal.signal(signal.SIGTERM, _on_sigterm)
    finite = args.random or script is not None or args.count is not None
    stop = threading.Event()
    try:
        while not stop.wait(0.05):
            if args.count is not None and sim.status()["acked"] >= args.count and sim.link.all_acked():
                break
            if finite and args.count is None and sim.done():
                break
    except KeyboardInterrupt:
        pass
    finally:
        sim.stop()
    return 0
