"""The simulated table's hands and eyes during a battle: drops the owed cubes, reads the board, answers
prompts.

Owns the physical model of the battle board in simulation (which cube lies where), seeded: for each
drop the battle session owes, it drops the cubes through a tower (the firmware simulator when one is
attached, else a counting model), lets them land in random zones (some on a rail, some in the
exploding-shot zone, so re-drops happen), and hands the camera's reading to the battle driver; the
reading comes from rendering the scene and reading it with `vision` when a camera is attached
(`SceneCamera`), else from the model itself (`ModelCamera`). Simulated players pass their Battle
abilities or use one at random. Decides nothing about the battle: the session referees everything.
"""

from __future__ import annotations

import json
import logging
import random
from collections.abc import Callable
from typing import Any

from controller.battles import BattleDriver
from controller.core import Refusal

log = logging.getLogger(__name__)


class ModelCamera:
    """A perfect camera: the reading is the model itself (no image)."""

    name = "model"

    def read(self, cubes: list[dict[str, Any]]) -> dict[str, Any]:
        out, redrop = [], []
        for i, c in enumerate(cubes):
            on_rail = c["zone"] is None
            out.append({"color": c["color"], "zone": c["zone"], "on_rail": on_rail, "confidence": 1.0})
            if on_rail:
                redrop.append(i)
        return {"status": "redrop" if redrop else "ok", "cubes": out, "redrop": redrop, "ambiguous": []}


class SceneCamera:
    """A simulated camera: renders the board with the cubes where they lie (vision.synth) and reads the image
    with the real reader (vision.battle_board), calibrated once from a rendered swatch image
    (calibration.colors).

    `read_with_corrections` returns the reader's JSON and the corrections a player at the table makes
    for the cubes the reader flagged (ambiguous, unplaced), each matched to the rendered truth by position.
    When the reader sees a different number of cubes, or puts a cube in a wrong zone with confidence, the
    scene is rendered again (a nudge of the camera or the light); after three misses the board is read by
    hand (the rendered truth), which is logged. So the battle is always decided on what truly lies there.
    """

    name = "scene"

    def __init__(self, seed: int, size: tuple[int, int] = (1280, 720)) -> None:
        import numpy as np

        from calibration.colors import learn_palette
        from vision.battle_board.layout import default_layout
        from vision.synth.battle import random_variation, render_battle_scene, swatch_cubes

        self.np, self.render = np, render_battle_scene
        self.layout = default_layout()
        self.size = size
        self.rng = np.random.default_rng(seed)
        var = random_variation(self.rng)
        self.fixed = {k: var[k] for k in ("lighting", "art_seed", "color_jitter", "cube_seed")}
        image, _ = render_battle_scene(
            self.layout, swatch_cubes(self.layout, self.rng), self.rng, size=size, **self.fixed
        )
        self.palette = learn_palette(image, self.layout)
        self.reads = self.rereads = self.by_hand = self.misreads = self.corrected = 0
        self.reader: Any = None
        self.last_crops: list[dict[str, Any]] = []  # base64 JPEG per cube of the last reading (for prompts)

    def read_with_corrections(
        self, cubes: list[dict[str, Any]]
    ) -> tuple[dict[str, Any], list[dict[str, Any]]]:
        from vision.battle_board.reader import BoardReader
        from vision.live import crop_jpeg

        if self.reader is None:
            self.reader = BoardReader(self.layout, self.palette)
        specs = [{"color": c["color"], "zone": c["zone"]} for c in cubes]
        truth: dict[str, Any] = {}
        self.last_crops = []
        for attempt in range(3):
            image, truth = self.render(self.layout, specs, self.rng, size=self.size, **self.fixed)
            result = self.reader.read(image)
            reading = result.to_json()
            self.last_crops = [
                {"index": i, "jpeg_base64": crop_jpeg(image, c.bbox_px)} for i, c in enumerate(result.cubes)
            ]
            self.reads += 1
            if attempt:
                self.rereads += 1
            if len(reading.get("cubes", [])) == len(truth["cubes"]) and reading.get("status") != "no-board":
                # Plain JSON, as it would arrive over ZeroMQ from a vision process.
                reading = json.loads(json.dumps(reading, default=_plain))
                fixes = self._corrections(reading, truth)
                # A cube read wrong with confidence would be accepted before anyone could object (the session
                # takes a settled, consistent reading at once), so the simulated players nudge the camera and
                # look again; a cube the reader flags is corrected through the session's prompt instead.
                if not any(f.get("confident") for f in fixes):
                    self.corrected += len(fixes)
                    return reading, [{k: v for k, v in f.items() if k != "confident"} for f in fixes]
                self.misreads += 1
                continue
        self.by_hand += 1
        self.last_crops = []
        log.warning("the simulated camera misread the board 3 times; the simulated players read it by hand")
        return {k: truth[k] for k in ("status", "cubes", "counts", "redrop", "ambiguous")}, []

    def read(self, cubes: list[dict[str, Any]]) -> dict[str, Any]:
        return self.read_with_corrections(cubes)[0]

    def _corrections(self, reading: dict[str, Any], truth: dict[str, Any]) -> list[dict[str, Any]]:
        np = self.np
        out: list[dict[str, Any]] = []
        free = list(range(len(truth["cubes"])))
        for i, cube in enumerate(reading["cubes"]):
            if "center_mm" not in cube or not free:
                continue
            here = np.asarray(cube["center_mm"], float)
            j = min(
                free, key=lambda k: float(np.linalg.norm(np.asarray(truth["cubes"][k]["center_mm"]) - here))
            )
            free.remove(j)
            real = truth["cubes"][j]
            zone = None if real.get("on_rail") else real["zone"]
            read_zone = None if cube.get("on_rail") else cube.get("zone")
            unplaced = read_zone is None and not cube.get("on_rail")
            flagged = (
                i in reading.get("ambiguous", []) or float(cube.get("confidence", 1.0)) < 0.5 or unplaced
            )
            if read_zone != zone or cube["color"] != real["color"] or flagged:
                fix: dict[str, Any] = {"cube": i, "zone": zone, "confident": not flagged}
                if cube["color"] != real["color"]:
                    fix["color"] = real["color"]
                out.append(fix)
        return out


