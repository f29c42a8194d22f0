"""A die's candidate faces: one where it is sure, a conformal set where only its face readers doubt it, else any."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from vision import candidates
from vision.candidates import FACES, calibrate, candidate_faces, conformal_level, face_set, load_level
from vision.reasons import Reason, ReasonCode
from vision.types import Box, DieReading, FaceGuess

BOX = Box(0, 0, 20, 20)
SIX_OR_FIVE = (0.0, 0.0, 0.0, 0.0, 0.08, 0.92)


def die(reasons: tuple[Reason, ...], level: float | None = 0.05, faces: tuple[float, ...] = SIX_OR_FIVE) -> DieReading:
    """A six read at 92 %, with the classifier's probabilities and the pip count's guess."""
    guesses = (FaceGuess(6, max(faces, default=0.92), "cnn", faces=faces), FaceGuess(None, 0.0, "pips"))
    return DieReading(6, 0.92, BOX, bool(reasons), reasons, guesses, level=level)


def test_the_level_is_the_kth_lowest_true_probability_and_none_with_too_few_dice() -> None:
    probs = np.linspace(0.001, 1.0, 999)
    assert conformal_level(probs, 0.001) == pytest.approx(0.001)  # k = floor(0.001 * 1000) = 1
    assert conformal_level(probs[:998], 0.001) is None  # k = 0: no level can keep 1 in 1,000 out
    assert conformal_level(np.arange(1, 2000) / 2000, 0.001) == pytest.approx(2 / 2000)  # k = 2


def test_a_sure_die_has_one_face_and_a_doubted_one_its_calibrated_set() -> None:
    assert candidate_faces(die(())) == (6,)
    doubted = die((Reason(ReasonCode.NOT_COUNTED),))
    assert doubted.candidates == (5, 6) and doubted.to_dict()["candidates"] == [5, 6]
    assert die((Reason(ReasonCode.MODEL_DOUBTS, confidence=0.92, threshold=0.95),), level=0.1).candidates == (6,)


@pytest.mark.parametrize(
    "reason",
    [Reason(ReasonCode.CUT), Reason(ReasonCode.MAYBE_COCKED, p=0.6, threshold=0.5), Reason(ReasonCode.NO_FACE)],
)
def test_a_die_flagged_for_more_than_its_face_may_be_any_face(reason: Reason) -> None:
    assert die((Reason(ReasonCode.NOT_COUNTED), reason)).candidates == FACES


def test_without_a_level_or_probabilities_a_doubtful_die_may_be_any_face() -> None:
    assert die((Reason(ReasonCode.NOT_COUNTED),), level=None).candidates == FACES
    assert die((Reason(ReasonCode.NOT_COUNTED),), faces=()).candidates == FACES
    plain = DieReading(6, 0.92, BOX, True, ("no se pudieron contar los puntos",), level=0.05)  # a reason as text
    assert plain.candidates == FACES


def test_the_faces_the_readers_name_are_always_candidates() -> None:
    assert face_set((0.5, 0.5, 0, 0, 0, 0), 0.4, [6]) == (1, 2, 6)
    assert face_set((0.5, 0.5, 0, 0, 0, 0), None) == FACES


def test_calibrate_counts_the_sets_and_what_falls_outside() -> None:
    rng = np.random.default_rng(0)
    labels = rng.integers(1, 7, 2500)
    probs = np.full((2500, 6), 0.01)
    probs[np.arange(2500), labels - 1] = 0.95
    probs[:3, :] = 1 / 6  # three dice the classifier has no idea of
    found = calibrate(probs, labels, 0.001)
    assert found.dice == 2500 and found.level == pytest.approx(1 / 6)  # k = 2: the second lowest
    assert found.missed == 0 and found.mean_size == pytest.approx((3 * 6 + 2497) / 2500)


def test_the_level_is_written_beside_the_classifier_and_read_back(tmp_path: Path, monkeypatch, capsys) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "faces").mkdir()
    assert load_level(tmp_path / "faces") is None
    labels = np.arange(1200) % 6 + 1
    probs = np.full((1200, 6), 0.02)
    probs[np.arange(1200), labels - 1] = 0.9
    monkeypatch.setattr(candidates, "doubtful_dice", lambda models, data: (probs, labels))
    assert candidates.main(["--models", str(tmp_path), "--data", str(tmp_path), "--write", "--json"]) == 0
    written = json.loads((tmp_path / "faces" / candidates.NAME).read_text())
    assert written["dice"] == 1200 and written["command"].startswith("python -m vision.candidates")
    assert load_level(tmp_path / "faces") == pytest.approx(0.9)
    with pytest.raises(SystemExit) as stop:
        candidates.main(["--alpha", "0.7"])
    assert stop.value.code == 2 and "--alpha 0.7: debe estar entre 0 y 0.5" in capsys.readouterr().err


def test_the_shipped_level_widens_the_sets_of_dice_the_stock_classifier_doubts() -> None:
    """The stock classifier, calibrated on the real sets' doubtful validation dice, is not sure of a table's dice
    it never saw, and says so: its sets hold most faces (models/faces/README.md)."""
    level = load_level(Path(__file__).parents[2] / "models" / "faces")
    assert level is not None and level < 0.01
