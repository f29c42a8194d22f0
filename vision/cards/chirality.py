"""Which photos of the real whole-card set are mirrored: their indices read surer turned back than as they are.

    python -m vision.cards.chirality --classifiers A.pt[,B.pt] --out models/cards/mirrored_whole.txt [--real DIR]
        [--models DIR] [--margin 3]

The set's first versions are mirrored about a third of the time, as its copies are (the labels cannot say which).
A mirrored index is no card anyone holds, so a mirrored photo teaches and tests a reading the camera never makes.
Each index the finder finds takes the code of the one card whose box can hold it (as `--corners-into` labels them);
indices of an ace or an eight look the same mirrored and are skipped. The classifiers score each index: the log of
the probability of its card as it is, less that of its mirror image, held to ±3 an index and summed over indices and
classifiers. Above `margin` the photo is as taken ("same"), below minus `margin` "mirrored", between "undecided".
The classifiers must never have been taught a mirrored photo (those of commit 854baeb learned rendered cards and
the corner-index set only).
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from vision.cards.dataset import BACK_CLASS, NAMES, real_names
from vision.cards.index_classifier import IndexClassifier, crop
from vision.cards.notation import CLASS_NAMES
from vision.cards.wholecards import REAL, corner_code, first_versions, photo_cards, source_stem
from vision.types import Frame

MARGIN = 3.0  # summed log-odds for a verdict: a photo of about ten asymmetric indices scores 10-40 either way
CAP = 3.0  # one index's say, so that a single odd crop cannot decide a photo
SYMMETRIC = ("A", "8")  # ranks whose index is its own mirror image


def score(classifiers: Sequence[IndexClassifier], crops: Sequence[Frame], codes: Sequence[str]) -> float:
    """How much surer the classifiers read each index's card as it is than mirrored, summed (log-odds)."""
    if not crops:
        return 0.0
    rows, columns = np.arange(len(codes)), [CLASS_NAMES.index(code) for code in codes]
    total = 0.0
    for classifier in classifiers:
        upright = classifier.probabilities(crops)[rows, columns]
        flipped = classifier.probabilities([np.ascontiguousarray(c[:, ::-1]) for c in crops])[rows, columns]
        total += float(np.clip(np.log(upright + 1e-4) - np.log(flipped + 1e-4), -CAP, CAP).sum())
    return total


def verdict(value: float, margin: float = MARGIN) -> str:
    """ "same", "mirrored" or "undecided" for a photo's score."""
    return "same" if value > margin else "mirrored" if value < -margin else "undecided"


def scan(
    real: Path, classifiers: Sequence[IndexClassifier], models: Path | None = None
) -> list[tuple[str, float, int]]:
    """Each first version's source stem, score and the number of indices scored."""
    from vision.cards.reader import MODELS, CardReader

    reader = CardReader(models or MODELS)
    mapping = real_names(real)
    found = []
    for name in first_versions(real):
        frame, _, cards = photo_cards(real, name, mapping)
        boxes = [(c["card"], tuple(c["visible_box"])) for c in cards]
        crops, codes = [], []
        for hit in reader.detect(frame):
            code = corner_code(hit, boxes) if hit.name != NAMES[BACK_CLASS] else None
            if code is None or code[:-1] in SYMMETRIC:
                continue
            crops.append(crop(frame, hit.box))
            codes.append(code)
        found.append((source_stem(name), score(classifiers, crops, codes), len(codes)))
    return found


def write(path: Path, found: Sequence[tuple[str, float, int]], margin: float, command: str) -> dict[str, int]:
    """The list `vision.cards.wholecards --mirrored` reads (every photo, with its verdict); verdicts counted."""
    counts = {"same": 0, "mirrored": 0, "undecided": 0}
    lines = [
        "# The first versions of ../shared/data/cards-real/whole-card, as taken or mirrored: python -m",
        "# vision.cards.wholecards turns each mirrored photo back and leaves out each undecided one.",
        f"# Written by: {command}",
        "# photo verdict score indices",
    ]
    for stem, value, indices in found:
        kind = verdict(value, margin)
        counts[kind] += 1
        lines.append(f"{stem} {kind} {value:.1f} {indices}")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n")
    return counts


def main(argv: list[str] | None = None) -> int:
    """Score every photo, write the list, say how many of each."""
    parser = argparse.ArgumentParser(prog="python -m vision.cards.chirality", description=__doc__.splitlines()[0])
    parser.add_argument("--classifiers", required=True, help="pesos de clasificadores de índices, separados por comas")
    parser.add_argument("--out", type=Path, required=True, help="la lista que escribe")
    parser.add_argument("--real", type=Path, default=REAL, help="carpeta real etiquetada por cartas enteras")
    parser.add_argument("--models", type=Path, help="modelos que buscan las esquinas (por defecto, models/cards)")
    parser.add_argument("--margin", type=float, default=MARGIN, help="puntos para decidir (3)")
    args = parser.parse_args(argv)
    if not (args.real / "class_map.txt").is_file():
        raise SystemExit(f"{args.real} no es una carpeta de cartas enteras: falta class_map.txt")
    if not math.isfinite(args.margin) or args.margin < 0:
        raise SystemExit(f"--margin debe ser 0 o más, no {args.margin}")
    paths = [Path(p) for p in args.classifiers.split(",") if p]
    missing = [str(p) for p in paths if not p.is_file()]
    if not paths or missing:
        raise SystemExit(f"no están los pesos de los clasificadores: {', '.join(missing) or args.classifiers!r}")
    classifiers = []
    for path in paths:
        try:
            classifiers.append(IndexClassifier(path))
        except Exception as error:  # torch's own errors for a file that is no set of weights, or another network's
            raise SystemExit(f"{path} no son pesos de un clasificador de índices: {error}") from None
    try:
        found = scan(args.real, classifiers, args.models)
    except ValueError as error:
        raise SystemExit(str(error)) from None
    command = "python -m vision.cards.chirality " + " ".join(argv if argv is not None else sys.argv[1:])
    print(json.dumps(write(args.out, found, args.margin, command)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
