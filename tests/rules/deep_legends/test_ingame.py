"""Deep Legends inside an engine game (option `deep_legends`): Tenacity Bonuses gained at the start, saga
items carried in, taken when sinking a Ship, bought and sold; the base game unchanged without the option."""

from __future__ import annotations

import random

import pytest

from rules import api
from rules.dead_reckoning.deep_legends import ingame
from rules.dead_reckoning.deep_legends import saga as sg
from rules.errors import Ambiguous, Illegal, Invalid
from tests.rules.helpers import act

ITEMS = {"items": {"red": ["1.04"], "blue": ["1.07"], "green": ["1.09"]}}


def dl_game(opt: dict, players=("red", "blue"), seed: int = 3):
    return api.new_game(list(players), seed, {"deep_legends": opt})


def test_without_the_option_the_base_game_is_unchanged():
    base = api.new_game(["red", "blue"], 3)
    assert "deep_legends" not in base.data
    assert base.data["created"]["options"] == {
        "auto_chance": True,
        "bonus_tokens": False,
        "cards_file": None,
        "boards_file": None,
        "upgrades_file": None,
    }
    with pytest.raises(Invalid, match="unknown game option 'sagas'.*deep_legends"):
        api.new_game(["red", "blue"], 3, {"sagas": True})


def test_tenacity_bonuses_are_gained_at_the_start_of_the_game():
    """ "Players will gain the selected Tenacity Bonus for the current game": "Gain a basic non-sail ship
    upgrade." "Gain a free level-up, any card." "Gain 5 coin to your chest." "Gain 4 cargo to your
    Harbor.\""""
    base = api.new_game(["red", "blue", "green", "yellow"], 3)
    ten = {
        "red": {"bonus": "coins"},
        "blue": {"bonus": "cargo"},
        "green": {"bonus": "level_up"},
        "yellow": {"bonus": "ship_upgrade", "tile": "basic-wheel"},
    }
    s = dl_game({"tenacity": ten}, ("red", "blue", "green", "yellow"))
    p, b = s.data["p"], base.data["p"]
    assert p["red"]["chest"] == b["red"]["chest"] + 5
    assert p["blue"]["dock"] == b["blue"]["dock"] + 4
    assert p["green"]["level_up"]
    assert p["yellow"]["ship"]["hull"][1] == ["basic-wheel"]
    assert s.data["upgrade_supply"]["basic-wheel"] == base.data["upgrade_supply"]["basic-wheel"] - 1
    with pytest.raises(Invalid, match="basic non-sail tile"):
        dl_game({"tenacity": {"red": {"bonus": "ship_upgrade", "tile": "basic-sail"}}})
    with pytest.raises(Invalid, match="Sea Dog is drawn at the table"):
        dl_game({"tenacity": {"red": {"bonus": "sea_dog"}}})
    with pytest.raises(Invalid, match="colours of this game"):
        dl_game({"items": {"purple": ["1.04"]}})


def test_a_ship_sinker_may_take_one_saga_item_of_its_owner_that_turn():
    """ "If you ever sink an opposing Ship, you may choose any 1 Saga item the other player has and take
    it. You now own that item!" Random legal play until one player sinks another's Ship."""
    s = _walk_until_sunk()
    (chance,) = s.data["deep_legends"]["may_take"]
    offered = api.legal_actions(s, chance["winner"])
    assert [a for a in offered if a["type"] == "take_saga_item"] == [
        {"type": "take_saga_item", "item": i} for i in ITEMS["items"][chance["loser"]]
    ]
    winner, loser = chance["winner"], chance["loser"]
    (item,) = [i for i, o in s.data["deep_legends"]["items"].items() if o == loser]
    bystander = next(c for c in s.players if c not in (winner, loser))
    with pytest.raises(Illegal, match="only in the turn they sank"):
        act(s, "take_saga_item", bystander, item=item)
    s2, _ = act(s, "take_saga_item", winner, item=item)
    assert s2.data["deep_legends"]["items"][item] == winner
    with pytest.raises(Illegal):  # one item per Ship sunk
        act(s2, "take_saga_item", winner, item=item)
    assert ingame.items_of(s2.data)[winner] == sorted([item, *ITEMS["items"][winner]])


