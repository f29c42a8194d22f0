"""Two independent readings of every face (CNN and pip count) and the rule that accepts or flags a die."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

from vision.faces.classifier import MODEL_DIR, FaceClassifier
from vision.faces.pips import PipCounter, TopShares
from vision.reasons import Reason, ReasonCode
from vision.types import FaceGuess, FaceReader, FaceVerdict, Frame

PAIR_METHOD = "cnn+pips"
NOT_COUNTED = "pips:no-contado"  # the method of a pip guess not taken: the model's doubt already flags the die


class PipReader(Protocol):
    """Reads the face up of dice from their crops by counting pips; `tops`: where each top face is, when known."""

    def read_faces(self, crops: Sequence[Frame], tops: TopShares | None = None) -> list[FaceGuess]:
        """One guess per crop."""
        ...


def combine(model: FaceGuess, pips: FaceGuess, threshold: float, alone: float | None = None) -> FaceVerdict:
    """Accept the classifier's face only when it is confident and the pip count agrees; otherwise flag it. The
    face: the classifier's; the pip count's when the classifier abstains; None if neither names one. `alone`: the
    level from which a model adapted to the table's own dice is trusted where the pips could not be counted (chosen
    on held-out dice of that table: vision.faces.adapt); None, the stock rule: an uncounted die is flagged."""
    reasons = []
    if model.face is None:
        reasons.append(Reason(ReasonCode.NO_FACE))
    elif model.confidence < threshold:
        reasons.append(Reason(ReasonCode.MODEL_DOUBTS, confidence=model.confidence, threshold=threshold))
    sure_alone = alone is not None and model.face is not None and model.confidence >= alone
    if pips.face is None and pips.method != NOT_COUNTED and not sure_alone:
        reasons.append(Reason(ReasonCode.NOT_COUNTED))
    if model.face is not None and pips.face is not None and model.face != pips.face:
        reasons.append(Reason(ReasonCode.READERS_DISAGREE, model=model.face, pips=pips.face))
    face = model.face if model.face is not None else pips.face
    confidence = model.confidence if model.face is not None else 0.0
    return FaceVerdict(face, confidence, tuple(reasons), (model, pips))


class FaceReaderPair:
    """Reads each crop twice, with the CNN classifier and with the pip counter, and combines the two."""

    def __init__(
        self,
        classifier: FaceReader | None = None,
        pips: PipReader | None = None,
        threshold: float | None = None,
        model_dir: Path = MODEL_DIR,
        count_doubtful: bool = True,
    ) -> None:
        """Both readers (the committed model and a default pip counter unless given) and the model's threshold;
        `count_doubtful=False` counts pips only where the model is sure (elsewhere the die is flagged anyway)."""
        if classifier is None:
            loaded = FaceClassifier(model_dir)
            classifier = loaded
            threshold = loaded.threshold if threshold is None else threshold
        self.classifier = classifier
        self.pips = pips if pips is not None else PipCounter()
        self.threshold = threshold if threshold is not None else getattr(classifier, "threshold", 0.9)
        self.count_doubtful = count_doubtful
        self.alone = getattr(classifier, "alone_threshold", None)

    def read(self, crop: Frame) -> tuple[FaceGuess, FaceGuess]:
        """(classifier guess, pip guess) for one crop."""
        return self.read_all([crop])[0]

    def read_all(
        self,
        crops: Sequence[Frame],
        model: Sequence[FaceGuess] | None = None,
        tops: TopShares | None = None,
    ) -> list[tuple[FaceGuess, FaceGuess]]:
        """(classifier guess, pip guess) for each crop (the classifier runs on them as one batch, unless its
        guesses are given in `model`; `tops`: where each top face is, for the pip reader)."""
        if model is None:
            model = self.classifier.read_faces(crops)
        chosen: Sequence[int] = range(len(crops))
        if not self.count_doubtful:
            # a pip count cannot make a doubtful die safe: count only where the model is sure
            chosen = [i for i, g in enumerate(model) if g.face is not None and g.confidence >= self.threshold]
        mine = [crops[i] for i in chosen]
        counted = self.pips.read_faces(mine, None if tops is None else [tops[i] for i in chosen])
        pips = [FaceGuess(None, 0.0, NOT_COUNTED)] * len(crops)
        for i, guess in zip(chosen, counted, strict=True):
            pips[i] = guess
        return list(zip(model, pips, strict=True))

    def verdicts(
        self,
        crops: Sequence[Frame],
        model: Sequence[FaceGuess] | None = None,
        tops: TopShares | None = None,
    ) -> list[FaceVerdict]:
        """The combined verdict for each crop (`model`: the classifier's guesses, when already made; `tops`:
        where each top face is in its crop, when the frame was taken from above)."""
        return [combine(m, pips, self.threshold, self.alone) for m, pips in self.read_all(crops, model, tops)]

    def read_faces(self, crops: Sequence[Frame]) -> list[FaceGuess]:
        """One combined guess per crop: the face when both readings agree and are sure, else None."""
        out = []
        for verdict in self.verdicts(crops):
            face = None if verdict.uncertain else verdict.face
            out.append(FaceGuess(face, verdict.confidence, PAIR_METHOD))
        return out
