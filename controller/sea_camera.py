"""The Great Sea's camera at the table: settled readings of the map (`smart-table vision regions-watch`,
topic `vision.regions`) turned into proposals on the tablets.

Owns the wiring of `controller.sea_regions.translate` (pure) into the table: it keeps the latest reading,
compares it with the engine's public view after every reading and every accepted command, and publishes
what it finds as prompts (docs/great-sea.md, "The camera in play"):

- a move, Fort or Ship the reading shows, by the player who may act now and that the engine would accept,
  is offered to that player to confirm (`sea_camera_move`, answered `{"accept": true | false}`); it is
  applied only when confirmed, declined ones are not asked again until the map changes;
- the same change refused by the engine, or a change by a player who may not act now, is a
  `sea_camera_check` prompt to every tablet with the engine's sentence (put the pieces back, or enter
  what happened by hand), answered `{"dismiss": true}`;
- two equally short ways the Ships may have sailed are a `sea_camera_which` prompt to the player
  (options: each way, answered `{"moves": [[from, to, cls], ...]}`);
- regions the camera could not read are a `sea_camera_check` prompt naming them.

Nothing is applied without a player's tap: the camera proposes, the engine decides, the player confirms.
Whether the camera is live is the retained device `map_camera` (table/<tid>/device/map_camera/
availability): "offline" until the first reading, "online" after it, "offline" again when its process has
said nothing (no reading, no heartbeat) for `controller.liveness.CAMERA_SILENT_S` (`tick()`), "online" on
its next message. Declared by the game
(`controller/games/great_sea.py`); it does nothing while another game is played.
"""

from __future__ import annotations

import hashlib
import json
import logging
import time
from collections.abc import Callable
from typing import Any

from contracts import topics
from controller.core import Prompt, Refusal, TableCore
from controller.liveness import CAMERA_SILENT_S, Heartbeat, is_health, is_heartbeat
from controller.sea_regions import Proposal, Question, translate

log = logging.getLogger(__name__)

PREFIX = "sea-camera:"
DEVICE = "map_camera"


def describe(action: dict[str, Any]) -> str:
    """An action the camera proposes, in a sentence's words."""
    kind = action.get("type")
    if kind == "move":
        legs = ", ".join(f"a {cls.capitalize()} Ship from {a} to {b}" for a, b, cls in action["moves"])
        return f"{legs} moved into {action['region']}"
    if kind == "fortify":
        return f"a new {str(action['fort']).capitalize()} in {action['region']}"
    if kind == "construct":
        return f"a new {str(action['cls']).capitalize()} Ship in {action['region']}"
    return json.dumps(action)


def _pid(kind: str, key: str) -> str:
    """A prompt's id, the same for the same question (a tablet's answer stays valid across updates)."""
    return f"{PREFIX}{kind}:{hashlib.sha1(key.encode()).hexdigest()[:12]}"


