"""Two independent readings of every face (CNN and pip count, or a second CNN where the pips are not counted) and
the rule that accepts or flags a die."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Protocol

from vision.faces.classifier import MODEL_DIR, FaceClassifier, second_classifier
from vision.faces.pips import MIN_TOP_SQUASH, PipCounter, TopShares
from vision.reasons import Reason, ReasonCode
from vision.types import FaceGuess, FaceReader, FaceVerdict, Frame

PAIR_METHOD = "cnn+pips"
NOT_COUNTED = "pips:no-contado"  # the method of a pip guess not taken: the model's doubt already flags the die
SECOND_METHOD = "cnn2"  # the second classifier's guesses (models/faces2)


class PipReader(Protocol):
    """Reads the face up of dice from their crops by counting pips; `tops`: where each top face is, when known."""

    def read_faces(self, crops: Sequence[Frame], tops: TopShares | None = None) -> list[FaceGuess]:
        """One guess per crop."""
        ...


def combine(
    model: FaceGuess,
    pips: FaceGuess,
    threshold: float,
    alone: float | None = None,
    second: FaceGuess | None = None,
    second_level: float | None = None,
) -> FaceVerdict:
    """Accept the classifier's face only when it is confident and a second reading agrees: the pip count, or, where
    the pips could not be counted, the second classifier at `second_level` or over (a model made differently,
    calibrated apart: vision.faces.second); otherwise flag it. The face: the classifier's; the pip count's when
    the classifier abstains; None if neither names one. `alone`: the level from which a model adapted to the
    table's own dice is trusted where the pips could not be counted (chosen on held-out dice of that table:
    vision.faces.adapt); None, the stock rule."""
    reasons = []
    if model.face is None:
        reasons.append(Reason(ReasonCode.NO_FACE))
    elif model.confidence < threshold:
        reasons.append(Reason(ReasonCode.MODEL_DOUBTS, confidence=model.confidence, threshold=threshold))
    sure_alone = alone is not None and model.face is not None and model.confidence >= alone
    if (
        pips.face is None
        and pips.method != NOT_COUNTED
        and not sure_alone
        and not confirms(model, second, threshold, second_level)
    ):
        reasons.append(Reason(ReasonCode.NOT_COUNTED))
    if model.face is not None and pips.face is not None and model.face != pips.face:
        reasons.append(Reason(ReasonCode.READERS_DISAGREE, model=model.face, pips=pips.face))
    face = model.face if model.face is not None else pips.face
    confidence = model.confidence if model.face is not None else 0.0
    guesses = (model, pips) if second is None else (model, pips, second)
    return FaceVerdict(face, confidence, tuple(reasons), guesses)


def confirms(model: FaceGuess, second: FaceGuess | None, threshold: float, second_level: float | None) -> bool:
    """Whether the second classifier confirms a sure classifier's face: the same face, at its level or over, and
    that face's pips found on the die (placed, not counted), so that the checks for a cocked die can look at them:
    where the pip counter gave no count, both classifiers read a cocked die seen face-on as the face it shows
    (docs/experiments/2026-11-27-a-second-classifier-where-the-pips-are-not-counted.md)."""
    return (
        second is not None
        and second.centre is not None
        and second.squash is not None
        and second.squash >= MIN_TOP_SQUASH
        and second_level is not None
        and model.face is not None
        and model.confidence >= threshold
        and second.face == model.face
        and second.confidence >= second_level
    )


def placed_faces(counter: PipCounter, crops: Sequence[Frame], faces: Sequence[int]) -> list[int]:
    """Each face (0: none) kept only where its pips are found on the crop, as the second classifier's
    confirmation needs (FaceReaderPair.second_reading): for measuring on crops, without the reader."""
    return [f if f and counter.layout(crop, f) is not None else 0 for crop, f in zip(crops, faces, strict=True)]


class FaceReaderPair:
    """Reads each crop twice, with the CNN classifier and with the pip counter, and combines the two; a second
    classifier, when given, reads the dice the classifier is sure of and the pips could not count."""

    def __init__(
        self,
        classifier: FaceReader | None = None,
        pips: PipReader | None = None,
        threshold: float | None = None,
        model_dir: Path = MODEL_DIR,
        count_doubtful: bool = True,
        second: FaceReader | None = None,
        second_level: float | None = None,
    ) -> None:
        """Both readers (the committed model, with the committed second classifier, and a default pip counter
        unless given) and the model's threshold; `count_doubtful=False` counts pips only where the model is sure
        (elsewhere the die is flagged anyway); `second_level`: the second classifier's, else its own."""
        if classifier is None:
            loaded = FaceClassifier(model_dir)
            classifier = loaded
            threshold = loaded.threshold if threshold is None else threshold
            second = second_classifier(model_dir) if second is None else second
        self.classifier = classifier
        self.pips = pips if pips is not None else PipCounter()
        self.threshold = threshold if threshold is not None else getattr(classifier, "threshold", 0.9)
        self.count_doubtful = count_doubtful
        self.alone = getattr(classifier, "alone_threshold", None)
        self.second = second
        self.second_level = second_level if second_level is not None else getattr(second, "confirm_threshold", None)

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

    def second_reading(
        self, crops: Sequence[Frame], seen: Sequence[Frame], read: Sequence[tuple[FaceGuess, FaceGuess]]
    ) -> list[FaceGuess | None]:
        """The second classifier's guess where it could confirm a die (the classifier sure, the pips not counted
        there), None elsewhere and everywhere without a second classifier; where it names the classifier's face,
        with that face's pips placed on the crop (PipCounter.layout), for the reader's lean and tilt checks.
        `seen`: the crops as the second classifier reads them."""
        out: list[FaceGuess | None] = [None] * len(read)
        if self.second is None or self.second_level is None:
            return out
        wanted = [
            i
            for i, (m, p) in enumerate(read)
            if m.face is not None and m.confidence >= self.threshold and p.face is None and p.method != NOT_COUNTED
        ]
        guesses = self.second.read_faces([seen[i] for i in wanted]) if wanted else []
        place = getattr(self.pips, "layout", None)
        for i, g in zip(wanted, guesses, strict=True):
            placed = place(crops[i], g.face) if place is not None and g.face == read[i][0].face else None
            centre, squash = (placed.centre, placed.squash) if placed is not None else (None, None)
            out[i] = FaceGuess(g.face, g.confidence, SECOND_METHOD, centre, squash)
        return out

    def verdicts(
        self,
        crops: Sequence[Frame],
        model: Sequence[FaceGuess] | None = None,
        tops: TopShares | None = None,
        seen: Sequence[Frame] | None = None,
    ) -> list[FaceVerdict]:
        """The combined verdict for each crop (`model`: the classifier's guesses, when already made; `tops`:
        where each top face is in its crop, when the frame was taken from above; `seen`: the crops as the second
        classifier reads them, when not as cut)."""
        read = self.read_all(crops, model, tops)
        second = self.second_reading(crops, crops if seen is None else seen, read)
        return [
            combine(m, p, self.threshold, self.alone, s, self.second_level)
            for (m, p), s in zip(read, second, strict=True)
        ]

    def read_faces(self, crops: Sequence[Frame]) -> list[FaceGuess]:
        """One combined guess per crop: the face when both readings agree and are sure, else None."""
        out = []
        for verdict in self.verdicts(crops):
            face = None if verdict.uncertain else verdict.face
            out.append(FaceGuess(face, verdict.confidence, PAIR_METHOD))
        return out
