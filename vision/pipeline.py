"""Assembling the reader from the committed models: the finder and the two face readings."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from vision.reader import DiceReader, FaceVerdict, ReaderSettings
from vision.types import Frame

MODELS = Path(__file__).resolve().parent.parent / "models"


class ModelsMissing(FileNotFoundError):
    """The trained weights are not where the reader looks for them."""


class PairedFaces:
    """The CNN classifier and the pip counter read every crop; a die is sure only when both agree."""

    def __init__(self, model_dir: Path) -> None:
        from vision.faces.classifier import FaceClassifier
        from vision.faces.pips import PipCounter

        self.classifier = FaceClassifier(model_dir)
        self.pips = PipCounter()

    def read_dice(self, crops: Sequence[Frame]) -> list[FaceVerdict]:
        """One verdict per crop (the face is always 1-6; an unreadable one is uncertain)."""
        from vision.faces.classifier import guess_from_probabilities
        from vision.faces.reader import combine

        if not crops:
            return []
        probabilities = self.classifier.probabilities(crops)
        pip_guesses = self.pips.read_faces(crops)
        verdicts = []
        for probs, pips in zip(probabilities, pip_guesses, strict=True):
            joint = combine(guess_from_probabilities(probs), pips, self.classifier.threshold)
            # Nothing readable: report the model's likeliest face, and let the coordinator decide.
            face = joint.face if joint.face is not None else int(np.argmax(probs[1:7])) + 1
            verdicts.append(FaceVerdict(face, joint.confidence, joint.reasons, joint.guesses))
        return verdicts


def build_reader(models: Path | None = None, settings: ReaderSettings | None = None) -> DiceReader:
    """The reader with the committed finder (models/dice) and face classifier (models/faces)."""
    from vision.finder import YoloFinder

    root = models or MODELS
    finder = root / "dice" / "finder.pt"
    faces = root / "faces"
    missing = [str(p) for p in (finder, faces / "face_cnn.onnx") if not p.exists()]
    if missing:
        raise ModelsMissing(f"faltan los modelos entrenados: {', '.join(missing)}")
    return DiceReader(YoloFinder(finder), PairedFaces(faces), settings)
