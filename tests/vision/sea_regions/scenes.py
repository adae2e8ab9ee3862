"""Rendered scenes for the region reader's tests (the tuning renderer, `vision.synth.sea`)."""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np

from vision.synth.common import Lighting
from vision.synth.sea import Piece, Print, framed_camera, layout_dict, paint_map, render, truth_of


def _spread_pieces(layout: dict[str, Any]) -> list[Piece]:
    """Every kind of piece, each alone in the middle of its own region of the 2-player map."""
    centres = {r["id"]: np.array(r["polygon_mm"]).mean(axis=0) for r in layout["regions"]}
    spec = [
        ("r0c1", "red", "large", False, 20.0),
        ("r0c2", "yellow", "medium", False, 110.0),
        ("r1c1", "red", "small", False, 60.0),
        ("r1c2", "yellow", "stronghold", False, 15.0),
        ("r2c1", "red", "outpost", False, 40.0),
        ("r2c2", "yellow", "medium", True, 75.0),
        ("r3c2", "red", "large", True, 130.0),
        ("r3c1", "yellow", "small", False, 160.0),
    ]
    return [Piece(o, k, d, (float(centres[r][0]), float(centres[r][1])), yaw, r) for r, o, k, d, yaw in spec]


@cache
def spread_scene() -> tuple[np.ndarray, dict[str, list[list[Any]]], dict[str, Any]]:
    """Every kind of piece, each alone in the middle of its own region of the 2-player map, camera
    straight down: what any reading must get exactly right."""
    layout = layout_dict("2")
    pieces = _spread_pieces(layout)
    w, h = layout["size_mm"]
    cam = framed_camera(layout, (w / 2, h / 2), 0.0, 0.0, 0.0, 60.0, (1920, 1080))
    rng = np.random.default_rng(3)
    image = render(layout, paint_map(layout, Print(), rng), pieces, cam, Lighting(shadow_strength=0.25), rng)
    return image, truth_of(pieces, layout), layout


@cache
def touching_scene() -> tuple[np.ndarray, dict[str, Any]]:
    """Two red Ships side by side, touching, in one region: one blob, two pieces."""
    layout = layout_dict("2")
    c = np.array(layout["regions"][5]["polygon_mm"]).mean(axis=0)
    pieces = [
        Piece("red", "medium", False, (float(c[0]), float(c[1])), 0.0, layout["regions"][5]["id"]),
        Piece("red", "large", False, (float(c[0]), float(c[1] + 8.5)), 0.0, layout["regions"][5]["id"]),
    ]
    w, h = layout["size_mm"]
    cam = framed_camera(layout, (w / 2, h / 2), 10.0, 30.0, 0.0, 60.0, (1920, 1080))
    rng = np.random.default_rng(4)
    return render(layout, paint_map(layout, Print(), rng), pieces, cam, Lighting(), rng), layout


@cache
def gold_print_scene() -> tuple[np.ndarray, np.ndarray, dict[str, list[list[Any]]], dict[str, Any]]:
    """The spread scene's pieces on a map printed near a piece colour (islands in the yellow player's
    gold, red-brown borders), and the bare map's calibration photo (same camera, lamp a little dimmer).
    Returns (photo, bare photo, truth, layout)."""
    _, truth, layout = spread_scene()
    image, bare = _gold_photos(layout)
    return image, bare, truth, layout


def _gold_photos(layout: dict[str, Any]) -> tuple[np.ndarray, np.ndarray]:
    pieces = _spread_pieces(layout)
    look = Print(island=(40, 180, 228), border=(40, 45, 150), border_mm=2.5)
    texture = paint_map(layout, look, np.random.default_rng(5))
    w, h = layout["size_mm"]
    cam = framed_camera(layout, (w / 2, h / 2), 12.0, 40.0, 0.0, 60.0, (1920, 1080))
    image = render(layout, texture, pieces, cam, Lighting(shadow_strength=0.25), np.random.default_rng(6))
    bare = render(layout, texture, [], cam, Lighting(gain=0.93), np.random.default_rng(7))
    return image, bare


@cache
def brown_black_scene(
    black: tuple[float, float, float] = (24.0, 32.0, 52.0),
) -> tuple[np.ndarray, np.ndarray, dict[str, list[list[Any]]], dict[str, Any]]:
    """Black pieces under a warm lamp the camera half corrects: their paint (`black`, BGR) comes out dark
    brown, tinted past the darkness test's greyness, on a dark blue sea; and the bare map's calibration
    photo. Returns (photo, bare photo, truth, layout)."""
    layout = layout_dict("4")
    regions = layout["regions"]
    kinds = [("large", False), ("medium", False), ("small", False), ("stronghold", False), ("outpost", False)]
    kinds += [("medium", True), ("large", False), ("small", False)]
    pieces = []
    for k, (kind, damaged) in enumerate(kinds):
        r = regions[2 * k + 1]
        c = np.array(r["polygon_mm"]).mean(axis=0)
        pieces.append(Piece("black", kind, damaged, (float(c[0]), float(c[1])), 25.0 * k, r["id"]))
    look = Print(sea=(105, 70, 30))
    texture = paint_map(layout, look, np.random.default_rng(8))
    w, h = layout["size_mm"]
    cam = framed_camera(layout, (w / 2, h / 2), 15.0, 200.0, 0.0, 62.0, (1920, 1080))
    light = Lighting(shadow_strength=0.3)
    paints = {"red": (46.0, 38.0, 179.0), "yellow": (35.0, 185.0, 232.0), "purple": (154.0, 61.0, 106.0)}
    paints["black"] = black
    rng = np.random.default_rng(9)
    image = render(layout, texture, pieces, cam, light, rng, paints=paints)
    bare = render(layout, texture, [], cam, Lighting(gain=1.05), np.random.default_rng(10))
    return image, bare, truth_of(pieces, layout), layout