def _walk_until_sunk():
    """Random legal play (no saga item changing hands) until one player sinks another's Ship."""
    for seed in range(1, 30):
        s = api.new_game(["red", "blue", "green"], seed, {"deep_legends": ITEMS})
        rng = random.Random(seed)
        while not s.data["deep_legends"]["may_take"] and s.phase != "over":
            who = s.active or "table"
            acts = [a for a in api.legal_actions(s, who) if "saga" not in a["type"]]
            s, _ = api.apply(s, {"seq": s.seq, "player": who, "action": rng.choice(acts)})
        if s.phase != "over":
            return s
    raise AssertionError("no Ship was sunk in 29 random games")


def test_the_active_player_buys_a_saga_item_for_cargo_and_up_to_5_coins():
    """ "The active player may buy or sell Saga items to/from any other player as long as neither player is
    in the middle of a battle or Encounter. The price paid will be any amount of Cargo and/or up to 5
    Coins ... The buyer may use Cargo/Coins from their own Dock tile and/or their Ship. The selling player
    puts the paid Cargo/Coins directly onto their Dock tile or Treasure chest.\""""
    s = dl_game({"items": {"blue": ["1.07"]}})
    rng = random.Random(2)
    while s.phase != "main" or s.data["pending"]:
        s, _ = api.apply(
            s, {"seq": s.seq, "player": "table", "action": rng.choice(api.legal_actions(s, "table"))}
        )
    me = s.active
    other = next(c for c in s.players if c != me)
    s.data["deep_legends"]["items"] = {"1.07": other}
    p = s.data["p"][me]
    p["dock"], p["ship"]["holds"] = 3, [[2, 4], [0, 2]]
    chest = s.data["p"][other]["chest"]
    dock = s.data["p"][other]["dock"]
    with pytest.raises(Illegal, match="at most 5 Coins"):
        act(s, "trade_saga_item", me, item="1.07", other=other, coin_holds=[4, 2])
    with pytest.raises(Illegal, match="does not carry"):
        act(s, "trade_saga_item", me, item="1.07", other=other, holds=[3, 0])
    with pytest.raises(Illegal, match="only the active player"):
        act(s, "trade_saga_item", other, item="1.07", other=me)
    s2, _ = act(s, "trade_saga_item", me, item="1.07", other=other, dock=3, holds=[2, 0], coin_holds=[3, 2])
    q = s2.data["p"]
    assert s2.data["deep_legends"]["items"]["1.07"] == me
    assert q[me]["dock"] == 0 and q[me]["ship"]["holds"] == [[0, 1], [0, 0]]
    assert q[other]["dock"] == dock + 5 and q[other]["chest"] == chest + 5
    # and the seller's side: the active player sells it back for nothing
    s3, _ = act(s2, "trade_saga_item", me, item="1.07", other=other)
    assert s3.data["deep_legends"]["items"]["1.07"] == other
    s2.data["battle"] = {"kind": "merchant"}
    with pytest.raises(Illegal, match="battle is under way"):
        act(s2, "trade_saga_item", me, item="1.07", other=other)


def test_a_deep_legends_game_replays_from_its_log():
    """The campaign's part is folded from `game_created` like the rest: a replay gives the same state."""
    opt = ITEMS | {"tenacity": {"red": {"bonus": "cargo"}}}
    s, events = api.new_game_with_events(["red", "blue", "green"], 4, {"deep_legends": opt})
    rng = random.Random(4)
    for _ in range(400):
        if s.phase == "over":
            break
        who = s.active or "table"
        s, evs = api.apply(s, {"seq": s.seq, "player": who, "action": rng.choice(api.legal_actions(s, who))})
        events += evs
    again = api.replay(events)
    assert again.data["deep_legends"] == s.data["deep_legends"]
    assert api.state_to_json(again) == api.state_to_json(s)


