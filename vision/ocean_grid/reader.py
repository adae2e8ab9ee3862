"""Reading a table image (`read_table`, `read_table_detailed`): which Ocean board lies face up on which
square and where each ship stands, composed from the layout, detection and classification. Knows no
rules; the JSON it returns is the `smart-table vision ships` contract (docs/table-layout.md).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import cv2
import numpy as np

from vision.camera import camera_matrices
from vision.geometry import (
    CameraPose,
    GeometryError,
    apply_homography,
    default_intrinsics,
    fit_frame,
    parallax_to_footprint,
    pose_from_points,
    undistort_pixels,
)
from vision.ocean_grid.calibration import PRINT_ALONE, PRINT_MATCH, TableCalibration, square_patch
from vision.ocean_grid.classification import (
    BACK_FRACTION,
    FRAME_COVERED,
    _back_mask,
    _frame_white,
    _patch,
    frame_pixels,
)
from vision.ocean_grid.detection import (
    _FRAME_PERIMETER_RATES,
    BLOOM_ERODE_PX,
    BOARD_PERIMETER_RANGE,
    _bloom_look,
    _coarse_to_fine,
    _detect,
    _perimeter_px,
    _perimeters,
    _settle_corners,
    _spread_ok,
    _table_box,
)
from vision.ocean_grid.layout import TableLayout, _signed_distance, load_table_layout, locate
from vision.ocean_grid.reach import FRAME_BACK_SAMPLES, arm_free, frame_back_count

# A ship's mast foot within this distance of a square's edge is not placed (a guess either way).
EDGE_MARGIN_MM = 6.0
# A ship marker read at its height must measure its printed size within this fraction.
SIZE_TOLERANCE = 0.22
# Replicated edge (px) around each board-marker crop: the detector drops candidates near a crop's border
# (3 px), and 8 px gives every crop pixel its full adaptive-threshold window (13 px).
PAD = 8
# Largest mean corner error (px) of the frame markers against one homography before it is refused.
MAX_FRAME_ERROR_PX = 4.0
# Share of a square's inside that must show the back's print (besides its marker spot) to call the board
# face down: a ship or two on it cover a tenth at most, a hand over it more.
INTERIOR_FRACTION = 0.6
_GAMMA3 = (255.0 * (np.arange(256) / 255.0) ** 3).astype(np.uint8)


@dataclass
class TableReading:
    """One frame's reading; `to_json()` is the `vision ships` contract, the rest is for diagnostics."""

    status: str
    boards: list[dict[str, Any]]
    ships: list[dict[str, Any]]
    reason: str | None = None
    homography: np.ndarray | None = None  # table mm -> ideal image px
    pose: CameraPose | None = None
    ship_positions_mm: dict[str, list[float]] = field(default_factory=dict)
    occluded: bool = False  # an arm or a hand crosses the table's frame (the live gate pauses)
    timings_ms: dict[str, float] = field(default_factory=dict)
    frame_ids: tuple[int, ...] = ()  # the frame markers the homography was fitted to

    def to_json(self) -> dict[str, Any]:
        return {"status": self.status, "boards": self.boards, "ships": self.ships}


