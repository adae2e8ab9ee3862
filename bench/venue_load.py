"""The venue at scale: many tables bridged to one venue Mosquitto and PostgreSQL, watched by spectators.

    python bench/venue_load.py [--tables 30] [--spectators 200] [--seconds 60] [--speed 20]
                               [--command-every 3.0] [--outage 5] [--broker-signal TERM|KILL]
                               [--controllers 3] [--bot-delay 1.5] [--json]

What runs (all real, all on loopback): a throwaway PostgreSQL cluster (venue.testing), the venue
Mosquitto (deploy/mosquitto/venue.conf and venue-acl), the venue service (`python -m smart_table venue`,
a child process), one Mosquitto per table (deploy/mosquitto/mosquitto.conf plus the bridge lines of
controller.broker.venue_bridge), and spectators: MQTT-over-WebSocket clients (paho, `spectator` login) at
the venue broker, each watching one table's state and events, spread over a few worker processes.

The tables are light publishers, not whole controllers: each replays a game recorded at the start from
the rules engine and random legal bots (its public events and public state per accepted command, as the
controller publishes them), one command every `--command-every` seconds divided by `--speed` (1: table
speed; 20: twenty times faster), with the send time in each payload for the latency. `--controllers N`
adds N whole tables among them (`whole-1`...): `python -m smart_table run --simulate` with bots in every
seat, each with its own embedded Mosquitto bridged by its `[venue]` config, simulated firmware (the camera
as the fast "model"), a bot action every `--bot-delay` s (default: the light tables' pace,
--command-every / --speed), its SQLite log and the gap refill, exactly as a table runs;
what each had logged when the publishers stop must be at the venue too (`lost` counts both kinds). Their
payloads carry no send time, so the latency is the light tables'.

In the middle (`--outage` seconds, 0: never) the venue broker is stopped (`--broker-signal`) and
PostgreSQL is crashed (`pg_ctl -m immediate`), then both are started again. At the end the publishers stop
and the bench waits for the venue to catch up, then compares the rows in PostgreSQL with the messages the
tables' brokers accepted: `lost` must be 0.

Reported: message rate into the venue and out to spectators, publish-to-spectator latency (median, p99,
outside the outage), CPU of the venue broker, PostgreSQL, the venue service and the table brokers (from
/proc), rows written per second. docs/venue.md records runs and what the numbers mean.
"""

from __future__ import annotations

import argparse
import contextlib
import faulthandler
import functools
import heapq
import json
import multiprocessing as mp
import os
import random
import secrets
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import paho.mqtt.client as mqtt  # noqa: E402
import psycopg  # noqa: E402

from controller.broker import venue_bridge, write_broker_files  # noqa: E402
from controller.credentials import login  # noqa: E402
from controller.gamelog import GameLog  # noqa: E402
from controller.testing import MOSQUITTO, Broker, _wait_listening, free_port, table_toml  # noqa: E402
from venue.refill import TableRefill  # noqa: E402
from venue.testing import Postgres, Venue, make_venue, running_postgres  # noqa: E402

COLOURS = ["red", "blue", "green", "yellow"]
TICK = os.sysconf("SC_CLK_TCK")


# -- recorded games --------------------------------------------------------------------------------


def record_games(count: int, seed: int) -> list[list[tuple[int, str, str]]]:
    """`count` complete bot games: per accepted command (seq, events JSON, public state JSON), each JSON
    with its `epoch` and the send time left out (filled in at publish time)."""
    from rules import api

    games = []
    for g in range(count):
        state = api.new_game(COLOURS, seed + g)
        rng = random.Random(seed + g)
        game = []
        while state.phase != "over":
            who = state.active or "table"
            state, events = api.apply(
                state, {"seq": state.seq, "player": who, "action": rng.choice(api.legal_actions(state, who))}
            )
            shown = [api.event_view(e, None) for e in events]
            game.append(
                (
                    state.seq,
                    json.dumps({"seq": state.seq, "events": shown}),
                    json.dumps({"seq": state.seq, "view": api.public_view(state)}),
                )
            )
        games.append(game)
    return games


