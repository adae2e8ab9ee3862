"""Benchmark of the serial link: bytes per event against the 115200-baud line limit, throughput, and
latency from the device's write to the bridge's ZeroMQ publish.

    python bench/serial_link.py [--events N] [--latency-events N]

The simulator runs in this process (it records when it writes each event); the bridge runs as a
separate process exactly as deployed (`smart-table bridge`), and a ZeroMQ subscriber here timestamps
each event. Both use CLOCK_MONOTONIC, which is shared by all processes on the machine.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import zmq

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from firmware_bridge import wire  # noqa: E402
from firmware_bridge.sim import Faults, FirmwareSim  # noqa: E402

EVENT_TYPES = {"cube_dropped", "tower_quiet", "zone_state", "fault"}
BAUD = 115200


def frame_sizes(sim: FirmwareSim) -> tuple[float, float]:
    """Mean (payload bytes, bytes on the wire incl. COBS and delimiter) over the events the sim sent."""
    payload, wire_bytes = [], []
    for msg in sim.sent:
        sizes = {
            "cube_dropped": wire.P_CUBE.size,
            "tower_quiet": wire.P_QUIET.size,
            "fault": wire.P_FAULT.size,
        }
        n = sizes.get(msg["type"])
        if n is None:  # zone_state: t_ms + rows, cols, square bits, harbor count, harbor bits
            n = 4 + 2 + (msg["rows"] * msg["cols"] + 7) // 8 + 1 + (len(msg["harbor"]) + 7) // 8
        payload.append(n)
        wire_bytes.append(len(wire.encode_frame(wire.CUBE_DROPPED, msg["seq"], bytes(n), wire.FLAG_EVENT, 1)))
    return statistics.mean(payload), statistics.mean(wire_bytes)


def run(events: int, baud: int | None, interval_ms: float, faults: Faults | None = None) -> dict[str, float]:
    with tempfile.TemporaryDirectory() as tmp:
        sim = FirmwareSim(
            link=os.path.join(tmp, "tower"), seed=42, baud=baud, interval_ms=interval_ms, faults=faults
        )
        path = sim.start()
        env = {**os.environ, "PYTHONPATH": str(REPO)}
        bridge = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "smart_table",
                "bridge",
                "--device",
                path,
                "--zmq-pub",
                "tcp://127.0.0.1:*",
                "--zmq-cmd",
                "tcp://127.0.0.1:*",
            ],
            cwd=REPO,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        ctx: zmq.Context[Any] = zmq.Context.instance()
        sub = ctx.socket(zmq.SUB)
        try:
            banner = bridge.stderr.readline() if bridge.stderr else ""
            endpoint = re.search(r"events on (tcp://[\d.]+:\d+)", banner)
            if not endpoint:
                raise SystemExit(f"bridge did not start: {banner}")
            sub.setsockopt(zmq.SUBSCRIBE, b"bridge.")
            sub.setsockopt(zmq.RCVHWM, 0)
            sub.connect(endpoint.group(1))
            # Wait until the link is up and our subscription is live (health comes every second).
            deadline = time.monotonic() + 10
            while True:
                if time.monotonic() > deadline or sub.poll(5000) == 0:
                    raise SystemExit("the bridge did not report the link up within 10 s")
                topic, body = sub.recv_multipart()
                if topic == b"bridge.health" and json.loads(body)["link"] == "up":
                    break
            sim.play_random(events)
            arrivals: dict[int, float] = {}
            first_write = None
            deadline = time.monotonic() + 120
            while len(arrivals) < events and time.monotonic() < deadline:
                if sub.poll(1000):
                    topic, body = sub.recv_multipart()
                    now = time.monotonic()
                    if topic != b"bridge.event":
                        continue
                    msg = json.loads(body)
                    if msg["type"] in EVENT_TYPES:
                        arrivals[msg["seq"]] = now
                first_write = first_write or min(sim.write_times.values(), default=None)
            assert len(arrivals) == events, f"only {len(arrivals)} of {events} events arrived"
            lat = sorted((arrivals[seq] - sim.write_times[(1, seq)]) * 1000 for seq in arrivals)
            span = max(arrivals.values()) - min(sim.write_times.values())
            payload, wire_bytes = frame_sizes(sim)
            return {
                "events_per_s": events / span,
                "median_ms": statistics.median(lat),
                "p99_ms": lat[min(len(lat) - 1, int(0.99 * len(lat)))],
                "payload": payload,
                "wire": wire_bytes,
            }
        finally:
            sub.close(0)
            bridge.terminate()
            bridge.wait(10)
            sim.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--events", type=int, default=2000, help="events for the throughput runs")
    parser.add_argument("--latency-events", type=int, default=300, help="events for the latency runs")
    args = parser.parse_args()

    line = BAUD / 10  # bytes/s: 8N1 spends 10 bits a byte
    t115 = run(args.events, BAUD, 0)
    payload, wire_bytes = t115["payload"], t115["wire"]
    limit = line / wire_bytes
    print(
        f"bytes per event: payload {payload:.1f}, on the wire {wire_bytes:.1f} "
        f"(header 8 + CRC 2 + COBS + delimiter; overhead ratio {wire_bytes / payload:.2f})"
    )
    print(f"line limit at {BAUD} baud: {line:.0f} B/s = {limit:.0f} events/s")
    print(
        f"throughput at {BAUD} baud (paced sim -> pty -> bridge -> ZeroMQ): "
        f"{t115['events_per_s']:.0f} events/s = {t115['events_per_s'] / limit:.2f} of the line limit"
    )
    fast = run(args.events, None, 0)
    print(f"throughput on an unpaced pty (CPU-bound): {fast['events_per_s']:.0f} events/s")
    lossy = run(args.events, None, 0, Faults(drop=0.005, flip=0.005, dup=0.02))
    print(
        f"throughput on an unpaced pty with 1% bytes dropped/flipped, 2% frames duplicated: "
        f"{lossy['events_per_s']:.0f} events/s"
    )
    lat = run(args.latency_events, BAUD, 20)
    print(
        f"latency device write -> ZeroMQ publish at {BAUD} baud, 50 events/s: "
        f"median {lat['median_ms']:.2f} ms, p99 {lat['p99_ms']:.2f} ms (goal p99 < 20 ms)"
    )
    lat_fast = run(args.latency_events, None, 20)
    print(
        f"latency on an unpaced pty, 50 events/s: median {lat_fast['median_ms']:.2f} ms, "
        f"p99 {lat_fast['p99_ms']:.2f} ms"
    )


if __name__ == "__main__":
    main()
