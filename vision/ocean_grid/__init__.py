"""The ocean grid (the table under the Ocean boards and ships): its layout, marker detection, board
classification and the reader that composes them."""
