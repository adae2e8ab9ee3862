"""A person at the table, played by a script: it reads what each tablet shows and taps it, nothing else.

The script never publishes on MQTT, never calls the engine and uses no test hook in the pages: it reads the
rendered page (buttons, prompts, the drawn ocean grid and battle board, and the `data-*` attributes the page
draws anyway: `main[data-seq]`, `#reply[data-request]`) and clicks with Playwright, which scrolls the
element into view and waits until it can be tapped, as a finger would. After each tap it waits for the
event that tap causes (the reply to its request and the state that reply names, or the redrawn entry),
with a deadline, never a fixed sleep.

The player's choices come from what the page offers: a seeded policy among the visible buttons that
prefers actions that make progress (abilities, sailing, buying, attacking) and ends the turn after a few
actions, so that a game reaches its end in a few hundred taps rather than a random walk's thousand.
"""

from __future__ import annotations

import json
import random
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

# What a person sees on one tablet, read in one evaluation (the page's own DOM, nothing else).
SNAPSHOT_JS = """() => {
  const main = document.getElementById('main');
  const all = (sel, root) => [...(root || document).querySelectorAll(sel)];
  const reply = document.getElementById('reply');
  const actions = document.querySelector('#main section.actions');
  const prompts = all('#main section.prompt').map((el) => ({
    id: el.dataset.prompt || '',
    kind: el.dataset.kind || '',
    info: el.classList.contains('info'),
    review: !!el.querySelector('.review'),
    waiting: !!el.querySelector('h3') && /Waiting for/.test(el.querySelector('h3').textContent),
    tray: all('.tray-cube', el).map((b) => ({
      slot: b.dataset.slot, color: b.dataset.color, placed: b.classList.contains('placed'),
    })),
    zones: all('g.bzone[role=button]', el).map((g) => g.dataset.zone),
    buttons: all('button', el).filter((b) => !b.disabled).map((b) => ({
      answer: b.dataset.answer || '', option: b.dataset.option || '', cls: b.className, text: b.textContent,
    })),
  }));
  return JSON.stringify({
    conn: document.getElementById('conn')?.dataset.status || '',
    seq: Number(main?.dataset.seq || -1),
    mySeq: Number(main?.dataset.mySeq || -1),
    over: !!document.querySelector('#main #scores'),
    yourTurn: !!actions && /Your turn/.test(actions.querySelector('h2')?.textContent || ''),
    confirm: !!document.querySelector('#main #confirm'),
    choose: !!document.querySelector('#main #choose'),
    reply: reply ? { request: reply.dataset.request || '', seq: Number(reply.dataset.seq || -1),
      pending: reply.classList.contains('pending'), ok: reply.classList.contains('ok'),
      kind: reply.dataset.kind || '', text: reply.textContent } : null,
    prompts,
    actions: all('#main section.actions button.action').filter((b) => !b.disabled).map((b) => ({
      index: b.dataset.index, type: b.dataset.action, asks: b.classList.contains('asks'), text: b.textContent,
    })),
    sail: all('#main svg.ocean .can-sail').map((g) => g.dataset.square),
  });
}"""

# How much a person leans towards each kind of button (anything unlisted: 1). Loading and unloading
# shuffle goods back and forth; abilities, sailing and buying move the game on.
WEIGHTS = {
    "use_ability": 5.0,
    "move": 3.0,
    "buy": 6.0,
    "attack": 4.0,
    "attack_merchant": 4.0,
    "level_up": 4.0,
    "play_card": 2.0,
    "load": 1.0,
    "unload": 0.5,
    "master_merchant": 0.2,
    # Letters of Marque: discovering and trading Prime Cargo moves the Empire tracks on
    "discover_prime_cargo": 4.0,
    "load_prime": 3.0,
    "trade_favour": 5.0,
    "discard_prime": 1.5,
    "unload_prime": 1.0,
    "bolster_outpost": 3.0,
    "outpost_to_harbor": 2.0,
    "drop_saga_die": 3.0,
}
# Prompts a person answers: everything but the review of a finished battle (optional, nothing waits on it).
ANSWERED = (
    "enter_drop",
    "confirm_drop",
    "battle_ability",
    "battle_correction",
    "confirm_reading",
    "sensor_disagree",
    "level_up",
    "ship_path",
    # Letters of Marque (letters_of_marque.js): a claim to settle, and what no camera reads
    "lom_claim",
    "flip_prime_cargo",
    "saga_die",
    "place_favour_rewards",
    # What the table waits for and no sensor reads (player.js chanceBoxes): an Ocean board with no camera
    # live, a card turned up, who goes first, a Sailor draw, Bonus tokens
    "reveal_board",
    "draw_advancement",
    "choose_first_player",
    "draw_sailors",
    "deal_bonus",
)


