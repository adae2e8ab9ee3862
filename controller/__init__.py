"""The controller: the process that runs a table.

Owns wiring (ZeroMQ from the bridge and vision processes), the durable game log (SQLite), the
MQTT publication to tablets, supervision of child processes, the simulated table and the display's
web server. It turns sensor and camera events into rules-engine actions; it holds no rule itself.
"""
