"""The held-out look at The Great Sea's map: a generator the reader is never tuned on. Each seed makes its
own table (Main Board side, region shapes, border bends, cell size), its own print (sea hue and waves,
island colours, border colour, width and dashes, printed ship icons), its own paints (each player's
stain off the colour the layout declares), light (2700-7500 K with a partial white balance, dim to
bright, a gradient, vignette, a lamp from any side, hard or soft shadows, shadow bands of people at the
table), camera (tilt up to 30 degrees, roll, field of view, 720p to 4K, lens distortion) and noise,
blur and JPEG. Must not import the reader.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

import cv2
import numpy as np

from vision.synth.common import Lighting, darken_polygons
from vision.synth.randomised import kelvin_rgb
from vision.synth.sea import (
    PLAYERS,
    Piece,
    Print,
    framed_camera,
    layout_dict,
    paint_map,
    place_pieces,
    render,
    truth_of,
)

SEED_BASE = 500_000  # far from the tuning set's seeds


@dataclass
class HeldOutScene:
    seed: int
    image: np.ndarray
    truth: dict[str, list[list[Any]]]
    layout: dict[str, Any]
    notes: dict[str, Any]
    pieces: list[Piece]  # where each stands (for classifying errors)
    # The bare map under the same camera and lamp, without the pieces nor the people's shadow bands (the
    # calibration photo taken at setup); None when not asked for.
    calibration: np.ndarray | None = None


def _print(rng: np.random.Generator) -> Print:
    sea = [(150, 110, 45), (120, 120, 40), (110, 70, 30), (130, 130, 90), (160, 140, 70), (95, 105, 60)]
    islands = [(150, 195, 215), (120, 170, 140), (160, 165, 170), (130, 180, 200), (110, 150, 175)]
    borders = [(50, 60, 70), (30, 30, 30), (225, 230, 230), (60, 150, 190), (90, 60, 40)]
    base = np.array(sea[int(rng.integers(len(sea)))], np.float64) * rng.uniform(0.85, 1.15, 3)
    return Print(
        sea=tuple(int(v) for v in np.clip(base, 0, 255)),  # type: ignore[arg-type]
        sea_texture=float(rng.uniform(4, 22)),
        island=islands[int(rng.integers(len(islands)))],
        border=borders[int(rng.integers(len(borders)))],
        border_mm=float(rng.uniform(1.2, 2.8)),
        dash_mm=float(rng.choice([0.0, 3.0, 5.0])),
        icons=tuple(int(v) for v in rng.uniform(170, 235, 3)),  # type: ignore[arg-type]
        ship_icons=True,
        paper=tuple(int(v) for v in rng.uniform(225, 248, 3)),  # type: ignore[arg-type]
    )


def heldout_scene(index: int, calibration: bool = False) -> HeldOutScene:
    """Scene `index` (its photo the same with or without `calibration`: the bare map's photo is drawn
    after it, from its own random stream)."""
    seed = SEED_BASE + index
    rng = np.random.default_rng(seed)
    side = str(rng.choice(["2", "3", "4"]))
    layout = layout_dict(side, seed=seed, jitter=float(rng.uniform(4, 24)), cell=float(rng.uniform(88, 112)))
    players = list(PLAYERS)[: int(side)]
    pieces = place_pieces(
        layout,
        rng,
        players,
        per_region=(0, 4),
        gap_mm=float(rng.uniform(4, 9)),
        margin_mm=float(rng.uniform(6, 10)),
        damaged_rate=0.2,
        fill=float(rng.uniform(0.4, 0.8)),
    )
    look = _print(rng)
    texture = paint_map(layout, look, rng)
    paints: dict[str, tuple[float, float, float]] = {}
    for name, hex_colour in layout["players"].items():
        bgr = np.array(
            [int(hex_colour[5:7], 16), int(hex_colour[3:5], 16), int(hex_colour[1:3], 16)], np.float64
        )
        paint = np.clip(bgr * rng.uniform(0.88, 1.12, 3) + rng.uniform(-6, 6, 3), 0, 255)
        paints[name] = (float(paint[0]), float(paint[1]), float(paint[2]))
    sizes = [(1280, 720), (1920, 1080), (1920, 1080), (2560, 1440), (3840, 2160)]
    size = sizes[int(rng.integers(len(sizes)))]
    w, h = layout["size_mm"]
    k1 = float(rng.uniform(-0.08, 0.05))
    cam = framed_camera(
        layout,
        (w / 2 + rng.uniform(-30, 30), h / 2 + rng.uniform(-30, 30)),
        tilt_deg=float(rng.uniform(0, 30)),
        azimuth_deg=float(rng.uniform(0, 360)),
        roll_deg=float(rng.uniform(-8, 8)),
        hfov_deg=float(rng.uniform(55, 75)),
        size=size,
        dist=(k1, 0.0, 0.0, 0.0, 0.0),
        fill=0.92,
    )
    kelvin = float(rng.uniform(2700, 7500))
    # The camera's white balance corrects only part of the lamp's colour.
    cast = kelvin_rgb(kelvin) ** float(rng.uniform(0.2, 0.7))
    cast = cast / cast[1]
    light = Lighting(
        gain=float(rng.uniform(0.65, 1.25)),
        gradient=(float(rng.uniform(-0.3, 0.3)), float(rng.uniform(-0.3, 0.3))),
        vignette=float(rng.uniform(0, 0.3)),
        direction=(float(rng.uniform(-0.8, 0.8)), float(rng.uniform(-0.8, 0.8)), 1.0),
        wb=(float(cast[2]), float(cast[1]), float(cast[0])),
        shadow_strength=float(rng.uniform(0.15, 0.5)),
    )
    img = render(
        layout,
        texture,
        pieces,
        cam,
        light,
        rng,
        noise=float(rng.uniform(1, 6)),
        jpeg=int(rng.integers(60, 96)),
        blur=float(rng.uniform(0.3, 1.2)),
        stain=0.08,
        paints=paints,
    )
    bands = int(rng.integers(0, 3))
    if bands:
        hh, ww = img.shape[:2]
        polys = []
        for _ in range(bands):
            x = rng.uniform(0, ww)
            polys.append(
                np.array(
                    [
                        [x, 0],
                        [x + rng.uniform(100, 400), 0],
                        [x + rng.uniform(-200, 600), hh],
                        [x - rng.uniform(0, 300), hh],
                    ]
                )
            )
        img = darken_polygons(img, polys, float(rng.uniform(0.15, 0.4)), 25.0)
    notes = {
        "side": side,
        "size": list(size),
        "kelvin": round(kelvin),
        "tilt": "up to 30",
        "jpeg": True,
        "shadow_bands": bands,
    }
    bare = None
    if calibration:
        crng = np.random.default_rng([seed, 1])
        # Taken at setup: the lamp a little brighter or dimmer than during play.
        setup_light = dataclasses.replace(light, gain=light.gain * float(crng.uniform(0.9, 1.1)))
        bare = render(
            layout,
            texture,
            [],
            cam,
            setup_light,
            crng,
            noise=float(crng.uniform(1, 6)),
            jpeg=int(crng.integers(60, 96)),
            blur=float(crng.uniform(0.3, 1.2)),
        )
    return HeldOutScene(seed, img, truth_of(pieces, layout), layout, notes, pieces, bare)


def to_1080p(image: np.ndarray) -> np.ndarray:
    """The frame scaled to 1920 px wide (for timing every frame at the goal's size)."""
    h, w = image.shape[:2]
    return cv2.resize(image, (1920, int(round(h * 1920 / w))), interpolation=cv2.INTER_AREA)
