"""Camera reading: cubes on the battle board, ships and Ocean boards on the table, synthetic scenes.

Owns image processing with OpenCV and numpy and reports what it sees (colours, zones, squares,
confidence). Knows nothing of the rules: it never decides a battle or a move.
"""
