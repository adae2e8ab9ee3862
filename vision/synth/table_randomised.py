"""Held-out table scenes for the ocean-grid reader: table layouts, light and cameras it was never tuned on.

The tuning set of the ocean-grid reader is `vision.synth.table` on the project's own table layout
(`vision/data/table.json`) under `vision.synth.common`'s light. This generator draws a random table in
the layout format (`smart-table/table-layout@1`: table size, square size and gaps, margins, the Harbor's
depth, 4-6 frame markers of random size and place, board and ship marker sizes, the ships' mast height),
places the boards and ships with `vision.synth.table` (the board art and ship models are the game's),
then photographs it under its own light: lamps of 2700-7500 K with a camera white balance that misses,
exposure from dim (noisy) to bright (clipped), a lamp's falloff across the table, soft shadow bands, mild
lens distortion not given to the reader, JPEG, 1280x720 to 4K, tilts up to 35 degrees. Nothing here is
imported by the reader, and no reader setting may be tuned on its images: it measures.

Two protocols. Without a session (`held_out_scene(layout, rng, size)`, round 3's) every photo has its own
lamp, white balance and lens, and the boards' back is the game's purple, which the layout's `boards.back`
names. With a session (`random_table_session`, a table as it stands in a room: one lamp, one camera
whose white balance and lens stay, a back print of its own colour that no layout names) the photos
share the session's light with a drift between them (auto-exposure, white balance), and
`calibration_scene` is the photo `smart-table calibrate table` takes at setup, under the same light.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from vision.synth.randomised import kelvin_rgb
from vision.synth.table import random_table_setup, render_table_scene

SIZES = ((1280, 720), (1920, 1080), (1920, 1080), (2560, 1440), (3840, 2160))
_SHIP_IDS = {"red": 20, "blue": 21, "green": 22, "yellow": 23}  # the game's ship markers (DICT_4X4_50)


@dataclass
class TableShot:
    """What one held-out photo was made with (for reports)."""

    kelvin: float
    exposure: float
    k1: float
    jpeg: int
    size: tuple[int, int]
    tilt_max_deg: float


@dataclass
class TableSession:
    """One table in one room: the lamp, the camera's white balance and lens, the back print's colour."""

    kelvin: float
    wb: np.ndarray  # (B, G, R) camera gains, locked after calibration
    lamp_xy: tuple[float, float]  # the lamp's centre, in image widths/heights
    falloff: float
    level: float  # the exposure at calibration
    k1: float
    back_bgr: tuple[int, int, int]


def random_table_session(
    rng: np.random.Generator, hard: bool = False, skin_back: bool = False, warm_bright: bool = False
) -> TableSession:
    """A table's light, camera and back print (see the module docstring); `hard` the tuning side's
    harsher draws (`_hard_light`); `skin_back` a back print in the hands' own skin range (round 7's
    tuning class: a hand over a board that colour alone cannot tell from the back), drawn after the
    other draws so the rest of the session is the same as without it; `warm_bright` (tuning only, round
    8's class: the red ship's marker bloomed away) a warm lamp (2700-3700 K) and a bright exposure
    (0.9-1.5), the white balance drawn again for that lamp, also after every other draw."""
    kelvin = _hard_kelvin(rng) if hard else float(rng.uniform(2700, 7500))
    wb = 1.0 / kelvin_rgb(kelvin + float(rng.normal(0, 600)))[::-1] * np.exp(rng.normal(0, 0.06, 3))
    lamp = (float(rng.uniform(-0.3, 1.3)), float(rng.uniform(-0.3, 1.3)))
    hsv = np.array(
        [[[rng.uniform(0, 180), rng.uniform(0.35, 0.9) * 255, rng.uniform(0.3, 0.75) * 255]]], np.uint8
    )
    back = tuple(int(v) for v in cv2.cvtColor(hsv, cv2.COLOR_HSV2BGR)[0, 0])
    falloff = float(rng.uniform(0.2, 1.5))
    level = _hard_level(rng) if hard else float(np.exp(rng.uniform(math.log(0.35), math.log(1.6))))
    k1 = float(rng.uniform(-0.06, 0.0)) if hard else float(rng.uniform(-0.05, 0.03))
    if skin_back:  # `vision.synth.common.draw_hand`'s skin range (B, G, R)
        back = tuple(int(rng.uniform(lo, hi)) for lo, hi in ((90, 140), (130, 175), (180, 225)))
    if warm_bright:
        kelvin = float(rng.uniform(2700, 3700))
        level = float(rng.uniform(0.9, 1.5))
        wb = 1.0 / kelvin_rgb(kelvin + float(rng.normal(0, 600)))[::-1] * np.exp(rng.normal(0, 0.06, 3))
    return TableSession(
        kelvin=kelvin,
        wb=np.asarray(wb, np.float64),
        lamp_xy=lamp,
        falloff=falloff,
        level=level,
        k1=k1,
        back_bgr=(back[0], back[1], back[2]),
    )


# The tuning side's harsher draws (`hard=True`; round 6): the held-out misses of round 5 were warm or
# bright exposures and dimmer ones with barrel distortion, so tuning tables lean to the ends of each
# range the issue lists. The default draws (held-out protocol) are unchanged.
def _hard_kelvin(rng: np.random.Generator) -> float:
    """Warm or cool ends of 2700-7500 K twice as often as the middle."""
    pick = rng.random()
    if pick < 0.4:
        return float(rng.uniform(2700, 3500))
    if pick < 0.8:
        return float(rng.uniform(6000, 7500))
    return float(rng.uniform(3500, 6000))


def _hard_level(rng: np.random.Generator) -> float:
    """Exposure: dim (noisy), bright (clipped) or in between, each a third."""
    pick = rng.random()
    if pick < 1 / 3:
        return float(rng.uniform(0.25, 0.5))
    if pick < 2 / 3:
        return float(rng.uniform(1.2, 2.0))
    return float(np.exp(rng.uniform(math.log(0.5), math.log(1.2))))


def random_table_layout(rng: np.random.Generator, name: str = "random-table") -> dict[str, Any]:
    """A table a user could describe: the 3 x 4 grid of squares below a Harbor, frame markers around."""
    side = float(rng.uniform(150, 230))  # a square (an Ocean board and a little room)
    gap = float(rng.choice([0.0, 0.0, rng.uniform(2, 15)]))
    margin = float(rng.uniform(55, 90))
    harbor_h = float(rng.uniform(120, 220))
    harbor_gap = float(rng.uniform(5, 20))
    grid_w = 3 * side + 2 * gap
    W = round(grid_w + 2 * margin)
    H = round(margin + harbor_h + harbor_gap + 4 * side + 3 * gap + margin)
    msize = float(rng.uniform(35, min(60, margin - 12)))
    inset = float(rng.uniform(4, margin - msize - 4))
    spots = [(inset, inset), (W - inset - msize, inset), (W - inset - msize, H - inset - msize)]
    spots.append((inset, H - inset - msize))
    for _ in range(int(rng.integers(0, 3))):  # extra markers down the long sides
        x = inset if rng.random() < 0.5 else W - inset - msize
        spots.append((x, float(rng.uniform(0.3, 0.7)) * (H - msize)))
    free_ids = [i for i in range(50) if i not in _SHIP_IDS.values()]
    ids = [int(v) for v in rng.choice(free_ids, size=len(spots), replace=False)]
    markers = [
        {"id": mid, "corners_mm": [[x, y], [x + msize, y], [x + msize, y + msize], [x, y + msize]]}
        for mid, (x, y) in zip(ids, spots, strict=True)
    ]
    x0, y0 = margin, margin
    harbor = [[x0, y0], [x0 + grid_w, y0], [x0 + grid_w, y0 + harbor_h], [x0, y0 + harbor_h]]
    gy0 = y0 + harbor_h + harbor_gap
    squares = []
    for row in range(1, 5):
        for col in range(1, 4):
            sx = x0 + (col - 1) * (side + gap)
            sy = gy0 + (row - 1) * (side + gap)
            poly = [[sx, sy], [sx + side, sy], [sx + side, sy + side], [sx, sy + side]]
            squares.append({"id": f"r{row}c{col}", "row": row, "col": col, "polygon_mm": poly})
    bsize = float(rng.uniform(30, 45))
    off = float(rng.uniform(bsize / 2 + 8, bsize / 2 + 20))
    board_ids = {f"island-{k:02d}": 10 + k for k in range(1, 13)}
    board_ids.update({f"open-sea-{c}": 30 + i for i, c in enumerate("abcd")})
    return {
        "schema": "smart-table/table-layout@1",
        "name": name,
        "size_mm": [W, H],
        "aruco_dictionary": "DICT_4X4_50",
        "markers": markers,
        "harbor": {"polygon_mm": harbor},
        "squares": squares,
        "boards": {
            "aruco_dictionary": "DICT_5X5_100",
            "marker_size_mm": round(bsize, 1),
            "ids": board_ids,
            "marker_offset_mm": [round(off, 1), round(off, 1)],
            "back": {"hue": [128, 160], "min_saturation": 70},
        },
        "ships": {
            "aruco_dictionary": "DICT_4X4_50",
            "marker_size_mm": round(float(rng.uniform(20, 30)), 1),
            "marker_height_mm": round(float(rng.uniform(30, 55)), 1),
            "ids": dict(_SHIP_IDS),
        },
    }


def _photograph(
    image: np.ndarray,
    rng: np.random.Generator,
    size: tuple[int, int],
    session: TableSession | None = None,
    hard: bool = False,
) -> tuple[np.ndarray, TableShot]:
    """The neutral render under this generator's light, lens and compression (the session's, drifted,
    when one is given; without one, every draw is round 3's). `hard`: the tuning side's harsher draws
    (warm/cool ends, dim or clipped exposures, barrel distortion to k1 -0.06, a second lamp of another
    colour)."""
    h, w = image.shape[:2]
    img = (image.astype(np.float32) / 255.0) ** 2.2  # to linear
    yy, xx = np.mgrid[0:h:8, 0:w:8].astype(np.float32)
    if session is None:
        kelvin = _hard_kelvin(rng) if hard else float(rng.uniform(2700, 7500))
        wb = 1.0 / kelvin_rgb(kelvin + float(rng.normal(0, 600)))[::-1] * np.exp(rng.normal(0, 0.06, 3))
        cx, cy = rng.uniform(-0.3, 1.3) * w, rng.uniform(-0.3, 1.3) * h
        falloff = float(rng.uniform(0.2, 1.5))
    else:
        kelvin = session.kelvin
        wb = session.wb * np.exp(rng.normal(0, 0.025, 3))  # white balance drift since calibration
        cx, cy = session.lamp_xy[0] * w, session.lamp_xy[1] * h
        falloff = session.falloff
    lamp = kelvin_rgb(kelvin)[::-1].astype(np.float32)  # (B, G, R)
    # One lamp's falloff: brighter under it, dimmer away (a quadratic in the image plane).
    r2 = ((xx - cx) ** 2 + (yy - cy) ** 2) / float(w * w)
    field = 1.0 / (1.0 + falloff * r2)
    for _ in range(int(rng.integers(0, 3))):  # soft shadow bands (a lamp arm, a person leaning over)
        a = rng.uniform(0, math.pi)
        d = (xx - rng.uniform(0, w)) * math.sin(a) - (yy - rng.uniform(0, h)) * math.cos(a)
        half = rng.uniform(0.02, 0.08) * w
        field *= 1.0 - float(rng.uniform(0.15, 0.5)) / (1.0 + np.exp((np.abs(d) - half) / (0.02 * w)))
    field = cv2.resize(field.astype(np.float32), (w, h), interpolation=cv2.INTER_LINEAR)
    if session is None:
        level = float(np.exp(rng.uniform(math.log(0.35), math.log(1.6))))  # dim and noisy .. clipped
        if hard:
            level = _hard_level(rng)
    else:
        level = session.level * float(np.exp(rng.normal(0, 0.12)))  # auto-exposure drift
    if not hard or rng.random() >= 0.5:
        img = img * field[..., None] * (lamp * wb).astype(np.float32)[None, None, :]
    else:
        # A second lamp of another colour from another side (a window, a ceiling light).
        k2 = float(rng.uniform(2700, 7500))
        c2x, c2y = rng.uniform(-0.3, 1.3) * w, rng.uniform(-0.3, 1.3) * h
        r2b = ((xx - c2x) ** 2 + (yy - c2y) ** 2) / float(w * w)
        f2 = cv2.resize(
            (float(rng.uniform(0.3, 1.0)) / (1.0 + float(rng.uniform(0.2, 1.5)) * r2b)).astype(np.float32),
            (w, h),
            interpolation=cv2.INTER_LINEAR,
        )
        light = field[..., None] * lamp[None, None, :] + f2[..., None] * kelvin_rgb(k2)[::-1][None, None, :]
        img = img * (light * wb[None, None, :]).astype(np.float32)
    img = img * (level * 0.8 / max(1e-3, float(np.median(img))) * 0.25)
    k1 = float(rng.uniform(-0.05, 0.03)) if session is None else session.k1
    if hard and session is None:
        k1 = float(rng.uniform(-0.06, 0.0))
    if abs(k1) > 1e-3:
        f = 0.9 * w
        K = np.array([[f, 0, w / 2], [0, f, h / 2], [0, 0, 1]])
        mx, my = cv2.initUndistortRectifyMap(K, np.array([k1, 0, 0, 0, 0]), None, K, (w, h), cv2.CV_32FC1)
        img = np.asarray(
            cv2.remap(img, mx, my, cv2.INTER_LINEAR, borderMode=cv2.BORDER_REPLICATE), dtype=np.float32
        )
    img = (np.clip(img, 0, 1) ** (1 / 2.2)).astype(np.float32)
    noise = float(rng.uniform(0.5, 2.5)) / min(1.0, level) ** 0.5
    img = img + rng.normal(0, noise / 255.0, img.shape).astype(np.float32) * (0.5 + img)
    out = np.clip(img * 255 + 0.5, 0, 255).astype(np.uint8)
    jpeg = int(rng.integers(70, 96))
    ok, buf = cv2.imencode(".jpg", out, [cv2.IMWRITE_JPEG_QUALITY, jpeg])
    decoded = cv2.imdecode(buf, cv2.IMREAD_COLOR) if ok else None
    return (decoded if decoded is not None else out), TableShot(kelvin, level, k1, jpeg, size, 35.0)


def held_out_scene(
    layout: dict[str, Any],
    rng: np.random.Generator,
    size: tuple[int, int] | None = None,
    session: TableSession | None = None,
    hard: bool = False,
    **variation: Any,
) -> tuple[np.ndarray, dict[str, Any], list[str]]:
    """One photo of a random deal on `layout`: (BGR image, truth as `render_table_scene`'s, ships in
    play). `size` forces one resolution (else random from 1280x720 to 4K); `session` the table's own
    light and back print (else round 3's protocol: a light of its own per photo, the game's back);
    `variation` goes to `render_table_scene` (hands=0, glare=False for a clear view)."""
    wh = size or SIZES[int(rng.integers(len(SIZES)))]
    boards, ships = random_table_setup(_loaded(layout), rng, n_ships=int(rng.integers(2, 5)))
    return _shoot(layout, boards, ships, rng, wh, session, hard=hard, **variation)


def far_ships_scene(
    layout: dict[str, Any],
    rng: np.random.Generator,
    size: tuple[int, int],
    session: TableSession,
) -> tuple[np.ndarray, dict[str, Any], list[str]]:
    """A tuning photo (round 8, with `random_table_session(warm_bright=True)`): a random deal of the
    boards, all four ships on four squares of the two rows farthest from the Harbor (their markers
    smallest and most tilted in most views), under the session's light."""
    boards, _ = random_table_setup(_loaded(layout), rng, n_ships=0)
    far = [sq["id"] for sq in layout["squares"] if sq["row"] >= 3]
    chosen = rng.choice(far, 4, replace=False)
    ships = {name: str(sq) for name, sq in zip(("red", "blue", "green", "yellow"), chosen, strict=True)}
    return _shoot(layout, boards, ships, rng, size, session)


