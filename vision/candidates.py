"""The faces a die may show: one where the reader is sure, a calibrated set where only its face readers doubt it.

The set is split conformal prediction: on real labelled dice the reader would doubt (the classifier under its level,
or the pip count not agreeing), the classifier's probability of the true face is ranked, and the level is the k-th
lowest, k = floor(alpha (n + 1)). Every face the classifier gives at least that level is a candidate; then, for a
new die exchangeable with the calibration dice, the true face lies outside its set at most alpha of the time
(Vovk et al., "Algorithmic learning in a random world"; Angelopoulos and Bates, "A gentle introduction to conformal
prediction", 2021). With fewer than 1 / alpha - 1 such dice there is no level: every face is a candidate.
A die flagged for anything but its face (cocked, cut, too big, a doubtful box, the frames of a still disagreeing) is
any face: the set says nothing of those.

    python -m vision.candidates [--models M] [--data ROOT] [--alpha 0.001] [--write] [--json]
"""

from __future__ import annotations

import argparse
import json
import math
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import numpy.typing as npt

from vision.reasons import ReasonCode

if TYPE_CHECKING:
    from vision.types import DieReading

FACES = (1, 2, 3, 4, 5, 6)
NAME = "candidates.json"  # in a models folder's faces/: the level and what it was measured on
ALPHA = 0.001  # the true face outside a doubtful die's set at most 1 time in 1,000
# a die flagged only for these reasons is doubted for its face alone: its set comes from the classifier
FACE_DOUBTS = frozenset({ReasonCode.MODEL_DOUBTS, ReasonCode.NOT_COUNTED, ReasonCode.READERS_DISAGREE})


@dataclass(frozen=True, slots=True)
class Calibration:
    """A conformal level and its evidence: the doubtful real dice it was chosen on, and how its sets did there."""

    level: float | None  # None: too few dice for `alpha`, every face is a candidate
    alpha: float
    dice: int
    mean_size: float
    missed: int

    def to_dict(self) -> dict[str, object]:
        """JSON form."""
        return asdict(self)


def conformal_level(true_probs: Sequence[float] | npt.NDArray[np.floating], alpha: float = ALPHA) -> float | None:
    """The k-th lowest probability of the true face, k = floor(alpha (n + 1)); None when k is 0 (too few dice)."""
    ranked = np.sort(np.asarray(true_probs, np.float64))
    k = math.floor(alpha * (len(ranked) + 1))
    return float(ranked[k - 1]) if k >= 1 else None


def face_set(faces: Sequence[float], level: float | None, named: Sequence[int | None] = ()) -> tuple[int, ...]:
    """The faces whose probability is at least `level` (None: every face), with the faces the readers named."""
    if level is None or len(faces) != len(FACES):
        return FACES
    chosen = {f for f, p in zip(FACES, faces, strict=True) if p >= level} | {f for f in named if f in FACES}
    return tuple(sorted(chosen)) if chosen else FACES


def candidate_faces(die: DieReading) -> tuple[int, ...]:
    """The faces the die may show (see the module's docstring)."""
    if not die.uncertain:
        return (die.face,)
    if any(getattr(r, "code", None) not in FACE_DOUBTS for r in die.reasons):
        return FACES
    model = next((g for g in die.guesses if g.faces), None)
    if model is None:
        return FACES
    return face_set(model.faces, die.level, [die.face, *(g.face for g in die.guesses)])


def load_level(faces_dir: Path) -> float | None:
    """The level written beside a face classifier (None: none written, or too few dice for one)."""
    path = faces_dir / NAME
    if not path.is_file():
        return None
    level = json.loads(path.read_text(encoding="utf-8")).get("level")
    return None if level is None else float(level)


