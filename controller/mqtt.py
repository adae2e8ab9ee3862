"""The controller's MQTT link (paho-mqtt 2.x): publishes the table's topics, takes the tablets' commands.

Owns the connection: MQTT 5 when the broker offers it, else 3.1.1 (a broker that speaks nothing newer); the
Last Will that marks the table offline; (re)publishing every retained topic on each connect so a
broker restart or a controller restart brings every tablet back; subscribing to the command topics
and publishing each command's reply; and which device holds each seat (`Seats`: a tablet's hello and
Last Will on `table/<tid>/player/<p>/presence`, the retained `table/<tid>/seats`), so two devices with
one seat's link
do not knock each other off in a loop. Topics and payloads: docs/mqtt.md. Holds no game logic.
"""

from __future__ import annotations

import json
import logging
import threading
import time
from collections.abc import Callable
from typing import Any, Literal

import paho.mqtt.client as mqtt

from controller.credentials import resolve_user

log = logging.getLogger(__name__)

# A seat whose device dropped this recently is still taken: with one connection per login (Mosquitto's
# use_username_as_clientid), a second device connecting knocks the first off, whose Last Will arrives just
# before the newcomer's hello; the first device reconnects within about a second.
SEAT_GRACE_S = 3.0


class Seats:
    """Which device holds each seat. A seat's login may be used by several devices (one link per seat, a
    phone and a tablet); only one is connected at a time, and a newcomer is told the seat is taken on
    another device (and may take it over) instead of the two reconnecting over each other forever."""

    def __init__(self, clock: Any = time.time) -> None:
        self.clock = clock
        self.holders: dict[str, dict[str, Any]] = {}

    def hello(self, seat: str, device: str, take_over: bool) -> dict[str, Any]:
        """The answer to a device's hello: granted (it holds the seat now) or taken (another device does)."""
        now = self.clock()
        cur = self.holders.get(seat)
        free = (
            cur is None
            or cur["device"] == device
            or take_over
            or (not cur["online"] and now - cur["offline_at"] > SEAT_GRACE_S)
        )
        if not free:
            assert cur is not None
            return {
                "presence": "taken",
                "device": device,
                "seat": seat,
                "since": cur["since"],
                "reason": f"{seat.capitalize()}'s seat is open on another device; take it over here "
                "and that device stops.",
            }
        if cur is None or cur["device"] != device or not cur["online"]:
            self.holders[seat] = {"device": device, "online": True, "since": now, "offline_at": None}
        return {
            "presence": "granted",
            "device": device,
            "seat": seat,
            "took_over": bool(take_over and cur and cur["device"] != device),
        }

    def offline(self, seat: str, device: str) -> bool:
        """A device's Last Will (or goodbye); True when it changed the seat (it was the holder)."""
        cur = self.holders.get(seat)
        if cur is None or cur["device"] != device or not cur["online"]:
            return False
        cur["online"], cur["offline_at"] = False, self.clock()
        return True

    def public(self) -> dict[str, Any]:
        """The retained `table/<tid>/seats`: no device ids, which seats have a device and since when."""
        return {
            seat: {"online": h["online"], "since": h["since"]} for seat, h in sorted(self.holders.items())
        }


# The ways paho reaches a broker: plain TCP (the controller, the bridge) or WebSockets (the tablets).
Transport = Literal["tcp", "websockets", "unix"]


class MqttError(RuntimeError):
    """Cannot connect. `refused` is true when the broker answered no (credentials, authorisation):
    waiting will not help, unlike a broker that is not up yet."""

    def __init__(self, message: str, refused: bool = False) -> None:
        super().__init__(message)
        self.refused = refused


