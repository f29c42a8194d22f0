"""Teach the face reader a table's own dice: fine-tune a models folder's face classifier on a labelled folder.

    cacho vision adapt DIR --out MODELS [--from MODELS] [--split SUB] [--holdout 0.3] [--minutes 4 | --epochs N]

DIR is a YOLO folder (images/, labels/, class = face - 1, whole-die boxes). Its photos are split in two: the
classifier is fine-tuned on one part; on the other (held out) it chooses its levels for "sure" and is compared
with the model it started from. A model that reads the held-out dice worse is not written.
"""

from __future__ import annotations

import json
import math
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from vision.candidates import NAME as CANDIDATES_NAME
from vision.faces.classifier import (
    CLASS_NAMES,
    ONNX_NAME,
    TORCH_NAME,
    WIDTHS,
    build_model,
    likeliest_face,
    no_face_probability,
    preprocess,
    softmax,
)
from vision.faces.crops import UNREADABLE, DieSample, augment, load_samples, yolo_pairs
from vision.faces.realsets import capture_group
from vision.faces.train import (
    METRICS_NAME,
    class_weights,
    export_onnx,
    split_by_photo,
    training_label,
    update_metrics,
)
from vision.staging import write_copy
from vision.types import Box

MIN_DICE = 60  # fewer labelled dice than this teach nothing that can be checked
MIN_HELD_OUT = 20  # the held-out dice the levels are chosen on
MAX_ERROR = 0.001  # the calibrated rule: at most 1 silent error in 1,000 held-out dice (see allowed_errors)
UNREADABLE_SHARE = 0.16  # of the training crops, patches with no die (as the stock training)
# The level for a die whose pips are not counted: only where it takes at least this many held-out dice off the
# coordinator within the errors allowed (none of them wrong: an error rate of 3 % or more would have shown, by the
# rule of three); otherwise such a die always goes to the coordinator. At 30, on the felt trays' 100 held-out dice,
# a level chosen on 30 let 7 of 586 unseen dice through wrong (docs/experiments/2026-11-27-adapting-measured-on-
# unseen-halves.md).
MIN_ALONE_SUPPORT = 100
LEARNING_RATE = 2e-3  # the peak, reached after 5 % of the time given


class AdaptError(ValueError):
    """The folder cannot teach the reader (said in Spanish: what is wrong and what to do)."""


@dataclass(frozen=True, slots=True)
class HeldOut:
    """How a model reads the held-out dice: accepted right, accepted wrong (silent), sent to the coordinator."""

    dice: int
    right: int
    wrong: int
    flagged: int
    top1: int  # dice whose likeliest face is right, accepted or not

    @property
    def load(self) -> int:
        """Dice the coordinator must look at: flagged or wrong."""
        return self.flagged + self.wrong

    def to_dict(self) -> dict[str, int]:
        """As JSON values (the load included)."""
        return {**asdict(self), "load": self.load}


@dataclass(frozen=True, slots=True)
class Adapted:
    """What an adaptation did: the dice it learned from, the held-out reading before and after, its levels."""

    out: Path
    fit_dice: int
    held_out_dice: int
    faces: dict[int, int]
    before: HeldOut
    after: HeldOut
    threshold: float
    alone_threshold: float | None
    epochs: int
    seconds: float
    written: bool
    held_out_unchecked: int = 0  # dice of the held-out photos left out: nobody checked them and the readers differ

    def to_dict(self) -> dict[str, Any]:
        """As JSON values."""
        return {
            "out": str(self.out),
            "fit_dice": self.fit_dice,
            "held_out_dice": self.held_out_dice,
            "held_out_unchecked": self.held_out_unchecked,
            "faces": {str(k): v for k, v in sorted(self.faces.items())},
            "before": self.before.to_dict(),
            "after": self.after.to_dict(),
            "threshold": self.threshold,
            "alone_threshold": self.alone_threshold,
            "epochs": self.epochs,
            "seconds": round(self.seconds, 1),
            "written": self.written,
        }


