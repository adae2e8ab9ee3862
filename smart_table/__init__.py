"""The `smart-table` command line.

Owns argument parsing, file I/O and exit codes for every part of the product. Each module here
wraps one package (rules, vision, calibration, firmware_bridge, controller) and must not hold
logic of its own: it reads files, calls the package, prints results. `main` dispatches.
"""
