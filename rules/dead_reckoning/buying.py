"""Buying (rulebook: "Buying Advancements and Encounters" and "Master Merchant"): paying a card's Cargo cost
from the Dock and the Ship's holds (`pay_plan`), at most 2 per turn, and the Master Merchant
achievement's 12 Cargo returned at once.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from contracts.grid import HARBOR
from rules.core.actions import Action
from rules.core.errors import Illegal, Invalid
from rules.dead_reckoning.achievements import place_marker
from rules.dead_reckoning.cards import catalog
from rules.dead_reckoning.model import PlayerBoard, State
from rules.dead_reckoning.phases import mark_acted, require_active


def check_buy(d: State, player: str, a: dict[str, Any]) -> dict[str, Any]:
    p = require_active(d, player, "buy")
    at = p["ship"]["at"]
    card = d["grid"][at]["card"] if at != HARBOR else None
    if card is None:
        raise Illegal("there is no Advancement or Encounter where your Ship is.")
    if d["turn"]["bought"] >= 2:
        raise Illegal("you may buy or resolve at most 2 Advancements/Encounters each turn.")
    cost = catalog(d).cards[card]["cost"]
    pay = pay_plan(p, a.get("pay"), cost, from_dock=False)
    return {"type": "buy", "card": card, "pay": pay}


def pay_plan(p: Mapping[str, Any], pay: Any, cost: int, from_dock: bool) -> dict[str, Any]:
    """Where a Cargo cost comes from: explicit {"dock": n, "holds": [a, b]}, or Dock first then holds."""
    holds = p["ship"]["holds"]
    have = holds[0][0] + holds[1][0] + (p["dock"] if from_dock else 0)
    if pay is None:
        if have < cost:
            where = "your Ship and Dock tile" if from_dock else "your Ship"
            raise Illegal(f"that costs {cost} Cargo and {where} carries only {have}.")
        left = cost
        dock = min(left, p["dock"]) if from_dock else 0
        left -= dock
        h0 = min(left, holds[0][0])
        left -= h0
        return {"dock": dock, "holds": [h0, left]}
    if not isinstance(pay, dict):
        raise Invalid('\'pay\' must be an object like {"dock": 1, "holds": [2, 0]}.')
    dock = pay.get("dock", 0)
    hs = pay.get("holds", [0, 0])
    if (
        not isinstance(dock, int)
        or not isinstance(hs, list)
        or len(hs) != 2
        or not all(isinstance(x, int) and x >= 0 for x in hs)
        or dock < 0
    ):
        raise Invalid('\'pay\' must be an object like {"dock": 1, "holds": [2, 0]}.')
    if dock and not from_dock:
        raise Illegal("this is paid in Cargo from your Ship only, not from your Dock tile.")
    if dock > p["dock"] or hs[0] > holds[0][0] or hs[1] > holds[1][0]:
        raise Illegal("you do not have that Cargo where you said to pay it from.")
    if dock + hs[0] + hs[1] != cost:
        raise Illegal(f"that costs exactly {cost} Cargo.")
    return {"dock": dock, "holds": list(hs)}


def pay_from(d: State, p: PlayerBoard, plan: dict[str, Any]) -> None:
    p["dock"] -= plan["dock"]
    for i in (0, 1):
        p["ship"]["holds"][i][0] -= plan["holds"][i]
    d["supply"]["cargo"] += plan["dock"] + plan["holds"][0] + plan["holds"][1]


def do_buy(d: State, player: str, a: dict[str, Any], out: list[dict[str, Any]]) -> None:
    mark_acted(d, player)
    p = d["p"][player]
    pay_from(d, p, a["pay"])
    d["grid"][p["ship"]["at"]]["card"] = None
    p["set_aside"].append(a["card"])
    d["turn"]["bought"] += 1


def check_master_merchant(d: State, player: str, a: dict[str, Any]) -> dict[str, Any]:
    p = require_active(d, player, "return Cargo for Master Merchant")
    if player in d["achievements"]["master_merchant"]:
        raise Illegal("you already have the Master Merchant achievement.")
    plan = pay_plan(p, a.get("pay"), 12, from_dock=True)
    return {"type": "master_merchant", "pay": plan}


def do_master_merchant(d: State, player: str, a: dict[str, Any], out: list[dict[str, Any]]) -> None:
    mark_acted(d, player)
    pay_from(d, d["p"][player], a["pay"])
    place_marker(d, player, "master_merchant", out)


ACTIONS: tuple[Action[State], ...] = (
    Action("buy", check_buy, do_buy),
    Action("master_merchant", check_master_merchant, do_master_merchant),
)
