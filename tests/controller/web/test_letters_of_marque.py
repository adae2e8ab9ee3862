"""Letters of Marque on the tablets (issue 19, "the tablets show the Empire tracks, each player's favour,
letters, bounty and Prime Cargo"; "the camera recognises Prime Cargo tokens and the Saga die's face where
the rules need them (or the tablet asks)").

Real Mosquitto, the controller's core and MQTT link in this process, real headless Chromium. Pieces are laid
out with the rules tests' set-up shortcuts (as a referee would lay them out); every tap is a person's tap on
the page, and the controller's core decides whether it is accepted.
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from pathlib import Path
from typing import Any

from controller.core import TableCore
from rules import api
from rules.dead_reckoning.letters_of_marque.data import lom_data
from tests.controller.web.conftest import PHONE, REPO, open_page
from tests.controller.web.test_game_words import ENGINE_ID, SCAN_JS, live, table_core
from tests.rules.helpers import give_hand, place_island
from tests.rules.letters_of_marque.helpers import lay_found, lay_on_ship, lom, token_of
from tests.support.screenshots import picture

LOM = {"expansions": ["letters-of-marque"]}
PLAYERS = ["red", "blue", "green"]
GUN = "lom-hallowed-gun"
SHOTS = REPO / "docs" / "screenshots"


def lom_core(broker: Any, tmp_path: Path, observed: bool, seed: int = 7) -> AbstractContextManager[TableCore]:
    """The controller's core and MQTT link with a 3-player Letters of Marque game; `observed`: the table
    reports chance (no engine draws: a person taps what a token or the Saga die shows)."""
    return table_core(broker, tmp_path, PLAYERS, seed, {**LOM, "auto_chance": not observed})


def settle(core: TableCore, until: str | None = None) -> None:
    """Report the set-up's chance steps in this process (boards, hands, first player) until `until` is the
    first one waited for."""
    while core.state.data["pending"] and core.state.data["pending"][0]["kind"] != until:
        core.submit(core.players[0], api.legal_actions(core.state, core.players[0])[0], core.seq)


def wait_mine(page: Any, seq: int) -> None:
    page.wait_for_function(
        f"Number(document.getElementById('main').dataset.mySeq || -1) >= {seq}", timeout=15_000
    )


def wait_seq(page: Any, seq: int) -> None:
    page.wait_for_function(
        f"Number(document.getElementById('main').dataset.seq || -1) >= {seq}", timeout=15_000
    )


def tap(page: Any, selector: str) -> None:
    """Tap and wait for the table's answer: accepted, or the test fails with the refusal's sentence."""
    before = page.evaluate("() => document.getElementById('reply')?.dataset.request || ''")
    page.locator(selector).first.click(timeout=5_000)
    page.wait_for_function(
        f"""(() => {{ const r = document.getElementById('reply');
          return r && !r.classList.contains('pending') && (r.dataset.request || '') !== {before!r}; }})()""",
        timeout=15_000,
    )
    assert page.locator("#reply.ok").count(), page.inner_text("#reply")


def engine_ids(page: Any) -> list[str]:
    return [f"{m.group(0)!r} in {t[:80]!r}" for t, _ in page.evaluate(SCAN_JS) for m in ENGINE_ID.finditer(t)]


def test_both_empire_tracks_favour_letters_bounty_and_prime_cargo_are_drawn(
    browser, broker, display, tmp_path
) -> None:
    """The table view and a player's view draw both Empire tracks with every player's current and peak
    Favor where the engine has them, the Favor Reward tokens and Letter icons, Letters held, a bounty, and
    Prime Cargo on the Ship, in Harbor, in the water and on islands; "Undiscovered" tokens are counted face
    down and never named (the state does not even know which they are)."""
    with lom_core(broker, tmp_path, observed=False) as core:
        d = core.state.data
        x = lom(core.state)
        salt, pearls = token_of("moon_salt"), token_of("black_pearls")
        lay_on_ship(core.state, "red", salt, hold=1)
        x["bag"].remove(pearls)
        x["harbor"]["blue"].append(pearls)
        sq = next(s for s, parts in x["boards"].items() if parts["water"]["hidden"])
        venom = token_of("dragonfish", 1)
        lay_found(core.state, sq, "water", venom)
        x["favour"]["red"]["empire-a"] = [3, 5]  # current 3, peak 5 (the Letter space)
        x["favour"]["blue"]["empire-b"] = [-2, 1]  # behind the start space: a bounty
        letter = x["letters_free"]["empire-a"].pop(0)
        x["letters"]["red"].append(letter)
        core.publish_all()
        view = api.public_view(core.state)["expansions"]["letters-of-marque"]
        with (
            open_page(browser, display, broker) as table,
            open_page(browser, display, broker, player="red", viewport=PHONE) as red,
        ):
            for page in (table, red):
                live(page)
                wait_seq(page, core.seq)
                page.wait_for_selector("section.lom .empire", timeout=15_000)
                lom_el = page.locator("section.lom")
                assert lom_el.locator(".empire").count() == 2
                for e, spec in view["empires"].items():
                    track = lom_el.locator(f".empire[data-empire='{e}']")
                    tr = spec["track"]
                    assert track.locator(".space").count() == tr["right"] - tr["left"] + 1
                    assert track.locator(".reward").count() == len(spec["rewards"])  # tokens still there
                    assert track.locator(f".space[data-space='{tr['letter_space']}'] .icon.letter").count()
                    for c, pv in view["players"].items():
                        f = pv["favour"][e]
                        cur = track.locator(f".space[data-space='{f['current']}'] [data-current='{c}']")
                        peak = track.locator(f".space[data-space='{f['peak']}'] [data-peak='{c}']")
                        assert cur.count() == 1 and peak.count() == 1, (e, c, f)
                text = lom_el.inner_text()
                assert "Moon Salt" in text and "Black Pearls" in text and "Dragonfish venom" in text
                red_line = lom_el.locator(".lomplayer[data-player='red']").inner_text()
                assert "hold 2: Moon Salt" in red_line, red_line
                assert lom_data().letters[letter]["name"].removeprefix("Letter of Marque: ") in red_line
                assert "bounty" in lom_el.locator(".lomplayer[data-player='blue']").inner_text()
                assert "Black Pearls" in lom_el.locator(".lomplayer[data-player='blue']").inner_text()
                # face down: counted, never named
                row = lom_el.locator(f".oceancargo li[data-square='{sq}'] .part.water")
                hidden = x["boards"][sq]["water"]["hidden"]
                if hidden:
                    assert row.locator(f".prime.hidden[data-hidden='{hidden}']").count() == 1
                assert row.locator(".prime.hidden").inner_text() == f"{hidden} face down" if hidden else True
                assert row.locator(".prime[data-prime='dragonfish']").count() == 1
                for hid in page.locator("section.lom .prime.hidden").all_inner_texts():
                    assert hid.endswith("face down"), hid
                assert not engine_ids(page), engine_ids(page)
            assert d["p"]["red"]["ship"]["other"] == [0, 1]  # the token takes a hull space (the engine's)
            table.locator("section.lom").scroll_into_view_if_needed()
            picture(table, path=str(SHOTS / "letters-of-marque-table-tablet.png"))
            picture(red.locator("section.lom"), path=str(SHOTS / "letters-of-marque-player-phone.png"))


def test_tablets_ask_for_what_no_camera_reads_favour_rewards_prime_cargo_and_claims(
    browser, broker, display, tmp_path
) -> None:
    """Where no camera reads them, the tablets ask with the engine's options as buttons: laying out the Favor
    Reward tokens, what a Prime Cargo token turned over by the Prime Discovery icon shows (tapped by another
    player than the one who discovered it), and the table view says how each is read. "Undiscovered Prime
    Cargo can be "Discovered" (flipped over) using the Prime Discovery icon if your Ship is on the same Ocean
    board." """
    with lom_core(broker, tmp_path, observed=True) as core:
        settle(core, until="place_favour_rewards")
        with (
            open_page(browser, display, broker) as table,
            open_page(browser, display, broker, player="red", viewport=PHONE) as red,
            open_page(browser, display, broker, player="blue", viewport=PHONE) as blue,
            open_page(browser, display, broker, player="green", viewport=PHONE) as green,
        ):
            seats = {"red": red, "blue": blue, "green": green}
            for page in (table, *seats.values()):
                live(page)
                wait_seq(page, core.seq)
            assert "Prime Cargo tokens: a tablet" in table.locator("section.lom .sensors").inner_text()
            sel = "section.prompt[data-kind='place_favour_rewards'] button.chance"
            red.wait_for_selector(sel, timeout=15_000)
            tap(red, sel)
            table.wait_for_function(
                "document.querySelectorAll('section.lom .reward').length === 14", timeout=15_000
            )
            settle(core)
            me = core.state.active
            assert me is not None
            reporter = next(c for c in PLAYERS if c != me)  # any seated player reports what it shows
            d = core.state.data
            x = lom(core.state)
            sq = next(s for s, parts in x["boards"].items() if parts["water"]["hidden"])
            d["p"][me]["ship"]["at"] = sq  # laid out: the active Ship on a board with face-down Prime Cargo
            give_hand(core.state, me, ["explorer"])
            core.submit(me, {"type": "play_card", "card": "explorer"}, core.seq)  # the Prime Discovery icon
            wait_mine(seats[me], core.seq)
            tap(seats[me], "button.action[data-action='discover_prime_cargo']")
            assert core.state.data["pending"][0]["kind"] == "flip_prime_cargo"
            sel = "section.prompt[data-kind='flip_prime_cargo'] button.chance"
            page = seats[reporter]
            wait_mine(page, core.seq)
            page.wait_for_selector(sel, timeout=15_000)
            options = page.locator(sel).all_inner_texts()
            offered = [a for a in api.legal_actions(core.state, reporter) if a["type"] == "flip_prime_cargo"]
            assert len(options) == len(offered) >= 3, options
            assert all(o.startswith("It is ") and "discard:" in o for o in options), options
            pick = next(i for i, o in enumerate(options) if "Moon Salt" in o)
            tap(page, f"{sel} >> nth={pick}")
            found = lom(core.state)["boards"][sq]["water"]["found"]
            assert [lom_data().tokens[t]["type"] for t in found] == ["moon_salt"]
            table.wait_for_selector(
                f"section.lom .oceancargo li[data-square='{sq}'] .prime[data-prime='moon_salt']",
                timeout=15_000,
            )
            # A Favor Reward owed to the player whose turn it is: a prompt with its options and Decline.
            lom(core.state)["claims"][me].append({"kind": "reward", "reward": "fr-05"})  # a reward to choose
            coins = core.state.data["p"][me]["chest"]
            core.publish_all()
            sel = "section.prompt[data-kind='lom_claim']"
            seats[me].wait_for_selector(f"{sel} button.claim", timeout=15_000)
            assert seats[me].locator(f"{sel} h3").inner_text() == "Favor Reward: repair 2 Damage or 2 Coins"
            assert seats[me].locator(f"{sel} button.decline").count() == 1
            owed = f"section.lom .lomplayer[data-player='{me}'] .owed"  # the table view shows what is owed
            table.wait_for_selector(owed, timeout=15_000)
            assert "repair 2 Damage or 2 Coins" in table.inner_text(owed)
            tap(seats[me], f"{sel} button.claim:has-text('Take 2 Coins')")
            assert core.state.data["p"][me]["chest"] == coins + 2 and not lom(core.state)["claims"][me]
            seats[me].wait_for_selector(sel, state="detached", timeout=15_000)
            table.wait_for_selector(owed, state="detached", timeout=15_000)
            for page in (table, *seats.values()):
                assert not engine_ids(page), engine_ids(page)


