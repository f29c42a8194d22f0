"""What a table's reader has shown on the table's own dice, and the levels that evidence sets.

A die the coordinator confirms was read, before it was confirmed, by the models then in use: for those models it is
a die they were not taught (prequential evidence: A. P. Dawid, "Statistical theory: the prequential approach", 1984).
A table keeps, for the models it reads with, each such die: the classifier's face, confidence and face
probabilities, the pip count's face, and the face confirmed. adapt's held-out dice start the evidence of the models
it writes; every reading confirmed while they are in use adds to it, so the levels are set again at each confirmed
reading, by the rule adapt chooses them with (vision.faces.adapt.choose_levels: the silent errors within 1 in
1,000 of the evidence dice, a die whose pips are not counted taken on the classifier alone only where that takes
at least MIN_ALONE_SUPPORT evidence dice off the coordinator, none wrong; 0 wrong in 100 puts the error rate under
3 % at 95 % confidence, by the rule of three) and the candidate level by split conformal prediction
(vision.candidates) once the doubtful evidence dice are enough for it.

Which confirmed dice are evidence (`counts`). A die the coordinator set, confirmed or corrected is the strongest
label. On a photo the table holds out (vision.faces.train.calibration_photo: never taught to any of the table's
models), a die accepted where the classifier and the pip count agreed counts too: two readers of different kinds
named its face. A die the reader accepted on the classifier alone and the coordinator left as read never counts,
nor does a die accepted on a photo the table teaches: that would count the reader's own answer as proof of it.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from vision.candidates import FACE_DOUBTS, calibrate
from vision.candidates import NAME as CANDIDATES_NAME
from vision.faces.classifier import METHOD as MODEL_METHOD
from vision.faces.pips import METHOD as PIPS_METHOD
from vision.faces.reader import combine
from vision.reasons import ReasonCode
from vision.types import DieReading, FaceGuess, FrameReading

NAME = "evidence.jsonl"  # in a models folder's faces/ (adapt's held-out dice), or a table's own ledger
JUDGED = FACE_DOUBTS | {ReasonCode.NO_FACE}  # the reasons the face levels decide; the others stay as read
# the reasons the reader gives after the face's (vision.reader.DiceReader, vision.still)
AFTER_FACE = frozenset(
    {
        ReasonCode.MAYBE_COCKED,
        ReasonCode.FINDER_COCKED,
        ReasonCode.OFF_CENTRE,
        ReasonCode.TILTED,
        ReasonCode.FEW_FRAMES,
        ReasonCode.FRAMES_DISAGREE,
        ReasonCode.OUTSIDE,
    }
)


@dataclass(frozen=True, slots=True)
class Seen:
    """One confirmed die as the models in use read it before it was confirmed."""

    face: int  # the face confirmed, 1-6
    model: int  # the classifier's likeliest face (0: it saw no readable face)
    confidence: float  # the classifier's probability of that face
    pips: int  # the pip count's face (0: not counted)
    faces: tuple[float, ...]  # the classifier's probability of each face 1-6

    def to_dict(self) -> dict[str, object]:
        """One line of the ledger."""
        out = asdict(self)
        out["faces"] = [round(p, 5) for p in self.faces]
        out["confidence"] = round(self.confidence, 5)
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Seen:
        """From a ledger line."""
        faces = tuple(float(p) for p in data["faces"])
        return cls(int(data["face"]), int(data["model"]), float(data["confidence"]), int(data["pips"]), faces)


@dataclass(frozen=True, slots=True)
class Levels:
    """The levels a table reads with: the classifier's with the pips, alone (None: never), and the candidate level
    (None: a doubtful die may be any face), with the evidence dice they were set on."""

    threshold: float
    alone: float | None
    candidate: float | None
    dice: int = 0

    def to_dict(self) -> dict[str, object]:
        """JSON form."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Levels:
        """From its JSON form; ValueError (or KeyError, TypeError) where a level is missing or out of 0-1."""

        def level(value: Any, key: str) -> float:
            if isinstance(value, bool) or not isinstance(value, int | float) or not 0.0 <= value <= 1.0:
                raise ValueError(f"nivel {key} fuera de 0 a 1: {value!r}")
            return float(value)

        def optional(key: str) -> float | None:
            return None if data[key] is None else level(data[key], key)

        dice = data.get("dice", 0)
        if isinstance(dice, bool) or not isinstance(dice, int) or dice < 0:
            raise ValueError(f"dados de prueba inválidos: {dice!r}")
        return cls(level(data["threshold"], "threshold"), optional("alone"), optional("candidate"), dice)


