"""Physically based held-out photos of random battle boards with Blender Cycles (the `bpy` wheel), read
by the reader: the board a solid with its rails standing `rail_height_mm` above the wells and the print as
its texture, bevelled cubes of stained wood, one or two lamps (area or spot, 2700-7500 K), a lamp arm's
shadow, soft shadows, interreflection, a real lens (depth of field, focused on the board; radial
distortion), auto-exposure from dim to clipped, sensor noise, JPEG.

    pip install --target /tmp/bpyenv bpy==4.2.0          # Python 3.11 wheel, ~520 MB, kept out of the project
    PYTHONPATH=/tmp/bpyenv:. nice -n 10 python bench/vision_cycles.py \
        --design 7350 --scenes 10 --size 1280x720 --out /tmp/st-cycles6
    python bench/vision_cycles.py --read --out /tmp/st-cycles6 --design 7350 7351   # score the cache

`--hands` puts a skin-toned forearm and hand over part of the board in every play photo (the truth names it;
such a scene is right only when the reader says "a hand").

Boards, print and cube paints come from `vision.synth.randomised` (designs there are layout files); the
scene as numbers (rail solid, lamps, lens, wood, developing) is `bench/cycles_scene.py`. Images are cached
outside the repository (`--out`); nothing rendered is committed. Beside each design's images:
`layout-N.json` (what the reader is given), `truth-N.json` (per photo: each cube colour's count per zone,
the re-drop colours, the camera, lamps and developing), `cal-N.png`, `scene-N-K.png`.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import cv2  # noqa: E402
import cycles_scene as S  # noqa: E402
import numpy as np  # noqa: E402

from vision.synth import randomised as R  # noqa: E402

MAIN_IRRADIANCE = 5.0e6 / 900.0**2  # what the main lamp's power is scaled to give at its distance


def _node_material(bpy: Any, name: str) -> tuple[Any, Any, Any]:
    mat = bpy.data.materials.new(name)
    mat.use_nodes = True
    tree = mat.node_tree
    return mat, tree, tree.nodes["Principled BSDF"]


def _aim(ob: Any, target_up: np.ndarray) -> None:
    from mathutils import Vector  # type: ignore[import-not-found]  # Blender's module, absent outside it

    d = Vector((float(target_up[0]), float(-target_up[1]), float(target_up[2]))) - ob.location
    ob.rotation_euler = d.to_track_quat("-Z", "Y").to_euler()


def build_room(bpy: Any, design: R.Design, room: S.Room, samples: int, work: Path) -> None:
    """The parts that stay for a session: render settings, the board solid with its print, the table,
    the lamps, the world's dim fill and the lamp arm."""
    bpy.ops.wm.read_factory_settings(use_empty=True)
    scene = bpy.context.scene
    scene.render.engine = "CYCLES"
    scene.cycles.device = "CPU"
    scene.cycles.samples = samples
    scene.cycles.use_denoising = True
    scene.cycles.denoising_prefilter = "FAST"
    # Two diffuse bounces carry the interreflection between cubes, walls and print; more cost time only.
    scene.cycles.max_bounces = 4
    scene.cycles.diffuse_bounces = 2
    scene.cycles.glossy_bounces = 2
    scene.cycles.transmission_bounces = 0
    scene.cycles.transparent_max_bounces = 0
    scene.cycles.adaptive_threshold = 0.02
    scene.render.threads_mode = "FIXED"
    scene.render.threads = 2
    scene.render.resolution_percentage = 100
    scene.view_settings.view_transform = "Standard"
    scene.render.image_settings.file_format = "OPEN_EXR"
    scene.render.image_settings.color_depth = "16"
    scene.unit_settings.scale_length = 0.001  # one unit is a millimetre
    W, H = (float(v) for v in design.layout["size_mm"])
    tex = work / f"print-{design.seed}.png"
    if not tex.exists():
        srgb = S.srgb_encode(np.clip(design.texture_rgb, 0, 1))
        cv2.imwrite(str(tex), (srgb[..., ::-1] * 65535 + 0.5).astype(np.uint16))
    # The board: one mesh (floor, rail tops, walls) textured by the print through its UVs.
    m = S.rail_mesh(design.layout)
    mesh = bpy.data.meshes.new("board")
    mesh.from_pydata([tuple(v) for v in m.verts.tolist()], [], m.faces)
    uv = mesh.uv_layers.new(name="print")
    for poly, corners in zip(mesh.polygons, m.uvs, strict=True):
        for li, c in zip(poly.loop_indices, corners, strict=True):
            uv.data[li].uv = c
    mesh.update()
    board = bpy.data.objects.new("board", mesh)
    scene.collection.objects.link(board)
    mat, tree, bsdf = _node_material(bpy, "print")
    img = tree.nodes.new("ShaderNodeTexImage")
    img.image = bpy.data.images.load(str(tex))
    img.interpolation = "Linear"
    bsdf.inputs["Roughness"].default_value = room.print_roughness
    tree.links.new(img.outputs["Color"], bsdf.inputs["Base Color"])
    board.data.materials.append(mat)
    # The table under it.
    bpy.ops.mesh.primitive_plane_add(size=4000.0, location=(W / 2, -H / 2, -S.BOARD_THICKNESS_MM - 0.01))
    table = bpy.context.object
    tm, _, tb = _node_material(bpy, "table")
    tb.inputs["Base Color"].default_value = (*room.table_rgb, 1.0)
    tb.inputs["Roughness"].default_value = 0.6
    table.data.materials.append(tm)
    # Lamps: powers scaled by distance squared so that each gives its share of the main lamp's light.
    centre = np.array([W / 2, H / 2, 0.0])
    for k, lamp in enumerate(room.lamps):
        d = float(np.linalg.norm(lamp.position - centre))
        energy = lamp.power * MAIN_IRRADIANCE * d**2
        data = bpy.data.lights.new(f"lamp{k}", type=lamp.kind)
        if lamp.kind == "AREA":
            data.shape = "RECTANGLE"
            data.size = data.size_y = lamp.size_mm
        else:
            energy *= 4.0  # a spot spreads over a sphere's worth of intensity, an area lamp a hemisphere
            data.spot_size = math.radians(lamp.cone_deg)
            data.spot_blend = lamp.blend
            data.shadow_soft_size = lamp.size_mm
        data.energy = energy
        rgb = R.kelvin_rgb(lamp.kelvin)
        data.color = tuple(float(v) for v in rgb / rgb.max())
        ob = bpy.data.objects.new(f"lamp{k}", data)
        ob.location = (float(lamp.position[0]), float(-lamp.position[1]), float(lamp.position[2]))
        scene.collection.objects.link(ob)
        _aim(ob, lamp.target)
    # The room's dim fill: light off walls and ceiling, a tenth to a quarter of the main lamp's.
    world = bpy.data.worlds.new("room")
    world.use_nodes = True
    bg = world.node_tree.nodes["Background"]
    fill = float(np.random.default_rng(design.seed).uniform(0.08, 0.25)) * MAIN_IRRADIANCE / math.pi
    bg.inputs["Color"].default_value = (fill, fill, fill * 0.95, 1.0)
    bg.inputs["Strength"].default_value = 1.0
    scene.world = world
    if room.arm is not None:
        mid, length, width, yaw = room.arm
        bpy.ops.mesh.primitive_cube_add(size=1.0, location=(float(mid[0]), float(-mid[1]), float(mid[2])))
        arm = bpy.context.object
        arm.scale = (length, width, 15.0)
        arm.rotation_euler = (0.0, 0.0, yaw)
        arm.visible_camera = False  # casts its shadow; it hangs outside the picture