class GameStuck(AssertionError):
    pass


@dataclass
class Tally:
    taps: int = 0
    kinds: Counter[str] = field(default_factory=Counter)
    waits: list[float] = field(default_factory=list)  # seconds from a tap to the state it caused, drawn
    refused: list[str] = field(default_factory=list)
    two_zone_cubes: int = 0
    missed: list[str] = field(default_factory=list)  # taps on something the page took away meanwhile
    # Seconds spent per part of the script (reading tablets, tapping, waiting for replies, idle), to see
    # where a tapped game's time goes (docs/benchmarks.md).
    spent: defaultdict[str, float] = field(default_factory=lambda: defaultdict(float))

    @contextmanager
    def timed(self, part: str) -> Iterator[None]:
        t0 = time.monotonic()
        try:
            yield
        finally:
            self.spent[part] += time.monotonic() - t0


class Table:
    """The people at a table: one tablet page per person's seat, and the table view to see the end."""

    def __init__(
        self,
        table_page: Any,
        seats: dict[str, Any],
        seed: int,
        end_after: int = 12,
        two_zone_chance: float = 0.1,
        rail_chance: float = 0.03,
        scan: Callable[[str, Any], None] | None = None,
        scan_every: int = 10,
        weights: dict[str, float] | None = None,
    ) -> None:
        self.table = table_page
        self.seats = seats
        self.rng = random.Random(seed)
        self.end_after = end_after
        self.two_zone_chance = two_zone_chance
        self.rail_chance = rail_chance
        self.scan = scan
        self.scan_every = scan_every
        self.weights = {**WEIGHTS, **(weights or {})}  # this person's leanings (e.g. one eager to fight)
        self.tally = Tally()
        self.known_seq = -1
        self.in_turn: Counter[str] = Counter()
        self.turn_seen: dict[str, bool] = {}
        self.declined: set[tuple[str, int, str]] = set()
        self.last_scan = 0
        self.over = False

    # -- reading ------------------------------------------------------------------------------------

    def look(self, who: str) -> dict[str, Any]:
        with self.tally.timed("look"):
            # One JSON string: Playwright checks a returned object value by value, a string at once.
            snap: dict[str, Any] = json.loads(self.seats[who].evaluate(SNAPSHOT_JS))
        self.known_seq = max(self.known_seq, snap["seq"], snap["mySeq"])
        return snap

    def caught_up(self, who: str, timeout: float = 5.0) -> None:
        """Wait until this tablet shows at least the newest state any tablet has shown (a person looks at
        the tablet once it has changed, not before)."""
        seq = self.known_seq
        with self.tally.timed("caught_up"):
            self._caught_up(who, seq, timeout)

    def _caught_up(self, who: str, seq: int, timeout: float) -> None:
        self.seats[who].wait_for_function(
            f"(() => {{ const m = document.getElementById('main');"
            f" return Number(m.dataset.seq || -1) >= {seq} && Number(m.dataset.mySeq || -1) >= {seq}; }})()",
            timeout=timeout * 1000,
        )

    # -- tapping ------------------------------------------------------------------------------------

    def _click(self, page: Any, selector: str, kind: str) -> None:
        with self.tally.timed("click"):
            page.locator(selector).first.click(timeout=3_000)
        self.tally.taps += 1
        self.tally.kinds[kind] += 1

    def send(self, who: str, selector: str, kind: str) -> dict[str, Any]:
        """A tap that sends something to the table: wait for its reply, then for the state it left."""
        page = self.seats[who]
        before = page.evaluate("() => document.getElementById('reply')?.dataset.request || ''")
        t0 = time.monotonic()
        self._click(page, selector, kind)
        t1 = time.monotonic()
        handle = page.wait_for_function(
            f"""(() => {{ const r = document.getElementById('reply');
              if (!r || r.classList.contains('pending')) return null;
              if ((r.dataset.request || '') === {before!r}) return null;
              const m = document.getElementById('main');
              const seq = Number(r.dataset.seq || -1);
              if (r.classList.contains('ok') && Number(m.dataset.mySeq || -1) < seq) return null;
              return {{ok: r.classList.contains('ok'), kind: r.dataset.kind || '', seq,
                       text: r.textContent}}; }})()""",
            timeout=15_000,
        )
        reply: dict[str, Any] = handle.json_value()
        self.tally.spent["reply"] += time.monotonic() - t1
        self.tally.waits.append(time.monotonic() - t0)
        self.known_seq = max(self.known_seq, reply["seq"])
        if not reply["ok"]:
            self.tally.refused.append(f"{who} {kind}: {reply['text']}")
        return reply

    # -- choosing -----------------------------------------------------------------------------------

    def _prompt_sel(self, p: dict[str, Any]) -> str:
        return f"#main section.prompt[data-prompt={p['id']!r}]"

    def answer_prompt(self, who: str, p: dict[str, Any]) -> bool:
        page, sel, kind = self.seats[who], self._prompt_sel(p), p["kind"]
        if kind == "enter_drop":
            return self.enter_drop(who, p)
        buttons = p["buttons"]
        if not buttons:
            return False
        if kind == "confirm_drop":
            self.send(who, f"{sel} button[data-answer='confirm']", kind)
        elif kind == "battle_correction":
            self.send(who, f"{sel} button[data-answer='accept']", kind)
        elif kind == "battle_ability":
            uses = page.locator(f"{sel} div.ability button.primary").count()
            if uses and self.rng.random() < 0.3:
                self.send(who, f"{sel} div.ability >> nth={self.rng.randrange(uses)} >> button.primary", kind)
            else:
                self.send(who, f"{sel} button.pass", kind)
        elif kind == "lom_claim":
            # A person takes what a claim offers; declining (it asks first) only when nothing else is offered.
            takes = page.locator(f"{sel} button.claim").count()
            if takes:
                self.send(who, f"{sel} button.claim >> nth={self.rng.randrange(takes)}", kind)
            else:
                self._click(page, f"{sel} button.decline", kind)
                page.wait_for_selector("#main #confirm .confirm-yes", timeout=5_000)
                self.send(who, "#main #confirm .confirm-yes", kind)
        elif kind == "draw_sailors" and page.locator(f"{sel} button.pick").count():
            # The cards that came up from the player's own deck: tapped one by one, then sent.
            need = int(page.locator(sel).first.get_attribute("data-count") or "0")
            cards = page.locator(f"{sel} button.pick").evaluate_all("(bs) => bs.map((b) => b.dataset.card)")
            for card in self.rng.sample(cards, need):
                self._click(page, f"{sel} button.pick[data-card='{card}']", "pick a Sailor card")
                page.wait_for_selector(f"{sel} button.pick.picked[data-card='{card}']", timeout=5_000)
            self.send(who, f"{sel} button.send-draw", kind)
        elif kind == "confirm_reading":
            # The camera is unsure of a cube: a person looks at the board and sends what they see (here:
            # the zone the page proposes, the camera's best guess).
            self.send(who, f"{sel} .fix.asked button[data-answer='zone'], {sel} .fix button.primary", kind)
        else:
            i = self.rng.randrange(len(buttons))
            self.send(who, f"{sel} button >> nth={i}", kind)
        return True

    def enter_drop(self, who: str, p: dict[str, Any]) -> bool:
        """Tap each cube of the tray, then the zone where it landed (sometimes a second zone it touches, or
        the rail), then "These are the cubes"."""
        page, sel = self.seats[who], self._prompt_sel(p)
        zones = [z for z in p["zones"] if z != "rail"]
        if not p["tray"] or not zones:
            return False
        for cube in p["tray"]:
            if cube["placed"]:
                continue
            slot = cube["slot"]
            self._click(page, f"{sel} .tray-cube[data-slot='{slot}']", "tray cube")
            page.wait_for_selector(f"{sel} .tray-cube.chosen[data-slot='{slot}']", timeout=5_000)
            zone = "rail" if self.rng.random() < self.rail_chance else self.rng.choice(zones)
            self._tap_zone(page, sel, zone)
            page.wait_for_selector(f"{sel} .tray-cube.placed[data-slot='{slot}']", timeout=5_000)
            also = page.locator(f"{sel} button.also[data-slot='{slot}']")
            if zone != "rail" and self.rng.random() < self.two_zone_chance and also.count():
                second = self.rng.choice([z for z in zones if z != zone] or zones)
                self._click(page, f"{sel} button.also[data-slot='{slot}']", "also touching")
                page.wait_for_selector(f"{sel} .tray-cube.touching[data-slot='{slot}']", timeout=5_000)
                self._tap_zone(page, sel, second)
                page.wait_for_selector(
                    f"{sel} .tray-cube[data-slot='{slot}'][data-zones*=' ']", timeout=5_000
                )
                self.tally.two_zone_cubes += 1
        self.send(who, f"{sel} button[data-answer='send-entry']", "enter_drop")
        return True

    def _tap_zone(self, page: Any, sel: str, zone: str) -> None:
        """Tap the zone low in its well: the cubes already placed sit at its top."""
        target = page.locator(f"{sel} g.bzone[data-zone='{zone}']")
        target.scroll_into_view_if_needed(timeout=5_000)
        shape = target.locator("polygon, rect").first
        box = shape.bounding_box()
        assert box is not None, f"zone {zone} is not drawn"
        target.click(position={"x": box["width"] / 2, "y": box["height"] - 3}, timeout=5_000)
        self.tally.taps += 1
        self.tally.kinds["zone"] += 1

    def act(self, who: str, snap: dict[str, Any]) -> bool:
        """The player's own turn: a weighted choice among the offered buttons; the turn ends after a few."""
        actions = [a for a in snap["actions"] if a["type"] != "resolve_battle"]
        if not actions:
            return False
        ends = [a for a in actions if a["type"] == "end_turn"]
        others = [a for a in actions if a["type"] != "end_turn"]
        if ends and (self.in_turn[who] >= self.end_after or not others):
            pick = self.rng.choice(ends)
        elif others:
            pick = self.rng.choices(others, [self.weights.get(a["type"], 1.0) for a in others])[0]
        else:
            return False
        page = self.seats[who]
        kind = pick["type"]
        if kind == "move" and snap["sail"] and self.rng.random() < 0.5:
            # Sail by tapping a dashed square of the drawn grid instead of the button.
            square = self.rng.choice(snap["sail"])
            self._click(page, f"#main section.map svg.ocean [data-square='{square}']", "sail on the map")
            page.wait_for_selector("#main #confirm, #main #choose, #reply.pending, #reply", timeout=5_000)
            return self._finish_dialogs(who, kind)
        sel = f"#main section.actions button.action[data-index='{pick['index']}']"
        if pick["asks"]:
            self._click(page, sel, kind)
            page.wait_for_selector("#main #confirm .confirm-yes", timeout=5_000)
            reply = self.send(who, "#main #confirm .confirm-yes", kind)
        else:
            reply = self.send(who, sel, kind)
        if reply["ok"]:
            self.in_turn[who] = 0 if kind == "end_turn" else self.in_turn[who] + 1
        return True

    def _finish_dialogs(self, who: str, kind: str) -> bool:
        snap = self.look(who)
        if snap["choose"]:
            n = self.seats[who].locator("#main #choose .way-option").count()
            self.send(who, f"#main #choose .way-option >> nth={self.rng.randrange(n)}", kind)
        elif snap["confirm"]:
            self.send(who, "#main #confirm .confirm-yes", kind)
        else:
            # The tap went out at once: wait for its reply like any other.
            self.seats[who].wait_for_function(
                "(() => { const r = document.getElementById('reply');"
                " return r && !r.classList.contains('pending'); })()",
                timeout=15_000,
            )
        self.in_turn[who] += 1
        return True

    # -- the game -----------------------------------------------------------------------------------

    def step(self) -> bool:
        """One thing a person does, the most pressing first; False when nobody has anything to do now. A tap
        on something that went away meanwhile (the table moved on between looking and tapping) is a missed
        tap: look again."""
        from playwright.sync_api import Error as PlaywrightError

        try:
            return self._step()
        except PlaywrightError as exc:
            self.tally.missed.append(str(exc).splitlines()[0][:160])
            if len(self.tally.missed) > 40:
                raise GameStuck(f"too many missed taps: {self.tally.missed[-5:]}") from None
            return True

    def _step(self) -> bool:
        snaps = {}
        for who in self.seats:
            snap = self.look(who)
            if min(snap["seq"], snap["mySeq"]) < self.known_seq:
                # A person looks at the tablet once it shows what the others already see (a bot's move).
                try:
                    self.caught_up(who, timeout=2.0)
                    snap = self.look(who)
                except Exception:  # noqa: BLE001 - still behind: decide on what it shows, as a person would
                    pass
            snaps[who] = snap
        self.over = all(s["over"] for s in snaps.values())
        # A dialog a person opened is finished first.
        for who, s in snaps.items():
            if s["confirm"] or s["choose"]:
                return self._finish_dialogs(who, "dialog")
        # Then what the table asks (battles first: nothing else moves while one is fought).
        for who, s in snaps.items():
            for p in s["prompts"]:
                if p["info"] or p["waiting"] or p["review"] or p["kind"] not in ANSWERED:
                    continue
                if p["kind"] == "level_up" and (who, s["mySeq"], p["id"]) in self.declined:
                    continue
                if p["kind"] == "level_up" and self.rng.random() < 0.3:
                    self.declined.add((who, s["mySeq"], p["id"]))  # a person may let a level-up pass
                    continue
                if self.answer_prompt(who, p):
                    return True
        # Then the player whose turn it is.
        for who, s in snaps.items():
            if s["yourTurn"]:
                if not self.turn_seen.get(who):
                    self.in_turn[who] = 0
                self.turn_seen = {w: w == who for w in self.seats}
                if self.act(who, s):
                    return True
        return False

    def play(
        self, timeout: float, idle_timeout: float = 60.0, until: Callable[[Table], bool] | None = None
    ) -> float:
        """Tap until every tablet and the table view show the score table (or, given `until`, until it holds
        after a tap); returns the seconds it took."""
        t0 = time.monotonic()
        idle_since = time.monotonic()
        self.over = False
        while True:
            if time.monotonic() - t0 > timeout:
                raise GameStuck(f"no score table after {timeout:.0f} s and {self.tally.taps} taps")
            if until is not None and until(self):
                break
            if self.step():
                idle_since = time.monotonic()
                if self.scan is not None and self.tally.taps - self.last_scan >= self.scan_every:
                    with self.tally.timed("scan"):
                        self.scan_all()
                continue
            if self.over and self.table.locator("#main #scores").count():
                break
            if time.monotonic() - idle_since > idle_timeout:
                raise GameStuck(
                    f"nothing to tap for {idle_timeout:.0f} s at seq {self.known_seq}: "
                    + "; ".join(f"{w}: {self.look(w)['prompts']}" for w in self.seats)
                )
            # Nobody has anything to do: a bot, the simulated tower or the battle driver is acting. Wait for
            # the next state on any tablet (with a deadline), then look again.
            with self.tally.timed("idle"):
                self._wait_for_change(timeout=2.0)
        return time.monotonic() - t0

    def _wait_for_change(self, timeout: float) -> None:
        """Until the table view draws something new (a state, the battle panel changing) or the deadline."""
        sig_js = """() => document.getElementById('main').dataset.seq + '|' +
            (document.getElementById('battle')?.textContent || '')"""
        before = self.table.evaluate(sig_js)
        try:
            self.table.wait_for_function(
                f"(before) => ({sig_js})() !== before", arg=before, timeout=timeout * 1000
            )
        except Exception:  # noqa: BLE001 - nothing new on the table view: look at the tablets again
            pass

    def scan_all(self) -> None:
        assert self.scan is not None
        self.last_scan = self.tally.taps
        self.scan("table", self.table)
        for who, page in self.seats.items():
            self.scan(who, page)
