"""The `mosquitto` pytest fixture: a real Mosquitto per test (controller.testing.running_mosquitto).

from tests.support.broker import mosquitto  # noqa: F401
def test_x(mosquitto): ...

The broker serves the test module's `TABLE` (`table-1` when it has none): every login and ACL line names
its table (controller.broker.render_acl), so a broker serves the tables it is told of and no other.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from controller.testing import Broker, running_mosquitto


@pytest.fixture
def mosquitto(request: pytest.FixtureRequest) -> Iterator[Broker]:
    with running_mosquitto(tables=(getattr(request.module, "TABLE", "table-1"),)) as broker:
        yield broker