def _plain(value: Any) -> Any:
    if hasattr(value, "tolist"):
        return value.tolist()
    if isinstance(value, bytes):
        return value.decode("latin-1")
    raise TypeError(f"{type(value).__name__} is not JSON")


class _Request:
    """A REQ socket to a simulated device's control endpoint, opened on first use and dropped after a
    missed reply (a REQ socket that missed its reply cannot be reused)."""

    def __init__(self, endpoint: str, timeout_ms: int, what: str) -> None:
        import zmq

        self.endpoint, self.timeout_ms, self.what = endpoint, timeout_ms, what
        self.ctx: zmq.Context[zmq.Socket[bytes]] = zmq.Context.instance()
        self.sock: Any = None

    def request(self, message: dict[str, Any]) -> str:
        import zmq

        if self.sock is None:
            self.sock = self.ctx.socket(zmq.REQ)
            self.sock.setsockopt(zmq.LINGER, 0)
            self.sock.setsockopt(zmq.RCVTIMEO, self.timeout_ms)
            self.sock.connect(self.endpoint)
        try:
            self.sock.send_string(json.dumps(message))
            return self.sock.recv_string()
        except zmq.ZMQError as exc:
            self.sock.close()
            self.sock = None
            raise RuntimeError(f"the {self.what} at {self.endpoint} did not answer ({exc})") from None


