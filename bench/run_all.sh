#!/usr/bin/env bash
# Runs every benchmark with the options recorded in docs/benchmarks.md (about 10 minutes in all).
# One at a time, so they do not share the cores; each prints its numbers and ratios to its goal.
set -euo pipefail
cd "$(dirname "$0")/.."
run() { echo; echo "=== $*"; "$@"; }
run python3 bench/rules_playout.py --games 20
run python3 bench/battle_resolve.py
run python3 bench/serial_link.py
run python3 bench/vision_read.py --scenes 300 --seed 19100
run python3 bench/vision_ships.py --scenes 300 --seed 1 --repeat 3
run python3 bench/vision_sea_regions.py --set heldout --start 100 --scenes 30
run python3 bench/latency.py
run python3 bench/display_latency.py --players 4 --updates 40
