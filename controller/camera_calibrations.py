"""The cameras' calibration files a table's config names (vision.table_calibration, vision.sea_map): each
is opened at start as its camera would open it, so a missing or unusable file is one sentence at start
(`smart-table run`, `smart-table doctor`) instead of a camera child that fails and restarts."""

from __future__ import annotations

from pathlib import Path

from controller.config import Config


def sea_side(players: int) -> str:
    """The Main Board side The Great Sea plays with this many seats ("2", "3" or "4")."""
    return str(min(4, max(2, players)))


def table_calibration(cfg: Config) -> tuple[Path | None, str | None]:
    """The usable table calibration for `vision ships-watch` (None: none configured) and, when the
    configured one cannot be used, the sentence saying why and what to do."""
    path = cfg.table_calibration_path()
    if path is None:
        return None, None
    from vision.ocean_grid.calibration import TableCalibrationError, load_table_calibration

    try:
        load_table_calibration(path)
    except TableCalibrationError as exc:
        return None, f"vision.table_calibration: {exc}"
    return path, None


def sea_map(cfg: Config) -> tuple[Path | None, str | None]:
    """The usable bare map for `vision regions-watch` of the side the seats play (None: none) and, when
    the configured one cannot be used, the sentence saying why and what to do."""
    side = sea_side(len(cfg["table"]["players"]))
    path = cfg.sea_map_path(side)
    if path is None:
        return None, None
    from vision.sea_regions.bare_map import BareMapError, load_bare_map
    from vision.sea_regions.layout import LayoutError, default_layout_path, load_sea_layout

    try:
        load_bare_map(path, load_sea_layout(default_layout_path(side)))
    except (BareMapError, LayoutError) as exc:
        return None, f"vision.sea_map: {exc}"
    return path, None
