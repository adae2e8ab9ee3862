"""Combat in its nine steps (rulebook: "Combat", "Combat Steps in Detail", "Combat Example", "Combat
Cards")."""

from __future__ import annotations

import pytest

from rules import api
from rules.errors import Illegal
from rules.great_sea.combat import damage_of, totals
from rules.great_sea.upgrades import ship_stats

from .helpers import act, clear_map, open_card, ship


def game(players, cards="basic", seed=1):
    s = api.new_game(players, seed, {"game": "great-sea", "combat_cards": cards})
    while s.phase == "setup":
        who = s.active or "table"
        s, _ = api.apply(s, {"seq": s.seq, "player": who, "action": api.legal_actions(s, who)[0]})
    return s


def unit(kind, cls, health, **stats):
    base = dict.fromkeys(("mobility", "attack", "shields", "flames", "strength"), 0)
    base.update(stats)
    return {"kind": kind, "cls": cls, "health": health, "damage": 0, "stats": base, "was_damaged": False}


def fight(s, region, units=None, pips=2):
    """Start a Combat by the turn player against the other player in `region`; `units` replaces the
    pieces' stats by the example's (a referee laying out the rulebook's situation)."""
    att = s.data["turn_player"]
    dfn = next(c for c in s.data["players"] if c != att)
    s.data["p"][att]["dice"] = [6, 1, 1, 1, 1, pips]
    s = open_card(s, 6)
    s, ev = act(s, "initiate_combat", region=region, opponent=dfn)
    if units:
        c = s.data["combat"]
        c["units"] = units
        c["stats"] = {k: totals(v) for k, v in units.items()}
        c["present"] = {k: sorted({u["kind"] + ":" + u["cls"] for u in v}) for k, v in units.items()}
    return s, att, dfn, ev


def facing(att_ship, dfn_ship, cards="basic"):
    """A 2-player game on a cleared map: the turn player's `att_ship` and the other player's `dfn_ship` (a
    Ship class, or a list of them) in r1c1. Returns the state, the turn player and the other."""
    s = game(["red", "blue"], cards)
    clear_map(s)
    a = s.data["turn_player"]
    b = next(c for c in s.data["players"] if c != a)
    for owner, classes in ((a, att_ship), (b, dfn_ship)):
        for cls in [classes] if isinstance(classes, str) else classes:
            ship(s, owner, cls, "r1c1")
    return s, a, b


def both_bluff(s, att, dfn):
    """Both sides play the Basic Bluff (no stats, no ability): the Combat goes on by its units alone."""
    s, _ = act(s, "play_combat_card", player=att, card="basic_bluff")
    return act(s, "play_combat_card", player=dfn, card="basic_bluff")


def test_damage_formula_example():
    # "if a player had 7 Attack and 2 Flames, and their opponent had 5 Shields, 2 of those Shields would be
    # nullified by the 2 Flames, leaving only 3 Shields functional for defense. That means 3 of the Attacks
    # would be blocked by the Shields, but 4 would get through"
    assert damage_of(7, 5, 2) == 4
    assert damage_of(2, 5, 0) == 0
    assert damage_of(5, 1, 2) == 5  # extra Flames never add Damage


