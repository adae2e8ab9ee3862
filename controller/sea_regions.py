"""The Great Sea at the table: the camera's reading of the map (`smart-table vision regions`, the JSON of
`vision.sea_regions.reader`) turned into the engine's piece positions, compared with the engine's public
view, and the differences turned into proposals for the rules engine (moves, Forts placed, Ships
constructed) or questions for a tablet.

Owns: pure logic only (no I/O, no clock, no MQTT); the controller passes in the reading and the public
view and shows every `Question` on a tablet. Policy: only regions the camera read completely are
compared; a piece seen with less than `MIN_CONFIDENCE` counts as unread; a change the pieces cannot
explain one way only (two equally short ways to pair the Ships that left with those that arrived, a Ship
gone with none arriving) is asked, never guessed. The map's adjacency comes from the engine's map data.
"""

from __future__ import annotations

from collections import Counter, deque
from collections.abc import Mapping
from dataclasses import dataclass, field
from itertools import permutations
from typing import Any

from contracts.sea_regions import FORT_CLASSES, SHIP_CLASSES
from rules.great_sea.map import adjacency

MIN_CONFIDENCE = 0.6
# Ships that left and arrived beyond this many pairs are not paired by search (asked instead).
MAX_PAIRING = 6


@dataclass(frozen=True)
class Question:
    """Something only a player can settle. `kind`: "unread" (regions the camera could not read),
    "which-moves" (options: lists of [from, to, cls]), "unexplained" (a change with no action behind it)."""

    kind: str
    prompt: str
    options: tuple[Any, ...] = ()
    owner: str | None = None
    regions: tuple[str, ...] = ()


@dataclass(frozen=True)
class Proposal:
    """An action for the rules engine on behalf of `player` (the controller confirms it on the tablet)."""

    player: str
    action: dict[str, Any]


@dataclass
class Translation:
    positions: dict[str, dict[str, list[Any]]]  # region -> {"ships": [...], "forts": [...]} (regions read)
    unread: list[str]  # regions the camera could not read completely
    changes: list[dict[str, Any]]  # {"region", "owner", "piece", "damaged", "change": "arrived" | "left"}
    proposals: list[Proposal] = field(default_factory=list)
    questions: list[Question] = field(default_factory=list)


def positions(reading: Mapping[str, Any]) -> dict[str, dict[str, list[Any]]]:
    """The regions the camera read completely, in the engine's shape: `ships` as
    `{"owner", "cls", "damaged"}` and `forts` as `[owner, "stronghold" | "outpost"]`, sorted."""
    if reading.get("status") == "no-table":
        return {}
    out: dict[str, dict[str, list[Any]]] = {}
    for rid, reg in reading.get("regions", {}).items():
        pieces = reg.get("pieces", [])
        if not reg.get("complete", False) or any(p.get("confidence", 0) < MIN_CONFIDENCE for p in pieces):
            continue
        ships = [
            {"owner": p["owner"], "cls": p["kind"], "damaged": bool(p["damaged"])}
            for p in pieces
            if p["kind"] in SHIP_CLASSES
        ]
        forts = [[p["owner"], p["kind"]] for p in pieces if p["kind"] in FORT_CLASSES]
        out[rid] = {
            "ships": sorted(ships, key=lambda s: (s["owner"], s["cls"], s["damaged"])),
            "forts": sorted(forts),
        }
    return out


def _pieces(region: Mapping[str, Any]) -> Counter[tuple[str, str, bool]]:
    c: Counter[tuple[str, str, bool]] = Counter()
    for s in region.get("ships", []):
        c[(s["owner"], s["cls"], bool(s["damaged"]))] += 1
    for owner, cls in region.get("forts", []):
        c[(owner, cls, False)] += 1
    return c


def _distances(side: str, start: str) -> dict[str, int]:
    adj = adjacency(side)
    dist = {start: 0}
    todo = deque([start])
    while todo:
        r = todo.popleft()
        for n in adj[r]:
            if n not in dist:
                dist[n] = dist[r] + 1
                todo.append(n)
    return dist


