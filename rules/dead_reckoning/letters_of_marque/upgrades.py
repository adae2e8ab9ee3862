"""New Ship Upgrades and Bolstered Outposts (rulebook: "New Ship Upgrades", "Bolstered Outposts"): the
Prime Discovery tile (an icon, `prime_cargo.discoveries_left`), the Hallowed Gun (1 Moon Salt from the Ship
to acquire it; its Battle ability drops the Saga die: `saga_die`, a chance outcome), Outposts bolstered with
1 Moon Salt (`bolster_outpost`), and a Bolstered Outpost's once-a-turn uses (turning over Prime Cargo on its
island: `discover_prime_cargo` with source `outpost`; up to 2 Prime Cargo from its island to the Harbor:
`outpost_to_harbor`).
"""

from __future__ import annotations

from typing import Any

from contracts.grid import SQUARES
from rules.core.actions import Action
from rules.core.errors import Illegal, Invalid
from rules.core.events import notice
from rules.dead_reckoning.letters_of_marque.favour import HALLOWED_GUN
from rules.dead_reckoning.letters_of_marque.model import lom, used_now, used_view
from rules.dead_reckoning.letters_of_marque.prime_cargo import discard_token, token_of_type
from rules.dead_reckoning.model import State
from rules.dead_reckoning.phases import mark_acted, need_pending, require_active


def check_ability_upgrade(d: State, player: str, norm: dict[str, Any]) -> dict[str, Any]:
    """After an ability's own check: acquiring the Hallowed Gun also costs 1 Moon Salt from the Ship."""
    for k, v in norm.items():
        if k[0] == "e" and isinstance(v, dict) and v.get("tile") == HALLOWED_GUN:
            return {**norm, "moon_salt": token_of_type(d, player, "moon_salt", {})}
    return norm


def after_ability(d: State, player: str, a: dict[str, Any], out: list[dict[str, Any]]) -> None:
    if "moon_salt" in a:
        discard_token(d, player, a["moon_salt"])
    drop_stale_outposts(d)


def drop_stale_outposts(d: State) -> None:
    """A Bolstered Outpost gone from its island (control changed hands) is no longer bolstered."""
    b = lom(d)["bolstered"]
    for sq in [s for s in b]:
        isl = d["grid"][sq]["island"]
        if isl is None or not isl["buildings"]["outpost"]:
            del b[sq]


def check_bolster(d: State, player: str, a: dict[str, Any]) -> dict[str, Any]:
    require_active(d, player, "bolster an Outpost")
    sq = a.get("square")
    if sq not in SQUARES:
        raise Invalid("name the Outpost's island ('square': r1c1..r4c3).")
    isl = d["grid"][sq]["island"]
    if isl is None or isl["controller"] != player or not isl["buildings"]["outpost"]:
        raise Illegal(f"you have no Outpost at {sq} (an island you control with an Outpost).")
    if sq in lom(d)["bolstered"]:
        raise Illegal(f"the Outpost at {sq} is already bolstered: each island has only one Outpost.")
    # "by discarding 1 Moon Salt from your Ship or Harbor on your turn"
    token = token_of_type(d, player, "moon_salt", a, harbor=True)
    return {"type": "bolster_outpost", "square": sq, "token": token}


def do_bolster(d: State, player: str, a: dict[str, Any], out: list[dict[str, Any]]) -> None:
    mark_acted(d, player)
    discard_token(d, player, a["token"])
    lom(d)["bolstered"][a["square"]] = player
    notice(out, "outpost_bolstered", player=player, square=a["square"])


def check_outpost_to_harbor(d: State, player: str, a: dict[str, Any]) -> dict[str, Any]:
    require_active(d, player, "move Prime Cargo to your Harbor")
    x = lom(d)
    sq = a.get("square")
    if not isinstance(sq, str) or sq not in SQUARES:
        raise Invalid("name the Bolstered Outpost's island ('square': r1c1..r4c3).")
    if x["bolstered"].get(sq) != player or d["grid"][sq]["island"] is None:
        raise Illegal(f"you have no Bolstered Outpost at {sq!r}.")
    isl = d["grid"][sq]["island"]
    assert isl is not None
    if isl["controller"] != player:
        raise Illegal(f"you no longer control {sq}.")
    if f"move:{sq}" in used_view(d, player)[2]:
        raise Illegal(f"the Bolstered Outpost at {sq} has already moved Prime Cargo this turn.")
    tokens = a.get("tokens")
    found = x["boards"][sq]["island"]["found"]
    if (
        not isinstance(tokens, list)
        or not all(isinstance(t, str) for t in tokens)
        or not 1 <= len(tokens) <= 2
        or len(set(tokens)) != len(tokens)
    ):
        raise Invalid("'tokens' must list 1 or 2 face-up Prime Cargo on the island.")
    for t in tokens:
        if not isinstance(t, str) or t not in found:
            raise Illegal(f"{t!r} is not face up on the island at {sq}.")
    return {"type": "outpost_to_harbor", "square": sq, "tokens": list(tokens)}


