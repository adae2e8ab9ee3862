"""The controller process: opens the log, resumes or starts the game, serves MQTT, listens to ZeroMQ.

Owns the wiring of one table: GameLog + TableCore + MqttLink + the ZeroMQ inputs (bridge and vision,
see docs/controller.md) + the battle driver + in simulation the simulated players. Started by the
supervisor (`smart-table run`) as `python -m controller.service --config-json -`, the effective config (with
its MQTT password) on an inherited pipe, never on the command line.
SIGTERM/SIGINT stop it cleanly (availability "offline" published); SIGKILL loses nothing accepted.
"""

from __future__ import annotations

import argparse
import json
import logging
import signal
import sys
import threading
import time
from typing import Any

import rules.api as rules_api
from controller import config as config_mod
from controller import games, towerhealth
from controller.battles import BattleDriver
from controller.core import TableCore
from controller.gamelog import GameLog
from controller.mqtt import MqttError, MqttLink
from controller.ships import ShipWatcher
from controller.simplayers import SimLimits, SimPlayers, game_over
from controller.simtable import RemoteCamera, SceneCamera, SimTable, TowerControl
from controller.towerleds import TowerLeds
from controller.zmqin import SensorWiring, ZmqInputs

log = logging.getLogger(__name__)


class ControllerService:
    def __init__(
        self,
        cfg: config_mod.Config,
        simulate: bool = False,
        limits: SimLimits | None = None,
        mqtt_enabled: bool = True,
        engine: Any = None,
    ) -> None:
        self.cfg, self.simulate = cfg, simulate
        self.limits = limits or SimLimits()
        self.stop_event = threading.Event()
        self.gamelog = GameLog(cfg.database_path(), snapshot_every=cfg["table"]["snapshot_every"])
        # The rules engine by a plain import; a test passes another engine (one without battles) explicitly.
        self.engine = engine if engine is not None else rules_api
        self.core = TableCore(self.gamelog, cfg["table"]["id"], engine=self.engine)
        players = cfg["table"]["players"]
        self.bots = (
            list(players) if cfg["table"]["demo"] else [p for p in cfg["table"]["bots"] if p in players]
        )
        # Who sits where, for the table view: the built-in player's seats and the people's.
        self.core.seats = {p: "bot" if p in self.bots else "person" for p in players}
        self.mqtt: MqttLink | None = None
        if mqtt_enabled:
            m = cfg["mqtt"]
            self.mqtt = MqttLink(
                m["host"],
                m["port"],
                m["username"] or None,
                m["password"] or None,
                table_id=cfg["table"]["id"],
                protocol=m["protocol"],
            )
            if cfg["venue"]["host"]:
                from venue.refill import TableRefill

                # The venue fills a gap longer than the bridge's queue from this table's log (docs/venue.md).
                refill = TableRefill(
                    self.gamelog,
                    cfg["table"]["id"],
                    self.mqtt.publish,
                    getattr(self.engine, "event_view", None),
                )
                self.mqtt.handlers.update(refill.handlers())
        self.sim: SimPlayers | None = None
        self.sim_thread: threading.Thread | None = None
        self.battles: BattleDriver | None = None
        self.table: SimTable | None = None
        self.inputs: ZmqInputs | None = None
        self.ships: ShipWatcher | None = None
        self.game_cameras: list[Any] = []
        self.leds: TowerLeds | None = None
        self.board_shapes: dict[str, Any] | None = None
        self.campaign: Any = None  # controller.campaign.TableCampaign when table.campaign names one
        if cfg["table"]["campaign"]:
            from controller.campaign import TableCampaign

            self.campaign = TableCampaign(
                self.core, cfg.database_path(), cfg["table"]["campaign"], players, cfg["table"]["seed"]
            )

    def open(self) -> None:
        t = self.cfg["table"]
        self.core.new_game_options = self.new_game_options
        self.core.new_game_choices = self.new_game_choices
        self.core.new_game_listeners.append(self._new_game)
        if self.campaign is not None:
            self.campaign.catch_up()  # a campaign game that ended before a stop is recorded first
        seed = self.campaign.game_seed() if self.campaign is not None else t["seed"]
        resumed = self.core.open_game(t["players"], seed, self.new_game_options(t["game"]) or None)
        if self.campaign is not None:
            self.campaign.attach()  # the campaign's game: recorded and published when it ends
        log.info(
            "%s game %s at seq %d (%d events)",
            "resumed" if resumed else "started",
            self.core.game_id,
            self.core.seq,
            self.core.n_events,
        )
        self.core.listeners.append(self._after_command)
        self._check_finished()
        if self.engine is rules_api:  # battles are refereed by rules.battle, the real engine's
            if self.cfg["bridge"]["enabled"] and self.cfg["bridge"]["commands"]:
                self.leds = TowerLeds(self.cfg["bridge"]["commands"])
            sensors = {"tower": self.cfg["bridge"]["enabled"], "camera": self.cfg["vision"]["enabled"]}
            self.battles = BattleDriver(
                self.core,
                board=self.battle_board(),
                on_resolved=self.refresh_tower_warning,
                on_change=self._battle_changed,
                sensors=sensors,
                referees=self.cfg["table"]["referees"],
                bots=self.bots,
                layout=self.board_shapes,
            )
            if self.simulate:
                # The simulated hardware lives here: a tower counted in-process (no firmware simulator
                # attached)
                # and the synthetic camera are live for as long as the controller runs.
                if not (self.cfg["simulate"]["tower_control"] and self.cfg["bridge"]["enabled"]):
                    self.battles.simulated.add("tower")
                self.battles.simulated.add("camera")
            self.battles.sync()
            # The table view says which sensors are live: the battle's two, as the driver sees them now.
            driver = self.battles
            self.core.sensor_sources.append(
                lambda: {"tower": driver.sensors()["tower"], "battle_camera": driver.sensors()["camera"]}
            )
        self.refresh_tower_warning()

    def new_game_options(self, name: str, chosen: dict[str, Any] | None = None) -> dict[str, Any]:
        """A new game's options, by the game's own declaration: the config's table section (as the new-game
        screen's `chosen` choices change it) and whether chance is observed at the table (never in
        simulation, where the engine draws it)."""
        observed = bool(self.cfg["table"]["observed_chance"]) and not self.simulate
        game = games.by_name(name)
        table = self._table_section(name)
        options: dict[str, Any] = game.new_options(game.choose(table, chosen) if chosen else table, observed)
        if self.campaign is not None and name == games.DEFAULT:
            options.update(self.campaign.options())  # the campaign's next game (docs/deep-legends.md)
        return options

    def new_game_choices(self, name: str) -> list[dict[str, Any]]:
        """What the new-game screen offers for `name` beside its name, defaulting to the table's config."""
        return games.by_name(name).new_game_choices(self._table_section(name))

    def _table_section(self, name: str) -> dict[str, Any]:
        """The config's [table] section for a game of `name` (another game's expansions left out)."""
        t: dict[str, Any] = self.cfg["table"]
        return t if name == t["game"] else {**t, "expansions": []}

    def _new_game(self) -> None:
        log.info("new game %s (%s)", self.core.game_id, self.core.game.name)
        if self.battles is not None:
            self.battles.sync()

    def _after_command(self, _events: list[dict[str, Any]]) -> None:
        self._check_finished()

    def _check_finished(self) -> None:
        if game_over(self.core.engine, self.core.state) and self.core.game_id:
            row = self.gamelog.game(self.core.game_id)
            if row is not None and row.finished is None:
                view = self.core.engine.public_view(self.core.state)
                self.gamelog.finish(self.core.game_id, view.get("scores", view))
                log.info("game %s over at seq %d", self.core.game_id, self.core.seq)

    def _battle_changed(self) -> None:
        if self.leds is not None and self.battles is not None:
            self.leds.update(self.battles.session)

    def battle_board(self) -> dict[str, Any] | None:
        """The battle board's zones as the camera reads them (the vision layout), so readings and rules
        agree."""
        from rules.battle.board import board_from_layout
        from vision.boardfile import battle_board_json

        path = self.cfg.layout_path()
        try:
            data = battle_board_json(path)
            self.board_shapes = board_shapes(data)
            return board_from_layout(data)
        except (OSError, ValueError) as exc:
            where = f"vision.layout {path}" if path else "vision's default battle board"
            raise config_mod.ConfigError(f"{where} cannot be used as the battle board ({exc})") from None

    def refresh_tower_warning(self) -> None:
        t = self.cfg["tower"]
        stats = towerhealth.compute(self.gamelog, self.core.table_id, t["window"], t["alpha"])
        with self.core.lock:
            if stats.warning != self.core.tower_warning:
                self.core.tower_warning = stats.warning
                if stats.warning:
                    log.warning("tower: %s", stats.warning)
                self.core.publish_state()

    def connect_mqtt(self, deadline_s: float = 30.0) -> None:
        if self.mqtt is None:
            return
        self.core.publisher = self.mqtt
        deadline = time.monotonic() + deadline_s
        while True:
            try:
                self.mqtt.start(self.core)
                return
            except MqttError as exc:
                if exc.refused or time.monotonic() > deadline or self.stop_event.is_set():
                    raise
                log.info("waiting for the broker: %s", exc)
                self.stop_event.wait(0.5)

    def start_inputs(self) -> None:
        endpoints = []
        if self.cfg["bridge"]["enabled"]:
            endpoints.append(self.cfg["bridge"]["events"])
        if self.cfg["vision"]["enabled"]:
            endpoints += [e for e in (self.cfg["vision"]["events"], self.cfg["vision"]["ships_events"]) if e]
            if self.engine is rules_api and not self.simulate:
                # In simulation no ship stands on the table: the simulated players move them by action.
                self.ships = ShipWatcher(self.core)
                # A game with its own table camera reads it by its declaration (controller/games).
                self.game_cameras = [g.camera_reader(self) for g in games.games().values() if g.camera_reader]
        if endpoints:
            handlers = SensorWiring(self, self.cfg["tower"]["jam_timeout"]).handlers()
            for reader in self.game_cameras:
                handlers[reader.topic] = reader.handle
            self.inputs = ZmqInputs(endpoints, handlers)
            self.inputs.start()

    def run(self) -> int:
        self.open()
        self.start_inputs()
        self.connect_mqtt()
        self.core.publish_all()
        if self.campaign is not None:
            self.campaign.publish()
        if self.cfg["vision"]["ships_camera"]:  # a table camera is configured: "waiting" until it reads
            for reader in self.game_cameras:
                reader.announce()
        if self.simulate and self.battles is not None:
            control = self.cfg["simulate"]["tower_control"]
            tower = TowerControl(control) if control and self.cfg["bridge"]["enabled"] else None
            sim = self.cfg["simulate"]
            camera: Any = None
            if sim["camera"] == "scene":
                camera = SceneCamera(sim["seed"])
            elif sim["camera"] == "process":
                camera = RemoteCamera(sim["camera_control"])
            self.table = SimTable(
                self.battles,
                sim["seed"],
                tower=tower,
                camera=camera,
                rail_chance=sim["rail_chance"],
                bots=None if self.cfg["table"]["demo"] else set(self.bots),
            )
        elif self.bots and self.battles is not None:
            # No simulated hardware: the bots only play their Battle abilities; people drop and enter the
            # cubes.
            self.table = SimTable(
                self.battles, self.cfg["simulate"]["seed"], bots=set(self.bots), hardware=False
            )
        if self.bots or self.table is not None:
            demo = self.cfg["table"]["demo"]
            # The simulated hardware steps at the simulation's pace; bots beside people act at a pace a person
            # can follow (a demo plays at the simulation's pace). With no bot it only runs the hardware.
            delay = self.cfg["simulate"]["delay"]
            self.sim = SimPlayers(
                self.core,
                self.cfg["simulate"]["seed"],
                delay,
                self.limits,
                table=self.table,
                seats=None if demo else list(self.bots),
                action_delay=delay if demo else self.cfg["table"]["bot_delay"],
            )
            self.sim_thread = threading.Thread(
                target=self.sim.run, args=(self.stop_event,), name="sim-players", daemon=True
            )
            self.sim_thread.start()
        while not self.stop_event.is_set():
            if self.battles is not None:
                self.battles.tick()
            if self.ships is not None:
                self.ships.tick()
            for reader in self.game_cameras:
                reader.tick()
            if self.sim is not None and self.sim.done.is_set():
                log.info("simulation stopped: %s (seq %d)", self.sim.reason, self.core.seq)
                if self.limits.until_game_over or self.limits.max_turns or self.limits.duration:
                    break
                self.sim = None
            self.stop_event.wait(0.1)
        self.close()
        return 0

    def close(self) -> None:
        # The simulated players write to the game log: let them finish their step before it closes.
        self.stop_event.set()
        if self.sim_thread is not None:
            self.sim_thread.join(timeout=30)
        if self.leds is not None:
            self.leds.stop()
        if self.inputs is not None:
            self.inputs.stop()
        if self.mqtt is not None:
            self.mqtt.stop()
        if self.campaign is not None:
            self.campaign.close()
        self.gamelog.close()


