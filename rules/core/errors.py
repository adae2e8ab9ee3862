"""The three kinds of refusal the engine raises; none of them changes the state.

Owns only the error types. `kind` is a stable string the controller and the tablets switch on;
`message` is one sentence a player understands, naming the rule that was broken.
"""

from __future__ import annotations

from typing import Any


class RulesError(Exception):
    """A refused command. Subclasses say why: it could not be understood, it is forbidden, or it is
    unclear."""

    kind: str = "error"

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message

    def to_json(self) -> dict[str, str]:
        return {"kind": self.kind, "message": self.message}


class Invalid(RulesError):
    """The command cannot be understood: a misread, a malformed action, an unknown card or square."""

    kind = "invalid"


class Illegal(RulesError):
    """The command is understood but the rules forbid it now; the message names the rule."""

    kind = "illegal"


class Ambiguous(RulesError):
    """The command has more than one meaning; `options` lists what the player may choose between."""

    kind = "ambiguous"

    def __init__(self, message: str, options: list[Any] | None = None) -> None:
        super().__init__(message)
        self.options = options or []