def saga_game(seed: int, until, tries: int = 30):
    """A 3-player game with the sample saga's cards in its Row decks, played by random legal actions until
    `until(state)` holds (the first of `tries` seeds from `seed` whose walk gets there); checks the board
    rules after every action."""
    for n in range(seed, seed + tries):
        s = _saga_walk(n, until)
        if s is not None:
            return s
    raise AssertionError(f"no walk of seeds {seed}..{seed + tries - 1} got there before the game ended")


def _saga_walk(seed: int, until):
    st = sg.new_saga_state(sg.load_saga())
    s = api.new_game(["red", "blue", "green"], seed, {"deep_legends": {"saga": st}})
    book = sg.load_saga()
    rng = random.Random(seed)
    while not until(s):
        if s.phase == "over":
            return None
        who = s.active or "table"
        s, _ = api.apply(s, {"seq": s.seq, "player": who, "action": rng.choice(api.legal_actions(s, who))})
        for sq, cards in s.data["deep_legends"]["board"].items():
            kinds = [book["by_id"][c]["kind"] for c in cards]
            if "encounter" in kinds:  # the board's card: no card from the Row deck beside it
                assert s.data["grid"][sq]["card"] is None
            if "fortune" in kinds and not s.data["pending"] and s.data["turn"]["bought"] == 0:
                # "must have at least 1 non-Fortune Advancement/Encounter" (a card bought, fought or explored
                # this turn is replaced at its end, as in the base game)
                row = sq[1]
                assert "encounter" in kinds or s.data["grid"][sq]["card"] or not s.data["decks"][row]
    return s


def on_board(card: str):
    def test(s) -> bool:
        d = s.data
        here = [sq for sq, cs in d["deep_legends"]["board"].items() if card in cs]
        return bool(here) and d["phase"] == "main" and not d["pending"] and not d["battle"]

    return test


def test_saga_cards_are_drawn_from_the_row_decks_and_a_fortune_draws_another():
    """ "shuffle them into their respective Advancement Row decks" (Saga Setup); "When a Fortune Encounter is
    drawn from a box, place it on the Ocean board and then draw another card from the row deck and also
    place it on the same board." Random play until the Fortune Encounter 1.00-b is drawn."""
    s = saga_game(0, on_board("1.00-b"))
    (sq,) = [q for q, cs in s.data["deep_legends"]["board"].items() if "1.00-b" in cs]
    assert s.data["grid"][sq]["card"] is not None or len(s.data["deep_legends"]["board"][sq]) > 1
    assert "1.00-b" not in s.data["deep_legends"]["rows"]["2"]


def test_exploring_a_non_merchant_encounter_in_a_game():
    """ "you may pay the indicated Coins cost to explore them. After you pay the cost (and NOT BEFORE), you
    turn the Encounter over and read out loud what it says on the other side. These count as 1 of the 2
    Advancements and/or Encounters you may interact with each turn.\""""
    s = saga_game(2, on_board("1.00-a"))  # a walk that reaches the card
    (sq,) = [q for q, cs in s.data["deep_legends"]["board"].items() if "1.00-a" in cs]
    me = s.active
    p = s.data["p"][me]
    p["ship"]["at"], p["ship"]["holds"] = sq, [[0, 1], [0, 0]]  # a set-up shortcut: the Ship there
    chest = p["chest"]
    with pytest.raises(Illegal, match="costs 2 Coins"):
        act(s, "explore_encounter", me, coin_holds=[1, 0])
    s.data["turn"]["bought"] = 2
    with pytest.raises(Illegal, match="at most 2"):
        act(s, "explore_encounter", me, coin_holds=[1, 0], chest=1)
    s.data["turn"]["bought"] = 1
    s2, events = act(s, "explore_encounter", me, coin_holds=[1, 0], chest=1)
    d = s2.data
    assert d["p"][me]["chest"] == chest - 1 and d["p"][me]["ship"]["holds"] == [[0, 0], [0, 0]]
    assert d["turn"]["bought"] == 2
    assert d["deep_legends"]["items"] == {"1.04": me}  # Book 1.01: gain card 1.04
    assert "1.05" in d["deep_legends"]["rows"]["2"]  # ... and add 1.05 to the Row 2 deck
    assert d["deep_legends"]["saga"]["eliminated"] == ["1.00-a"] and sq not in [
        q for q, cs in d["deep_legends"]["board"].items() if cs
    ]
    said = [e["what"] for e in events if e["type"] == "saga"]
    assert said == ["explored", "read_entry", "gain_card", "add_to_row", "eliminate"]
    with pytest.raises(Illegal, match="no Non-Merchant Encounter"):
        act(s2, "explore_encounter", me)