class MqttLink:
    def __init__(
        self,
        host: str,
        port: int,
        username: str | None = None,
        password: str | None = None,
        table_id: str = "table-1",
        client_id: str | None = None,
        protocol: str = "auto",
        transport: Transport = "tcp",
    ) -> None:
        self.host, self.port, self.table_id = host, port, table_id
        # A bare role (the config's default `controller`) is that role's login here (`table-1/controller`).
        self.username = resolve_user(table_id, username) if username else username
        # the login by default: a broker serving several tables (a venue's, a shared one) that does not set
        # use_username_as_clientid must not see two tables' controllers take over one session
        self.password = password
        self.client_id = client_id or self.username or resolve_user(table_id, "controller")
        self.protocol, self.transport = protocol, transport
        self.core: Any = None
        self.client: mqtt.Client | None = None
        self.protocol_used: str | None = None
        self.connected = threading.Event()
        self.devices: dict[str, dict[str, Any]] = {}
        self.seats = Seats()
        self._lock = threading.Lock()
        # More of the table's own topics to serve (suffix after `table/<tid>/` -> handler of the payload):
        # the venue's gap refill (venue/refill.py) when the table has a venue.
        self.handlers: dict[str, Callable[[bytes], None]] = {}

    @property
    def base(self) -> str:
        return f"table/{self.table_id}"

    # -- connection ----------------------------------------------------------------------------

    def start(self, core: Any, timeout: float = 10.0) -> None:
        """Connect (MQTT 5 first unless told otherwise) and serve `core` until stop()."""
        self.core = core
        tries = ["5", "3.1.1"] if self.protocol == "auto" else [self.protocol]
        last = ""
        refused = False
        for proto in tries:
            # A 3.1.1-only broker may never answer an MQTT 5 CONNECT: probe briefly before falling back.
            ok, last = self._try_connect(
                proto, min(timeout, 2.0) if len(tries) > 1 and proto == "5" else timeout
            )
            if ok:
                self.protocol_used = proto
                log.info("MQTT %s connected to %s:%s", proto, self.host, self.port)
                return
            refused = refused or last.startswith("refused")
            if refused and any(w in last.lower() for w in ("password", "authori")):
                break  # the broker understood us and said no: 3.1.1 will not change that
        raise MqttError(
            f"cannot connect to the MQTT broker at {self.host}:{self.port} ({last}); "
            "check mqtt.host, mqtt.port, mqtt.username and mqtt.password in the config",
            refused=refused,
        )

    def _try_connect(self, proto: str, timeout: float) -> tuple[bool, str]:
        version = mqtt.MQTTv5 if proto == "5" else mqtt.MQTTv311
        client = mqtt.Client(
            mqtt.CallbackAPIVersion.VERSION2,
            client_id=self.client_id,
            protocol=version,
            transport=self.transport,
        )
        if self.username:
            client.username_pw_set(self.username, self.password)
        client.will_set(f"{self.base}/availability", json.dumps("offline"), qos=1, retain=True)
        client.reconnect_delay_set(0.2, 5)  # type: ignore[arg-type]  # paho says int; it sleeps a float fine
        result: dict[str, Any] = {}
        answered = threading.Event()

        def on_connect(c, _u, _flags, reason_code, _props=None) -> None:
            result["rc"] = reason_code
            answered.set()
            if not reason_code.is_failure:
                self._on_connected(c)

        def on_disconnect(_c, _u, _flags, reason_code, _props=None) -> None:
            self.connected.clear()
            if not answered.is_set():
                result["rc"] = reason_code
                answered.set()

        client.on_connect = on_connect
        client.on_disconnect = on_disconnect
        client.on_message = self._on_message
        try:
            client.connect(self.host, self.port, keepalive=15)
        except OSError as exc:
            return False, str(exc)
        client.loop_start()
        answered.wait(timeout)
        rc = result.get("rc")
        if rc is None or rc.is_failure:
            client.loop_stop()
            try:
                client.disconnect()
            except Exception:  # noqa: BLE001 - already gone
                pass
            return False, f"refused: {rc}" if rc is not None else "no answer"
        self.client = client
        return True, ""

    def _on_connected(self, client: mqtt.Client) -> None:
        self.client = client
        client.subscribe(f"{self.base}/player/+/cmd", qos=1)
        client.subscribe(f"{self.base}/player/+/presence", qos=1)
        for suffix in self.handlers:
            client.subscribe(f"{self.base}/{suffix}", qos=1)
        self._raw_publish(client, f"{self.base}/availability", "online", retain=True)
        with self._lock:
            devices = dict(self.devices)
        for name, payload in devices.items():
            self._raw_publish(client, f"{self.base}/device/{name}/availability", payload, retain=True)
        with self._lock:
            seats = self.seats.public()
        self._raw_publish(client, f"{self.base}/seats", seats, retain=True)
        if self.core is not None:
            self.core.publish_all()
        self.connected.set()

    def stop(self) -> None:
        client, self.client = self.client, None
        if client is None:
            return
        try:
            client.publish(
                f"{self.base}/availability", json.dumps("offline"), qos=1, retain=True
            ).wait_for_publish(2)
        except Exception:  # noqa: BLE001 - the broker may already be gone; the Last Will covers it
            pass
        client.disconnect()
        client.loop_stop()

    # -- traffic -------------------------------------------------------------------------------

    def publish(self, topic: str, payload: Any, retain: bool = False) -> None:
        client = self.client
        if client is not None:
            self._raw_publish(client, topic, payload, retain)

    def _raw_publish(
        self, client: mqtt.Client, topic: str, payload: Any, retain: bool, correlation: bytes | None = None
    ) -> None:
        props = None
        if self.protocol_used == "5" or (self.protocol_used is None and client.protocol == mqtt.MQTTv5):
            # MQTT 5 extras, ignored by 3.1.1 tablets: transient messages expire instead of queuing for a
            # tablet that is away (the retained state covers it), and a reply carries the request's
            # correlation data when the tablet used MQTT 5 request/response.
            from paho.mqtt.packettypes import PacketTypes
            from paho.mqtt.properties import Properties

            props = Properties(PacketTypes.PUBLISH)
            props.ContentType = "application/json"
            if not retain:
                props.MessageExpiryInterval = 60
            if correlation is not None:
                props.CorrelationData = correlation
        client.publish(
            topic, json.dumps(payload, separators=(",", ":")), qos=1, retain=retain, properties=props
        )

    def set_device(self, name: str, online: bool, **health: Any) -> None:
        """Retained availability of a device (tower, zones, camera), republished on every connect."""
        with self._lock:
            prev = self.devices.get(name)
            since = (
                prev["since"]
                if prev and prev["state"] == ("online" if online else "offline")
                else time.time()
            )
            payload = {"state": "online" if online else "offline", "since": since, **health}
            self.devices[name] = payload
        self.publish(f"{self.base}/device/{name}/availability", payload, retain=True)

    def _on_message(self, client: mqtt.Client, _userdata: Any, msg: mqtt.MQTTMessage) -> None:
        handler = self.handlers.get(msg.topic.removeprefix(f"{self.base}/"))
        if handler is not None:
            handler(bytes(msg.payload))
            return
        parts = msg.topic.split("/")
        if len(parts) == 5 and parts[2] == "player" and parts[4] == "presence":
            self._presence(client, parts[3], msg.payload)
            return
        if len(parts) != 5 or parts[2] != "player" or parts[4] != "cmd" or self.core is None:
            return
        player = parts[3]
        try:
            reply = self.core.handle_command(player, msg.payload)
        except Exception as exc:  # noqa: BLE001 - input must never take the controller down
            log.exception("command from %s crashed the handler", player)
            reply = {
                "request_id": None,
                "accepted": False,
                "kind": "invalid",
                "reason": f"The controller could not handle that command ({exc}); nothing changed.",
                "seq": -1,
            }
        props = getattr(msg, "properties", None)
        correlation = getattr(props, "CorrelationData", None) if props is not None else None
        response_topic = getattr(props, "ResponseTopic", None) if props is not None else None
        self._raw_publish(
            client, f"{self.base}/player/{player}/reply", reply, retain=False, correlation=correlation
        )
        if response_topic and response_topic != f"{self.base}/player/{player}/reply":
            log.debug(
                "ignoring response topic %s: replies go to the player's reply topic (ACL)", response_topic
            )

    def _presence(self, client: mqtt.Client, player: str, raw: bytes | bytearray) -> None:
        """A device's hello or Last Will on its seat's presence topic (the ACL lets only that seat's login
        publish there); anything malformed is ignored."""
        if len(raw) > 1024:
            return
        try:
            msg = json.loads(raw)
        except (ValueError, UnicodeDecodeError):
            return
        if not isinstance(msg, dict):
            return
        device = msg.get("device")
        if not isinstance(device, str) or not device or len(device) > 100:
            return
        with self._lock:
            if msg.get("presence") == "hello":
                answer: dict[str, Any] | None = self.seats.hello(player, device, bool(msg.get("take_over")))
            elif msg.get("presence") == "offline":
                self.seats.offline(player, device)
                answer = None
            else:
                return
            seats = self.seats.public()
        if answer is not None:
            self._raw_publish(client, f"{self.base}/player/{player}/reply", answer, retain=False)
        self._raw_publish(client, f"{self.base}/seats", seats, retain=True)