def read_table_detailed(
    image_bgr: np.ndarray,
    layout: TableLayout | dict | str,
    camera: Any = None,
    ships_in_play: list[str] | None = None,
    previous: TableReading | None = None,
    calibration: TableCalibration | None = None,
) -> TableReading:
    """Read one frame: which board lies face up on each square and where each ship stands.

    A ship whose marker is hidden, misshapen or too close to a square's edge, and a square whose board
    marker is hidden (a hand, glare, a ship over it) are null and make the status "ambiguous": the
    reader never guesses. `ships_in_play` (default: every ship of the layout) names the ships expected
    on the table; an unseen ship that is not in play is null without making the reading ambiguous.

    `previous` (live mode: the last reading of the same camera) lets the marker pass cover only the
    table's outline where that reading registered it; when that pass does not find again every frame
    marker the previous one used (the camera moved, a hand), the whole frame is searched as without it."""
    # Long: markers, homography, pose, boards and ships share the registration and the timings; splitting it
    # waits for a change measured with bench/vision_ships.py.
    import time

    t0 = time.perf_counter()
    layout = load_table_layout(layout)
    if not isinstance(image_bgr, np.ndarray) or image_bgr.dtype != np.uint8 or image_bgr.ndim not in (2, 3):
        raise ValueError("image must be an 8-bit grey or BGR array")
    if image_bgr.ndim == 2:
        image_bgr = cv2.cvtColor(image_bgr, cv2.COLOR_GRAY2BGR)
    h, w = image_bgr.shape[:2]
    in_play = set(layout.ships.ids) if ships_in_play is None else set(ships_in_play)
    K, dist = camera_matrices(camera, w, h)
    gray = cv2.cvtColor(image_bgr, cv2.COLOR_BGR2GRAY)
    t1 = time.perf_counter()
    found: dict[int, list[np.ndarray]] | None = None
    ship_found: dict[int, list[np.ndarray]] = {}
    box = (
        _table_box(previous.homography, layout, w, h) if previous is not None and previous.frame_ids else None
    )
    if box is not None and previous is not None and layout.ships.aruco_dictionary == layout.aruco_dictionary:
        found = _coarse_to_fine(gray, layout, in_play, box)
        if found is not None and all(len(found.get(mid, [])) == 1 for mid in previous.frame_ids):
            ship_found = found
        else:
            found = None
    elif box is not None and previous is not None:
        xa, ya, xb, yb = box
        view, shift = gray[ya:yb, xa:xb], np.array([xa, ya], dtype=np.float64)
        # The whole frame's perimeter limits in px, as rates of the crop's larger side.
        scale = max(w, h) / float(max(xb - xa, yb - ya))
        rates = (_FRAME_PERIMETER_RATES[0] * scale, _FRAME_PERIMETER_RATES[1] * scale)

        def near(dictionary_name: str) -> dict[int, list[np.ndarray]]:
            got = _detect(view, dictionary_name, "frame-crop", rates)
            return {k: [q + shift for q in v] for k, v in got.items()}

        found = near(layout.aruco_dictionary)
        if all(len(found.get(mid, [])) == 1 for mid in previous.frame_ids):
            ship_found = (
                found
                if layout.ships.aruco_dictionary == layout.aruco_dictionary
                else near(layout.ships.aruco_dictionary)
            )
        else:
            found = None
    if found is None:
        found = _coarse_to_fine(gray, layout, in_play)
        if found is not None:
            ship_found = found
    if found is None:
        found = _detect(gray, layout.aruco_dictionary, "frame")
        ship_found = (
            found
            if layout.ships.aruco_dictionary == layout.aruco_dictionary
            else _detect(gray, layout.ships.aruco_dictionary, "frame")
        )
    t2 = time.perf_counter()

    def ideal(px: np.ndarray) -> np.ndarray:
        return undistort_pixels(px, K, dist) if K is not None and dist is not None and np.any(dist) else px

    def empty(status: str, reason: str) -> TableReading:
        boards = [
            {"square": sq.id, "face_up": None, "board": None, "confidence": 0.0} for sq in layout.squares
        ]
        ships = [{"ship": s, "square": None, "confidence": 0.0} for s in layout.ships.ids]
        return TableReading(
            status, boards, ships, reason=reason, timings_ms={"total": (time.perf_counter() - t0) * 1000}
        )

    # The table frame: one homography from every frame marker seen; drop a marker that disagrees. The
    # markers used must span the table (3 or more, not in a line): two markers on one edge would let
    # a small corner error swing the far side of the table by centimetres.
    used = [m for m in layout.markers if len(found.get(m.id, [])) == 1]
    frame = list(zip(used, _settle_corners(gray, [found[m.id][0] for m in used]), strict=True))
    H, board_pts, image_pts = fit_frame(frame, ideal, lambda ms: _spread_ok(layout, ms), MAX_FRAME_ERROR_PX)
    if H is None:
        if len(frame) < 3:
            return empty(
                "no-table",
                f"only {len(frame)} of the table's {len(layout.markers)} frame markers are "
                "visible (need 3 around the table): clear the table's edge or check the camera",
            )
        return empty(
            "no-table",
            "the frame markers seen do not agree on where the table is, or lie in a line: "
            "check the layout's marker corners and the view",
        )
    if K is None:
        K = default_intrinsics(w, h, H)
    try:
        pose = pose_from_points(board_pts, image_pts, K)
    except GeometryError as exc:
        return empty("no-table", str(exc))
    Hinv = np.linalg.inv(H)
    t3 = time.perf_counter()

    # A ship in play not seen: one more look over the play area with a smaller threshold window (a
    # thin white plate against dark art), only in frames that need it.
    missing = [mid for name, mid in layout.ships.ids.items() if name in in_play and mid not in ship_found]
    if missing:
        area = np.concatenate([layout.harbor_mm] + [sq.polygon_mm for sq in layout.squares])
        x0, y0 = area.min(axis=0) - 40.0
        x1, y1 = area.max(axis=0) + 40.0
        area_px = apply_homography(H, np.array([[x0, y0], [x1, y0], [x1, y1], [x0, y1]]))
        xa, ya = (max(0, int(v)) for v in np.floor(area_px.min(axis=0)))
        xb, yb = min(w, int(np.ceil(area_px[:, 0].max()))), min(h, int(np.ceil(area_px[:, 1].max())))
        if xb - xa > 32 and yb - ya > 32:
            # Only outlines of about a ship marker's size where the play area lies (the reading refuses
            # one off by more than SIZE_TOLERANCE anyway): the small window finds many more contours.
            sm = layout.ships.marker_size_mm
            sizes = [_perimeter_px(H, (float(x), float(y)), sm) for x in (x0, x1) for y in (y0, y1)]
            side = float(max(xb - xa, yb - ya))
            rates = (
                BOARD_PERIMETER_RANGE[0] * min(sizes) / side,
                BOARD_PERIMETER_RANGE[1] * max(sizes) / side,
            )
            view = gray[ya:yb, xa:xb]
            undecoded: list[np.ndarray] = []
            again = _detect(view, layout.ships.aruco_dictionary, "retry", rates, undecoded)
            if any(mid not in again for mid in missing) and np.percentile(view[::8, ::8], 90) >= 250:
                # A bright exposure burns the marker's white and its surround together and the black
                # border's outline is lost; the same look on a darkened copy (gamma 3) finds it again.
                dark = cv2.LUT(view, _GAMMA3)
                for mid, quads in _detect(dark, layout.ships.aruco_dictionary, "retry", rates).items():
                    again.setdefault(mid, quads)
                if any(mid not in again for mid in missing):
                    # ... or blooms its white into the black: the outline is found but its bits do not
                    # decode; those outlines are read again with the black given back (`_bloom_look`).
                    bloom = _bloom_look(
                        view,
                        layout.ships.aruco_dictionary,
                        _ship_sized(undecoded, np.array([xa, ya], np.float64), pose, layout),
                        (BOARD_PERIMETER_RANGE[0] * min(sizes), BOARD_PERIMETER_RANGE[1] * max(sizes)),
                    )
                    for mid, quads in bloom.items():
                        again.setdefault(mid, quads)
            ship_found = dict(ship_found)
            for mid in missing:
                if mid in again:
                    ship_found[mid] = [q + np.array([xa, ya]) for q in again[mid]]

    # Ships: the marker seen through the table homography, moved to the mast foot under it.
    ships_out: list[dict[str, Any]] = []
    positions: dict[str, list[float]] = {}
    ambiguous = False
    for name, mid in layout.ships.ids.items():
        entry: dict[str, Any] = {"ship": name, "square": None, "confidence": 0.0}
        seen = ship_found.get(mid, [])
        if len(seen) == 1:
            foot = parallax_to_footprint(
                apply_homography(Hinv, ideal(seen[0])), pose, layout.ships.marker_height_mm
            )
            sides = np.linalg.norm(foot - np.roll(foot, -1, axis=0), axis=1)
            size_ok = bool(np.all(np.abs(sides / layout.ships.marker_size_mm - 1) < SIZE_TOLERANCE))
            cx, cy = foot.mean(axis=0)
            place, margin = locate(layout, cx, cy)
            if size_ok and place is not None and margin >= EDGE_MARGIN_MM:
                conf = min(0.99, 0.8 + 0.19 * min(1.0, (margin - EDGE_MARGIN_MM) / 20.0))
                entry = {"ship": name, "square": place, "confidence": round(conf, 3)}
                positions[name] = [round(float(cx), 1), round(float(cy), 1)]
        if entry["square"] is None and (name in in_play or seen):
            ambiguous = True
        ships_out.append(entry)
    t4 = time.perf_counter()

    # Boards: look for a board marker where the layout puts it on each square; no marker there and
    # the spot shows the back art: face down; anything else: cannot tell.
    on_frame = frame_pixels(image_bgr, layout, H)
    gains, frame_covered, white_ok = _frame_white(image_bgr, layout, H, on_frame)
    occluded = frame_covered > FRAME_COVERED
    bsize = layout.boards.marker_size_mm
    roi_half = bsize / 2 + 4.0 + 12.0
    ox, oy = layout.board_marker_offset_mm
    seen_boards: dict[str, list[int]] = {}
    boards_out: list[dict[str, Any]] = []
    spots = [
        (float(sq.polygon_mm[:, 0].min() + ox), float(sq.polygon_mm[:, 1].min() + oy))
        for sq in layout.squares
    ]
    # The back art first (12 small warps, one colour conversion): where it fills the marker's spot there
    # is no marker to look for.
    back = calibration.back if calibration is not None else None

    def back_pixels(pixels: np.ndarray) -> np.ndarray:
        """Which pixels (any shape x 3) look like the back: the calibration's print, else the layout's."""
        if calibration is None or back is None:
            return _back_mask(pixels, gains, layout)
        return back.accept(pixels, calibration.read_gains(gains, white_ok))

    def back_fractions(patches: list[np.ndarray]) -> list[float]:
        got = back_pixels(np.concatenate(patches, axis=0))
        return got.reshape(len(patches), -1).mean(axis=1).tolist()

    # Something of the back's colour on the frame, where no board lies, is an arm or a sleeve (a frame
    # burnt out by a bright exposure hides a pale arm from the white test above).
    back_on_frame = frame_back_count(image_bgr, layout, H, back_pixels, on_frame)
    occluded = occluded or back_on_frame >= FRAME_BACK_SAMPLES

    fractions = back_fractions([_patch(image_bgr, H, c, bsize / 2 + 8.0) for c in spots])
    # The marker's spot on every square that does not show the back, cut out with a replicated margin
    # (the detector drops candidates touching an image border) and laid side by side: one detector
    # call for all of them.
    crops: list[tuple[int, int, int, np.ndarray]] = []  # square index, crop x, crop y, padded crop
    perimeters: list[float] = []  # each looked-at marker's perimeter in px, as the homography draws it
    # Each spot's marker outline and look-around box in px, for all squares in one go.
    unit = np.array([[-1.0, -1.0], [1.0, -1.0], [1.0, 1.0], [-1.0, 1.0]])
    centres = np.array(spots, dtype=np.float64)[:, None, :]
    n_spots = len(spots)
    drawn = apply_homography(
        H, np.concatenate([centres + unit * (bsize / 2), centres + unit * roi_half]).reshape(-1, 2)
    ).reshape(2 * n_spots, 4, 2)
    spot_perimeters = _perimeters(drawn[:n_spots])
    for k in range(n_spots):
        if fractions[k] >= BACK_FRACTION:
            continue
        perimeters.append(float(spot_perimeters[k]))
        roi_px = drawn[n_spots + k]
        if dist is not None and np.any(dist):  # the crop is taken from the distorted image
            roi_px = cv2.projectPoints(
                np.column_stack([apply_homography(np.linalg.inv(K), roi_px), np.ones(4)]),
                np.zeros(3),
                np.zeros(3),
                K,
                dist,
            )[0].reshape(-1, 2)
        xa, ya = np.floor(roi_px.min(axis=0)).astype(int) - 2
        xb, yb = np.ceil(roi_px.max(axis=0)).astype(int) + 2
        xa, ya, xb, yb = max(xa, 0), max(ya, 0), min(xb, w), min(yb, h)
        if xb - xa >= 16 and yb - ya >= 16:
            crops.append(
                (k, xa, ya, cv2.copyMakeBorder(gray[ya:yb, xa:xb], PAD, PAD, PAD, PAD, cv2.BORDER_REPLICATE))
            )
    names: dict[int, set[str]] = {k: set() for k in range(len(layout.squares))}

    def look(
        crops: list[tuple[int, int, int, np.ndarray]],
        lut: np.ndarray | None = None,
        erode_px: int = 0,
        outlined: set[int] | None = None,
    ) -> None:
        """One detector call over the crops laid side by side (darkened by `lut`, min-filtered by
        `erode_px`); names found go to `names`, and the crops holding an undecoded outline of a board
        marker's size to `outlined` when given."""
        tall = max(cr.shape[0] for *_, cr in crops)
        strip = np.hstack(
            [cv2.copyMakeBorder(cr, 0, tall - cr.shape[0], 0, 0, cv2.BORDER_REPLICATE) for *_, cr in crops]
        )
        if lut is not None:
            strip = cv2.LUT(strip, lut)
        if erode_px:
            strip = cv2.erode(strip, np.ones((erode_px, erode_px), np.uint8))
        starts = np.cumsum([0] + [cr.shape[1] for *_, cr in crops])
        # Only outlines of about the board marker's size in this view are decoded: the busy art in the
        # crops yields hundreds of smaller and larger contours, each one a warp and a decode.
        side = float(max(strip.shape[:2]))
        undecoded: list[np.ndarray] = []
        perimeter_rates = (
            BOARD_PERIMETER_RANGE[0] * min(perimeters) / side,
            BOARD_PERIMETER_RANGE[1] * max(perimeters) / side,
        )
        hits = [
            (bname, q)
            for mid, quads in _detect(
                strip, layout.boards.aruco_dictionary, "board", perimeter_rates, undecoded
            ).items()
            if (bname := layout.boards.name_of(mid)) is not None
            for q in quads
        ]
        if outlined is not None and undecoded:
            centres_x = np.array([q[:, 0].mean() for q in undecoded])
            outlined.update(int(i) for i in np.searchsorted(starts, centres_x, side="right") - 1)
        if hits:
            # Each marker's centre on the table (all of them through one homography call); it must lie
            # on the square whose spot it was cut from.
            qs = np.array([q for _, q in hits])
            where = np.searchsorted(starts, qs[:, :, 0].mean(axis=1), side="right") - 1
            offsets = np.array(
                [[starts[i] + PAD - crops[i][1], PAD - crops[i][2]] for i in where], dtype=np.float64
            )
            centres_mm = apply_homography(Hinv, ideal((qs - offsets[:, None, :]).reshape(-1, 2)))
            for (bname, _), i, (cx, cy) in zip(
                hits, where, centres_mm.reshape(-1, 4, 2).mean(axis=1), strict=True
            ):
                k = crops[i][0]
                if _signed_distance(layout.squares[k].polygon_mm, cx, cy) >= 0:
                    names[k].add(bname)

    if crops:
        look(crops)
        # A bright exposure burns a marker's white and its quiet zone's surround together; the crops of
        # squares still unknown get one more look on a darkened copy (gamma 3) where they are burnt out.
        left = [c for c in crops if not names[c[0]] and fractions[c[0]] < BACK_FRACTION]
        if left and np.percentile(np.hstack([c[3].ravel() for c in left])[::7], 90) >= 250:
            outlined: set[int] = set()
            look(left, _GAMMA3, outlined=outlined)
            # ... or blooms its white into the black (the outline is there, the bits do not decode):
            # the crops still unknown that hold such an outline are read again with the black given
            # back (grey erosions, as the ships' bloom look).
            bloomed = [c for i, c in enumerate(left) if i in outlined and not names[c[0]]]
            for px in BLOOM_ERODE_PX:
                bloomed = [c for c in bloomed if not names[c[0]]]
                if bloomed:
                    look(bloomed, erode_px=px)
    # The square's extent: a face-down board fills its square with the back's print, where a stray
    # patch of colour near the spot (a hand, a ship's hull, art near the back's colour) does not.
    backs = [k for k in range(n_spots) if fractions[k] >= BACK_FRACTION and not names[k]]
    inside = (
        dict(zip(backs, back_fractions([square_patch(image_bgr, H, layout, k) for k in backs]), strict=True))
        if backs
        else {}
    )
    # Face down by colour and print: no marker, the spot and the square's inside show the back.
    matches: dict[int, float] = {}

    def print_match(k: int) -> float:
        if calibration is None:
            return 1.0
        if k not in matches:
            matches[k] = calibration.print_match(image_bgr, H, layout, k)
        return matches[k]

    down = [k for k in backs if inside[k] >= INTERIOR_FRACTION and print_match(k) >= PRINT_MATCH]
    # An arm of the back's colour over the table (seen on the frame): a square under it cannot be told
    # face up or face down (`vision.ocean_grid.reach`). On a plain back (the calibration learned its
    # colour and no print) colour is the only evidence, and an arm burnt out to white on the frame is
    # not seen there: such a back must always be seen ending at the board's outline.
    plain = calibration is not None and back is not None and calibration.print_template is None
    if down and (plain or back_on_frame >= FRAME_BACK_SAMPLES):
        down = arm_free(image_bgr, layout, H, back_pixels, down)
    # The back's own print seen clearly over the square's inside is a face-down board where its colour is
    # washed out (glare, a clipped or dim exposure): neither a face-up board's art nor a hand carries it.
    by_print = (
        [k for k in range(n_spots) if not names[k] and k not in down and print_match(k) >= PRINT_ALONE]
        if calibration is not None and calibration.print_template is not None
        else []
    )
    for k, sq in enumerate(layout.squares):
        entry = {"square": sq.id, "face_up": None, "board": None, "confidence": 0.0}
        if len(names[k]) == 1:
            bname = names[k].pop()
            entry = {"square": sq.id, "face_up": True, "board": bname, "confidence": 0.99}
            seen_boards.setdefault(bname, []).append(k)
        elif k in down:
            conf = min(fractions[k], inside[k])
            entry = {"square": sq.id, "face_up": False, "board": None, "confidence": round(conf, 3)}
        elif k in by_print:
            entry = {"square": sq.id, "face_up": False, "board": None, "confidence": round(matches[k], 3)}
        boards_out.append(entry)
    for _bname, where in seen_boards.items():
        if len(where) > 1:  # one physical board cannot lie on two squares: one of them is a misread
            for k in where:
                boards_out[k] = {
                    "square": layout.squares[k].id,
                    "face_up": None,
                    "board": None,
                    "confidence": 0.0,
                }
    if any(b["face_up"] is None for b in boards_out):
        ambiguous = True
    t5 = time.perf_counter()
    timings = {
        "prepare": (t1 - t0) * 1000,
        "markers": (t2 - t1) * 1000,
        "pose": (t3 - t2) * 1000,
        "ships": (t4 - t3) * 1000,
        "boards": (t5 - t4) * 1000,
        "total": (t5 - t0) * 1000,
    }
    reason = "an arm or a hand is over the table" if occluded else None
    return TableReading(
        "ambiguous" if ambiguous else "ok",
        boards_out,
        ships_out,
        reason=reason,
        homography=H,
        pose=pose,
        ship_positions_mm=positions,
        occluded=occluded,
        timings_ms=timings,
        frame_ids=tuple(m.id for m, _ in frame),
    )


