"""The table's configuration: one TOML file, every option documented in deploy/smart-table.example.toml.

Owns the schema (section, key, type, default), loading and validation: an unknown key, a wrong type
or a bad value is refused at start with one sentence that names the key. Holds no behaviour.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any


class ConfigError(ValueError):
    """A config that cannot be used; the message names the key."""


# section -> key -> (type, default). Types: str, int, float, bool, list (of str).
SCHEMA: dict[str, dict[str, tuple[type, Any]]] = {
    "table": {
        "id": (str, "table-1"),
        "players": (list, ["red", "blue", "green", "yellow"]),
        "seed": (int, 1),
        "database": (str, "smart-table.db"),
        "snapshot_every": (int, 50),
        "engine": (str, "rules.api"),
        "observed_chance": (bool, False),
        "bots": (list, []),
        "bot_delay": (float, 1.5),
        "demo": (bool, False),
        "referees": (list, []),
    },
    "mqtt": {
        "host": (str, "127.0.0.1"),
        "port": (int, 1883),
        "ws_port": (int, 9001),
        "embedded": (bool, True),
        "username": (str, "controller"),
        "password": (str, ""),
        "password_file": (str, "tablets.passwd"),
        "protocol": (str, "auto"),
    },
    "display": {
        "enabled": (bool, True),
        "host": (str, "127.0.0.1"),
        "port": (int, 8080),
        "public_host": (str, ""),
    },
    "bridge": {
        "enabled": (bool, True),
        "serial_port": (str, "/dev/battle-tower"),
        "events": (str, "tcp://127.0.0.1:5556"),
        "commands": (str, "tcp://127.0.0.1:5557"),
    },
    "vision": {
        "enabled": (bool, True),
        "camera": (str, "0"),
        "palette": (str, ""),
        "ships_camera": (str, ""),
        "events": (str, "tcp://127.0.0.1:5558"),
        "ships_events": (str, "tcp://127.0.0.1:5561"),
        "layout": (str, ""),
    },
    "simulate": {
        "seed": (int, 7),
        "delay": (float, 0.05),
        "max_turns": (int, 0),
        "duration": (float, 0.0),
        "until_game_over": (bool, False),
        "tower_control": (str, ""),
        "camera": (str, "scene"),
        "camera_control": (str, "tcp://127.0.0.1:5593"),
        "rail_chance": (float, 0.04),
    },
    "tower": {
        "window": (int, 200),
        "alpha": (float, 0.01),
        "jam_timeout": (float, 3.0),
    },
    "supervisor": {
        "restart_delay": (float, 1.0),
        "max_restarts": (int, 10),
    },
}

PLAYER_COLOURS = ("red", "blue", "green", "yellow")


@dataclass
class Config:
    values: dict[str, dict[str, Any]]
    path: Path | None = None

    def __getitem__(self, section: str) -> dict[str, Any]:
        return self.values[section]

    def get(self, dotted: str) -> Any:
        section, key = dotted.split(".", 1)
        return self.values[section][key]

    def set(self, dotted: str, value: Any) -> None:
        section, key = dotted.split(".", 1)
        self.values[section][key] = value

    def database_path(self) -> Path:
        db = Path(self["table"]["database"])
        return db if db.is_absolute() or self.path is None else self.path.parent / db

    def password_file(self) -> Path:
        p = Path(self["mqtt"]["password_file"])
        return p if p.is_absolute() or self.path is None else self.path.parent / p

    def to_json(self) -> dict[str, dict[str, Any]]:
        return {s: dict(v) for s, v in self.values.items()}


def defaults() -> Config:
    return Config({s: {k: (list(d) if isinstance(d, list) else d) for k, (_t, d) in keys.items()}
                   for s, keys in SCHEMA.items()})


def load(path: str | Path | None) -> Config:
    """Defaults overlaid with the file; raises ConfigError naming the offending key."""
    cfg = defaults()
    if path is None:
        return cfg
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text())
    except FileNotFoundError:
        raise ConfigError(f"config file {path} does not exist; copy deploy/smart-table.example.toml") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"config file {path} is not valid TOML: {exc}") from None
    cfg.path = path
    for section, table in data.items():
        if section not in SCHEMA:
            raise ConfigError(f"unknown section [{section}] in {path}; known: {', '.join(SCHEMA)}")
        if not isinstance(table, dict):
            raise ConfigError(f"{section} in {path} must be a [section] table")
        for key, value in table.items():
            cfg.values[section][key] = check(section, key, value)
    validate(cfg)
    return cfg


def check(section: str, key: str, value: Any) -> Any:
    if key not in SCHEMA[section]:
        raise ConfigError(f"unknown key {section}.{key}; known keys of [{section}]: {', '.join(SCHEMA[section])}")
    typ = SCHEMA[section][key][0]
    if typ is float and isinstance(value, int) and not isinstance(value, bool):
        value = float(value)
    if typ is list:
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ConfigError(f"{section}.{key} must be a list of strings, got {value!r}")
    elif not isinstance(value, typ) or (typ is int and isinstance(value, bool)):
        raise ConfigError(f"{section}.{key} must be {typ.__name__}, got {type(value).__name__} {value!r}")
    return value


def validate(cfg: Config) -> None:
    players = cfg["table"]["players"]
    bad = [p for p in players if p not in PLAYER_COLOURS]
    if bad or not 2 <= len(players) <= 4 or len(set(players)) != len(players):
        raise ConfigError(f"table.players must be 2 to 4 different colours of {', '.join(PLAYER_COLOURS)}, got {players}")
    for key in ("mqtt.port", "mqtt.ws_port", "display.port"):
        if not 0 <= cfg.get(key) <= 65535:
            raise ConfigError(f"{key} must be a TCP port 0-65535, got {cfg.get(key)}")
    if cfg["mqtt"]["protocol"] not in ("auto", "5", "3.1.1"):
        raise ConfigError(f"mqtt.protocol must be \"auto\", \"5\" or \"3.1.1\", got {cfg['mqtt']['protocol']!r}")
    if not cfg["table"]["id"] or "/" in cfg["table"]["id"] or "+" in cfg["table"]["id"] or "#" in cfg["table"]["id"]:
        raise ConfigError(f"table.id must be a non-empty name without '/', '+' or '#', got {cfg['table']['id']!r}")
    if cfg["table"]["snapshot_every"] < 1:
        raise ConfigError("table.snapshot_every must be at least 1")
    if cfg["simulate"]["camera"] not in ("scene", "model", "process"):
        raise ConfigError("simulate.camera must be \"scene\", \"model\" or \"process\", "
                          f"got {cfg['simulate']['camera']!r}")
    if not 0 < cfg["tower"]["alpha"] < 1:
        raise ConfigError("tower.alpha must be between 0 and 1")
