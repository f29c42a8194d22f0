"""The spotter's training folder: rendered windows reduced, real photos in mosaics, the labels moved with them."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.cards import spotter


def labels(path: Path) -> list[list[float]]:
    return [[float(v) for v in row.split()] for row in path.read_text().splitlines()]


def test_a_mosaic_moves_each_box_with_its_picture() -> None:
    wide = np.zeros((100, 200, 3), np.uint8)
    wide[40:60, 90:110] = 255  # a box 20x20 in the middle
    tall = np.zeros((200, 100, 3), np.uint8)
    picture, rows = spotter.mosaic([(wide, ["0 0.5 0.5 0.1 0.2"]), (tall, ["1 0.5 0.25 0.2 0.1"])], 2, 640)
    assert picture.shape == (640, 640, 3)
    (c0, x0, y0, w0, h0), (c1, x1, y1, w1, h1) = ([float(v) for v in r.split()] for r in rows)
    # the wide picture fills the first cell's width (320 px): its box is 32x32 px round (160, 80)
    assert (c0, round(x0 * 640), round(y0 * 640), round(w0 * 640), round(h0 * 640)) == (0, 160, 80, 32, 32)
    assert picture[80, 160].max() == 255
    # the tall one, in the second cell (x from 320), 160 px wide and 320 tall
    assert (c1, round(x1 * 640), round(y1 * 640), round(w1 * 640), round(h1 * 640)) == (1, 400, 80, 32, 32)


def test_the_folder_reduces_rendered_windows_and_mosaics_real_photos(tmp_path: Path) -> None:
    synth = tmp_path / "synth"
    for i in range(10):
        name = f"truco-{i}"
        (synth / "images").mkdir(parents=True, exist_ok=True)
        cv2.imwrite(str(synth / "images" / f"{name}.jpg"), np.full((1920, 1920, 3), 90, np.uint8))
        (synth / "labels").mkdir(exist_ok=True)
        (synth / "labels" / f"{name}.txt").write_text("7 0.5 0.5 0.03 0.03\n")
        back = {"card": None, "face_down": True, "visible_share": 1.0, "visible_box": [0, 0, 192, 384]}
        (synth / "meta").mkdir(exist_ok=True)
        (synth / "meta" / f"{name}.json").write_text(json.dumps({"size": [1920, 1920], "cards": [back]}))
    index = tmp_path / "index"
    for split, count in (("train", 5), ("val", 1)):
        (index / "images" / split).mkdir(parents=True)
        (index / "labels" / split).mkdir(parents=True)
        for i in range(count):
            cv2.imwrite(str(index / "images" / split / f"real-phone-{i}.jpg"), np.zeros((640, 640, 3), np.uint8))
            (index / "labels" / split / f"real-phone-{i}.txt").write_text("52 0.5 0.5 0.2 0.3\n3 0.1 0.1 0.05 0.08\n")
    out = tmp_path / "spot"
    assert spotter.main(["--out", str(out), "--synth", str(synth), "--index", str(index)]) == 0
    train = sorted((out / "images" / "train").iterdir())
    assert (
        len(list((out / "images" / "val").glob("synth-*"))) == 1 and len([p for p in train if "synth" in p.name]) == 9
    )
    small = cv2.imread(str(next(p for p in train if "synth" in p.name)))
    assert small is not None and small.shape[:2] == (640, 640)
    rows = labels(out / "labels" / "train" / "synth-synth-truco-0.txt")
    assert [r[0] for r in rows] == [0, 1] and rows[1][3:] == pytest.approx([0.1, 0.2])
    # five train photos: two 2x2 pictures and one 3x3; the back keeps class 1, an index becomes 0
    assert sorted(p.name for p in train if p.name.startswith("real")) == [
        "real-2x2-0000.jpg",
        "real-2x2-0001.jpg",
        "real-3x3-0000.jpg",
    ]
    rows = labels(out / "labels" / "train" / "real-3x3-0000.txt")
    assert len(rows) == 10 and sorted({r[0] for r in rows}) == [0, 1]
    assert (out / "data.yaml").read_text().count("index") == 1


def test_missing_folders_are_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit, match="no existe la carpeta"):
        spotter.main(["--out", str(tmp_path / "o"), "--synth", str(tmp_path / "nada")])
    with pytest.raises(SystemExit, match="falta al menos una carpeta"):
        spotter.main(["--out", str(tmp_path / "o")])
    assert not (tmp_path / "o").exists()


def test_grids_one_and_two_keep_each_real_photo_as_it_is_and_halve_it_too(tmp_path: Path) -> None:
    index = tmp_path / "index"
    for split, count in (("train", 5), ("val", 1)):
        (index / "images" / split).mkdir(parents=True)
        (index / "labels" / split).mkdir(parents=True)
        for i in range(count):
            photo = np.zeros((640, 640, 3), np.uint8)
            photo[300:340, 310:330] = 255
            cv2.imwrite(str(index / "images" / split / f"real-whole-{i}.jpg"), photo)
            (index / "labels" / split / f"real-whole-{i}.txt").write_text("3 0.5 0.5 0.03125 0.0625\n")
    out = tmp_path / "finder"
    assert spotter.main(["--out", str(out), "--index", str(index), "--grids", "2,1"]) == 0
    train = sorted(p.name for p in (out / "images" / "train").iterdir())
    assert train == [*(f"real-1x1-{i:04d}.jpg" for i in range(5)), "real-2x2-0000.jpg", "real-2x2-0001.jpg"]
    assert sorted(p.name for p in (out / "images" / "val").iterdir()) == ["real-1x1-0000.jpg", "real-2x2-0000.jpg"]
    # as it is: the same pixels, the index 20x40 px; halved: 10x20 px
    same = cv2.imread(str(out / "images" / "train" / "real-1x1-0000.jpg"))
    assert same is not None and same.shape[:2] == (640, 640) and same[320, 320].min() > 200
    assert [round(v * 640) for v in labels(out / "labels" / "train" / "real-1x1-0000.txt")[0][1:]] == [320, 320, 20, 40]
    assert [round(v * 640) for v in labels(out / "labels" / "train" / "real-2x2-0000.txt")[0][3:]] == [10, 20]


@pytest.mark.parametrize("grids", ["0,2", "2,x", "5", ""])
def test_bad_grids_are_refused(tmp_path: Path, grids: str) -> None:
    index = tmp_path / "index"
    index.mkdir()
    with pytest.raises(SystemExit, match="--grids"):
        spotter.main(["--out", str(tmp_path / "o"), "--index", str(index), "--grids", grids])
    assert not (tmp_path / "o").exists()