def test_a_fortune_encounter_in_a_game_uses_the_reported_saga_die():
    """ "The specific condition to encounter a Fortune Encounter will be spelled out on it" and "if you gain
    or encounter them, they don't count as 1 of your maximum 2 Advancements/Encounters for the turn"; the
    Saga die's face is reported by the table."""
    s = saga_game(0, on_board("1.00-b"))
    (sq,) = [q for q, cs in s.data["deep_legends"]["board"].items() if "1.00-b" in cs]
    me = s.active
    s.data["p"][me]["ship"]["at"] = sq
    bought = s.data["turn"]["bought"]
    before = s.data["deep_legends"]["campaign_points"].get(me, 0)
    read = list(s.data["deep_legends"]["saga"]["read"])
    with pytest.raises(Ambiguous, match="roll the Saga die"):
        act(s, "encounter_fortune", me, card="1.00-b")
    s2, _ = act(s, "encounter_fortune", me, card="1.00-b", rolls=[3])
    d = s2.data
    assert d["turn"]["bought"] == bought
    assert d["deep_legends"]["campaign_points"][me] == before + 1
    assert d["deep_legends"]["saga"]["read"] == [*read, "1.02"]
    assert "1.00-b" not in d["deep_legends"]["board"][sq] and d["deep_legends"]["saga"]["buried"]["2"] == [
        "1.00-b"
    ]


def on_grid(card: str):
    def test(s) -> bool:
        d = s.data
        here = any(d["grid"][sq]["card"] == card for sq in d["grid"])
        return here and d["phase"] == "main" and not d["pending"] and not d["battle"]

    return test


def test_a_saga_advancement_is_drawn_bought_and_sleeved_like_a_printed_one():
    """ "Sagas are expansion sets that introduce new Advancements and Encounters. Most new content is
    discovered organically during gameplay ... becoming part of all future games unless explicitly
    'Eliminated.'" (Letters of Marque, Sagas); the 1.00 cards are shuffled "into their respective
    Advancement Row decks during setup" (Saga Setup). The sample's 1.00-e (row 2, cost 2, a Sail icon) is
    drawn onto a board, bought with Cargo from the Ship, counts as 1 of the 2 per turn and is sleeved."""
    s = saga_game(0, on_grid("1.00-e"))
    (sq,) = [q for q in s.data["grid"] if s.data["grid"][q]["card"] == "1.00-e"]
    me = s.active
    p = s.data["p"][me]
    p["ship"]["at"], p["ship"]["holds"] = sq, [[1, 0], [1, 0]]  # a set-up shortcut: the Ship there
    assert {"type": "buy"} in api.legal_actions(s, me)
    with pytest.raises(Illegal, match="costs exactly 2 Cargo"):
        act(s, "buy", me, pay={"dock": 0, "holds": [1, 0]})
    bought = s.data["turn"]["bought"]
    s2, _ = act(s, "buy", me)
    d = s2.data
    assert d["grid"][sq]["card"] is None and d["p"][me]["set_aside"] == ["1.00-e"]
    assert d["turn"]["bought"] == bought + 1 and d["p"][me]["ship"]["holds"] == [[0, 0], [0, 0]]
    end = next(a for a in api.legal_actions(s2, me) if a["type"] == "end_turn" and not a["pirate"])
    if end["sleeve"]:
        s3, _ = act(s2, "end_turn", me, sleeve=end["sleeve"], pirate=False)
        (plan,) = end["sleeve"]
        assert s3.data["p"][me]["cards"][plan["card"]]["slots"]["middle"] == "1.00-e"
    # the card stays in the saga's Row 2 deck for future games (it was not eliminated)
    assert "1.00-e" in d["deep_legends"]["saga"]["rows"]["2"]


