"""Play random games through `rules.api` and print, per step, a digest of everything the facade returns.

Run under two engines (the one in this tree and a frozen copy of an earlier commit, see
test_equivalence.py) the outputs must be identical: the same states, views, events, legal actions and
refusals as JSON. Uses only the stable facade, so it runs unchanged against either engine.

    python tests/rules/core/equivalence_walk.py GAMES STEPS   # one JSON line per game on stdout
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


def walk(seed: int, steps: int) -> dict[str, object]:
    rng = random.Random(seed)
    players = COLORS[: 2 + seed % 3]
    opts = {"bonus_tokens": seed % 2 == 1}
    state, events = api.new_game_with_events(players, seed, opts)
    log = list(events)
    inplace = seed % 4 == 3
    h = hashlib.sha256()
    first_diff_marks: list[str] = []
    cut = None  # the step of the first battle lost to a Merchant (the one intended change, see the test)
    for n in range(steps):
        if api.is_over(state):
            break
        who = state.active or "table"
        acts = api.legal_actions(state, who)
        h.update(_canon(acts).encode())
        if rng.random() < 0.05 and state.active:
            action: dict[str, object] = {"type": "undo"}
        elif rng.random() < 0.03:
            action = {"type": rng.choice(["load", "move", "buy", "attack", "end_turn"]), "hold": rng.choice([0, 1, 2])}
        else:
            action = rng.choice(acts)
        try:
            state, evs = api.apply(state, {"seq": state.seq, "player": who, "action": action}, inplace=inplace)
        except api.RulesError as exc:
            h.update(_canon(["refused", exc.kind, exc.message]).encode())
            continue
        log.extend(evs)
        for e in evs:
            a = e.get("action") or {}
            if cut is None and e["type"] == "resolve_battle" and a.get("setup", {}).get("kind") == "nonplayer" \
                    and a.get("outcome", {}).get("winner") == "defender":
                cut = len(first_diff_marks)
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
    return {"seed": seed, "steps": len(first_diff_marks), "cut": cut, "over": api.is_over(state), "marks": first_diff_marks,
            "final": hashlib.sha256(_canon(saved).encode()).hexdigest(), "replay_equal": replayed == saved,
            "load_equal": loaded == saved}


def main() -> int:
    games, steps = int(sys.argv[1]), int(sys.argv[2])
    for seed in range(1, games + 1):
        print(json.dumps(walk(seed, steps)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