# An undecoded outline is read again by the bloom look only when its perimeter is within this range of a
# ship marker's at its place (a bloomed black border measures about 0.9 of it).
BLOOM_SIZE_RANGE = (0.75, 1.2)


def _ship_sized(
    outlines: list[np.ndarray], offset: np.ndarray, pose: CameraPose, layout: TableLayout
) -> list[np.ndarray]:
    """The outlines (px of a view whose origin is `offset` in the frame) whose perimeter is a ship
    marker's where they lie, seen at the marker's height (BLOOM_SIZE_RANGE)."""
    if not outlines:
        return []
    qs = np.array(outlines, np.float64).reshape(-1, 4, 2)
    top = pose.plane_homography(layout.ships.marker_height_mm)
    where = apply_homography(np.linalg.inv(top), qs.mean(axis=1) + offset)
    half = layout.ships.marker_size_mm / 2
    square = where[:, None, :] + half * np.array([[-1.0, -1.0], [1.0, -1.0], [1.0, 1.0], [-1.0, 1.0]])
    expect = _perimeters(apply_homography(top, square.reshape(-1, 2)).reshape(-1, 4, 2))
    got = _perimeters(qs)
    keep = (got >= BLOOM_SIZE_RANGE[0] * expect) & (got <= BLOOM_SIZE_RANGE[1] * expect)
    return list(qs[keep])


def read_table(
    image_bgr: np.ndarray,
    layout: TableLayout | dict | str,
    camera: Any = None,
    ships_in_play: list[str] | None = None,
) -> dict[str, Any]:
    """The `vision ships` JSON for one frame (see `read_table_detailed`)."""
    return read_table_detailed(image_bgr, layout, camera, ships_in_play).to_json()
