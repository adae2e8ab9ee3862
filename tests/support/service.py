"""The controller process itself (`python -m controller.service --config-json ...`) for a test, logged in to
the test's Mosquitto as the table's controller."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from controller.testing import Broker

REPO = Path(__file__).resolve().parents[2]


def start_service(broker: Broker, table: dict[str, Any], **mqtt: Any) -> subprocess.Popen[bytes]:
    """The controller with the [table] section `table`, no bridge and no camera, on `broker` (`mqtt`: more
    [mqtt] keys); its stderr is piped, for the test to read why it stopped."""
    cfg = {
        "table": table,
        "mqtt": {**broker.mqtt_login(), **mqtt},
        "bridge": {"enabled": False},
        "vision": {"enabled": False},
    }
    return subprocess.Popen(
        [sys.executable, "-m", "controller.service", "--config-json", json.dumps(cfg)],
        cwd=REPO,
        env={**os.environ, "PYTHONPATH": str(REPO)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
