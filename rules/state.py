"""The game state container, its fast copy, the seeded RNG and small geometry helpers.

Owns the shape of `GameState` (plain JSON data under `.data`, so saving, copying and hashing are
trivial) and the simulation RNG (splitmix64 kept as one integer in the state, never shown in a view).
Must not hold rules: those live in `rules.engine`.
"""

from __future__ import annotations

import marshal
from dataclasses import dataclass
from typing import Any

ROWS = 4
COLS = 3
SQUARES = tuple(f"r{r}c{c}" for r in range(1, ROWS + 1) for c in range(1, COLS + 1))
HARBOR = "harbor"
MASK = (1 << 64) - 1
_SHARED = ("turn_base", "created", "turn_log")


@dataclass(slots=True)
class GameState:
    """A whole game as plain data. `seq` counts accepted events; commands carry it to detect staleness."""

    data: dict[str, Any]

    @property
    def seq(self) -> int:
        return self.data["seq"]

    @property
    def players(self) -> list[str]:
        return self.data["players"]

    @property
    def active(self) -> str | None:
        return self.data["active"]

    @property
    def phase(self) -> str:
        return self.data["phase"]

    def copy(self) -> GameState:
        # turn_base and created are never mutated once written, and turn_log entries are replaced rather
        # than edited, so copies share them: this halves the cost of every apply.
        # Sailor cards change only when levelled or sleeved, and those replace the player's "cards"
        # mapping before writing (copy-on-write), so copies share them as well.
        d = self.data
        top = {k: v for k, v in d.items() if k not in _SHARED}
        top["p"] = {c: {k: v for k, v in p.items() if k != "cards"} for c, p in d["p"].items()}
        new = copy_data(top)
        for c, p in d["p"].items():
            new["p"][c]["cards"] = p["cards"]
        for k in _SHARED:
            if k in d:
                new[k] = d[k]
        if "turn_log" in d:
            new["turn_log"] = list(d["turn_log"])
        return GameState(new)

    def copy_touching(self, keys: tuple[str, ...], colors: tuple[str, ...], others_flat: bool = False,
                      squares: tuple[str, ...] = (), fields: tuple[str, ...] | None = None) -> GameState:
        """A copy for an action known to change only the top-level `keys` and the players `colors` (besides
        seq, rng and the turn log): everything else is shared with this state (structural sharing). The
        engine declares those sets per action type (`engine.TOUCHES`); a test checks the old state stays
        untouched. `others_flat`: the other players' boards get a one-level copy (their own fields may be
        reassigned, nothing inside them edited). `squares`: grid squares the action may change (when "grid"
        itself is not in `keys`); the other squares are shared. `fields`: when given, only these fields of the
        actor's board (the first of `colors`) are copied deep, the rest of it one level."""
        d = self.data
        new = dict(d)
        for k in keys:
            new[k] = copy_data(d[k])
        if squares and "grid" not in keys:
            grid = new["grid"] = dict(d["grid"])
            for sq in squares:
                if sq in grid:
                    grid[sq] = copy_data(grid[sq])
        ps = new["p"] = dict(d["p"])
        if others_flat:
            for c, p in ps.items():
                ps[c] = dict(p)
        if fields is not None and colors:
            q = ps[colors[0]] = dict(d["p"][colors[0]])
            for f in fields:
                q[f] = copy_data(q[f])
            colors = colors[1:]
        for c in colors:
            p = d["p"][c]
            cards = p["cards"]
            q = copy_data({k: v for k, v in p.items() if k != "cards"})
            q["cards"] = cards
            ps[c] = q
        new["turn_log"] = list(d["turn_log"])
        return GameState(new)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, GameState):
            return False
        a, b = self.data, other.data
        if a.keys() != b.keys():
            return False
        # the turn's base is compared as data: marshal's bytes for equal data can differ in back-references
        return all(a[k] == b[k] or (k == "turn_base" and base_data(a[k]) == base_data(b[k])) for k in a)


def snapshot_base(d: dict[str, Any]) -> tuple[bytes, dict[str, Any]]:
    """The turn's starting point for undo: the state as marshal bytes (immutable, so every later state shares
    it, and half the cost of a copy: it is read back only on an undo or when saved), without the players'
    Sailor card mappings, which are kept by reference instead (copy-on-write, like `copy`: nothing edits a
    mapping in place, so the references stay the turn's starting cards; they were a third of the bytes).
    Leaves `d` as it was."""
    tb, tl = d.get("turn_base"), d.get("turn_log")
    ps = d.get("p") or {}
    cards = {c: p["cards"] for c, p in ps.items()}
    d["turn_base"], d["turn_log"] = None, []  # reassigning keeps the keys' order
    for p in ps.values():
        p["cards"] = None
    try:
        return marshal.dumps(d), cards
    finally:
        d["turn_base"], d["turn_log"] = tb, tl
        for c, p in ps.items():
            p["cards"] = cards[c]


# A turn base may also be kept as the previous turn's base plus that turn's events (a "replay base"):
# (REPLAY_TAG, previous base, the previous turn's log, seq at the turn's start, memo, depth). Taking the
# full snapshot was an eighth of a playout's work, and the base is read only on an undo or a save.
# Every REPLAY_DEPTH-th turn takes a full snapshot, so reading one folds at most that many turns.
REPLAY_TAG = "replay"
REPLAY_DEPTH = 8