T0 = time.time()


def say(what: str) -> None:
    """Progress on stderr (stdout is the result)."""
    print(f"[{time.time() - T0:6.1f} s] {what}", file=sys.stderr, flush=True)


def stamped(body: str, epoch: str, sent: float) -> str:
    """A recorded payload with its game id and send time, without parsing it again."""
    return f'{{"epoch": "{epoch}", "sent": {sent:.6f}, ' + body[1:]


# -- CPU from /proc --------------------------------------------------------------------------------


def _ticks(pid: int) -> int | None:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return None
    return int(fields[11]) + int(fields[12])  # utime + stime


def _children(pid: int) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(stat[1]) == pid:
                found.append(int(entry))
    return found


def _family(roots: list[int]) -> list[int]:
    """The roots and every process below them, from one pass over /proc (the meter samples every 0.5 s in
    the publishers' loop: a pass per process starved the publishers)."""
    parents: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                ppid = int(Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            parents.setdefault(ppid, []).append(int(entry))
    family, todo = [], list(roots)
    while todo:
        pid = todo.pop()
        family.append(pid)
        todo += parents.get(pid, [])
    return family


class CpuMeter:
    """CPU seconds per group of processes; a process that exits keeps its last reading, so a broker or
    a database restarted in the middle counts both lives."""

    def __init__(self) -> None:
        self.last: dict[str, dict[int, int]] = {}
        self.pids: dict[str, Any] = {}

    def watch(self, group: str, pids: Any) -> None:
        """`pids`: a function returning the group's current pids (they change across a restart)."""
        self.pids[group] = pids
        self.last.setdefault(group, {})

    def sample(self) -> None:
        for group, pids in self.pids.items():
            for pid in pids():
                t = _ticks(pid)
                if t is not None:
                    self.last[group][pid] = t

    def seconds(self) -> dict[str, float]:
        return {g: sum(v.values()) / TICK for g, v in self.last.items()}


# -- spectators ------------------------------------------------------------------------------------


def spectator_worker(ws_port: int, password: str, tables: list[str], stop: Any, ready: Any, out: Any) -> None:
    """One process's spectators: a paho WebSocket client per watched table id, latencies to `out`."""
    lat: list[tuple[str, float, float]] = []
    lock = threading.Lock()
    clients = []

    def on_connect(c: mqtt.Client, tid: str, _f: Any, reason: Any, _p: Any = None) -> None:
        if not reason.is_failure:
            c.subscribe([(f"table/{tid}/state", 0), (f"table/{tid}/events", 0)])
            ready.put(1)

    def on_message(_c: mqtt.Client, tid: str, msg: mqtt.MQTTMessage) -> None:
        now = time.time()
        # The send time is the payload's second key (stamped()): found without parsing kilobytes of JSON.
        head = msg.payload[:80]
        i = head.find(b'"sent": ')
        if i >= 0 and not msg.retain:
            sent = float(head[i + 8 : head.index(b",", i)])
            with lock:
                lat.append((tid, now, now - sent))

    for tid in tables:
        c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, transport="websockets", userdata=tid)
        c.username_pw_set("spectator", password)
        c.on_connect = on_connect
        c.on_message = on_message
        c.reconnect_delay_set(1, 2)
        c.connect_async("127.0.0.1", ws_port, keepalive=30)
        c.loop_start()
        clients.append(c)
    stop.wait()
    for c in clients:
        c.disconnect()
        c.loop_stop()
    with lock:
        out.put(lat)


# -- the run ---------------------------------------------------------------------------------------


class Table:
    def __init__(self, tid: str, game: list[tuple[int, str, str]], offset: int) -> None:
        self.tid, self.game, self.i, self.round = tid, game, offset, 0
        self.epoch = f"{tid}-g0"
        # --refill: the table's game log and the controller's gap refill (venue/refill.py), as a real table.
        self.log: GameLog | None = None
        self.refill: TableRefill | None = None
        # Each events message sent, with paho's record of it: is_published() once the table's broker
        # acknowledged it (QoS 1), which is what the venue must end up storing.
        self.sent: list[tuple[mqtt.MQTTMessageInfo, tuple[str, int]]] = []
        self.last_state: tuple[str, int] | None = None
        self.client: mqtt.Client | None = None


