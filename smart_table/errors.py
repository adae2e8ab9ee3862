"""The one error type a command raises to end with a clear line on stderr and a non-zero exit."""

from __future__ import annotations


class CliError(Exception):
    """A user-facing failure: the message says what was wrong and what to do.

    `code` is the process exit status (2 for bad input, 1 for a runtime failure).
    """

    def __init__(self, message: str, code: int = 2) -> None:
        super().__init__(message)
        self.code = code
