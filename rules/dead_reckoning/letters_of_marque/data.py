"""The expansion's printed components as data (rules/data/letters_of_marque/*.json, a sample set: the
rulebook text does not print them): the Random Prime Cargo tokens, the two Empire boards with their Letter
of Marque tokens and the 14 Favor Reward tokens, the Explorer Sailor card, the 16 Trade vessel cards and the
new Ship Upgrade tiles; `extend_catalog` adds the last three to the base game's catalogue.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass, replace
from importlib import resources
from typing import Any

from rules.dead_reckoning.cards import CardFileError, Catalog

TYPES = ("dragonfish", "moon_salt", "black_pearls")
REWARDS = ("draw", "cargo", "sail", "attack_flag", "repair", "produce", "influence", "cannon")
EDGE_DIRS = ("N", "S", "E", "W", "any")
REWARD_KINDS = ("gain", "draw", "repair", "choice", "upgrade", "upgrade_tile", "level_up", "building")
EXPLORER = "explorer"


@dataclass(frozen=True)
class LomData:
    names: dict[str, str]  # Prime Cargo type -> its printed name
    tokens: dict[str, dict[str, Any]]  # token id -> {type, reward, edges}
    empires: dict[str, dict[str, Any]]  # empire id -> {name, wants, track, letters}
    letters: dict[str, dict[str, Any]]  # letter id -> {empire, name, icons}
    rewards: dict[str, dict[str, Any]]  # Favor Reward token id -> what it grants
    cards: dict[str, Any]  # explorer, trade_vessels, upgrades


def _read(name: str) -> Any:
    text = resources.files("rules.data").joinpath(f"letters_of_marque/{name}").read_text(encoding="utf-8")
    return json.loads(text)


def _fail(where: str, what: str) -> CardFileError:
    return CardFileError(f"letters_of_marque/{where}: {what}; fix the file and load it again.")


def _check_reward(rid: str, r: dict[str, Any], top: bool = True) -> None:
    kinds = [k for k in r if k != "id"]
    if len(kinds) != 1 or kinds[0] not in REWARD_KINDS:
        raise _fail("empires.json", f"reward {rid!r} must grant exactly one of {', '.join(REWARD_KINDS)}")
    if kinds[0] == "choice":
        if not top or not isinstance(r["choice"], list) or len(r["choice"]) < 2:
            raise _fail("empires.json", f"reward {rid!r}: a choice lists 2 or more plain rewards")
        for alt in r["choice"]:
            _check_reward(rid, alt, False)
            if next(iter(alt)) not in ("gain", "draw", "repair"):
                raise _fail("empires.json", f"reward {rid!r}: a choice offers only gain, draw or repair")


@functools.cache
def lom_data() -> LomData:
    pc = _read("prime_cargo.json")
    tokens: dict[str, dict[str, Any]] = {}
    for t in pc["tokens"]:
        if t["type"] not in TYPES or t["reward"] not in REWARDS or set(t["edges"]) - set(EDGE_DIRS):
            raise _fail("prime_cargo.json", f"token {t.get('id')!r} has an unknown type, reward or edge")
        tokens[t["id"]] = {"type": t["type"], "reward": t["reward"], "edges": dict(t["edges"])}
    em = _read("empires.json")
    empires: dict[str, dict[str, Any]] = {}
    letters: dict[str, dict[str, Any]] = {}
    for e in em["empires"]:
        empires[e["id"]] = e
        for letter in e["letters"]:
            letters[letter["id"]] = {**letter, "empire": e["id"]}
    if len(empires) != 2:
        raise _fail("empires.json", "there must be exactly two Empire boards")
    rewards = {}
    for r in em["rewards"]:
        _check_reward(r["id"], r)
        rewards[r["id"]] = r
    spaces = sum(len(e["track"]["reward_spaces"]) for e in empires.values())
    if spaces != len(rewards):
        raise _fail("empires.json", f"{len(rewards)} Favor Reward tokens for {spaces} reward spaces")
    return LomData(pc["names"], tokens, empires, letters, rewards, _read("cards.json"))


def extend_catalog(cat: Catalog) -> Catalog:
    """The base catalogue plus the Explorer Sailor card (one in every starting deck), the Trade vessel cards
    in their rows and the new Ship Upgrade tiles; a new catalogue with memos of its own."""
    extra = lom_data().cards
    cards = dict(cat.cards)
    rows = {r: list(ids) for r, ids in cat.rows.items()}
    for c in extra["trade_vessels"]:
        cards[c["id"]] = c
        rows[c["row"]].append(c["id"])
    upgrades = dict(cat.upgrades)
    for t in extra["upgrades"]:
        upgrades[t["id"]] = t
    return replace(
        cat,
        cards=cards,
        sailors={**cat.sailors, EXPLORER: extra["explorer"]},
        deck={**cat.deck, EXPLORER: 1},
        upgrades=upgrades,
        rows=rows,
        icons_memo={},
        abilities_memo={},
        plan_memo={},
    )
