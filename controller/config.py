"""The table's configuration: one TOML file, every option documented in deploy/smart-table.example.toml.

Owns the schema (section, key, type, default), loading and validation: an unknown key, a wrong type
or a bad value is refused at start with one sentence that names the key. Holds no behaviour.
"""

from __future__ import annotations

import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from controller import games
from rules.dead_reckoning.expansions import EXPANSION_MODULES


class ConfigError(ValueError):
    """A config that cannot be used; the message is one line naming the file, the key and what is allowed."""


@dataclass(frozen=True)
class Range:
    """Numbers from lo to hi (either end None: open); `lo_open`: lo itself is not allowed."""

    lo: float | None = None
    hi: float | None = None
    lo_open: bool = False

    def ok(self, value: Any) -> bool:
        if self.lo is not None and (value <= self.lo if self.lo_open else value < self.lo):
            return False
        return self.hi is None or value <= self.hi

    def describe(self) -> str:
        if self.lo is not None and self.hi is not None:
            return (
                f"more than {self.lo:g} and at most {self.hi:g}"
                if self.lo_open
                else f"{self.lo:g} to {self.hi:g}"
            )
        if self.lo is not None:
            return f"{'more than' if self.lo_open else 'at least'} {self.lo:g}"
        return f"at most {self.hi:g}"


@dataclass(frozen=True)
class Rule:
    """Any other constraint on one value: a predicate and the sentence saying what is allowed."""

    predicate: Callable[[Any], bool]
    text: str

    def ok(self, value: Any) -> bool:
        return bool(self.predicate(value))

    def describe(self) -> str:
        return self.text


PORT = Range(0, 65535)
POSITIVE = Range(0, None, lo_open=True)
NOT_NEGATIVE = Range(0, None)
PROBABILITY = Range(0, 1)
# A table id is a topic level and half of every broker login (`<table>/<role>`, whitespace-free).
TOPIC_NAME = Rule(
    lambda v: bool(v) and not any(c in v for c in "/+#") and not any(c.isspace() for c in v),
    "a non-empty name without '/', '+', '#' or spaces",
)

EXPANSIONS = Rule(
    lambda v: all(x in EXPANSION_MODULES for x in v) and len(set(v)) == len(v),
    f"a list of expansions, each once, from: {', '.join(EXPANSION_MODULES)}",
)

# section -> key -> (type, default) or (type, default, allowed). Types: str, int, float, bool, list (of
# str). `allowed` is a tuple of the values allowed, a Range or a Rule; a new key is one line here (and
# its documentation in deploy/smart-table.example.toml, which a test holds to this table).
SCHEMA: dict[str, dict[str, tuple[Any, ...]]] = {
    "table": {
        "id": (str, "table-1", TOPIC_NAME),
        "players": (list, ["red", "blue", "green", "yellow"]),
        "seed": (int, 1),
        "database": (str, "smart-table.db"),
        "snapshot_every": (int, 50, Range(1, None)),
        "game": (str, games.DEFAULT, games.NAMES),
        "engine": (str, "rules.api", ("rules.api",)),
        "observed_chance": (bool, False),
        "expansions": (list, [], EXPANSIONS),
        "bots": (list, []),
        "bot_delay": (float, 1.5),
        "demo": (bool, False),
        "referees": (list, []),
        "campaign": (str, ""),
    },
    "mqtt": {
        "host": (str, "127.0.0.1"),
        "port": (int, 1883, PORT),
        "ws_port": (int, 9001, PORT),
        "embedded": (bool, True),
        "username": (str, "controller"),
        "password": (str, ""),
        "password_file": (str, "tablets.passwd"),
        "protocol": (str, "auto", ("auto", "5", "3.1.1")),
    },
    "display": {
        "enabled": (bool, True),
        "host": (str, "127.0.0.1"),
        "port": (int, 8080, PORT),
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
        "table_calibration": (str, ""),
        "sea_map": (str, ""),
    },
    "simulate": {
        "seed": (int, 7),
        "delay": (float, 0.05, NOT_NEGATIVE),
        "max_turns": (int, 0, NOT_NEGATIVE),
        "duration": (float, 0.0, NOT_NEGATIVE),
        "until_game_over": (bool, False),
        "tower_control": (str, ""),
        "camera": (str, "scene", ("scene", "model", "process")),
        "camera_control": (str, "tcp://127.0.0.1:5593"),
        "rail_chance": (float, 0.04, PROBABILITY),
    },
    "tower": {
        "window": (int, 200, Range(1, None)),
        "alpha": (float, 0.01, Range(0, 1, lo_open=True)),
        "jam_timeout": (float, 3.0, POSITIVE),
    },
    "venue": {
        "host": (str, ""),
        "port": (int, 8883, PORT),
        "username": (str, ""),
        "password": (str, ""),
        "cafile": (str, ""),
    },
    "supervisor": {
        "restart_delay": (float, 1.0, NOT_NEGATIVE),
        "max_restarts": (int, 10, NOT_NEGATIVE),
        "restart_window": (float, 600.0, POSITIVE),
    },
}