def next_base(d: dict[str, Any]) -> tuple:
    """The base of a turn starting now, inside the fold of the event that starts it (`d["turn_log"]` still
    holds the turn before, that event included). Undo's invariant makes it a replay base: the previous
    base with its log folded over it is the state now (`restore_base` folds it when needed)."""
    prev, log = d.get("turn_base"), d.get("turn_log")
    depth = prev[5] if type(prev) is tuple and len(prev) == 6 else 0
    if prev is None or not log or depth + 1 >= REPLAY_DEPTH:
        return snapshot_base(d)
    return (REPLAY_TAG, prev, log, d["seq"], [], depth + 1)


def _full_base(tb: tuple) -> tuple[bytes, dict[str, Any]]:
    """The (bytes, cards) snapshot a replay base stands for, folded once and remembered in the node."""
    memo = tb[4]
    if not memo:
        from rules.engine import replay_turn  # the rules live there; state only keeps the data

        d = replay_turn(restore_base(tb[1]), tb[2])
        d["seq"], d["turn_base"], d["turn_log"] = tb[3], None, []
        memo.append(snapshot_base(d))
    return memo[0]


def restore_base(tb: Any) -> dict[str, Any]:
    """The working data of a turn base in its in-memory form (Sailor card mappings shared, not copied)."""
    if isinstance(tb, tuple):
        if len(tb) == 6:
            tb = _full_base(tb)
        base = marshal.loads(tb[0])
        for c, cards in tb[1].items():
            base["p"][c]["cards"] = cards
        return base
    return marshal.loads(tb)


def base_data(tb: Any) -> Any:
    """The turn's base as plain data (the saved-game form): a dict without a turn_base of its own."""
    if isinstance(tb, tuple):
        tb = marshal.dumps(restore_base(tb))  # a deep copy: the caller may edit it
    if isinstance(tb, bytes):
        tb = marshal.loads(tb)
        tb.pop("turn_base", None)
    return tb


def base_bytes(base: dict[str, Any]) -> bytes:
    """A turn base given as plain data (a saved game, a correction) in a form the state keeps."""
    return marshal.dumps(base)


def to_saved(d: dict[str, Any]) -> dict[str, Any]:
    """A deep copy of the state's data in its saved (JSON) form."""
    tb = d.get("turn_base")
    if not isinstance(tb, (bytes, tuple)):
        return copy_data(d)
    out = copy_data({k: (None if k == "turn_base" else v) for k, v in d.items()})
    out["turn_base"] = base_data(tb)  # from the state's own base: a replay base remembers its fold
    return out


def from_saved(d: dict[str, Any]) -> dict[str, Any]:
    """The state's working form of saved data (a deep copy)."""
    out = copy_data(d)
    if isinstance(out.get("turn_base"), dict):
        out["turn_base"] = base_bytes(out["turn_base"])
    return out


def copy_data(d: Any) -> Any:
    """Deep copy of plain JSON-like data; marshal is several times faster than copy.deepcopy."""
    return marshal.loads(marshal.dumps(d))


def plain(x: Any) -> Any:
    """JSON-normal form (tuples become lists) so a saved state loads back equal."""
    t = type(x)
    if t in _LEAVES:
        return x
    # leaves are tested inline, not by a call each: they are most of a battle record
    if t is dict or isinstance(x, dict):
        return {k: v if type(v) in _LEAVES else plain(v) for k, v in x.items()}
    if t is list or t is tuple or isinstance(x, (list, tuple)):
        return [v if type(v) in _LEAVES else plain(v) for v in x]
    return x


_LEAVES = frozenset((str, int, bool, float, type(None)))


def rng_next(data: dict[str, Any]) -> int:
    """Advance the splitmix64 generator kept in the state and return 64 random bits."""
    x = (data["rng"] + 0x9E3779B97F4A7C15) & MASK
    data["rng"] = x
    z = x
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return z ^ (z >> 31)


def rng_below(data: dict[str, Any], n: int) -> int:
    return rng_next(data) % n


def peek_rng(seed: int) -> dict[str, int]:
    """A throwaway generator state derived from `seed`, for offers that must not advance the real one."""
    return {"rng": seed & MASK}


def neighbours(square: str) -> list[str]:
    """Orthogonal neighbours; the Harbor touches the three row-1 boards."""
    got = _NEIGHBOURS.get(square)
    return list(got) if got is not None else _neighbours(square)


def _neighbours(square: str) -> list[str]:
    if square == HARBOR:
        return [f"r1c{c}" for c in range(1, COLS + 1)]
    r, c = int(square[1]), int(square[3])
    out = []
    if r == 1:
        out.append(HARBOR)
    if r > 1:
        out.append(f"r{r - 1}c{c}")
    if r < ROWS:
        out.append(f"r{r + 1}c{c}")
    if c > 1:
        out.append(f"r{r}c{c - 1}")
    if c < COLS:
        out.append(f"r{r}c{c + 1}")
    return out


def step(square: str, direction: str) -> str | None:
    """The square an open-sea arrow points at (N = toward the Harbor)."""
    r, c = int(square[1]), int(square[3])
    dr, dc = {"N": (-1, 0), "S": (1, 0), "E": (0, 1), "W": (0, -1)}[direction]
    r, c = r + dr, c + dc
    if 1 <= r <= ROWS and 1 <= c <= COLS:
        return f"r{r}c{c}"
    return None


_NEIGHBOURS: dict[str, tuple[str, ...]] = {sq: tuple(_neighbours(sq)) for sq in (HARBOR, *SQUARES)}