def calibrate(probs: npt.NDArray[np.floating], labels: npt.NDArray[np.integer], alpha: float = ALPHA) -> Calibration:
    """The level on doubtful dice (`probs`: N x 6 face probabilities, `labels`: faces 1-6), and its sets there."""
    true = probs[np.arange(len(labels)), labels - 1]
    level = conformal_level(true, alpha)
    sizes = [len(face_set(row, level)) for row in probs]
    missed = int(sum(level is not None and t < level for t in true))
    return Calibration(level, alpha, len(labels), float(np.mean(sizes)) if sizes else 6.0, missed)


def doubtful_dice(models: Path, data: Path, part: str = "val") -> tuple[npt.NDArray[np.float64], npt.NDArray[np.intp]]:
    """The face probabilities and true faces of every labelled die of the real sets' `part` that the stock rule
    would doubt for its face: the classifier under its level, or the pip count not naming its face."""
    from vision.faces.classifier import FaceClassifier
    from vision.faces.pips import PipCounter
    from vision.faces.realsets import eval_crops, real_sets

    classifier = FaceClassifier(models / "faces")
    counter = PipCounter()
    rows: list[npt.NDArray[np.float64]] = []
    labels: list[int] = []
    for rs in real_sets(data):
        crops = list(eval_crops(rs, data, part, turned=classifier.turned))
        if not crops:
            continue
        probs = classifier.probabilities([seen for _, seen, _, _ in crops])
        pips = counter.read_faces([crop for crop, _, _, _ in crops])
        for row, pip, (_, _, face, _) in zip(probs, pips, crops, strict=True):
            faces = np.asarray(row[1:7], np.float64)
            best = int(faces.argmax()) + 1
            if faces[best - 1] < classifier.threshold or pip.face != best:
                rows.append(faces)
                labels.append(face)
    return np.asarray(rows, np.float64).reshape(-1, 6), np.asarray(labels, np.intp)


def build_parser() -> argparse.ArgumentParser:
    """The command line."""
    from vision.faces.realsets import DATA_ROOT
    from vision.pipeline import MODELS

    p = argparse.ArgumentParser(prog="python -m vision.candidates", description=__doc__.split("\n\n")[0])
    p.add_argument("--models", type=Path, default=MODELS, help="carpeta de modelos (por defecto, models/)")
    p.add_argument("--data", type=Path, default=DATA_ROOT, help="carpeta de los conjuntos reales")
    p.add_argument("--alpha", type=float, default=ALPHA, help="la parte de dados que puede quedar fuera (0.001)")
    p.add_argument("--write", action="store_true", help=f"escribe el nivel en faces/{NAME} de --models")
    p.add_argument("--json", action="store_true")
    return p


def main(argv: list[str] | None = None) -> int:
    """Calibrate on the real sets' validation dice, print the figures and, with --write, keep the level."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if not 0 < args.alpha < 0.5:
        parser.error(f"--alpha {args.alpha}: debe estar entre 0 y 0.5")
    try:
        probs, labels = doubtful_dice(args.models, args.data)
    except FileNotFoundError as error:
        parser.error(str(error))
    found = calibrate(probs, labels, args.alpha)
    figures = {**found.to_dict(), "date": date.today().isoformat(), "commit": _commit(), "command": _command(argv)}
    if args.write:
        (args.models / "faces" / NAME).write_text(json.dumps(figures, ensure_ascii=False, indent=1) + "\n")
    if args.json:
        print(json.dumps(figures, ensure_ascii=False))
    else:
        level = "ninguno: todas las caras" if found.level is None else f"{found.level:.4g}"
        print(f"{found.dice} dados dudosos; nivel {level}; {found.mean_size:.2f} caras por dado; fuera {found.missed}")
    return 0


def _commit() -> str:
    """The checkout's commit, or "" outside a git checkout."""
    done = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=False)
    return done.stdout.strip()


def _command(argv: list[str] | None) -> str:
    """The command line as typed."""
    return "python -m vision.candidates " + " ".join(argv if argv is not None else sys.argv[1:])


if __name__ == "__main__":
    sys.exit(main())
