"""The reference firmware for an RP2040 board under MicroPython (see main.py for wiring and flashing).

`tower.py` is the hardware-free logic the host tests run under CPython; `main.py` and `tcs34725.py`
touch the board's pins and only run on the board.
"""
