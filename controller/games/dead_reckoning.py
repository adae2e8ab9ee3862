"""Dead Reckoning at the table: its words (controller/words.py), its chance reported by tablets, its ships
moved by the ocean-grid camera, its expansions from the config."""

from __future__ import annotations

from typing import Any

from controller import words
from controller.games import TableGame


def new_options(table: dict[str, Any], observed: bool) -> dict[str, Any]:
    options: dict[str, Any] = {"auto_chance": False} if observed else {}
    if table.get("expansions"):
        options["expansions"] = list(table["expansions"])
    return options


def config_problem(table: dict[str, Any]) -> str | None:
    return None


GAME = TableGame(
    name="dead-reckoning",
    title="Dead Reckoning",
    decorate_public=words.decorate_public,
    decorate_private=words.decorate_private,
    decorate_prompts=words.decorate_prompts,
    decorate_events=words.decorate_events,
    # A card turned up from a row box is open; a player's own Sailor draw and Bonus tokens are theirs. No
    # camera reads a Letters of Marque Prime Cargo token or the Saga die, nor lays out Favor Rewards: open.
    open_chance=frozenset(
        {"draw_advancement", "choose_first_player", "flip_prime_cargo", "saga_die", "place_favour_rewards"}
    ),
    secret_chance=frozenset({"draw_sailors", "deal_bonus"}),
    # The Ocean board turned up where a ship explores: the camera sees it; with no camera live, a tablet.
    camera_chance=frozenset({"reveal_board"}),
    ocean_grid=True,
    new_options=new_options,
    config_problem=config_problem,
)
