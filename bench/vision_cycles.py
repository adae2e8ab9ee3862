"""Physically based held-out photos of random battle boards with Blender Cycles (the `bpy` wheel), read
by the reader: path-traced bevelled cubes, an area lamp, soft shadows, interreflection, sensor noise, JPEG.

    pip install --target /tmp/bpyenv bpy==4.2.0          # Python 3.11 wheel, ~520 MB, kept out of the project
    PYTHONPATH=/tmp/bpyenv:. nice python bench/vision_cycles.py \
        --design 7300 --scenes 3 --out ~/.cache/st-cycles
    python bench/vision_cycles.py --design 7300 --out ~/.cache/st-cycles --read   # score the cached images

Boards, print and cube paints come from `vision.synth.randomised` (designs there are layout files); this
script replaces its renderer only (flat board, rails printed, not raised: `rail_height_mm` is set to 0).
Images are cached outside the repository (`--out`); nothing rendered is committed. Small and slow on
purpose: 960x540, `--samples` (default 16) with denoising.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import cv2  # noqa: E402
import numpy as np  # noqa: E402

from vision.synth import randomised as R  # noqa: E402


def _setup(bpy: Any, design: R.Design, shot: R.Shot, samples: int, tex_path: Path) -> None:
    bpy.ops.wm.read_factory_settings(use_empty=True)
    scene = bpy.context.scene
    scene.render.engine = "CYCLES"
    scene.cycles.samples = samples
    scene.cycles.use_denoising = True
    scene.render.resolution_x, scene.render.resolution_y = shot.size
    scene.render.resolution_percentage = 100
    scene.view_settings.view_transform = "Standard"
    scene.render.image_settings.file_format = "PNG"
    scene.render.image_settings.color_depth = "16"
    scene.unit_settings.scale_length = 0.001  # one unit is a millimetre
    W, H = design.layout["size_mm"]
    # The board: a plane from (0, 0) to (W, -H) in Blender (board y runs down, Blender's y up).
    bpy.ops.mesh.primitive_plane_add(size=1.0, location=(W / 2, -H / 2, 0.0))
    board = bpy.context.object
    board.scale = (W, H, 1.0)
    mat = bpy.data.materials.new("print")
    mat.use_nodes = True
    nodes = mat.node_tree.nodes
    img = nodes.new("ShaderNodeTexImage")
    img.image = bpy.data.images.load(str(tex_path))
    bsdf = nodes["Principled BSDF"]
    bsdf.inputs["Roughness"].default_value = 0.55
    mat.node_tree.links.new(img.outputs["Color"], bsdf.inputs["Base Color"])
    board.data.materials.append(mat)
    # A table under the board.
    bpy.ops.mesh.primitive_plane_add(size=4000.0, location=(W / 2, -H / 2, -1.0))
    table = bpy.context.object
    tm = bpy.data.materials.new("table")
    tm.use_nodes = True
    tm.node_tree.nodes["Principled BSDF"].inputs["Base Color"].default_value = (0.18, 0.12, 0.08, 1.0)
    table.data.materials.append(tm)
    # Camera from the shot's OpenCV pose (world x right, y down the board, z into the table).
    Rm, _ = cv2.Rodrigues(shot.rvec)
    D = np.diag([1.0, -1.0, -1.0])  # OpenCV world -> Blender world
    centre = D @ (-Rm.T @ shot.tvec)
    axes = np.column_stack([D @ Rm[0], D @ -Rm[1], D @ -Rm[2]])
    cam_data = bpy.data.cameras.new("cam")
    w, h = shot.size
    cam_data.sensor_fit = "HORIZONTAL"
    cam_data.sensor_width = 36.0
    cam_data.lens = shot.K[0, 0] * 36.0 / w
    cam_data.shift_x = -(shot.K[0, 2] - w / 2) / w
    cam_data.shift_y = (shot.K[1, 2] - h / 2) / w
    cam_data.clip_start, cam_data.clip_end = 10.0, 100000.0
    cam = bpy.data.objects.new("cam", cam_data)
    M = np.eye(4)
    M[:3, :3], M[:3, 3] = axes, centre
    from mathutils import Matrix  # type: ignore[import-not-found]  # Blender's module, absent outside it

    cam.matrix_world = Matrix(M.tolist())
    scene.collection.objects.link(cam)
    scene.camera = cam


def _add_lamp(bpy: Any, pos_up: np.ndarray, power_w: float, rgb: np.ndarray, size: float) -> None:
    data = bpy.data.lights.new("lamp", type="AREA")
    data.energy = power_w
    data.size = size
    data.color = tuple(float(v) for v in rgb / rgb.max())
    lamp = bpy.data.objects.new("lamp", data)
    lamp.location = (float(pos_up[0]), float(-pos_up[1]), float(pos_up[2]))  # area lights face down (-z)
    bpy.context.scene.collection.objects.link(lamp)


def _add_cubes(bpy: Any, cubes: list[R.Cube], paints: dict[str, np.ndarray]) -> None:
    for c in cubes:
        bpy.ops.mesh.primitive_cube_add(
            size=c.size, location=(float(c.center[0]), float(-c.center[1]), c.z + c.size / 2)
        )
        ob = bpy.context.object
        ob.rotation_euler = (0.0, 0.0, -c.yaw)
        bev = ob.modifiers.new("bevel", "BEVEL")
        bev.width, bev.segments = 0.8, 3
        mat = bpy.data.materials.new(f"paint-{c.color}")
        mat.use_nodes = True
        bsdf = mat.node_tree.nodes["Principled BSDF"]
        bsdf.inputs["Base Color"].default_value = (*[float(v) for v in paints[c.color]], 1.0)
        bsdf.inputs["Roughness"].default_value = 0.45
        ob.data.materials.append(mat)


def render(
    bpy: Any,
    design: R.Design,
    cubes: list[R.Cube],
    shot: R.Shot,
    lamp: tuple[np.ndarray, np.ndarray],
    samples: int,
    work: Path,
    rng: np.random.Generator,
    level: float,
) -> np.ndarray:
    tex = work / f"print-{design.seed}.png"
    if not tex.exists():
        srgb = np.clip(design.texture_rgb, 0, 1) ** (1 / 2.2)
        cv2.imwrite(str(tex), (srgb[..., ::-1] * 65535).astype(np.uint16))
    _setup(bpy, design, shot, samples, tex)
    _add_lamp(bpy, lamp[0], 6.0e6, lamp[1], 300.0)
    _add_cubes(bpy, cubes, design.paints)
    out = work / "render.png"
    bpy.context.scene.render.filepath = str(out)
    bpy.ops.render.render(write_still=True)
    raw = cv2.imread(str(out), cv2.IMREAD_UNCHANGED)
    if raw is None:
        raise RuntimeError(f"Blender wrote no readable image at {out}")
    img = raw.astype(np.float32) / 65535.0
    img = img[..., :3]
    # Auto-exposure: the board's bright end at `level` of full scale, then sensor noise and JPEG.
    img *= level / max(float(np.percentile(img, 97)), 1e-3)
    img = np.clip(img + rng.normal(0, 1.5 / 255, img.shape).astype(np.float32), 0, 1)
    photo = (img * 255 + 0.5).astype(np.uint8)
    ok, buf = cv2.imencode(".jpg", photo, [cv2.IMWRITE_JPEG_QUALITY, 88])
    decoded = cv2.imdecode(buf, cv2.IMREAD_COLOR)
    return decoded if decoded is not None else photo


def read_cached(work: Path, design_id: int) -> dict[str, Any]:
    """Calibrate from the cached calibration photo of `design_id` and read its cached scenes: the
    scoring of `bench/vision_heldout.py` (strict multiset of (colour, zone or rail), exact, silent)."""
    from collections import Counter

    from calibration.colors import CalibrationError, learn_palette
    from vision.battle_board.layout import load_board_layout
    from vision.battle_board.reader import BoardReader

    cv2.setNumThreads(1)
    layout = load_board_layout(json.loads((work / f"layout-{design_id}.json").read_text()))
    cal = cv2.imread(str(work / f"cal-{design_id}.png"))
    if cal is None:
        return {"design": design_id, "error": f"no cached calibration photo in {work}: render it first"}
    questions: list[dict[str, Any]] = []
    try:
        palette = learn_palette(cal, layout, questions=questions)
    except CalibrationError as exc:
        return {"design": design_id, "calibration_refused": str(exc)}
    reader = BoardReader(layout, palette)
    truths = json.loads((work / f"truth-{design_id}.json").read_text())

    def multiset(counts: dict[str, dict[str, int]], rail: list[str]) -> Counter[tuple[str, str]]:
        out: Counter[tuple[str, str]] = Counter()
        for color, zones in counts.items():
            for zone, n in zones.items():
                out[(color, zone)] += n
        for color in rail:
            out[(color, "<rail>")] += 1
        return out

    scenes = []
    for k, truth in enumerate(truths):
        image = cv2.imread(str(work / f"scene-{design_id}-{k}.png"))
        if image is None:
            return {"design": design_id, "error": f"scene {k} is not cached in {work}: render it first"}
        got = reader.read(image).to_json()
        want = multiset(truth["counts"], truth["redrop_colors"])
        have = multiset(got["counts"], [got["cubes"][i]["color"] for i in got["redrop"]])
        exact = want == have and got["status"] != "ambiguous"
        scenes.append(
            {
                "scene": k,
                "status": got["status"],
                "truth": sum(want.values()),
                "read": sum(have.values()),
                "right": sum((want & have).values()),
                "exact": exact,
                "silent": not exact and got["status"] != "ambiguous",
                "reason": got.get("reason", ""),
            }
        )
    return {"design": design_id, "questions": [q["kind"] for q in questions], "scenes": scenes}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--design", type=int, required=True)
    ap.add_argument("--scenes", type=int, default=3)
    ap.add_argument("--samples", type=int, default=16)
    ap.add_argument("--out", required=True, help="cache folder for the images (outside the repository)")
    ap.add_argument("--read", action="store_true", help="read the cached images only (no Blender needed)")
    args = ap.parse_args(argv)
    if args.read:
        print(json.dumps(read_cached(Path(args.out).expanduser(), args.design)))
        return 0
    import bpy  # type: ignore[import-not-found]  # the Blender wheel (not a dependency); see the docstring

    work = Path(args.out).expanduser()
    work.mkdir(parents=True, exist_ok=True)
    design = R.random_design(args.design)
    design.layout["rail_height_mm"] = 0.0
    design.rail_h = 0.0
    rng = np.random.default_rng(args.design + 1)
    shot = R._resized(R.random_shot(rng, design), (960, 540))
    shot.dist = np.zeros(5)
    W, H = design.layout["size_mm"]
    lamp = (
        np.array([rng.uniform(0, W), rng.uniform(0, H), rng.uniform(600, 1000)]),
        R.kelvin_rgb(float(rng.uniform(2700, 6500))),
    )
    level = float(rng.uniform(0.7, 1.0))
    (work / f"layout-{args.design}.json").write_text(json.dumps(design.layout))
    cal = render(bpy, design, R.swatch_cubes(rng, design), shot, lamp, args.samples, work, rng, level)
    cv2.imwrite(str(work / f"cal-{args.design}.png"), cal)
    truths = []
    for k in range(args.scenes):
        cubes = R.random_cubes(rng, design, int(rng.integers(4, 16)))
        img = render(bpy, design, cubes, shot, lamp, args.samples, work, rng, level)
        cv2.imwrite(str(work / f"scene-{args.design}-{k}.png"), img)
        truths.append(R.truth_of(cubes))
    (work / f"truth-{args.design}.json").write_text(json.dumps(truths))
    print(
        json.dumps(
            {
                "design": args.design,
                "images": args.scenes + 1,
                "folder": str(work),
                "lamp_kelvin_rgb": [round(float(v), 3) for v in lamp[1]],
                "tilt_deg": round(shot.tilt_deg, 1),
                "yaw_note": math.degrees(0.0),
            }
        )
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