def start_mosquitto(conf: Path, directory: Path, port: int, ws_port: int) -> Broker:
    proc = subprocess.Popen(
        [MOSQUITTO, "-c", str(conf)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    broker = Broker("127.0.0.1", port, ws_port, {}, directory, proc)
    _wait_listening(broker, 30)
    return broker


def stop_process(proc: subprocess.Popen[bytes], sig: int = signal.SIGTERM) -> None:
    if proc.poll() is None:
        proc.send_signal(sig)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    if proc.stderr:
        proc.stderr.close()


class Whole:
    """A whole simulated table (`smart-table run --simulate`, bots in every seat) bridged to the venue."""

    def __init__(self, tid: str, tmp: Path, venue: Venue, bot_delay: float, env: dict[str, str]) -> None:
        self.tid, self.db = tid, tmp / f"{tid}.db"
        ports = {k: free_port() for k in ("mqtt", "ws", "pub", "cmd", "vis", "shp", "ctl", "cam")}
        conf = tmp / f"{tid}.toml"
        conf.write_text(
            table_toml(
                {
                    "table": {
                        "id": tid,
                        "database": str(self.db),
                        "bots": ["red", "blue", "green", "yellow"],
                        "bot_delay": bot_delay,
                    },
                    "mqtt": {"port": ports["mqtt"], "ws_port": ports["ws"]},
                    "display": {"enabled": False},
                    "simulate": {"camera": "model"},
                    "venue": {
                        "host": "127.0.0.1",
                        "port": venue.port,
                        "password": venue.users[login(tid, "bridge")],
                    },
                },
                ports,
            )
        )
        conf.chmod(0o600)
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "smart_table", "run", "--simulate", "--config", str(conf)],
            cwd=tmp,
            env=env,
            stdout=open(tmp / f"{tid}.out", "wb"),  # noqa: SIM115 - the child keeps it
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

    def pids(self) -> list[int]:
        return _family([self.proc.pid])

    def logged(self) -> set[tuple[str, int]]:
        """(game, seq) of every command with events in the table's log so far."""
        if not self.db.exists():
            return set()
        log = GameLog(self.db)
        try:
            return {(g.game_id, seq) for g in log.games(self.tid) for seq, _ in log.events_by_seq(g.game_id)}
        finally:
            log.close()


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))]