def _wood_material(bpy: Any, name: str, paint: np.ndarray, wood: S.Wood, rng: np.random.Generator) -> Any:
    """Stained wood: the paint colour multiplied by the wood's rings (late wood darker), a fine grain,
    a faint bump from the rings and a thin varnish coat."""
    mat, tree, bsdf = _node_material(bpy, name)
    n, link = tree.nodes, tree.links.new
    coord = n.new("ShaderNodeTexCoord")
    mapping = n.new("ShaderNodeMapping")
    mapping.inputs["Location"].default_value = tuple(float(v) for v in rng.uniform(-25, 25, 3))
    link(coord.outputs["Object"], mapping.inputs["Vector"])
    wave = n.new("ShaderNodeTexWave")
    wave.wave_type = "RINGS"
    wave.rings_direction = "XYZ"[wood.axis]
    wave.inputs["Scale"].default_value = wood.scale
    wave.inputs["Distortion"].default_value = wood.distortion
    wave.inputs["Detail"].default_value = 3.0
    wave.inputs["Phase Offset"].default_value = wood.phase
    link(mapping.outputs["Vector"], wave.inputs["Vector"])
    grain = n.new("ShaderNodeTexNoise")
    grain.inputs["Scale"].default_value = 3.0
    link(mapping.outputs["Vector"], grain.inputs["Vector"])
    rings = n.new("ShaderNodeMath")
    rings.operation = "MULTIPLY_ADD"  # 1 - contrast * wave
    link(wave.outputs["Fac"], rings.inputs[0])
    rings.inputs[1].default_value = -wood.contrast
    rings.inputs[2].default_value = 1.0
    fine = n.new("ShaderNodeMath")
    fine.operation = "MULTIPLY_ADD"  # and a +-4 % grain
    link(grain.outputs["Fac"], fine.inputs[0])
    fine.inputs[1].default_value = 0.08
    fine.inputs[2].default_value = 0.96
    both = n.new("ShaderNodeMath")
    both.operation = "MULTIPLY"
    link(rings.outputs[0], both.inputs[0])
    link(fine.outputs[0], both.inputs[1])
    mix = n.new("ShaderNodeMix")
    mix.data_type = "RGBA"
    mix.blend_type = "MULTIPLY"
    mix.inputs["Factor"].default_value = 1.0
    mix.inputs[6].default_value = (*[float(v) for v in paint], 1.0)
    link(both.outputs[0], mix.inputs[7])
    link(mix.outputs[2], bsdf.inputs["Base Color"])
    bump = n.new("ShaderNodeBump")
    bump.inputs["Strength"].default_value = 0.05
    link(wave.outputs["Fac"], bump.inputs["Height"])
    link(bump.outputs["Normal"], bsdf.inputs["Normal"])
    bsdf.inputs["Roughness"].default_value = float(rng.uniform(0.35, 0.6))
    bsdf.inputs["Coat Weight"].default_value = float(rng.uniform(0.0, 0.3))
    bsdf.inputs["Coat Roughness"].default_value = 0.25
    return mat


