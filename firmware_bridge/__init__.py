"""The serial link to the battle tower and zone-sensor firmware.

Owns the wire protocol (COBS frames with CRC, sequence numbers, acknowledgements), the host side
that owns the port and publishes typed events on ZeroMQ, and the firmware simulator. Knows nothing
of the rules.
"""