def run(args: argparse.Namespace) -> dict[str, Any]:
    games = record_games(args.games, args.seed)
    say(f"recorded {len(games)} bot games")
    tids = [f"table-{n + 1}" for n in range(args.tables)]
    whole_tids = [f"whole-{n + 1}" for n in range(args.controllers)]
    rng = random.Random(args.seed)
    tables = [
        Table(t, games[n % len(games)], rng.randrange(len(games[n % len(games)]))) for n, t in enumerate(tids)
    ]
    period = args.command_every / args.speed
    result: dict[str, Any] = {
        "tables": args.tables,
        "spectators": args.spectators,
        "seconds": args.seconds,
        "speed": args.speed,
        "command_every_s": args.command_every,
        "refill": args.refill,
        "whole_controllers": args.controllers,
        "bot_delay_s": args.bot_delay if args.bot_delay is not None else round(period, 3),
        "recorded_games": [len(g) for g in games],
    }
    with contextlib.ExitStack() as stack:
        tmp = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="venue-load-")))
        pg: Postgres = stack.enter_context(running_postgres())
        venue: Venue = make_venue(tmp / "venue", tids + whole_tids)
        venue_broker = start_mosquitto(venue.conf, venue.directory, venue.port, venue.ws_port)
        brokers: list[Broker] = []

        def cleanup() -> None:
            for b in brokers:
                stop_process(b.process, signal.SIGKILL)
            stop_process(venue_broker.process, signal.SIGKILL)

        stack.callback(cleanup)
        meter = CpuMeter()
        meter.watch("venue_broker", lambda: [venue_broker.process.pid])
        meter.watch("postgres", lambda: _postgres_pids(pg))
        meter.watch("table_brokers", lambda: [b.process.pid for b in brokers])

        # The venue service, as a venue runs it.
        env = dict(os.environ, PYTHONPATH=f"{ROOT}{os.pathsep}{os.environ.get('PYTHONPATH', '')}")
        env["SMART_TABLE_VENUE_PASSWORD"] = venue.users["venue"]
        service = subprocess.Popen(
            [sys.executable, "-m", "smart_table", "venue", "--broker", f"127.0.0.1:{venue.port}"]
            + ["--dsn", pg.dsn, "--http-port", "0"],
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=open(tmp / "service.log", "wb"),  # noqa: SIM115 - the child keeps it
            cwd=ROOT,
        )
        stack.callback(stop_process, service)
        meter.watch("venue_service", lambda: [service.pid])

        # One Mosquitto per table, bridged to the venue.
        for t in tables:
            users = {login(t.tid, "controller"): secrets.token_urlsafe(9)}
            port, ws = free_port(), free_port()
            bridge = venue_bridge(
                t.tid,
                {"host": "127.0.0.1", "port": venue.port, "password": venue.users[login(t.tid, "bridge")]},
            )
            conf = write_broker_files(tmp / t.tid, users, "127.0.0.1", port, ws, "127.0.0.1", extra=bridge)
            b = start_mosquitto(conf, tmp / t.tid, port, ws)
            b.users.update(users)
            brokers.append(b)
            if args.refill:
                t.log = GameLog(tmp / f"{t.tid}.db")
                t.epoch = t.log.create_game(t.tid, COLOURS, 0, {}, [], {}, 0)
                # The recorded events are already the public view: re-sent as they were published.
                t.refill = TableRefill(t.log, t.tid, functools.partial(_send, t), _as_published)
            t.client = _publisher(t, b)

        say(f"{len(brokers)} table brokers bridged to the venue")
        bot_delay = args.bot_delay if args.bot_delay is not None else period
        wholes = [Whole(tid, tmp, venue, bot_delay, env) for tid in whole_tids]
        for w in wholes:
            stack.callback(stop_process, w.proc, signal.SIGINT)
        meter.watch("whole_controllers", lambda: _family([w.proc.pid for w in wholes]) if wholes else [])
        if wholes:
            _wait_rows(
                pg,
                lambda n: n >= len(tids) + len(wholes),
                180,
                "the whole tables at the venue",
                "venue_tables",
            )
            say(f"{len(wholes)} whole controllers playing")
        # Spectators: each watches one table, spread over worker processes.
        ctx = mp.get_context("spawn")
        stop_spectators, ready, out = ctx.Event(), ctx.Queue(), ctx.Queue()
        workers = []
        per = [
            [tids[i % len(tids)] for i in range(w, args.spectators, args.workers)]
            for w in range(args.workers)
        ]
        for chunk in per:
            if chunk:
                p = ctx.Process(
                    target=spectator_worker,
                    args=(venue.ws_port, venue.users["spectator"], chunk, stop_spectators, ready, out),
                    daemon=True,  # ended with the bench, however it ends
                )
                p.start()
                workers.append(p)
        meter.watch("spectators", lambda: [p.pid for p in workers if p.pid])
        for _ in range(args.spectators):
            ready.get(timeout=120)
        say(f"{args.spectators} spectators connected")
        _wait_rows(pg, lambda n: n >= 0, 60, "the venue service's schema")
        say("publishing")

        # Publish for --seconds; the outage in the middle.
        start = time.time()
        meter.sample()
        cpu0 = meter.seconds()
        outage: tuple[float, float] | None = None
        rows = RowSampler(pg)
        rows.start()
        heap = [(start + rng.random() * period, n) for n in range(len(tables))]
        heapq.heapify(heap)
        next_sample = start
        kill_at = start + args.seconds / 2 if args.outage > 0 else float("inf")
        while True:
            now = time.time()
            if now >= start + args.seconds:
                break
            if now >= kill_at and outage is None:
                outage = (now, 0.0)
                meter.sample()
                say("outage: stopping the venue broker and crashing PostgreSQL")
                stop_process(venue_broker.process, getattr(signal, f"SIG{args.broker_signal}"))
                pg.stop()
                restart_at = now + args.outage
            if outage is not None and outage[1] == 0.0 and now >= restart_at:
                meter.sample()
                pg.start()
                venue_broker = start_mosquitto(venue.conf, venue.directory, venue.port, venue.ws_port)
                outage = (outage[0], time.time())
                say("venue broker and PostgreSQL back")
            if now >= next_sample:
                meter.sample()
                next_sample = now + 0.5
            when, n = heap[0]
            if when > now:
                time.sleep(min(when - now, 0.05))
                continue
            heapq.heapreplace(heap, (when + period, n))
            _publish_next(tables[n])
        end = time.time()
        meter.sample()
        cpu1 = meter.seconds()

        say("publishers stopped; waiting for the venue to catch up")
        # Everything the table brokers accepted must reach PostgreSQL.
        for t in tables:
            _wait_acked(t, 60)
        acked = {t.tid: accepted(t) for t in tables}
        want = sum(len(v) for v in acked.values())
        # The whole tables play on; what they had logged by now must reach the venue (by bridge or refill).
        whole_logged = {w.tid: w.logged() for w in wholes}
        acked.update(whole_logged)
        whole_events = sum(len(v) for v in whole_logged.values())
        deadline = time.time() + args.catch_up
        while True:
            # Row counts cannot tell: the whole tables keep adding rows. Every expected key must be there.
            stored = _stored(pg)
            lost = sorted(
                (tid, e, s)
                for tid, keys in acked.items()
                for (e, s) in keys
                if (e, s) not in stored.get(tid, set())
            )
            caught = not lost
            if caught or time.time() > deadline:
                break
            time.sleep(0.5)
        caught_at = time.time()
        if lost:
            say("lost messages; the venue service's log ends:\n" + (tmp / "service.log").read_text()[-3000:])
        rows.stop.set()
        say("caught up" if caught else "did not catch up")
        stop_spectators.set()
        lat: list[tuple[str, float, float]] = []
        for _ in workers:
            lat += out.get(timeout=60)
        for p in workers:
            p.join(30)
        for t in tables:
            if t.client is not None:
                t.client.disconnect()
                t.client.loop_stop()
            if t.log is not None:
                t.log.close()

    published = 2 * want  # an events and a state message per command
    # Latency outside the outage (and the 15 s after it, while the queues drain): the steady state.
    steady = [
        (tid, d) for (tid, at, d) in lat if outage is None or not (outage[0] - 1 <= at <= outage[1] + 15)
    ]
    window = [d for _, d in steady]
    per_table: dict[str, list[float]] = {}
    for tid, d in steady:
        per_table.setdefault(tid, []).append(d)
    medians = [pct(v, 0.5) for v in per_table.values()]
    p99s = [pct(v, 0.99) for v in per_table.values()]
    wall = end - start
    cpu = {g: round(100 * (cpu1[g] - cpu0.get(g, 0.0)) / wall, 1) for g in cpu1}
    result.update(
        {
            "messages_published": published,
            "publish_rate_per_s": round(published / wall, 1),
            "spectator_deliveries": len(lat),
            "spectator_rate_per_s": round(len(lat) / wall, 1),
            "latency_ms_median": round(1000 * pct(window, 0.5), 1),
            "latency_ms_p99": round(1000 * pct(window, 0.99), 1),
            "latency_ms_max": round(1000 * max(window), 1) if window else None,
            "latency_samples": len(window),
            "per_table_median_ms_min_max": [round(1000 * min(medians), 1), round(1000 * max(medians), 1)]
            if medians
            else None,
            "per_table_p99_ms_min_max": [round(1000 * min(p99s), 1), round(1000 * max(p99s), 1)]
            if p99s
            else None,
            "cpu_percent_of_one_core": cpu,
            # Event rows only; each command's state also updates its table's row (one more write).
            "event_rows_per_s_before_outage": rows.rate(start, outage[0] if outage else end),
            "event_rows_per_s_catching_up": rows.rate(outage[1] if outage else end, caught_at),
            "catch_up_s_after_publishing": round(caught_at - end, 1),
            "event_rows_expected": want,
            "whole_controller_events_expected": whole_events,
            "event_rows_stored": sum(len(v) for v in stored.values()),
            "caught_up": caught,
            "lost": len(lost),
            "lost_examples": lost[:5],
            "outage_s": round(outage[1] - outage[0], 1) if outage else 0,
            "broker_signal": args.broker_signal if outage else None,
            "uptime": Path("/proc/loadavg").read_text().split()[:3],
        }
    )
    return result