def check_folder(folder: Path, split: str | None) -> list[tuple[Path, Path]]:
    """The folder's (image, labels) pairs, or an AdaptError that says what is missing."""
    where = folder if not split else folder / "images" / split
    if not (folder / "images").is_dir():
        raise AdaptError(f"{folder}: no es una carpeta YOLO (falta images/)")
    pairs = yolo_pairs(folder, split or None)
    if not pairs:
        raise AdaptError(f"{where}: no hay fotos con etiquetas (labels/ con un .txt por foto)")
    return pairs


def count_faces(samples: Sequence[DieSample]) -> dict[int, int]:
    """Labelled dice per face 1-6."""
    counts = Counter(s.face for s in samples if s.face != UNREADABLE and not s.cocked)
    return {face: counts.get(face, 0) for face in range(1, 7)}


def check_dice(faces: dict[int, int]) -> None:
    """Refuse a folder with too few dice or a face no die shows."""
    missing = [str(f) for f, n in faces.items() if n == 0]
    if missing:
        raise AdaptError(
            f"ningún dado muestra la cara {', '.join(missing)}: tire los dados otra vez hasta que salgan "
            "todas las caras"
        )
    total = sum(faces.values())
    if total < MIN_DICE:
        raise AdaptError(f"solo hay {total} dados etiquetados: hacen falta al menos {MIN_DICE}")


def read_held_out(
    probs: np.ndarray, labels: np.ndarray, pip_faces: np.ndarray, threshold: float, alone: float | None
) -> HeldOut:
    """The held-out dice as the reader's rule reads them: accepted when the model is sure and the pip count
    agrees, or, with `alone`, when the pips are not counted and the model is at least that sure."""
    pred = likeliest_face(probs)
    conf = probs[np.arange(len(probs)), pred]
    readable = conf >= no_face_probability(probs)
    accepted = readable & (conf >= threshold) & (pip_faces == pred)
    if alone is not None:
        accepted |= readable & (conf >= alone) & (pip_faces == 0)
    dice = labels != UNREADABLE
    right = int((accepted & dice & (pred == labels)).sum())
    # a patch of felt accepted as a face is a silent error too
    wrong = int((accepted & (pred != labels)).sum())
    top1 = int((dice & (pred == labels)).sum())
    return HeldOut(int(dice.sum()), right, wrong, int((dice & ~accepted).sum()), top1)


def counted(held: Sequence[DieSample], probs: np.ndarray, pip_faces: np.ndarray, threshold: float) -> np.ndarray:
    """Which held-out samples the adaptation is judged on: a die whose label nobody checked (the reader's own
    answer: crops.checked_flags) only where the starting model's classifier, sure at `threshold`, and the pip count
    both name that label; otherwise a reader that errs as the old one did would be proved right by it (the rule of
    vision.faces.evidence.counts)."""
    pred = likeliest_face(probs)
    conf = probs[np.arange(len(probs)), pred]
    faces = np.array([s.face for s in held])
    unchecked = np.array([not s.checked and s.face != UNREADABLE and not s.cocked for s in held], dtype=bool)
    agreed = (conf >= threshold) & (pip_faces == pred) & (pred == faces)
    keep: np.ndarray = ~unchecked | agreed
    return keep


LEVELS = (*(round(0.5 + 0.01 * i, 2) for i in range(50)), 0.995, 0.999)


def allowed_errors(dice: int) -> int:
    """The silent errors the adapted model may make on the held-out dice: 1 in 1,000 of them."""
    return math.floor(MAX_ERROR * dice)


def evidence_labels(labels: np.ndarray, probs: np.ndarray, pip_faces: np.ndarray, threshold: float) -> np.ndarray:
    """The held-out labels the levels are chosen on: where the starting model's two readings (its classifier sure
    at its own level and the pip count) agree on a face the label does not give, that face (the label is wrong:
    an adapted model reading it so makes no error); elsewhere the label, and always for a cocked die or no die."""
    pred = likeliest_face(probs)
    conf = probs[np.arange(len(probs)), pred]
    a_face = (labels >= 1) & (labels <= 6)
    contradicted = a_face & (conf >= threshold) & (pip_faces == pred) & (pred != labels)
    return np.where(contradicted, pred, labels)