def calibration_scene(
    layout: dict[str, Any],
    rng: np.random.Generator,
    session: TableSession,
    size: tuple[int, int] = (1920, 1080),
) -> np.ndarray:
    """The setup photo `smart-table calibrate table` takes: the first row's boards face up, every other
    board face down, the ships in the Harbor, no hand, no glare; under the session's light."""
    boards, _ = random_table_setup(_loaded(layout), rng, n_ships=0, face_up_fraction=0.0)
    ships = dict.fromkeys(_SHIP_IDS, "harbor")
    return _shoot(layout, boards, ships, rng, size, session, hands=0, glare=False)[0]


def _shoot(
    layout: dict[str, Any],
    boards: dict[str, str | None],
    ships: dict[str, str],
    rng: np.random.Generator,
    wh: tuple[int, int],
    session: TableSession | None,
    hard: bool = False,
    **extra: Any,
) -> tuple[np.ndarray, dict[str, Any], list[str]]:
    if session is not None:
        extra["back_bgr"] = session.back_bgr
    image, truth = render_table_scene(
        layout,
        boards,
        ships,
        rng,
        max_tilt_deg=35.0,
        light_strength=0.0,  # the light is this generator's own (`_photograph`)
        noise_sigma=0.0,
        size=wh,
        **extra,
    )
    photo, shot = _photograph(image, rng, wh, session, hard)
    truth["shot"] = {"kelvin": shot.kelvin, "exposure": shot.exposure, "k1": shot.k1, "jpeg": shot.jpeg}
    return photo, truth, list(ships)


def _loaded(layout: dict[str, Any]) -> Any:
    from vision.ocean_grid.layout import load_table_layout

    return load_table_layout(layout)
