"""Twins apart: the strip between two corners, the seam model's seams, corners parted in the reader and calibrate."""

from __future__ import annotations

import json
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.cards import calibrate, seams
from vision.cards.reader import CardReading, CardSettings, IndexHit, cards_of, pair_corners
from vision.types import Box


def hit(name: str, confidence: float, x: float, y: float, side: float = 50) -> IndexHit:
    return IndexHit(name, confidence, Box(x, y, x + side * 0.6, y + side), second=name)


def test_the_strip_lies_along_the_two_corners_with_their_midpoint_in_the_middle() -> None:
    frame = np.zeros((600, 800, 3), np.uint8)
    a, b = Box(100, 300, 130, 350), Box(300, 100, 330, 150)  # 50 px sides, 45 degrees apart
    cv2.circle(frame, (round(a.center[0]), round(a.center[1])), 6, (0, 0, 255), -1)
    cv2.circle(frame, (round(b.center[0]), round(b.center[1])), 6, (0, 255, 0), -1)
    out = seams.strip(frame, a, b)
    assert out.shape == (seams.HEIGHT, seams.WIDTH, 3)
    distance = np.hypot(200, 200) * seams.SIDE_PX / 50
    red = np.argwhere(out[:, :, 2] > 128).mean(0)
    green = np.argwhere(out[:, :, 1] > 128).mean(0)
    # the first corner on the left, the second on the right, both on the strip's middle line
    assert red[1] == pytest.approx(seams.WIDTH / 2 - distance / 2, abs=2)
    assert green[1] == pytest.approx(seams.WIDTH / 2 + distance / 2, abs=2)
    assert red[0] == pytest.approx(seams.HEIGHT / 2, abs=2) and green[0] == pytest.approx(seams.HEIGHT / 2, abs=2)


def test_a_strip_past_the_frame_is_black_there_and_a_corner_outside_gives_a_black_strip() -> None:
    frame = np.full((200, 200, 3), 200, np.uint8)
    out = seams.strip(frame, Box(0, 0, 20, 30), Box(40, 0, 60, 30))
    assert out.shape == (seams.HEIGHT, seams.WIDTH, 3) and out.min() == 0 and out.max() == 200
    assert not seams.strip(frame, Box(5000, 5000, 5020, 5030), Box(5040, 5000, 5060, 5030)).any()


def test_corners_the_seam_model_parts_are_two_cards_and_the_rest_one() -> None:
    twins = [hit("7C", 0.97, 100, 100), hit("7C", 0.96, 180, 100)]
    assert [len(g) for g in pair_corners(twins)] == [2]
    asked: list[int] = []

    def apart(pairs: list[tuple[IndexHit, IndexHit]]) -> list[bool]:
        asked.append(len(pairs))
        return [True] * len(pairs)

    assert [len(g) for g in pair_corners(twins, apart)] == [1, 1]
    assert asked == [1]
    # only corners of one code near each other are asked about
    assert [len(g) for g in pair_corners([hit("7C", 0.9, 100, 100), hit("7H", 0.9, 180, 100)], apart)] == [1, 1]
    assert asked == [1]
    # two cards seen by one corner each: each goes to the coordinator on its own, never one card accepted on both
    cards = cards_of(twins, CardSettings(alone=0.99), apart)
    assert [c.card for c in cards] == ["7C", "7C"] and all(c.uncertain for c in cards)


def test_calibrate_judges_the_corners_again_at_each_level_of_the_seam_model() -> None:
    twins = (hit("7C", 0.97, 100, 100), hit("7C", 0.96, 180, 100))
    reading = CardReading((), (640, 480), twins)
    odds = {(twins[0].box, twins[1].box): 0.95}
    assert len(calibrate.rejudge(reading, CardSettings(apart=0.9), odds)) == 2
    assert len(calibrate.rejudge(reading, CardSettings(apart=0.99), odds)) == 1
    assert len(calibrate.rejudge(reading, CardSettings(apart=None), odds)) == 1
    assert len(calibrate.rejudge(reading, CardSettings(apart=0.9), None)) == 1


