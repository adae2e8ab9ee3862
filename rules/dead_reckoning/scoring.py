"""End of game and scoring (rulebook: "End of the game" and "Scoring"): Coins per player from the chest,
islands (by cube ranking), Achievements, cards and Buildings; the winner, or the tie that the physical
tie-break battle must settle. Reads the state only.
"""

from __future__ import annotations

from typing import Any

from contracts.grid import SQUARES
from rules.dead_reckoning.cards import BUILDINGS, card_icons, catalog
from rules.dead_reckoning.islands import cube_counts
from rules.dead_reckoning.model import Island, State

EMPTY = "<empty>"  # empty slots rank as a player whose points are not tracked


def island_awards(isl: Island, values: list[int]) -> dict[str, int]:
    """Coins per player for one island: majorities with ties scoring the next value down,
    no coins for a tie for 3rd, and the empty slots ranking as another player."""
    counts = cube_counts(isl)
    empty = isl["cubes"].count(None)
    if empty:
        counts[EMPTY] = empty
    ranked = sorted({n for n in counts.values() if n > 0}, reverse=True)
    awards: dict[str, int] = {}
    pos = 0
    for n in ranked:
        group = [c for c, k in counts.items() if k == n]
        value_index = pos if len(group) == 1 else pos + 1
        value = values[value_index] if value_index < len(values) else 0
        for c in group:
            if c != EMPTY and value:
                awards[c] = value
        pos += len(group)
        if pos >= len(values):
            break
    return awards


def score_game(d: State) -> dict[str, Any]:
    cat = catalog(d)
    scores: dict[str, dict[str, int]] = {}
    for color in d["players"]:
        p = d["p"][color]
        s = {
            "achievements": 0,
            "coins": p["chest"] + sum(h[1] for h in p["ship"]["holds"]),
            "buildings": 0,
            "upgrades": 0,
            "advancement_effects": 0,
            "advancements": 0,
            "islands": 0,
            "bonus_token": 0,
        }
        done = [a for a, who in d["achievements"].items() if color in who]
        s["achievements"] = sum(cat.achievements[a] for a in done)
        if p["bonus"] is not None:
            s["bonus_token"] = 2 * sum(1 for a in cat.bonus_tokens[p["bonus"]] if a in done)
        cargo_owned = p["dock"] + sum(h[0] for h in p["ship"]["holds"])
        no_cubes = 0
        for sq in SQUARES:
            isl = d["grid"][sq]["island"]
            if not isl:
                continue
            if isl["controller"] == color:
                s["coins"] += isl["coins"]
                s["buildings"] += sum(1 for b in BUILDINGS if isl["buildings"][b])
                cargo_owned += isl["cargo"]
            if color not in isl["cubes"] and not isl["permanent"].get(color):
                no_cubes += 1
        for tiles in p["ship"]["hull"]:
            for t in tiles:
                s["upgrades"] += 1 if cat.upgrades[t]["category"] == "basic" else 2
        advs = [a for c in p["cards"].values() for a in c["slots"].values() if a] + list(p["set_aside"])
        s["advancements"] = len(advs) // 2
        for card in p["cards"].values():
            icons = card_icons(cat, card)
            for a in card["slots"].values():
                for rule in cat.cards[a].get("scoring", []) if a else []:
                    s["advancement_effects"] += _score_rule(rule, icons, cargo_owned, no_cubes)
        for a in p["set_aside"]:
            for rule in cat.cards[a].get("scoring", []):
                s["advancement_effects"] += _score_rule(
                    rule, cat.cards[a].get("icons", {}), cargo_owned, no_cubes
                )
        scores[color] = s
    for sq in SQUARES:
        isl, board = d["grid"][sq]["island"], d["grid"][sq]["board"]
        if isl and board:
            for color, v in island_awards(isl, cat.boards[board]["scores"]).items():
                scores[color]["islands"] += v
    totals = {c: sum(s.values()) for c, s in scores.items()}
    best = max(totals.values())
    leaders = [c for c, t in totals.items() if t == best]
    return {
        "scores": scores,
        "totals": totals,
        "winner": leaders[0] if len(leaders) == 1 else None,
        "tie_break_needed": leaders if len(leaders) > 1 else [],
    }


def _score_rule(rule: dict[str, Any], icons: dict[str, int], cargo: int, no_cubes: int) -> int:
    kind = rule["score"]
    coins: int = rule["coins"]
    if kind == "per_cargo":
        per: int = rule["per"]
        return coins * (cargo // per)
    if kind == "per_island_without_cubes":
        return coins * no_cubes
    if kind == "per_icon":
        return coins * icons.get(rule["icon"], 0)
    return coins
