"""The Great Sea's Combat Cards against the broker's ACLs (issue 21: "combat cards are chosen secretly on each
player's tablet and revealed together by the controller (the broker's ACLs keep them secret until then)").

`smart-table run` in its default configuration (its own embedded Mosquitto with deploy/'s ACL; only the ports
moved and `table.game = "great-sea"`) resumes a 4-player game at the start of its first Combat. The attacker's
tablet chooses a card; the defender's login, a bystander player's login and the display (spectator) login,
each subscribed to every filter it can think of, never receive that card before the defender has chosen too;
an anonymous client is refused outright. Then the defender chooses and every login receives both cards
(the attack was real: the same subscriptions do carry the card once it is public).
"""

from __future__ import annotations

import json
import random
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from controller.core import TableCore
from controller.testing import free_port
from rules import api
from tests.security.conftest import PLAYERS, TABLE, Login, Table, _config, running_table
from tests.support.game import quick_log

pytestmark = pytest.mark.integration

FILTERS = ("#", "table/#", f"table/{TABLE}/player/#", "+/+/player/+/state", "+/+/+/+/+", "$share/g/table/#")


def first_combat(db: Path, seed: int) -> tuple[str, str]:
    """The table's log holding a 4-player game of The Great Sea at the start of its first Combat (the
    table's set-up: no fsync per command)."""
    log = quick_log(db)
    try:
        core = TableCore(log, TABLE)
        core.open_game(list(PLAYERS), seed, {"game": "great-sea"})
        rng = random.Random(seed)
        while not api.is_over(core.state):
            p = core.state.data["active"]
            legal = api.legal_actions(core.state, p)
            attack = [a for a in legal if a["type"] == "initiate_combat"]
            core.submit(p, attack[0] if attack else rng.choice(legal), core.seq)
            combat = core.state.data["combat"]
            if attack:
                return combat["attacker"], combat["defender"]
        raise AssertionError("no Combat in this seeded game")
    finally:
        log.close()


@pytest.fixture(scope="module")
def sea_table(tmp_path_factory) -> Iterator[tuple[Table, str, str]]:
    tmp = tmp_path_factory.mktemp("great-sea-table")
    attacker, defender = first_combat(tmp / "table.db", seed=1)
    ports = {k: free_port() for k in ("http", "mqtt", "ws", "pub", "cmd", "ctl", "vis", "cam", "shp")}
    conf = _config(tmp, ports)
    conf.write_text(conf.read_text().replace("[table]\n", '[table]\ngame = "great-sea"\n', 1))
    with running_table(tmp, ports, conf) as t:
        yield t, attacker, defender


def without_own_hand(payload: Any) -> Any:
    """A payload less what names the receiver's own Combat Cards (its hand, its own legal actions and their
    words): every player holds the same Basic cards, so those name the chosen card without leaking it."""
    if not isinstance(payload, dict):
        return payload
    out = dict(payload)
    out.pop("legal_actions", None)
    if isinstance(out.get("view"), dict):
        out["view"] = {k: v for k, v in out["view"].items() if k != "you"}
    if isinstance(out.get("words"), dict):
        out["words"] = {k: v for k, v in out["words"].items() if k not in ("actions", "hand", "chosen")}
    return out


def seen(c: Login, start: int, predicate: Any, timeout: float = 30) -> list[Any]:
    """The messages `c` received since `start`, once one of them matches (waited for with a deadline)."""
    deadline = time.monotonic() + timeout
    while not any(predicate(m) for m in c.history[start:]):
        assert time.monotonic() < deadline, "no matching message"
        time.sleep(0.05)
    return list(c.history[start:])


def is_state(seq: int) -> Any:
    return lambda m: m.topic == f"table/{TABLE}/state" and json.loads(m.payload)["seq"] >= seq


def play(t: Table, c: Login, who: str, card: str) -> int:
    """`who`'s tablet (login `c`, already subscribed to its own tree) sends its Combat Card on its own
    command topic; returns the accepted reply's seq."""
    base = f"table/{TABLE}/player/{who}"
    mine = seen(c, 0, lambda m: m.topic == f"{base}/state")
    seq = max(json.loads(m.payload)["seq"] for m in mine if m.topic == f"{base}/state")
    start = len(c.history)
    cmd = {"request_id": f"{who}-{card}", "seq": seq, "action": {"type": "play_combat_card", "card": card}}
    c.publish(f"{base}/cmd", json.dumps(cmd))
    got = seen(c, start, lambda m: m.topic == f"{base}/reply")
    reply = json.loads(next(m.payload for m in got if m.topic == f"{base}/reply"))
    assert reply["accepted"], reply
    return int(reply["seq"])


def test_a_chosen_combat_card_reaches_no_other_login_before_the_reveal(sea_table) -> None:
    t, attacker, defender = sea_table
    bystanders = [p for p in PLAYERS if p not in (attacker, defender)]
    anonymous = Login(t, None)
    try:
        assert anonymous.wait_connected() is False, "an anonymous client was let in"
    finally:
        anonymous.close()
    watchers = {u: Login(t, u) for u in (defender, bystanders[0], "display")}
    try:
        for user, c in watchers.items():
            assert c.wait_connected(), f"{user}'s own login was refused"
            for f in FILTERS:
                try:
                    c.subscribe(f)
                except AssertionError:
                    pass  # a subscription refused outright is fine
        chooser = Login(t, attacker)
        assert chooser.wait_connected()
        chooser.subscribe(f"table/{TABLE}/player/{attacker}/#")
        card = "basic_attack"
        marks = {u: len(c.history) for u, c in watchers.items()}
        seq = play(t, chooser, attacker, card)
        # Everything each login receives up to the public state of that seq (what must arrive).
        for user, c in watchers.items():
            got = seen(c, marks[user], is_state(seq))
            for m in got:
                shown = without_own_hand(json.loads(m.payload))
                assert card not in json.dumps(shown), f"{user} read {attacker}'s card on {m.topic}"
                view = shown.get("view") if isinstance(shown, dict) else None
                chosen = ((view or {}).get("combat") or {}).get("chosen")
                if chosen:
                    assert not isinstance(chosen[attacker], dict), (user, m.topic, chosen)
                    if shown.get("seq", -1) >= seq:
                        assert chosen[attacker] is True, (user, m.topic, chosen)  # chosen, and no more
            assert not [m.topic for m in got if f"/player/{attacker}/" in m.topic], user
        # The reveal: the defender chooses (on its own login), and every login now receives both cards.
        other = "basic_shields"
        marks = {u: len(c.history) for u, c in watchers.items()}
        seq = play(t, watchers[defender], defender, other)
        for user, c in watchers.items():
            got = seen(c, marks[user], is_state(seq))
            revealed = [
                e
                for m in got
                if m.topic == f"table/{TABLE}/events"
                for e in json.loads(m.payload)["events"]
                if e.get("type") == "combat_revealed"
            ]
            assert revealed, f"{user} never saw the reveal"
            cards = revealed[0]["cards"]
            assert cards[attacker]["card"] == card and cards[defender]["card"] == other
        chooser.close()
    finally:
        for c in watchers.values():
            c.close()
