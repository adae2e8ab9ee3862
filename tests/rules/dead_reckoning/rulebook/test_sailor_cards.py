"""Rulebook: Sailor Card Reference (lines 450-510), each card level by what it does in the engine."""

from __future__ import annotations

import pytest

from rules import api
from rules.errors import Illegal, RulesError

from .support import act, controlled_island, drop, place_island, play, resolve, ship, two


def test_a_sailor_card_holds_up_to_three_advancements_and_four_levels():
    """ "Ability cards are double-sided card-stock with 4 abilities (2 on the front and 2 on the back), each
    with a level 1, 2, 3, or 4. In the middle of the card are 3 slots where Advancements can be put (top,
    middle, bottom). A Sailor card can have a maximum of 5 cards within its sleeve: an Illustration card, an
    Ability card, and up to 3 Advancements.\""""
    state, me, _ = two()
    assert all(set(c["slots"]) == {"top", "middle", "bottom"} for c in state.data["p"][me]["cards"].values())
    state = play(state, "crew-1")
    state.data["p"][me]["set_aside"] = ["r1-03", "r1-01", "r1-02", "r2-03"]  # top, middle, bottom, top
    with pytest.raises(Illegal):  # a fourth (a second top) does not fit
        act(
            state,
            "end_turn",
            sleeve=[{"advancement": a, "card": "crew-1"} for a in ("r1-03", "r1-01", "r1-02", "r2-03")],
        )
    state, _ = act(
        state, "end_turn", sleeve=[{"advancement": a, "card": "crew-1"} for a in ("r1-03", "r1-01", "r1-02")]
    )
    assert list(state.data["p"][me]["cards"]["crew-1"]["slots"].values()) == ["r1-03", "r1-01", "r1-02"]


def test_captain_1_gives_a_sail():
    """Captain "1: Gives you 1 Sail.\""""
    state, me, _ = two()
    state = play(state, "captain", 1)
    state, _ = act(state, "set_sails")
    assert ship(state, me)["sails"] == 3


def test_captain_2_gives_an_attack_flag():
    """Captain "2: Gives you an Attack Flag and 1 Wheel.\""""
    state, me, other = two()
    state = play(state, "captain", 2)
    state, _ = act(state, "attack", target=other)
    assert state.data["battle"] is not None and state.data["battle"]["setup"]["attacker"]["wheels"] == 1


@pytest.mark.parametrize("level, coins", [(3, 1), (4, 2 + 1)])
def test_captain_3_and_4_coins_on_a_ship_battle_win(level, coins):
    """Captain "3: Gives you an Attack Flag, 1 Wheel and a Battle ability that can only be used in Ship vs.
    Ship battles (vs. Player ships or Merchant ships): if you win the battle, gain 1 Coin on your Ship for
    each Wheel icon you have on this card." and Captain "4: Similar to the level 3 Captain except it also has
    a Cannon, and the Battle ability now grants 2 Coins on your Ship in addition to 1 Coin on your Ship for
    each Wheel icon you have on the Captain card.\""""
    state, me, other = two()
    state = play(state, "captain", level)
    state, _ = act(state, "attack", target=other)
    cubes = state.data["battle"]["setup"]["attacker"]["cubes"]
    assert cubes == (2 if level == 4 else 1)
    ab = f"{me}:captain:L{level}:0"
    mine = " ".join([f"{me}@s2"] + [f"{me}@miss"] * (cubes - 1))
    state, _ = resolve(
        state, mine + f" {other}@miss" * 5, {"step": "ability", "side": "attacker", "ability": ab}
    )
    assert sum(h[1] for h in ship(state, me)["holds"]) == coins
    # not against a Building
    state2, me2, other2 = two()
    controlled_island(state2, other2, [other2, other2, None])["buildings"]["fort"] = True
    ship(state2, me2)["at"] = "r1c1"
    state2 = play(state2, "captain", level)
    state2, _ = act(state2, "attack_building")
    assert state2.data["battle"]["setup"]["attacker"]["abilities"] == []


@pytest.mark.parametrize("level, cargo", [(1, 1), (2, 2), (3, 3)])
def test_crew_gains_cargo_on_the_dock(level, cargo):
    """Crew "1: Gain 1 Cargo on your Dock tile." Crew "2: Gain 2 Cargo on your Dock tile." Crew "3: Gain 3
    Cargo on your Dock tile.\""""
    state, me, _ = two()
    dock = state.data["p"][me]["dock"]
    state = play(state, "crew-1", level)
    state, _ = act(state, "use_ability", ability=f"crew-1:L{level}:0")
    assert state.data["p"][me]["dock"] == dock + cargo