def choose_levels(
    probs: np.ndarray, labels: np.ndarray, pip_faces: np.ndarray, allowed: int, floor: float = LEVELS[0]
) -> tuple[float | None, float | None]:
    """(pair level, alone level) on the held-out dice (`labels`: evidence_labels): of every pair of levels from
    `floor` (the starting model's level: a few hundred dice do not show a lower one safe) that keeps the silent
    errors within `allowed`, the one that leaves the coordinator the fewest dice (the higher levels on a tie). The
    alone level, from which a die whose pips are not counted is accepted on the model alone, is never under the
    pair's, and is used only where it takes at least MIN_ALONE_SUPPORT dice off the coordinator (None: never). The
    pair level is None when no level keeps within `allowed`: such a model is not written."""
    best: tuple[tuple[int, float, float], float, float | None] | None = None
    for pair in (t for t in LEVELS if t >= floor):
        paired = read_held_out(probs, labels, pip_faces, pair, None)
        if paired.wrong > allowed:
            continue
        for alone in (None, *(t for t in LEVELS if t >= pair)):
            held = paired if alone is None else read_held_out(probs, labels, pip_faces, pair, alone)
            if alone is not None and (held.wrong > allowed or paired.flagged - held.flagged < MIN_ALONE_SUPPORT):
                continue
            key = (held.load, -pair, -(alone if alone is not None else 2.0))
            if best is None or key < best[0]:
                best = (key, pair, alone)
    return (None, None) if best is None else (best[1], best[2])


PIECE = 0.45  # a piece of a die: a square of this share of its side, in one of its corners


def pieces_of(samples: Sequence[DieSample], seed: int) -> list[DieSample]:
    """A piece of each die (a corner of its box) as "no die", taught and, on the held-out dice, counted as a silent
    error when read as a face: a finder that boxes a few pips of a big die must not have them read as a die. On
    close-ups of big dice an adapted model read such pieces as 6s
    (docs/experiments/2026-11-27-adapting-measured-on-unseen-halves.md)."""
    rng = np.random.default_rng(seed)
    out = []
    for s in samples:
        if s.face == UNREADABLE:
            continue
        w, h = s.box.width * PIECE, s.box.height * PIECE
        x = s.box.x1 if rng.random() < 0.5 else s.box.x2 - w
        y = s.box.y1 if rng.random() < 0.5 else s.box.y2 - h
        piece = Box(x, y, x + w, y + h)
        out.append(DieSample(s.patch, piece, UNREADABLE, s.image, s.upright, False, s.turn))
    return out


