"""The rules engine of Dead Reckoning: game state, actions, events, legality, battles, scoring.

Owns the whole game state and is its single source of truth. Pure Python: no I/O, no clocks,
no randomness except the seeded RNG kept in the state for simulation. Imports no other package of the
project but `contracts` (tests/rules/core/test_import_graph.py). Layout: `core` (knows no game),
`dead_reckoning` (a module per rulebook chapter), `battle`; the facade is `api` (docs/rules-engine.md).
"""
