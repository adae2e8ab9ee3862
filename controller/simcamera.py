"""The simulated camera as its own process, publishing like the vision process does.

Owns only the process around `controller.simtable.SceneCamera`: a ZeroMQ REP socket where the simulated
table says where the cubes lie (`{"cubes": [{"color", "zone"}, ...]}`), and a PUB socket where the
rendered-then-read board goes out as `[b"vision.board", {"topic", "frame", "timestamp", "source",
"reading", "crops"}]`, the message `smart-table vision watch` publishes; the reply carries the
corrections a player would make for the cubes the reader flagged. Run by `smart-table run --simulate`:
`python -m controller.simcamera --control ENDPOINT --pub ENDPOINT --seed N`.
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import time

import zmq

from contracts import topics


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m controller.simcamera")
    ap.add_argument("--control", required=True, help='REP endpoint taking {"cubes": [...]}')
    ap.add_argument("--pub", required=True, help="PUB endpoint for vision.board")
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args(argv)
    from controller.simtable import SceneCamera

    camera = SceneCamera(args.seed)
    ctx = zmq.Context()
    rep, pub = ctx.socket(zmq.REP), ctx.socket(zmq.PUB)
    for sock in (rep, pub):
        sock.setsockopt(zmq.LINGER, 0)
    try:
        rep.bind(args.control)
        pub.bind(args.pub)
    except zmq.ZMQError as exc:
        print(
            f"simulated camera: cannot bind ({exc}); set simulate.camera_control / vision.events to a free "
            "address",
            file=sys.stderr,
        )
        return 1
    print(f"simulated camera: control {args.control}, publishing vision.board on {args.pub}", flush=True)
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    poller = zmq.Poller()
    poller.register(rep, zmq.POLLIN)
    frame = 0
    while not stop:
        if not poller.poll(100):
            continue
        try:
            request = json.loads(rep.recv())
            cubes = request["cubes"]
            reading, corrections = camera.read_with_corrections(cubes)
        except Exception as exc:  # noqa: BLE001 - a bad request gets a sentence, the camera keeps running
            rep.send_string(
                json.dumps({"ok": False, "error": f"cannot photograph that ({type(exc).__name__}: {exc})"})
            )
            continue
        frame += 1
        message = {
            "topic": topics.VISION_BOARD.decode(),
            "frame": frame,
            "timestamp": round(time.time(), 3),
            "source": "simulated-camera",
            "reading": reading,
            "crops": camera.last_crops,
        }
        pub.send_multipart([topics.VISION_BOARD, json.dumps(message).encode()])
        rep.send_string(json.dumps({"ok": True, "frame": frame, "corrections": corrections}))
    rep.close()
    pub.close()
    ctx.term()
    return 0


if __name__ == "__main__":
    sys.exit(main())