def test_a_saga_merchant_ship_is_attacked_and_its_back_applied():
    """ "Whenever the AI claims a Saga Encounter, whether Merchant ship or otherwise" (Solo Rules): a saga
    Merchant ship is attacked as a printed one, "Apply the effect on the back of the Encounter depending on
    whether you won or lost". The sample's 1.00-d: 2 black cubes, winning gains 3 Coins on the Ship and
    follows its saga instruction (1 Campaign point)."""
    s = saga_game(0, on_grid("1.00-d"))
    (sq,) = [q for q in s.data["grid"] if s.data["grid"][q]["card"] == "1.00-d"]
    me = s.active
    p = s.data["p"][me]
    p["ship"]["at"], p["ship"]["holds"] = sq, [[0, 0], [0, 0]]
    assert {"type": "attack_merchant"} in api.legal_actions(s, me)
    s2, events = act(s, "attack_merchant", me)
    assert s2.data["battle"] and s2.data["grid"][sq]["card"] is None
    assert any(e["type"] == "battle_started" for e in events)
    setup = s2.data["battle"]["setup"]
    assert setup["defender"]["name"] == "merchant:1.00-d" and setup["defender"]["cubes"] == 2
    coins = s2.data["p"][me]["ship"]["holds"][0][1] + s2.data["p"][me]["ship"]["holds"][1][1]
    (resolve,) = [a for a in api.legal_actions(s2, me) if a["type"] == "resolve_battle"]
    s3, events = api.apply(s2, {"seq": s2.seq, "player": me, "action": resolve})
    (res,) = [e for e in events if e["type"] == "battle_resolved"]
    d = s3.data
    assert "1.00-d" in d["buried"]["1"]  # not kept on a win ("keep_on_win": false) nor on a loss
    holds = d["p"][me]["ship"]["holds"]
    owed = sum(e["amount"] for e in events if e["type"] == "gain_owed" and e["what"] == "coins")
    plunder = res["outcome"]["attacker"]["plunder_coins"]
    won = res["outcome"]["winner"] == "attacker"
    assert holds[0][1] + holds[1][1] + owed == coins + (3 if won else 0) + plunder
    # the sample's saga instruction on its back ("saga_win": 1 Campaign point) is followed for the winner
    points = d["deep_legends"]["campaign_points"].get(me, 0) - s.data["deep_legends"]["campaign_points"].get(
        me, 0
    )
    assert points == (1 if won else 0)
    if won:
        assert any(e["type"] == "saga" and e["what"] == "campaign_points" for e in events)


SAGA_ACTIONS = ("take_saga_item", "trade_saga_item", "explore_encounter", "encounter_fortune")


