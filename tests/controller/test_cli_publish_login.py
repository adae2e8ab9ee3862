"""`smart-table campaign publish` logs in as the table's controller while the controller runs: on the deploy
broker (mosquitto.conf's use_username_as_clientid) the two must not share a session, or the broker drops
the running controller's connection when the CLI connects (an MQTT session takeover)."""

from __future__ import annotations

import threading

from controller.mqtt import MqttLink
from controller.testing import running_mosquitto
from smart_table.main import main


class Watched(threading.Event):
    """The link's `connected` event, counting how often the link lost its connection."""

    def __init__(self) -> None:
        super().__init__()
        self.lost = 0

    def clear(self) -> None:
        self.lost += 1
        super().clear()


def test_a_running_controller_stays_connected_while_the_cli_publishes(tmp_path) -> None:
    with running_mosquitto(tables=("cp",)) as broker:
        link = MqttLink(broker.host, broker.port, "controller", broker.users["controller"], table_id="cp")
        watched = Watched()
        link.connected = watched
        link.start(None)
        try:
            assert watched.wait(30)
            client = link.client
            assert client is not None
            for _ in range(2):
                args = ["campaign", "publish", "--clear", "--db", str(tmp_path / "t.db"), "--table", "cp"]
                args += ["--host", broker.host, "--port", str(broker.port)]
                assert main([*args, f"--password={broker.users['tools']}"]) == 0
            # A round trip on the link's own connection after the CLI's: a takeover would have closed it
            # first (the broker drops the old session when the new CONNECT arrives).
            info = client.publish("table/cp/probe", b"1", qos=1)
            info.wait_for_publish(10)
            assert info.is_published()
            assert watched.lost == 0, "the CLI's login took the running controller's session over"
            assert watched.is_set() and link.client is client
        finally:
            link.stop()
