"""Play random games through `rules.api` and print, per step, a digest of everything the facade returns.

Run under two engines (the one in this tree and a frozen copy of an earlier commit, see
test_equivalence.py) the outputs must be identical: the same states, views, events, legal actions and
refusals as JSON. Uses only the stable facade, so it runs unchanged against either engine.

    python tests/rules/core/equivalence_walk.py GAMES STEPS [LIMITS]   # one JSON line per game on stdout

LIMITS (optional, a JSON list, one per game): stop a game once it has that many marks. The test walks this
engine first and the engine before only up to this engine's cut in each game: its marks past there are never
compared, so the comparison is the same and the older, slower engine plays a sixth of the steps.
"""

from __future__ import annotations

import hashlib
import json
import random
import sys

from rules import api

COLORS = ["red", "blue", "green", "yellow"]


def _canon(x: object) -> str:
    return json.dumps(x, sort_keys=True, separators=(",", ":"))


EXPLORER_NEEDED = {
    2: 5,
    3: 4,
    4: 3,
}  # "2-player game: 5 spaces; 3-player game: 4 spaces; 4-player game: 3 spaces"


def fixed_rule_applies(data: dict) -> bool:  # type: ignore[type-arg]
    """True from the first state where a rulebook fix of issue #16 makes the two engines differ by design
    (seen from the state alone, so both engines compute it alike; the test cuts at the earlier of the two).

    - Deviation 5 (Buildings removed whenever control passes to another player): an island with Buildings
      and no controller (whose Buildings now stay with the player who built them; the engine before kept
      no owner, so a later controller inherited them).
    - Deviation 6 (Explorer cubes return "If it is no longer possible to meet the requirements"): a player
      holds Explorer cubes while fewer boards are face down than they still need. This engine returns them
      the moment the board is turned; the engine before waited for that player's next check.
    - Deviation 2 (a Merchant's Win onto a full Ship): Cargo/Coins owed to a player (`owed`), which the engine
      before returned to the supply.
    - Item 7 (the end-of-game tie played out): a tie at the end, which the engine before only reported.
    - Item 9 (the player's own choices): plunder waiting to be placed, or a battle side short of cubes (a
      pending choice the legal actions offer); or the active player close to running out of cubes (3 or
      fewer, the most one Influence places) with non-permanent cubes on two islands or more: an Influence
      ability is then offered once per island its first cube could be taken back from.
    """
    if any("owed" in p for p in data["p"].values()):
        return True
    if data["phase"] == "tiebreak" or (data.get("scores") or {}).get("tie_break_needed"):
        return True  # items 7-8: a tie is played out as a battle; the engine before only reported it
    if any("plunder" in p for p in data["p"].values()):
        return True  # item 9: plunder that did not fit waits for its owner (before: the island or the supply)
    battle = data.get("battle")
    if battle and battle.get("kind") != "tiebreak":
        for side in (battle["setup"]["attacker"], battle["setup"]["defender"]):
            if side["is_player"] and side["cubes"] > data["p"][side["name"]]["cubes"]:
                return True  # item 9: short of Battle cubes, the player chooses the islands (or fewer)
    active = data.get("active")
    if active in data["p"] and data["p"][active]["cubes"] <= 3:
        sources = [c for c in data["grid"].values() if c.get("island") and active in c["island"]["cubes"]]
        if len(sources) > 1:
            return True  # item 9: which island's cube Influence takes back ("from any island")
    need = EXPLORER_NEEDED[len(data["players"])]
    face_down = sum(1 for cell in data["grid"].values() if cell["board"] is None)
    for color, mine in data["achievement_cubes"]["explorer"].items():
        if mine and color not in data["achievements"]["explorer"] and need - mine > face_down:
            return True
    for cell in data["grid"].values():
        isl = cell.get("island")
        if isl and isl["controller"] is None and any(isl["buildings"].values()):
            return True
    return False


def walk(seed: int, steps: int, limit: int | None = None) -> dict[str, object]:
    rng = random.Random(seed)
    players = COLORS[: 2 + seed % 3]
    opts = {"bonus_tokens": seed % 2 == 1}
    state, events = api.new_game_with_events(players, seed, opts)
    log = list(events)
    inplace = seed % 4 == 3
    h = hashlib.sha256()
    first_diff_marks: list[str] = []
    # the step where an intended change first applies (a battle lost to a Merchant, fixed_rule_applies)
    cut = None
    for n in range(steps):
        if api.is_over(state) or (limit is not None and len(first_diff_marks) >= limit):
            break
        who = state.active or "table"
        acts = api.legal_actions(state, who)
        if cut is None:
            h.update(_canon(acts).encode())
        if rng.random() < 0.05 and state.active:
            action: dict[str, object] = {"type": "undo"}
        elif rng.random() < 0.03:
            action = {
                "type": rng.choice(["load", "move", "buy", "attack", "end_turn"]),
                "hold": rng.choice([0, 1, 2]),
            }
        else:
            action = rng.choice(acts)
        try:
            state, evs = api.apply(
                state, {"seq": state.seq, "player": who, "action": action}, inplace=inplace
            )
        except api.RulesError as exc:
            h.update(_canon(["refused", exc.kind, exc.message]).encode())
            continue
        log.extend(evs)
        for e in evs:
            a = e.get("action") or {}
            if (
                cut is None
                and e["type"] == "resolve_battle"
                and a.get("setup", {}).get("kind") == "nonplayer"
                and a.get("outcome", {}).get("winner") == "defender"
            ):
                cut = len(first_diff_marks)
        if cut is None and fixed_rule_applies(api.state_to_json(state)["data"]):
            cut = len(first_diff_marks)
        if cut is not None:
            # marks past this engine's cut are never compared (the test cuts at the earlier of the two);
            # the game still plays on to its end, for the replay and load checks below
            first_diff_marks.append("-")
            continue
        h.update(_canon(evs).encode())
        for e in evs:
            h.update(_canon([api.event_view(e, p) for p in (None, *players)]).encode())
        h.update(_canon(api.public_view(state)).encode())
        for p in players:
            h.update(_canon(api.private_view(state, p)).encode())
            if p != who:
                h.update(_canon(api.legal_actions(state, p)).encode())
        if n % 7 == 0:
            h.update(_canon(api.state_to_json(state)).encode())
        first_diff_marks.append(h.hexdigest()[:12])
    saved = api.state_to_json(state)
    replayed = api.state_to_json(api.replay(log))
    loaded = api.state_to_json(api.state_from_json(json.loads(_canon(saved))))
    return {
        "seed": seed,
        "steps": len(first_diff_marks),
        "cut": cut,
        "over": api.is_over(state),
        "marks": first_diff_marks,
        "final": hashlib.sha256(_canon(saved).encode()).hexdigest(),
        "replay_equal": replayed == saved,
        "load_equal": loaded == saved,
    }


def main() -> int:
    games, steps = int(sys.argv[1]), int(sys.argv[2])
    limits = json.loads(sys.argv[3]) if len(sys.argv) > 3 else [None] * games
    for seed in range(1, games + 1):
        print(json.dumps(walk(seed, steps, limits[seed - 1])), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