def translate(reading: Mapping[str, Any], view: Mapping[str, Any]) -> Translation:
    """Compare a reading with the engine's public view (`rules.api.public_view`, game "great-sea").

    Ships of one owner and class that left some regions and arrived in others are paired by the
    shortest total distance and proposed as `move` actions (one per destination region: "Move any
    number of Ships into that region from any number of regions"); a tie between pairings is a
    "which-moves" question. A Fort that arrived is proposed as `fortify`, a Ship that arrived with none
    leaving as `construct` (for the turn's player only); anything else is an "unexplained" question."""
    side = str(view["map"])
    read = positions(reading)
    unread = sorted(set(view["regions"]) - set(read))
    out = Translation(read, unread, [])
    if reading.get("status") == "no-table":
        out.questions.append(Question("unread", "The camera cannot see the map: enter the change by hand."))
        return out
    if unread:
        out.questions.append(
            Question(
                "unread",
                f"The camera could not read {len(unread)} region(s): check them by hand.",
                regions=tuple(unread),
            )
        )
    left: dict[tuple[str, str, bool], list[str]] = {}
    arrived: dict[tuple[str, str, bool], list[str]] = {}
    for rid, seen in read.items():
        want, got = _pieces(view["regions"][rid]), _pieces(seen)
        for key in sorted(set(want) | set(got)):
            d = got[key] - want[key]
            for _ in range(abs(d)):
                (arrived if d > 0 else left).setdefault(key, []).append(rid)
                out.changes.append(
                    {
                        "region": rid,
                        "owner": key[0],
                        "piece": key[1],
                        "damaged": key[2],
                        "change": "arrived" if d > 0 else "left",
                    }
                )
    turn_player = view.get("turn_player")
    for key in sorted(set(left) | set(arrived)):
        owner, cls, damaged = key
        gone, came = left.get(key, []), arrived.get(key, [])
        if cls in SHIP_CLASSES and not damaged and gone and len(gone) == len(came):
            _pair_moves(out, side, owner, cls, gone, came)
        elif cls in FORT_CLASSES and came and not gone and owner == turn_player and len(came) == 1:
            out.proposals.append(Proposal(owner, {"type": "fortify", "region": came[0], "fort": cls}))
        elif cls in SHIP_CLASSES and not damaged and came and not gone and owner == turn_player:
            for rid in came:
                out.proposals.append(
                    Proposal(owner, {"type": "construct", "cls": cls, "region": rid, "discount": 0})
                )
        else:
            what = f"{'damaged ' if damaged else ''}{cls}"
            out.questions.append(
                Question(
                    "unexplained",
                    f"The camera sees {owner}'s {what} "
                    + (f"gone from {', '.join(gone)}" if gone else "")
                    + (" and " if gone and came else "")
                    + (f"new in {', '.join(came)}" if came else "")
                    + ": what happened?",
                    owner=owner,
                    regions=tuple(gone + came),
                )
            )
    return out


def _pair_moves(out: Translation, side: str, owner: str, cls: str, gone: list[str], came: list[str]) -> None:
    if len(gone) > MAX_PAIRING:
        out.questions.append(
            Question(
                "which-moves",
                f"Too many of {owner}'s {cls} Ships moved to pair: enter the moves.",
                owner=owner,
            )
        )
        return
    dist = {g: _distances(side, g) for g in set(gone)}
    best: dict[tuple[tuple[str, str], ...], int] = {}
    for perm in set(permutations(came)):
        pairs = tuple(sorted((g, c) for g, c in zip(gone, perm, strict=True)))
        best[pairs] = sum(dist[g].get(c, 99) for g, c in pairs)
    low = min(best.values())
    winners = sorted(p for p, v in best.items() if v == low)
    if len(winners) > 1:
        out.questions.append(
            Question(
                "which-moves",
                f"{owner}'s {cls} Ships moved; which went where?",
                options=tuple([[g, c, cls] for g, c in w] for w in winners),
                owner=owner,
                regions=tuple(sorted(set(gone + came))),
            )
        )
        return
    by_dest: dict[str, list[list[str]]] = {}
    for g, c in winners[0]:
        by_dest.setdefault(c, []).append([g, c, cls])
    for dest, moves in sorted(by_dest.items()):
        out.proposals.append(Proposal(owner, {"type": "move", "region": dest, "moves": moves}))
