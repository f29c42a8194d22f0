"""Assembling the reader from the committed models: the finder and the two face readings."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from vision.faces.classifier import COCKED, NO_DIE, guess_from_probabilities, likeliest_face
from vision.faces.pips import TopShares
from vision.reader import DiceReader, ReaderSettings
from vision.reasons import Reason, ReasonCode
from vision.types import FaceVerdict, Frame

MODELS = Path(__file__).resolve().parent.parent / "models"


class ModelsMissing(FileNotFoundError):
    """The trained weights are not where the reader looks for them."""


class PairedFaces:
    """The face readers' pair (CNN and pip counter) as the reader needs it: every face 1-6, a doubtful one flagged."""

    def __init__(self, model_dir: Path, processes: bool = False) -> None:
        """The committed models of `model_dir`; `processes`: count pips on worker processes (see PipCounter)."""
        from vision.faces.classifier import FaceClassifier
        from vision.faces.pips import PipCounter
        from vision.faces.reader import FaceReaderPair

        self.classifier = FaceClassifier(model_dir)
        pips = PipCounter(processes=processes)
        # pips are counted only where the model is sure: a count cannot make a doubtful die safe, which is flagged
        # either way, and the counter's time goes to the dice it can confirm
        self.pair = FaceReaderPair(self.classifier, pips, threshold=self.classifier.threshold, count_doubtful=False)

    @property
    def candidate_level(self) -> float | None:
        """The classifier's calibrated level for a doubtful die's candidate faces (vision.candidates)."""
        return self.classifier.candidate_level

    @property
    def wants_turned(self) -> bool:
        """Whether the classifier reads dice turned outward-up (DiceReader then cuts them so)."""
        return self.classifier.turned

    def read_dice(
        self,
        crops: Sequence[Frame],
        turned: Sequence[Frame] | None = None,
        tops: TopShares | None = None,
    ) -> list[FaceVerdict]:
        """One verdict per crop; where neither reader can name a face, the model's likeliest one, uncertain; a
        crop the model is sure holds no die (its calibrated `absent_threshold`) is marked absent. `turned`: the
        crops turned outward-up, for a classifier trained so (the pip counter reads the crops as they are);
        `tops`: where each top face is in its crop, for the pip counter."""
        # the classifier runs once: its guesses for the pair, its probabilities for a face no reader names
        seen = turned if turned is not None and self.classifier.turned else crops
        probabilities = self.classifier.probabilities(seen)
        verdicts = self.pair.verdicts(crops, [guess_from_probabilities(row) for row in probabilities], tops)
        # both thresholds are None for a model with no cocked class: it never drops a die nor flags one so
        absent, leaning = self.classifier.absent_threshold, self.classifier.cocked_threshold
        return [
            FaceVerdict(
                v.face if v.face is not None else int(likeliest_face(row)),
                v.confidence,
                (v.reasons + _cocked_reason(float(row[COCKED]), leaning)) if leaning is not None else v.reasons,
                v.guesses,
                absent is not None and float(row[NO_DIE]) >= absent,
            )
            for v, row in zip(verdicts, probabilities, strict=True)
        ]


def _cocked_reason(p: float, leaning: float) -> tuple[str, ...]:
    """Why the model thinks the die may be cocked (p(cocked) at its calibrated threshold or over), or nothing."""
    return (Reason(ReasonCode.MAYBE_COCKED, p=p, threshold=leaning),) if p >= leaning else ()


def build_reader(
    models: Path | None = None, settings: ReaderSettings | None = None, processes: bool = False
) -> DiceReader:
    """The reader with the committed finder (models/dice) and face classifier (models/faces); `processes`
    counts pips on worker processes, for programs with a guarded entry point (the commands, the kiosk)."""
    from vision.finder import YoloFinder

    root = models or MODELS
    # the ONNX export where there is one: read with ONNX Runtime alone (no torch); else the weights, through ultralytics
    finder = root / "dice" / "finder.onnx"
    if not finder.exists() and (root / "dice" / "finder.pt").exists():
        finder = root / "dice" / "finder.pt"
    faces = root / "faces"
    missing = [str(p) for p in (finder, faces / "face_cnn.onnx") if not p.exists()]
    if missing:
        raise ModelsMissing(f"faltan los modelos entrenados: {', '.join(missing)}")
    settings = settings or ReaderSettings()
    return DiceReader(YoloFinder(finder, confidence=settings.finder_floor), PairedFaces(faces, processes), settings)