class _Model:
    """A face classifier's torch weights and metadata, fine-tuned in place."""

    def __init__(self, faces_dir: Path) -> None:
        import torch

        path = faces_dir / TORCH_NAME
        if not path.is_file():
            raise AdaptError(f"{faces_dir}: falta {TORCH_NAME}, los pesos que se adaptan")
        saved = torch.load(path, map_location="cpu", weights_only=True)
        self.meta: dict[str, Any] = dict(saved["meta"])
        classes = len(self.meta.get("classes", CLASS_NAMES))
        self.net = build_model(tuple(self.meta.get("widths", WIDTHS)), classes, str(self.meta.get("arch", "cnn")))
        self.net.load_state_dict(saved["state_dict"])
        self.size = int(self.meta["input_size"])
        self.temperature = float(self.meta.get("temperature", 1.0))
        self.turned = bool(self.meta.get("turned", False))

    def probabilities(self, crops: Sequence[np.ndarray]) -> np.ndarray:
        """N x classes probabilities, as the reader computes them (its temperature included)."""
        import torch

        self.net.eval()
        with torch.no_grad():
            parts = [
                self.net(torch.from_numpy(preprocess(crops[i : i + 128], self.size))).numpy()
                for i in range(0, len(crops), 128)
            ]
        return softmax((np.concatenate(parts) / self.temperature).astype(np.float32))

    def fine_tune(
        self,
        fit: list[DieSample],
        seconds: float,
        seed: int,
        progress: Callable[[float], None],
        epochs: int | None = None,
        crops: int | None = None,
    ) -> int:
        """Train on augmented crops of `fit` for about `seconds`, or for exactly `epochs`, or for exactly `crops`
        augmented crops whatever the number of dice (the last two give the same result on any machine); the epochs
        begun."""
        import torch
        from torch import nn

        rng = np.random.default_rng(seed)
        torch.manual_seed(seed)
        weights = class_weights(fit, UNREADABLE_SHARE)
        optimiser = torch.optim.AdamW(self.net.parameters(), lr=LEARNING_RATE, weight_decay=5e-4)
        loss_fn = nn.CrossEntropyLoss(label_smoothing=0.05)
        batch, per_epoch = 32, max(320, 4 * len(fit))
        if crops is not None:
            steps = max(1, math.ceil(crops / batch))
        else:
            steps = epochs * math.ceil(per_epoch / batch) if epochs is not None else 0
        counted = crops is not None or epochs is not None
        started, ran, step = time.perf_counter(), 0, 0

        def done() -> float:
            """The share of the budget spent: steps taken, or time."""
            if counted:
                return min(1.0, step / steps)
            return min(1.0, (time.perf_counter() - started) / seconds)

        def going() -> bool:
            """Whether another epoch begins."""
            if counted:
                return step < steps
            return ran == 0 or time.perf_counter() - started < seconds

        self.net.train()
        while going():
            picks = rng.choice(len(fit), per_epoch, p=weights)
            for start in range(0, per_epoch, batch):
                if counted and step >= steps:
                    break
                idx = picks[start : start + batch]
                x = torch.from_numpy(preprocess([augment(fit[i], rng, turned=self.turned) for i in idx], self.size))
                y = torch.tensor([training_label(fit[i]) for i in idx], dtype=torch.long)
                share = done()
                for group in optimiser.param_groups:  # a short warm-up, then a cosine decay over the budget
                    group["lr"] = LEARNING_RATE * min(1.0, share / 0.05) * 0.5 * (1 + math.cos(math.pi * share))
                loss = loss_fn(self.net(x), y)
                optimiser.zero_grad()
                loss.backward()
                optimiser.step()
                step += 1
                progress(done())
            ran += 1
        self.net.eval()
        return ran

    def save(self, faces_dir: Path, threshold: float, alone: float | None) -> None:
        """Write the weights and their ONNX export, with the new levels in the metadata."""
        import torch

        self.meta.update(threshold=threshold, alone_threshold=alone)
        torch.save({"state_dict": self.net.state_dict(), "meta": self.meta}, faces_dir / TORCH_NAME)
        export_onnx(self.net, faces_dir / ONNX_NAME, self.meta)


