"""Contracts between the parts of the table: facts every part must agree on, in one place.

Standard library only; imports nothing of the project, so every package (rules, vision, controller,
firmware_bridge) may import it without pulling in another part. Holds data and tiny pure helpers, never
rules of a game: `grid` (the 4x3 ocean grid and the Harbor), `zones` (the battle board's zone kinds),
`chance` (the actions that report a chance outcome), `sea_regions` (The Great Sea's table layout format
and piece kinds), `topics` (the ZeroMQ topics between the sensor
processes and the controller).
"""
