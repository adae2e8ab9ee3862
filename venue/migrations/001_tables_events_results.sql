-- The venue's first schema: which tables exist and what they last said, every table's public events
-- (once each, whatever the broker redelivers), and each game's final scores.
CREATE TABLE venue_tables (
    table_id    TEXT PRIMARY KEY,
    epoch       TEXT,                 -- the table's current game id
    seq         BIGINT,               -- the latest state's seq in that game
    phase       TEXT,
    players     JSONB,
    turn        INTEGER,
    state       JSONB,                -- the latest public state payload as the table sent it
    link        TEXT NOT NULL DEFAULT 'unknown',  -- the table's bridge: 'live' / 'offline' / 'unknown'
    updated_at  TIMESTAMPTZ NOT NULL DEFAULT now()
);

CREATE TABLE venue_events (
    table_id    TEXT NOT NULL,
    epoch       TEXT NOT NULL,
    seq         BIGINT NOT NULL,
    events      JSONB NOT NULL,
    received_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (table_id, epoch, seq)
);

CREATE TABLE venue_results (
    table_id    TEXT NOT NULL,
    epoch       TEXT NOT NULL,
    scores      JSONB NOT NULL,
    players     JSONB,
    finished_at TIMESTAMPTZ NOT NULL DEFAULT now(),
    PRIMARY KEY (table_id, epoch)
);
