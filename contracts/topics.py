"""The ZeroMQ topics the sensor processes publish and the controller subscribes to, and which MQTT topics
of a table are public.

Each message is two frames: the topic (bytes, below) and a JSON object whose `topic` field repeats it
as text. Shapes: docs/protocol.md (bridge) and docs/vision.md / docs/table-layout.md (vision). The MQTT
tree to the tablets is documented in docs/mqtt.md and built by controller/mqtt.py.
"""

from __future__ import annotations

BRIDGE_EVENT = b"bridge.event"  # one tower or zone-sensor event, in order, exactly once
BRIDGE_HEALTH = b"bridge.health"  # the serial link's state and counters
VISION_BOARD = b"vision.board"  # a battle-board reading (cubes per zone, settled or not)
VISION_HEALTH = b"vision.health"  # the battle camera's state (online/offline)
VISION_TABLE = b"vision.table"  # an ocean-grid reading (ships and boards per square)
VISION_REGIONS = b"vision.regions"  # The Great Sea's map: Ships and Forts per region (docs/great-sea.md)

ALL: tuple[bytes, ...] = (
    BRIDGE_EVENT,
    BRIDGE_HEALTH,
    VISION_BOARD,
    VISION_HEALTH,
    VISION_TABLE,
    VISION_REGIONS,
)


# The public part of a table's MQTT tree (`table/<tid>/<suffix>`): what every login at the table may read,
# what a table's broker bridges to a venue broker, and nothing under `player/` (a player's secrets never
# leave the table). docs/mqtt.md lists every topic; deploy/mosquitto/acl grants these (a test holds the two
# to this list).
MQTT_PUBLIC: tuple[str, ...] = ("availability", "state", "events", "prompts", "seats", "device/#", "campaign")
# The Deep Legends campaign the table is playing, retained (`table/<tid>/campaign`; shape in
# docs/deep-legends.md, "On the tablets": format smart-table/campaign-view@1, built by
# controller.campaign.campaign_view); an empty payload clears it.
MQTT_CAMPAIGN = "campaign"

# The venue's gap refill (docs/venue.md, venue/refill.py), `table/<tid>/<suffix>` beside MQTT_PUBLIC: what a
# table's bridge also sends out (its index of recent games, the events it re-sends from its log) and the one
# topic it takes in (the venue service's ask for what it lacks). Only the controller and the venue service
# use them; the table's ACL lets no tablet or display read them.
VENUE_REFILL_OUT: tuple[str, ...] = ("refill/index", "refill/events")
VENUE_REFILL_IN = "refill/ask"