def test_rulebook_combat_example_purple_vs_red():
    # "Purple initiated a Combat using a Small Ship and a Medium Ship against Red's Medium Ship and
    # Stronghold. After revealing their Combat Cards, Red gained 4 additional Attack, whereas Purple played
    # Evasion to copy
    # the 2 Mobility, and 2 Strength from Red's Stronghold."
    s = next(
        g for g in (game(["purple", "red"], "standard", seed) for seed in range(20)) if g.active == "purple"
    )
    purple, red = "purple", "red"
    clear_map(s)
    ship(s, purple, "small", "r1c1")
    ship(s, purple, "medium", "r1c1")
    ship(s, red, "medium", "r1c1")
    s.data["regions"]["r1c1"]["forts"].append([red, "stronghold"])
    units = {
        purple: [
            unit("ship", "small", 1, attack=2, flames=1, mobility=1, strength=1),
            unit("ship", "medium", 3, attack=3, flames=1, shields=2, mobility=1, strength=2),
        ],
        red: [
            unit("ship", "medium", 3, attack=1, flames=2, strength=2, shields=3),
            unit("fort", "stronghold", 2, mobility=2, strength=2),
        ],
    }
    s, att, dfn, _ = fight(s, "r1c1", units, pips=1)
    assert (att, dfn) == (purple, red)
    s, ev = act(s, "play_combat_card", player=red, card="mutiny", side="stats")
    s, ev = act(s, "play_combat_card", player=purple, card="evasion", side="ability")
    st = s.data["combat"]["stats"]
    assert st[red]["attack"] == 5  # "Red gained 4 additional Attack"
    # "Purple has 5 Attack, and 2 Flames. With 2 of Red's 3 Shields nullified, they must immediately take 4
    # Damage."
    assert st[purple]["attack"] == 5 and st[purple]["flames"] == 2
    assert s.data["combat"]["await"] == {"player": red, "damage": 4}
    assert s.active == red
    # "Placing it on their Stronghold would destroy it, costing them 2 Mobility, and 2 Strength ... So long
    # Stronghold!"
    s, ev = act(s, "assign_damage", player=red, placed=[[0, 2], [1, 2]])
    # "Now Red makes their Attacks. Their 2 Flames reduce Purple's Shields entirely, allowing all 5 Attack to
    # get through. With only 4 Health across both their Ships, Purple's Fleet is obliterated."
    attacks = [e for e in ev if e["type"] == "attacks"]
    assert attacks[-1]["player"] == red and attacks[-1]["damage"] == 5
    won = next(e for e in ev if e["type"] == "combat_won")
    assert won["winner"] == red
    reg = s.data["regions"]["r1c1"]
    assert not any(x["owner"] == purple for x in reg["ships"])
    assert [red, "stronghold"] not in reg["forts"]
    # "The winner gains 1 Combat Point, and loses their played Combat Card."
    assert s.data["p"][red]["combat"] == 1 and "mutiny" in s.data["p"][red]["lost"]
    # "The loser returns their Combat Card to their hand" / "At least they'll gain some compensations"
    assert "evasion" in s.data["p"][purple]["hand"]
    assert s.data["combat"]["stage"] == "consolation" and s.active == purple
    s, _ = act(s, "consolation", player=purple, choice="pip", die="fortify")
    assert s.data["combat"] is None and s.active == purple
    # "Any surviving Ships that have Damage Markers on them must be laid down on their sides."
    assert [x["damaged"] for x in s.data["regions"]["r1c1"]["ships"] if x["owner"] == red] == [True]


def test_combat_cards_secret_until_revealed():
    # "select 1 Combat Card to play on their Combat Board, without yet revealing it to their opponent"
    s, _, _ = facing("large", "small")
    s, att, dfn, _ = fight(s, "r1c1")
    card = s.data["p"][att]["hand"][0]
    s, ev = act(s, "play_combat_card", player=att, card=card)
    chosen = ev[0]
    assert api.event_view(chosen, dfn)["action"] == {"type": "play_combat_card"}
    assert api.event_view(chosen, None)["action"] == {"type": "play_combat_card"}
    assert api.event_view(chosen, att)["action"]["card"] == card
    assert api.public_view(s)["combat"]["chosen"][att] is True
    assert card not in str(api.private_view(s, dfn)["combat"])
    assert api.private_view(s, att)["combat"]["chosen"][att]["card"] == card
    assert "'hand'" not in str(api.public_view(s)) and api.public_view(s)["p"][att]["hand_size"] == 8
    # "Once both players have chosen a Combat Card, they reveal them along with their Combat Boards."
    s, ev = act(s, "play_combat_card", player=dfn, card=s.data["p"][dfn]["hand"][0])
    revealed = next(e for e in ev if e["type"] == "combat_revealed")
    assert api.event_view(revealed, dfn)["cards"][att]["card"] == card