def _add_hand(bpy: Any, hand: S.Hand) -> None:
    """A forearm (a cylinder from 300 mm beyond the wrist, back over the board's edge) and a flat hand (an
    ellipsoid) of skin over the board; Blender's frame (y flipped)."""
    mat, _, bsdf = _node_material(bpy, "skin")
    bsdf.inputs["Base Color"].default_value = (*hand.skin_rgb, 1.0)
    bsdf.inputs["Roughness"].default_value = 0.55
    yaw = -math.atan2(float(hand.direction[1]), float(hand.direction[0]))  # about Blender's z (y flipped)
    length, width, thick = hand.hand_mm
    back = 300.0
    mid = hand.wrist - hand.direction * back / 2
    z_arm = hand.height + hand.arm_radius
    bpy.ops.mesh.primitive_cylinder_add(
        radius=hand.arm_radius, depth=back, location=(float(mid[0]), float(-mid[1]), z_arm)
    )
    arm = bpy.context.object
    arm.name = "hand_arm"
    arm.rotation_euler = (0.0, math.pi / 2, yaw)
    arm.data.materials.append(mat)
    bpy.ops.object.shade_smooth()
    palm = hand.wrist + hand.direction * length / 2
    bpy.ops.mesh.primitive_uv_sphere_add(
        radius=1.0, location=(float(palm[0]), float(-palm[1]), hand.height + thick / 2)
    )
    ob = bpy.context.object
    ob.name = "hand_palm"
    ob.scale = (length / 2, width / 2, thick / 2)
    ob.rotation_euler = (0.0, 0.0, yaw)
    ob.data.materials.append(mat)
    bpy.ops.object.shade_smooth()


