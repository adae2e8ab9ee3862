"""A small run of the venue load bench (bench/venue_load.py): real table Mosquittos bridged to a real venue
Mosquitto and PostgreSQL, spectators over WebSockets, the venue broker and the database stopped mid-way."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]


def venue_load(*args: str, timeout: float) -> dict[str, Any]:
    """bench/venue_load.py's --json result with `args`; the bench may exit 1 (a figure over its bound): each
    test asserts the figures it is about."""
    run = subprocess.run(
        [sys.executable, "bench/venue_load.py", *args, "--json"],
        cwd=ROOT,
        env=dict(os.environ, PYTHONPATH=str(ROOT)),
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    assert run.returncode in (0, 1), run.stderr[-2000:]
    result: dict[str, Any] = json.loads(run.stdout.strip().splitlines()[-1])
    return result


def test_nothing_is_lost_when_the_venue_broker_and_database_stop_mid_run() -> None:
    result = venue_load(
        *("--tables", "3", "--spectators", "10", "--seconds", "16"),
        *("--outage", "3", "--workers", "2", "--catch-up", "90"),
        timeout=260,
    )
    # The issue: "kills the venue broker and the database in the middle and shows nothing lost once they
    # return".
    assert result["outage_s"] >= 3
    assert result["event_rows_expected"] > 50
    assert result["lost"] == 0, result["lost_examples"]
    assert result["event_rows_stored"] == result["event_rows_expected"]
    # Spectators received the tables' messages live, and each table's latency was measured.
    assert result["latency_samples"] > 0 and result["latency_ms_median"] > 0
    assert result["per_table_median_ms_min_max"] is not None
    assert set(result["cpu_percent_of_one_core"]) >= {"venue_broker", "postgres", "venue_service"}


@pytest.mark.wholegame
def test_whole_controllers_among_the_light_tables_lose_nothing_through_the_outage() -> None:
    """Two whole simulated tables (`smart-table run --simulate`, bots in every seat, bridged by their [venue]
    config, the gap refill on) beside the light publishers: every event they logged reaches PostgreSQL
    although the venue broker and the database stop mid-way. ~90-120 s on the loaded machine, so behind
    `wholegame`."""
    result = venue_load(
        *("--tables", "3", "--spectators", "10", "--seconds", "30"),
        *("--outage", "4", "--speed", "1", "--refill", "--controllers", "2", "--workers", "2"),
        timeout=600,
    )
    assert result["outage_s"] >= 4 and result["whole_controllers"] == 2
    assert result["whole_controller_events_expected"] > 20, "the whole tables hardly played"
    assert result["lost"] == 0, result["lost_examples"]
    assert result["cpu_percent_of_one_core"]["whole_controllers"] > 0
