"""Regenerate docs/screenshots/: the table view and a player view at tablet (1024x768) and phone (390x844).

Dev tool, not part of the running table: `python controller/web/screenshots.py [--steps N] [--out DIR]`.
It starts a real Mosquitto with the deploy/ config (tests/support/broker.py), the real controller core
with its MQTT link, plays N seeded random legal actions (controller/simplayers.py), serves the display
and photographs the pages in Debian's headless Chromium (/usr/bin/chromium; nothing downloaded).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path
from urllib.parse import urlencode

REPO = Path(__file__).resolve().parents[2]
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
SIZES = {"tablet": {"width": 1024, "height": 768}, "phone": {"width": 390, "height": 844}}
TABLE = "table-1"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=40, help="random legal actions to play first (default 40)")
    parser.add_argument("--seed", type=int, default=3)
    parser.add_argument("--out", type=Path, default=REPO / "docs" / "screenshots")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(REPO))
    from playwright.sync_api import sync_playwright

    from controller.core import TableCore
    from controller.gamelog import GameLog
    from controller.mqtt import MqttLink
    from controller.simplayers import SimPlayers
    from controller.web.server import serve_display
    from tests.support.broker import running_mosquitto

    args.out.mkdir(parents=True, exist_ok=True)
    with running_mosquitto() as broker, tempfile.TemporaryDirectory() as tmp:
        log = GameLog(Path(tmp) / "shots.db")
        link = MqttLink(broker.host, broker.port, "controller", broker.users["controller"], table_id=TABLE)
        core = TableCore(log, table_id=TABLE, publisher=link)
        core.open_game(["red", "blue", "green"], args.seed)
        link.start(core)
        sim = SimPlayers(core, seed=args.seed, delay=0)
        for _ in range(args.steps):
            if not sim.step():
                break
        core.publish_all()
        display = serve_display("127.0.0.1", 0, {"table": TABLE, "ws": f"ws://127.0.0.1:{broker.ws_port}"})
        player = core.state.active if getattr(core.state, "active", None) in core.players else core.players[0]
        try:
            with sync_playwright() as pw:
                browser = pw.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
                for view, user, extra in (("table", "display", {"view": "table"}), ("player", player, {"player": player})):
                    query = urlencode({"table": TABLE, **extra, "user": user, "pass": broker.users[user],
                                       "ws": f"ws://127.0.0.1:{broker.ws_port}"})
                    for size, viewport in SIZES.items():
                        page = browser.new_page(viewport=viewport)
                        page.goto(f"{display.url}?{query}")
                        page.wait_for_selector("#conn[data-status=live]", timeout=15_000)
                        page.wait_for_function("document.getElementById('main').dataset.seq !== ''", timeout=15_000)
                        time.sleep(0.3)
                        path = args.out / f"{view}-{size}.png"
                        page.screenshot(path=str(path))
                        print(path)
                        page.close()
                browser.close()
        finally:
            display.stop()
            link.stop()
            log.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
