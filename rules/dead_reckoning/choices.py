"""The player's own choices where the rulebook gives one (issue 16, item 9): each is a pending choice read
from the state (`pending_choices`), answered with `choose` among the options the engine lists (legal
actions list them too), refused otherwise with a sentence that says why.

- `plunder`: what a player plundered ("These must either be placed into a hold with available capacity on
  their Ship, on the island where the battle is taking place, or discarded back to the supply"): all of it
  waits in `p["plunder"]` for the player to say where each goes whenever there is more than the supply to
  choose from (a hold with room, or the battle's island); with neither it goes back to the supply at once.
  Unanswered at the end of the active player's turn (bots, an unattended tablet): the holds with room first
  (hold 1, then hold 2), then the island if it may take it, else the supply (`settle_plunder`): what a
  player almost always wants, and the engine's placement before the players were asked.
- `owed`: a gain onto a full Ship ("if you cannot fit it onto your Ship then you either have to jettison or
  unload it (or other Cargo/Coins) to make space"), kept in `p["owed"]`: the options are the jettisons that
  make room (each taking the owed goods aboard at once) and letting the gain go back to the supply.
- `battle_cubes`: a player in a battle whose supply is short of the cubes they are owed ("you may choose to
  take fewer cubes, or you can remove non-permanent cubes from islands to make up some or all of what you
  are missing"): before the drop starts they pick the islands one cube at a time, or stop and fight with
  fewer. Unanswered, the cubes come from the islands in board order (`battles._take_island_cubes_for_battle`).
- `achievement_cube`: a Legendary, Expert Sailors or Explorer cube earned with an empty supply ("Anytime you
  need a cube but don't have any available, you may remove one of your non-permanent cubes from any
  island"), kept in `p["cubes_owed"]`: the options are each island holding one of the player's
  non-permanent cubes, the supply if a cube has come back to it since, and leaving the cube unplaced (that
  win, level or exploration then does not count toward the achievement). Unanswered at the end of the
  player's own turn it is left unplaced: taking a cube off an island can change its control and remove its
  Buildings, which the engine never does without the player saying so.
"""

from __future__ import annotations

from typing import Any

from contracts.grid import SQUARES
from rules.core.errors import Illegal, Invalid
from rules.core.events import notice
from rules.dead_reckoning.achievements import check_achievements, drop_owed_cubes
from rules.dead_reckoning.buildings import fortified_against
from rules.dead_reckoning.islands import cube_sources, island_at, recheck_control
from rules.dead_reckoning.model import State
from rules.dead_reckoning.phases import battle_players
from rules.dead_reckoning.ship import HOLD_CAP, hold_load, room_in_hold

KINDS = ("plunder", "owed", "battle_cubes", "achievement_cube")
WHAT = ("cargo", "coins")


# --- plunder that did not fit --------------------------------------------------------------------------
def leave_plunder(d: State, color: str, what: str, n: int, square: str) -> None:
    """n plundered Cargo/Coins that found no hold with room wait for `color` to place them."""
    p = d["p"][color]
    waiting = dict(p.get("plunder") or {"cargo": 0, "coins": 0, "square": square})
    waiting[what] += n
    waiting["square"] = square
    p["plunder"] = waiting


def _island_takes(d: State, color: str, square: str) -> bool:
    """The island of the battle may take plunder: there is one, and no opponent's Fort/Garrison guards it."""
    return island_at(d, square) is not None and not fortified_against(d, square, color)


def plunder_has_a_choice(d: State, color: str, square: str) -> bool:
    """There is more than the supply to put plunder in: a hold with room, or the battle's island."""
    p = d["p"][color]
    return room_in_hold(p, 0) > 0 or room_in_hold(p, 1) > 0 or _island_takes(d, color, square)