class RemoteCamera(_Request):
    """The simulated camera in its own process (controller.simcamera): it is told where the cubes lie and
    publishes the board on ZeroMQ like the vision process; the controller gets it through its inputs."""

    name = "process"

    def __init__(self, endpoint: str, timeout_ms: int = 30000) -> None:
        super().__init__(endpoint, timeout_ms, "simulated camera")

    def photograph(self, cubes: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """Ask for a photograph of `cubes`; returns the corrections for the cubes the reader will flag."""
        reply = json.loads(self.request({"cubes": cubes}))
        if not reply.get("ok"):
            raise RuntimeError(f"the simulated camera refused: {reply.get('error')}")
        return list(reply.get("corrections", []))


class TowerControl(_Request):
    """Drops cubes through the firmware simulator (its ZeroMQ control socket); the bridge reports them."""

    def __init__(self, endpoint: str, timeout_ms: int = 15000) -> None:
        # 15 s: on a loaded 2-core host the simulator's reply took over 3 s, and a missed reply is a fallback.
        super().__init__(endpoint, timeout_ms, "firmware simulator")

    def __call__(self, colours: dict[str, int]) -> None:
        log.debug("tower sim: %s", self.request({"drop": colours}))


class SimTable:
    def __init__(
        self,
        driver: BattleDriver,
        seed: int,
        camera: Any = None,
        tower: Callable[[dict[str, int]], None] | None = None,
        rail_chance: float = 0.04,
        ability_chance: float = 0.3,
        camera_out: Callable[[dict[str, Any]], None] | None = None,
        bots: set[str] | None = None,
        hardware: bool = True,
    ) -> None:
        self.driver = driver
        self.bots = bots  # the seats whose Battle abilities this table plays; None: every seat (a demo)
        self.hardware = hardware  # False: no simulated tower or camera, only the bots' part of a battle
        self.seed = seed
        self.camera: Any = camera or ModelCamera()  # any camera above: each has read(), some more
        self.tower = tower  # drops cubes through a (simulated) tower; None: count them here
        self.camera_out = camera_out  # sends a reading the way a vision process would; None: straight in
        self.rail_chance, self.ability_chance = rail_chance, ability_chance
        self.done_key: Any = None
        self.board: list[dict[str, Any]] = []
        self.photo_at: float | None = (
            None  # when the remote camera was last asked (its reading comes by ZeroMQ)
        )
        self.pending_fixes: list[dict[str, Any]] = []
        self.drops = 0
        self.redrops = 0
        self.corrections = 0

    def _rng(self, *salt: Any) -> random.Random:
        core = self.driver.core
        return random.Random(f"{self.seed}:{core.game_seed}:{core.seq}:{self.driver.inputs}:{salt}")

    def zones(self) -> list[str]:
        return sorted(self.driver.session.record["board"]["zones"])

    def step(self) -> bool:
        """Do the next thing the battle needs. False when nothing was to be done (no battle, or waiting)."""
        session = self.driver.session
        if session is None:
            return False
        owed = session.owed
        if owed is not None and not self.hardware:
            return self._bots_enter()
        if owed is not None:
            key = self.driver.owed_key
            if key != self.done_key:
                self.done_key = key
                self.photo_at, self.pending_fixes = None, []
                self.board = self._drop(owed)
                return True
            # The camera reads once the tower has counted the whole drop (cubes land after they pass it);
            # a reading the session dropped (the tower counted again) is taken again.
            view = session.view()
            if isinstance(self.camera, RemoteCamera):
                return self._remote_step(view, owed)
            counted = view["tower_counts"] == {c: n for c, n in owed.dropped.items() if n}
            if (counted or self.driver.sensors()["tower"] == "manual") and not view["provisional"]:
                corrections: list[dict[str, Any]] = []
                if hasattr(self.camera, "read_with_corrections"):
                    reading, corrections = self.camera.read_with_corrections(self.board)
                else:
                    reading = self.camera.read(self.board)
                if self.camera_out is not None:
                    self.camera_out(reading)
                else:
                    self.driver.camera(reading, settled=True, crops=getattr(self.camera, "last_crops", None))
                self._correct(corrections)
                return True
            return False
        for prompt in session.prompts():
            if prompt.kind == "ability" and (self.bots is None or prompt.to in self.bots):
                self._ability(prompt)
                return True
        return False

    def _bots_enter(self) -> bool:
        """Without simulated hardware a bot has no hands: when only bots fight (so no person is asked), the
        drop is entered for them as the counting model lands it; otherwise the people enter it."""
        driver = self.driver
        if driver.sensors()["camera"] != "manual" or driver.entry is not None:
            return False
        if any(p not in (self.bots or set()) for p in driver._enterers()):
            return False
        key = driver.owed_key
        if key == self.done_key:
            return False
        self.done_key = key
        owed = driver.session.owed
        rng = self._rng("hand")
        cubes = [
            {"color": c, "zone": rng.choice(self.zones())}
            for c, n in sorted(owed.dropped.items())
            for _ in range(n)
        ]
        driver._accept_entry("table", cubes, confirmed_by=None)
        return True

    def _remote_step(self, view: dict[str, Any], owed: Any) -> bool:
        import time

        now = time.monotonic()
        if view["provisional"]:
            if self.pending_fixes:  # the photograph has arrived: fix what the reader flagged
                fixes, self.pending_fixes = self.pending_fixes, []
                self._correct(fixes)
                return True
            return False
        if (
            view["tower_counts"] != {c: n for c, n in owed.dropped.items() if n}
            and self.driver.sensors()["tower"] != "manual"
        ):
            # the camera looks once the tower has counted the drop (unless its counts come from the board)
            return False
        if self.photo_at is not None and now - self.photo_at < 5.0:
            return False  # the photograph is on its way over ZeroMQ
        try:
            self.pending_fixes = self.camera.photograph(self.board)
        except RuntimeError as exc:
            log.warning("%s; reading the board without it", exc)
            self.driver.camera(ModelCamera().read(self.board), settled=True)
            return True
        self.photo_at = now
        return True

    def _correct(self, fixes: list[dict[str, Any]]) -> None:
        """A player at the table fixes what the camera flagged, through the session (kept as evidence)."""
        by = self.driver.session.setup.attacker.name if self.driver.session is not None else "table"
        for fix in fixes:
            if self.driver.session is None or self.driver.session.owed is None:
                break
            try:
                self.driver.input("correct", {**fix, "by": by})
                self.corrections += 1
            except Refusal as exc:
                log.warning("simulated correction %s refused: %s", fix, exc)

    def _drop(self, owed: Any) -> list[dict[str, Any]]:
        """Drop the owed cubes: the tower counts them; returns the board as they will lie."""
        session = self.driver.session
        rng = self._rng("drop")
        steps = [s for s in session.record["steps"] if s.get("step") == "drop"]
        board = [dict(c) for c in (steps[-1]["board"] if steps else [])]
        for i in sorted(owed.cubes, reverse=True):
            if 0 <= i < len(board):
                board.pop(i)
        zones = self.zones()
        for color, n in sorted(owed.dropped.items()):
            for _ in range(n):
                zone = None if rng.random() < self.rail_chance else rng.choice(zones)
                board.append({"color": color, "zone": zone})
        rng.shuffle(board)
        self.drops += 1
        if owed.reason != "initial":
            self.redrops += 1
        log.info("battle drop %s: %s", owed.reason, dict(owed.dropped))
        sent = False
        if self.tower is not None:
            try:
                self.tower(dict(owed.dropped))  # the bridge reports the totals back through the driver
                sent = True
            except RuntimeError as exc:
                log.warning("%s; counting this drop without the tower", exc)
        if not sent and self.tower is not None:
            # The simulator did not answer: count the drop here as a hand-entered count, which the tower's
            # next heartbeat (its unchanged totals) cannot take back (the drop would then wait forever).
            self.driver.input(
                "manual_tower",
                {"counts": {c: n for c, n in owed.dropped.items() if n}, "from": "simulated table"},
            )
        elif not sent:
            base = self.driver.baseline or {}
            totals = {c: base.get(c, 0) + owed.dropped.get(c, 0) for c in set(base) | set(owed.dropped)}
            self.driver.tower_totals(totals)
        return board

    def _ability(self, prompt: Any) -> None:
        rng = self._rng("ability")
        player = prompt.to
        options = [o for o in prompt.data.get("options", []) if not o.get("needs")]
        if options and rng.random() < self.ability_chance:
            try:
                self.driver.input("use_ability", {"player": player, "ability": rng.choice(options)["id"]})
                return
            except Refusal as exc:
                log.info("simulated %s could not use an ability (%s); passing", player, exc)
        self.driver.input("pass_turn", {"player": player})
