"""The game state container, its copy, the undo base of a turn, and the seeded RNG.

Owns the shape of `GameState` (plain JSON data under `.data`, so saving, copying and hashing are
trivial; the game's typed view of that data is its own, e.g. `rules.dead_reckoning.model`) and the
simulation RNG (splitmix64 kept as one integer in the state, never shown in a view). Holds no rule of
any game: the only things it knows of the data are the keys every game keeps (`seq`, `rng`,
`turn_base`, `turn_log`, `created`) and that each player's board under `p` has a `cards` mapping
that is copy-on-write (replaced, never edited, by the game).
"""

from __future__ import annotations

import marshal
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from rules.core.actions import Game

MASK = (1 << 64) - 1
_SHARED = ("turn_base", "created", "turn_log")


@dataclass(slots=True)
class GameState:
    """A whole game as plain data. `seq` counts accepted events; commands carry it to detect staleness."""

    data: dict[str, Any]
    # checks `legal_actions` already ran on this very state (see `Offers` below); not game data
    offers: Offers = field(default_factory=lambda: Offers(), compare=False, repr=False)
    # the game these data play (a `rules.core.actions.Game`), remembered by the facade that looked it up from
    # the options (which never change it during a game); not game data: None until looked up
    game: Game[Any] | None = field(default=None, compare=False, repr=False)

    # (each read into a typed name, not through `typing.cast`, which is a function call at run time: the
    # table and the benchmark read these for every action)
    @property
    def seq(self) -> int:
        value: int = self.data["seq"]
        return value

    @property
    def players(self) -> list[str]:
        value: list[str] = self.data["players"]
        return value

    @property
    def active(self) -> str | None:
        value: str | None = self.data["active"]
        return value

    @property
    def phase(self) -> str:
        value: str = self.data["phase"]
        return value

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
        return GameState(new, game=self.game)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, GameState):
            return False
        a, b = self.data, other.data
        if a.keys() != b.keys():
            return False
        # the turn's base is compared as data: marshal's bytes for equal data can differ in back-references
        return all(a[k] == b[k] or (k == "turn_base" and base_data(a[k]) == base_data(b[k])) for k in a)


class Offers:
    """The results of checks `legal_actions` ran on one state, for `apply` to take instead of checking again.

    Kept per state object (never in a module), keyed by the marshalled (player, action) as offered: an
    action edited after it was offered, or sent at another seq, simply misses and is checked afresh."""

    __slots__ = ("seq", "kept")

    def __init__(self) -> None:
        self.seq = -1
        self.kept: dict[bytes, dict[str, Any]] = {}

    def start(self, seq: int) -> None:
        """Called by `legal_actions`: results kept for an earlier seq of this state are dropped."""
        if seq != self.seq:
            self.kept.clear()
            self.seq = seq

    @staticmethod
    def key(player: str, action: dict[str, Any]) -> bytes:
        # marshal version 2 writes no back-references, so equal data always gives equal bytes
        return marshal.dumps((player, action), 2)

    def keep(self, player: str, action: dict[str, Any], normalized: dict[str, Any]) -> None:
        self.kept[self.key(player, action)] = normalized

    def take(self, seq: int, player: str, action: dict[str, Any]) -> dict[str, Any] | None:
        if not self.kept or seq != self.seq:
            return None
        return self.kept.pop(self.key(player, action), None)


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
# (REPLAY_TAG, previous base, the previous turn's log, seq at the turn's start, memo, depth, the game's
# refold). Taking the
# full snapshot was an eighth of a playout's work, and the base is read only on an undo or a save.
# Every REPLAY_DEPTH-th turn takes a full snapshot, so reading one folds at most that many turns.
REPLAY_TAG = "replay"
REPLAY_DEPTH = 16


Refold = Callable[[dict[str, Any], list[dict[str, Any]]], dict[str, Any]]


def next_base(d: dict[str, Any], refold: Refold) -> tuple[Any, ...]:
    """The base of a turn starting now, inside the fold of the event that starts it (`d["turn_log"]` still
    holds the turn before, that event included). Undo's invariant makes it a replay base: the previous
    base with its log folded over it is the state now (`restore_base` folds it with `refold`, the game's
    fold of one turn's events, kept in the node, when needed)."""
    prev, log = d.get("turn_base"), d.get("turn_log")
    depth = prev[5] if type(prev) is tuple and len(prev) == 7 else 0
    if prev is None or not log or depth + 1 >= REPLAY_DEPTH:
        return snapshot_base(d)
    return (REPLAY_TAG, prev, log, d["seq"], [], depth + 1, refold)


def _full_base(tb: tuple[Any, ...]) -> tuple[bytes, dict[str, Any]]:
    """The (bytes, cards) snapshot a replay base stands for, folded once and remembered in the node."""
    memo = tb[4]
    if not memo:
        d = tb[6](restore_base(tb[1]), tb[2])
        d["seq"], d["turn_base"], d["turn_log"] = tb[3], None, []
        memo.append(snapshot_base(d))
    full: tuple[bytes, dict[str, Any]] = memo[0]
    return full


def restore_base(tb: Any) -> dict[str, Any]:
    """The working data of a turn base in its in-memory form (Sailor card mappings shared, not copied)."""
    if isinstance(tb, tuple):
        if len(tb) == 7:
            tb = _full_base(tb)
        base: dict[str, Any] = marshal.loads(tb[0])
        for c, cards in tb[1].items():
            base["p"][c]["cards"] = cards
        return base
    loaded: dict[str, Any] = marshal.loads(tb)
    return loaded


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
        saved: dict[str, Any] = copy_data(d)
        return saved
    out: dict[str, Any] = copy_data({k: (None if k == "turn_base" else v) for k, v in d.items()})
    out["turn_base"] = base_data(tb)  # from the state's own base: a replay base remembers its fold
    return out


def from_saved(d: dict[str, Any]) -> dict[str, Any]:
    """The state's working form of saved data (a deep copy)."""
    out: dict[str, Any] = copy_data(d)
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


def rng_next(data: Any) -> int:
    """Advance the splitmix64 generator kept in the state (any game's data with an int "rng") and return
    64 random bits."""
    x = (data["rng"] + 0x9E3779B97F4A7C15) & MASK
    data["rng"] = x
    z: int = x
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
    return z ^ (z >> 31)


def rng_below(data: Any, n: int) -> int:
    return rng_next(data) % n


def peek_rng(seed: int) -> dict[str, int]:
    """A throwaway generator state derived from `seed`, for offers that must not advance the real one."""
    return {"rng": seed & MASK}