def plunder_options(d: State, color: str) -> list[dict[str, Any]]:
    """Where the waiting plunder may go now: per kind, each destination with 1 and with as many as fit."""
    waiting = d["p"][color].get("plunder")
    if not waiting:
        return []
    p = d["p"][color]
    out: list[dict[str, Any]] = []
    for what in WHAT:
        n = waiting[what]
        if not n:
            continue
        places: list[tuple[dict[str, Any], int]] = [
            ({"what": what, "to": "hold", "hold": h}, min(n, room_in_hold(p, h))) for h in (0, 1)
        ]
        if _island_takes(d, color, waiting["square"]):
            places.append(({"what": what, "to": "island"}, n))
        places.append(({"what": what, "to": "discard"}, n))
        for option, most in places:
            for count in sorted({1, most}):
                if most >= count >= 1:
                    out.append({**option, "count": count})
    return out


def check_plunder(d: State, player: str, o: dict[str, Any]) -> dict[str, Any]:
    waiting = d["p"][player].get("plunder")
    if not waiting:
        raise Illegal("you have no plunder waiting to be placed.")
    what, to, count = o.get("what"), o.get("to"), o.get("count", 1)
    if what not in WHAT:
        raise Invalid("say which plunder you place: 'what' is 'cargo' or 'coins'.")
    if to not in ("hold", "island", "discard"):
        raise Invalid("say where the plunder goes: 'to' is 'hold', 'island' or 'discard'.")
    if not isinstance(count, int) or isinstance(count, bool) or count < 1:
        raise Invalid("'count' must be a whole number, 1 or more.")
    if count > waiting[what]:
        raise Illegal(f"only {waiting[what]} {what} of your plunder wait to be placed.")
    norm: dict[str, Any] = {"what": what, "to": to, "count": count}
    if to == "hold":
        h = o.get("hold")
        if isinstance(h, bool) or h not in (0, 1):
            raise Invalid("'hold' must be 0 (the hold of 4) or 1 (the hold of 3).")
        room = room_in_hold(d["p"][player], h)
        if count > room:
            raise Illegal(
                f"hold {h + 1} has room for {room} (it takes {HOLD_CAP[h]} and holds "
                f"{hold_load(d['p'][player]['ship']['holds'][h])}): make room first, or choose the island "
                "or the supply."
            )
        norm["hold"] = h
    if to == "island" and not _island_takes(d, player, waiting["square"]):
        raise Illegal(
            "the battle's square has no island that may take your plunder (none, or an opponent's Fort or "
            "Garrison guards it): place it in a hold or discard it."
        )
    return norm


def place_plunder(d: State, player: str, o: dict[str, Any]) -> None:
    p = d["p"][player]
    waiting = p["plunder"]
    what, n = o["what"], o["count"]
    if o["to"] == "hold":
        p["ship"]["holds"][o["hold"]][0 if what == "cargo" else 1] += n
    elif o["to"] == "island":
        isl = island_at(d, waiting["square"])
        assert isl is not None  # the check allowed the island only where there is one
        if what == "cargo":
            isl["cargo"] += n
        else:
            isl["coins"] += n
    else:
        d["supply"][what] += n
    waiting[what] -= n
    if not waiting["cargo"] and not waiting["coins"]:
        del p["plunder"]


def settle_plunder(d: State, out: list[dict[str, Any]]) -> None:
    """The end of the active player's turn: plunder nobody placed goes into the holds with room (hold 1,
    then hold 2), then to the battle's island if it may take it, else back to the supply."""
    for color in d["players"]:
        waiting = d["p"][color].get("plunder")
        if not waiting:
            continue
        p = d["p"][color]
        rest = "island" if _island_takes(d, color, waiting["square"]) else "discard"
        for what in WHAT:
            for h in (0, 1):
                n = min(waiting.get(what, 0), room_in_hold(p, h))
                if n:
                    place_plunder(d, color, {"what": what, "to": "hold", "hold": h, "count": n})
                    notice(
                        out, "plunder_placed", player=color, what=what, count=n, to="hold", hold=h, auto=True
                    )
                    if not p.get("plunder"):
                        break
            waiting = p.get("plunder") or {}
            n = waiting.get(what, 0)
            if n:
                place_plunder(d, color, {"what": what, "to": rest, "count": n})
                notice(out, "plunder_placed", player=color, what=what, count=n, to=rest, auto=True)


# --- a gain that did not fit ----------------------------------------------------------------------------
def owed_options(d: State, color: str) -> list[dict[str, Any]]:
    """Letting the owed gain go; making room is a `jettison` (listed by `room_making_jettisons`)."""
    return [{"to": "discard"}] if d["p"][color].get("owed") else []