def _rendered(folder: Path) -> None:
    """Two cards of one code side by side, and one card's two corners, as vision.cards.synth writes them."""
    for name in ("images", "labels", "meta"):
        (folder / name).mkdir(parents=True)
    frame = np.full((320, 320, 3), (40, 120, 40), np.uint8)
    cv2.rectangle(frame, (40, 40), (140, 200), (240, 240, 240), -1)
    cv2.rectangle(frame, (90, 40), (190, 200), (230, 230, 230), -1)
    cv2.line(frame, (90, 40), (90, 200), (80, 80, 80), 2)
    cv2.imwrite(str(folder / "images" / "t-1.jpg"), frame)
    rows = ["6 0.16 0.16 0.04 0.07", "6 0.32 0.16 0.04 0.07", "6 0.40 0.40 0.04 0.07"]
    (folder / "labels" / "t-1.txt").write_text("\n".join(rows) + "\n")
    cards = [{"card": "7S", "indices": [0]}, {"card": "7S", "indices": [1, 2]}]
    (folder / "meta" / "t-1.json").write_text(json.dumps({"size": [320, 320], "cards": cards}))


def test_rendered_photos_say_which_card_each_index_is_on(tmp_path: Path) -> None:
    _rendered(tmp_path)
    [(name, image, indices)] = seams.rendered_photos(tmp_path)
    assert name.endswith("t-1") and image.name == "t-1.jpg"
    assert [(card, code) for _, card, code in indices] == [("0", "7S"), ("1", "7S"), ("1", "7S")]
    strips, apart, alike = seams.pairs_of([(name, image, indices)], 1, np.random.default_rng(0))
    assert len(strips) == 3 and sorted(apart) == [0, 1, 1] and all(alike)


def test_learning_writes_a_seam_model_the_reader_loads(tmp_path: Path) -> None:
    _rendered(tmp_path / "synth")
    out = tmp_path / "models"
    args = ["--synth", str(tmp_path / "synth"), "--out", str(out), "--minutes", "0.01", "--batch", "2"]
    assert seams.main(args) == 0
    summary = json.loads((out / "seam.json").read_text())
    assert summary["epochs"] >= 1
    model = seams.SeamClassifier(out / seams.NAME)
    frame = np.zeros((320, 320, 3), np.uint8)
    [p] = model.apart(frame, [(Box(10, 10, 30, 40), Box(60, 10, 80, 40))])
    assert 0.0 <= p <= 1.0
    assert model.apart(frame, []) == []


def test_learning_refuses_a_missing_folder_in_spanish(tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match="no existe la carpeta"):
        seams.main(["--synth", str(tmp_path / "nada"), "--out", str(tmp_path / "m")])
    assert not (tmp_path / "m").exists()


def test_learning_refuses_bad_options_and_an_unlabelled_corner_folder(tmp_path: Path) -> None:
    _rendered(tmp_path / "synth")
    (tmp_path / "corners").mkdir()
    with pytest.raises(SystemExit, match="falta labels/train"):
        seams.main(["--corners", str(tmp_path / "corners"), "--out", str(tmp_path / "m")])
    with pytest.raises(SystemExit, match="--minutes"):
        seams.main(["--synth", str(tmp_path / "synth"), "--out", str(tmp_path / "m"), "--minutes", "0"])
    assert not (tmp_path / "m").exists()


def test_calibrate_refuses_seam_levels_out_of_range_before_reading(tmp_path: Path) -> None:
    with pytest.raises(SystemExit, match="--apart: cada nivel debe estar entre 0 y 1"):
        calibrate.main([str(tmp_path), "--apart", "0.9,5"])
    with pytest.raises(SystemExit, match="--apart: se esperaban números"):
        calibrate.main([str(tmp_path), "--apart", "0.9,mucho"])
