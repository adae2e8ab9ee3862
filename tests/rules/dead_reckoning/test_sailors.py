"""The Sailor Card Reference, level by level, as the engine reads it (rules/data/sailors.json)."""

from __future__ import annotations

from rules.dead_reckoning.cards import load_catalog

S = load_catalog().sailors


def _effects(kind, level, i=0):
    return S[kind][level - 1]["abilities"][i]


def test_captain():
    assert S["captain"][0] == {"icons": {"sail": 1}, "abilities": []}
    assert S["captain"][1]["icons"] == {"attack_flag": 1, "wheel": 1}
    l3 = _effects("captain", 3)
    assert (
        l3["battle"] == "coins_per_wheel_on_win"
        and l3["params"]["coins"] == 0
        and l3["params"]["ship_battles_only"]
    )
    assert S["captain"][3]["icons"] == {"attack_flag": 1, "wheel": 1, "cannon": 1}
    assert _effects("captain", 4)["params"]["coins"] == 2


def test_crew():
    for level, n in ((1, 1), (2, 2), (3, 3), (4, 4)):
        assert _effects("crew", level)["effects"][0]["amount"] == n
    assert _effects("crew", 4)["effects"][0]["to"] == "dock_or_ship"
    assert _effects("crew", 2, 1)["where"] == "harbor" and _effects("crew", 2, 1)["pay"]["cargo"] == 2
    assert "where" not in _effects("crew", 3, 1) and _effects("crew", 3, 1)["pay"]["cargo"] == 2
    assert "pay" not in _effects("crew", 4, 1) and _effects("crew", 4, 1)["effects"][0]["do"] == "repair"


def test_first_mate_bosun_gunner():
    assert [_effects("first-mate", lv)["effects"][0].get("amount") for lv in (2, 3, 4)] == [1, 2, 3]
    assert all(S["bosun"][lv]["icons"] == {"wheel": 1} for lv in (1, 2, 3))
    assert len(_effects("bosun", 3)["choice"]) == 2 and len(_effects("bosun", 4)["choice"]) == 3
    adv = _effects("bosun", 4)["choice"][2]
    assert adv["pay"]["cargo"] == 6 and adv["effects"][0] == {"do": "upgrade", "category": "advanced"}
    assert [S["gunner"][lv]["icons"].get("cannon", 0) for lv in range(4)] == [0, 1, 1, 1]
    assert [a.get("battle") for a in S["gunner"][3]["abilities"]] == [
        None,
        "drop_extra_cubes",
        "remove_cube_for_damage_and_coins",
    ]
    assert S["gunner"][3]["abilities"][2]["params"] == {"damage": 1, "coins": 2}


def test_deck_hand_buccaneer_purser():
    assert [alt["effects"][0] for alt in _effects("deck-hand", 3)["choice"]] == [
        {"do": "influence", "amount": 1},
        {"do": "sails", "amount": 2},
    ]
    assert _effects("deck-hand", 4)["effects"] == [
        {"do": "influence", "amount": 1},
        {"do": "sails", "amount": 3},
    ]
    assert [_effects("buccaneer", lv)["effects"][0]["amount"] for lv in (1, 2, 3, 4)] == [1, 2, 3, 4]
    assert [_effects("purser", lv)["effects"][0]["amount"] for lv in (1, 2, 3, 4)] == [1, 2, 3, 4]
    assert _effects("purser", 4)["effects"][0]["boost"] == {"cargo": 1, "coins": 1}


def test_starting_deck():
    assert load_catalog().deck == {
        "captain": 1,
        "purser": 1,
        "first-mate": 1,
        "bosun": 1,
        "buccaneer": 1,
        "gunner": 2,
        "deck-hand": 2,
        "crew": 3,
    }