def room_making_jettisons(d: State, color: str) -> list[dict[str, Any]]:
    """The jettisons that make room for an owed gain: from each hold, 1 of what it holds, and as much as
    the gain needs."""
    p = d["p"][color]
    owed = p.get("owed")
    b = d["battle"]
    if not owed or (b and b.get("locked") and color in battle_players(d)):
        return []  # "once the battle has begun, you can no longer do this until the battle is over"
    need = owed["cargo"] + owed["coins"]
    out = []
    for h in (0, 1):
        cargo, coins = p["ship"]["holds"][h]
        for field, have in (("cargo", cargo), ("coins", coins)):
            for n in sorted({1, min(have, need)}):
                if have >= n >= 1:
                    out.append({"type": "jettison", "hold": h, "cargo": 0, "coins": 0, field: n})
    return out


def let_owed_go(d: State, player: str) -> None:
    owed = d["p"][player].pop("owed")
    d["supply"]["cargo"] += owed["cargo"]
    d["supply"]["coins"] += owed["coins"]


# --- Battle cubes from islands --------------------------------------------------------------------------
def shortfall(d: State, color: str) -> int | None:
    """How many more island cubes `color` may still choose for the battle under way (None: no such choice:
    no battle, not in it, its drop has begun, not short, or they chose to fight with fewer)."""
    b = d["battle"]
    if not b or b.get("locked") or b["kind"] == "tiebreak" or color not in battle_players(d):
        return None
    setup = b["setup"]
    side = next((s for s in (setup["attacker"], setup["defender"]) if s["name"] == color), None)
    if side is None:
        return None
    chosen = (b.get("island_cubes") or {}).get(color) or {"squares": [], "fewer": False}
    if chosen["fewer"]:
        return None
    short = side["cubes"] - d["p"][color]["cubes"] - len(chosen["squares"])
    return short if short > 0 else None


def battle_cube_options(d: State, color: str) -> list[dict[str, Any]]:
    short = shortfall(d, color)
    if short is None:
        return []
    chosen, _ = chosen_island_cubes(d, color)
    out: list[dict[str, Any]] = []
    for sq in SQUARES:
        isl = d["grid"][sq]["island"]
        if isl and isl["cubes"].count(color) > chosen.count(sq):
            out.append({"square": sq})
    out.append({"fewer": True})
    return out


def chosen_island_cubes(d: State, color: str) -> tuple[list[str], bool]:
    """The islands `color` chose Battle cubes from, in order, and whether they chose to fight with fewer."""
    b = d["battle"]
    chosen = (b.get("island_cubes") or {}).get(color) if b else None
    if not chosen:
        return [], False
    return list(chosen["squares"]), bool(chosen["fewer"])


# --- achievement cubes owed with an empty supply -------------------------------------------------------
def achievement_cube_options(d: State, color: str) -> list[dict[str, Any]]:
    """Per achievement owed a cube: each island with one of the player's non-permanent cubes (board order),
    the supply when it holds a cube again, and leaving the cube unplaced."""
    p = d["p"][color]
    owed = p.get("cubes_owed")
    if not owed:
        return []
    islands = sorted(set(cube_sources(d, color, None)), key=SQUARES.index)
    out: list[dict[str, Any]] = []
    for ach in dict.fromkeys(owed):  # each achievement once, in the order they were earned
        out += [{"achievement": ach, "square": sq} for sq in islands]
        if p["cubes"] > 0:
            out.append({"achievement": ach, "supply": True})
        out.append({"achievement": ach, "leave": True})
    return out