def set_photo(bpy: Any, design: R.Design, room: S.Room, plan: S.Plan, rng: np.random.Generator) -> None:
    """Replace the cubes and the camera of the last photo with `plan`'s."""
    scene = bpy.context.scene
    for ob in list(scene.objects):
        if ob.name.startswith(("cube", "hand")) or ob.type == "CAMERA":
            bpy.data.objects.remove(ob, do_unlink=True)
    hand = plan.extra.get("hand")
    if isinstance(hand, S.Hand):
        _add_hand(bpy, hand)
    for k, (c, wood) in enumerate(zip(plan.cubes, plan.wood, strict=True)):
        bpy.ops.mesh.primitive_cube_add(
            size=c.size, location=(float(c.center[0]), float(-c.center[1]), c.z + c.size / 2)
        )
        ob = bpy.context.object
        ob.name = f"cube{k}"
        ob.rotation_euler = (0.0, 0.0, -c.yaw)
        bev = ob.modifiers.new("bevel", "BEVEL")
        bev.width, bev.segments = float(rng.uniform(0.5, 1.0)), 3
        ob.data.materials.append(_wood_material(bpy, f"stain{k}", design.paints[c.color], wood, rng))
    shot = plan.shot
    scene.render.resolution_x, scene.render.resolution_y = shot.size
    # Camera from the shot's OpenCV pose (world x right, y down the board, z into the table).
    Rm, _ = cv2.Rodrigues(shot.rvec)
    D = np.diag([1.0, -1.0, -1.0])  # OpenCV world -> Blender world
    centre = D @ (-Rm.T @ shot.tvec)
    axes = np.column_stack([D @ Rm[0], D @ -Rm[1], D @ -Rm[2]])
    cam_data = bpy.data.cameras.new("cam")
    w, h = shot.size
    cam_data.sensor_fit = "HORIZONTAL"
    cam_data.sensor_width = room.sensor_mm
    cam_data.lens = shot.K[0, 0] * room.sensor_mm / w
    cam_data.shift_x = -(shot.K[0, 2] - w / 2) / w
    cam_data.shift_y = (shot.K[1, 2] - h / 2) / w
    cam_data.clip_start, cam_data.clip_end = 10.0, 100000.0
    cam_data.dof.use_dof = True
    cam_data.dof.focus_distance = plan.focus_mm
    cam_data.dof.aperture_fstop = room.fstop
    cam = bpy.data.objects.new("cam", cam_data)
    M = np.eye(4)
    M[:3, :3], M[:3, 3] = axes, centre
    from mathutils import Matrix  # type: ignore[import-not-found]  # Blender's module, absent outside it

    cam.matrix_world = Matrix(M.tolist())
    scene.collection.objects.link(cam)
    scene.camera = cam


def render_linear(bpy: Any, work: Path) -> np.ndarray:
    """Render the scene; its light as linear RGB (H, W, 3) float32, top row first."""
    out = work / "render.exr"
    scene = bpy.context.scene
    scene.render.filepath = str(out)
    bpy.ops.render.render(write_still=True)
    img = bpy.data.images.load(str(out))
    w, h = img.size
    px = np.empty(w * h * 4, np.float32)
    img.pixels.foreach_get(px)
    bpy.data.images.remove(img)
    return px.reshape(h, w, 4)[::-1, :, :3].copy()


