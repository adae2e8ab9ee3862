"""The embedded MQTT broker (amqtt, pure Python) for `smart-table run` when no broker is configured.

Owns only starting amqtt on a TCP and a WebSocket listener. amqtt speaks MQTT 3.1.1 only and is run
with anonymous access bound to the host given (127.0.0.1 by default): it is the zero-install broker
for simulation and development; a real table uses Mosquitto with the ACL in deploy/mosquitto.
Run as a child process: `python -m controller.broker --port 1883 --ws-port 9001`.
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import signal
import sys


def broker_config(host: str, port: int, ws_port: int) -> dict:
    return {
        "listeners": {
            "default": {"type": "tcp", "bind": f"{host}:{port}"},
            "ws": {"type": "ws", "bind": f"{host}:{ws_port}"},
        },
        "plugins": {"amqtt.plugins.authentication.AnonymousAuthPlugin": {"allow_anonymous": True}},
    }


async def serve(host: str, port: int, ws_port: int) -> None:
    from amqtt.broker import Broker

    broker = Broker(broker_config(host, port, ws_port))
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
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.WARNING)
    for name in ("amqtt", "transitions"):
        logging.getLogger(name).setLevel(logging.ERROR)
    asyncio.run(serve(args.host, args.port, args.ws_port))
    return 0


if __name__ == "__main__":
    sys.exit(main())
