"""The board reader's fast paths (component finder, one-window marker pass) give what the slow ones would."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.battle_board.detection import _components


def _reference(mask: np.ndarray, min_area: float) -> list[tuple[list[int], np.ndarray]]:
    n, cc, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=4)
    out = []
    for k in range(1, n):
        if stats[k, cv2.CC_STAT_AREA] >= min_area:
            x, y, w, h = (int(v) for v in stats[k, :4])
            out.append((stats[k].tolist(), cc[y : y + h, x : x + w] == k))
    return out


@pytest.mark.parametrize("seed", range(12))
def test_components_match_opencv(seed: int) -> None:
    rng = np.random.default_rng(seed)
    mask = np.zeros((120, 160), np.uint8)
    for _ in range(int(rng.integers(0, 25))):
        x, y = (int(v) for v in rng.integers(0, [150, 110]))
        w, h = (int(v) for v in rng.integers(1, 20, 2))
        mask[y : y + h, x : x + w] = 1
    mask[rng.random(mask.shape) < 0.02] = 1  # specks
    # A ring with a blob in its hole, and two blocks meeting only at a corner (one 8-group, two 4-components).
    cv2.rectangle(mask, (60, 40), (100, 80), 1, 3)
    mask[55:65, 75:85] = 1
    mask[5:15, 5:15] = 1
    mask[15:25, 15:25] = 1
    for min_area in (1, 20, 60):
        got = _components(mask, min_area)
        want = _reference(mask, min_area)
        assert [g[1].tolist() for g in got] == [w[0] for w in want]
        assert all(np.array_equal(g[2], w[1]) for g, w in zip(got, want, strict=True))


def test_components_of_an_empty_mask() -> None:
    assert _components(np.zeros((30, 40), np.uint8), 1) == []


def test_fast_marker_pass_agrees_and_falls_back(session) -> None:  # noqa: ANN001
    """The one-window pass finds what the full pass finds; a covered marker makes it run the full pass,
    which still reports the others."""
    from vision.geometry import detect_markers

    layout = session.layout
    image, truth = session.render([], seed=7)
    ids = {m.id for m in layout.markers}
    full = detect_markers(image, layout.aruco_dictionary)
    fast = detect_markers(image, layout.aruco_dictionary, expected=ids)
    assert set(fast) == set(full) == ids
    assert max(float(np.abs(fast[i] - full[i]).max()) for i in ids) < 0.05
    # Cover one marker with a grey patch: the fast pass misses it, the full pass reads the rest.
    covered = image.copy()
    x0, y0 = np.floor(full[0].min(axis=0)).astype(int) - 4
    x1, y1 = np.ceil(full[0].max(axis=0)).astype(int) + 4
    covered[y0:y1, x0:x1] = 128
    seen = detect_markers(covered, layout.aruco_dictionary, expected=ids)
    assert set(seen) == ids - {0}


def test_second_look_finds_what_the_full_pass_finds(session) -> None:  # noqa: ANN001
    """With the markers' board corners given, a marker the fast pass misses is looked for in a crop
    where the others put it: found when it shows, reported missing when covered."""
    from vision.geometry import detect_markers

    layout = session.layout
    image, _ = session.render([], seed=7)
    points = layout.marker_points()
    full = detect_markers(image, layout.aruco_dictionary)
    seen = detect_markers(image, layout.aruco_dictionary, expected=points)
    assert set(seen) == set(full)
    assert max(float(np.abs(seen[i] - full[i]).max()) for i in seen) < 0.05
    covered = image.copy()
    x0, y0 = np.floor(full[0].min(axis=0)).astype(int) - 4
    x1, y1 = np.ceil(full[0].max(axis=0)).astype(int) + 4
    covered[y0:y1, x0:x1] = 128
    assert set(detect_markers(covered, layout.aruco_dictionary, expected=points)) == set(full) - {0}


@pytest.mark.parametrize("seed", range(4))
def test_coarse_to_fine_finds_the_whole_board_blobs(session, seed: int) -> None:  # noqa: ANN001
    """Warping only the regions the 1 px/mm pass finds gives the blobs of the whole board warped at
    2 px/mm: every blob big enough to matter (35 mm2) is there, with its area within a few pixels
    (OpenCV's float32 warp coordinates round a translated homography a little differently)."""
    from vision.battle_board.detection import _bin_index
    from vision.battle_board.reader import BoardReader
    from vision.synth.battle import random_cube_specs

    rng = np.random.default_rng(100 + seed)
    image, _ = session.render(random_cube_specs(session.layout, rng, 24), seed=200 + seed)
    reader = BoardReader(session.layout, session.palette)
    located = reader.locate(image)
    assert not isinstance(located, str)
    pose = located[1]
    h = session.layout.cube_size_mm
    fine, _ = reader._blobs_coarse_to_fine(image, pose, h)
    assert fine is not None
    rect = cv2.blur(reader.rectify(image, pose, h), (3, 3))
    if reader.print is not None:
        # As `read` does without the coarse pass: the bare print compared at full resolution, under the
        # light gain the coarse pass fitted.
        to_mm = (
            np.array([[1.0, 0, -0.5], [0, 1.0, -0.5], [0, 0, 1.0]])
            @ np.linalg.inv(pose.plane_homography(0.0))
            @ pose.plane_homography(h)
            @ np.diag([1.0 / reader.s, 1.0 / reader.s, 1.0])
        )
        labels = reader._with_print(rect, *reader.print.warp(to_mm, reader.size_px))
    else:
        labels = reader._lut.take(_bin_index(rect))
    labels[reader._on_board(pose, h) == 0] = 0
    whole = reader._blobs(labels)
    areas = {(lab, int(st[0]), int(st[1])): int(st[4]) for lab, st, _ in fine}
    big = [(lab, st) for lab, st, _ in whole if st[4] >= 35 * reader.s**2]
    assert big
    for lab, st in big:
        near = [
            a for (lb, x, y), a in areas.items() if lb == lab and abs(x - st[0]) <= 1 and abs(y - st[1]) <= 1
        ]
        assert near and min(abs(a - int(st[4])) for a in near) <= 4


def test_row_ends_give_the_same_min_area_rect() -> None:
    from vision.battle_board.counting import _row_ends

    rng = np.random.default_rng(3)
    for _ in range(20):
        mask = np.zeros((60, 60), np.uint8)
        centre = (float(rng.uniform(20, 40)), float(rng.uniform(20, 40)))
        box = cv2.boxPoints(
            (centre, (float(rng.uniform(8, 30)), float(rng.uniform(8, 30))), float(rng.uniform(0, 90)))
        )
        cv2.fillConvexPoly(mask, np.round(box).astype(np.int32), 1)
        ys, xs = np.nonzero(mask)
        pts = np.stack([xs, ys], 1).astype(np.float32)
        assert cv2.minAreaRect(_row_ends(pts)) == cv2.minAreaRect(pts)


def test_merge_boxes_leaves_no_overlap() -> None:
    from vision.geometry import merge_boxes

    merged = merge_boxes([(0, 0, 10, 10), (5, 5, 20, 20), (30, 30, 40, 40), (19, 0, 31, 3), (50, 50, 60, 60)])
    assert sorted(merged) == [(0, 0, 31, 20), (30, 30, 40, 40), (50, 50, 60, 60)]
    for i, a in enumerate(merged):
        for b in merged[i + 1 :]:
            assert not (a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3])