def _publisher(t: Table, b: Broker) -> mqtt.Client:
    c = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id=f"controller-{t.tid}", protocol=mqtt.MQTTv311)
    c.username_pw_set(login(t.tid, "controller"), b.users[login(t.tid, "controller")])
    c.max_queued_messages_set(0)
    c.max_inflight_messages_set(1000)

    if t.refill is not None:
        handlers = t.refill.handlers()

        def on_connect(c: mqtt.Client, _u: Any, _f: Any, _r: Any, _p: Any = None) -> None:
            c.subscribe([(f"table/{t.tid}/{suffix}", 1) for suffix in handlers])

        def on_message(_c: mqtt.Client, _u: Any, msg: mqtt.MQTTMessage) -> None:
            handler = handlers.get(msg.topic.removeprefix(f"table/{t.tid}/"))
            if handler is not None:
                handler(bytes(msg.payload))

        c.on_connect = on_connect
        c.on_message = on_message
    c.connect("127.0.0.1", b.port, keepalive=30)
    c.loop_start()
    return c


def _as_published(event: dict[str, Any], _player: str | None) -> dict[str, Any]:
    return event


def _send(t: Table, topic: str, payload: Any) -> None:
    assert t.client is not None
    t.client.publish(topic, json.dumps(payload), qos=1)