def test_the_saga_die_is_tapped_face_by_face_where_no_camera_reads_it(
    browser, broker, display, tmp_path
) -> None:
    """The Hallowed Gun: "lets you drop a Saga Die into the Battle tower"; "If you roll a 2: Replace the die
    with a cube from your supply, move it into an adjacent zone, then repeat the process of dropping a die."
    The player taps Drop, the tablets ask for the face (0, 1, 2), a 2 asks again."""
    with lom_core(broker, tmp_path, observed=True, seed=3) as core:
        settle(core)
        me = core.state.active
        assert me is not None
        other = next(c for c in PLAYERS if c != me)
        d = core.state.data
        place_island(core.state, "r1c1", "island-05")
        d["p"][other]["ship"].update(at="r1c1", pirate=True)
        d["p"][me]["ship"]["hull"][1] = [GUN]
        d["turn"]["extra_sails"] += 1
        core.submit(me, {"type": "set_sails"}, core.seq)
        core.submit(me, {"type": "move", "path": ["r1c1"]}, core.seq)
        assert core.state.data["battle"]
        cubes = core.state.data["battle"]["setup"]["attacker"]["cubes"]
        with open_page(browser, display, broker, player=me, viewport=PHONE) as page:
            live(page)
            wait_mine(page, core.seq)
            tap(page, "button.action[data-action='drop_saga_die']")
            sel = "section.prompt[data-kind='saga_die'] button.chance"
            wait_mine(page, core.seq)
            page.wait_for_selector(sel, timeout=15_000)
            assert page.locator(sel).all_inner_texts() == ["It shows 0", "It shows 1", "It shows 2"]
            tap(page, f"{sel} >> nth=2")
            wait_mine(page, core.seq)
            assert core.state.data["pending"][0]["kind"] == "saga_die"  # a 2: dropped again
            page.wait_for_selector(sel, timeout=15_000)
            tap(page, f"{sel} >> nth=0")
            assert not core.state.data["pending"]
            assert core.state.data["battle"]["setup"]["attacker"]["cubes"] == cubes + 2
            assert not engine_ids(page), engine_ids(page)
