"""Letters of Marque, an expansion of Dead Reckoning (rulebook rules/001: its Letters of Marque parts), one
module per section: `setup` (Preparation), `prime_cargo` (Prime Cargo, exploring, loading, the Prime
Discovery icon, using Prime Cargo), `favour` (gaining and losing Favor, its ways, Favor Rewards), `letters`
(Letters of Marque), `bounties` (Bounties), `upgrades` (New Ship Upgrades, Bolstered Outposts), with `legal`
and `views`; its components are data (`data`, rules/data/letters_of_marque/). Chosen with the game option
`{"expansions": ["letters-of-marque"]}`; `EXPANSION` is how it joins the base game (`game.game_for`).
"""

from __future__ import annotations

from typing import Any

from rules.core.state import rng_below
from rules.dead_reckoning.expansions import Expansion
from rules.dead_reckoning.letters_of_marque import (
    bounties,
    favour,
    legal,
    prime_cargo,
    setup,
    upgrades,
    views,
)
from rules.dead_reckoning.letters_of_marque.data import extend_catalog, lom_data
from rules.dead_reckoning.letters_of_marque.model import lom
from rules.dead_reckoning.model import State

__all__ = ["EXPANSION", "extend_catalog"]


def draw_chance(d: State, req: dict[str, Any]) -> dict[str, Any] | None:
    """The expansion's chance outcomes drawn from the seeded RNG (the table reports them otherwise)."""
    kind = req["kind"]
    if kind == "place_favour_rewards":
        return setup.draw_rewards(d)
    if kind == "flip_prime_cargo":
        bag = lom(d)["bag"]
        token = bag[rng_below(d, len(bag))]
        return {"type": "flip_prime_cargo", "square": req["square"], "part": req["part"], "token": token}
    if kind == "saga_die":
        # the Saga die's faces as a sample: 0, 1 and 2 alike (the rulebook text does not print the die)
        return {"type": "saga_die", "player_rolling": req["player"], "face": rng_below(d, 3)}
    return None


def chance_options(d: State, req: dict[str, Any]) -> list[dict[str, Any]] | None:
    """What a person may report for a Prime Cargo turned over (one option per kind of face-down token: type,
    reward and edge icons; tokens alike are not told apart) or a Saga die read (its three faces)."""
    kind = req["kind"]
    if kind == "flip_prime_cargo":
        tokens = lom_data().tokens
        seen: set[tuple[Any, ...]] = set()
        out: list[dict[str, Any]] = []
        for t in sorted(set(lom(d)["bag"])):
            spec = tokens[t]
            key = (spec["type"], spec["reward"], tuple(sorted(spec["edges"].items())))
            if key not in seen:
                seen.add(key)
                out.append(
                    {"type": "flip_prime_cargo", "square": req["square"], "part": req["part"], "token": t}
                )
        return out
    if kind == "saga_die":
        return [{"type": "saga_die", "player_rolling": req["player"], "face": f} for f in (0, 1, 2)]
    return None


def after_battle(d: State, player: str, a: dict[str, Any], out: list[dict[str, Any]]) -> None:
    favour.after_battle(d, player, a, out)
    bounties.after_battle(d, player, a, out)
    upgrades.drop_stale_outposts(d)


EXPANSION = Expansion(
    name="letters-of-marque",
    actions=(*setup.ACTIONS, *prime_cargo.ACTIONS, *favour.ACTIONS, *upgrades.ACTIONS),
    setup=setup.set_up,
    checks={"use_ability": upgrades.check_ability_upgrade},
    effects={
        "reveal_board": prime_cargo.after_reveal,
        "resolve_battle": after_battle,
        "use_ability": upgrades.after_ability,
        "play_card": upgrades.after_play_card,
    },
    draw_chance=draw_chance,
    legal=legal.legal,
    view=views.view,
    battle_chance=frozenset({"saga_die"}),
    chance_options=chance_options,
)