def adapt(
    folder: Path,
    out: Path,
    source: Path,
    *,
    split: str | None = None,
    holdout: float = 0.3,
    minutes: float = 4.0,
    epochs: int | None = None,
    crops: int | None = None,
    seed: int = 0,
    command: str = "",
    progress: Callable[[float], None] = lambda share: None,
    levels: tuple[float, float | None] | None = None,
) -> Adapted:
    """Fine-tune `source`'s face classifier (a models folder: dice/ and faces/) on `folder`'s dice and write the
    whole models folder to `out`, unless it reads the held-out dice worse than `source` does at `levels` (the pair
    and alone levels a table reads `source` at, set on its evidence: vision.faces.evidence; None: its own); with
    `epochs`, the training is that many epochs, with `crops` that many augmented crops, whatever the time
    (`minutes` is then not used)."""
    from vision.faces.pips import PipCounter

    check_folder(folder, split)
    if not (source / "faces").is_dir() or not (source / "dice").is_dir():
        raise AdaptError(f"{source}: no es una carpeta de modelos (faltan dice/ o faces/)")
    if out.resolve() == source.resolve():
        raise AdaptError(f"--out {out}: es la carpeta de la que se parte; elija otra")
    started = time.perf_counter()
    model = _Model(source / "faces")
    samples = load_samples(folder, split or None, background_per_image=1, turn=model.turned, seed=seed)
    faces = count_faces(samples)
    check_dice(faces)
    fit, held = split_by_photo(samples, holdout, capture_group)  # near-copies of one photo on one side
    fit, held = fit + pieces_of(fit, seed), held + pieces_of(held, seed + 1)
    if not any(s.face != UNREADABLE for s in fit):
        raise AdaptError("no queda ninguna foto para aprender: dé más fotos")
    labels = np.array([training_label(s) for s in held])
    pip_faces = np.array([g.face or 0 for g in PipCounter().read_faces([s.crop() for s in held])])
    seen = [s.crop(turned=model.turned) for s in held]
    start = float(model.meta["threshold"])
    starting = model.probabilities(seen)
    used = levels if levels is not None else (start, model.meta.get("alone_threshold"))
    keep = counted(held, starting, pip_faces, used[0])
    unchecked = int((~keep).sum())
    held = [s for s, k in zip(held, keep, strict=True) if k]
    labels, pip_faces, starting = labels[keep], pip_faces[keep], starting[keep]
    seen = [c for c, k in zip(seen, keep, strict=True) if k]
    held_dice = sum(s.face != UNREADABLE for s in held)
    if held_dice < MIN_HELD_OUT:
        raise AdaptError(
            f"las fotos apartadas para comprobar tienen {held_dice} dados comprobados (hacen falta {MIN_HELD_OUT}): "
            "dé más fotos"
        )
    before = read_held_out(starting, labels, pip_faces, *used)
    evidence = evidence_labels(labels, starting, pip_faces, start)
    seconds = max(1.0, minutes * 60 - (time.perf_counter() - started))
    ran = model.fine_tune(fit, seconds, seed, progress, epochs, crops)
    probs = model.probabilities(seen)
    pair, alone = choose_levels(probs, evidence, pip_faces, allowed_errors(held_dice), floor=start)
    threshold = pair if pair is not None else LEVELS[-1]
    after = read_held_out(probs, labels, pip_faces, threshold, alone)
    written = pair is not None and after.load <= before.load and after.wrong <= before.wrong
    fit_dice = sum(s.face != UNREADABLE for s in fit)
    result = Adapted(
        out,
        fit_dice,
        held_dice,
        faces,
        before,
        after,
        threshold,
        alone,
        ran,
        time.perf_counter() - started,
        written,
        unchecked,
    )
    if written:
        _write(source, out, model, result, folder, command, (probs, evidence, pip_faces))
    return result


def _write(
    source: Path,
    out: Path,
    model: _Model,
    result: Adapted,
    folder: Path,
    command: str,
    held: tuple[np.ndarray, np.ndarray, np.ndarray],
) -> None:
    """The whole models folder: `source`'s, with the adapted face classifier and the held-out dice its levels were
    chosen on (the evidence a table starts it with: vision.faces.evidence); replaced at once."""
    from vision.faces.evidence import write_held_out

    def change(staging: Path) -> None:
        model.save(staging / "faces", result.threshold, result.alone_threshold)
        write_held_out(staging / "faces", *held)
        # the candidate level was calibrated for the classifier it starts from, not for this one
        (staging / "faces" / CANDIDATES_NAME).unlink(missing_ok=True)
        update_metrics(
            staging / "faces" / METRICS_NAME, "adapt", {**result.to_dict(), "folder": str(folder), "command": command}
        )
        (staging / "ADAPTED.json").write_text(
            json.dumps({"from": str(source), "folder": str(folder), "command": command}, ensure_ascii=False) + "\n"
        )

    write_copy(source, out, change)
