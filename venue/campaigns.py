"""Deep Legends campaigns at the venue: a group pushes its campaign from the table it played at and pulls it
at another table, another evening (`smart-table venue campaign push|pull|list`, docs/venue.md).

The document is the table's own `smart-table campaign export` (format smart-table/campaign-export@1), kept
in PostgreSQL (migration 003_campaigns.sql) as the canonical text pushed. Both ways are idempotent: a copy
is compared by the digest of its content (campaign, saga state and games; not the table's journal, which
a table restarts on import), so pushing or pulling the same campaign again changes nothing. Neither way
takes a campaign back: a push with fewer games recorded than the venue's copy, or a pull over a table's
copy with more games than the venue's, is refused with a sentence saying which way to go (or --force).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

from controller.campaign import EXPORT_FORMAT, CampaignError, CampaignStore
from rules.dead_reckoning.deep_legends.campaign import FORMAT as CAMPAIGN_FORMAT
from venue.store import VenueStore


class VenueCampaignError(ValueError):
    """A push or pull that cannot be done; the message says why and what to do."""


@dataclass(frozen=True)
class Pushed:
    name: str
    revision: int
    games: int
    changed: bool  # False: the venue already held exactly this campaign


def canonical(doc: Any) -> str:
    return json.dumps(doc, sort_keys=True, separators=(",", ":"))


def digest(doc: dict[str, Any]) -> str:
    """The campaign's content (name, campaign, saga, games): equal for a copy pulled and exported again."""
    content = {k: doc.get(k) for k in ("name", "campaign", "saga")}
    content["games"] = doc.get("games") or []
    return hashlib.sha256(canonical(content).encode()).hexdigest()


def games_recorded(doc: dict[str, Any]) -> int:
    return len(doc["campaign"].get("games") or [])


def check_export(doc: Any) -> dict[str, Any]:
    """`doc` if it is a campaign export, else VenueCampaignError naming what is wrong."""
    if not isinstance(doc, dict) or doc.get("format") != EXPORT_FORMAT:
        raise VenueCampaignError(
            f"not a campaign export (format {EXPORT_FORMAT!r}): write it with `smart-table campaign export`."
        )
    name, data = doc.get("name"), doc.get("campaign")
    if not isinstance(name, str) or not name.strip():
        raise VenueCampaignError("the campaign export has no name; export it again.")
    if (
        not isinstance(data, dict)
        or data.get("format") != CAMPAIGN_FORMAT
        or not isinstance(data.get("games"), list)
    ):
        raise VenueCampaignError(
            f"the export's 'campaign' is not a {CAMPAIGN_FORMAT} campaign; export it again."
        )
    return doc


def push(store: VenueStore, doc: Any, table_id: str, force: bool = False) -> Pushed:
    """Keep `doc` (a campaign export) at the venue as pushed from `table_id`."""
    doc = check_export(doc)
    name, games, new = doc["name"], games_recorded(doc), digest(doc)
    conn = store.conn
    with conn.transaction():
        # The row lock orders two tables pushing the same campaign at once; the insert covers the first push.
        conn.execute(
            "INSERT INTO venue_campaigns (name, doc, digest, games, revision, pushed_from) "
            "VALUES (%s, '', '', -1, 0, %s) ON CONFLICT (name) DO NOTHING",
            (name, table_id),
        )
        row = conn.execute(
            "SELECT digest, games, revision, pushed_from FROM venue_campaigns WHERE name=%s FOR UPDATE",
            (name,),
        ).fetchone()
        assert row is not None
        have, have_games, revision, pushed_from = row
        if have == new:
            return Pushed(name, revision, games, changed=False)
        if have_games > games and not force:
            raise VenueCampaignError(
                f"the venue's campaign {name!r} has {have_games} games recorded (pushed from {pushed_from}) "
                f"and this table's copy {games}: pull it here instead "
                f"(`smart-table venue campaign pull {name}`), "
                "or give --force to replace it with this copy."
            )
        revision += 1
        conn.execute(
            "UPDATE venue_campaigns SET doc=%s, digest=%s, games=%s, revision=%s, pushed_from=%s, "
            "pushed_at=now() WHERE name=%s",
            (canonical(doc), new, games, revision, table_id, name),
        )
        conn.execute(
            "INSERT INTO venue_campaign_moves (name, kind, table_id, revision) VALUES (%s, 'push', %s, %s)",
            (name, table_id, revision),
        )
    return Pushed(name, revision, games, changed=True)


def fetch(store: VenueStore, name: str) -> tuple[dict[str, Any], int]:
    """The venue's copy of campaign `name` (the export as pushed) and its revision."""
    row = store.conn.execute(
        "SELECT doc, revision FROM venue_campaigns WHERE name=%s AND revision > 0", (name,)
    ).fetchone()
    store.conn.commit()
    if row is None:
        known = ", ".join(c["name"] for c in campaigns(store)) or "none yet"
        raise VenueCampaignError(
            f"the venue has no campaign {name!r} (it has: {known}); push it from the table it was played at "
            "with `smart-table venue campaign push NAME`."
        )
    return json.loads(row[0]), int(row[1])


def note_pull(store: VenueStore, name: str, table_id: str, revision: int) -> None:
    with store.conn.transaction():
        store.conn.execute(
            "INSERT INTO venue_campaign_moves (name, kind, table_id, revision) VALUES (%s, 'pull', %s, %s)",
            (name, table_id, revision),
        )


def campaigns(store: VenueStore) -> list[dict[str, Any]]:
    """Every campaign the venue keeps: games recorded, revision, where it came from and last went to."""
    rows = store.conn.execute(
        "SELECT c.name, c.games, c.revision, c.pushed_from, c.pushed_at, p.table_id, p.at "
        "FROM venue_campaigns c LEFT JOIN LATERAL (SELECT table_id, at FROM venue_campaign_moves m "
        "WHERE m.name = c.name AND m.kind = 'pull' ORDER BY move_id DESC LIMIT 1) p ON true "
        "WHERE c.revision > 0 ORDER BY c.name"
    ).fetchall()
    store.conn.commit()
    return [
        {
            "name": r[0],
            "games": r[1],
            "revision": r[2],
            "pushed_from": r[3],
            "pushed_at": r[4].isoformat(),
            "pulled_to": r[5],
            "pulled_at": r[6].isoformat() if r[6] else None,
        }
        for r in rows
    ]


def pull_into(local: CampaignStore, doc: dict[str, Any], force: bool = False) -> str:
    """Put the venue's copy into the table's database: `imported` (the table had none), `unchanged` (it has
    exactly this one) or `replaced` (it had an older copy)."""
    doc = check_export(doc)
    name = doc["name"]
    try:
        here = local.export(name)
    except CampaignError:
        local.import_(doc)
        return "imported"
    if digest(here) == digest(doc):
        return "unchanged"
    if games_recorded(here) > games_recorded(doc) and not force:
        raise VenueCampaignError(
            f"this table's campaign {name!r} has {games_recorded(here)} games recorded and the venue's "
            f"{games_recorded(doc)}: push it to the venue instead "
            f"(`smart-table venue campaign push {name}`), "
            "or give --force to replace it with the venue's copy."
        )
    # Not one transaction with the import, but the venue still holds the copy should this stop in between.
    local.delete(name)
    local.import_(doc)
    return "replaced"
