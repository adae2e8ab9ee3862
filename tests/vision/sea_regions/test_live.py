"""`smart-table vision regions-watch`: the map read once it is still, each settled state published once
(topic vision.regions), lost frame markers pause instead of publishing; bad sources in one sentence."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from smart_table.main import main
from tests.vision.sea_regions.scenes import spread_scene, touching_scene
from vision.sea_regions.live import TOPIC, RegionsWatcher


def test_each_settled_state_is_published_once_and_a_lost_map_pauses() -> None:
    spread, _, layout = spread_scene()
    touching, _ = touching_scene()
    grey = np.full_like(spread, 128)
    watcher = RegionsWatcher(layout, still_frames=1, confirm=2, clock=lambda: 5.0)
    states = [watcher.process(f) for f in [spread] * 4 + [grey] * 3 + [touching] * 4]
    published = [e.message for e in states if e.message is not None]
    assert [m["seq"] for m in published] == [1, 2] and all(m["topic"] == TOPIC for m in published)
    assert [m["reading"]["status"] for m in published] == ["ok", "ambiguous"]
    assert any(e.state == "paused" and "frame markers" in e.reason for e in states)
    # The same map again (a hand passed over it): not published twice.
    assert all(e.message is None for e in (watcher.process(touching) for _ in range(3)))


def test_a_missing_video_or_a_bad_layout_is_one_sentence(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _, _, layout = spread_scene()
    lay = tmp_path / "layout.json"
    lay.write_text(json.dumps(layout))
    code = main(["vision", "regions-watch", "--video", str(tmp_path / "no.mp4"), "--layout", str(lay)])
    err = capsys.readouterr().err
    assert code == 1 and "does not exist" in err and "Traceback" not in err
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({**layout, "regions": []}))
    cv2.imwrite(str(tmp_path / "f.png"), spread_scene()[0])
    code = main(["vision", "regions-watch", "--images", str(tmp_path), "--layout", str(bad)])
    err = capsys.readouterr().err
    assert code == 2 and "regions" in err and len(err.strip().splitlines()) == 1
