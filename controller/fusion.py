"""Where the ships are: the camera's reading of the ocean grid fused with the zone sensors, and a ship's
move between two fused positions turned into a move proposal for the rules engine.

Owns: pure logic only (no I/O, no clock, no MQTT). The controller passes in the camera reading (the
`vision ships` JSON), the bridge's `zone_state` occupancy and the last known positions, and it turns
every `Question` into a tablet prompt. Must not import `rules`: squares the rules make dangerous to
cross (a Garrison) come in as `hazards`.

Policy: a position is confident when both sources agree; when they disagree, or one of them has no
answer for a ship, the player is asked (the options are what each source suggests). A source that is
switched off or unplugged (passed as None) is not "missing": the other one then works alone.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from contracts import grid
from contracts.grid import COLS, HARBOR, PLACES, ROWS, SQUARES

# A camera answer below this confidence counts as no answer.
MIN_CAMERA_CONFIDENCE = 0.6


@dataclass(frozen=True)
class Question:
    """Something only a player can settle; the controller shows it on a tablet.

    `ship` is None when the question is "which ship is this" (`options` are then ship names)."""

    # "disagree" | "camera-missing" | "sensor-missing" | "unknown-object" | "which-ship" | "which-way"
    kind: str
    prompt: str
    options: tuple[Any, ...]
    ship: str | None = None
    square: str | None = None


@dataclass(frozen=True)
class ShipFix:
    ship: str
    square: str | None  # the best answer; None when nothing suggests one
    confident: bool
    source: str  # "both" | "camera" | "sensors" | "none"


@dataclass
class Fusion:
    fixes: dict[str, ShipFix]
    questions: list[Question] = field(default_factory=list)

    @property
    def confident(self) -> bool:
        return not self.questions and all(f.confident for f in self.fixes.values())

    def positions(self) -> dict[str, str | None]:
        """Confident positions only (a ship in question is None)."""
        return {s: (f.square if f.confident else None) for s, f in self.fixes.items()}


@dataclass(frozen=True)
class Occupancy:
    """What the zone sensors say: per square occupied or not; the Harbor's slots (None if not sensed)."""

    squares: dict[str, bool]
    harbor: int | None = None  # how many Harbor slots see a ship

    @classmethod
    def from_zone_state(cls, message: Mapping[str, Any]) -> Occupancy:
        """From the bridge's `zone_state` message ({"squares": {"r1c1": true, ...}, "harbor": [...]})."""
        squares = {str(k): bool(v) for k, v in dict(message.get("squares", {})).items() if str(k) in SQUARES}
        harbor = message.get("harbor")
        count = (
            None
            if harbor is None
            else (sum(1 for h in harbor if h) if isinstance(harbor, list) else int(harbor))
        )
        return cls(squares, count)

    def occupied(self, place: str) -> bool | None:
        if place == HARBOR:
            return None if self.harbor is None else self.harbor > 0
        return self.squares.get(place)


def _camera_positions(reading: Mapping[str, Any] | None) -> dict[str, str | None] | None:
    if reading is None:
        return None
    if reading.get("status") == "no-table":
        return {str(s.get("ship")): None for s in reading.get("ships", [])}
    out: dict[str, str | None] = {}
    for s in reading.get("ships", []):
        sq = s.get("square")
        ok = sq in PLACES and float(s.get("confidence") or 0.0) >= MIN_CAMERA_CONFIDENCE
        out[str(s.get("ship"))] = sq if ok else None
    return out


def fuse_positions(
    ships: Iterable[str],
    camera: Mapping[str, Any] | None,
    sensors: Occupancy | Mapping[str, Any] | None,
    previous: Mapping[str, str | None] | None = None,
) -> Fusion:
    """Fuse one camera reading (None: camera off) and one sensor snapshot (None: sensor board unplugged)
    into a position per ship. `previous` holds the last settled positions (needed when only the
    sensors work, since they see a magnet, not which ship it is)."""
    ships = list(ships)
    previous = dict(previous or {})
    occ = sensors if isinstance(sensors, Occupancy) or sensors is None else Occupancy.from_zone_state(sensors)
    cam = _camera_positions(camera)
    if cam is None and occ is None:
        return Fusion(
            {s: ShipFix(s, previous.get(s), False, "none") for s in ships},
            [
                Question(
                    "camera-missing",
                    "Neither the camera nor the zone sensors are working: where is each ship?",
                    PLACES,
                    ship=s,
                )
                for s in ships
            ],
        )
    if occ is None:
        return _camera_only(ships, cam or {}, previous)
    if cam is None:
        return _sensors_only(ships, occ, previous)
    return _both(ships, cam, occ, previous)


def _camera_only(ships: list[str], cam: dict[str, str | None], previous: dict[str, str | None]) -> Fusion:
    fixes: dict[str, ShipFix] = {}
    questions: list[Question] = []
    for s in ships:
        sq = cam.get(s)
        if sq is not None:
            fixes[s] = ShipFix(s, sq, True, "camera")
        else:
            prev = previous.get(s)
            fixes[s] = ShipFix(s, prev, False, "none")
            questions.append(
                Question(
                    "camera-missing",
                    f"The camera cannot see the {s} ship: where is it?",
                    _options(prev),
                    ship=s,
                )
            )
    return Fusion(fixes, questions)


