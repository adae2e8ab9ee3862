"""The tower's LED ring as a signal to the table: what the battle waits for, shown on the tower itself.

Owns the mapping from the battle session's public prompts to an LED command for the bridge's command
socket (docs/protocol.md, REQ/REP): solid green "drop now", blinking amber "re-drop", blinking red
"the tower and the camera disagree", off otherwise. Sends on a worker thread (never under the game
lock), only on change, latest wins; a failed command is logged in one line and retried on the next change.
"""

from __future__ import annotations

import json
import logging
import threading
from typing import Any

import zmq

log = logging.getLogger(__name__)

SIGNALS: dict[str, dict[str, Any]] = {
    "drop": {"cmd": "led", "rgb": "#00c000", "pattern": "solid"},
    "redrop": {"cmd": "led", "rgb": "#ff9000", "pattern": "blink", "period_ms": 500},
    "disagree": {"cmd": "led", "rgb": "#ff0000", "pattern": "blink", "period_ms": 250},
    "off": {"cmd": "led", "rgb": "#000000", "pattern": "off"},
}


def signal_for(prompt_kinds: list[str]) -> str:
    if any(k in ("missing-cube", "extra-cube", "stray-cube") for k in prompt_kinds):
        return "disagree"
    if any(k.startswith("redrop") for k in prompt_kinds):
        return "redrop"
    if any(k in ("drop", "ability-drop") for k in prompt_kinds):
        return "drop"
    return "off"


class TowerLeds:
    def __init__(self, endpoint: str, timeout_ms: int = 2000) -> None:
        self.endpoint, self.timeout_ms = endpoint, timeout_ms
        self.wanted = "off"
        self.shown: str | None = "off"  # the ring starts dark: nothing to send until a battle wants something
        self.sent = 0
        self.failed = 0
        self.cond = threading.Condition()
        self.stopping = False
        self.thread = threading.Thread(target=self._run, name="tower-leds", daemon=True)
        self.thread.start()

    def update(self, session: Any) -> None:
        """Called after each battle change (under the game lock: it only records what to show)."""
        kinds = [p.kind for p in session.prompts()] if session is not None else []
        with self.cond:
            self.wanted = signal_for(kinds)
            self.cond.notify()

    def stop(self) -> None:
        with self.cond:
            self.stopping = True
            self.cond.notify()
        self.thread.join(timeout=3)

    def _run(self) -> None:
        ctx: zmq.Context[zmq.Socket[bytes]] = zmq.Context.instance()
        sock = None
        while True:
            with self.cond:
                while not self.stopping and self.wanted == self.shown:
                    self.cond.wait()
                if self.stopping:
                    break
                want = self.wanted
            if sock is None:
                sock = ctx.socket(zmq.REQ)
                sock.setsockopt(zmq.LINGER, 0)
                sock.setsockopt(zmq.RCVTIMEO, self.timeout_ms)
                sock.connect(self.endpoint)
            try:
                sock.send_string(json.dumps({**SIGNALS[want], "timeout_s": self.timeout_ms / 1000}))
                reply = json.loads(sock.recv_string())
            except zmq.ZMQError as exc:
                sock.close()
                sock = None  # a REQ socket that missed its reply cannot be reused
                reply = {"ok": False, "error": f"no answer from the bridge at {self.endpoint} ({exc})"}
            if reply.get("ok"):
                self.sent += 1
                log.info("tower LED: %s", want)
            else:
                self.failed += 1
                log.warning("tower LED %s not shown: %s", want, reply.get("error"))
            with self.cond:
                self.shown = want
        if sock is not None:
            sock.close()
