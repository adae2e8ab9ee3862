"""The rules engine of Dead Reckoning: game state, actions, events, legality, battles, scoring.

Owns the whole game state and is its single source of truth. Pure Python: no I/O, no clocks,
no randomness except the seeded RNG kept in the state for simulation. Imports nothing from
`controller`, `vision`, `calibration`, `firmware_bridge` or `cli`.
"""
