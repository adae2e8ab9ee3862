-- Deep Legends campaigns kept at the venue, so a group continues its campaign at another table on another
-- evening (venue/campaigns.py, `smart-table venue campaign push|pull|list`). The document is the table's
-- `smart-table campaign export` (format smart-table/campaign-export@1), kept as the very text pushed, so a
-- pull hands back what was pushed and a table can tell its own copy is the same (idempotent push and pull).
CREATE TABLE venue_campaigns (
    name        TEXT PRIMARY KEY,
    doc         TEXT NOT NULL,          -- the export, canonical JSON (sorted keys)
    digest      TEXT NOT NULL,          -- sha256 of its campaign, saga and games (not the table's journal)
    games       INTEGER NOT NULL,       -- games recorded: a push never takes the venue's copy back
    revision    INTEGER NOT NULL,       -- counts the pushes that changed it
    pushed_from TEXT NOT NULL,          -- the table that pushed it last
    pushed_at   TIMESTAMPTZ NOT NULL DEFAULT now()
);

-- Where the campaign went: every push that changed it and every pull, with the table.
CREATE TABLE venue_campaign_moves (
    move_id     BIGSERIAL PRIMARY KEY,
    name        TEXT NOT NULL REFERENCES venue_campaigns (name) ON DELETE CASCADE,
    kind        TEXT NOT NULL CHECK (kind IN ('push', 'pull')),
    table_id    TEXT NOT NULL,
    revision    INTEGER NOT NULL,
    at          TIMESTAMPTZ NOT NULL DEFAULT now()
);