def test_mobility_order_and_tie_goes_to_attacker():
    # "The player with the most Mobility will make their Attacks first. If tied for Mobility, the attacker
    # ... makes their Attacks first."
    s, a, b = facing("small", "small")
    units = {a: [unit("ship", "small", 5, attack=1)], b: [unit("ship", "small", 5, attack=1)]}
    s, att, dfn, _ = fight(s, "r1c1", units)
    s, ev = both_bluff(s, att, dfn)
    assert s.data["combat"]["order"] == [att, dfn]
    s2, _, _ = facing("small", "small")  # the same seed: the same turn player
    units = {a: [unit("ship", "small", 5, attack=1)], b: [unit("ship", "small", 5, attack=1, mobility=1)]}
    s2, att, dfn, _ = fight(s2, "r1c1", units, pips=1)
    s2, _ = both_bluff(s2, att, dfn)
    assert s2.data["combat"]["order"] == [dfn, att]


@pytest.mark.parametrize("att_str,def_str,winner", [(3, 2, "att"), (2, 3, "def"), (2, 2, "att")])
def test_winner_by_strength_then_attacker(att_str, def_str, winner):
    # "If both players survived, the player with the most Strength is the winner. If tied for Strength, the
    # attacker ... is the winner."
    s, a, b = facing("large", "large")
    s.data["regions"]["r1c1"]["forts"].append([b, "outpost"])
    units = {
        a: [unit("ship", "large", 3, strength=att_str)],
        b: [unit("ship", "large", 3, strength=def_str), unit("fort", "outpost", 1)],
    }
    s, att, dfn, _ = fight(s, "r1c1", units, pips=1)
    s, ev = both_bluff(s, att, dfn)
    won = next(e for e in ev if e["type"] == "combat_won")
    expect = att if winner == "att" else dfn
    assert won["winner"] == expect
    loser = dfn if expect == att else att
    # "If you lose this combat:" the Basic card's gain (sample: basic_bluff gains 2 Wood and 1 Coin)
    wood = s.data["p"][loser]["wood"]
    options = api.legal_actions(s, loser)
    assert options and all(o["type"] == "consolation" for o in options)
    s, ev = act(s, "consolation", player=loser, **{k: v for k, v in options[-1].items() if k != "type"})
    reg = s.data["regions"]["r1c1"]
    # "They must destroy all of their Forts that remain in the region, and move all of their Ships ... back to
    # regions where they have Shipyards."
    assert not any(f[0] == loser for f in reg["forts"])
    assert not any(x["owner"] == loser for x in reg["ships"])
    home = s.data["p"][loser]["home"]
    assert any(x["owner"] == loser and x["cls"] == "large" for x in s.data["regions"][home]["ships"])
    assert s.data["p"][loser]["wood"] >= wood


def test_weakened_loser_gains_neutral_worker():
    # "If the loser is now either present in fewer than 3 regions (including their home region), or if they
    # have no Ships anywhere on the Map, they gain 1 Neutral Worker to their Supply immediately."
    s, a, b = facing("large", "small")
    units = {a: [unit("ship", "large", 3, attack=5)], b: [unit("ship", "small", 1)]}
    s, att, dfn, _ = fight(s, "r1c1", units, pips=1)
    s, ev = both_bluff(s, att, dfn)
    s, ev = act(s, "consolation", player=dfn, choice="pip", die=api.legal_actions(s, dfn)[-1]["die"])
    assert s.data["p"][dfn]["neutral"] == 1
    assert "neutral_worker" in [e["type"] for e in ev]


def test_only_attacker_plays_evasion_ability():
    # "Evasion — Ability: Only the attacker may play this Combat Card."
    s, a, b = facing("large", "small", cards="standard")
    s, att, dfn, _ = fight(s, "r1c1")
    with pytest.raises(Illegal, match="only the attacker"):
        act(s, "play_combat_card", player=dfn, card="evasion", side="ability")
    s, _ = act(s, "play_combat_card", player=dfn, card="evasion", side="stats")


