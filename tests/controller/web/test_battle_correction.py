"""A camera reading corrected from a tablet re-resolves the battle, through the real controller.

The controller runs in this process (TableCore + MqttLink + the battle driver, the same objects
`controller.service` wires) so the test can play the tower and the camera: it feeds the driver the
tower's counts and a camera reading with one cube the camera is unsure of. The tablet shows the
confirm-reading prompt, the player puts the cube in its true zone, the command goes over MQTT to the
controller's command handler, the session re-evaluates and the engine applies the new outcome. After
the result the table view shows it, and a second correction from the tablet changes the game itself
(a referee correction replayed by the engine), which both pages show.
"""

from __future__ import annotations

from pathlib import Path

from tests.controller.web.conftest import PHONE, TABLE, open_page
from tests.support.game import table_in_battle


def test_correcting_a_cube_from_the_tablet_re_resolves_the_battle(
    browser, broker, display, tmp_path: Path
) -> None:
    with table_in_battle(broker, tmp_path / "battle.db", TABLE) as (core, driver):
        setup = driver.session.setup
        att, dfd = setup.attacker, setup.defender
        assert setup.kind == "ship" and att.cubes >= 1 and dfd.cubes >= 1
        # The camera: every attacker cube in the miss zone, the first one only with low confidence; the
        # defender's first cube in a strength-1 zone, the rest missing. Read as is, the defender wins 1-0;
        # the unsure cube really lies in the strength-2 zone, which makes the attacker win 2-1.
        cubes = [
            {"color": att.cube_color, "zone": "miss", "confidence": 0.2 if i == 0 else 0.95}
            for i in range(att.cubes)
        ]
        cubes += [
            {"color": dfd.cube_color, "zone": "str-1a" if i == 0 else "miss", "confidence": 0.95}
            for i in range(dfd.cubes)
        ]
        driver.start_drop({})
        driver.tower_totals({att.cube_color: att.cubes, dfd.cube_color: dfd.cubes})
        driver.camera({"status": "ok", "cubes": cubes, "redrop": [], "ambiguous": []}, settled=True)
        damage_before = core.engine.public_view(core.state)["p"][dfd.name]["ship"]["damage"]
        attacker_damage = core.engine.public_view(core.state)["p"][att.name]["ship"]["damage"]

        with (
            open_page(browser, display, broker) as table,
            open_page(browser, display, broker, player=att.name, viewport=PHONE) as tablet,
        ):
            table.wait_for_selector("#battle [data-side='attacker'] [data-tally='strength']", timeout=10_000)
            assert table.inner_text("#battle [data-side='attacker'] [data-tally='strength']") == "0"
            assert table.inner_text("#battle [data-side='defender'] [data-tally='strength']") == "1"
            prompt = tablet.locator("[data-kind='confirm_reading']").first
            prompt.wait_for(timeout=10_000)
            # Every cube of the reading can be corrected; the one asked about comes first.
            assert prompt.locator(".fix").count() == len(cubes)
            prompt.locator("select[data-cube='0']").select_option("str-2")
            prompt.locator(".fix[data-cube='0'] button[data-answer='zone']").click()
            tablet.wait_for_selector("#reply.ok", timeout=5_000)
            # The session accepted the corrected reading; the engine applied the new winner's outcome.
            table.wait_for_selector("#battle.over", timeout=5_000)
            view = core.engine.public_view(core.state)
            assert view["battle"] is None
            assert view["p"][dfd.name]["ship"]["damage"] == damage_before + 1  # the loser's damage
            assert view["achievement_cubes"]["legendary"].get(att.name) == 1  # the winner's Legendary cube
            table.wait_for_function(
                f"document.querySelector(\"[data-player='{dfd.name}'] .stat[data-key='damage'] "
                'b").textContent === '
                f"'{damage_before + 1}'",
                timeout=5_000,
            )
            table.wait_for_selector(
                f"[data-achievement='legendary'] .progress .cube.c-{att.cube_color}", timeout=5_000
            )
            # The table view shows the result: the winner, strength per side, each Ship's damage after it.
            table.wait_for_selector(
                "#battle.over[data-phase='resolved'] p.result[data-winner='attacker']", timeout=5_000
            )
            assert table.inner_text("#battle [data-fact='strength']") == "2 – 1"
            assert table.inner_text(f"#battle [data-fact='damage'][data-player='{dfd.name}']") == str(
                damage_before + 1
            )

            # After the result: the camera was right after all (the cube lay in the miss zone). The tablet
            # corrects drop 1's cube 0 again; the game itself changes (a referee correction in the log).
            review = tablet.locator("[data-kind='confirm_reading'] .review").first
            review.wait_for(timeout=5_000)
            review.locator(".fix[data-step='0'][data-cube='0'] select:not([data-also])").select_option("miss")
            review.locator(".fix[data-step='0'][data-cube='0'] button[data-answer='zone']").click()
            tablet.wait_for_selector("#reply.ok", timeout=5_000)
            table.wait_for_selector("#battle p.result[data-winner='defender']", timeout=5_000)
            view = core.engine.public_view(core.state)
            assert (
                view["p"][dfd.name]["ship"]["damage"] == damage_before
            )  # the damage went back to the attacker
            assert view["p"][att.name]["ship"]["damage"] == attacker_damage + 1
            assert not view["achievement_cubes"]["legendary"].get(att.name)
            assert core.log.events(core.open_game_id)[-1]["type"] == "correction"
            table.wait_for_function(
                f"document.querySelector(\"[data-player='{dfd.name}'] .stat[data-key='damage'] "
                'b").textContent === '
                f"'{damage_before}'",
                timeout=5_000,
            )

            # A cube touching two zones ("If any part of a cube is touching a zone, that cube is considered to
            # be in that zone"): the tablet puts it in strength 2 and also touching damage; the damage step
            # removes it before strength counts, so the defender still wins and now takes 1 Damage.
            review = tablet.locator("[data-kind='confirm_reading'] .review").first
            fix = review.locator(".fix[data-step='0'][data-cube='0']")
            fix.wait_for(timeout=5_000)
            fix.locator("select:not([data-also])").select_option("str-2")
            fix.locator("select[data-also]").select_option("dmg-1")
            fix.locator("button[data-answer='zone']").click()
            table.wait_for_function(
                f"document.querySelector(\"[data-player='{dfd.name}'] .stat[data-key='damage'] "
                'b").textContent === '
                f"'{damage_before + 1}'",
                timeout=5_000,
            )
            assert driver.finished is not None
            assert driver.finished["session"].record["corrections"][-1]["zones"] == ["str-2", "dmg-1"]
            view = core.engine.public_view(core.state)
            assert view["p"][att.name]["ship"]["damage"] == attacker_damage + 1  # still the loser
