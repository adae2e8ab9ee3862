"""The table's core: the one place the game state changes, the log is written and state is published.

Owns: opening or resuming a table's game from the log, applying commands (from tablets, sensors or
the simulated players) through `rules.api`, logging every accepted command BEFORE publishing it,
refusing bad commands with one clear sentence (never raising), the MQTT payloads of docs/mqtt.md,
prompts and the tower warning. It holds no rule: legality, views and legal actions come from rules.api.
Thread-safe: every entry point takes one lock, so MQTT, ZeroMQ and timers may call it from any thread.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

import contracts.chance
import rules.api as rules_api
from controller import games, words
from controller.gamelog import GameLog

MAX_COMMAND_BYTES = 64 * 1024
# Actions only the table's own inputs send (the battle session, the camera, the sensors, the engine's own
# chance): a tablet sending them could pick a battle's result, a card or a board. The names are the
# engine's (contracts.chance.CHANCE_TYPES plus the battle record), which the toy engine shares.
CHANCE_TYPES = contracts.chance.CHANCE_TYPES
TABLE_ONLY = frozenset({"resolve_battle", "correction", *CHANCE_TYPES})
# At a physical table (the engine draws nothing itself) chance outcomes that no camera reads have no other
# way in than a tablet tap. Open ones (a card turned up from a row box, who goes first) may come from any
# seated player's tablet; secret ones (a player's own Sailor draw, their Bonus tokens) only from that
# player's; each game declares its own (controller/games/). The engine still checks each is the draw it
# waits for and plausible (the card is in that deck). Ocean boards are reported by the ocean-grid camera
# while it is live and by any seated player's tablet while it is not (the game's `camera_chance`); battle
# results come from the battle session, never from a tablet.
OPEN_CHANCE = games.by_name(games.DEFAULT).open_chance
SECRET_CHANCE = games.by_name(games.DEFAULT).secret_chance


def tablet_may_send(
    action: dict[str, Any],
    player: str,
    observed_chance: bool,
    pending: dict[str, Any] | None = None,
    game: games.TableGame | None = None,
    ocean_camera_live: bool = False,
) -> bool:
    """Whether `player`'s tablet may send `action`; `pending` is the chance the engine waits for first,
    `game` the game played (its open and secret chance; the default game's when None), `ocean_camera_live`
    whether the ocean-grid camera reports the game's `camera_chance` (else a tablet does)."""
    atype = action.get("type")
    if atype not in TABLE_ONLY:
        return True
    if not observed_chance:
        return False
    game = game or games.by_name(games.DEFAULT)
    if atype in game.open_chance:
        return True
    if atype in game.camera_chance:
        return not ocean_camera_live
    if atype in game.secret_chance:
        return pending is not None and pending.get("player") == player
    return False


def table_only_refusal(atype: str) -> str:
    """The sentence a tablet gets for an action only the table may send."""
    if atype == "resolve_battle":
        return (
            "A battle's result comes from the table itself (the tower and the camera, through the battle "
            "session), never from a tablet; answer the battle's prompts or correct a reading instead."
        )
    if atype == "correction":
        return (
            "A correction is made by the controller from a corrected reading; "
            "answer a confirm_reading prompt."
        )
    return (
        f"{atype} is a chance outcome the table itself observes or draws (camera, sensors, the engine's "
        "recorded chance), never a tablet; wait for the table to report it."
    )


class Publisher(Protocol):
    def publish(self, topic: str, payload: Any, retain: bool = False) -> None: ...


class NullPublisher:
    def publish(self, topic: str, payload: Any, retain: bool = False) -> None:
        pass


@dataclass
class Refusal(Exception):
    """A command refused before or by the engine; `kind` is one of the reply kinds of docs/mqtt.md."""

    kind: str
    reason: str

    def __str__(self) -> str:
        return self.reason


PromptHandler = Callable[[str, dict[str, Any]], None]


@dataclass
class Prompt:
    id: str
    kind: str
    text: str
    player: str | None  # None: a public prompt (table/<tid>/prompts)
    data: dict[str, Any] = field(default_factory=dict)
    handler: PromptHandler | None = None  # called with (player, answer); raises Refusal to refuse

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "kind": self.kind, "text": self.text, **self.data}


