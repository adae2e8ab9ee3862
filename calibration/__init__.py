"""Calibration: camera intrinsics (ChArUco), board and table registration, cube colour palettes.

Owns the files that tell `vision` how this camera, these boards and this light look. Knows nothing
of the rules.
"""
