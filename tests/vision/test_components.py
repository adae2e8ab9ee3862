"""The board reader's fast paths (component finder, one-window marker pass) give what the slow ones would."""

from __future__ import annotations

import cv2
import numpy as np
import pytest

from vision.board import _components


def _reference(mask: np.ndarray, min_area: float) -> list[tuple[list[int], np.ndarray]]:
    n, cc, stats, _ = cv2.connectedComponentsWithStats(mask, connectivity=4)
    out = []
    for k in range(1, n):
        if stats[k, cv2.CC_STAT_AREA] >= min_area:
            x, y, w, h = (int(v) for v in stats[k, :4])
            out.append((stats[k].tolist(), cc[y:y + h, x:x + w] == k))
    return out


@pytest.mark.parametrize("seed", range(12))
def test_components_match_opencv(seed: int) -> None:
    rng = np.random.default_rng(seed)
    mask = np.zeros((120, 160), np.uint8)
    for _ in range(int(rng.integers(0, 25))):
        x, y = (int(v) for v in rng.integers(0, [150, 110]))
        w, h = (int(v) for v in rng.integers(1, 20, 2))
        mask[y:y + h, x:x + w] = 1
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