def guesses(die: DieReading) -> tuple[FaceGuess | None, FaceGuess | None]:
    """The die's classifier and pip-count guesses (None where it has none)."""
    model = next((g for g in die.guesses if g.method == MODEL_METHOD), None)
    pips = next((g for g in die.guesses if g.method.startswith(PIPS_METHOD)), None)
    return model, pips


def seen(die: DieReading, face: int) -> Seen | None:
    """The die as evidence for the face `face` confirmed; None where its classifier gave no probabilities."""
    model, pips = guesses(die)
    if model is None or len(model.faces) != 6:
        return None
    return Seen(face, model.face or 0, model.confidence, (pips.face or 0) if pips else 0, tuple(model.faces))


def counts(*, checked: bool, face_only: bool, agreed: bool, held_out: bool) -> bool:
    """The rule (see the module's docstring): a die judged for more than its face (cut, cocked, too small) is outside
    the rule the levels set and never counts; a die the coordinator checked (set, confirmed or corrected) counts;
    on a held-out photo, so does a die accepted where the classifier and the pip count agreed."""
    return face_only and (checked or (held_out and agreed))


def face_only(die: DieReading) -> bool:
    """Whether the die is doubted, if at all, only for its face (the reasons the face levels decide)."""
    return all(getattr(r, "code", None) in JUDGED for r in die.reasons)


def agreed(die: DieReading) -> bool:
    """Whether the die was accepted with the classifier and the pip count naming its face."""
    _, pips = guesses(die)
    return not die.uncertain and pips is not None and pips.face == die.face


def is_evidence(die: DieReading, face: int, held_out: bool) -> bool:
    """Whether a die of a reading confirmed with its labels counts (vision.evening: the coordinator sets every
    flagged die and corrects a wrong one, so those are checked)."""
    return counts(
        checked=die.uncertain or die.face != face, face_only=face_only(die), agreed=agreed(die), held_out=held_out
    )