def test_legal_actions_offer_the_saga_actions_and_each_offered_one_is_accepted():
    """Every Deep Legends action is offered when it may be taken (`legal_actions`), so random players use
    them; each offered one is accepted by the engine. Whole random 3-player games with the sample saga and
    saga items; every saga action offered on the way (the first 40 of each kind) is applied to a copy."""
    offered: dict[str, int] = dict.fromkeys(SAGA_ACTIONS, 0)
    for seed in range(1, 16):  # whole games until each action was offered (a few games)
        if all(offered.values()):
            break
        st = sg.assign_items(sg.new_saga_state(sg.load_saga()), {"1.04": "blue", "1.07": "red"})
        opt = {"saga": st, "items": {"blue": ["1.04"], "red": ["1.07"]}}
        s = api.new_game(["red", "blue", "green"], seed, {"deep_legends": opt})
        rng = random.Random(seed)
        while s.phase != "over":
            asked = [c["winner"] for c in s.data["deep_legends"]["may_take"]]
            legal = {who: api.legal_actions(s, who) for who in {s.active or "table", *asked}}
            for who, acts in legal.items():
                for a in acts:
                    if a["type"] in SAGA_ACTIONS:
                        offered[a["type"]] += 1
                        if offered[a["type"]] <= 40:  # (the first 40 of each kind: trades are many)
                            api.apply(s, {"seq": s.seq, "player": who, "action": a})  # raises if refused
            takers = [c["winner"] for c in s.data["deep_legends"]["may_take"] if not s.data["pending"]]
            who = takers[0] if takers else s.active or "table"
            # the offers asked for above: `s` is as it was (the saga actions were applied to copies), and
            # asking again was a third of the test's time
            acts = legal[who]
            acts = [a for a in acts if a["type"] == "take_saga_item"] or acts
            s, _ = api.apply(s, {"seq": s.seq, "player": who, "action": rng.choice(acts)})
    assert all(n > 0 for n in offered.values()), offered


def test_accelerated_discovery_buries_five_non_saga_cards_of_each_row_deck():
    """ "Before your game, remove 5 randomly selected non-Saga cards from each Row deck and bury them (i.e.
    place them out of the game beneath the Row deck). These cards should NOT include Saga Encounters.\""""
    st = sg.new_saga_state(sg.load_saga())
    base = api.new_game(["red", "blue"], 6, {"deep_legends": {"saga": st}})
    s = api.new_game(["red", "blue"], 6, {"deep_legends": {"saga": st, "accelerate": True}})
    for row in ("1", "2", "3", "4"):
        before = set(base.data["decks"][row]) | {
            sq_card for sq_card in (base.data["grid"][q]["card"] for q in base.data["grid"]) if sq_card
        }
        buried = s.data["buried"][row]
        assert len(buried) == 5 and len(set(buried)) == 5
        assert not set(buried) & set(s.data["decks"][row])
        assert all(c.startswith(f"r{row}-") for c in buried)  # base cards of that row, never saga cards
        assert set(buried) <= before
    # the table reports which cards it buried; a wrong list is one sentence
    told = {r: sorted(api.new_game(["red", "blue"], 6).data["decks"][r])[:5] for r in ("1", "2", "3", "4")}
    s2 = api.new_game(["red", "blue"], 6, {"deep_legends": {"accelerate": told}})
    assert {r: sorted(s2.data["buried"][r]) for r in told} == told
    with pytest.raises(Invalid, match="buries 5 different non-saga cards of the Row 1 deck"):
        api.new_game(["red", "blue"], 6, {"deep_legends": {"accelerate": {**told, "1": told["1"][:4]}}})
    with pytest.raises(Invalid, match="'accelerate' must be true"):
        api.new_game(["red", "blue"], 6, {"deep_legends": {"accelerate": 5}})