def test_crew_2_repairs_for_two_cargo_in_harbor_only():
    """Crew "2: ... Also, if you are in Harbor, you may pay 2 Cargo (from Ship or Dock tile) to repair 1
    Damage on your Ship.\""""
    state, me, _ = two()
    ship(state, me).update({"damage": 1, "holds": [[1, 0], [0, 0]]})
    state.data["p"][me]["dock"] = 1
    state = play(state, "crew-1", 2)
    away = state.copy()
    ship(away, me)["at"] = "r1c1"
    with pytest.raises(Illegal):
        act(away, "use_ability", ability="crew-1:L2:1")
    state, _ = act(state, "use_ability", ability="crew-1:L2:1", pay={"dock": 1, "holds": [1, 0]})
    assert ship(state, me)["damage"] == 0 and state.data["p"][me]["dock"] == 0


def test_crew_3_repairs_for_two_cargo_anywhere():
    """Crew "3: ... Also, you may pay 2 Cargo (from Ship or Dock tile) to repair 1 Damage on your Ship,
    regardless of where your Ship is.\""""
    state, me, _ = two()
    ship(state, me).update({"damage": 2, "at": "r1c1", "holds": [[2, 0], [0, 0]]})
    state.data["p"][me]["dock"] = 0
    state = play(state, "crew-1", 3)
    state, _ = act(state, "use_ability", ability="crew-1:L3:1")
    assert ship(state, me)["damage"] == 1 and ship(state, me)["holds"][0] == [0, 0]


def test_crew_4_four_cargo_anywhere_and_a_free_repair():
    """Crew "4: Gain 4 Cargo on your Dock tile and/or on your Ship board in any combination. Also, you may
    repair 1 Damage for free regardless of where your Ship is.\""""
    state, me, _ = two()
    ship(state, me).update({"damage": 1, "at": "r1c1"})
    dock = state.data["p"][me]["dock"]
    state = play(state, "crew-1", 4)
    state, _ = act(state, "use_ability", ability="crew-1:L4:0", args={"to_ship": 1})
    assert state.data["p"][me]["dock"] == dock + 3 and sum(h[0] for h in ship(state, me)["holds"]) == 1
    state, _ = act(state, "use_ability", ability="crew-1:L4:1")
    assert ship(state, me)["damage"] == 0 and state.data["p"][me]["dock"] == dock + 3


@pytest.mark.parametrize("card", ["first-mate", "bosun", "gunner-1"])
def test_level_one_gains_a_cargo(card):
    """First Mate "1: Gain 1 Cargo on your Dock tile." Bosun "1: Gain 1 Cargo on your Dock tile." Gunner "1:
    Gain 1 Cargo on your Dock tile.\""""
    state, me, _ = two()
    dock = state.data["p"][me]["dock"]
    state = play(state, card, 1)
    state, _ = act(state, "use_ability", ability=f"{card}:L1:0")
    assert state.data["p"][me]["dock"] == dock + 1


@pytest.mark.parametrize("level, most", [(2, 1), (3, 2), (4, 3)])
def test_first_mate_builds_up_to_its_level_minus_one_from_afar(level, most):
    """First Mate "2: Build 1 Building for the costs (from Ship or Dock tile) shown. Your Ship does not need
    to be at the island to build there, but you do need to control the island." First Mate "3: Build up to 2
    Buildings for the costs shown (from Ship or Dock tile). Your Ship does not need to be at the island, but
    you do need to control it." First Mate "4: Build up to 3 Buildings for the costs shown (from Ship or Dock
    tile). Your Ship does not need to be at the island, but you do need to control it.\""""
    state, me, _ = two()
    controlled_island(state, me, [me, me, None])
    isl2 = place_island(state, "r1c2", "island-04")
    isl2.update({"cubes": [me, me, None], "controller": me})
    state.data["p"][me]["dock"] = 6
    ship(state, me)["holds"] = [[4, 0], [3, 0]]
    state = play(state, "first-mate", level)
    spots = [("r1c1", "fort"), ("r1c2", "garrison"), ("r1c1", "outpost"), ("r1c2", "fort")]
    too_many = [{"square": sq, "building": b} for sq, b in spots[: most + 1]]
    with pytest.raises(RulesError):
        act(state, "use_ability", ability=f"first-mate:L{level}:0", args={"builds": too_many})
    state, _ = act(state, "use_ability", ability=f"first-mate:L{level}:0", args={"builds": too_many[:most]})
    built = sum(sum(state.data["grid"][sq]["island"]["buildings"].values()) for sq in ("r1c1", "r1c2"))
    assert built == most and ship(state, me)["at"] == "harbor"