def write_truth(
    designs: list[int], n_scenes: int, size: tuple[int, int], work: Path, hands: bool = False
) -> dict[int, tuple[R.Design, S.Room, list[S.Plan]]]:
    """Plan every design's session (seeded by the design) and write what the reader is given
    (`layout-N.json`) and what was put where (`truth-N.json`, `room-N.json` for the calibration photo):
    no Blender needed, the same files a render writes. With `hands`, a hand over the board in every play
    photo (the calibration photo has none)."""
    work.mkdir(parents=True, exist_ok=True)
    sessions = {}
    for d in designs:
        design = R.random_design(d)
        room, cal, scenes = S.plan_session(design, np.random.default_rng(d + 1), n_scenes, size)
        if hands:
            S.add_hands(design, scenes)
        sessions[d] = (design, room, [cal, *scenes])
        (work / f"layout-{d}.json").write_text(json.dumps(design.layout))
        (work / f"truth-{d}.json").write_text(json.dumps([p.truth(room) for p in scenes]))
        (work / f"room-{d}.json").write_text(
            json.dumps({**cal.truth(room), "rail_height_mm": design.layout["rail_height_mm"]})
        )
        print(json.dumps({"design": d, "lamps": [lamp.as_json() for lamp in room.lamps]}), flush=True)
    return sessions


def render_set(
    bpy: Any,
    designs: list[int],
    n_scenes: int,
    samples: int,
    size: tuple[int, int],
    work: Path,
    hands: bool = False,
) -> None:
    """Every design's calibration photo first, then each design's first scene, its second, ...: a set
    cut short still has every design. Each photo's own randomness (bevels, wood, noise) is seeded by
    (design, photo), so any photo re-renders the same alone. The truth of every planned photo is
    written first (it comes from the plan, never from a render)."""
    sessions = write_truth(designs, n_scenes, size, work, hands)
    seconds: dict[int, list[float]] = {d: [] for d in designs}
    for k in range(n_scenes + 1):
        for d in designs:
            design, room, plans = sessions[d]
            name = f"cal-{d}.png" if k == 0 else f"scene-{d}-{k - 1}.png"
            if (work / name).exists():
                continue
            rng = np.random.default_rng([d, k])
            t0 = time.perf_counter()
            build_room(bpy, design, room, samples, work)
            set_photo(bpy, design, room, plans[k], rng)
            photo = S.develop(render_linear(bpy, work), plans[k], rng)
            seconds[d].append(time.perf_counter() - t0)
            cv2.imwrite(str(work / name), photo)
            print(json.dumps({"design": d, "photo": name, "seconds": round(seconds[d][-1], 1)}), flush=True)
    times = [t for ts in seconds.values() for t in ts]
    if times:
        print(json.dumps({"rendered": len(times), "seconds_median": round(statistics.median(times), 1)}))


def read_cached(work: Path, design_id: int) -> dict[str, Any]:
    """Calibrate from the cached calibration photo of `design_id` (each question a person would be
    asked is answered yes: the cubes are on their swatches) and read its cached scenes: the scoring of
    `bench/vision_heldout.py` (strict multiset of (colour, zone or rail), exact, silent, CPU ms)."""
    from collections import Counter

    from calibration.colors import CalibrationError, learn_palette
    from vision.battle_board.layout import load_board_layout
    from vision.battle_board.reader import BoardReader

    cv2.setNumThreads(1)
    layout_path = work / f"layout-{design_id}.json"
    if not layout_path.exists():
        return {
            "design": design_id,
            "error": f"no layout-{design_id}.json in {work}: render the design first",
        }
    layout = load_board_layout(json.loads(layout_path.read_text()))
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
        path = work / f"scene-{design_id}-{k}.png"
        image = cv2.imread(str(path)) if path.exists() else None
        if image is None:
            continue  # not rendered (a set cut short): counted as "not cached" below
        reader.read(image)  # warm (lazy maps), as a running system is
        t0 = time.process_time()
        got = reader.read(image).to_json()
        cpu_ms = (time.process_time() - t0) * 1e3
        want = multiset(truth["counts"], truth["redrop_colors"])
        have = multiset(got["counts"], [got["cubes"][i]["color"] for i in got["redrop"]])
        hand = "hand" in truth
        said_hand = "hand" in got.get("reason", "") and got["status"] == "ambiguous"
        # With a hand over the board the one right answer is "a hand" (clear the board and read again).
        exact = said_hand if hand else want == have and got["status"] != "ambiguous"
        scenes.append(
            {
                "scene": k,
                "status": got["status"],
                "truth": sum(want.values()),
                "read": sum(have.values()),
                "right": sum((want & have).values()),
                "exact": exact,
                "silent": not exact and got["status"] != "ambiguous",
                **(
                    {"hand": True, "said_hand": said_hand, "no_board": got["status"] == "no-board"}
                    if hand
                    else {}
                ),
                "cpu_ms": round(cpu_ms, 1),
                "missed": sorted(f"{c}@{z}" for c, z in (want - have).elements()),
                "extra": sorted(f"{c}@{z}" for c, z in (have - want).elements()),
                "reason": got.get("reason", ""),
            }
        )
    return {
        "design": design_id,
        "questions": [q["kind"] for q in questions],
        "question_texts": [q.get("text", "") for q in questions],
        "scenes": scenes,
        "not_cached": len(truths) - len(scenes),
    }


