"""The embedded MQTT broker (amqtt, pure Python) for `smart-table run` when no broker is configured.

Owns only starting amqtt on a TCP and a WebSocket listener, bound to the host given (127.0.0.1 by
default). amqtt speaks MQTT 3.1.1 only. Without `--passwd` it takes anonymous clients (development on
one machine). With `--passwd FILE` (amqtt's `user:<argon2 hash>` lines, written by
`write_amqtt_passwd`) anonymous clients and wrong passwords are refused and every user gets the same
ACL model as deploy/mosquitto/acl, spelled out per user (amqtt has no %u patterns): `controller` reads
and writes `table/#`; any other user subscribes only to the public tree and its own
`table/+/player/<user>/{state,prompts,reply}`, and publishes only on `table/+/player/<user>/cmd`.
Run as a child process: `python -m controller.broker --port 1883 --ws-port 9001 [--passwd FILE]`.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import signal
import sys
import warnings
from pathlib import Path

PUBLIC_TOPICS = ("table/+/availability", "table/+/device/#", "table/+/state", "table/+/events", "table/+/prompts")


def acl_for(users: list[str]) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """(subscribe ACL, publish ACL) per user: deploy/mosquitto/acl's model with %u expanded.

    amqtt matches a subscription's filter against the allowed filters literally (a `#` or `+` asked for
    must be allowed as such), so a player subscribing to `table/#` or `table/+/player/+/state` is refused
    rather than served another player's tree."""
    sub: dict[str, list[str]] = {}
    pub: dict[str, list[str]] = {}
    for u in users:
        if u == "controller":
            sub[u], pub[u] = ["table/#"], ["table/#"]
        else:
            sub[u] = [*PUBLIC_TOPICS, *(f"table/+/player/{u}/{leaf}" for leaf in ("state", "prompts", "reply"))]
            pub[u] = [f"table/+/player/{u}/cmd"]
    return sub, pub


def write_amqtt_passwd(path: Path, users: dict[str, str]) -> None:
    """amqtt's password file: `user:<argon2 hash>` per line (not Mosquitto's format)."""
    from pwdlib.hashers.argon2 import Argon2Hasher

    hasher = Argon2Hasher()
    path.write_text("".join(f"{u}:{hasher.hash(pw)}\n" for u, pw in users.items()), encoding="utf-8")
    path.chmod(0o600)


def read_users(path: Path) -> list[str]:
    return [ln.split(":", 1)[0] for ln in path.read_text(encoding="utf-8").splitlines()
            if ":" in ln and not ln.startswith("#")]


def broker_config(host: str, port: int, ws_port: int, passwd: Path | None = None) -> dict:
    if passwd is None:
        plugins: dict = {"amqtt.plugins.authentication.AnonymousAuthPlugin": {"allow_anonymous": True}}
    else:
        sub, pub = acl_for(read_users(passwd))
        plugins = {"amqtt.plugins.authentication.FileAuthPlugin": {"password_file": str(passwd)},
                   "amqtt.plugins.topic_checking.TopicAccessControlListPlugin": {"acl": sub, "publish_acl": pub}}
    return {
        "listeners": {
            "default": {"type": "tcp", "bind": f"{host}:{port}"},
            "ws": {"type": "ws", "bind": f"{host}:{ws_port}"},
        },
        "plugins": plugins,
    }


async def serve(host: str, port: int, ws_port: int, passwd: Path | None = None) -> None:
    from amqtt.broker import Broker

    broker = Broker(broker_config(host, port, ws_port, passwd))
    await broker.start()
    print(f"embedded broker listening on {host}:{port} (MQTT) and {host}:{ws_port} (WebSockets)", flush=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    await broker.shutdown()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m controller.broker")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=1883)
    parser.add_argument("--ws-port", type=int, default=9001)
    parser.add_argument("--passwd", type=Path, default=None,
                        help="amqtt password file (user:argon2 hash): no anonymous access, per-user ACL")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING)
    warnings.simplefilter("ignore", DeprecationWarning)
    for name in ("amqtt", "transitions"):
        logging.getLogger(name).setLevel(logging.ERROR)
    if args.passwd is not None and not args.passwd.is_file():
        print(f"python -m controller.broker: the password file {args.passwd} does not exist; "
              "write it with controller.broker.write_amqtt_passwd.", file=sys.stderr)
        return 2
    asyncio.run(serve(args.host, args.port, args.ws_port, args.passwd))
    return 0


if __name__ == "__main__":
    sys.exit(main())