def test_bosun_2_a_wheel_and_a_cargo():
    """Bosun "2: Has 1 Wheel and gains you 1 Cargo on your Dock tile.\""""
    state, me, other = two()
    state.data["p"][me]["cards"]["bosun"] = {
        **state.data["p"][me]["cards"]["bosun"],
        "slots": {"top": None, "middle": None, "bottom": "r2-05"},  # Navigator: 1 Cargo per Wheel, 2 Wheels
    }
    dock = state.data["p"][me]["dock"]
    state = play(state, "bosun", 2)
    state, _ = act(state, "use_ability", ability="bosun:L2:0")
    state, _ = act(state, "use_ability", ability="bosun:r2-05:0")
    assert state.data["p"][me]["dock"] == dock + 1 + (1 + 2)


def test_bosun_3_a_cargo_or_three_cargo_for_a_basic_upgrade_usable_at_once():
    """Bosun "3: Has 1 Wheel and an ability that either gains you 1 Cargo on your Dock tile, or allows you to
    pay 3 Cargo (from Ship or Dock tile) for a Basic Ship Upgrade." and "(Ship upgrades may be used as long as
    they are on your ship, including the turn they are acquired.)\""""
    state, me, _ = two()
    state.data["p"][me]["dock"] = 3
    state = play(state, "bosun", 3)
    state, _ = act(state, "use_ability", ability="bosun:L3:0", choice=1, args={"tile": "basic-sail"})
    assert state.data["p"][me]["dock"] == 0 and ship(state, me)["hull"][1] == ["basic-sail"]
    state, _ = act(state, "set_sails")
    assert ship(state, me)["sails"] == 3  # the new Sail counts this turn


def test_bosun_4_adds_an_advanced_upgrade_for_six_cargo():
    """Bosun "4: Has 1 Wheel and an ability that either gains 1 Cargo on your Dock tile, or allows you to pay
    3 Cargo (from Ship or Dock tile) for a Basic Ship Upgrade, or pay 6 Cargo (from Ship or Dock tile) to gain
    an Advanced Ship Upgrade.\""""
    state, me, _ = two()
    state.data["p"][me]["dock"] = 5
    state = play(state, "bosun", 4)
    with pytest.raises(Illegal):  # 5 Cargo do not pay 6
        act(state, "use_ability", ability="bosun:L4:0", choice=2, args={"tile": "advanced-guns"})
    ship(state, me)["holds"] = [[1, 0], [0, 0]]
    state, _ = act(state, "use_ability", ability="bosun:L4:0", choice=2, args={"tile": "advanced-guns"})
    assert ship(state, me)["hull"][1] == ["advanced-guns"] and state.data["p"][me]["dock"] == 0


@pytest.mark.parametrize("level, cargo, cannons", [(2, 1, 1), (3, 2, 1), (4, 2, 1)])
def test_gunner_cargo_and_a_cannon(level, cargo, cannons):
    """Gunner "2: Gain 1 Cargo on your Dock tile. Has 1 Cannon." Gunner "3: Gain 2 Cargo on your Dock tile.
    Has 1 Cannon and a Battle ability that lets you drop 2 cubes into the Battle ship." Gunner "4: Gain 2
    Cargo on your Dock tile. Has 1 Cannon and a Battle ability ...\""""
    state, me, other = two()
    dock = state.data["p"][me]["dock"]
    state = play(state, "gunner-1", level)
    state, _ = act(state, "use_ability", ability=f"gunner-1:L{level}:0")
    assert state.data["p"][me]["dock"] == dock + cargo
    state = play(state, "captain", 2)
    state, _ = act(state, "attack", target=other)
    setup = state.data["battle"]["setup"]
    assert setup["attacker"]["cubes"] == 1 + cannons
    effects = sorted(a["effect"] for a in setup["attacker"]["abilities"])
    assert (
        effects
        == {2: [], 3: ["drop_extra_cubes"], 4: ["drop_extra_cubes", "remove_cube_for_damage_and_coins"]}[
            level
        ]
    )


def test_gunner_3_drops_two_more_cubes():
    """Gunner "3: ... a Battle ability that lets you drop 2 cubes into the Battle ship.\""""
    state, me, other = two()
    state = play(state, "gunner-1", 3)
    state = play(state, "captain", 2)
    state, _ = act(state, "attack", target=other)
    cubes = state.data["p"][me]["cubes"]
    ab = f"{me}:gunner-1:L3:1"
    board = f"{me}@miss {me}@miss " + f"{other}@s1 " * 5
    state, _ = resolve(
        state,
        board,
        {"step": "ability", "side": "attacker", "ability": ab},
        drop("ability", board + f"{me}@s2 {me}@s2", ability=ab),
    )
    # 4 strength against 5: the 2 dropped cubes counted, and went back to the supply afterwards
    assert ship(state, me)["damage"] == 1 and state.data["p"][me]["cubes"] == cubes