def board_shapes(layout: dict[str, Any]) -> dict[str, Any] | None:
    """The zones' outlines of a board layout (millimetres), for the tablets to draw the board as it is."""
    try:
        return {
            "size_mm": list(layout["size_mm"]),
            "zones": {z["id"]: [list(p) for p in z["polygon_mm"]] for z in layout["zones"]},
        }
    except (KeyError, TypeError):
        return None  # a layout without outlines: the tablets draw the zones as a grid


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m controller.service")
    parser.add_argument("--config", help="TOML config file")
    parser.add_argument(
        "--config-json",
        help="the effective config as JSON; '-': read it from stdin (the supervisor's "
        "pipe, so no password shows in the process list)",
    )
    parser.add_argument("--simulate", action="store_true")
    parser.add_argument("--max-turns", type=int, default=0)
    parser.add_argument("--duration", type=float, default=0.0)
    parser.add_argument("--until-game-over", action="store_true")
    parser.add_argument("--no-mqtt", action="store_true")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s controller %(message)s", stream=sys.stderr)
    logging.getLogger("controller.mqtt").setLevel(logging.WARNING)
    try:
        if args.config_json:
            cfg = config_mod.defaults()
            text = sys.stdin.read() if args.config_json == "-" else args.config_json
            for section, table in json.loads(text).items():
                for key, value in table.items():
                    cfg.values[section][key] = config_mod.check(section, key, value)
            config_mod.validate(cfg)
        else:
            cfg = config_mod.load(args.config)
    except config_mod.ConfigError as exc:
        print(f"controller: {exc}", file=sys.stderr)
        return 2
    limits = SimLimits(args.max_turns, args.duration, args.until_game_over)
    try:
        service = ControllerService(cfg, simulate=args.simulate, limits=limits, mqtt_enabled=not args.no_mqtt)
    except config_mod.ConfigError as exc:
        print(f"controller: {exc}", file=sys.stderr)
        return 2
    signal.signal(signal.SIGTERM, lambda *_: service.stop_event.set())
    signal.signal(signal.SIGINT, lambda *_: service.stop_event.set())
    try:
        return service.run()
    except MqttError as exc:
        print(f"controller: {exc}", file=sys.stderr)
        return 1
    except config_mod.ConfigError as exc:
        print(f"controller: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
