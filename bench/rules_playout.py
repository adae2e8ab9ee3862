"""Random legal playouts of complete 4-player games: actions/s, games/s, peak memory.

    python bench/rules_playout.py [--games 20] [--seed 1] [--players 4] [--mode both|inplace|copy]
                                  [--game dead-reckoning|great-sea] [--expansion letters-of-marque]

Each action is chosen uniformly from `legal_actions` and sent through `apply` (chance and battle
records come from the seeded RNG), exactly as the controller's simulated table does. Two modes:
`copy` (the default facade: every accepted command returns a new state) and `inplace` (simulation:
the state object is updated in place). The headline is `inplace` (a playout is a simulation); both
are printed with their ratio to the 20,000 actions/s goal.
"""

from __future__ import annotations

import argparse
import random
import resource
import sys
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from rules import api  # noqa: E402

GOAL = 20_000
COLORS = ["red", "blue", "green", "yellow"]


OPTIONS: dict[str, object] | None = None  # the game options (--expansion)


def playout(
    seed: int, players: int, inplace: bool, max_actions: int = 20_000, split: bool = False, game: str = ""
) -> tuple[int, float, float]:
    """One complete game; returns (actions, CPU seconds in apply+legal_actions, seconds in legal_actions).

    Without `split` only the whole game is timed (a CPU-time read costs ~1 us, 2 % of an action), and the
    third value is 0; with `split` each legal_actions call is timed by the wall clock, for its share."""
    options = dict(OPTIONS or {})
    if game:
        options["game"] = game
    state = api.new_game(COLORS[:players], seed, options or None)
    rng = random.Random(seed)
    n = 0
    legal_s = 0.0
    clock = time.perf_counter
    t0 = time.process_time()  # CPU time of this process: the machine is shared, wall time is not ours
    while state.phase != "over" and n < max_actions:
        who = state.active or "table"
        if split:
            t = clock()
            acts = api.legal_actions(state, who)
            legal_s += clock() - t
        else:
            acts = api.legal_actions(state, who)
        state, _ = api.apply(
            state, {"seq": state.seq, "player": who, "action": rng.choice(acts)}, inplace=inplace
        )
        n += 1
    secs = time.process_time() - t0
    if state.phase != "over":
        raise SystemExit(f"game {seed} did not finish in {max_actions} actions")
    return n, secs, legal_s


def run_mode(mode: str, games: int, seed: int, players: int, game: str = "") -> dict[str, float]:
    """The rate from untimed games; legal_actions' share of the time from a second, split-timed pass."""
    actions = 0
    secs = 0.0
    for g in range(games):
        n, s, _ = playout(seed + g, players, mode == "inplace", game=game)
        actions += n
        secs += s
    t0 = time.perf_counter()
    legal = sum(playout(seed + g, players, mode == "inplace", split=True, game=game)[2] for g in range(games))
    share = legal / (time.perf_counter() - t0)
    return {
        "actions": actions,
        "secs": secs,
        "legal_share": share,
        "rate": actions / secs,
        "games_s": games / secs,
    }


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=20)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument(
        "--mode",
        choices=("both", "inplace", "copy"),
        default="both",
        help="inplace: the headline (simulation keeps one state); copy: a new state per command",
    )
    ap.add_argument("--game", choices=api.GAMES, default="dead-reckoning", help="the game played out")
    ap.add_argument(
        "--expansion", action="append", default=[], help="play Dead Reckoning with an expansion (repeatable)"
    )
    args = ap.parse_args()
    if args.expansion and args.game != "dead-reckoning":
        raise SystemExit("--expansion is Dead Reckoning's: leave out --game great-sea")
    global OPTIONS
    OPTIONS = {"expansions": args.expansion} if args.expansion else None
    game = "" if args.game == "dead-reckoning" else args.game
    modes = ("inplace", "copy") if args.mode == "both" else (args.mode,)
    print(
        f"rules playout ({args.game}): {args.games} random legal {args.players}-player games per mode"
        f"{' with ' + ', '.join(args.expansion) if args.expansion else ''}, seeds "
        f"{args.seed}.., "
        "CPU time of this process (one core)"
    )
    results = {}
    for mode in modes:
        r = results[mode] = run_mode(mode, args.games, args.seed, args.players, game)
        print(
            f"  {mode:8} actions {r['actions']:7d}  {r['rate']:9.0f} actions/s  {r['games_s']:6.2f} games/s  "
            f"{r['actions'] / args.games:6.0f} actions/game  legal_actions {100 * r['legal_share']:4.1f}% of "
            "time  "
            f"goal ratio {r['rate'] / GOAL:5.2f}"
        )
    tracemalloc.start()
    playout(args.seed, args.players, modes[0] == "inplace", game=game)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(
        f"  peak traced memory during one game ({modes[0]}) {peak / 1e6:.2f} MB; process max RSS {rss:.0f} MB"
    )
    head = modes[0]
    r = results[head]
    verdict = "met" if r["rate"] >= GOAL else "NOT met"
    print(
        f"headline ({head} mode): {r['rate']:.0f} actions/s, {r['games_s']:.2f} games/s, peak "
        f"{peak / 1e6:.2f} MB, "
        f"{r['rate'] / GOAL:.2f} x the {GOAL:,} actions/s goal: {verdict}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
