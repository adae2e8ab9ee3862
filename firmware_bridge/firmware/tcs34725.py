"""Minimal TCS34725 colour-sensor driver for MicroPython (I2C address 0x29). Board-only."""

_ADDR = 0x29
_CMD = 0x80
_AUTO = 0x20
_ENABLE, _ATIME, _CONTROL, _ID, _STATUS, _CDATA = 0x00, 0x01, 0x0F, 0x12, 0x13, 0x14


class TCS34725:
    def __init__(self, i2c, integration_ms: float = 24.0, gain: int = 1) -> None:
        """gain register: 0 = 1x, 1 = 4x, 2 = 16x, 3 = 60x."""
        self.i2c = i2c
        if self._read8(_ID) not in (0x44, 0x4D):
            raise OSError("TCS34725 not found at 0x29")
        atime = 256 - int(integration_ms / 2.4)
        self._write8(_ATIME, max(0, min(255, atime)))
        self._write8(_CONTROL, gain)
        self._write8(_ENABLE, 0x01)  # power on; the datasheet asks 2.4 ms before enabling the ADC
        import time

        time.sleep_ms(3)
        self._write8(_ENABLE, 0x03)

    def _write8(self, reg: int, value: int) -> None:
        self.i2c.writeto_mem(_ADDR, _CMD | reg, bytes([value]))

    def _read8(self, reg: int) -> int:
        return self.i2c.readfrom_mem(_ADDR, _CMD | reg, 1)[0]

    def ready(self) -> bool:
        return bool(self._read8(_STATUS) & 0x01)

    def read(self) -> tuple:
        """(r, g, b, clear) of the last completed integration; OSError if the bus fails."""
        data = self.i2c.readfrom_mem(_ADDR, _CMD | _AUTO | _CDATA, 8)
        c = data[0] | data[1] << 8
        r = data[2] | data[3] << 8
        g = data[4] | data[5] << 8
        b = data[6] | data[7] << 8
        return (r, g, b, c)
