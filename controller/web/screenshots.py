"""Regenerate docs/screenshots/: the table view and a player view at tablet (1024x768) and phone (390x844)
sizes, in play and during a battle (the camera unsure of one cube, the player asked to confirm it).

Dev tool, not part of the running table: `python controller/web/screenshots.py [--seed N] [--out DIR]`.
It starts a real Mosquitto with the deploy/ config (controller.testing), the real controller core,
MQTT link and battle driver, plays seeded random legal actions, plays the tower and camera for the first
battle, serves the display and photographs the pages in Debian's headless Chromium (/usr/bin/chromium;
nothing downloaded).
"""

from __future__ import annotations

import argparse
import random
import sys
import tempfile
import time
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

REPO = Path(__file__).resolve().parents[2]
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
SIZES = {"tablet": {"width": 1024, "height": 768}, "phone": {"width": 390, "height": 844}}
TABLE = "table-1"


def _step(core: Any, rng: random.Random) -> None:
    state = core.state
    for player in [state.active, *[p for p in core.players if p != state.active]]:
        actions = core.engine.legal_actions(state, player)
        if actions:
            core.submit(player, rng.choice(actions), core.seq)
            return
    raise RuntimeError("no player has a legal action")


def _shoot(
    browser: Any,
    base_url: str,
    broker: Any,
    out: Path,
    name: str,
    player: str | None,
    size: str,
    wait_for: str = "#main[data-seq]",
) -> None:
    user = player or "display"
    query = urlencode(
        {
            "table": TABLE,
            **({"player": player} if player else {"view": "table"}),
            "user": user,
            "pass": broker.users[user],
            "ws": f"ws://127.0.0.1:{broker.ws_port}",
        }
    )
    page = browser.new_page(viewport=SIZES[size])
    page.goto(f"{base_url}?{query}")
    page.wait_for_selector("#conn[data-status=live]", timeout=15_000)
    page.wait_for_function("document.getElementById('main').dataset.seq !== ''", timeout=15_000)
    page.wait_for_selector(wait_for, timeout=15_000)
    time.sleep(0.3)
    path = out / f"{name}-{size}.png"
    # The whole page, never an element: a redraw cannot detach what is pictured, so the tests' retry on a
    # replaced element (tests/support/screenshots.py `picture`) has nothing to retry here.
    page.screenshot(path=str(path))
    page.close()
    print(path)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--seed", type=int, default=5, help="seed of the random legal play (default 5)")
    parser.add_argument("--steps", type=int, default=40, help="actions before the in-play shots (default 40)")
    parser.add_argument("--out", type=Path, default=REPO / "docs" / "screenshots")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(REPO))
    from playwright.sync_api import sync_playwright

    from controller.battles import BattleDriver
    from controller.core import TableCore
    from controller.gamelog import GameLog
    from controller.mqtt import MqttLink
    from controller.testing import running_mosquitto
    from controller.web.server import serve_display

    args.out.mkdir(parents=True, exist_ok=True)
    rng = random.Random(args.seed)
    with running_mosquitto() as broker, tempfile.TemporaryDirectory() as tmp:
        log = GameLog(Path(tmp) / "shots.db")
        link = MqttLink(broker.host, broker.port, "controller", broker.users["controller"], table_id=TABLE)
        core = TableCore(log, table_id=TABLE, publisher=link)
        core.open_game(["red", "blue"], args.seed)
        driver = BattleDriver(core)
        link.start(core)
        display = serve_display("127.0.0.1", 0, {"table": TABLE, "ws": f"ws://127.0.0.1:{broker.ws_port}"})
        try:
            with sync_playwright() as pw:
                browser = pw.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
                for _ in range(args.steps):
                    if driver.busy():
                        break
                    _step(core, rng)
                player = core.state.active
                for size in SIZES:
                    _shoot(browser, display.url, broker, args.out, "table", None, size)
                    _shoot(browser, display.url, broker, args.out, "player", player, size, "button.action")
                for _ in range(400):
                    if driver.busy():
                        break
                    _step(core, rng)
                if driver.busy():
                    setup = driver.session.setup
                    att, dfd = setup.attacker, setup.defender
                    zones = ["str-2", "plunder-c2", "dmg-1", "str-1a", "plunder-k1", "miss"]
                    cubes = [
                        {
                            "color": att.cube_color,
                            "zone": zones[i % len(zones)],
                            "confidence": 0.3 if i == 0 else 0.95,
                        }
                        for i in range(att.cubes)
                    ]
                    cubes += [
                        {"color": dfd.cube_color, "zone": zones[-1 - i % len(zones)], "confidence": 0.95}
                        for i in range(dfd.cubes)
                    ]
                    driver.start_drop({})
                    driver.tower_totals({att.cube_color: att.cubes, dfd.cube_color: dfd.cubes})
                    driver.camera(
                        {"status": "ok", "cubes": cubes, "redrop": [], "ambiguous": []}, settled=True
                    )
                    _shoot(browser, display.url, broker, args.out, "table-battle", None, "tablet", "#battle")
                    _shoot(
                        browser,
                        display.url,
                        broker,
                        args.out,
                        "player-battle",
                        att.name,
                        "phone",
                        "[data-kind='confirm_reading']",
                    )
                browser.close()
        finally:
            display.stop()
            link.stop()
            log.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
