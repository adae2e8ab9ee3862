"""The expansion's part of the state, `d["lom"]` (plain JSON data like the rest; the base game never reads
it), and small helpers every section module uses.

- `bag`: the ids of every face-down Random Prime Cargo token (the pile and those on the table: which face-down
  token is which is unknown to everyone, so the state does not say; a token's identity is drawn when it is
  turned over); `hidden_out`: how many of them lie on the table; the pile is the rest.
- `discard`: face-up discarded tokens. `boards[square][part]` (`water`, `island`): `hidden` (face-down count)
  and `found` (face-up ids). `reminders`: face-down squares holding a reminder token.
- `harbor[colour]`, `ship[colour]` (per hold): Prime Cargo ids there (the Ship's also counted in the base
  Ship's `other`, the hull spaces they take).
- `rewards[empire][space]`: the Favor Reward token on each reward space; `letters_free[empire]`: the Letter of
  Marque tokens on the board; `favour[colour][empire]`: [current, peak] (0 = the start space);
  `letters[colour]`: tokens held; `claims[colour]`: choices owed to a player (a reward to choose, a Letter to
  take, an island to seed), settled with `claim` or `decline` during their turn; `used[colour]`: [turn, Prime
  Discoveries used, outposts used: "flip:<sq>" / "move:<sq>"]; `bolstered[square]`: whose Bolstered Outpost.
"""

from __future__ import annotations

from typing import Any

from rules.core.errors import Illegal, Invalid
from rules.dead_reckoning.model import State

Lom = dict[str, Any]
PART = ("water", "island")


def lom(d: State) -> Lom:
    x: Lom = d["lom"]  # type: ignore[typeddict-item]  # the expansion's key, unknown to the base State
    return x


def pile_size(x: Lom) -> int:
    n: int = len(x["bag"]) - x["hidden_out"]
    return n


def token_field(a: dict[str, Any], key: str = "token") -> str:
    t = a.get(key)
    if not isinstance(t, str):
        raise Invalid(f"field {key!r} must name a Prime Cargo token (e.g. 'moon-salt-03'; see the view).")
    return t


def ship_tokens(x: Lom, color: str) -> list[str]:
    holds = x["ship"][color]
    out: list[str] = holds[0] + holds[1]
    return out


def find_on_ship(x: Lom, color: str, token: str) -> int:
    """The hold the token is in; refused when it is not on the player's Ship."""
    for h in (0, 1):
        if token in x["ship"][color][h]:
            return h
    raise Illegal(f"{token} is not on your Ship: only Prime Cargo on your Ship can be used.")


def sync_hull(d: State, color: str) -> None:
    """The base Ship's `other` (hull spaces taken by goods other than Cargo and Coins) from the Prime Cargo
    aboard."""
    holds = lom(d)["ship"][color]
    ship = d["p"][color]["ship"]
    if holds[0] or holds[1]:
        ship["other"] = [len(holds[0]), len(holds[1])]
    else:
        ship.pop("other", None)


def used_view(d: State, color: str) -> list[Any]:
    """This turn's record of the once-a-turn Prime Discoveries and outpost uses (a new turn starts it afresh),
    read only (checks)."""
    rec: list[Any] | None = lom(d)["used"].get(color)
    return rec if rec is not None and rec[0] == d["turn_no"] else [d["turn_no"], 0, []]


def used_now(d: State, color: str) -> list[Any]:
    """`used_view`, kept in the state to be updated (effects)."""
    u = lom(d)["used"]
    rec = used_view(d, color)
    u[color] = rec
    return rec
