"""Notices: the consequences an event's effect reports, logged after it (`moved`, `ship_sunk`, ...)."""

from __future__ import annotations

from typing import Any


def notice(out: list[dict[str, Any]], etype: str, **data: Any) -> None:
    """Report a consequence; the fold numbers it (`seq`) and marks it `notice: true` after the effect."""
    out.append({"type": etype, **data})
