"""A controller process for the display tests: the real TableCore and MqttLink, resumed from a SQLite log.

Run as `python tests/display/run_controller.py DB HOST PORT PASSWORD TABLE PLAYERS SEED`. It opens (or
resumes) the table's game through rules.api, publishes every retained topic and answers the tablets'
commands until killed. Tests SIGKILL it to prove the page comes back to live by itself. Once
`smart-table run` can start a controller without the simulated hardware, this can go.
"""

from __future__ import annotations

import signal
import sys
import threading


def main(argv: list[str]) -> int:
    db, host, port, password, table, players, seed = argv
    from controller.core import TableCore
    from controller.gamelog import GameLog
    from controller.mqtt import MqttLink

    log = GameLog(db)
    link = MqttLink(host, int(port), username="controller", password=password, table_id=table)
    core = TableCore(log, table_id=table, publisher=link)
    core.open_game(players.split(","), int(seed))
    link.start(core)
    core.publish_all()
    print("ready", flush=True)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    stop.wait()
    link.stop()
    log.close()
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
