"""Errors of the battle module: a record or a setup that cannot be resolved.

Each carries one sentence saying what was wrong and what to do; nothing is changed when raised.
"""

from __future__ import annotations


class BattleRecordError(ValueError):
    """The battle record (or the board or setup it refers to) is not a valid battle."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message
