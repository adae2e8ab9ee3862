"""The Great Sea at the table: its words (controller/games/great_sea_words.py), the chance a tablet may
report, no ocean-grid camera (its map is regions, not Dead Reckoning's grid: its own camera reads Ships and
Forts per region, controller/sea_camera.py), no expansions."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from controller.games import TableGame
from controller.games import great_sea_words as words


def new_options(table: dict[str, Any], observed: bool) -> dict[str, Any]:
    options: dict[str, Any] = {"game": "great-sea"}
    if observed:
        options["auto_chance"] = False
    return options


def config_problem(table: dict[str, Any]) -> str | None:
    if table.get("expansions"):
        return (
            f"table.expansions = {table['expansions']!r} are Dead Reckoning's; The Great Sea has none "
            '(set expansions = [] or game = "dead-reckoning")'
        )
    return None


def camera_watch(players: int, bare_map: Path | None = None) -> list[str]:
    """The map camera's command (`smart-table vision regions-watch`), with the shipped layout of the Main
    Board side the seats play and, where the table has one, its bare map (`calibrate sea-map`)."""
    from controller.camera_calibrations import sea_side
    from vision.sea_regions.layout import default_layout_path

    argv = ["regions-watch", "--layout", str(default_layout_path(sea_side(players)))]
    return argv + (["--bare-map", str(bare_map)] if bare_map is not None else [])


def camera_reader(service: Any) -> Any:
    from controller.sea_camera import reader

    return reader(service)


GAME = TableGame(
    name="great-sea",
    title="The Great Sea",
    decorate_public=words.decorate_public,
    decorate_private=words.decorate_private,
    decorate_prompts=words.decorate_prompts,
    decorate_events=words.decorate_events,
    # Who goes first and the deal of the last Special Action Card Pile happen in the open at the table.
    open_chance=frozenset({"choose_first_player", "deal_special"}),
    secret_chance=frozenset(),
    ocean_grid=False,
    new_options=new_options,
    config_problem=config_problem,
    camera_watch=camera_watch,
    camera_reader=camera_reader,
)
