"""Synthetic camera images with exact ground truth: `common` (camera, light, noise, markers) and one
renderer per board (`battle` for the battle board; the ocean-grid renderer belongs to the ships part).

Feeds the tests, the benchmarks and the table simulator's synthetic camera; never imported by readers.
"""