class TableCore:
    def __init__(
        self,
        log: GameLog,
        table_id: str = "table-1",
        publisher: Publisher | None = None,
        engine: Any = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self.log = log
        self.table_id = table_id
        self.publisher: Publisher = publisher or NullPublisher()
        # The rules engine by a plain import; tests pass another one (tests/controller/toy_engine.py).
        self.engine: Any = engine if engine is not None else rules_api
        self.clock = clock
        self.lock = threading.RLock()
        self.state: Any = None
        self.game_id: str | None = None
        self.players: list[str] = []
        self.game_seed = (
            0  # the open game's seed (simulation derives its own choices from it, never from a clock)
        )
        self.n_events = 0
        self.prompts: dict[str, Prompt] = {}
        self.battle_view: dict[str, Any] | None = None
        self.tower_warning: str | None = None
        # The battle camera's latest reading's warning (light changed since calibration: re-calibrate).
        self.camera_warning: str | None = None
        self.listeners: list[
            Callable[[list[dict[str, Any]]], None]
        ] = []  # called after each accepted command
        self.finished = False
        self.seats: dict[str, str] = {}  # seat -> "person" or "bot" (the table view shows who sits where)
        # The new-game screen: when set (the service sets it), a finished game offers a new one of any game
        # the table plays, set up with the options this returns for the chosen game's name (and, when the
        # screen chose any, the game's choices: its expansions); `new_game_choices` says what it offers.
        self.new_game_options: Callable[..., dict[str, Any]] | None = None
        self.new_game_choices: Callable[[str], list[dict[str, Any]]] | None = None
        self.new_game_listeners: list[Callable[[], None]] = []  # called after a new game is opened
        # Whether the ocean-grid camera reports what it reads (controller/ships.py sets it): while it does
        # not, the game's camera chance (an Ocean board turned up) is reported on a tablet.
        self.ocean_camera_live = False
        # Which of the table's sensors are live ("live") or entered by hand ("manual"), for the table view:
        # each source (the battle driver, the ship watcher) adds its own names.
        self.sensor_sources: list[Callable[[], dict[str, str]]] = []

    @property
    def game(self) -> games.TableGame:
        """How the controller serves the open game (its words, its chance), by the game's own declaration."""
        return games.game_of(self.state)

    # -- opening -------------------------------------------------------------------------------

    @property
    def topic(self) -> str:
        return f"table/{self.table_id}"

    @property
    def epoch(self) -> str:
        return self.game_id or ""

    @property
    def open_game_id(self) -> str:
        """The open game's id, for code that runs only while a game is open (commands, battles)."""
        if self.game_id is None:
            raise Refusal("invalid", "No game is open on this table yet.")
        return self.game_id

    @property
    def seq(self) -> int:
        return int(getattr(self.state, "seq", 0))

    def open_game(
        self, players: list[str], seed: int, options: dict[str, Any] | None = None, resume: bool = True
    ) -> bool:
        """Resume the table's unfinished game from the log, or start a new one. True when resumed."""
        with self.lock:
            row = self.log.active_game(self.table_id) if resume else None
            if row is not None:
                self.game_id, self.players, self.game_seed = row.game_id, row.players, row.seed
                self.state, self.n_events = self.rebuild(row.game_id)
                return True
            options = dict(options or {})
            if hasattr(self.engine, "new_game_with_events"):
                state, genesis = self.engine.new_game_with_events(list(players), seed, options)
            else:
                state, genesis = self.engine.new_game(list(players), seed, options), []
            self.game_id = self.log.create_game(
                self.table_id,
                list(players),
                seed,
                options,
                genesis,
                self.engine.state_to_json(state),
                int(getattr(state, "seq", 0)),
            )
            self.players, self.state, self.n_events = list(players), state, len(genesis)
            self.game_seed = seed
            return False

    def rebuild(self, game_id: str) -> tuple[Any, int]:
        """The game's state from its latest snapshot plus the events logged after it."""
        snap = self.log.latest_snapshot(game_id)
        if snap is None:
            raise RuntimeError(f"game {game_id} has no snapshot; the log is damaged")
        state = self.engine.state_from_json(snap.state)
        events = self.log.events(game_id, after=snap.n)
        for event in events:
            state = self.engine.fold(state, event)
        return state, snap.n + len(events)

    # -- commands ------------------------------------------------------------------------------

    def handle_command(self, player: str, raw: bytes | str) -> dict[str, Any]:
        """A tablet's command (the payload of table/<tid>/player/<p>/cmd) -> its reply. Never raises."""
        request_id: Any = None
        try:
            if len(raw) > MAX_COMMAND_BYTES:
                raise Refusal(
                    "invalid",
                    f"The command is {len(raw)} bytes, more than {MAX_COMMAND_BYTES}; "
                    "send one action at a time.",
                )
            try:
                msg = json.loads(raw)
            except (ValueError, UnicodeDecodeError):
                raise Refusal(
                    "invalid",
                    "The command is not valid JSON; send an object like "
                    '{"request_id": "1", "seq": 3, "action": {"type": ...}}.',
                ) from None
            if not isinstance(msg, dict):
                raise Refusal("invalid", "The command must be a JSON object with request_id and action.")
            request_id = msg.get("request_id")
            if not isinstance(request_id, str) or not request_id:
                raise Refusal(
                    "invalid", "The command has no request_id string; add one so the reply can be matched."
                )
            if "player" in msg and msg["player"] != player:
                raise Refusal("illegal", f"You are {player} and cannot act as {msg['player']!r}.")
            if "prompt_id" in msg:
                self.answer_prompt(player, msg["prompt_id"], msg.get("answer"))
            else:
                action, seq = msg.get("action"), msg.get("seq")
                if not isinstance(action, dict) or not isinstance(action.get("type"), str):
                    raise Refusal(
                        "invalid",
                        'The command has no action object with a "type"; pick one of your legal actions.',
                    )
                if isinstance(seq, bool) or not isinstance(seq, int):
                    raise Refusal(
                        "invalid", "The command has no integer seq; send the seq of the state you acted on."
                    )
                if not tablet_may_send(
                    action,
                    player,
                    self.observed_chance,
                    self._first_pending(),
                    self.game,
                    self.ocean_camera_live,
                ):
                    raise Refusal("illegal", table_only_refusal(action["type"]))
                self.submit(player, action, seq)
            return self._reply(request_id, True, None, None)
        except Refusal as exc:
            return self._reply(request_id, False, exc.kind, exc.reason)
        except Exception as exc:  # noqa: BLE001 - input must never crash the controller
            return self._reply(
                request_id,
                False,
                "invalid",
                f"The command could not be handled ({type(exc).__name__}: {exc}); nothing changed.",
            )

    def _first_pending(self) -> dict[str, Any] | None:
        data = getattr(self.state, "data", None)
        pending = data.get("pending") if isinstance(data, dict) else None
        return pending[0] if pending else None

    @property
    def observed_chance(self) -> bool:
        """True at a physical table: the engine draws nothing and chance is reported to it."""
        data = getattr(self.state, "data", None)
        return isinstance(data, dict) and not data.get("options", {}).get("auto_chance", True)

    def _reply(self, request_id: Any, accepted: bool, kind: str | None, reason: str | None) -> dict[str, Any]:
        return {
            "request_id": request_id if isinstance(request_id, str) else None,
            "accepted": accepted,
            "kind": kind,
            "reason": reason,
            "seq": self.seq,
        }

    def submit(
        self,
        player: str | None,
        action: dict[str, Any],
        seq: int | None = None,
        session_input: tuple[str, dict[str, Any]] | None = None,
    ) -> list[dict[str, Any]]:
        """Apply one action; log it; publish. Raises Refusal (state unchanged) when refused.

        `seq=None` means "against the current state" (sensors and the battle session, which act on
        the state they were told about through this same lock).
        """
        from rules.errors import RulesError

        with self.lock:
            if self.state is None:
                raise Refusal("invalid", "No game is open on this table yet.")
            if seq is not None and seq != self.seq:
                raise Refusal(
                    "stale",
                    f"The game has moved on to seq {self.seq} (you acted on {seq}); "
                    "look at the new state and try again.",
                )
            command = {"seq": self.seq, "player": player, "action": action}
            try:
                state, events = self.engine.apply(self.state, command)
            except RulesError as exc:
                raise Refusal(exc.kind, exc.message) from None
            # Durable first: a crash after this line loses nothing; a crash before it loses nothing accepted.
            self.n_events = self.log.append(
                self.open_game_id,
                command,
                events,
                int(getattr(state, "seq", 0)),
                state=lambda: self.engine.state_to_json(state),
                session_input=session_input,
            )
            self.state = state
            self.publish_events(events)
            for listener in list(self.listeners):
                listener(events)
            self.publish_state()
            return events

    def correct(
        self,
        target_seq: int,
        action: dict[str, Any],
        by: str,
        publish: bool = True,
        session_input: tuple[str, dict[str, Any]] | None = None,
    ) -> dict[str, Any]:
        """A referee correction of an accepted event (e.g. a battle record corrected after its result):
        `rules.api.correct` replaces event `target_seq` by `action` and replays every later command; the
        log keeps the original events and gains the `correction` event (logged before it is published), so
        replaying the log gives the corrected game. `session_input` (battle_id, input) is logged in the same
        transaction, as in `submit`. Returns the correction event; raises Refusal."""
        from rules.errors import RulesError

        with self.lock:
            if self.state is None or not hasattr(self.engine, "correct"):
                raise Refusal("invalid", "This table's engine takes no corrections.")
            events = self.log.events(self.open_game_id)
            try:
                state, corrected = self.engine.correct(events, target_seq, action, referee=by)
            except RulesError as exc:
                raise Refusal(exc.kind, exc.message) from None
            event = corrected[-1]
            command = {"seq": self.seq, "player": by, "action": {k: v for k, v in event["action"].items()}}
            self.n_events = self.log.append(
                self.open_game_id,
                command,
                [event],
                int(getattr(state, "seq", 0)),
                state=lambda: self.engine.state_to_json(state),
                session_input=session_input,
            )
            self.state = state
            self.publish_events([event])
            for listener in list(self.listeners):
                listener([event])
            if publish:
                self.publish_state()
            return event

    # -- prompts -------------------------------------------------------------------------------

    def set_prompt(self, prompt: Prompt, publish: bool = True) -> None:
        with self.lock:
            self.prompts[prompt.id] = prompt
            if publish:
                self.publish_prompts()

    def clear_prompts(self, kind: str | None = None, publish: bool = True) -> None:
        with self.lock:
            self.prompts = {k: p for k, p in self.prompts.items() if kind is not None and p.kind != kind}
            if publish:
                self.publish_prompts()

    def answer_prompt(self, player: str, prompt_id: Any, answer: Any) -> None:
        with self.lock:
            prompt = self.prompts.get(prompt_id) if isinstance(prompt_id, str) else None
            if prompt is None:
                # In the player's words: the prompt's id is the engine's, never shown on a tablet.
                raise Refusal(
                    "stale", "That question is no longer open (answered or closed); look at your prompts."
                )
            if prompt.player is not None and prompt.player != player:
                raise Refusal("illegal", f"That prompt is for {prompt.player}, not {player}.")
            if not isinstance(answer, dict):
                raise Refusal("invalid", "The answer must be a JSON object.")
            if prompt.handler is None:
                raise Refusal("invalid", "That prompt takes no answer.")
            prompt.handler(player, answer)

    # -- payloads and publishing ---------------------------------------------------------------

    def public_payload(self) -> dict[str, Any]:
        game = self.game
        return game.decorate_public(
            self.engine,
            self.state,
            {
                "epoch": self.epoch,
                "seq": self.seq,
                "game": {"name": game.name, "title": game.title},
                "view": self.engine.public_view(self.state),
                "battle": self.battle_view,
                "tower": {"warning": self.tower_warning},
                "camera": {"warning": self.camera_warning},
                "seats": self.seats or {p: "person" for p in self.players},
                "sensors": self.sensors(),
                "ts": self.clock(),
            },
        )

    def sensors(self) -> dict[str, str]:
        """Which sensors are live and which are entered by hand on the tablets (name -> "live"|"manual"): the
        ocean-grid camera where the game's ships stand on the ocean grid, and each source's own."""
        out: dict[str, str] = {}
        if self.game.ocean_grid:
            out["ocean_camera"] = "live" if self.ocean_camera_live else "manual"
        for source in self.sensor_sources:
            try:
                out.update(source())
            except Exception:  # noqa: BLE001 - a status line must never stop a state from publishing
                continue
        return out

    def private_payload(self, player: str, legal: list[dict[str, Any]] | None = None) -> dict[str, Any]:
        if legal is None:
            legal = self.engine.legal_actions(self.state, player)
        pending = self._first_pending()
        game = self.game
        legal = [
            a
            for a in legal
            if tablet_may_send(a, player, self.observed_chance, pending, game, self.ocean_camera_live)
        ]
        return game.decorate_private(
            self.engine,
            self.state,
            player,
            {
                "epoch": self.epoch,
                "seq": self.seq,
                "view": self.engine.private_view(self.state, player),
                "legal_actions": legal,
            },
        )

    def prompts_payload(self, player: str | None) -> dict[str, Any]:
        return self.game.decorate_prompts(
            self.state,
            {
                "epoch": self.epoch,
                "seq": self.seq,
                "prompts": [p.to_json() for p in self.prompts.values() if p.player == player],
            },
            player,
        )

    def publish_state(self) -> None:
        with self.lock:
            if self.state is None:
                return
            self.publisher.publish(f"{self.topic}/state", self.public_payload(), retain=True)
            changed = False
            for p in self.players:
                legal = self.engine.legal_actions(self.state, p)
                self.publisher.publish(
                    f"{self.topic}/player/{p}/state", self.private_payload(p, legal), retain=True
                )
                changed |= self._action_prompt(p, legal)
                changed |= self._choice_prompts(p, legal)
            changed |= self._new_game_prompt()
            if changed:
                self.publish_prompts()

    def _action_prompt(self, player: str, legal: list[dict[str, Any]]) -> bool:
        """A `level_up` prompt while the engine offers this player a level-up (the answer is the action)."""
        pid = f"level_up:{player}"
        cards = [a.get("card") for a in legal if a.get("type") == "level_up"]
        old = self.prompts.get(pid)
        if not cards:
            return self.prompts.pop(pid, None) is not None
        if old is not None and old.data.get("cards") == cards:
            return False

        def answer(who: str, data: dict[str, Any]) -> None:
            if data.get("card") not in cards:
                raise Refusal(
                    "invalid", f"Choose one of your cards to level up: {', '.join(map(str, cards))}."
                )
            self.submit(who, {"type": "level_up", "card": data["card"]})

        self.prompts[pid] = Prompt(
            pid,
            "level_up",
            "You may level up one Sailor card in your hand.",
            player,
            {"cards": cards},
            handler=answer,
        )
        return True

    def _choice_prompts(self, player: str, legal: list[dict[str, Any]]) -> bool:
        """One `choice` prompt per pending choice of the player (rules: plunder to place, a gain owed to a
        full Ship, Battle cubes from islands), its options the engine's legal `choose` actions (and, for an
        owed gain, the jettisons that make room); the answer {"option": i} sends that action."""
        has_prompts = any(k.startswith("choice:") and k.endswith(f":{player}") for k in self.prompts)
        if not has_prompts and not any(a.get("type") == "choose" for a in legal):
            return False  # the usual case: nothing to choose, and the views are not built for it
        you = (self.engine.private_view(self.state, player) or {}).get("you") or {}
        choices = you.get("choices") or []
        view = self.engine.public_view(self.state)
        changed = False
        live = set()
        for c in choices:
            kind = c.get("choice")
            pid = f"choice:{kind}:{player}"
            live.add(pid)
            actions = [
                a
                for a in legal
                if (a.get("type") == "choose" and a.get("choice") == kind)
                or (a.get("type") == "jettison" and a in (c.get("jettisons") or []))
            ]
            options = [
                {"id": i, "label": words.choice_option_label(view, a), "answer": {"option": i}}
                for i, a in enumerate(actions)
            ]
            old = self.prompts.get(pid)
            if old is not None and old.data.get("options") == options and old.data.get("pending") == c:
                continue

            def answer(who: str, data: dict[str, Any], actions: list[dict[str, Any]] = actions) -> None:
                i = data.get("option")
                if isinstance(i, bool) or not isinstance(i, int) or not 0 <= i < len(actions):
                    raise Refusal("invalid", f"Choose one of the {len(actions)} options by its number.")
                self.submit(who, actions[i])

            self.prompts[pid] = Prompt(
                pid,
                "choice",
                words.choice_text(view, c),
                player,
                {"choice": kind, "options": options, "pending": c},
                handler=answer,
            )
            changed = True
        for pid in [k for k in self.prompts if k.startswith("choice:") and k.endswith(f":{player}")]:
            if pid not in live:
                del self.prompts[pid]
                changed = True
        return changed

    def _new_game_prompt(self) -> bool:
        """The new-game screen: once the game is over, any seated player may start the next one, of any game
        the table plays (a public prompt; its answer {"game": name})."""
        pid = "new_game"
        offer = self.new_game_options is not None and self._is_over()
        if not offer:
            return self.prompts.pop(pid, None) is not None
        if pid in self.prompts:
            return False
        choices = self.new_game_choices
        options = [
            {
                "id": g.name,
                "label": g.title,
                "answer": {"game": g.name},
                "choices": choices(g.name) if choices else [],
            }
            for g in games.games().values()
        ]

        def answer(who: str, data: dict[str, Any]) -> None:
            name = data.get("game")
            if name not in games.games():
                raise Refusal(
                    "invalid", f"Choose one of the games this table plays: {', '.join(games.games())}."
                )
            chosen = {k: v for k, v in data.items() if k != "game"}
            problem = games.by_name(str(name)).choice_problem(chosen)
            if problem:
                raise Refusal("invalid", problem)
            self.start_new_game(str(name), chosen)

        self.prompts[pid] = Prompt(
            pid,
            "new_game",
            "The game is over. Play again: choose the game.",
            None,
            {"options": options},
            answer,
        )
        return True

    def _is_over(self) -> bool:
        if hasattr(self.engine, "is_over"):
            return bool(self.engine.is_over(self.state))
        return getattr(self.state, "phase", None) == "over"

    def start_new_game(self, name: str, chosen: dict[str, Any] | None = None) -> None:
        """A new game of `name` for the same seats, after the finished one (a new epoch for the tablets),
        with the new-game screen's `chosen` choices (none: the table's config)."""
        with self.lock:
            if self.state is not None and not self._is_over():
                raise Refusal("illegal", "The game is not over yet; finish it before starting a new one.")
            make = self.new_game_options
            options = (make(name, chosen) if chosen else make(name)) if make else {}
            self.open_game(list(self.players), self.game_seed + 1, options, resume=False)
            self.prompts = {}
            self.battle_view = None
            for listener in list(self.new_game_listeners):
                listener()
            self.publish_all()

    def publish_prompts(self) -> None:
        with self.lock:
            self.publisher.publish(f"{self.topic}/prompts", self.prompts_payload(None), retain=True)
            for p in self.players:
                self.publisher.publish(
                    f"{self.topic}/player/{p}/prompts", self.prompts_payload(p), retain=True
                )

    def publish_events(self, events: list[dict[str, Any]]) -> None:
        view = getattr(self.engine, "event_view", None)
        # Without the engine's filter only the event types leave the controller: a secret never does.
        shown = [view(e, None) if view else {"type": e.get("type")} for e in events if isinstance(e, dict)]
        self.publisher.publish(
            f"{self.topic}/events",
            self.game.decorate_events(self.state, {"epoch": self.epoch, "seq": self.seq, "events": shown}),
        )

    def publish_all(self) -> None:
        """Everything retained, e.g. after a (re)connect to the broker."""
        with self.lock:
            self.publish_state()
            self.publish_prompts()