def test_gunner_4_removes_a_cube_for_a_damage_and_two_coins():
    """Gunner "4: ... and another Battle ability that lets you remove one of your previously dropped cubes to
    deal 1 Damage to the enemy Ship and gain 2 Coins on your Ship.\""""
    state, me, other = two()
    state = play(state, "gunner-1", 4)
    state = play(state, "captain", 2)
    state, _ = act(state, "attack", target=other)
    ab = f"{me}:gunner-1:L4:2"
    state, _ = resolve(
        state,
        f"{me}@s2 {me}@miss " + f"{other}@miss " * 5,
        {"step": "ability", "side": "attacker", "ability": ab, "cube": 1},
    )
    assert ship(state, other)["damage"] == 1 + 1 and sum(h[1] for h in ship(state, me)["holds"]) == 2


def _at_island(state, me, board="island-07"):
    place_island(state, "r1c1", board)
    ship(state, me)["at"] = "r1c1"


@pytest.mark.parametrize(
    "level, choice, cubes, sails", [(1, None, 1, 0), (2, 0, 1, 0), (2, 1, 0, 1), (3, 1, 0, 2)]
)
def test_deck_hand_influence_or_sails(level, choice, cubes, sails):
    """Deck Hand "1: Place 1 Influence cube." Deck Hand "2: Place 1 Influence cube OR Gain 1 Sail." Deck
    Hand "3: Place 1 Influence cube OR Gain 2 Sails.\""""
    state, me, _ = two()
    _at_island(state, me)
    state = play(state, "deck-hand-1", level)
    fields = {} if choice is None else {"choice": choice}
    state, _ = act(state, "use_ability", ability=f"deck-hand-1:L{level}:0", **fields)
    state, _ = act(state, "set_sails")
    assert state.data["grid"]["r1c1"]["island"]["cubes"].count(me) == cubes
    assert ship(state, me)["sails"] == 2 + sails


def test_deck_hand_4_influence_and_three_sails_even_at_sea():
    """Deck Hand "4: Place 1 Influence cube and gain 3 Sails." with "you must use all the Influence cubes
    possible from that ability": at sea none is possible and the 3 Sails still come.\""""
    state, me, _ = two()
    _at_island(state, me)
    state = play(state, "deck-hand-1", 4)
    state, _ = act(state, "use_ability", ability="deck-hand-1:L4:0")
    state, _ = act(state, "set_sails")
    assert state.data["grid"]["r1c1"]["island"]["cubes"].count(me) == 1 and ship(state, me)["sails"] == 5
    at_sea, me2, _ = two(seed=2)  # r1c1 is open sea in this game
    ship(at_sea, me2)["at"] = "r1c1"
    assert at_sea.data["grid"]["r1c1"]["island"] is None
    at_sea = play(at_sea, "deck-hand-1", 4)
    assert "deck-hand-1:L4:0" in [a.get("ability") for a in api.legal_actions(at_sea, me2)]
    at_sea, _ = act(at_sea, "use_ability", ability="deck-hand-1:L4:0")
    at_sea, _ = act(at_sea, "set_sails")
    assert ship(at_sea, me2)["sails"] == 2 + 3


@pytest.mark.parametrize("level", [1, 2, 3, 4])
def test_buccaneer_places_its_level_in_influence_cubes(level):
    """Buccaneer "1: Place 1 Influence cube." Buccaneer "2: Place 2 Influence cubes." Buccaneer "3: Place 3
    Influence cubes." Buccaneer "4: Place 4 Influence cubes.\""""
    state, me, _ = two()
    _at_island(state, me, "island-07")  # 4 slots
    state = play(state, "buccaneer", level)
    state, _ = act(state, "use_ability", ability=f"buccaneer:L{level}:0")
    assert state.data["grid"]["r1c1"]["island"]["cubes"].count(me) == level


@pytest.mark.parametrize("level", [1, 2, 3, 4])
def test_purser_produces_on_up_to_its_level_in_different_islands(level):
    """Purser "1: Produce on any 1 island." Purser "2: Produce on up to 2 different islands." Purser "3:
    Produce on up to 3 different islands." Purser "4: Produce on up to 4 different islands. Also boosts those
    productions by 1 Cargo and 1 Coin on each island.\""""
    state, me, _ = two()
    squares = ["r2c1", "r2c2", "r2c3", "r3c2", "r4c2"]
    for sq in squares:
        place_island(state, sq, "island-01")  # 1 Cargo, 1 Coin
    state = play(state, "purser", level)
    with pytest.raises(RulesError):
        act(state, "use_ability", ability=f"purser:L{level}:0", args={"islands": squares[: level + 1]})
    with pytest.raises(RulesError):
        act(state, "use_ability", ability=f"purser:L{level}:0", args={"islands": [squares[0], squares[0]]})
    state, _ = act(state, "use_ability", ability=f"purser:L{level}:0", args={"islands": squares[:level]})
    boost = 1 if level == 4 else 0
    for sq in squares[:level]:
        isl = state.data["grid"][sq]["island"]
        assert (isl["cargo"], isl["coins"]) == (1 + boost, 1 + boost)
