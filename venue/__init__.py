"""The venue service: every table's public topics, bridged to the venue broker, stored in PostgreSQL.

`store` owns the database (schema by plain versioned SQL files in `migrations/`, idempotent writes);
`service` owns the MQTT side (a persistent session that acknowledges a message only once it is stored).
Nothing here runs at a table: a table plays on its own broker and SQLite log (docs/venue.md).
"""