def _publish_next(t: Table) -> None:
    assert t.client is not None
    if t.i >= len(t.game):
        t.i, t.round = 0, t.round + 1
        t.epoch = f"{t.tid}-g{t.round}"
        if t.log is not None:
            t.epoch = t.log.create_game(t.tid, COLOURS, t.round, {}, [], {}, 0)
    seq, events, state = t.game[t.i]
    t.i += 1
    if t.log is not None:  # durable first, as the controller does
        t.log.append(t.epoch, {"seq": seq - 1, "player": "bot"}, json.loads(events)["events"], seq)
    now = time.time()
    info = t.client.publish(f"table/{t.tid}/events", stamped(events, t.epoch, now), qos=1)
    t.sent.append((info, (t.epoch, seq)))
    t.client.publish(f"table/{t.tid}/state", stamped(state, t.epoch, now), qos=1, retain=True)
    t.last_state = (t.epoch, seq)


def _wait_acked(t: Table, timeout: float) -> None:
    deadline = time.time() + timeout
    while not all(info.is_published() for info, _ in t.sent) and time.time() < deadline:
        time.sleep(0.05)


def accepted(t: Table) -> set[tuple[str, int]]:
    return {key for info, key in t.sent if info.is_published()}


def _postgres_pids(pg: Postgres) -> list[int]:
    pidfile = pg.directory / "data" / "postmaster.pid"
    try:
        pid = int(pidfile.read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return []
    return [pid, *_children(pid)]


def _count(pg: Postgres, table: str) -> int:
    try:
        with psycopg.connect(pg.dsn, connect_timeout=2) as conn:
            row = conn.execute(f"SELECT COUNT(*) FROM {table}").fetchone()  # noqa: S608 - our own name
        return int(row[0]) if row else 0
    except psycopg.Error:
        return -1


class RowSampler(threading.Thread):
    """The venue_events row count every half second (while the database answers): rows written per second
    from the rows themselves (PostgreSQL's statistics counters lag a busy backend by up to a minute)."""

    def __init__(self, pg: Postgres) -> None:
        super().__init__(daemon=True)
        self.pg, self.stop = pg, threading.Event()
        self.samples: list[tuple[float, int]] = []

    def run(self) -> None:
        while not self.stop.wait(0.5):
            n = _count(self.pg, "venue_events")
            if n >= 0:
                self.samples.append((time.time(), n))

    def rate(self, t0: float, t1: float) -> float | None:
        inside = [(t, n) for t, n in self.samples if t0 <= t <= t1]
        if len(inside) < 2 or inside[-1][0] == inside[0][0]:
            return None
        return round((inside[-1][1] - inside[0][1]) / (inside[-1][0] - inside[0][0]), 1)


def _wait_rows(pg: Postgres, ok: Any, timeout: float, what: str, table: str = "venue_events") -> bool:
    deadline = time.time() + timeout
    while time.time() < deadline:
        n = _count(pg, table)
        if n >= 0 and ok(n):
            return True
        time.sleep(0.25)
    print(f"gave up waiting for {what} after {timeout:.0f} s", file=sys.stderr)
    return False


def _stored(pg: Postgres) -> dict[str, set[tuple[str, int]]]:
    with psycopg.connect(pg.dsn) as conn:
        rows = conn.execute("SELECT table_id, epoch, seq FROM venue_events").fetchall()
    out: dict[str, set[tuple[str, int]]] = {}
    for tid, epoch, seq in rows:
        out.setdefault(tid, set()).add((epoch, int(seq)))
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--tables", type=int, default=30)
    ap.add_argument("--spectators", type=int, default=200)
    ap.add_argument("--seconds", type=float, default=60.0, help="how long the tables publish")
    ap.add_argument("--speed", type=float, default=20.0, help="1: table speed; 20: twenty times faster")
    ap.add_argument(
        "--command-every", type=float, default=3.0, help="seconds between commands at table speed"
    )
    ap.add_argument(
        "--outage", type=float, default=5.0, help="seconds the venue broker and database are down"
    )
    ap.add_argument("--broker-signal", choices=["TERM", "KILL"], default="TERM")
    ap.add_argument(
        "--refill",
        action="store_true",
        help="each table keeps a game log and answers the venue's gap refill (venue/refill.py)",
    )
    ap.add_argument("--games", type=int, default=3, help="bot games recorded for the tables to replay")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--workers", type=int, default=4, help="processes the spectators are spread over")
    ap.add_argument("--catch-up", type=float, default=120.0, help="seconds to wait for the venue to catch up")
    ap.add_argument("--controllers", type=int, default=0, help="whole simulated tables among the light ones")
    ap.add_argument(
        "--bot-delay",
        type=float,
        help="the whole tables' bots: seconds per action (default: the tables' pace)",
    )
    ap.add_argument("--json", action="store_true", help="print one JSON object")
    args = ap.parse_args()
    for name in ("tables", "spectators", "workers", "games"):
        if getattr(args, name) < 1:
            ap.error(f"--{name} must be at least 1")
    if args.seconds <= 0 or args.speed <= 0 or args.command_every <= 0:
        ap.error("--seconds, --speed and --command-every must be positive")
    faulthandler.register(signal.SIGUSR1, all_threads=True)  # `kill -USR1 <pid>`: where a slow run is
    # SIGTERM (e.g. from `timeout`) unwinds the run, so its brokers, database and workers are stopped.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    result = run(args)
    if args.json:
        print(json.dumps(result))
    else:
        for k, v in result.items():
            print(f"{k:40} {v}")
    return 0 if result["lost"] == 0 else 1


if __name__ == "__main__":
    raise SystemExit(main())
