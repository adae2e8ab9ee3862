"""The actions that report a chance outcome (a board flipped, a card drawn, a first player, tokens dealt).

Sent by the table (or drawn by the rules engine from its seeded generator in simulation); the controller
accepts them only from the table, never from a player's tablet.
"""

from __future__ import annotations

CHANCE_TYPES: tuple[str, ...] = (
    "reveal_board",
    "draw_advancement",
    "draw_sailors",
    "choose_first_player",
    "deal_bonus",
    # Letters of Marque: which face-down Prime Cargo token was turned over, where the Favor Rewards lie, the
    # Saga die's face (the Hallowed Gun)
    "flip_prime_cargo",
    "place_favour_rewards",
    "saga_die",
    # The Great Sea (rules/great_sea): the last Special Action Card Pile dealt 1 card to each player
    "deal_special",
)
