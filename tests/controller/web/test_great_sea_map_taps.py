"""The Great Sea's map tapped (issue 21, "At the table"; the README's "Ships are moved by buttons naming both
regions"), in real Chromium against `smart-table run` and a real Mosquitto: a player taps their Ships on the
map, the regions the engine's legal moves reach are outlined, a tap on one moves them (several moves ending
there, one Ship or several, are offered by their words); the move buttons stay. The 2-player map draws its
rocky reef from the map's data; a lost Combat's retreat (who retreats, to which Shipyards) and the Fort
grids (`fort_places`) are on the tablets in the game's words."""

from __future__ import annotations

import random
from contextlib import ExitStack
from typing import Any

import pytest

from controller.core import TableCore
from controller.games import great_sea_words
from controller.mqtt import MqttLink
from rules import api
from rules.great_sea.map import spec
from tests.controller.web.conftest import PHONE, TABLE, open_page, ready
from tests.controller.web.test_great_sea_tablets import SEA, log_game, seeded_commands
from tests.controller.web.test_whole_game import SHOTS, final_state, smart_table_run
from tests.support.game import quick_log
from tests.support.screenshots import picture


def legs(a: dict[str, Any]) -> list[tuple[str, str, str]]:
    if a["type"] == "move":
        return [(m[0], m[1], m[2]) for m in a["moves"]]
    if a["type"] == "start_move":
        return [(a["from"], a["to"], a["cls"])]
    return []


def replayed(players: list[str], seed: int, commands: list[dict[str, Any]]) -> Any:
    state = api.new_game(players, seed, SEA)
    for c in commands:
        state, _ = api.apply(state, {"seq": state.seq, **c})
    return state


def regions_tagged(page: Any, tag: str) -> set[str]:
    return set(
        page.eval_on_selector_all(
            f"svg.seamap g.region[data-tap={tag}]", "els => els.map(e => e.dataset.region)"
        )
    )


@pytest.mark.timeout(300)
def test_ships_are_moved_by_tapping_the_map_and_the_reef_is_drawn(browser, broker, display, tmp_path) -> None:
    players = ["red", "blue"]
    # Seed 3's first 8 moves: Blue's Mobilise is open, several moves lead from one region to another.
    commands = seeded_commands(players, 3)[:8]
    log_game(tmp_path / "game.db", players, 3, commands)
    state = replayed(players, 3, commands)
    mover = state.data["active"]
    legal = [a for a in api.legal_actions(state, mover) if legs(a)]
    sources = {f for a in legal for f, _, _ in legs(a)}
    with (
        smart_table_run(broker, tmp_path, players, 3, simulate=False, game="great-sea") as db,
        ExitStack() as st,
    ):
        table = st.enter_context(open_page(browser, display, broker))
        page = st.enter_context(open_page(browser, display, broker, player=mover, viewport=PHONE))
        ready([table, page])
        page.wait_for_selector("svg.seamap g.region[data-tap=source]", timeout=20_000)
        assert regions_tagged(page, "source") == sources  # every region the engine lets Ships leave
        assert page.locator("#main [data-group=move] button").count() > 0  # the buttons stay
        # The reef, on both screens, where the map's data puts it (the 2-player side).
        reef = {"|".join(pair) for pair in spec("2")["reef"]}
        for p in (table, page):
            drawn = p.eval_on_selector_all("svg.seamap g.reef", "els => els.map(e => e.dataset.reef)")
            assert set(drawn) == reef and reef
        # Tap a Ship of the player's in a region where several moves lead to one region.
        by_pair: dict[tuple[str, str], list[dict[str, Any]]] = {}
        for a in legal:
            for pair in dict.fromkeys((f, t) for f, t, _ in legs(a)):
                by_pair.setdefault(pair, []).append(a)
        (src, dst), options = next((k, v) for k, v in sorted(by_pair.items()) if len(v) >= 2)
        page.locator(f"svg.seamap g.region[data-region={src}] g.ship[data-owner={mover}]").first.click()
        page.wait_for_selector(f"svg.seamap g.region.selected[data-region={src}]", timeout=10_000)
        assert regions_tagged(page, "dest") == {t for a in legal for f, t, _ in legs(a) if f == src}
        picture(page, path=str(SHOTS / "great-sea-move-tapped-phone.png"), full_page=False)
        page.locator(f"svg.seamap g.region[data-region={dst}]").click()
        chooser = page.locator("#main #choose[data-kind=choose_move]")
        chooser.wait_for(timeout=10_000)
        labels = chooser.locator("button.way-option").all_inner_texts()
        view = api.private_view(state, mover)
        expected = sorted(options, key=lambda a: len(legs(a)))
        assert labels == [great_sea_words.action_words(view, mover, a)["label"] for a in expected]
        assert all(great_sea_words.region_name(dst) in label for label in labels)
        seq = state.seq
        chooser.locator("button.way-option").last.click()  # the most Ships
        page.wait_for_function(f"Number(document.getElementById('main').dataset.seq) > {seq}", timeout=20_000)
        page.wait_for_selector("#main #reply.ok", timeout=10_000)
        assert not page.locator("#main #choose").count()
        table.wait_for_function(
            f"Number(document.getElementById('main').dataset.seq) > {seq}", timeout=20_000
        )
    after = final_state(db)
    moved = expected[-1]
    want, _ = api.apply(state, {"seq": state.seq, "player": mover, "action": moved})
    assert after.data["regions"] == want.data["regions"]  # exactly the tapped move, as the engine made it