def _options(*first: str | None, rest: Iterable[str] = PLACES) -> tuple[str, ...]:
    """Suggested answers first, then every other place."""
    out = [p for p in first if p]
    out += [p for p in rest if p not in out]
    return tuple(dict.fromkeys(out))


def _both(
    ships: list[str], cam: dict[str, str | None], occ: Occupancy, previous: dict[str, str | None]
) -> Fusion:
    fixes: dict[str, ShipFix] = {}
    questions: list[Question] = []
    claimed: dict[str, int] = {}
    for s in ships:
        if c := cam.get(s):
            claimed[c] = claimed.get(c, 0) + 1
    unexplained = [sq for sq in SQUARES if occ.squares.get(sq) and sq not in claimed]
    harbor_extra = 0 if occ.harbor is None else max(0, occ.harbor - claimed.get(HARBOR, 0))
    for s in ships:
        sq = cam.get(s)
        prev = previous.get(s)
        if sq is None:
            # The camera has no answer: the sensors may suggest one, but a player confirms it.
            hint = prev if prev and (prev in unexplained or (prev == HARBOR and harbor_extra)) else None
            if hint is None and len(unexplained) == 1:
                hint = unexplained[0]
            fixes[s] = ShipFix(s, hint, False, "sensors" if hint else "none")
            questions.append(
                Question(
                    "camera-missing",
                    f"The camera cannot see the {s} ship"
                    + (f"; the sensors suggest {hint}" if hint else "")
                    + ": where is it?",
                    _options(hint, *unexplained, prev),
                    ship=s,
                )
            )
            continue
        seen = occ.occupied(sq)
        if seen is None:  # a place without sensors (an unsensed Harbor, a square the board lacks)
            fixes[s] = ShipFix(s, sq, True, "camera")
        elif seen and (sq != HARBOR or occ.harbor is None or occ.harbor >= claimed.get(HARBOR, 0)):
            fixes[s] = ShipFix(s, sq, True, "both")
        else:
            fixes[s] = ShipFix(s, sq, False, "camera")
            questions.append(
                Question(
                    "disagree",
                    f"The camera sees the {s} ship on {sq} but the zone sensor "
                    f"there feels nothing: where is it?",
                    _options(sq, *unexplained),
                    ship=s,
                    square=sq,
                )
            )
    # A magnet with no ship seen on it: a ship the camera missed or something else on the square.
    # (When a ship is already in question, its question offers those squares.)
    if not questions:
        for sq in unexplained:
            questions.append(
                Question(
                    "unknown-object",
                    f"The zone sensor on {sq} feels a ship the camera does not see: which ship is there?",
                    (*ships, "none"),
                    square=sq,
                )
            )
    return Fusion(fixes, questions)


def _sensors_only(ships: list[str], occ: Occupancy, previous: dict[str, str | None]) -> Fusion:
    """Sensors tell where magnets are, not whose: identities come from the last positions and are
    only confident when exactly one ship can have made the change seen."""
    fixes: dict[str, ShipFix] = {}
    questions: list[Question] = []
    before: dict[str, list[str]] = {}
    for s in ships:
        p = previous.get(s)
        if p:
            before.setdefault(p, []).append(s)
    occupied_now = {sq for sq in SQUARES if occ.squares.get(sq)}
    if occ.harbor is not None and occ.harbor > 0:
        occupied_now.add(HARBOR)
    # A place the sensors cannot feel keeps whatever was there.
    unsensed = {p for p in before if occ.occupied(p) is None}
    movers = [s for p, group in before.items() if p not in unsensed and p not in occupied_now for s in group]
    if HARBOR in before and occ.harbor is not None and 0 < occ.harbor < len(before[HARBOR]):
        harbor_leavers = len(before[HARBOR]) - occ.harbor
    else:
        harbor_leavers = 0
    new = sorted(sq for sq in occupied_now if sq not in before)
    for s in ships:
        p = previous.get(s)
        if p is None:
            fixes[s] = ShipFix(s, None, False, "none")
            questions.append(
                Question(
                    "camera-missing",
                    f"The camera is off and the {s} ship has no known position: where is it?",
                    _options(*new),
                    ship=s,
                )
            )
        elif s not in movers:
            fixes[s] = ShipFix(s, p, harbor_leavers == 0 or p != HARBOR, "sensors")
    if len(movers) == 1 and len(new) == 1 and harbor_leavers == 0:
        fixes[movers[0]] = ShipFix(movers[0], new[0], True, "sensors")
    elif movers:
        for s in movers:
            fixes[s] = ShipFix(s, None, False, "none")
            questions.append(
                Question(
                    "sensor-missing",
                    f"The {s} ship left {previous[s]}; the camera is off: where did it stop?",
                    _options(*new),
                    ship=s,
                )
            )
    elif new:
        # Nobody left a square alone: a ship left the Harbor or a shared square. Which one?
        shared = [s for p, group in before.items() if (len(group) > 1 or p == HARBOR) for s in group]
        for sq in new:
            questions.append(
                Question(
                    "which-ship",
                    f"A ship arrived on {sq}; the camera is off: which ship is it?",
                    tuple(shared) or tuple(ships),
                    square=sq,
                )
            )
        for s in shared:
            fixes[s] = ShipFix(s, previous[s], False, "sensors")
    return Fusion(fixes, questions)


