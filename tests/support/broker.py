"""The `mosquitto` pytest fixture: a real Mosquitto per test (controller.testing.running_mosquitto).

from tests.support.broker import mosquitto  # noqa: F401
def test_x(mosquitto): ...
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from controller.testing import Broker, running_mosquitto


@pytest.fixture
def mosquitto() -> Iterator[Broker]:
    with running_mosquitto() as broker:
        yield broker
