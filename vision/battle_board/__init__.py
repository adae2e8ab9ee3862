"""The battle board (the cubes dropped by the tower): its layout, what is detected on it, how cubes are
counted and placed in zones, and the reader that composes them."""
