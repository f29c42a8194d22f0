"""The reader's plumbing with fakes: frame checks, crops at full resolution, uncertainty, metrics."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import cv2
import numpy as np
import pytest

from vision.evaluate import (
    CURVE_LEVELS,
    TruthDie,
    average_precision,
    evaluate,
    finder_points,
    image_account,
    match,
    read_labels,
    risk_coverage,
    yolo_samples,
)
from vision.faces.pips import TopShares
from vision.frames import FrameError, check_frame, load_image
from vision.reader import SECOND_CHANCE, DiceReader, ReaderSettings, crop_box, top_face_share
from vision.reasons import ReasonCode, has
from vision.types import Box, Detection, DieReading, FaceGuess, FaceVerdict, Frame


class FakeFinder:
    """Returns fixed detections."""

    def __init__(self, detections: list[Detection]) -> None:
        self.detections = detections

    def detect(self, frame: Frame) -> list[Detection]:
        return self.detections


class FakeFaces:
    """Reads the face from the crop's mean brightness, and records the crop sizes it was given."""

    def __init__(self, disagree_on: int | None = None) -> None:
        self.sizes: list[tuple[int, int]] = []
        self.disagree_on = disagree_on
        self.tops: list[TopShares | None] = []

    def read_dice(
        self, crops: Sequence[Frame], turned: Sequence[Frame] | None = None, tops: TopShares | None = None
    ) -> list[FaceVerdict]:
        out = []
        self.tops.append(tops)
        for crop in crops:
            self.sizes.append(crop.shape[:2])
            face = int(crop.mean() // 40) + 1
            reasons = ("los dos lectores no coinciden",) if face == self.disagree_on else ()
            guesses = (FaceGuess(face, 0.99, "cnn"), FaceGuess(face, 0.9, "pips"))
            out.append(FaceVerdict(face, 0.97, reasons, guesses))
        return out


# These small test frames hold dice far bigger than a camera above the table sees them: no size-for-the-frame check.
SMALL_FRAME = ReaderSettings(max_die_share=None)


def frame_with_patches(patches: dict[tuple[int, int, int, int], int], size: tuple[int, int] = (400, 600)) -> Frame:
    frame = np.zeros((*size, 3), np.uint8)
    for (x1, y1, x2, y2), value in patches.items():
        frame[y1:y2, x1:x2] = value
    return frame


# ----------------------------------------------------------------- frames


@pytest.mark.parametrize(
    ("frame", "fragment"),
    [
        ("not an array", "no es una imagen"),
        (np.zeros((0, 0, 3), np.uint8), "vacía"),
        (np.zeros((100, 100), np.uint8), "escala de grises"),
        (np.zeros((100, 100, 1), np.uint8), "escala de grises"),
        (np.zeros((100, 100, 4), np.uint8), "4 canales"),
        (np.zeros((100, 100, 3), np.float32), "uint8"),
        (np.zeros((10, 100, 3), np.uint8), "muy chica"),
    ],
)
def test_bad_frames_are_refused(frame: object, fragment: str) -> None:
    with pytest.raises(FrameError, match=fragment):
        check_frame(frame)


def test_huge_frame_is_refused() -> None:
    with pytest.raises(FrameError, match="demasiado grande"):
        check_frame(np.zeros((9000, 9000, 3), np.uint8))


def test_good_frame_passes() -> None:
    frame = np.zeros((480, 640, 3), np.uint8)
    assert check_frame(frame) is frame


def test_load_image_errors(tmp_path: Path) -> None:
    with pytest.raises(FrameError, match="no existe"):
        load_image(tmp_path / "nada.jpg")
    with pytest.raises(FrameError, match="carpeta"):
        load_image(tmp_path)
    empty = tmp_path / "vacia.jpg"
    empty.write_bytes(b"")
    with pytest.raises(FrameError, match="0 bytes"):
        load_image(empty)
    corrupt = tmp_path / "rota.jpg"
    corrupt.write_bytes(b"\xff\xd8\xff\xe0 not really a jpeg")
    with pytest.raises(FrameError, match="no es una imagen"):
        load_image(corrupt)
    grey = tmp_path / "gris.png"
    cv2.imwrite(str(grey), np.zeros((64, 64), np.uint8))
    with pytest.raises(FrameError, match="escala de grises"):
        load_image(grey)
    rgba = tmp_path / "alfa.png"
    cv2.imwrite(str(rgba), np.zeros((64, 64, 4), np.uint8))
    with pytest.raises(FrameError, match="4 canales"):
        load_image(rgba)
    good = tmp_path / "bien.png"
    cv2.imwrite(str(good), np.full((64, 80, 3), 7, np.uint8))
    assert load_image(good).shape == (64, 80, 3)


# ----------------------------------------------------------------- reader


def test_reader_crops_at_full_resolution_and_keeps_original_pixels() -> None:
    frame = frame_with_patches({(100, 100, 160, 160): 130, (300, 200, 360, 260): 210})
    faces = FakeFaces()
    finder = FakeFinder([Detection(Box(100, 100, 160, 160), 0.9), Detection(Box(300, 200, 360, 260), 0.95)])
    reading = DiceReader(finder, faces, ReaderSettings(margin=0.0, max_die_share=None)).read(frame)
    assert [d.face for d in reading.dice] == [4, 6]  # sorted top to bottom
    assert reading.dice[0].box == Box(100, 100, 160, 160)
    assert faces.sizes == [(60, 60), (60, 60)]
    assert not any(d.uncertain for d in reading.dice)
    assert reading.to_dict()["dice"][0] == {
        "face": 4,
        "confidence": 0.9,
        "box": [100, 100, 160, 160],
        "uncertain": False,
        "candidates": [4],
    }


def test_the_top_face_is_the_box_less_the_sides_toward_the_frames_centre() -> None:
    """Seen from above, a die shows the sides facing the frame's centre: its top face's box is its box cut on
    that side by the sweep (`top_sweep` times the die's distance from the centre), as shares of the crop."""
    # 600 x 400 frame, centre (300, 200); a die 100 px right of and 50 px below it, crop = box + 10 px
    share = top_face_share(Box(370, 220, 430, 280), (360, 210, 440, 290), 600, 400, 0.1)
    assert share == pytest.approx((20 / 80, 15 / 80, 70 / 80, 70 / 80))  # cut 10 px on the left, 5 px on top
    left_above = top_face_share(Box(170, 120, 230, 180), (170, 120, 230, 180), 600, 400, 0.1)
    assert left_above == pytest.approx((0, 0, 50 / 60, 55 / 60))  # 100 px left, 50 px above: cut right and bottom
    assert top_face_share(Box(270, 170, 330, 230), (270, 170, 330, 230), 600, 400, 0.1) == (0, 0, 1, 1)
    # a tilted camera's nadir (its vertical's foot) at (350, 300): the sides sweep toward it instead; the die is
    # 50 px right of it and 50 px above: cut 5 px on the left and 5 px at the bottom
    nadir = (350 / 600, 300 / 400)
    from_nadir = top_face_share(Box(370, 220, 430, 280), (360, 210, 440, 290), 600, 400, 0.1, nadir)
    assert from_nadir == pytest.approx((15 / 80, 10 / 80, 70 / 80, 65 / 80))
    assert top_face_share(Box(370, 220, 430, 280), (360, 210, 440, 290), 600, 400, 0.1, (0.5, 0.5)) == share


def test_the_reader_says_where_the_top_faces_are_only_from_above() -> None:
    frame = frame_with_patches({(370, 220, 430, 280): 130})
    finder = FakeFinder([Detection(Box(370, 220, 430, 280), 0.9)])
    above, slanted, off, default = FakeFaces(), FakeFaces(), FakeFaces(), FakeFaces()
    DiceReader(finder, above, ReaderSettings(margin=0.0, top_sweep=0.1)).read(frame)
    DiceReader(finder, slanted, ReaderSettings(margin=0.0, from_above=False)).read(frame)
    DiceReader(finder, off, ReaderSettings(margin=0.0, top_sweep=None)).read(frame)
    DiceReader(finder, default, ReaderSettings(margin=0.0)).read(frame)  # on by default, sweep 0.015
    assert above.tops == [[pytest.approx((10 / 60, 5 / 60, 1, 1))]]
    assert default.tops == [[pytest.approx((1.5 / 60, 0.75 / 60, 1, 1))]]
    assert slanted.tops == off.tops == [None]


def test_the_top_face_is_not_read_alone_for_a_die_leaning_on_a_neighbour() -> None:
    """A die another box covers by more than `top_overlap` may lean on it: its top face could look square too."""
    boxes = [Box(100, 100, 160, 160), Box(150, 100, 210, 160), Box(400, 250, 460, 310)]  # 1 and 2 overlap by 1/6
    frame = frame_with_patches(dict.fromkeys(((100, 100, 210, 160), (400, 250, 460, 310)), 130))
    finder = FakeFinder([Detection(b, 0.9) for b in boxes])
    strict, loose = FakeFaces(), FakeFaces()
    DiceReader(finder, strict, ReaderSettings(margin=0.0, top_sweep=0.1, max_die_share=None)).read(frame)
    DiceReader(finder, loose, ReaderSettings(margin=0.0, top_sweep=0.1, top_overlap=0.2, max_die_share=None)).read(
        frame
    )
    assert [top is None for top in strict.tops[0] or []] == [True, True, False]
    assert [top is None for top in loose.tops[0] or []] == [False, False, False]


def test_crop_margin_is_clipped_to_the_frame() -> None:
    frame = np.zeros((100, 100, 3), np.uint8)
    assert crop_box(frame, Box(0, 0, 40, 40), 0.25).shape[:2] == (50, 50)
    assert crop_box(frame, Box(80, 80, 100, 100), 0.5).shape[:2] == (30, 30)


@pytest.mark.parametrize(
    ("box", "confidence", "reason"),
    [
        (Box(100, 100, 160, 160), 0.3, "detección dudosa"),
        (Box(0, 100, 50, 160), 0.9, "borde"),
        (Box(550, 100, 600, 160), 0.9, "borde"),
        (Box(100, 100, 108, 108), 0.9, "muy chico"),
    ],
)
def test_unsafe_dice_are_uncertain_with_a_reason(box: Box, confidence: float, reason: str) -> None:
    frame = frame_with_patches({(100, 100, 160, 160): 130})
    reading = DiceReader(FakeFinder([Detection(box, confidence)]), FakeFaces()).read(frame)
    die = reading.dice[0]
    assert die.uncertain
    assert any(reason in r for r in die.reasons)
    assert reading.uncertain == (die,)


def test_disagreeing_face_readers_make_the_die_uncertain() -> None:
    frame = frame_with_patches({(100, 100, 160, 160): 130, (300, 200, 360, 260): 210})
    finder = FakeFinder([Detection(Box(100, 100, 160, 160), 0.9), Detection(Box(300, 200, 360, 260), 0.95)])
    reading = DiceReader(finder, FakeFaces(disagree_on=6), ReaderSettings(margin=0.0, max_die_share=None)).read(frame)
    assert [d.uncertain for d in reading.dice] == [False, True]
    assert reading.dice[1].to_dict()["reasons"] == ["los dos lectores no coinciden"]


def test_a_die_far_bigger_or_smaller_than_the_others_is_doubtful() -> None:
    """Dice of one game are one size: a card's ace among 40 px dice, or a 10 px speck, is flagged."""
    frame = np.full((1200, 1600, 3), 130, np.uint8)
    dice = [Box(100 + 80 * i, 100, 140 + 80 * i, 140) for i in range(4)]
    odd = [Box(600, 500, 760, 700), Box(1000, 900, 1014, 914)]  # 4.5 and 0.35 times the median die
    finder = FakeFinder([Detection(b, 0.9) for b in dice + odd])
    reading = DiceReader(finder, FakeFaces(), ReaderSettings(min_side_px=8)).read(frame)
    flagged = {d.box for d in reading.dice if any("otro tamaño" in r for r in d.reasons)}
    assert flagged == set(odd)
    alone = DiceReader(
        FakeFinder([Detection(odd[0], 0.9)] + [Detection(b, 0.9) for b in dice[:1]]), FakeFaces(), SMALL_FRAME
    )
    assert not any(d.uncertain for d in alone.read(frame).dice)  # two dice: no median to compare with
    off = DiceReader(finder, FakeFaces(), ReaderSettings(min_side_px=8, size_spread=None, max_die_share=None)).read(
        frame
    )
    assert not any(d.uncertain for d in off.dice)


def test_a_die_too_big_for_a_camera_above_the_table_is_doubtful_even_alone() -> None:
    """From above a die spans at most about 3 % of the frame's long side: a 10 % "die" alone on the table
    (a card's ace) is flagged; an upright photo at a slant is not checked so."""
    frame = np.full((900, 1600, 3), 130, np.uint8)
    card = FakeFinder([Detection(Box(600, 300, 760, 480), 0.9)])
    die = DiceReader(card, FakeFaces()).read(frame).dice[0]
    assert die.uncertain and any("demasiado grande" in r for r in die.reasons)
    upright = DiceReader(card, FakeFaces(), ReaderSettings(from_above=False)).read(frame).dice[0]
    assert not upright.uncertain


def test_reader_refuses_a_bad_frame() -> None:
    with pytest.raises(FrameError, match="escala de grises"):
        DiceReader(FakeFinder([]), FakeFaces()).read(np.zeros((100, 100), np.uint8))


# ----------------------------------------------------------------- metrics


def reading(box: Box, face: int, confidence: float = 0.9, uncertain: bool = False) -> DieReading:
    return DieReading(face, confidence, box, uncertain)


def test_match_is_one_to_one_by_confidence() -> None:
    truth = [TruthDie(Box(0, 0, 10, 10), 3)]
    readings = [reading(Box(0, 0, 10, 10), 3, 0.5), reading(Box(1, 1, 10, 10), 3, 0.9)]
    matches, missed, extra = match(truth, readings)
    assert [m.reading.confidence for m in matches] == [0.9]
    assert missed == [] and [e.confidence for e in extra] == [0.5]


def test_average_precision() -> None:
    assert average_precision([(0.9, True), (0.8, True)], 2) == pytest.approx(1.0)
    assert average_precision([(0.9, False), (0.8, True)], 1) == pytest.approx(0.5, abs=0.01)
    assert average_precision([], 3) == 0.0


def test_evaluate_counts_silent_and_caught_errors() -> None:
    a, b, c = Box(0, 0, 10, 10), Box(20, 20, 30, 30), Box(40, 40, 50, 50)
    pairs = [
        ([TruthDie(a, 1), TruthDie(b, 2)], [reading(a, 1), reading(b, 2)]),  # all right
        ([TruthDie(a, 3), TruthDie(b, 4)], [reading(a, 3), reading(b, 5, uncertain=True)]),  # caught
        ([TruthDie(a, 6), TruthDie(b, 6)], [reading(a, 5), reading(c, 2)]),  # silent error, a miss, an extra
    ]
    report = evaluate(pairs)
    assert (report.labelled, report.predicted, report.matched) == (6, 6, 5)
    assert report.recall == pytest.approx(5 / 6)
    assert report.precision == pytest.approx(5 / 6)
    assert report.face_accuracy == pytest.approx(3 / 5)
    assert (report.wrong_faces, report.caught, report.silent_errors, report.silent_extra) == (2, 1, 1, 1)
    assert report.images_all_right == pytest.approx(1 / 3)
    assert 0 < report.map50 < 1
    assert report.map50_95 <= report.map50
    assert (report.cocked, report.cocked_flagged) == (0, 0)


def test_the_coordinators_load_and_the_unsafe_readings() -> None:
    """Load: labelled dice missed, dice read and flagged (an extra too) and silent errors, over labelled dice;
    unsafe: silent errors and unflagged extras, less the extras that read a labelled die right."""
    a, b, c, tight = Box(0, 0, 10, 10), Box(20, 20, 30, 30), Box(40, 40, 50, 50), Box(0, 0, 5, 5)
    pairs = [
        ([TruthDie(a, 1), TruthDie(b, 2)], [reading(a, 1), reading(b, 2)]),  # nothing to do
        ([TruthDie(a, 3), TruthDie(b, 4)], [reading(a, 3), reading(b, 5, uncertain=True)]),  # one flagged
        ([TruthDie(a, 6), TruthDie(b, 6)], [reading(a, 5), reading(c, 2, uncertain=True)]),  # wrong, missed, flagged
        ([TruthDie(a, 2)], [reading(c, 4), reading(tight, 2)]),  # missed; an extra, and one reading the die right
    ]
    report = evaluate(pairs)
    assert report.labelled == 7 and report.flagged == 2
    assert report.load == pytest.approx((2 + 2 + 1) / 7)  # two missed, two flagged, one silent error
    assert report.unsafe == 1 + 2 - 1
    data = report.to_dict()
    assert data["load"] == pytest.approx(report.load) and data["unsafe"] == 2 and data["flagged"] == 2
    assert any("carga del coordinador" in line and "71.4%" in line for line in report.lines())


def test_extras_that_read_a_labelled_die_right_are_counted_apart() -> None:
    """An unflagged extra whose box is off its die's label (IoU under 0.5) but names the die's face is counted
    apart, once per die, and only while no other unflagged reading sits on that die."""
    die, tight, far = Box(0, 0, 20, 20), Box(0, 0, 10, 10), Box(100, 100, 110, 110)
    cases = [
        ([TruthDie(die, 4)], [reading(tight, 4)], 1),  # the die missed, read right with a tight box
        ([TruthDie(die, 4)], [reading(tight, 5)], 0),  # a wrong face
        ([TruthDie(die, 4)], [reading(die, 6, uncertain=True), reading(tight, 4, 0.8)], 1),  # its side boxed apart
        ([TruthDie(die, 4)], [reading(die, 4), reading(tight, 4, 0.8)], 0),  # the die counted twice
        ([TruthDie(die, 4)], [reading(tight, 4), reading(Box(10, 10, 20, 20), 4, 0.8)], 1),  # twice, both extra
        ([TruthDie(die, None)], [reading(tight, 4)], 0),  # a cocked die has no face to name
        ([TruthDie(die, 4)], [reading(far, 4)], 0),  # on no die
        ([TruthDie(die, 4)], [reading(tight, 4, uncertain=True)], 0),  # flagged: not silent
    ]
    for truth, readings, on_die in cases:
        report = evaluate([(truth, readings)])
        assert report.silent_extra_on_die == on_die, (truth, readings)
        assert report.silent_extra_on_die <= report.silent_extra
    both = evaluate([(t, r) for t, r, _ in cases])
    assert both.silent_extra_on_die == 3 and both.to_dict()["silent_extra_on_die"] == 3
    assert any("leen bien la cara" in line for line in both.lines())


def test_a_cocked_die_is_read_right_only_when_flagged() -> None:
    """A cocked die has no face up: flagged it is read right (whatever face is named), unflagged it is silent."""
    a, b = Box(0, 0, 10, 10), Box(20, 20, 30, 30)
    pairs = [
        ([TruthDie(a, None), TruthDie(b, 2)], [reading(a, 4, uncertain=True), reading(b, 2)]),
        ([TruthDie(a, None), TruthDie(b, 2)], [reading(a, 4), reading(b, 3, uncertain=True)]),
    ]
    report = evaluate(pairs)
    assert (report.cocked, report.cocked_flagged) == (2, 1)
    assert report.face_accuracy == pytest.approx(1 / 2)  # of the two dice with a face up
    assert (report.wrong_faces, report.caught, report.silent_errors) == (1, 1, 1)
    assert report.images_all_right == pytest.approx(1 / 2)


def test_image_account_lists_each_labelled_die_with_its_reading() -> None:
    """Die by die: a matched die carries its reading, a missed one None (a cocked label has no face), and a
    reading on no labelled die is an extra; twins at one place are matched once each."""
    a, b, c = Box(0, 0, 10, 10), Box(20, 20, 30, 30), Box(40, 40, 50, 50)
    account = image_account(
        "x.jpg", [TruthDie(a, 6), TruthDie(b, None)], [reading(a, 5, uncertain=True), reading(c, 2)]
    )
    assert account["image"] == "x.jpg"
    first, second = account["dice"]  # type: ignore[misc]
    assert first["label"] == {"face": 6, "box": [0, 0, 10, 10]}
    assert first["reading"]["face"] == 5 and first["reading"]["uncertain"] is True
    assert second == {"label": {"face": None, "box": [20, 20, 30, 30]}, "reading": None}
    assert [e["face"] for e in account["extra"]] == [2]  # type: ignore[attr-defined]
    twins = image_account("t.jpg", [TruthDie(a, 1), TruthDie(a, 1)], [reading(a, 1)])
    assert sorted(d["reading"] is None for d in twins["dice"]) == [False, True]  # type: ignore[attr-defined]


def test_finder_points_count_boxes_matches_and_the_ceiling_per_confidence() -> None:
    """The finder alone: at each confidence the boxes kept, the dice they match one to one, and the dice some box
    covers at IoU 0.5 (two dice under one good box: one match, both covered)."""
    a, b, c, far = Box(0, 0, 10, 10), Box(20, 20, 30, 30), Box(0, 0, 11, 10), Box(60, 60, 70, 70)
    twin = Box(0, 0, 10, 11)
    pairs = [
        ([TruthDie(a, 1), TruthDie(b, 2)], [Detection(a, 0.9), Detection(b, 0.02), Detection(far, 0.5)]),
        ([TruthDie(a, 3), TruthDie(twin, None)], [Detection(c, 0.3)]),
        ([TruthDie(b, 4)], []),
    ]
    high, low = finder_points(pairs, [0.25, 0.01])
    assert (high.confidence, high.images, high.labelled) == (0.25, 3, 5)
    assert (high.boxes, high.matched, high.covered) == (3, 2, 3)
    assert (low.boxes, low.matched, low.covered) == (4, 3, 4)
    assert low.recall == pytest.approx(3 / 5) and low.precision == pytest.approx(3 / 4)
    assert low.ceiling == pytest.approx(4 / 5) and low.ceiling >= low.recall
    assert low.to_dict()["ceiling"] == pytest.approx(0.8) and "techo" in low.line()


def test_yolo_folder_reading(tmp_path: Path) -> None:
    (tmp_path / "images" / "val").mkdir(parents=True)
    (tmp_path / "labels" / "val").mkdir(parents=True)
    cv2.imwrite(str(tmp_path / "images" / "val" / "a.jpg"), np.zeros((100, 200, 3), np.uint8))
    (tmp_path / "labels" / "val" / "a.txt").write_text("4 0.5 0.5 0.1 0.2\n6 0.25 0.25 0.1 0.1\n", encoding="utf-8")
    [(image, label)] = list(yolo_samples(tmp_path, "val"))
    assert image.name == "a.jpg"
    truth = read_labels(label, 200, 100)
    assert truth[0].face == 5
    assert truth[0].box.to_list() == [90, 40, 110, 60]
    assert truth[1].face is None  # cocked
    with pytest.raises(FileNotFoundError, match="no hay carpeta de imágenes"):
        list(yolo_samples(tmp_path, "train"))


def test_reduce_shrinks_a_still_like_one_area_step_and_never_enlarges_by_default() -> None:
    """The finder's copy of a 12 MP still: 1280 px long, the same box averaging as one INTER_AREA step."""
    from vision.finder import reduce

    rng = np.random.default_rng(3)
    still = cv2.GaussianBlur(rng.integers(0, 256, (2592, 4608, 3), dtype=np.uint8), (0, 0), 3)
    small, scale = reduce(still, 1280)
    assert small.shape == (720, 1280, 3) and scale == pytest.approx(1280 / 4608)
    direct = cv2.resize(still, (1280, 720), interpolation=cv2.INTER_AREA)
    assert np.abs(small.astype(int) - direct).mean() < 1.0
    photo = still[:640, :640]
    assert reduce(photo, 1280)[0] is photo  # a smaller photo is read at its own size
    enlarged, twice = reduce(photo, 1280, max_enlarge=2.0)
    assert enlarged.shape == (1280, 1280, 3) and twice == 2.0


def test_reduce_gives_the_same_pixels_on_any_number_of_threads() -> None:
    """The finder reduces on every core (ultralytics turns OpenCV's threads off): not one pixel changes."""
    from vision.finder import reduce

    rng = np.random.default_rng(4)
    still = cv2.GaussianBlur(rng.integers(0, 256, (2592, 4608, 3), dtype=np.uint8), (0, 0), 2)
    before = cv2.getNumThreads()
    try:
        cv2.setNumThreads(1)
        one = reduce(still, 1280)[0]
        cv2.setNumThreads(4)
        many = reduce(still, 1280)[0]
    finally:
        cv2.setNumThreads(before)
    np.testing.assert_array_equal(one, many)


class CentredFaces:
    """Reads every die as a sure 4, with the pips' centre at a given place of the crop (fractions x, y)."""

    def __init__(self, centre: tuple[float, float]) -> None:
        self.centre = centre

    def read_dice(
        self, crops: Sequence[Frame], turned: Sequence[Frame] | None = None, tops: TopShares | None = None
    ) -> list[FaceVerdict]:
        guesses = (FaceGuess(4, 0.99, "cnn"), FaceGuess(4, 0.9, "pips", self.centre))
        return [FaceVerdict(4, 0.97, (), guesses) for _ in crops]


def test_lean_offsets_are_measured_from_the_frame_centre_outwards() -> None:
    from vision.reader import lean_offsets

    box = Box(500, 90, 540, 130)  # right of a 600x220 frame's centre (300, 110), 40 px sides
    bounds = (494, 84, 546, 136)  # the crop: the box plus 15 %
    outward, sideways = lean_offsets(box, bounds, (0.5 + 4 / 52, 0.5), 600, 220)  # 4 px further right
    assert outward == pytest.approx(0.1, abs=0.01) and sideways == pytest.approx(0.0, abs=0.01)
    outward, sideways = lean_offsets(box, bounds, (0.5, 0.5 - 4 / 52), 600, 220)  # 4 px up: across the radius
    assert outward == pytest.approx(0.0, abs=0.01) and sideways == pytest.approx(0.1, abs=0.01)


def test_lean_offsets_are_measured_from_the_nadir_where_it_is_known() -> None:
    """A tilted camera's vertical meets the frame off its centre, and a flat die's sides sweep toward that point."""
    from vision.reader import lean_offsets

    box, bounds = Box(500, 90, 540, 130), (494, 84, 546, 136)
    up = (0.5, 0.5 - 4 / 52)  # the face 4 px up: across the line from the centre (300, 110)
    assert lean_offsets(box, bounds, up, 600, 220) == pytest.approx((0.0, 0.1), abs=0.01)
    below = (520 / 600, 260 / 220)  # a nadir straight below the die (outside the frame): up is outward
    assert lean_offsets(box, bounds, up, 600, 220, below) == pytest.approx((0.1, 0.0), abs=0.01)
    assert lean_offsets(box, bounds, up, 600, 220, (0.5, 0.5)) == lean_offsets(box, bounds, up, 600, 220)


@pytest.mark.parametrize("nadir", [(float("nan"), 0.5), (0.5, float("inf")), (0.5,), (0.1, 0.2, 0.3)])
def test_a_nadir_that_would_turn_the_lean_check_off_is_refused(nadir: tuple[float, ...]) -> None:
    with pytest.raises(ValueError, match="nadir"):
        ReaderSettings(nadir=nadir)  # type: ignore[arg-type]


def test_the_lean_check_measures_from_the_nadir_the_installation_gives() -> None:
    """A face pushed up, sideways as seen from the frame's centre, is pushed outward from a nadir below the die: a
    flat die of a tilted camera (docs/experiments/2026-11-24-camera-nadir-from-seat-markers.md); pushed toward
    that nadir, it is flagged."""
    frame = frame_with_patches({(500, 150, 540, 190): 200})
    finder = FakeFinder([Detection(Box(500, 150, 540, 190), 0.9)])
    below = replace(SMALL_FRAME, nadir=(520 / 600, 480 / 400))
    assert ReaderSettings().nadir is None
    [centred] = DiceReader(finder, CentredFaces((0.5, 0.4)), SMALL_FRAME).read(frame).dice
    [measured] = DiceReader(finder, CentredFaces((0.5, 0.4)), below).read(frame).dice
    [inwards] = DiceReader(finder, CentredFaces((0.5, 0.6)), below).read(frame).dice
    assert centred.uncertain and any("corrida" in r for r in centred.reasons)
    assert not measured.uncertain
    assert inwards.uncertain and any("corrida" in r for r in inwards.reasons)


@pytest.mark.parametrize(
    ("centre", "flagged"),
    [
        ((0.5, 0.5), False),  # the face where a flat die's is
        ((0.56, 0.5), False),  # pushed outwards: the sides facing the centre show, as on a flat die off axis
        ((0.5, 0.4), True),  # pushed sideways: a die cocked across the line from the centre
        ((0.4, 0.5), True),  # pushed inwards: a flat die never shows that
    ],
)
def test_a_face_off_where_the_camera_puts_it_is_flagged_as_maybe_cocked(
    centre: tuple[float, float], flagged: bool
) -> None:
    frame = frame_with_patches({(500, 150, 540, 190): 200})
    reader = DiceReader(FakeFinder([Detection(Box(500, 150, 540, 190), 0.9)]), CentredFaces(centre), SMALL_FRAME)
    [die] = reader.read(frame).dice
    assert die.uncertain == flagged
    assert any("montado" in r for r in die.reasons) == flagged
    off = DiceReader(
        FakeFinder([Detection(Box(500, 150, 540, 190), 0.9)]),
        CentredFaces(centre),
        ReaderSettings(lean_sideways=None, lean_inward=None, max_die_share=None),
    )
    assert not off.read(frame).dice[0].uncertain  # the check can be turned off (photos not from above)


class WeakCountFaces:
    """Reads every die as a sure 5 whose pip count agrees with a given confidence."""

    def __init__(self, pips: float) -> None:
        self.pips = pips

    def read_dice(
        self, crops: Sequence[Frame], turned: Sequence[Frame] | None = None, tops: TopShares | None = None
    ) -> list[FaceVerdict]:
        guesses = (FaceGuess(5, 0.99, "cnn"), FaceGuess(5, self.pips, "pips", (0.5, 0.5)))
        return [FaceVerdict(5, 0.97, (), guesses) for _ in crops]


@pytest.mark.parametrize("second", [Box(530, 150, 570, 190), Box(536, 150, 576, 190), Box(300, 150, 340, 190)])
def test_touching_dice_with_a_weak_agreeing_count_are_read(second: Box) -> None:
    # The neighbour check (overlap over 15 % and a count under 0.6) was deleted: on 120 rendered tables it flagged
    # 39 flat dice and no cocked die that no other check flagged (docs/experiments/2026-11-26-which-checks-pay.md).
    frame = frame_with_patches({(500, 150, 540, 190): 200, (530, 150, 570, 190): 200})
    first = Box(500, 150, 540, 190)
    finder = FakeFinder([Detection(first, 0.9), Detection(second, 0.9)])
    reading = DiceReader(finder, WeakCountFaces(0.5), ReaderSettings(max_die_share=None, lean_sideways=None)).read(
        frame
    )
    die = next(d for d in reading.dice if d.box == first)
    assert not die.uncertain, die.reasons


def test_box_overlap_share() -> None:
    a = Box(0, 0, 10, 10)
    assert a.overlap_share(Box(5, 0, 15, 10)) == pytest.approx(0.5)
    assert Box(0, 0, 10, 20).overlap_share(a) == pytest.approx(0.5)
    assert a.overlap_share(Box(20, 20, 30, 30)) == 0.0
    assert Box(0, 0, 0, 10).overlap_share(a) == 0.0


class SquashedFaces:
    """Reads every die as a sure 4 whose pip count agrees and whose pips look squashed to a given degree."""

    def __init__(self, squash: float | None) -> None:
        self.squash = squash

    def read_dice(
        self, crops: Sequence[Frame], turned: Sequence[Frame] | None = None, tops: TopShares | None = None
    ) -> list[FaceVerdict]:
        guesses = (FaceGuess(4, 0.99, "cnn"), FaceGuess(4, 0.9, "pips", (0.5, 0.5), self.squash))
        return [FaceVerdict(4, 0.97, (), guesses) for _ in crops]


@pytest.mark.parametrize(
    ("squash", "flagged"),
    [(0.7, True), (0.83, True), (0.86, True), (0.879, True), (0.88, False), (0.97, False), (None, False)],
)
def test_a_face_seen_at_a_slant_is_flagged_as_maybe_cocked(squash: float | None, flagged: bool) -> None:
    # the default level, 0.88 (docs/experiments/2026-11-22-faithful-flat-dice-and-the-tilt-check.md)
    frame = frame_with_patches({(500, 150, 540, 190): 200})
    finder = FakeFinder([Detection(Box(500, 150, 540, 190), 0.9)])
    settings = ReaderSettings(max_die_share=None, lean_sideways=None)
    [die] = DiceReader(finder, SquashedFaces(squash), settings).read(frame).dice
    assert die.uncertain == flagged
    assert any("se ve inclinada" in r for r in die.reasons) == flagged
    for off in (
        ReaderSettings(max_die_share=None, lean_sideways=None, tilt_squash=None),
        ReaderSettings(max_die_share=None, from_above=False),
    ):
        assert not DiceReader(finder, SquashedFaces(squash), off).read(frame).dice[0].uncertain


@pytest.mark.parametrize(("cocked", "flagged"), [(0.9, True), (0.2, True), (0.19, False), (0.0, False), (None, False)])
def test_a_die_the_finder_calls_cocked_is_flagged(cocked: float | None, flagged: bool) -> None:
    # a finder with a cocked class: flagged from 0.2 (docs/experiments/2026-11-27-a-finder-with-a-cocked-class.md)
    frame = frame_with_patches({(500, 150, 540, 190): 200})
    finder = FakeFinder([Detection(Box(500, 150, 540, 190), 0.9, 0, cocked)])
    settings = ReaderSettings(max_die_share=None, lean_sideways=None)
    [die] = DiceReader(finder, FakeFaces(), settings).read(frame).dice
    assert die.uncertain == flagged
    assert has(die.reasons, ReasonCode.FINDER_COCKED) == flagged
    assert any("el buscador ve un dado quizá montado" in r for r in die.reasons) == flagged
    off = replace(settings, finder_cocked=None)
    assert not DiceReader(finder, FakeFaces(), off).read(frame).dice[0].uncertain


def test_a_two_class_finder_gives_one_box_a_die() -> None:
    """Boxes of both classes on one die become one detection that keeps the cocked confidence; a cocked box alone
    is a die too; a die apart stays apart with cocked 0."""
    from vision.finder import one_box_a_die

    xyxy = np.array([[0, 0, 40, 40], [1, 1, 41, 41], [100, 0, 140, 40], [200, 0, 240, 40]], float)
    found = one_box_a_die(xyxy, np.array([0.9, 0.6, 0.3, 0.8]), np.array([0, 1, 1, 0]), 0.5)
    assert [(d.confidence, d.cls, d.cocked) for d in found] == [(0.9, 0, 0.6), (0.8, 0, 0.0), (0.3, 1, 0.3)]
    assert found[0].to_dict()["cocked"] == 0.6 and "cocked" not in Detection(Box(0, 0, 1, 1), 0.5).to_dict()


class SureOfBright:
    """Reads every die as a 3; the classifier is sure (0.95) of a bright crop, doubts (0.6) a dim one and is sure
    there is no die in a black one."""

    def read_dice(
        self, crops: Sequence[Frame], turned: Sequence[Frame] | None = None, tops: TopShares | None = None
    ) -> list[FaceVerdict]:
        out = []
        for crop in crops:
            level = float(crop.mean())
            confidence = 0.95 if level > 150 else 0.6
            guesses = (FaceGuess(3, confidence, "cnn"), FaceGuess(3, 0.9, "pips"))
            out.append(FaceVerdict(3, confidence, (), guesses, absent=level < 10))
        return out


def corners(box: Box) -> tuple[int, int, int, int]:
    return int(box.x1), int(box.y1), int(box.x2), int(box.y2)


# the reader's own floor for the second chance, on these small frames' dice (no size-for-the-frame or lean check)
WITH_SECOND_CHANCE = ReaderSettings(
    margin=0.0, max_die_share=None, lean_sideways=None, lean_inward=None, second_chance=SECOND_CHANCE
)


def test_a_box_the_finder_doubts_is_kept_only_where_the_classifier_is_sure_of_a_die_and_always_flagged() -> None:
    sure, doubted, dim, empty, faint = (Box(60 * i + 20, 100, 60 * i + 60, 140) for i in range(5))
    frame = frame_with_patches({corners(b): v for b, v in [(sure, 200), (doubted, 200), (dim, 90), (faint, 200)]})
    finder = FakeFinder(
        [
            Detection(sure, 0.9),
            Detection(doubted, 0.1),  # under 0.25: kept, the classifier is sure of a die
            Detection(dim, 0.2),  # the classifier doubts it: not kept
            Detection(empty, 0.2),  # the classifier is sure there is no die: not kept
            Detection(faint, 0.02),  # under the floor (0.03): never looked at
        ]
    )
    reading = DiceReader(finder, SureOfBright(), WITH_SECOND_CHANCE).read(frame)
    assert [d.box for d in reading.dice] == [sure, doubted]
    assert not reading.dice[0].uncertain
    assert reading.dice[1].uncertain and any("detección dudosa (10\u00a0%)" in r for r in reading.dice[1].reasons)
    assert reading.not_dice == ()  # only boxes of 0.25 and over are reported as no die
    # flagged even where the reader would not doubt a detection of 0.1 for itself
    lenient = replace(WITH_SECOND_CHANCE, min_detection=0.05)
    assert DiceReader(finder, SureOfBright(), lenient).read(frame).dice[1].uncertain
    off = replace(WITH_SECOND_CHANCE, second_chance=None)
    assert [d.box for d in DiceReader(finder, SureOfBright(), off).read(frame).dice] == [sure]


def test_a_second_chance_never_doubles_a_die_already_kept() -> None:
    die, neighbour, other = Box(100, 100, 140, 140), Box(130, 100, 170, 140), Box(300, 100, 340, 140)
    frame = frame_with_patches({corners(die): 200, corners(neighbour): 200, corners(other): 200})
    finder = FakeFinder(
        [
            Detection(die, 0.9),
            Detection(Box(110, 100, 150, 140), 0.2),  # 75 % of it over the die kept: the same die, not kept
            Detection(neighbour, 0.2),  # 25 %: a die leaning on it, kept
            Detection(other, 0.15),
            Detection(Box(305, 100, 345, 140), 0.1),  # over the second chance kept before it: not kept
        ]
    )
    reading = DiceReader(finder, SureOfBright(), WITH_SECOND_CHANCE).read(frame)
    assert {d.box for d in reading.dice} == {die, neighbour, other}


def test_second_chances_do_not_move_the_median_the_sure_dice_are_measured_by() -> None:
    frame = np.full((1200, 1600, 3), 200, np.uint8)
    small = [Box(100 + 80 * i, 100, 140 + 80 * i, 140) for i in range(3)]  # 40 px
    big = Box(600, 500, 704, 604)  # 2.6 times the median of the sure dice: flagged
    more = [Box(100 + 150 * i, 900, 204 + 150 * i, 1004) for i in range(4)]  # second chances as big
    finder = FakeFinder([Detection(b, 0.9) for b in [*small, big]] + [Detection(b, 0.1) for b in more])
    reading = DiceReader(finder, SureOfBright(), WITH_SECOND_CHANCE).read(frame)
    odd = {d.box for d in reading.dice if any("otro tamaño" in r for r in d.reasons)}
    assert odd == {big, *more}


def test_the_finder_floor_is_the_second_chance_or_else_the_found_confidence() -> None:
    assert ReaderSettings().finder_floor == pytest.approx(0.03)  # the second chance is on by default
    assert ReaderSettings(second_chance=None).finder_floor == pytest.approx(0.25)
    assert ReaderSettings(second_chance=0.4).finder_floor == pytest.approx(0.25)


def test_nothing_in_a_region_without_dice_is_read_and_the_nadir_keeps_the_regions() -> None:
    """`ignoring`: a box whose centre lies in a region (a seat marker and its border) is never read; a box that only
    touches one is; `at_nadir` keeps the regions and `ignoring` keeps the nadir."""
    frame = frame_with_patches({(100, 100, 140, 140): 80, (300, 100, 340, 140): 120, (200, 250, 240, 290): 160})
    on_marker, touching, free = Box(100, 100, 140, 140), Box(300, 100, 340, 140), Box(200, 250, 240, 290)
    finder = FakeFinder([Detection(b, 0.9) for b in (on_marker, touching, free)])
    marker = ((90.0, 90.0), (150.0, 90.0), (150.0, 150.0), (90.0, 150.0))
    near = ((280.0, 90.0), (310.0, 90.0), (310.0, 150.0), (280.0, 150.0))  # holds the box's edge, not its centre
    plain = DiceReader(finder, FakeFaces(), SMALL_FRAME)
    assert {d.box for d in plain.read(frame).dice} == {on_marker, touching, free}
    ignoring = plain.ignoring([marker, near])
    assert {d.box for d in ignoring.read(frame).dice} == {touching, free}
    assert ignoring.at_nadir((0.4, 0.6)).settings.no_dice == ignoring.settings.no_dice
    assert plain.at_nadir((0.4, 0.6)).ignoring([marker]).settings.nadir == (0.4, 0.6)
    assert plain.settings.no_dice == ()


def test_the_risk_coverage_curve_counts_the_dice_both_readings_agree_on() -> None:
    """A die counts at a level when the pip count names the face read and the classifier gives it at least that
    probability, whatever the reader flagged; wrong faces, cocked dice and extras so accepted are the risk."""

    def agreed(box: Box, face: int, p: float, pips: int | None, uncertain: bool = False) -> DieReading:
        guesses = (FaceGuess(face, p, "cnn"), FaceGuess(pips, 0.9, "pips"))
        return DieReading(face, p, box, uncertain, ("dudoso",) if uncertain else (), guesses)

    a, b, c, d = Box(0, 0, 10, 10), Box(20, 20, 30, 30), Box(40, 40, 50, 50), Box(60, 60, 70, 70)
    pairs = [
        ([TruthDie(a, 1), TruthDie(b, 2)], [agreed(a, 1, 0.999, 1), agreed(b, 2, 0.97, 2, uncertain=True)]),
        ([TruthDie(a, 3), TruthDie(b, None)], [agreed(a, 4, 0.96, 4), agreed(b, 5, 0.99, 5)]),  # wrong; cocked
        ([TruthDie(a, 6), TruthDie(c, 2)], [agreed(a, 6, 0.999, None), agreed(d, 2, 0.85, 2)]),  # no pips; extra
    ]
    curve = {p.level: p for p in risk_coverage(pairs, (0.8, 0.95, 0.98, 0.999))}
    assert [(curve[k].accepted, curve[k].wrong) for k in (0.8, 0.95, 0.98, 0.999)] == [(5, 3), (4, 2), (2, 1), (1, 0)]
    assert curve[0.95].coverage == pytest.approx(4 / 6) and curve[0.95].risk == pytest.approx(0.5)
    report = evaluate(pairs)
    assert [p["level"] for p in report.to_dict()["risk_coverage"]] == list(CURVE_LEVELS)  # type: ignore[union-attr]
    assert any(line.startswith("riesgo y cobertura") for line in report.lines())
    assert evaluate([([TruthDie(a, 1)], [])]).curve[0].risk == 0.0  # nothing accepted: no risk taken