# --- moves --------------------------------------------------------------------------------------


def neighbours(place: str) -> list[str]:
    """Orthogonal neighbours on the grid (contracts.grid); the Harbor touches all of row 1."""
    if place != HARBOR:
        _rc(place)  # an unknown place is refused with a sentence, not a KeyError
    return grid.neighbours(place)


def _rc(place: str) -> tuple[int, int]:
    if place not in SQUARES:
        raise ValueError(f'{place!r} is not a place on the table: use "harbor" or r1c1..r{ROWS}c{COLS}')
    r, c = place[1:].split("c")
    return int(r), int(c)


def shortest_paths(start: str, end: str) -> list[tuple[str, ...]]:
    """Every shortest orthogonal path from `start` to `end`, both included, in a stable order."""
    for p in (start, end):
        if p != HARBOR:
            _rc(p)
    dist = {start: 0}
    queue = deque([start])
    while queue:
        p = queue.popleft()
        for n in neighbours(p):
            if n not in dist:
                dist[n] = dist[p] + 1
                queue.append(n)
    paths: list[tuple[str, ...]] = []

    def walk(path: list[str]) -> None:
        here = path[-1]
        if here == start:
            paths.append(tuple(reversed(path)))
            return
        for n in neighbours(here):
            if dist.get(n) == dist[here] - 1:
                walk(path + [n])

    walk([end])
    return sorted(paths)


@dataclass(frozen=True)
class MoveProposal:
    """A ship's move between two settled positions. `path` is set when every shortest way crosses
    the same hazards; otherwise `question` asks which way (its options are paths)."""

    ship: str
    start: str
    end: str
    distance: int
    path: tuple[str, ...] | None
    crossed: tuple[str, ...]  # hazard squares entered on `path` (on every shortest path when asked)
    question: Question | None = None

    @property
    def ask(self) -> bool:
        return self.question is not None

    def action(self, chosen: tuple[str, ...] | None = None) -> dict[str, Any]:
        """The engine's move action (`{"type": "move", "path": [boards entered]}`), for `path` or for the
        way the player chose among the question's options."""
        way = chosen if chosen is not None else self.path
        if way is None:
            raise ValueError(f"the {self.ship} ship's way is in question: pass the path the player chose")
        if self.question is not None and chosen is not None and tuple(chosen) not in self.question.options:
            raise ValueError(f"{list(chosen)} is not one of the offered ways")
        return {"type": "move", "path": list(way[1:])}


def propose_move(ship: str, start: str, end: str, hazards: Iterable[str] = ()) -> MoveProposal | None:
    """The move from `start` to `end` along the shortest orthogonal path; None when the ship did not move.
    Hazard squares entered (every square after the start, the end included) decide whether the
    shortest paths are equivalent: when they differ, the player is asked which way they sailed."""
    if start == end:
        return None
    hz = set(hazards)
    paths = shortest_paths(start, end)
    by_crossing: dict[tuple[str, ...], tuple[str, ...]] = {}
    for p in paths:
        crossed = tuple(sq for sq in p[1:] if sq in hz)
        by_crossing.setdefault(crossed, p)
    if len(by_crossing) == 1:
        crossed, path = next(iter(by_crossing.items()))
        return MoveProposal(ship, start, end, len(path) - 1, path, crossed)
    options = tuple(by_crossing.values())
    common = tuple(sq for sq in options[0][1:] if sq in hz and all(sq in o for o in options))
    q = Question(
        "which-way", f"The {ship} ship sailed from {start} to {end}: which way did it go?", options, ship=ship
    )
    return MoveProposal(ship, start, end, len(options[0]) - 1, None, common, q)


def propose_moves(
    previous: Mapping[str, str | None],
    current: Mapping[str, str | None],
    hazards: Mapping[str, Iterable[str]] | Iterable[str] = (),
) -> list[MoveProposal]:
    """Proposals for every ship whose confident position changed. `hazards` is one set for all ships
    or a mapping ship -> its hazards (a Garrison hurts only other players' ships)."""
    shared = None if isinstance(hazards, Mapping) else frozenset(hazards)
    out: list[MoveProposal] = []
    for ship, end in current.items():
        start = previous.get(ship)
        if start is None or end is None:
            continue
        hz = shared if shared is not None else hazards.get(ship, ())  # type: ignore[union-attr]
        prop = propose_move(ship, start, end, hz)
        if prop is not None:
            out.append(prop)
    return out
