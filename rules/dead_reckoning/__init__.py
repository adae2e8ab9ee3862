"""Dead Reckoning (base game): one module per chapter of the rulebook; `game` puts them together.

Map of rule -> module: docs/rules-engine.md.
"""