def do_outpost_to_harbor(d: State, player: str, a: dict[str, Any], out: list[dict[str, Any]]) -> None:
    mark_acted(d, player)
    x = lom(d)
    rec = used_now(d, player)
    rec[2] = [*rec[2], f"move:{a['square']}"]
    for t in a["tokens"]:
        x["boards"][a["square"]]["island"]["found"].remove(t)
        x["harbor"][player].append(t)


def has_hallowed_gun(d: State, color: str) -> bool:
    for stack in d["p"][color]["ship"]["hull"]:
        if stack and stack[-1] == HALLOWED_GUN:  # a covered tile gives nothing
            return True
    return False


def check_drop_saga_die(d: State, player: str, a: dict[str, Any]) -> dict[str, Any]:
    """The Hallowed Gun's Battle ability: "lets you drop a Saga Die into the Battle tower" (once a battle)."""
    b = d["battle"]
    if not b:
        raise Illegal("the Saga die is dropped into the tower during a battle.")
    if player not in (d["active"], b.get("defender_player")):
        raise Illegal("only a player in the battle may drop the Saga die.")
    if d["pending"]:
        raise Illegal("the table must first report the Saga die already dropped.")
    if not has_hallowed_gun(d, player):
        raise Illegal("dropping the Saga die is the Hallowed Gun's Battle ability, and your Ship has none.")
    if player in b.get("saga", {}):
        raise Illegal("the Hallowed Gun's Battle ability has been used in this battle.")
    return {"type": "drop_saga_die"}


def do_drop_saga_die(d: State, player: str, a: dict[str, Any], out: list[dict[str, Any]]) -> None:
    b = d["battle"]
    assert b is not None  # the check
    b["saga"] = {**b.get("saga", {}), player: 0}
    b["saga_base"] = {**b.get("saga_base", {}), player: _side_of(b, player)["cubes"]}
    d["pending"].append({"kind": "saga_die", "player": player})


def check_saga_die(d: State, player: str, a: dict[str, Any]) -> dict[str, Any]:
    req = need_pending(d, "saga_die")
    face = a.get("face")
    if face not in (0, 1, 2) or isinstance(face, bool):
        raise Invalid("the Saga die's 'face' is 0, 1 or 2; read the die again.")
    return {"type": "saga_die", "player_rolling": req["player"], "face": face}


def _side_of(b: dict[str, Any], color: str) -> dict[str, Any]:
    side: dict[str, Any] = b["setup"]["attacker" if b["setup"]["attacker"]["name"] == color else "defender"]
    return side


def _saga_cubes(b: dict[str, Any]) -> None:
    """The battle's setup with one more cube per Saga die rolled for a side, over the cubes the engine counted
    for it (`saga_base`: the setup is rebuilt from the state, which knows nothing of the die, when the
    defender adds a card)."""
    for color, n in b["saga"].items():
        _side_of(b, color)["cubes"] = b["saga_base"][color] + n


def do_saga_die(d: State, player: str, a: dict[str, Any], out: list[dict[str, Any]]) -> None:
    d["pending"].pop(0)
    who, face = a["player_rolling"], a["face"]
    b = d["battle"]
    assert b is not None
    # "Replace the die with a cube from your supply. You may move that cube into an adjacent zone if you
    # rolled a 1." / "If you roll a 2: Replace the die with a cube ..., move it into an adjacent zone, then
    # repeat the process of dropping a die." The cube's zone is where the camera reads it.
    b["saga"] = {**b["saga"], who: b["saga"][who] + 1}
    _saga_cubes(b)
    notice(
        out, "saga_die_rolled", player=who, face=face, may_move=face == 1, moves=face == 2, again=face == 2
    )
    notice(out, "battle_updated", setup=b["setup"])
    if face == 2:
        d["pending"].insert(0, {"kind": "saga_die", "player": who})


def after_play_card(d: State, player: str, a: dict[str, Any], out: list[dict[str, Any]]) -> None:
    """A defender's card rebuilt the battle's setup: the Saga dice's cubes go back on top of it."""
    b = d["battle"]
    if b and b.get("saga"):
        b["saga_base"] = {c: _side_of(b, c)["cubes"] for c in b["saga"]}
        _saga_cubes(b)
        notice(out, "battle_updated", setup=b["setup"])


ACTIONS: tuple[Action[State], ...] = (
    Action("bolster_outpost", check_bolster, do_bolster),
    Action("outpost_to_harbor", check_outpost_to_harbor, do_outpost_to_harbor),
    Action("drop_saga_die", check_drop_saga_die, do_drop_saga_die, undoable=False),
    Action("saga_die", check_saga_die, do_saga_die, chance=True),
)
