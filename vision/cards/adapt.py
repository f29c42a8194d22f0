"""Teach the card reader a table's own deck: fine-tune a card models folder's two index classifiers on a labelled
folder of that deck's corner indices.

    cacho cards adapt DIR --out MODELS [--from MODELS] [--split SUB] [--holdout 0.3] [--minutes 6]

MODELS are models folders as `--models` takes them (the card reader's in cards/); the whole folder is written, the
starting one's with the two adapted classifiers.

DIR is a YOLO folder (images/, labels/, one box per corner index, class = the card's place in the 52 codes, as
`python -m vision.cards.dataset` writes them). Its photos are split in two: the classifiers are fine-tuned on one
part and compared, on the other (held out), with the ones they started from. A corner counts as read when the first
classifier names it at the reader's `pair` level or more and the second names it the same; a folder whose held-out
corners the adapted pair reads wrong more often, or leaves to the coordinator more often, is not written.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import numpy.typing as npt

from vision.cards.index_classifier import (
    SECOND_NAME,
    WEIGHTS_NAME,
    IndexClassifier,
    fit,
    photo_crops,
    save,
)
from vision.cards.reader import CardSettings
from vision.faces.classifier import fit_temperature
from vision.staging import write_copy
from vision.types import Frame

MIN_INDICES = 60  # fewer labelled corners than this teach nothing that can be checked
MIN_HELD_OUT = 20  # the held-out corners the adapted classifiers are judged on
PAIR = CardSettings().pair  # the reader's level for a corner that counts
FIRST_SHARE = 0.55  # of the minutes, the first classifier's (the larger network)
LEARNING_RATE = 5e-4  # as the classifiers were taught the real whole-card corners
REQUIRED = ("finder.pt", WEIGHTS_NAME, SECOND_NAME)
CARDS = "cards"  # the card reader's part of a models folder


class AdaptError(ValueError):
    """A folder or models folder that cannot be adapted from, said in Spanish."""


@dataclass(frozen=True)
class HeldOut:
    """How a pair of classifiers reads the held-out corners: read right and sure, read wrong and sure, the rest."""

    corners: int
    right: int
    wrong: int

    @property
    def load(self) -> int:
        """The corners not read right and sure (the coordinator's)."""
        return self.corners - self.right


@dataclass(frozen=True)
class Adapted:
    """What adapting did: the corners learnt from and held out, the cards they show, before and after, and whether
    it was written."""

    out: Path
    learnt: int
    held_out: int
    cards: int
    before: HeldOut
    after: HeldOut
    seconds: float
    written: bool

    def to_dict(self) -> dict[str, Any]:
        """The report as JSON-ready data."""
        before, after = asdict(self.before), asdict(self.after)
        return {
            "out": str(self.out),
            "learnt": self.learnt,
            "held_out": self.held_out,
            "cards": self.cards,
            "before": before | {"load": self.before.load},
            "after": after | {"load": self.after.load},
            "seconds": round(self.seconds, 1),
            "written": self.written,
        }


def held_out_photo(stem: str, holdout: float) -> bool:
    """Whether a photo is held out: a stable hash of its name, so that its corners all fall on one side."""
    digest = hashlib.sha256(stem.encode()).digest()
    return int.from_bytes(digest[:4], "big") / 2**32 < holdout


def read_pair(first: npt.NDArray[np.float32], second: npt.NDArray[np.float32], labels: npt.NDArray[np.intp]) -> HeldOut:
    """The held-out corners as the reader's rule reads them: the first at `pair` or more, the second agreeing."""
    named, other = first.argmax(1), second.argmax(1)
    sure = (first.max(1) >= PAIR) & (named == other)
    return HeldOut(len(labels), int((sure & (named == labels)).sum()), int((sure & (named != labels)).sum()))


def split_crops(
    found: Sequence[tuple[str, Frame, int]], holdout: float
) -> tuple[list[Frame], npt.NDArray[np.intp], list[Frame], npt.NDArray[np.intp]]:
    """The crops to learn from and the held-out ones, with their classes, by photo."""
    fit_crops, fit_labels, held_crops, held_labels = [], [], [], []
    for stem, crop, label in found:
        if held_out_photo(stem, holdout):
            held_crops.append(crop)
            held_labels.append(label)
        else:
            fit_crops.append(crop)
            fit_labels.append(label)
    return fit_crops, np.asarray(fit_labels, np.intp), held_crops, np.asarray(held_labels, np.intp)


def adapt(
    folder: Path,
    out: Path,
    source: Path,
    *,
    split: str = "",
    holdout: float = 0.3,
    minutes: float = 6.0,
    seed: int = 0,
    command: str = "",
    progress: Callable[[str], None] = lambda line: None,
) -> Adapted:
    """Fine-tune the two index classifiers of `source` (a models folder: cards/) on `folder`'s corners and write the
    whole models folder to `out`, unless the adapted pair reads the held-out corners worse than `source`'s."""
    import torch

    started = time.perf_counter()
    cards = source / CARDS
    missing = [f"{CARDS}/{name}" for name in REQUIRED if not (cards / name).is_file()]
    if missing:
        raise AdaptError(f"{source}: no es una carpeta de modelos con el lector de cartas (falta {', '.join(missing)})")
    if out.resolve() == source.resolve():
        raise AdaptError(f"--out {out}: es la carpeta de la que se parte; elija otra")
    if not (folder / "labels" / split).is_dir() or not (folder / "images" / split).is_dir():
        raise AdaptError(f"{folder}: no es una carpeta YOLO (faltan images/{split} o labels/{split})")
    first, second = IndexClassifier(cards / WEIGHTS_NAME), IndexClassifier(cards / SECOND_NAME)
    found = photo_crops(folder, split, max(first.size, second.size))
    if len(found) < MIN_INDICES:
        raise AdaptError(f"{folder}: {len(found)} esquinas etiquetadas; hacen falta al menos {MIN_INDICES}")
    fit_crops, fit_labels, held_crops, held_labels = split_crops(found, holdout)
    if len(held_crops) < MIN_HELD_OUT or not fit_crops:
        raise AdaptError(
            f"las fotos apartadas para comprobar tienen {len(held_crops)} esquinas (hacen falta {MIN_HELD_OUT}) o "
            "no queda ninguna para aprender: dé más fotos"
        )
    progress(f"{len(fit_crops)} esquinas para aprender, {len(held_crops)} apartadas para comprobar")
    before = read_pair(first.probabilities(held_crops), second.probabilities(held_crops), held_labels)
    rng = np.random.default_rng(seed)
    torch.manual_seed(seed)
    budget = max(2.0, minutes * 60 - (time.perf_counter() - started))
    for classifier, share, name in ((first, FIRST_SHARE, "primera"), (second, 1 - FIRST_SHARE, "segunda")):
        options = SimpleNamespace(
            batch=min(64, len(fit_crops)),
            covered=0.3,
            size=classifier.size,
            gray=0.0,
            invert=0.0,
            device="cpu",
            workers=0,
        )

        def report(entry: dict[str, Any], name: str = name) -> None:
            progress(f"{name} lectura: época {entry['epoch']}, pérdida {entry['loss']:.3f}")

        fit(classifier.model, fit_crops, fit_labels, budget * share, LEARNING_RATE, rng, options, report)
        classifier.model.eval()
        # the probabilities must say how often it is right: the temperature is fitted again on the held-out corners
        classifier.temperature = 1.0
        logits = np.log(np.clip(classifier.probabilities(held_crops), 1e-12, None))
        classifier.temperature = fit_temperature(logits, held_labels)
    after = read_pair(first.probabilities(held_crops), second.probabilities(held_crops), held_labels)
    written = after.wrong <= before.wrong and after.load <= before.load
    codes = len({label for _, _, label in found})
    result = Adapted(out, len(fit_crops), len(held_crops), codes, before, after, time.perf_counter() - started, written)
    if written:
        _write(source, out, (first, second), result, folder, command)
    return result


def _write(
    source: Path,
    out: Path,
    classifiers: tuple[IndexClassifier, IndexClassifier],
    result: Adapted,
    folder: Path,
    command: str,
) -> None:
    """The whole models folder: `source`'s, with the adapted classifiers; replaced at once."""

    def change(staging: Path) -> None:
        for classifier, name in zip(classifiers, (WEIGHTS_NAME, SECOND_NAME), strict=True):
            weights = staging / CARDS / name
            save(classifier.model, weights, classifier.temperature, classifier.size, classifier.arch)
            # the ONNX the reader reads (the source's, copied, was of the weights before)
            IndexClassifier(weights).export(weights.with_suffix(".onnx"))
        report = {**result.to_dict(), "from": str(source), "folder": str(folder), "command": command}
        (staging / CARDS / "ADAPTED.json").write_text(json.dumps(report, ensure_ascii=False, indent=1) + "\n")

    write_copy(source, out, change)