class SeaCamera:
    """The Great Sea's camera reader in the controller (one per table, made by the game's declaration)."""

    topic = topics.VISION_REGIONS

    def __init__(
        self,
        core: TableCore,
        game: str,
        set_device: Callable[..., None] | None = None,
        clock: Callable[[], float] = time.time,
        silent_s: float = CAMERA_SILENT_S,
    ) -> None:
        self.core = core
        self.game = game
        self.set_device = set_device
        self.clock = clock
        self.reading: dict[str, Any] | None = None
        self.readings = 0
        self.applied = 0
        self.dismissed: set[str] = set()  # prompts a player declined or dismissed, until the map changes
        self.beat = Heartbeat(time.monotonic, silent_s)
        self.live = False  # the table view's sensor line: moves read by the camera, or entered by hand
        core.listeners.append(lambda _events: self.update())
        core.sensor_sources.append(self.sensors)
        core.new_game_listeners.append(self._new_game)

    @property
    def playing(self) -> bool:
        return self.core.state is not None and self.core.game.name == self.game

    def sensors(self) -> dict[str, str]:
        """The map camera's entry of the table view's sensor line (only while its game is played)."""
        return {"map_camera": "live" if self.live else "manual"} if self.playing else {}

    def _set_live(self, live: bool) -> None:
        if self.live != live:
            self.live = live
            if self.playing:
                self.core.publish_state()

    def announce(self) -> None:
        """Say on the tablets that a camera is configured but has not read the map yet."""
        if self.set_device is not None and self.playing and self.reading is None:
            self.set_device(DEVICE, False, reason="waiting for the camera's first reading of the map")

    def handle(self, msg: dict[str, Any]) -> None:
        """A `vision.regions` message (or a bare reading, or the watcher's heartbeat), or the camera's
        `vision.health` (controller/zmqin.py routes it here)."""
        if is_health(msg):
            if not msg.get("online", True):  # its stream dropped: by hand at once; its next heartbeat ends it
                self.beat.down()
                with self.core.lock:
                    self._set_live(False)
                if self.set_device is not None:
                    reason = msg.get("reason", "the camera is offline")
                    self.set_device(DEVICE, False, reason=f"{reason}; enter moves by hand", ts=self.clock())
            return
        if is_heartbeat(msg):
            if self.beat.heard(msg) and self.reading is not None:
                self._online()
            return
        self.beat.heard(msg)
        reading = msg.get("reading", msg)
        if not isinstance(reading, dict) or not isinstance(reading.get("regions"), dict):
            log.warning("vision.regions message without a reading dropped")
            return
        if msg.get("settled") is False:
            return  # only a settled map is compared with the game
        with self.core.lock:
            self.reading = reading
            self.readings += 1
            self.dismissed.clear()
            self._online()
            self.update()

    def _online(self) -> None:
        if self.reading is None:
            return
        self._set_live(True)
        if self.set_device is not None:
            status = str(self.reading.get("status"))
            self.set_device(DEVICE, True, status=status, readings=self.readings, ts=self.clock())

    def tick(self) -> None:
        """Called about ten times a second (controller/service.py): a camera process silent for
        `silent_s` is shown offline, so the players know to enter their moves by hand."""
        if self.beat.silent():
            log.warning("map camera: nothing heard for %g s; shown offline", self.beat.silent_s)
            with self.core.lock:
                self._set_live(False)
            if self.set_device is not None:
                self.set_device(
                    DEVICE,
                    False,
                    reason=f"the map camera said nothing for {self.beat.silent_s:g} s; enter moves by hand",
                    ts=self.clock(),
                )

    def _new_game(self) -> None:
        with self.core.lock:
            self.dismissed.clear()
            self.update()

    def update(self) -> None:
        core = self.core
        with core.lock:
            old = {k for k in core.prompts if k.startswith(PREFIX)}
            core.prompts = {k: p for k, p in core.prompts.items() if not k.startswith(PREFIX)}
            if self.playing and self.reading is not None:
                view = core.engine.public_view(core.state)
                t = translate(self.reading, view)
                now = view.get("active") or view.get("turn_player")
                for proposal in t.proposals:
                    self._propose(proposal, now)
                for question in t.questions:
                    self._ask(question, now)
            if old or any(k.startswith(PREFIX) for k in core.prompts):
                core.publish_prompts()

    # -- prompts -----------------------------------------------------------------------------------

    def _add(self, key: str, prompt: Prompt) -> None:
        if key not in self.dismissed:
            self.core.prompts[prompt.id] = prompt

    def _propose(self, proposal: Proposal, now: str | None) -> None:
        core = self.core
        action, player = proposal.action, proposal.player
        key = json.dumps([player, action], sort_keys=True)
        what = describe(action)
        if player != now:
            self._check(
                key,
                f"The camera sees {player}'s {what}, but it is {now}'s turn: put the pieces back as the game "
                "has them.",
            )
            return
        from rules.errors import RulesError

        try:
            core.engine.apply(core.state, {"seq": core.seq, "player": player, "action": action})
        except RulesError as exc:
            self._check(
                key,
                f"The camera sees {player}'s {what}, but the game refuses it: {exc.message} Put the pieces "
                "back as the game has them, or enter what happened by hand.",
            )
            return
        pid = _pid("move", key)
        self._add(
            key,
            Prompt(
                pid,
                "sea_camera_move",
                f"The camera sees {what}. Is that your move?",
                player,
                {
                    "action": action,
                    "options": [
                        {"id": "yes", "label": "Yes, play it", "answer": {"accept": True}},
                        {"id": "no", "label": "No, I will tap it myself", "answer": {"accept": False}},
                    ],
                },
                handler=self._confirmed(key, player, action),
            ),
        )

    def _ask(self, question: Question, now: str | None) -> None:
        if question.kind == "which-moves" and question.owner == now and question.options:
            key = json.dumps(["which", question.prompt, list(question.options)], sort_keys=True)
            options = [
                {
                    "id": str(i),
                    "label": ", ".join(f"{a} → {b}" for a, b, _ in way),
                    "answer": {"moves": [list(m) for m in way]},
                }
                for i, way in enumerate(question.options)
            ]
            pid = _pid("which", key)
            self._add(
                key,
                Prompt(
                    pid,
                    "sea_camera_which",
                    question.prompt,
                    now,
                    {"regions": list(question.regions), "options": options},
                    handler=self._which(key, now),
                ),
            )
            return
        self._check(json.dumps(["check", question.prompt]), question.prompt, list(question.regions))

    def _check(self, key: str, text: str, regions: list[str] | None = None) -> None:
        pid = _pid("check", key)
        self._add(
            key,
            Prompt(
                pid,
                "sea_camera_check",
                text,
                None,
                {
                    "regions": regions or [],
                    "options": [{"id": "ok", "label": "OK", "answer": {"dismiss": True}}],
                },
                handler=self._dismiss(key),
            ),
        )

    # -- answers -----------------------------------------------------------------------------------

    def _confirmed(
        self, key: str, player: str, action: dict[str, Any]
    ) -> Callable[[str, dict[str, Any]], None]:
        def answer(who: str, data: dict[str, Any]) -> None:
            accept = data.get("accept")
            if not isinstance(accept, bool):
                raise Refusal("invalid", 'Answer {"accept": true} to play the move, or {"accept": false}.')
            if not accept:
                self.dismissed.add(key)
                self.update()
                return
            self.core.submit(player, action)  # refused: the reply carries the engine's sentence
            self.applied += 1

        return answer

    def _which(self, key: str, player: str | None) -> Callable[[str, dict[str, Any]], None]:
        def answer(who: str, data: dict[str, Any]) -> None:
            moves = data.get("moves")
            if not isinstance(moves, list) or not all(isinstance(m, list) and len(m) == 3 for m in moves):
                raise Refusal("invalid", 'Answer with one of the ways: {"moves": [[from, to, class], ...]}.')
            by_dest: dict[str, list[list[str]]] = {}
            for m in moves:
                by_dest.setdefault(str(m[1]), []).append([str(v) for v in m])
            for dest, legs in sorted(by_dest.items()):
                self.core.submit(player or who, {"type": "move", "region": dest, "moves": legs})
                self.applied += 1

        return answer

    def _dismiss(self, key: str) -> Callable[[str, dict[str, Any]], None]:
        def answer(who: str, data: dict[str, Any]) -> None:
            self.dismissed.add(key)
            self.update()

        return answer


def reader(service: Any) -> SeaCamera:
    """The Great Sea's declaration hook: the controller's side of its camera (controller/games)."""
    mqtt = getattr(service, "mqtt", None)
    return SeaCamera(service.core, "great-sea", mqtt.set_device if mqtt is not None else None)
