"""The stable import path of the rules' refusals (`rules.errors.RulesError` and its kinds).

They are defined in `rules.core.errors`, the game-independent core; this module only names them for
the controller and the CLI, which import them from here.
"""

from rules.core.errors import Ambiguous, Illegal, Invalid, RulesError

__all__ = ["Ambiguous", "Illegal", "Invalid", "RulesError"]
