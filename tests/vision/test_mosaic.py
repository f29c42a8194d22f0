"""Photos of one die each laid out as frames of many, their labels moved with them."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np
import pytest

from vision import mosaic


def test_photos_are_tiled_in_a_shuffled_order_with_their_labels(tmp_path: Path) -> None:
    (tmp_path / "in" / "images").mkdir(parents=True)
    (tmp_path / "in" / "labels").mkdir()
    for k in range(9):
        cv2.imwrite(str(tmp_path / "in" / "images" / f"d{k}.png"), np.full((10, 10), 20 * k, np.uint8))
        (tmp_path / "in" / "labels" / f"d{k}.txt").write_text(f"{k % 6} 0.5 0.5 0.2 0.4\n")
    assert mosaic.tile(tmp_path / "in", tmp_path / "out", side=2, seed=1) == 2  # the ninth photo is left over
    frame = cv2.imread(str(tmp_path / "out" / "images" / "mesa-0000.png"), cv2.IMREAD_UNCHANGED)
    assert frame.shape == (20, 20, 3)
    rows = [line.split() for line in (tmp_path / "out" / "labels" / "mesa-0000.txt").read_text().splitlines()]
    assert [(float(r[1]), float(r[2]), float(r[3]), float(r[4])) for r in rows] == [
        (0.25, 0.25, 0.1, 0.2),
        (0.75, 0.25, 0.1, 0.2),
        (0.25, 0.75, 0.1, 0.2),
        (0.75, 0.75, 0.1, 0.2),
    ]
    # each tile is its photo, and its label's class is that photo's
    for row, (x, y) in zip(rows, [(0, 0), (10, 0), (0, 10), (10, 10)], strict=True):
        k = int(frame[y, x, 0]) // 20
        assert int(row[0]) == k % 6
    assert len({int(frame[y, x, 0]) for x, y in [(0, 0), (10, 0), (0, 10), (10, 10)]}) == 4


def test_a_folder_with_no_photos_is_refused_in_spanish(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "images").mkdir()
    with pytest.raises(SystemExit) as exit_:
        mosaic.main([str(tmp_path), "--out", str(tmp_path / "out")])
    assert exit_.value.code == 2 and "no hay imágenes en" in capsys.readouterr().err
