-- Leagues at the venue: a league's games are played at any of the venue's tables, over many evenings, and
-- its standings come from the results the tables sent (venue_results). A fixture says who sat in which
-- colour at which table; it names its game, or takes the table's next game (venue/leagues.py).
CREATE TABLE venue_leagues (
    league      TEXT PRIMARY KEY,
    created_at  TIMESTAMPTZ NOT NULL DEFAULT now()
);

CREATE TABLE venue_league_fixtures (
    fixture_id  BIGSERIAL PRIMARY KEY,
    league      TEXT NOT NULL REFERENCES venue_leagues (league) ON DELETE CASCADE,
    table_id    TEXT NOT NULL,
    seats       JSONB NOT NULL,       -- colour -> the person sitting there
    epoch       TEXT,                 -- the game; NULL: the table's first game to start after created_at
    created_at  TIMESTAMPTZ NOT NULL DEFAULT now(),
    UNIQUE (table_id, epoch)          -- one game counts for one fixture (NULLs are distinct)
);

CREATE INDEX venue_events_first_seen ON venue_events (table_id, epoch, received_at);