def check_achievement_cube(d: State, player: str, o: dict[str, Any]) -> dict[str, Any]:
    owed = d["p"][player].get("cubes_owed") or []
    ach = o.get("achievement")
    if not owed:
        raise Illegal("no achievement is owed a cube of yours: there is nothing to place.")
    if ach not in owed:
        raise Illegal(f"say which achievement the cube is for: {', '.join(dict.fromkeys(owed))}.")
    if o.get("leave") is True:
        return {"achievement": ach, "leave": True}
    if o.get("supply") is True:
        if d["p"][player]["cubes"] <= 0:
            raise Illegal("your supply has no cube: take one of your non-permanent cubes from an island.")
        return {"achievement": ach, "supply": True}
    sq = o.get("square")
    left = cube_sources(d, player, None)
    if sq not in left:
        raise Illegal(
            f"{sq!r} has none of your non-permanent cubes: choose among "
            f"{', '.join(sorted(set(left), key=SQUARES.index)) or 'none'}, or leave the cube unplaced "
            "({'leave': true})."
        )
    return {"achievement": ach, "square": sq}


def place_achievement_cube(d: State, player: str, o: dict[str, Any], out: list[dict[str, Any]]) -> None:
    p = d["p"][player]
    owed = p["cubes_owed"]
    owed.remove(o["achievement"])
    if not owed:
        del p["cubes_owed"]
    if o.get("leave"):
        notice(out, "achievement_cube_unplaced", player=player, achievement=o["achievement"])
        return
    if o.get("supply"):
        p["cubes"] -= 1
    else:
        isl = d["grid"][o["square"]]["island"]
        assert isl is not None  # the check named an island holding one of the player's cubes
        isl["cubes"][isl["cubes"].index(player)] = None
        recheck_control(d, o["square"], out)  # the island may change hands (and lose its Buildings)
    cubes = d["achievement_cubes"][o["achievement"]]
    cubes[player] = cubes.get(player, 0) + 1
    notice(
        out, "achievement_cube_placed", player=player, achievement=o["achievement"], square=o.get("square")
    )
    check_achievements(d, player, out)  # its 4th (Legendary) or last Explorer cube may complete it


def leave_owed_cubes(d: State, player: str, out: list[dict[str, Any]]) -> None:
    """The end of the player's own turn: achievement cubes still owed are left unplaced."""
    for ach in drop_owed_cubes(d, player):
        notice(out, "achievement_cube_unplaced", player=player, achievement=ach, auto=True)


# --- the action ----------------------------------------------------------------------------------------
def pending_choices(d: State, color: str) -> list[dict[str, Any]]:
    """`color`'s pending choices with their options (what a tablet shows as prompts)."""
    out: list[dict[str, Any]] = []
    if d["phase"] != "main":
        return out
    p = d["p"][color]
    if p.get("plunder"):
        waiting = p["plunder"]
        out.append(
            {
                "choice": "plunder",
                "cargo": waiting["cargo"],
                "coins": waiting["coins"],
                "square": waiting["square"],
                "options": plunder_options(d, color),
            }
        )
    if p.get("owed"):
        owed = p["owed"]
        out.append(
            {
                "choice": "owed",
                "cargo": owed["cargo"],
                "coins": owed["coins"],
                "options": owed_options(d, color),
                "jettisons": room_making_jettisons(d, color),
            }
        )
    if p.get("cubes_owed"):
        out.append(
            {
                "choice": "achievement_cube",
                "achievements": list(p["cubes_owed"]),
                "supply": p["cubes"],
                "options": achievement_cube_options(d, color),
            }
        )
    short = shortfall(d, color)
    if short is not None:
        out.append(
            {
                "choice": "battle_cubes",
                "short": short,
                "supply": p["cubes"],
                "options": battle_cube_options(d, color),
            }
        )
    return out


def choice_actions(d: State, color: str) -> list[dict[str, Any]]:
    """The `choose` actions (and the room-making jettisons) `color` may send now."""
    out: list[dict[str, Any]] = []
    for c in pending_choices(d, color):
        out += [{"type": "choose", "choice": c["choice"], "option": o} for o in c["options"]]
        out += c.get("jettisons", [])
    return out


__all__ = [
    "KINDS",
    "achievement_cube_options",
    "check_achievement_cube",
    "leave_owed_cubes",
    "place_achievement_cube",
    "check_plunder",
    "let_owed_go",
    "place_plunder",
    "shortfall",
    "battle_cube_options",
    "choice_actions",
    "chosen_island_cubes",
    "leave_plunder",
    "owed_options",
    "pending_choices",
    "plunder_has_a_choice",
    "plunder_options",
    "room_making_jettisons",
    "settle_plunder",
]
