"""What the tablets see of the expansion (added to the public view as `expansions["letters-of-marque"]`):
everything is public but which token an Undiscovered Prime Cargo is, which no one knows and the state does
not hold (only how many lie face down where)."""

from __future__ import annotations

from typing import Any

from rules.dead_reckoning.letters_of_marque.bounties import bounties_on
from rules.dead_reckoning.letters_of_marque.data import lom_data
from rules.dead_reckoning.letters_of_marque.model import lom, pile_size
from rules.dead_reckoning.model import State


def _token(t: str) -> dict[str, Any]:
    spec = lom_data().tokens[t]
    return {"id": t, "type": spec["type"], "reward": spec["reward"]}


def view(d: State, v: dict[str, Any]) -> None:
    x = lom(d)
    data = lom_data()
    boards = {}
    for sq, parts in x["boards"].items():
        cell = {
            part: {"undiscovered": s["hidden"], "discovered": [_token(t) for t in s["found"]]}
            for part, s in parts.items()
            if s["hidden"] or s["found"]
        }
        if cell:
            boards[sq] = cell
    v["expansions"]["letters-of-marque"] = {
        "prime_cargo": {
            "boards": boards,
            "reminders": list(x["reminders"]),
            "supply": pile_size(x),
            "discard": [_token(t) for t in x["discard"]],
        },
        "empires": {
            e: {
                "name": spec["name"],
                "wants": list(spec["wants"]),
                "track": dict(spec["track"]),
                "rewards": dict(x["rewards"][e]),
                "letters_available": list(x["letters_free"][e]),
            }
            for e, spec in sorted(data.empires.items())
        },
        "players": {
            c: {
                "favour": {e: {"current": f[0], "peak": f[1]} for e, f in x["favour"][c].items()},
                "letters": list(x["letters"][c]),
                "bounty": bounties_on(d, c),
                "ship": [[_token(t) for t in h] for h in x["ship"][c]],
                "harbor": [_token(t) for t in x["harbor"][c]],
                "claims": [dict(cl) for cl in x["claims"][c]],
            }
            for c in d["players"]
        },
        "bolstered_outposts": dict(x["bolstered"]),
    }