def test_golden_island_joins_the_boards_and_buildings_placed_there_cost_double():
    """ "The new Ocean board is named Golden Island, which is a valuable island that is easy to capture,
    however, the cost of all Buildings added to this island is doubled for all effects used to place a
    Building here." "These can simply be added to your game right away." (option `golden_island`; the
    board's values are an invented sample, the rulebook prints none)"""
    from tests.rules.helpers import with_played

    assert "golden-island" not in api.new_game(["red", "blue"], 1).data["pool"]["islands"]
    s = api.new_game(["red", "blue"], 1, {"deep_legends": {"golden_island": True}})
    assert "golden-island" in s.data["pool"]["islands"]
    s, color = with_played(s, "first-mate", 3)  # "build" 2 Buildings
    d = s.data
    for sq, board in (("r1c3", "golden-island"), ("r1c2", "island-05")):
        d["grid"][sq]["board"] = board  # a set-up shortcut: both islands face up, controlled by the player
        slots = 1 if board == "golden-island" else 3
        d["grid"][sq]["island"] = {
            "cubes": [color] * slots,
            "permanent": {},
            "cargo": 0,
            "coins": 0,
            "controller": color,
            "buildings": {"fort": False, "garrison": False, "outpost": False},
            "strikes": {},
        }
    d["p"][color]["dock"], d["p"][color]["ship"]["holds"] = 10, [[0, 0], [0, 0]]
    use = {"atype": "use_ability", "ability": "first-mate:L3:0"}
    # a Fort (4) and an Outpost (3) on Golden Island cost 14: more than the 10 Cargo the player has
    with pytest.raises(Illegal, match="costs 14 Cargo"):
        act(
            s,
            **use,
            args={
                "builds": [{"square": "r1c3", "building": "fort"}, {"square": "r1c3", "building": "outpost"}]
            },
        )
    s2, _ = act(s, **use, args={"builds": [{"square": "r1c3", "building": "outpost"}]})
    assert s2.data["grid"]["r1c3"]["island"]["buildings"]["outpost"] and s2.data["p"][color]["dock"] == 10 - 6
    s3, _ = act(s, **use, args={"builds": [{"square": "r1c2", "building": "outpost"}]})  # elsewhere: 3
    assert s3.data["p"][color]["dock"] == 10 - 3
    with pytest.raises(Invalid, match="'golden_island' must be true or false"):
        api.new_game(["red", "blue"], 1, {"deep_legends": {"golden_island": "yes"}})


def test_an_influence_tile_places_one_cube_once_per_turn_while_its_hold_is_empty():
    """ "If you have a Ship Upgrade tile with an Influence icon, so long as you have no Cargo or Coins in
    that hold, then you may place one Influence cube on an island once per turn." (option
    `influence_tiles`; the tile `basic-influence` is an invented sample)"""
    s = api.new_game(["red", "blue"], 2, {"deep_legends": {"influence_tiles": True}})
    assert s.data["upgrade_supply"]["basic-influence"] == 4
    rng = random.Random(2)
    while s.phase != "main" or s.data["pending"]:
        s, _ = api.apply(
            s, {"seq": s.seq, "player": "table", "action": rng.choice(api.legal_actions(s, "table"))}
        )
    me = s.active
    d = s.data
    d["grid"]["r1c2"]["board"] = "island-05"  # a set-up shortcut: an island with free slots, the Ship there
    d["grid"]["r1c2"]["island"] = {
        "cubes": [None, None, None],
        "permanent": {},
        "cargo": 0,
        "coins": 0,
        "controller": None,
        "buildings": {"fort": False, "garrison": False, "outpost": False},
        "strikes": {},
    }
    p = d["p"][me]
    p["ship"]["at"] = "r1c2"
    with pytest.raises(Illegal, match="Influence icon"):  # no such tile yet
        act(s, "tile_influence", me)
    p["ship"]["hull"][0] = ["basic-influence"]  # the hull space of hold 0
    p["ship"]["holds"] = [[1, 0], [0, 0]]
    with pytest.raises(Illegal, match="no Cargo or Coins in its hold"):
        act(s, "tile_influence", me)
    p["ship"]["holds"] = [[0, 0], [0, 0]]
    assert {"type": "tile_influence"} in api.legal_actions(s, me)
    cubes = p["cubes"]
    s2, _ = act(s, "tile_influence", me)
    assert (
        s2.data["grid"]["r1c2"]["island"]["cubes"] == [me, None, None]
        and s2.data["p"][me]["cubes"] == cubes - 1
    )
    with pytest.raises(Illegal, match="once per turn"):
        act(s2, "tile_influence", me)
    assert {"type": "tile_influence"} not in api.legal_actions(s2, me)
    with pytest.raises(Invalid, match="'influence_tiles' must be true or false"):
        api.new_game(["red", "blue"], 2, {"deep_legends": {"influence_tiles": 1}})
