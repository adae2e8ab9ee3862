"""How long from a state published on the broker to the tablets having drawn it.

`python bench/display_latency.py [--updates N] [--players K]`: a real Mosquitto (deploy/ config), the
display server, headless Chromium (/usr/bin/chromium) with the table view and K player views, and a
publisher with the controller's login sending N real engine snapshots (rules.api views, a turn ended
each time), the public state and every player's private state per update, like the controller does.
Prints per view the median and p99 milliseconds from publish to drawn (the page's own clock, same
machine), and the update rate sustained. Numbers depend on the machine's load; nothing is asserted.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

REPO = Path(__file__).resolve().parents[1]
TABLE = "bench"


def pct(values: list[float], q: float) -> float:
    values = sorted(values)
    return values[min(len(values) - 1, int(round(q * (len(values) - 1))))]


def _publisher(ctl: Any, base: str, colours: list[str]) -> Callable[[Any], float]:
    """Publishes a state as the controller does (public and each seat's); returns when it was sent."""
    from rules import api

    def publish(st: Any) -> float:
        t = time.time()
        public = {
            "epoch": "e",
            "seq": st.seq,
            "view": api.public_view(st),
            "battle": None,
            "tower": {"warning": None},
            "ts": t,
        }
        ctl.publish(f"{base}/state", json.dumps(public), retain=True)
        for p in colours:
            private = {
                "epoch": "e",
                "seq": st.seq,
                "view": api.private_view(st, p),
                "legal_actions": api.legal_actions(st, p),
            }
            ctl.publish(f"{base}/player/{p}/state", json.dumps(private), retain=True)
        return t

    return publish


def _open_pages(browser: Any, display: Any, broker: Any, views: list[tuple[str, str | None]]) -> dict:
    pages = {}
    for name, player in views:
        user = player or "display"
        q = urlencode(
            {
                "table": TABLE,
                **({"player": player} if player else {"view": "table"}),
                "user": user,
                "pass": broker.users[user],
                "ws": f"ws://127.0.0.1:{broker.ws_port}",
            }
        )
        page = browser.new_page(viewport={"width": 1024, "height": 768})
        page.goto(f"{display.url}?{q}")
        page.wait_for_selector("#conn[data-status=live]", timeout=15_000)
        pages[name] = (page, player)
    return pages


def _report(pages: dict, sent: list[tuple[int, float]]) -> None:
    for name, (page, player) in pages.items():
        lat = []
        for seq, t in sent:
            key = f"e:{seq}:{seq if player else ''}"
            drawn = page.evaluate(f"window.__renderedAt({json.dumps(key)})")
            if drawn is not None:
                lat.append(drawn - t * 1000)
        if lat:
            print(
                f"  {name:6s} drawn {len(lat)}/{len(sent)}  median {statistics.median(lat):6.1f} ms"
                f"  p99 {pct(lat, 0.99):6.1f} ms  max {max(lat):6.1f} ms"
            )
        else:
            print(f"  {name:6s} drew none of the updates")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--updates", type=int, default=60)
    parser.add_argument("--players", type=int, default=2, choices=(1, 2, 3, 4))
    parser.add_argument("--gap", type=float, default=0.1, help="seconds between updates (default 0.1)")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(REPO))
    from playwright.sync_api import sync_playwright

    from controller.testing import Client, running_mosquitto
    from controller.web.screenshots import CHROMIUM_ARGS
    from controller.web.server import serve_display
    from rules import api

    colours = ["red", "blue", "green", "yellow"][: max(2, args.players)]
    state = api.new_game(colours, 11, None)
    with running_mosquitto(tables=(TABLE,)) as broker:
        ctl = Client(broker, "controller")
        assert ctl.wait_connected()
        display = serve_display("127.0.0.1", 0, {"table": TABLE, "ws": f"ws://127.0.0.1:{broker.ws_port}"})
        base = f"table/{TABLE}"
        publish = _publisher(ctl, base, colours)
        ctl.publish(f"{base}/availability", json.dumps("online"), retain=True)
        publish(state)
        views: list[tuple[str, str | None]] = [("table", None)]
        views += [(p, p) for p in colours[: args.players]]
        try:
            with sync_playwright() as pw:
                browser = pw.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
                pages = _open_pages(browser, display, broker, views)
                sent: list[tuple[int, float]] = []
                start = time.monotonic()
                for _ in range(args.updates):
                    assert state.active is not None, "the game ended before the last update"
                    action = next(
                        a for a in api.legal_actions(state, state.active) if a["type"] == "end_turn"
                    )
                    state, _ = api.apply(state, {"seq": state.seq, "player": state.active, "action": action})
                    sent.append((state.seq, publish(state)))
                    time.sleep(args.gap)
                elapsed = time.monotonic() - start
                time.sleep(1.0)
                print(
                    f"{args.updates} updates, {len(views)} pages, {args.updates / elapsed:.1f} updates/s "
                    "published"
                )
                _report(pages, sent)
                browser.close()
        finally:
            display.stop()
            ctl.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