# The keys that name a file: a relative one is relative to the config file's folder (Config._beside).
PATH_KEYS = (
    "table.database",
    "mqtt.password_file",
    "vision.palette",
    "vision.layout",
    "vision.table_calibration",
    "vision.sea_map",
)

# Keys naming a camera or video source: a relative FILE (a video, an image folder) is beside the config like
# the PATH_KEYS; a device ("0", "/dev/video0"), a URL or "picamera2" is left as written.
CAMERA_KEYS = ("vision.camera", "vision.ships_camera")


def is_file_source(value: str) -> bool:
    """Whether a camera source names a file or folder (as `vision.camera_source.kind_of` reads it), not a
    device index, a device path, a stream URL or the Pi camera."""
    return not (
        value.isdigit()
        or value.startswith("/dev/")
        or "://" in value
        or value.split(":", 1)[0] == "picamera2"
    )


_TYPE_NAMES = {
    str: "a string in quotes",
    int: "a whole number",
    float: "a number",
    bool: "true or false",
    list: "a list of strings",
}


def allowed_text(section: str, key: str) -> str:
    """What a value of section.key may be, in words (for messages and `smart-table doctor`)."""
    spec = SCHEMA[section][key]
    typ, allowed = spec[0], spec[2] if len(spec) > 2 else None
    if isinstance(allowed, tuple):
        return "one of " + ", ".join(f'"{v}"' if isinstance(v, str) else repr(v) for v in allowed)
    if allowed is not None:
        text = allowed.describe()
        return text if isinstance(allowed, Rule) else f"{_TYPE_NAMES[typ]}, {text}"
    return _TYPE_NAMES[typ]


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

    def _beside(self, value: str) -> Path:
        p = Path(value)
        return p if p.is_absolute() or self.path is None else self.path.parent / p

    def palette_path(self) -> Path | None:
        """The battle board camera's colours (`calibrate colors --out`) for `vision watch`, or None."""
        value = self["vision"]["palette"]
        return self._beside(value) if value else None

    def layout_path(self) -> Path | None:
        """The battle board layout the camera reads against, or None (vision's default layout)."""
        value = self["vision"]["layout"]
        return self._beside(value) if value else None

    def camera_source(self, dotted: str) -> str:
        """A camera key's source (CAMERA_KEYS) as a child opens it from any folder: a relative video file
        or image folder beside the config, anything else (device, URL, picamera2) as written; "" unset."""
        value = str(self.get(dotted))
        return str(self._beside(value)) if value and is_file_source(value) else value

    def with_paths_resolved(self) -> Config:
        """A copy whose file keys (PATH_KEYS, and CAMERA_KEYS naming a file) name their files wherever it
        is read: for a child process, which gets the values without the config file and runs in the folder
        `smart-table run` was started in, not the config's."""
        out = Config({s: dict(v) for s, v in self.values.items()}, self.path)
        for dotted in PATH_KEYS:
            value = out.get(dotted)
            if value:
                out.set(dotted, str(self._beside(value)))
        for dotted in CAMERA_KEYS:
            out.set(dotted, self.camera_source(dotted))
        return out

    def table_calibration_path(self) -> Path | None:
        """The ocean grid's table calibration (`calibrate table --out`) for `vision ships-watch`, or None."""
        value = self["vision"]["table_calibration"]
        return self._beside(value) if value else None

    def sea_map_path(self, side: str) -> Path | None:
        """The Great Sea's bare map (`calibrate sea-map`) of Main Board side `side` for `vision
        regions-watch`: vision.sea_map, else sea-map-<side>.png beside the config where that file exists
        (where `calibrate sea-map --config` saves it), else None."""
        value = self["vision"]["sea_map"]
        if value:
            return self._beside(value)
        if self.path is None:
            return None
        default = self.path.parent / f"sea-map-{side}.png"
        return default if default.is_file() else None

    def to_json(self) -> dict[str, dict[str, Any]]:
        return {s: dict(v) for s, v in self.values.items()}


