"""Battles: the five steps for Player vs Non-Player, Player vs Player and Player vs Building.

`contract` holds the two values that cross the seam between the game and a battle: the
`BattleSetup` the game builds when a battle starts and the `BattleOutcome` it applies when the
battle ends. Resolution and the refereeing session live beside it; they never touch `GameState`.
"""