def as_arrays(evidence: Sequence[Seen]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(probabilities N x 7 as adapt reads them, column 0 "no readable face"; confirmed faces; pip faces)."""
    faces = np.array([s.faces for s in evidence], np.float32).reshape(-1, 6)
    none = np.clip(1.0 - faces.sum(axis=1, keepdims=True), 0.0, 1.0)
    probs = np.concatenate([none, faces], axis=1)
    return probs, np.array([s.face for s in evidence], np.intp), np.array([s.pips for s in evidence], np.intp)


def set_levels(evidence: Sequence[Seen], start: Levels) -> Levels:
    """The levels the evidence sets, from the models' own (`start`): where no pair of levels keeps the silent
    errors within the rule, the highest level and never alone; the candidate level from the evidence dice the new
    levels doubt once they are enough for it, else the models' own."""
    from vision.faces.adapt import LEVELS, allowed_errors, choose_levels

    if not evidence:
        return start
    probs, labels, pips = as_arrays(evidence)
    pair, alone = choose_levels(probs, labels, pips, allowed_errors(len(evidence)), floor=start.threshold)
    threshold = pair if pair is not None else LEVELS[-1]
    candidate = start.candidate
    conf = probs[:, 1:].max(axis=1)
    pred = probs[:, 1:].argmax(axis=1) + 1
    sure = (conf >= threshold) & (pips == pred)
    if alone is not None:
        sure |= (conf >= alone) & (pips == 0)
    doubtful = ~sure
    found = calibrate(probs[doubtful, 1:], labels[doubtful])
    if found.level is not None:
        candidate = found.level
    return Levels(threshold, alone, candidate, len(evidence))


def judged(reading: FrameReading, levels: Levels) -> FrameReading:
    """The reading with its dice's faces judged again at the table's levels: the reasons the face levels decide
    are set anew from the die's two guesses, every other reason stays."""
    dice = []
    for die in reading.dice:
        model, pips = guesses(die)
        if model is None or pips is None:
            dice.append(replace(die, level=levels.candidate))
            continue
        codes = [getattr(r, "code", None) for r in die.reasons]
        kept = [r for r, code in zip(die.reasons, codes, strict=True) if code not in JUDGED]
        # the face's reasons where the reader put them: before what it says of the die's lean and its frames
        at = next((i for i, code in enumerate(codes) if code in JUDGED or code in AFTER_FACE), len(codes))
        at -= sum(1 for code in codes[:at] if code in JUDGED)
        verdict = combine(model, pips, levels.threshold, levels.alone)
        reasons = (*kept[:at], *verdict.reasons, *kept[at:])
        dice.append(replace(die, uncertain=bool(reasons), reasons=reasons, level=levels.candidate))
    return replace(reading, dice=tuple(dice))


def models_levels(faces_dir: Path) -> Levels:
    """The levels a models folder's face classifier was written with (its metadata and candidate level); loaded
    once per written model (a confirmation asks for them each time)."""
    from vision.faces.classifier import ONNX_NAME, TORCH_NAME

    written = [faces_dir / name for name in (ONNX_NAME, TORCH_NAME, CANDIDATES_NAME)]
    stamp = tuple(p.stat().st_mtime_ns if p.exists() else 0 for p in written)
    return _own_levels(str(faces_dir.resolve()), stamp)


@functools.lru_cache(maxsize=16)
def _own_levels(faces_dir: str, stamp: tuple[int, ...]) -> Levels:
    from vision.faces.classifier import FaceClassifier

    classifier = FaceClassifier(Path(faces_dir))
    return Levels(classifier.threshold, classifier.alone_threshold, classifier.candidate_level)


class Ledger:
    """The evidence of one models folder at one table: a JSON line per die, added to as readings are confirmed."""

    def __init__(self, path: Path, seed: Path | None = None) -> None:
        """`path`: the table's ledger; `seed`: a models folder's faces/, whose held-out dice start a new ledger."""
        self.path = path
        if not path.exists():
            path.parent.mkdir(parents=True, exist_ok=True)
            start = seed / NAME if seed is not None else None
            path.write_text(start.read_text(encoding="utf-8") if start and start.is_file() else "", encoding="utf-8")

    def add(self, dice: Iterable[Seen]) -> int:
        """Append dice; how many."""
        lines = [json.dumps(s.to_dict()) + "\n" for s in dice]
        with self.path.open("a", encoding="utf-8") as out:
            out.writelines(lines)
        return len(lines)

    def read(self) -> list[Seen]:
        """Every die in the ledger, oldest first."""
        text = self.path.read_text(encoding="utf-8") if self.path.exists() else ""
        return [Seen.from_dict(json.loads(line)) for line in text.splitlines() if line.strip()]


def write_held_out(faces_dir: Path, probs: np.ndarray, labels: np.ndarray, pip_faces: np.ndarray) -> int:
    """adapt's held-out dice (probabilities N x classes, labels, pip faces) as the evidence a models folder starts
    with; the dice written (a patch with no die, or a cocked die, is not a face's evidence)."""
    rows = []
    for row, label, pip in zip(probs, labels, pip_faces, strict=True):
        if not 1 <= int(label) <= 6:
            continue
        faces = tuple(float(p) for p in row[1:7])
        best = int(np.argmax(faces)) + 1
        rows.append(Seen(int(label), best, faces[best - 1], int(pip), faces))
    (faces_dir / NAME).write_text("".join(json.dumps(s.to_dict()) + "\n" for s in rows), encoding="utf-8")
    return len(rows)


def fields(die: DieReading) -> dict[str, object] | None:
    """What a die's reading must keep to be evidence once confirmed (the kiosk keeps it in the die's entry): the
    classifier's face, confidence and probabilities, the pip count's face, and whether the die was doubted only for
    its face and accepted with both readers agreeing; None where the classifier gave no probabilities."""
    one = seen(die, die.face)
    if one is None:
        return None
    data = one.to_dict()
    del data["face"]
    return data | {"face_only": face_only(die), "agreed": agreed(die)}


def from_fields(data: dict[str, Any], face: int, checked: bool, held_out: bool) -> Seen | None:
    """A confirmed die's kept `fields` as evidence for the face `face` confirmed, or None where it does not count."""
    if not counts(checked=checked, face_only=bool(data["face_only"]), agreed=bool(data["agreed"]), held_out=held_out):
        return None
    return Seen.from_dict(data | {"face": face})


class JudgedReader:
    """A dice reader whose readings are judged at a table's levels (`judged`)."""

    def __init__(self, reader: object, levels: Levels) -> None:
        self.reader, self.levels = reader, levels

    def read(self, frame: np.ndarray) -> FrameReading:
        """Every die on the frame, at the table's levels."""
        return judged(self.reader.read(frame), self.levels)  # type: ignore[attr-defined]