def to_a_retreat(players: list[str], seed: int) -> list[dict[str, Any]]:
    """A seeded game leaning to Combat, up to a loser's retreat with a Shipyard besides its home."""
    state = api.new_game(players, seed, SEA)
    rng = random.Random(seed)
    out: list[dict[str, Any]] = []
    while not api.is_over(state):
        c = state.data["combat"]
        if c is not None and c["stage"] == "retreat":
            return out
        p = state.data["active"]
        legal = api.legal_actions(state, p)
        attack = [a for a in legal if a["type"] == "initiate_combat"]
        action = attack[0] if attack and rng.random() < 0.7 else rng.choice(legal)
        out.append({"player": p, "action": action})
        state, _ = api.apply(state, {"seq": state.seq, "player": p, "action": action})
    raise AssertionError("no retreat in this seeded game")


@pytest.mark.timeout(300)
def test_the_retreat_and_the_fort_grids_are_on_the_tablets_in_words(
    browser, broker, display, tmp_path
) -> None:
    """The controller's core and MQTT link in this process (the game brought to a retreat by its seeded
    commands; a controller resuming this log reads Stern and Bow tiles swapped: docs/great-sea.md), real
    Mosquitto and Chromium."""
    players = ["red", "blue", "green"]
    commands = to_a_retreat(players, 4)
    log = quick_log(tmp_path / "game.db")  # the table's set-up: no fsync per command
    core = TableCore(log, TABLE)
    core.open_game(players, 4, dict(SEA))
    for c in commands:
        core.submit(c["player"], c["action"], core.seq)
    link = MqttLink(broker.host, broker.port, "controller", broker.users["controller"], table_id=TABLE)
    core.publisher = link
    link.start(core)
    state = core.state
    view = api.public_view(state)
    loser = view["combat"]["retreat"]["player"]
    words = great_sea_words.public_words(view)
    try:
        with ExitStack() as st:
            table = st.enter_context(open_page(browser, display, broker))
            page = st.enter_context(open_page(browser, display, broker, player=loser, viewport=PHONE))
            core.publish_all()
            ready([table, page])
            for p in (table, page):
                p.wait_for_selector("#main .combat p.retreat", timeout=20_000)
                text = p.inner_text("#main .combat p.retreat")
                assert text == words["combat"]["retreat"]
                assert f"{loser.capitalize()} retreats" in text and f"({loser.capitalize()}'s home)" in text
            # The Fort grids with a tile on them, each space in words, on the table view.
            grids = words["fort_grids"]
            shown = table.eval_on_selector_all(
                "section.seaboard table.fortgrid",
                "els => els.map(t => [t.closest('section').dataset.player, t.dataset.fort,"
                " [...t.querySelectorAll('td')].map(td => td.innerText)])",
            )
            assert shown, "no Fort grid drawn"
            for color, fort, cells in shown:
                assert cells == [c or "—" for row in grids[color][fort] for c in row]
            # The loser's retreat buttons, one per option the engine offers, in words.
            buttons = page.locator("#main [data-group=retreat] button")
            legal = api.legal_actions(state, loser)
            pview = api.private_view(state, loser)
            labels = [great_sea_words.action_words(pview, loser, a)["label"] for a in legal]
            assert buttons.all_inner_texts() == labels
            # Or on the map: the Combat's region, then a Shipyard outlined (each option's, from the engine).
            region = view["combat"]["region"]
            page.locator(f"svg.seamap g.region[data-region={region}]").click()
            page.wait_for_selector(f"svg.seamap g.region.selected[data-region={region}]", timeout=10_000)
            assert regions_tagged(page, "dest") == {r for a in legal for r in a["to"]}
            picture(page, path=str(SHOTS / "great-sea-retreat-phone.png"), full_page=False)
            seq = state.seq
            ending = [a for a in legal if legal[-1]["to"][0] in a["to"]]
            page.locator(f"svg.seamap g.region[data-region={legal[-1]['to'][0]}]").click()
            if len(ending) > 1:  # several distributions send a Ship there: chosen by their words
                page.locator("#main #choose button.way-option").last.click()
            page.wait_for_function(
                f"Number(document.getElementById('main').dataset.seq) > {seq}", timeout=20_000
            )
            page.wait_for_selector("#main #reply.ok", timeout=10_000)
            assert not page.locator("#main .combat p.retreat").count()
        chosen = legal[-1]["to"][0]
        assert any(s["owner"] == loser for s in core.state.data["regions"][chosen]["ships"])
    finally:
        link.stop()
        log.close()
