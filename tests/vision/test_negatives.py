"""Hard negatives for the "no die" class, the cocked class, and dropping what is sure to be no die."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from tests.vision.test_faces import tiny_yolo
from vision.faces.classifier import COCKED, NO_DIE, guess_from_probabilities, no_face_probability
from vision.faces.crops import UNREADABLE, DieSample
from vision.faces.negatives import (
    NOT_DICE,
    UNLABELLED,
    contact_sheets,
    far_from_dice,
    for_review,
    load_negatives,
    main,
    mine,
    read_unlabelled,
)
from vision.faces.pips import TopShares
from vision.faces.train import absent_threshold, cocked_threshold, not_dice_of, training_label
from vision.frames import load_image
from vision.reader import DiceReader
from vision.types import Box, Detection, FaceGuess, FaceVerdict, Frame


class FixedFinder:
    """A finder that always finds the same boxes."""

    def __init__(self, boxes: Sequence[Box]) -> None:
        self.boxes = list(boxes)

    def detect(self, frame: Frame) -> list[Detection]:
        return [Detection(b, 0.9) for b in self.boxes]


# tiny_yolo's photo is 200x120 with dice at (20, 20, 60, 60), (120, 50, 170, 100) and a cocked one near
# (175, 7, 185, 17)
ON_A_DIE = Box(25, 25, 58, 58)
TOUCHING_A_DIE = Box(55, 55, 80, 80)
ON_THE_FELT = Box(70, 70, 100, 100)
AT_THE_EDGE = Box(0, 80, 20, 100)


def test_only_detections_far_from_every_die_and_the_edge_are_negatives() -> None:
    dice = [Box(20, 20, 60, 60)]
    assert far_from_dice(ON_THE_FELT, dice, 200, 120)
    assert not far_from_dice(ON_A_DIE, dice, 200, 120)
    assert not far_from_dice(TOUCHING_A_DIE, dice, 200, 120)
    assert not far_from_dice(AT_THE_EDGE, dice, 200, 120)  # a cut die may be unlabelled


def test_mining_keeps_what_no_reader_takes_for_a_die(tmp_path: Path) -> None:
    folder = tiny_yolo(tmp_path)
    finder = FixedFinder([ON_A_DIE, TOUCHING_A_DIE, ON_THE_FELT, AT_THE_EDGE, Box(100, 10, 115, 25)])
    found = mine(finder, folder, "train")
    assert found == {"mesa_jpg.rf.0a1b.png": [ON_THE_FELT.to_list(), [100.0, 10.0, 115.0, 25.0]]}
    # what a reader takes for a die stays out, and so does a die listed as unlabelled
    looks_like = lambda crops: [c.shape[0] < 25 for c in crops]  # noqa: E731
    assert mine(finder, folder, "train", looks_like) == {"mesa_jpg.rf.0a1b.png": [ON_THE_FELT.to_list()]}
    unlabelled = {"mesa_jpg.rf.0a1b.png": [Box(72, 72, 98, 98)]}
    assert mine(finder, folder, "train", looks_like, unlabelled) == {}


def test_boxes_judged_no_die_join_the_negatives_and_what_looks_like_a_die_is_kept_for_review(tmp_path: Path) -> None:
    folder = tiny_yolo(tmp_path)
    finder = FixedFinder([ON_A_DIE, ON_THE_FELT, Box(100, 10, 115, 25)])
    looks_like = lambda crops: [c.shape[0] < 25 for c in crops]  # noqa: E731
    judged = {"mesa_jpg.rf.0a1b.png": [Box(72, 72, 98, 98)], "otra.png": [Box(1, 1, 9, 9)]}
    left_out: list[tuple[str, Detection]] = []
    found = mine(finder, folder, "train", looks_like, not_dice=judged, left_out=left_out)
    # judged by eye: a negative whatever the readers say; what they take for a die waits for review
    assert found == {"mesa_jpg.rf.0a1b.png": [ON_THE_FELT.to_list(), [72.0, 72.0, 98.0, 98.0]]}
    assert left_out == [("mesa_jpg.rf.0a1b.png", Detection(Box(100, 10, 115, 25), 0.9))]
    with pytest.raises(ValueError, match="toca un dado etiquetado"):
        mine(finder, folder, "train", not_dice={"mesa_jpg.rf.0a1b.png": [TOUCHING_A_DIE]})

    class Sure:
        def read_faces(self, crops: Sequence[Frame]) -> list[FaceGuess]:
            return [FaceGuess(3, 0.91234, "cnn") for _ in crops]

    records = for_review(folder / "images" / "train", left_out, Sure())
    assert records == [
        {
            "n": 0,
            "image": "mesa_jpg.rf.0a1b.png",
            "box": [100.0, 10.0, 115.0, 25.0],
            "finder": 0.9,
            "face": 3,
            "p": 0.912,
        }
    ]
    sheets = contact_sheets(records * 21, folder / "images" / "train", tmp_path / "rev" / "low.json", per=20)
    assert [p.name for p in sheets] == ["low-00.png", "low-01.png"]
    assert load_image(sheets[0]).shape == (4 * 280, 5 * 280, 3) and load_image(sheets[1]).shape == (280, 5 * 280, 3)


def test_mining_command_adds_the_judged_boxes_and_refuses_one_on_a_die(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tiny_yolo(tmp_path / "mesa")
    judged, out, review = tmp_path / "sin_dado.txt", tmp_path / "neg.json", tmp_path / "rev" / "low.json"
    judged.write_text("mesa_jpg.rf.0a1b.png 72 72 98 98  # fieltro\n")
    assert main([str(folder), "--out", str(out), "--not-dice", str(judged), "--review", str(review)]) == 0
    record = json.loads(out.read_text())
    assert [72.0, 72.0, 98.0, 98.0] in record["images"]["mesa_jpg.rf.0a1b.png"]
    assert record["not_dice"] == str(judged) and record["confidence"] == 0.25
    assert isinstance(json.loads(review.read_text()), list)
    judged.write_text("mesa_jpg.rf.0a1b.png 25 25 58 58\n")  # a labelled die
    out.unlink()
    with pytest.raises(SystemExit) as stop:
        main([str(folder), "--out", str(out), "--not-dice", str(judged)])
    assert stop.value.code == 2 and "toca un dado etiquetado" in capsys.readouterr().err and not out.exists()
    with pytest.raises(SystemExit) as stop:
        main([str(folder), "--out", str(out), "--confidence", "1.5"])
    assert stop.value.code == 2
    assert "--confidence 1.5" in capsys.readouterr().err and not out.exists()


def test_the_committed_lists_judged_by_eye_parse_and_never_call_one_box_both_die_and_no_die() -> None:
    unlabelled = read_unlabelled(UNLABELLED)
    assert unlabelled
    not_dice = read_unlabelled(NOT_DICE)
    assert not_dice
    for name, boxes in not_dice.items():
        assert all(box.iou(die) == 0.0 for box in boxes for die in unlabelled.get(name, [])), name


def test_unlabelled_list_and_negatives_files(tmp_path: Path) -> None:
    listed = tmp_path / "sin_etiqueta.txt"
    listed.write_text("# comentario\nfoto.jpg 1 2 3 4\n\nfoto.jpg 5 6 7 8  # otro\n")
    assert read_unlabelled(listed) == {"foto.jpg": [Box(1, 2, 3, 4), Box(5, 6, 7, 8)]}
    listed.write_text("foto.jpg 1 2 3\n")
    with pytest.raises(ValueError, match=r"sin_etiqueta\.txt:1"):
        read_unlabelled(listed)
    mined = tmp_path / "negativos.json"
    mined.write_text(json.dumps({"folder": "x", "images": {"a.jpg": [[1, 2, 3, 4]]}}))
    assert load_negatives([mined, mined]) == {"a.jpg": [Box(1, 2, 3, 4), Box(1, 2, 3, 4)]}
    mined.write_text("[]")
    with pytest.raises(ValueError, match="no es un archivo de negativos"):
        load_negatives([mined])


def test_mining_refuses_a_val_split(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = tiny_yolo(tmp_path)
    out = tmp_path / "neg.json"
    with pytest.raises(SystemExit) as stop:
        main([str(folder), "--split", "val", "--out", str(out)])
    assert stop.value.code == 2 and "validación" in capsys.readouterr().err
    with pytest.raises(SystemExit) as stop:
        main([str(tmp_path / "no-existe"), "--out", str(out)])
    assert stop.value.code == 2 and "no-existe no es una carpeta YOLO" in capsys.readouterr().err
    assert not out.exists()


def test_mining_command_writes_the_file(tmp_path: Path) -> None:
    folder = tiny_yolo(tmp_path / "mesa")
    out = tmp_path / "neg" / "mesa.json"
    assert main([str(folder), "--split", "train", "--out", str(out)]) == 0
    record = json.loads(out.read_text())
    assert record["split"] == "train" and record["folder"] == str(folder)
    for boxes in record["images"].values():  # whatever the committed finder takes for dice on bare felt
        assert all(far_from_dice(Box(*b), [Box(20, 20, 60, 60), Box(120, 50, 170, 100)], 200, 120) for b in boxes)


def probabilities(**named: float) -> np.ndarray:
    """A row of 8 class probabilities: no_die, f1..f6, cocked; the rest spread evenly."""
    row = np.zeros(8, np.float32)
    index = {"no_die": NO_DIE, "cocked": COCKED, **{f"f{k}": k for k in range(1, 7)}}
    for name, p in named.items():
        row[index[name]] = p
    rest = [i for i in range(8) if row[i] == 0]
    row[rest] = (1 - row.sum()) / len(rest)
    return row


def test_a_cocked_die_and_no_die_both_mean_no_face_to_read() -> None:
    assert guess_from_probabilities(probabilities(f3=0.9)) == FaceGuess(3, pytest.approx(0.9), "cnn")
    assert guess_from_probabilities(probabilities(cocked=0.6, f3=0.3)).face is None
    # neither alone beats the face, together they do: no face is readable
    together = guess_from_probabilities(probabilities(no_die=0.25, cocked=0.25, f3=0.4))
    assert together.face is None and together.confidence == pytest.approx(0.5)
    seven = np.array([0.1, 0.0, 0.9, 0.0, 0.0, 0.0, 0.0], np.float32)  # a model from before the cocked class
    assert guess_from_probabilities(seven).face == 2 and float(no_face_probability(seven)) == pytest.approx(0.1)


def test_cocked_dice_teach_their_own_class() -> None:
    patch = np.zeros((8, 8, 3), np.uint8)
    box = Box(0, 0, 8, 8)
    assert training_label(DieSample(patch, box, 4, "x")) == 4
    assert training_label(DieSample(patch, box, UNREADABLE, "x")) == NO_DIE
    assert training_label(DieSample(patch, box, UNREADABLE, "x", cocked=True)) == COCKED


def test_rendered_tables_get_their_mined_negatives_with_their_distractors(tmp_path: Path) -> None:
    image = tmp_path / "images" / "t.jpg"
    (tmp_path / "meta").mkdir()
    (tmp_path / "meta" / "t.json").write_text(json.dumps({"distractors": [{"kind": "coin", "box": [1, 2, 3, 4]}]}))
    found = {"t.jpg": [Box(5, 6, 7, 8)]}
    assert not_dice_of(found, image) == [Box(1, 2, 3, 4), Box(5, 6, 7, 8)]
    assert not_dice_of({}, image) == [Box(1, 2, 3, 4)]


def test_drop_threshold_is_the_lowest_no_calibration_die_reaches_on_each_source() -> None:
    rows = [probabilities(no_die=0.92, f2=0.05)]  # a hard die: the model thinks it is no die
    rows += [probabilities(f2=0.95)] * 9 + [probabilities(no_die=0.999)] * 10
    probs = np.array(rows + [probabilities(cocked=0.6, no_die=0.39)] + [probabilities(no_die=0.99)] * 5)
    is_die = np.array([True] * 10 + [False] * 10 + [True] + [False] * 5)
    sources = ["real"] * 20 + ["synth"] * 6
    threshold, curves = absent_threshold(probs, is_die, sources)
    assert threshold == 0.95  # the real die at 0.92 must not be dropped; the synth source alone needs 0.5
    point = next(c for c in curves["real"] if c["threshold"] == 0.95)
    assert point == {"threshold": 0.95, "dice_dropped": 0.0, "not_dice_dropped": 1.0}
    assert absent_threshold(probs, is_die, sources, max_drop=0.1)[0] == 0.5  # one real die in ten may go
    seven = np.array([[0.99, 0.01, 0, 0, 0, 0, 0]] * 2)  # class 0 of an older model holds cocked dice too
    assert absent_threshold(seven, np.array([True, False]), ["real", "real"]) == (None, {})
    never = np.array([probabilities(no_die=0.9995)] * 2)
    assert absent_threshold(never, np.array([True, False]), ["real", "real"])[0] is None


class Verdicts:
    """Face readers that give fixed verdicts, one per crop in order."""

    def __init__(self, verdicts: Sequence[FaceVerdict]) -> None:
        self.verdicts = list(verdicts)

    def read_dice(
        self, crops: Sequence[Frame], turned: Sequence[Frame] | None = None, tops: TopShares | None = None
    ) -> list[FaceVerdict]:
        return self.verdicts[: len(crops)]


def test_the_reader_drops_what_is_surely_no_die_and_says_so() -> None:
    frame = np.full((120, 200, 3), 90, np.uint8)
    die, cap = Box(20, 20, 60, 60), Box(120, 50, 170, 100)
    sure = FaceVerdict(4, 0.97, (), ())
    absent = FaceVerdict(1, 0.2, ("el modelo no ve una cara legible",), (), absent=True)
    reading = DiceReader(FixedFinder([die, cap]), Verdicts([sure, absent])).read(frame)
    assert [d.box for d in reading.dice] == [die] and reading.not_dice == (cap,)
    assert reading.to_dict()["not_dice"] == [cap.to_list()]
    assert "not_dice" not in DiceReader(FixedFinder([die]), Verdicts([sure])).read(frame).to_dict()


class Probabilities:
    """A classifier stand-in: fixed probability rows, and a drop threshold."""

    def __init__(self, rows: Sequence[np.ndarray], absent: float | None, leaning: float | None = None) -> None:
        self.rows, self.absent_threshold, self.threshold = np.array(rows), absent, 0.9
        self.cocked_threshold, self.turned = leaning, False

    def probabilities(self, crops: Sequence[Frame]) -> np.ndarray:
        return self.rows[: len(crops)]

    def read_faces(self, crops: Sequence[Frame]) -> list[FaceGuess]:
        return [guess_from_probabilities(r) for r in self.probabilities(crops)]


@pytest.mark.parametrize(("absent", "dropped"), [(0.95, [False, True, False]), (None, [False, False, False])])
def test_paired_faces_mark_absent_only_above_the_calibrated_threshold(
    absent: float | None, dropped: list[bool]
) -> None:
    from vision.pipeline import MODELS, PairedFaces

    faces = PairedFaces(MODELS / "faces")
    rows = [probabilities(f5=0.95), probabilities(no_die=0.97), probabilities(cocked=0.97)]
    faces.classifier = faces.pair.classifier = Probabilities(rows, absent)
    crops = [np.full((40, 40, 3), 128, np.uint8)] * 3
    assert [v.absent for v in faces.read_dice(crops)] == dropped  # a cocked die is never dropped


def test_annotation_draws_what_was_left_out_in_grey() -> None:
    from vision.annotate import NOT_A_DIE, annotate
    from vision.types import FrameReading

    frame = np.zeros((120, 200, 3), np.uint8)
    drawn = annotate(frame, FrameReading(200, 120, (), not_dice=(Box(20, 20, 60, 60),)))
    assert tuple(drawn[20, 40]) == NOT_A_DIE and not drawn[40, 40].any()  # the outline only


def test_paired_faces_flag_a_die_the_model_thinks_may_be_cocked() -> None:
    from vision.pipeline import MODELS, PairedFaces

    faces = PairedFaces(MODELS / "faces")
    rows = [probabilities(f5=0.78, cocked=0.2), probabilities(f5=0.78, cocked=0.1)]
    faces.classifier = faces.pair.classifier = Probabilities(rows, None, leaning=0.15)
    crops = [np.full((40, 40, 3), 128, np.uint8)] * 2
    first, second = faces.read_dice(crops)
    assert any("quizá montado (0,20 ≥ 0,15)" in r for r in first.reasons)
    assert not any("montado" in r for r in second.reasons)
    faces.classifier.cocked_threshold = None  # a model with no calibrated cocked flag
    assert not any("montado" in r for v in faces.read_dice(crops) for r in v.reasons)


def test_cocked_flag_is_the_lowest_that_flags_few_accepted_flat_dice_on_each_source() -> None:
    flat = [probabilities(f2=0.9, cocked=c) for c in (0.01, 0.01, 0.01, 0.06)]  # one flat die in four leans
    fooled = [probabilities(f4=0.8, cocked=0.12)]  # a cocked die both readers take for a 4
    probs = np.array(flat + fooled)
    labels = np.array([2, 2, 2, 2, UNREADABLE])
    cocked = np.array([False] * 4 + [True])
    pips = np.array([2, 2, 2, 2, 4])
    threshold, curves = cocked_threshold(probs, labels, cocked, pips, 0.7, ["s"] * 5, budget=0.25)
    assert threshold == 0.02  # flags 1 of 4 accepted flat dice: within the budget
    assert cocked_threshold(probs, labels, cocked, pips, 0.7, ["s"] * 5, budget=0.0)[0] == 0.07
    point = next(c for c in curves["s"] if c["threshold"] == 0.1)
    assert point == {"threshold": 0.1, "flat_flagged": 0.0, "cocked_caught": 1.0, "cocked_accepted": 1}
    assert cocked_threshold(probs[:, :7], labels, cocked, pips, 0.7, ["s"] * 5) == (None, {})