def defaults() -> Config:
    return Config(
        {
            s: {k: (list(spec[1]) if isinstance(spec[1], list) else spec[1]) for k, spec in keys.items()}
            for s, keys in SCHEMA.items()
        }
    )


def load(path: str | Path | None) -> Config:
    """Defaults overlaid with the file; raises ConfigError: one line naming the file, the key and what is
    allowed."""
    cfg = defaults()
    if path is None:
        return cfg
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text())
    except FileNotFoundError:
        raise ConfigError(
            f"config file {path} does not exist; copy deploy/smart-table.example.toml"
        ) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"config file {path} cannot be read ({exc}); check its permissions") from None
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"config file {path} is not valid TOML: {exc}") from None
    cfg.path = path
    for section, table in data.items():
        if section not in SCHEMA:
            raise ConfigError(f"{path}: unknown section [{section}]; known: {', '.join(SCHEMA)}")
        if not isinstance(table, dict):
            raise ConfigError(f"{path}: {section} must be a [{section}] table, not a single value")
        for key, value in table.items():
            cfg.values[section][key] = check(section, key, value, path)
    validate(cfg)
    return cfg


def check(section: str, key: str, value: Any, path: str | Path | None = None) -> Any:
    """The value of section.key if it is allowed (an int where a float is wanted becomes a float)."""
    where = f"{path}: " if path is not None else ""
    if section not in SCHEMA:
        raise ConfigError(f"{where}unknown section [{section}]; known: {', '.join(SCHEMA)}")
    if key not in SCHEMA[section]:
        raise ConfigError(
            f"{where}unknown key {section}.{key}; known keys of [{section}]: {', '.join(SCHEMA[section])}"
        )
    spec = SCHEMA[section][key]
    typ, allowed = spec[0], spec[2] if len(spec) > 2 else None
    if typ is float and isinstance(value, int) and not isinstance(value, bool):
        value = float(value)
    if typ is list:
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ConfigError(f"{where}{section}.{key} must be a list of strings, got {value!r}")
    elif not isinstance(value, typ) or (typ is int and isinstance(value, bool)):
        raise ConfigError(
            f"{where}{section}.{key} must be {typ.__name__} ({allowed_text(section, key)}), "
            f"got {type(value).__name__} {value!r}"
        )
    ok = value in allowed if isinstance(allowed, tuple) else (allowed is None or allowed.ok(value))
    if not ok:
        raise ConfigError(
            f"{where}{section}.{key} = {value!r} is not allowed; allowed: {allowed_text(section, key)}"
        )
    return value


def validate(cfg: Config) -> None:
    """Rules between keys, or on a whole list (each key on its own is checked by `check`)."""
    where = f"{cfg.path}: " if cfg.path is not None else ""
    players = cfg["table"]["players"]
    bad = [p for p in players if p not in PLAYER_COLOURS]
    if bad or not 2 <= len(players) <= 4 or len(set(players)) != len(players):
        raise ConfigError(
            f"{where}table.players must be 2 to 4 different colours of {', '.join(PLAYER_COLOURS)}, "
            f"got {players}"
        )
    for section, keys in SCHEMA.items():
        for key in keys:
            check(section, key, cfg.values[section][key], cfg.path)
    problem = games.by_name(cfg["table"]["game"]).config_problem(cfg["table"])
    if problem:
        raise ConfigError(f"{where}{problem}")