def summary(results: list[dict[str, Any]]) -> dict[str, Any]:
    """Strict cube F1, exact, ambiguous, silent and CPU median over every design read."""
    scenes = [s for r in results for s in r.get("scenes", [])]
    right = sum(s["right"] for s in scenes)
    truth = sum(s["truth"] for s in scenes)
    read = sum(s["read"] for s in scenes)
    p = right / read if read else 0.0
    rc = right / truth if truth else 0.0
    return {
        "designs": len(results),
        "calibrations_accepted": sum("scenes" in r for r in results),
        "questions": sum(len(r.get("questions", [])) for r in results),
        "scenes": len(scenes),
        "cubes": truth,
        "f1": round(2 * p * rc / (p + rc), 4) if p + rc else 0.0,
        "precision": round(p, 4),
        "recall": round(rc, 4),
        "exact": sum(s["exact"] for s in scenes),
        "ambiguous": sum(s["status"] == "ambiguous" for s in scenes),
        "silent": sum(s["silent"] for s in scenes),
        **(
            {
                "hand_scenes": sum(bool(s.get("hand")) for s in scenes),
                "hand_said": sum(bool(s.get("said_hand")) for s in scenes),
                "hand_no_board": sum(bool(s.get("no_board")) for s in scenes),
                "hand_read_ok": sum(bool(s.get("hand")) and s["status"] in ("ok", "redrop") for s in scenes),
            }
            if any(s.get("hand") for s in scenes)
            else {}
        ),
        "cpu_ms_median": round(statistics.median(s["cpu_ms"] for s in scenes), 1) if scenes else None,
    }


def _size(text: str) -> tuple[int, int]:
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise argparse.ArgumentTypeError(f"size {text!r} is not WIDTHxHEIGHT, e.g. 1280x720") from None
    return w, h


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--design", type=int, nargs="+", required=True)
    ap.add_argument("--scenes", type=int, default=10)
    ap.add_argument("--samples", type=int, default=8)
    ap.add_argument("--size", type=_size, default=(1280, 720), help="WIDTHxHEIGHT (default 1280x720)")
    ap.add_argument("--out", required=True, help="cache folder for the images (outside the repository)")
    ap.add_argument("--read", action="store_true", help="read the cached images only (no Blender needed)")
    ap.add_argument(
        "--truth-only", action="store_true", help="write the layouts and truths only (no Blender)"
    )
    ap.add_argument("--hands", action="store_true", help="a hand over the board in every play photo")
    args = ap.parse_args(argv)
    work = Path(args.out).expanduser()
    if args.read:
        results = [read_cached(work, d) for d in args.design]
        for r in results:
            print(json.dumps(r))
        print(json.dumps({"summary": summary(results)}))
        return 0
    if args.truth_only:
        write_truth(args.design, args.scenes, args.size, work, args.hands)
        return 0
    try:
        import bpy  # type: ignore[import-not-found]  # the Blender wheel (not a dependency); see the docstring
    except ImportError:
        print(
            "bpy is not installed: pip install --target /tmp/bpyenv bpy==4.2.0, then PYTHONPATH=/tmp/bpyenv"
        )
        return 2
    work.mkdir(parents=True, exist_ok=True)
    render_set(bpy, args.design, args.scenes, args.samples, args.size, work, args.hands)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