def test_unused_pips_add_mobility():
    # "each pip that was not used for movement or initiating Combat provides 1 additional Mobility"
    s, a, b = facing("large", "large")
    s, att, dfn, ev = fight(s, "r1c1", pips=4)
    started = next(e for e in ev if e["type"] == "combat_started")
    assert started["stats"][att]["mobility"] - started["stats"][dfn]["mobility"] == 3


def test_a_player_with_no_combat_card_left_plays_none():
    """The rulebook is silent on an empty hand (every card lost to victories): that side plays no card."""
    s, a, b = facing("large", "large")
    s.data["p"][b]["lost"], s.data["p"][b]["hand"] = s.data["p"][b]["hand"], []
    s, att, dfn, _ = fight(s, "r1c1")
    assert api.legal_actions(s, dfn) == [{"type": "play_combat_card", "card": None}]
    with pytest.raises(Illegal, match="no Combat Card left"):
        act(s, "play_combat_card", player=dfn, card="basic_attack")
    s, _ = act(s, "play_combat_card", player=att, card="basic_strength")
    s, ev = act(s, "play_combat_card", player=dfn, card=None)
    assert "combat_revealed" in [e["type"] for e in ev]


def test_reinforce_brings_ships_from_one_adjacent_region():
    # "Reinforce — Ability: Only the defender may play this Combat Card. When revealed, they may bring in any
    # number of Ships from 1 adjacent region, acting as if that region has 1 additional Fleet Limit for their
    # Ships."
    s, a, b = facing("large", "large", cards="standard")  # b's Large: size 5 of the Fleet Limit of 8
    ship(s, b, "medium", "r1c2")  # size 4: 9 = 8 + Reinforce's 1
    ship(s, b, "small", "r1c2")
    s, att, dfn, _ = fight(s, "r1c1")
    with pytest.raises(Illegal, match="Fleet Limit"):
        act(
            s,
            "play_combat_card",
            player=dfn,
            card="reinforce",
            side="ability",
            reinforce={"from": "r1c2", "ships": ["medium", "small"]},
        )
    with pytest.raises(Illegal, match="adjacent"):
        act(
            s,
            "play_combat_card",
            player=dfn,
            card="reinforce",
            side="ability",
            reinforce={"from": "r3c3", "ships": ["medium"]},
        )
    s, ev = act(
        s,
        "play_combat_card",
        player=dfn,
        card="reinforce",
        side="ability",
        reinforce={"from": "r1c2", "ships": ["medium"]},
    )
    assert api.event_view(ev[0], att)["action"] == {"type": "play_combat_card"}
    medium = ship_stats(s.data["p"][dfn], "medium")["strength"]
    before = s.data["combat"]["stats"][dfn]["strength"]
    s, ev = act(s, "play_combat_card", player=att, card="hubris", side="stats")
    # the Medium Ship came in from r1c2 (the Small stayed) and fights with its full stats
    assert [x["cls"] for x in s.data["regions"]["r1c2"]["ships"] if x["owner"] == dfn] == ["small"]
    stats = next(e for e in ev if e["type"] == "combat_stats")["stats"]
    assert stats[dfn]["strength"] == before + medium


def test_damage_on_one_class_fills_one_ship_at_a_time():
    # "Note that if a Ship Class has Damage, it will only lay down 1 Ship of that Class, not all Ships." / "If
    # they still have Damage left to place, it can be placed onto those Health spaces again"
    s, a, b = facing("large", ["medium", "medium"])
    units = {
        a: [unit("ship", "large", 9, attack=4, mobility=5)],
        b: [unit("ship", "medium", 3), unit("ship", "medium", 3)],
    }
    s, att, dfn, _ = fight(s, "r1c1", units, pips=1)
    s, _ = both_bluff(s, att, dfn)
    assert s.data["combat"]["await"] == {"player": dfn, "damage": 4}
    with pytest.raises(Illegal, match="one of them until it is destroyed"):
        act(s, "assign_damage", player=dfn, placed=[[0, 2], [1, 2]])
    s, ev = act(s, "assign_damage", player=dfn, placed=[[0, 3], [1, 1]])
    assert [e["cls"] for e in ev if e["type"] == "destroyed"] == ["medium"]
