"""Teaching the reader a table's own dice: `cacho vision adapt` and the rule for a die read alone."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import cv2
import numpy as np
import pytest

from kiosk.cli import main as cli_main
from tests.vision.test_faces import draw_die, row
from vision.faces import adapt as adapt_module
from vision.faces.adapt import (
    MIN_DICE,
    AdaptError,
    adapt,
    allowed_errors,
    choose_levels,
    counted,
    evidence_labels,
    read_held_out,
)
from vision.faces.classifier import FaceClassifier
from vision.faces.crops import CHECKED, UNREADABLE, DieSample, checked_flags
from vision.faces.reader import NOT_COUNTED, combine
from vision.reasons import ReasonCode, has
from vision.types import Box, FaceGuess

MODELS = Path(__file__).resolve().parents[2] / "models"


def dice_folder(
    root: Path, photos: int, faces: tuple[int, ...] = (1, 2, 3, 4, 5, 6), schemes: tuple[str, str] = ("blanco", "rojo")
) -> Path:
    """A YOLO folder of drawn dice, two a photo (of `schemes`' colours), cycling through `faces`."""
    (root / "images").mkdir(parents=True)
    (root / "labels").mkdir(parents=True)
    for k in range(photos):
        img = np.full((120, 200, 3), (60, 110, 40), np.uint8)
        a, b = faces[(2 * k) % len(faces)], faces[(2 * k + 1) % len(faces)]
        img[20:60, 20:60] = draw_die(a, schemes[0], 40, seed=k)[6:46, 6:46]
        img[50:100, 120:170] = draw_die(b, schemes[1], 50, seed=k)[7:57, 7:57]
        cv2.imwrite(str(root / "images" / f"tirada{k:03d}.png"), img)
        (root / "labels" / f"tirada{k:03d}.txt").write_text(
            f"{a - 1} 0.2 0.3333 0.2 0.3333\n{b - 1} 0.725 0.625 0.25 0.4167\n"
        )
    return root


@pytest.fixture
def source(tmp_path: Path) -> Path:
    """A models folder to start from: the shipped face classifier's weights, and a dice/ folder."""
    models = tmp_path / "stock"
    (models / "dice").mkdir(parents=True)
    (models / "dice" / "finder.pt").write_bytes(b"finder")
    (models / "faces").mkdir()
    for name in ("face_cnn.pt", "face_cnn.onnx", "candidates.json"):
        shutil.copy(MODELS / "faces" / name, models / "faces" / name)
    return models


def test_a_model_adapted_to_the_table_trusts_a_die_alone_only_from_its_level() -> None:
    sure = FaceGuess(4, 0.995, "cnn")
    unsure = FaceGuess(4, 0.95, "cnn")
    uncounted = FaceGuess(None, 0.0, "pips")
    assert has(combine(sure, uncounted, 0.9).reasons, ReasonCode.NOT_COUNTED)  # the stock rule
    assert not combine(sure, uncounted, 0.9, alone=0.99).uncertain
    assert has(combine(unsure, uncounted, 0.9, alone=0.99).reasons, ReasonCode.NOT_COUNTED)
    disagree = combine(sure, FaceGuess(3, 0.9, "pips"), 0.9, alone=0.99)
    assert has(disagree.reasons, ReasonCode.READERS_DISAGREE)  # a count that disagrees is never overruled
    assert not combine(sure, FaceGuess(None, 0.0, NOT_COUNTED), 0.9, alone=0.99).uncertain


def test_the_held_out_dice_are_read_by_the_pair_and_the_level_alone() -> None:
    probs = np.array([row(2, 0.99)] * 40 + [row(3, 0.995)] * 120 + [row(5, 0.6)] * 10 + [[0.95, 0, 0.05, 0, 0, 0, 0]])
    labels = np.array([2] * 40 + [3] * 120 + [5] * 10 + [0])
    pips = np.array([2] * 40 + [0] * 120 + [5] * 10 + [0])  # the 3s are never counted
    held = read_held_out(probs, labels, pips, 0.9, None)
    assert (held.dice, held.right, held.wrong, held.flagged, held.top1) == (170, 40, 0, 130, 170)
    pair, alone = choose_levels(probs, labels, pips, allowed=0)
    assert pair is not None and pair <= 0.6 and alone is not None and alone <= 0.995
    assert read_held_out(probs, labels, pips, pair, alone).flagged == 0
    assert choose_levels(probs, labels, pips, allowed=0, floor=0.9)[0] == 0.99  # never under the starting level
    few = np.array([2] * 40 + [0] * 90 + [3] * 30 + [5] * 10 + [0])  # only 90 uncounted: too few to trust alone
    assert choose_levels(probs, labels, few, allowed=0)[1] is None
    wrong = labels.copy()
    wrong[40:45] = 4  # five of the uncounted 3s are 4s: no level alone keeps within the errors allowed
    assert choose_levels(probs, wrong, pips, allowed=0)[1] is None
    assert choose_levels(probs, wrong, pips, allowed=5)[1] is not None  # unless the model started from erred so


def test_the_two_levels_are_chosen_together_for_the_least_load() -> None:
    # a die the pair accepts wrongly at 0.7 uses up the one error allowed unless the pair's level is raised past it,
    # which leaves room for the uncounted 3s alone (and their one wrong die): 2 dice to the coordinator, not 122
    probs = np.array([row(2, 0.99)] * 40 + [row(2, 0.7)] + [row(3, 0.8)] * 121)
    labels = np.array([2] * 40 + [4] + [3] * 120 + [6])
    pips = np.array([2] * 41 + [0] * 121)
    pair, alone = choose_levels(probs, labels, pips, allowed=1)
    assert pair is not None and 0.7 < pair <= 0.8 and alone == pair
    assert read_held_out(probs, labels, pips, pair, alone).load == 2


def test_the_errors_allowed_are_one_in_a_thousand_and_a_label_both_stock_readings_contradict_is_wrong() -> None:
    assert allowed_errors(2500) == 2 and allowed_errors(400) == 0
    probs = np.array([row(5, 0.97), row(5, 0.97), row(5, 0.6), row(2, 0.99)])
    labels = np.array([2, 2, 2, 2])
    pips = np.array([5, 0, 5, 2])
    # only the first: the classifier sure at its level and the pips agreeing on 5 against the label
    assert evidence_labels(labels, probs, pips, 0.9).tolist() == [5, 2, 2, 2]
    cocked = np.array([7, 0, 2, 2])  # a cocked die and a patch of felt keep their labels, whatever is read
    assert evidence_labels(cocked, probs, np.array([5, 5, 5, 2]), 0.9).tolist() == [7, 0, 2, 2]


def test_a_held_out_label_nobody_checked_counts_only_where_both_readers_name_it() -> None:
    def sample(face: int, checked: bool) -> DieSample:
        return DieSample(np.zeros((20, 20, 3), np.uint8), Box(0, 0, 20, 20), face, "x.jpg", checked=checked)

    held = [sample(2, True), sample(2, False), sample(2, False), sample(2, False), sample(2, False)]
    held.append(sample(UNREADABLE, False))  # a patch of felt is no one's answer: it always counts
    probs = np.array([row(5, 0.6), row(2, 0.99), row(2, 0.99), row(2, 0.7), row(4, 0.99), row(0, 0.9)])
    pips = np.array([0, 2, 0, 2, 4, 0])
    # checked; sure and counted alike; pips not counted; classifier unsure; both name another face; felt
    assert counted(held, probs, pips, 0.9).tolist() == [True, True, False, False, False, True]


def test_which_labels_were_checked_is_read_beside_them(tmp_path: Path) -> None:
    assert checked_flags(tmp_path, None, "a", 3) == [True, True, True]  # no marks: labelled by hand
    (tmp_path / CHECKED / "teach").mkdir(parents=True)
    (tmp_path / CHECKED / "teach" / "a.txt").write_text("1\n0\n1\n")
    assert checked_flags(tmp_path, "teach", "a", 3) == [True, False, True]
    assert checked_flags(tmp_path, "teach", "a", 2) == [False, False]  # marks that do not match: none is checked


def test_held_out_photos_whose_dice_nobody_checked_cannot_prove_an_adaptation(tmp_path: Path, source: Path) -> None:
    # blue dice with red pips: the stock classifier is never sure of them, so no unchecked die counts
    folder = dice_folder(tmp_path / "mesa", 60, schemes=("azul_rojo", "azul_rojo"))
    (folder / CHECKED).mkdir()
    for label in (folder / "labels").glob("*.txt"):
        (folder / CHECKED / label.name).write_text("0\n0\n")
    with pytest.raises(AdaptError, match="tienen 0 dados comprobados"):
        adapt(folder, tmp_path / "adaptado", source, holdout=0.4, epochs=1)
    assert not (tmp_path / "adaptado").exists()


@pytest.mark.parametrize(
    ("faces", "photos", "message"),
    [
        ((1, 2, 3, 5, 6), 40, "ningún dado muestra la cara 4"),
        ((1, 2, 3, 4, 5, 6), MIN_DICE // 2 - 5, f"hacen falta al menos {MIN_DICE}"),
    ],
)
def test_a_folder_that_cannot_teach_is_refused_and_nothing_is_written(
    tmp_path: Path, source: Path, faces: tuple[int, ...], photos: int, message: str
) -> None:
    folder = dice_folder(tmp_path / "mesa", photos, faces)
    with pytest.raises(AdaptError, match=message):
        adapt(folder, tmp_path / "adaptado", source, minutes=0.01)
    assert not (tmp_path / "adaptado").exists()


def test_a_folder_without_labels_or_images_and_a_bad_source_are_clear_errors(tmp_path: Path, source: Path) -> None:
    (tmp_path / "vacia" / "images").mkdir(parents=True)
    with pytest.raises(AdaptError, match="no hay fotos con etiquetas"):
        adapt(tmp_path / "vacia", tmp_path / "out", source)
    (tmp_path / "suelta").mkdir()
    with pytest.raises(AdaptError, match="no es una carpeta YOLO"):
        adapt(tmp_path / "suelta", tmp_path / "out", source)
    folder = dice_folder(tmp_path / "mesa", 40)
    with pytest.raises(AdaptError, match="no es una carpeta de modelos"):
        adapt(folder, tmp_path / "out", tmp_path / "suelta")
    with pytest.raises(AdaptError, match="elija otra"):
        adapt(folder, source, source)


def test_adapt_writes_a_whole_models_folder_the_reader_loads(tmp_path: Path, source: Path) -> None:
    # blue dice with red pips: the stock classifier is never sure of them, so the adapted one cannot read worse;
    # counted in epochs, the result is the same on any machine
    folder = dice_folder(tmp_path / "mesa", 60, schemes=("azul_rojo", "azul_rojo"))
    out = tmp_path / "adaptado"
    shares: list[float] = []
    result = adapt(folder, out, source, holdout=0.4, epochs=2, progress=shares.append)
    assert result.held_out_dice >= 20 and result.fit_dice + result.held_out_dice == 120
    assert result.faces == {face: 20 for face in range(1, 7)}
    assert shares == sorted(shares) and shares[-1] == 1.0 and result.epochs == 2
    assert result.before.load == result.before.dice and result.after.wrong == 0
    assert result.written and result.after.load <= result.before.load
    assert (out / "dice" / "finder.pt").read_bytes() == b"finder"
    assert not (out / "faces" / "candidates.json").exists()  # calibrated for the stock classifier, not this one
    loaded = FaceClassifier(out / "faces")
    assert loaded.threshold == result.threshold and loaded.alone_threshold == result.alone_threshold
    metrics = json.loads((out / "faces" / "metrics.json").read_text())["adapt"]
    assert metrics["after"]["load"] == result.after.load and metrics["folder"] == str(folder)
    assert json.loads((out / "ADAPTED.json").read_text())["from"] == str(source)


def test_a_model_that_reads_the_held_out_dice_worse_is_not_written(
    tmp_path: Path, source: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def spoil(self: adapt_module._Model, *args: object) -> int:
        import torch

        with torch.no_grad():
            for parameter in self.net.parameters():
                parameter.zero_()
        return 1

    monkeypatch.setattr(adapt_module._Model, "fine_tune", spoil)
    folder = dice_folder(tmp_path / "mesa", 60)
    out = tmp_path / "adaptado"
    code = cli_main(["vision", "adapt", str(folder), "--out", str(out), "--from", str(source), "--minutes", "0.01"])
    captured = capsys.readouterr()
    assert code != 0 and "lee peor los dados apartados" in captured.err and "no se escribe" in captured.err
    assert "antes:" in captured.out and "ahora:" in captured.out
    assert not out.exists()


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--holdout", "0.95"], "--holdout 0.95"),
        (["--minutes", "0"], "--minutes 0"),
        (["--epochs", "0"], "--epochs 0: debe estar entre 1 y 1000"),
    ],
)
def test_adapt_options_out_of_range_are_clear_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], extra: list[str], message: str
) -> None:
    assert cli_main(["vision", "adapt", str(tmp_path), "--out", str(tmp_path / "o"), *extra]) != 0
    assert message in capsys.readouterr().err


def test_a_budget_in_crops_takes_the_same_steps_whatever_the_number_of_dice(tmp_path: Path, source: Path) -> None:
    """`crops` counts augmented crops taught (32 a step): 100 crops are 4 steps with 40 dice or with 120."""
    from vision.faces.crops import load_samples

    model = adapt_module._Model(source / "faces")
    for photos in (20, 60):
        samples = load_samples(dice_folder(tmp_path / f"mesa{photos}", photos), None, turn=model.turned)
        shares: list[float] = []
        assert model.fine_tune(samples, 999.0, 0, shares.append, crops=100) == 1
        assert len(shares) == 4 and shares[-1] == 1.0
