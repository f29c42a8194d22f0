"""Train the face classifier on real TRAIN crops (and rendered ones), calibrate it, export ONNX.

python -m vision.faces.train --real ../shared/data/dice-real [--synth DIR ...] [--arch yolov5n] --out models/faces/
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import sys
import time
import warnings
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import numpy as np

from vision.faces import realsets
from vision.faces.classifier import (
    ARCHS,
    BACKBONE_ARCH,
    CLASS_NAMES,
    COCKED,
    INPUT_SIZE,
    NO_DIE,
    ONNX_NAME,
    PRETRAINED,
    TORCH_NAME,
    WIDTHS,
    build_model,
    fit_temperature,
    likeliest_face,
    load_pretrained_backbone,
    no_face_probability,
    preprocess,
    softmax,
)
from vision.faces.crops import UNREADABLE, DieSample, augment, load_samples, photo_id, rendered_distractors
from vision.faces.negatives import read_negatives
from vision.faces.pips import PipCounter
from vision.types import Box

VAL_SPLIT = "val"  # the real photos kept for measuring: never trained on, never calibrated on
METRICS_NAME = "metrics.json"
CHECKPOINT_NAME = "checkpoint.pt"  # written after every epoch in --out, removed when the training ends
# options that change nothing the training computes (--threads does: torch's sums split by thread)
# a resumed run may choose its level another way, run on another device or stop at another time: no fit depends on it
NOT_TRAINING = ("resume", "level_from", "device", "minutes")
# Real sets shot at a slant by an upright camera (SOURCES.md): the top face is the one up in the picture.
UPRIGHT_PREFIXES = ("epanemu_",)


def calibration_photo(name: str, share: float, group: Callable[[str], str] = photo_id) -> bool:
    """Whether a train photo goes to the held-out calibration part (every photo of one `group` goes together: by
    default the copies of one photo)."""
    return (zlib.crc32(group(name).encode()) % 1000) < share * 1000


def split_by_photo(
    samples: list[DieSample], share: float, group: Callable[[str], str] = photo_id
) -> tuple[list[DieSample], list[DieSample]]:
    """(fit, calibration): the samples of the photos `calibration_photo` sets aside go to calibration."""
    fit: list[DieSample] = []
    calib: list[DieSample] = []
    for sample in samples:
        (calib if calibration_photo(sample.image, share, group) else fit).append(sample)
    return fit, calib


def split_of(folder: Path) -> str | None:
    """The training split of a YOLO folder: `train` when it has one, else the whole folder."""
    return "train" if (folder / "images" / "train").is_dir() else None


def load_real(
    folder: Path,
    calib_share: float,
    seed: int,
    negatives: dict[str, list[Box]] | None = None,
    turn: bool = False,
) -> tuple[list[DieSample], list[DieSample]]:
    """Real TRAIN samples split by photo into (fit, calibration), with the `negatives` mined on its photos as
    "no die" crops (`turn`: note the outward turn of dice on photos taken from above); the val split is refused
    outright."""
    val_images = folder / "images" / VAL_SPLIT
    val_ids = {photo_id(p.name) for p in val_images.iterdir()} if val_images.is_dir() else set()
    split = split_of(folder)
    if split is None:
        raise SystemExit(f"{folder} no tiene images/train: no sé qué fotos son de entrenamiento")
    samples = load_samples(
        folder,
        split,
        keep=lambda p: photo_id(p.name) not in val_ids,
        upright=lambda p: p.name.startswith(UPRIGHT_PREFIXES),
        background_per_image=1,
        not_dice=lambda p: (negatives or {}).get(p.name, []),
        turn=turn,
        seed=seed,
    )
    return split_by_photo(samples, calib_share)


def not_dice_of(found: dict[str, list[Box]], image: Path) -> list[Box]:
    """A rendered table's no-die boxes: its coins and caps (from its sidecar) and what was mined on it."""
    return rendered_distractors(image) + found.get(image.name, [])


def training_label(sample: DieSample) -> int:
    """The class a sample teaches: its face, "no die", or the cocked-die class."""
    return COCKED if sample.cocked else sample.face


def class_weights(samples: list[DieSample], unreadable_share: float, cocked_share: float = 0.0) -> np.ndarray:
    """Sampling weights: the six faces equally often, "no readable face" at `unreadable_share`, and of it the
    cocked dice at `cocked_share` when it is given (they are few, and the hardest "no face" to learn)."""
    labels = np.array([s.face for s in samples])
    cocked = np.array([s.cocked for s in samples], dtype=bool)
    weights = np.zeros(len(samples))
    faces_present = [f for f in range(1, 7) if (labels == f).any()]
    for face in faces_present:
        mask = labels == face
        weights[mask] = (1 - unreadable_share) / len(faces_present) / mask.sum()
    neg = labels == UNREADABLE
    if cocked_share > 0 and cocked.any() and (neg & ~cocked).any():
        weights[cocked] = cocked_share / cocked.sum()
        weights[neg & ~cocked] = (unreadable_share - cocked_share) / (neg & ~cocked).sum()
    elif neg.any():
        weights[neg] = unreadable_share / neg.sum()
    out: np.ndarray = weights / weights.sum()
    return out


# Candidate thresholds, finest near the top: label smoothing (0.05) caps a sure answer near 0.957, so a
# coarse step from 0.9 to 0.95 would push the threshold against that cap and turn most right dice doubtful.
REAL_SOURCE = "real"  # the calibration sources of real photos: "real" and "real:<set>"
LEVEL_FROM_REAL, LEVEL_FROM_EACH = "real", "each"
LEVELS_FROM = (LEVEL_FROM_REAL, LEVEL_FROM_EACH)
THRESHOLDS = (0.5, 0.6, 0.7, 0.8, 0.85, *(round(0.9 + 0.01 * i, 2) for i in range(10)))


def choose_threshold(
    probs: np.ndarray, labels: np.ndarray, max_error: float, pip_faces: np.ndarray | None = None
) -> tuple[float, list[dict[str, float]]]:
    """The lowest confidence threshold whose accepted calibration crops are wrong at most `max_error` of the time.

    Without `pip_faces` a crop is accepted on the model's confidence alone, and only crops with a face count.
    With them (the pip counter's face per crop, 0 for none) a crop is accepted as the reader accepts it: the
    model sure and the count agreeing; and every crop counts, so a cocked die, a coin or bare felt accepted as
    a face is an error.
    """
    faces = labels != UNREADABLE if pip_faces is None else np.ones(len(labels), bool)
    p, y = probs[faces], labels[faces]
    pred = likeliest_face(p)
    conf = p[np.arange(len(p)), pred]
    readable = conf >= no_face_probability(p)
    if pip_faces is not None:
        readable &= pip_faces[faces] == pred
    curve = []
    chosen = 0.99
    for t in THRESHOLDS:
        accepted = readable & (conf >= t)
        errors = int((pred[accepted] != y[accepted]).sum())
        n = int(accepted.sum())
        curve.append({"threshold": t, "accepted": n / max(1, len(y)), "accepted_error": errors / max(1, n)})
    for point in curve:
        if point["accepted_error"] <= max_error:
            chosen = point["threshold"]
            break
    return chosen, curve


def pooled_real_threshold(
    probs: np.ndarray,
    labels: np.ndarray,
    sources: list[str],
    max_error: float,
    pip_faces: np.ndarray,
) -> tuple[float, list[dict[str, float]]]:
    """The pair's level chosen on every real calibration crop together (the sources named "real..."): the
    one calibrated rule for "sure". Rendered crops do not set it; a rendered cocked die is the cocked
    class's and the reader's checks' to flag. Without real crops, the strictest over every source."""
    real = np.array([s.startswith(REAL_SOURCE) for s in sources])
    if not real.any():
        threshold, _ = strictest_threshold(probs, labels, sources, max_error, pip_faces)
        return threshold, []
    return choose_threshold(probs[real], labels[real], max_error, pip_faces[real])


def strictest_threshold(
    probs: np.ndarray,
    labels: np.ndarray,
    sources: list[str],
    max_error: float,
    pip_faces: np.ndarray | None = None,
) -> tuple[float, dict[str, list[dict[str, float]]]]:
    """The highest of the thresholds each source needs alone (and each source's curve): easy rendered dice
    must not lower the bar for real ones. `pip_faces`: calibrate the pair, as in choose_threshold."""
    source_of = np.array(sources)
    curves = {}
    threshold = 0.0
    for source in sorted(set(sources)):
        mine = source_of == source
        pips = None if pip_faces is None else pip_faces[mine]
        needed, curves[source] = choose_threshold(probs[mine], labels[mine], max_error, pips)
        threshold = max(threshold, needed)
    return threshold, curves


ABSENT_THRESHOLDS = (0.5, 0.6, 0.7, 0.8, 0.9, 0.95, 0.97, 0.98, 0.99, 0.995, 0.998, 0.999)


def absent_threshold(
    probs: np.ndarray, is_die: np.ndarray, sources: list[str], max_drop: float = 0.0
) -> tuple[float | None, dict[str, list[dict[str, float]]]]:
    """The lowest p(no die) at which a detection may be dropped: on every source alone, at most `max_drop` of
    its calibration dice (cocked ones included) reach it. None when no candidate holds, or the model has no
    cocked class (its class 0 then holds cocked dice too). Also each source's curve: dice and not-dice dropped."""
    if probs.shape[1] <= COCKED:
        return None, {}
    source_of = np.array(sources)
    curves: dict[str, list[dict[str, float]]] = {}
    needed: list[float | None] = []
    for source in sorted(set(sources)):
        mine = source_of == source
        p0, die = probs[mine, NO_DIE], is_die[mine]
        curve = [
            {
                "threshold": t,
                "dice_dropped": float((p0[die] >= t).mean()) if die.any() else 0.0,
                "not_dice_dropped": float((p0[~die] >= t).mean()) if (~die).any() else 0.0,
            }
            for t in ABSENT_THRESHOLDS
        ]
        curves[source] = curve
        needed.append(next((c["threshold"] for c in curve if c["dice_dropped"] <= max_drop), None))
    if not needed or any(t is None for t in needed):
        return None, curves
    return max(t for t in needed if t is not None), curves


COCKED_THRESHOLDS = (0.02, 0.03, 0.05, 0.07, 0.1, 0.15, 0.2, 0.3, 0.5)


def cocked_threshold(
    probs: np.ndarray,
    labels: np.ndarray,
    cocked: np.ndarray,
    pip_faces: np.ndarray,
    threshold: float,
    sources: list[str],
    budget: float = 0.01,
) -> tuple[float | None, dict[str, list[dict[str, float]]]]:
    """The lowest p(cocked) at which the reader flags a die it would accept as maybe cocked, such that on every
    source alone at most `budget` of the flat dice it accepts get flagged so. None for a model with no cocked
    class. Also each source's curve: flat accepted dice flagged, and cocked dice accepted that it catches."""
    if probs.shape[1] <= COCKED:
        return None, {}
    pred = likeliest_face(probs)
    conf = probs[np.arange(len(probs)), pred]
    accepted = (pip_faces == pred) & (conf >= threshold) & (conf >= no_face_probability(probs))
    p7 = probs[:, COCKED]
    source_of = np.array(sources)
    curves: dict[str, list[dict[str, float]]] = {}
    needed = []
    for source in sorted(set(sources)):
        mine = source_of == source
        flat = mine & accepted & (labels != UNREADABLE)
        fooled = mine & accepted & cocked
        curve = [
            {
                "threshold": t,
                "flat_flagged": float((p7[flat] >= t).mean()) if flat.any() else 0.0,
                "cocked_caught": float((p7[fooled] >= t).mean()) if fooled.any() else 0.0,
                "cocked_accepted": int(fooled.sum()),
            }
            for t in COCKED_THRESHOLDS
        ]
        curves[source] = curve
        needed.append(next((c["threshold"] for c in curve if c["flat_flagged"] <= budget), COCKED_THRESHOLDS[-1]))
    return max(needed, default=None), curves


def update_metrics(path: Path, section: str, figures: dict[str, Any]) -> None:
    """Write `figures` under `section` of metrics.json, keeping the other sections."""
    data: dict[str, Any] = {}
    if path.exists():
        data = json.loads(path.read_text())
    data[section] = figures
    path.write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n")


def build_parser() -> argparse.ArgumentParser:
    """The command line."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--real", type=Path, required=True, help="carpeta YOLO de fotos reales (se usa su train)")
    parser.add_argument(
        "--real-sets",
        type=Path,
        default=None,
        help="carpeta de datos reales (../shared/data): se suma la parte de entrenamiento de cada conjunto real "
        "registrado que haya en ella (vision.faces.realsets), salvo el de --real",
    )
    parser.add_argument("--synth", type=Path, action="append", default=[], help="carpeta YOLO renderizada")
    parser.add_argument("--synth-max", type=int, default=20000, help="máximo de dados renderizados")
    parser.add_argument("--out", type=Path, default=Path("models/faces"))
    parser.add_argument("--epochs", type=int, default=50)
    parser.add_argument("--input-size", type=int, default=INPUT_SIZE, help="lado en píxeles de la entrada del modelo")
    parser.add_argument(
        "--arch",
        choices=ARCHS,
        default="cnn",
        help=f"la red: cnn (la pequeña) o {BACKBONE_ARCH} (la columna de YOLOv5n, desde sus pesos preentrenados)",
    )
    parser.add_argument(
        "--pretrained",
        default=None,
        help=f"con --arch {BACKBONE_ARCH}: los pesos de YOLOv5n de los que parte (por omisión {PRETRAINED}); "
        "'none' para empezar al azar",
    )
    parser.add_argument("--per-epoch", type=int, default=8000, help="recortes aumentados por época")
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--lr", type=float, default=3e-3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--device", default="cpu", help="donde se entrena el modelo: cpu, o cuda en una GPU")
    parser.add_argument(
        "--aug-workers",
        type=int,
        default=0,
        help="procesos que preparan los recortes aumentados (0: este mismo; cada lote con su propia semilla)",
    )
    parser.add_argument(
        "--minutes",
        type=float,
        default=None,
        help="tiempo total: no se empieza una época que no terminaría a tiempo (queda un minuto, o un quinto, para "
        "calibrar y escribir el modelo)",
    )
    parser.add_argument("--calib-share", type=float, default=0.15, help="fotos de train apartadas para calibrar")
    parser.add_argument(
        "--unreadable-share", type=float, default=0.06, help="share of training crops with no readable face"
    )
    parser.add_argument(
        "--cocked-share", type=float, default=0.0, help="share of training crops that are cocked dice (of the above)"
    )
    parser.add_argument(
        "--recalibrate",
        action="store_true",
        help="no training: choose the threshold again for the model already in --out (same calibration crops)",
    )
    parser.add_argument("--max-error", type=float, default=0.001, help="error aceptado tolerado al calibrar")
    parser.add_argument(
        "--level-from",
        choices=LEVELS_FROM,
        default=LEVEL_FROM_REAL,
        help="dónde se elige el nivel de 'seguro': real (todos los recortes reales de calibración juntos; por "
        "omisión) o each (el más estricto de cada fuente sola, renderizadas incluidas)",
    )
    parser.add_argument(
        "--no-temperature",
        dest="temperature",
        action="store_false",
        help="calibrar sobre las probabilidades tal como salen (sin ajustar la temperatura en la calibración)",
    )
    parser.add_argument(
        "--negatives",
        type=Path,
        action="append",
        default=[],
        help="detecciones sin dado halladas con python -m vision.faces.negatives (clase 'sin dado')",
    )
    parser.add_argument(
        "--turn",
        action="store_true",
        help="entrenar con los dados girados hacia afuera (fotos desde arriba), como los ve el lector de la mesa",
    )
    parser.add_argument(
        "--cocked-budget",
        type=float,
        default=0.01,
        help="parte de los dados planos aceptados que la duda de dado montado puede marcar",
    )
    parser.add_argument(
        "--max-drop", type=float, default=0.0, help="dados de calibración que el umbral de descarte puede perder"
    )
    parser.add_argument(
        "--resume",
        action="store_true",
        help=f"seguir un entrenamiento cortado desde el {CHECKPOINT_NAME} de --out (mismas opciones)",
    )
    return parser


def _check_options(parser: argparse.ArgumentParser, args: argparse.Namespace) -> None:
    """Refuse (parser.error) shares out of 0-1, and a recalibration or a resumption with nothing to start from."""
    for name in ("max_error", "max_drop", "cocked_budget"):
        if not 0.0 <= getattr(args, name) <= 1.0:
            parser.error(f"--{name.replace('_', '-')} {getattr(args, name)}: debe estar entre 0 y 1")
    if args.recalibrate and not (args.out / TORCH_NAME).is_file():
        parser.error(f"--recalibrate: no hay modelo entrenado en {args.out / TORCH_NAME}")
    if args.resume and args.recalibrate:
        parser.error("--resume y --recalibrate no van juntos: --recalibrate no entrena")
    if args.resume and not (args.out / CHECKPOINT_NAME).is_file():
        parser.error(f"--resume: no hay entrenamiento cortado en {args.out / CHECKPOINT_NAME}")
    if args.real_sets is not None:
        try:
            realsets.real_sets(args.real_sets)
        except FileNotFoundError as err:
            parser.error(f"--real-sets: {err}")
    if args.aug_workers < 0:
        parser.error(f"--aug-workers {args.aug_workers}: no puede ser negativo")
    if args.minutes is not None and args.minutes <= 0:
        parser.error(f"--minutes {args.minutes:g}: debe ser positivo")
    if args.device != "cpu":
        import torch

        if not args.device.startswith("cuda") or not torch.cuda.is_available():
            parser.error(f"--device {args.device}: esta máquina no tiene esa GPU (use cpu)")
    if args.pretrained is not None and args.arch != BACKBONE_ARCH:
        parser.error(f"--pretrained es para --arch {BACKBONE_ARCH}: la red {args.arch} no tiene pesos preentrenados")
    if args.pretrained not in (None, "none") and not Path(args.pretrained).is_file():
        parser.error(f"--pretrained: no existe {args.pretrained}")


def pretrained_start(args: argparse.Namespace) -> Path | None:
    """The weights the training starts from: --pretrained, else PRETRAINED where it lies; None: a random start."""
    if args.arch != BACKBONE_ARCH or args.pretrained == "none":
        return None
    if args.pretrained is not None:
        return Path(args.pretrained)
    return PRETRAINED if PRETRAINED.is_file() else None


def _mined_negatives(parser: argparse.ArgumentParser, args: argparse.Namespace) -> dict[Path, dict[str, list[Box]]]:
    """The --negatives files' boxes by the folder each was mined on (resolved), each a --real or --synth folder."""
    mined: dict[Path, dict[str, list[Box]]] = {}
    folders = {f.resolve() for f in (args.real, *args.synth)}
    for path in args.negatives:
        try:
            folder, boxes = read_negatives(path)
        except (OSError, ValueError, TypeError) as err:
            parser.error(f"--negatives {path}: {err}")
        # the file names the folder it was mined on: one that is not trained on would be ignored silently
        if not folder or Path(folder).resolve() not in folders:
            parser.error(f"--negatives {path}: se minó en {folder or '(sin carpeta)'}, que no es --real ni --synth")
        # two files mined on one folder (by two finders, say) add up: neither hides the other's boxes
        found = mined.setdefault(Path(folder).resolve(), {})
        for name, listed in boxes.items():
            found.setdefault(name, []).extend(b for b in listed if b not in found[name])
    return mined


def _resumed(parser: argparse.ArgumentParser, path: Path, options: dict[str, Any]) -> dict[str, Any]:
    """The checkpoint of a cut training at `path`, refused unless it was trained with the same `options`."""
    import torch

    try:
        checkpoint: dict[str, Any] = torch.load(path, map_location="cpu", weights_only=True)
        stored = json.loads(checkpoint["options"])
    except Exception as err:  # a file cut while written, or not ours
        parser.error(f"--resume: {path} no se puede leer ({err})")
    if stored != options:
        changed = sorted(k for k in set(stored) | set(options) if stored.get(k) != options.get(k))
        parser.error(f"--resume: {path} se entrenó con otras opciones ({', '.join(changed)})")
    return checkpoint


@dataclass
class _Crops:
    """The training's samples: those it fits on, those it calibrates on (and the source of each), and counts."""

    fit: list[DieSample]
    calib: list[DieSample]
    calib_source: list[str]  # the threshold must hold on each source alone
    sources: dict[str, int]


def _training_crops(
    args: argparse.Namespace, mined: dict[Path, dict[str, list[Box]]], turned: bool, rng: np.random.Generator
) -> _Crops:
    """The real photos' train samples and up to --synth-max of each rendered folder's, each split by photo."""
    fit, calib = load_real(args.real, args.calib_share, args.seed, mined.get(args.real.resolve()), turned)
    crops = _Crops(fit, calib, ["real"] * len(calib), {"real_fit": len(fit), "real_calibration": len(calib)})
    for rs in _more_real_sets(args):
        # each set's train part only (its val part is never loaded), split by photo as --real is
        loaded = realsets.samples(rs, args.real_sets, "train", background_per_image=1, turn=turned, seed=args.seed)
        # by the set's own groups: a capture's augmented copies must not sit on both sides
        more_fit, more_calib = split_by_photo(loaded, args.calib_share, partial(realsets.group_of, rs))
        crops.sources[f"real:{rs.name}"] = len(more_fit)
        crops.sources[f"real_calibration:{rs.name}"] = len(more_calib)
        crops.fit += more_fit
        crops.calib += more_calib
        crops.calib_source += [f"real:{rs.name}"] * len(more_calib)
    for folder in args.synth:
        # rendered tables: cocked dice (class 6), coins and bottle caps are crops with no readable face
        synth = load_samples(
            folder,
            split_of(folder),
            background_per_image=1,
            not_dice=partial(not_dice_of, mined.get(folder.resolve(), {})),
            turn=turned,
            seed=args.seed,
        )
        if len(synth) > args.synth_max:
            keep = rng.choice(len(synth), args.synth_max, replace=False)
            synth = [synth[i] for i in sorted(keep)]
        synth_fit, synth_calib = split_by_photo(synth, args.calib_share)
        crops.sources[f"synth:{folder}"] = len(synth_fit)
        crops.sources[f"synth_calibration:{folder}"] = len(synth_calib)
        crops.fit += synth_fit
        crops.calib += synth_calib
        crops.calib_source += [f"synth:{folder}"] * len(synth_calib)
    return crops


def _more_real_sets(args: argparse.Namespace) -> list[realsets.RealSet]:
    """The registered real sets under --real-sets, less the one --real names (none without --real-sets)."""
    if args.real_sets is None:
        return []
    named = args.real.resolve()
    return [rs for rs in realsets.real_sets(args.real_sets) if (args.real_sets / rs.folder).resolve() != named]


_POOL: dict[str, Any] = {}  # what the augmentation processes read: set before they are forked, never sent to them


def _augmented_batch(task: tuple[list[int], int]) -> np.ndarray:
    """One batch of augmented crops, preprocessed, drawn with its own seed (in an augmentation process)."""
    indices, seed = task
    rng = np.random.default_rng(seed)
    crops = [augment(_POOL["fit"][i], rng, turned=_POOL["turned"]) for i in indices]
    return preprocess(crops, _POOL["size"])


class _Training:
    """The model, its optimiser and schedule, and what an epoch needs: fit and calibration crops, sampling weights."""

    def __init__(
        self,
        args: argparse.Namespace,
        crops: _Crops,
        class_names: list[str],
        turned: bool,
        rng: np.random.Generator,
        arch: str = "cnn",
    ) -> None:
        import torch
        from torch import nn

        self.args, self.crops, self.turned, self.rng, self.arch = args, crops, turned, rng, arch
        self.weights = class_weights(crops.fit, args.unreadable_share, args.cocked_share)
        self.device = torch.device(args.device)
        self.model = build_model(classes=len(class_names), arch=arch).to(self.device)
        self.pool: Any = None
        self.deadline: float | None = None  # with --minutes: when the last epoch must have ended (time.time())
        self.optimiser = torch.optim.AdamW(self.model.parameters(), lr=args.lr, weight_decay=5e-4)
        self.steps_per_epoch = args.per_epoch // args.batch
        self.schedule = torch.optim.lr_scheduler.OneCycleLR(
            self.optimiser, max_lr=args.lr, total_steps=args.epochs * self.steps_per_epoch, pct_start=0.15
        )
        self.loss_fn = nn.CrossEntropyLoss(label_smoothing=0.05)
        self.calib_crops = [s.crop() for s in crops.calib]  # as the pip counter reads them
        # as the classifier does
        calib_seen = [s.crop(turned=turned) for s in crops.calib] if turned else self.calib_crops
        self.calib_labels = np.array([s.face for s in crops.calib])
        self.calib_batch = torch.from_numpy(preprocess(calib_seen, args.input_size))

    def calib_logits(self) -> np.ndarray:
        """The model's logits for the calibration crops (the model left in training mode)."""
        import torch

        self.model.eval()
        with torch.no_grad():
            batch = self.calib_batch
            out = np.concatenate(
                [self.model(batch[i : i + 256].to(self.device)).cpu().numpy() for i in range(0, len(batch), 256)]
            )
        self.model.train()
        return out

    def calib_probs(self, temperature: float = 1.0) -> np.ndarray:
        """The model's probabilities for the calibration crops, its logits divided by `temperature`."""
        return softmax((self.calib_logits() / temperature).astype(np.float32))

    def temperature(self) -> float:
        """The temperature fitted on the calibration crops (their training classes), or 1 with --no-temperature."""
        if not self.args.temperature:
            return 1.0
        labels = np.array([training_label(s) for s in self.crops.calib])
        return fit_temperature(self.calib_logits(), labels)

    def restore(self, checkpoint: dict[str, Any]) -> tuple[list[dict[str, Any]], int, float]:
        """Put the loop's own state back as it was after the checkpoint's epoch (everything else is rebuilt from the
        seed): (history, first epoch to run, seconds already spent)."""
        import torch

        self.model.load_state_dict(checkpoint["model"])
        self.optimiser.load_state_dict(checkpoint["optimiser"])
        self.schedule.load_state_dict(checkpoint["schedule"])
        self.rng.bit_generator.state = json.loads(checkpoint["rng"])
        torch.set_rng_state(checkpoint["torch_rng"])
        return json.loads(checkpoint["history"]), int(checkpoint["epoch"]) + 1, float(checkpoint["seconds"])

    def epoch(self) -> tuple[float, float]:
        """One epoch of augmented crops drawn by the sampling weights: (mean loss, accuracy on them)."""
        import torch

        args, fit, rng = self.args, self.crops.fit, self.rng
        picks = rng.choice(len(fit), self.steps_per_epoch * args.batch, p=self.weights)
        total, correct, loss_sum = 0, 0, 0.0
        self.model.train()
        for step, batch in enumerate(self._batches(picks)):
            idx = picks[step * args.batch : (step + 1) * args.batch]
            x = torch.from_numpy(batch).to(self.device)
            y = torch.tensor([training_label(fit[i]) for i in idx], dtype=torch.long, device=self.device)
            logits = self.model(x)
            loss = self.loss_fn(logits, y)
            self.optimiser.zero_grad()
            loss.backward()
            self.optimiser.step()
            self.schedule.step()
            loss_sum += float(loss.detach()) * len(idx)
            correct += int((logits.argmax(1) == y).sum())
            total += len(idx)
        return loss_sum / total, correct / total

    def _batches(self, picks: np.ndarray) -> Iterator[np.ndarray]:
        """Each step's preprocessed crops: augmented here, or by the pool with one seed a batch drawn here."""
        b = self.args.batch
        if self.pool is None:
            for step in range(self.steps_per_epoch):
                crops = [
                    augment(self.crops.fit[i], self.rng, turned=self.turned) for i in picks[step * b : (step + 1) * b]
                ]
                yield preprocess(crops, self.args.input_size)
            return
        seeds = self.rng.integers(0, 2**63 - 1, self.steps_per_epoch)
        tasks = [(picks[k * b : (k + 1) * b].tolist(), int(seeds[k])) for k in range(self.steps_per_epoch)]
        yield from self.pool.imap(_augmented_batch, tasks)

    def fit(
        self,
        first_epoch: int,
        history: list[dict[str, Any]],
        options: dict[str, Any],
        started: float,
        checkpoint_path: Path,
    ) -> None:
        """Train from `first_epoch` to the last, each epoch's figures appended to `history` and its state saved to
        `checkpoint_path` (`started`: when the training began, as time.time() tells); with --minutes, no epoch is
        begun that the last one's time says would end after `deadline` (set by main from --minutes)."""
        import multiprocessing

        import torch

        if self.args.aug_workers > 0:
            _POOL.update(fit=self.crops.fit, turned=self.turned, size=self.args.input_size)
            self.pool = multiprocessing.get_context("fork").Pool(self.args.aug_workers)
        try:
            last = 0.0
            for epoch in range(first_epoch, self.args.epochs + 1):
                t0 = time.time()
                if self.deadline is not None and t0 + 1.1 * last > self.deadline:
                    print(f"tiempo cumplido: se para tras la época {epoch - 1}/{self.args.epochs}", flush=True)
                    break
                loss, accuracy = self.epoch()
                probs = self.calib_probs()
                faces = self.calib_labels != UNREADABLE
                calib_acc = float((likeliest_face(probs[faces]) == self.calib_labels[faces]).mean())
                history.append({"epoch": epoch, "loss": loss, "train_acc": accuracy, "calib_acc": calib_acc})
                print(
                    f"época {epoch}/{self.args.epochs}: pérdida {loss:.3f}, acierto aumentado {accuracy:.3f}, "
                    f"calibración {calib_acc:.4f} ({time.time() - t0:.0f} s)",
                    flush=True,
                )
                save_checkpoint(self.checkpoint(options, epoch, history, time.time() - started), checkpoint_path)
                last = time.time() - t0
        finally:
            if self.pool is not None:
                self.pool.terminate()
                self.pool = None
            self.device = torch.device("cpu")  # calibrated, saved and exported on the CPU
            self.model.to(self.device)

    def checkpoint(
        self, options: dict[str, Any], epoch: int, history: list[dict[str, Any]], seconds: float
    ) -> dict[str, Any]:
        """The state after `epoch`, for --resume."""
        import torch

        return {
            "options": json.dumps(options),
            "epoch": epoch,
            "model": self.model.state_dict(),
            "optimiser": self.optimiser.state_dict(),
            "schedule": self.schedule.state_dict(),
            "rng": json.dumps(self.rng.bit_generator.state),
            "torch_rng": torch.get_rng_state(),
            "history": json.dumps(history),
            "seconds": seconds,
        }


def _calibrate(training: _Training, probs: np.ndarray) -> dict[str, Any]:
    """The model's thresholds (accepting a face, dropping a detection, flagging a cocked die) and their curves.

    The threshold is the pair's: the model sure and the pip count agreeing, every calibration crop counted (a
    cocked die accepted as a face is an error too); the model's own curves are kept beside it."""
    args, calib, labels = training.args, training.crops.calib, training.calib_labels
    source = training.crops.calib_source
    pip_faces = np.array([g.face or 0 for g in PipCounter(processes=True).read_faces(training.calib_crops)])
    threshold, curves = strictest_threshold(probs, labels, source, args.max_error, pip_faces)
    rule = "pair: model >= threshold and the pip count agrees; every calibration crop counts, on each source alone"
    if args.level_from == LEVEL_FROM_REAL:
        threshold, curves["real (pooled)"] = pooled_real_threshold(probs, labels, source, args.max_error, pip_faces)
        rule = "pair: model >= threshold and the pip count agrees; chosen on every real calibration crop together"
    _, model_curves = strictest_threshold(probs, labels, source, args.max_error)
    is_die = np.array([s.face != UNREADABLE or s.cocked for s in calib])
    absent, absent_curves = absent_threshold(probs, is_die, source, args.max_drop)
    cocked = np.array([s.cocked for s in calib])
    leaning, cocked_curves = cocked_threshold(probs, labels, cocked, pip_faces, threshold, source, args.cocked_budget)
    return {
        "threshold": threshold,
        "threshold_rule": rule,
        "threshold_curves": curves,
        "model_alone_curves": model_curves,
        "absent_threshold": absent,
        "absent_rule": "drop a detection when p(no die) >= absent_threshold: no calibration die reached it",
        "absent_curves": absent_curves,
        "cocked_threshold": leaning,
        "cocked_rule": "flag a die as maybe cocked when p(cocked) >= cocked_threshold: it flags at most "
        f"{args.cocked_budget:.0%} of the flat dice the pair accepts, on each calibration source",
        "cocked_curves": cocked_curves,
    }


def _save_model(
    training: _Training, class_names: list[str], calibration: dict[str, Any], args: argparse.Namespace
) -> str:
    """Write the model (TorchScript weights and ONNX, with their metadata) to --out; the ONNX file's digest."""
    import torch

    meta = {
        "input_size": args.input_size,
        "arch": training.arch,
        "widths": list(WIDTHS),
        "classes": class_names,
        "threshold": calibration["threshold"],
        "temperature": calibration["temperature"],
        "absent_threshold": calibration["absent_threshold"],
        "cocked_threshold": calibration["cocked_threshold"],
        "turned": training.turned,
        "seed": args.seed,
    }
    args.out.mkdir(parents=True, exist_ok=True)
    torch.save({"state_dict": training.model.state_dict(), "meta": meta}, args.out / TORCH_NAME)
    export_onnx(training.model, args.out / ONNX_NAME, meta)
    return hashlib.sha256((args.out / ONNX_NAME).read_bytes()).hexdigest()[:16]


def _recalibrated(out: Path, figures: dict[str, Any], given: list[str]) -> dict[str, Any]:
    """A recalibrated model's figures: the training's stay; the thresholds and their curves are new."""
    trained = json.loads((out / METRICS_NAME).read_text()).get("train", {})
    renewed = (
        "threshold",
        "temperature",
        "threshold_rule",
        "threshold_curves",
        "model_alone_curves",
        "absent_threshold",
        "absent_rule",
        "absent_curves",
        "cocked_threshold",
        "cocked_rule",
        "cocked_curves",
        "onnx_sha256_16",
    )
    return {
        **trained,
        **{k: figures[k] for k in renewed},
        "recalibrated": "python -m vision.faces.train " + " ".join(given),
    }


def main(argv: list[str] | None = None) -> int:
    """Command line entry point."""
    parser = build_parser()
    given = list(argv if argv is not None else sys.argv[1:])
    args = parser.parse_args(given)
    run_started = time.time()
    _check_options(parser, args)
    checkpoint_path = args.out / CHECKPOINT_NAME
    mined = _mined_negatives(parser, args)

    import torch

    options = training_options(args)
    checkpoint = _resumed(parser, checkpoint_path, options) if args.resume else None
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    if hasattr(os, "nice"):
        os.nice(10)
    started = time.time()

    saved = torch.load(args.out / TORCH_NAME, map_location="cpu", weights_only=True) if args.recalibrate else None
    # a model recalibrated keeps its own way of seeing dice, whatever --turn says (one trained before turning
    # sees them as cut), so its calibration crops are cut as it reads them
    turned = bool(saved["meta"].get("turned", False)) if saved is not None else args.turn
    crops = _training_crops(args, mined, turned, rng)
    if not crops.calib or not crops.fit:
        parser.error(
            f"--calib-share {args.calib_share}: ninguna foto queda para "
            f"{'calibrar' if not crops.calib else 'entrenar'} (dé más fotos o cambie la parte apartada)"
        )
    print(f"recortes: {crops.sources} ({time.time() - started:.0f} s)", flush=True)
    # a model recalibrated keeps its own classes (one trained before the cocked class has 7)
    class_names = list(saved["meta"].get("classes", CLASS_NAMES)) if saved is not None else list(CLASS_NAMES)
    arch = str(saved["meta"].get("arch", "cnn")) if saved is not None else args.arch
    training = _Training(args, crops, class_names, turned, rng, arch)
    if args.minutes is not None:  # a minute (a fifth of a short run) is left to calibrate and write the model
        training.deadline = run_started + args.minutes * 60 - min(60.0, 12 * args.minutes)
    params = sum(p.numel() for p in training.model.parameters())
    start = pretrained_start(args) if saved is None and checkpoint is None else None
    if start is not None:
        try:
            loaded = load_pretrained_backbone(training.model, start)
        except (OSError, ValueError, RuntimeError) as err:
            parser.error(f"--pretrained {start}: {err}")
        print(f"desde los pesos preentrenados {start} ({loaded} tensores de la columna)", flush=True)
    elif arch == BACKBONE_ARCH and saved is None and checkpoint is None:
        print(f"sin pesos preentrenados ({PRETRAINED} no está o se pidió 'none'): se empieza al azar", flush=True)

    history: list[dict[str, Any]] = []
    first_epoch = 1
    if saved is not None:
        training.model.load_state_dict(saved["state_dict"])
        args.epochs = 0
    elif checkpoint is not None:
        history, first_epoch, seconds = training.restore(checkpoint)
        started -= seconds
        print(f"seguimos desde la época {first_epoch - 1}/{args.epochs} de {checkpoint_path}", flush=True)
    training.fit(first_epoch, history, options, started, checkpoint_path)
    training.model.eval()
    temperature = training.temperature()
    calibration = {**_calibrate(training, training.calib_probs(temperature)), "temperature": temperature}
    digest = _save_model(training, class_names, calibration, args)
    figures = {
        "command": "python -m vision.faces.train " + " ".join(a for a in given if a != "--resume"),
        "arch": arch,
        "pretrained": origin.name if (origin := pretrained_start(args) if saved is None else None) else None,
        "samples": crops.sources,
        "parameters": params,
        "epochs": args.epochs,
        "crops_per_epoch": training.steps_per_epoch * args.batch,
        "minutes": round((time.time() - started) / 60, 1),
        "history": history,
        "calibration_accuracy": history[-1]["calib_acc"] if history else None,
        **calibration,
        "onnx_sha256_16": digest,
    }
    if args.recalibrate:
        figures = _recalibrated(args.out, figures, given)
    update_metrics(args.out / METRICS_NAME, "train", figures)
    if not args.recalibrate:
        checkpoint_path.unlink(missing_ok=True)  # the training is whole: nothing left to resume
    print(
        f"umbral {calibration['threshold']}, descarte {calibration['absent_threshold']}; modelo en "
        f"{args.out / ONNX_NAME} ({params} parámetros)"
    )
    return 0


def training_options(args: argparse.Namespace) -> dict[str, Any]:
    """The options a training's result depends on, as JSON values: a resumed run must be given the same."""
    return {
        k: (str(v) if isinstance(v, Path) else [str(x) for x in v] if isinstance(v, list) else v)
        for k, v in sorted(vars(args).items())
        if k not in NOT_TRAINING
    }


def save_checkpoint(state: dict[str, Any], path: Path) -> None:
    """Write the state after an epoch so that a cut run loses at most one epoch (whole file or none)."""
    import torch

    path.parent.mkdir(parents=True, exist_ok=True)
    partial_path = path.with_suffix(".tmp")
    torch.save(state, partial_path)
    os.replace(partial_path, path)


def export_onnx(model: Any, path: Path, meta: dict[str, Any]) -> None:
    """Export to ONNX (opset 17, batch dimension free) with `meta` stored as the model's metadata."""
    import onnx
    import torch

    size = int(meta["input_size"])
    dummy = torch.zeros(1, 3, size, size)
    with warnings.catch_warnings():  # the TorchScript exporter is deprecated but needs no onnxscript
        warnings.simplefilter("ignore", DeprecationWarning)
        torch.onnx.export(
            model,
            (dummy,),
            str(path),
            input_names=["crops"],
            output_names=["logits"],
            dynamic_axes={"crops": {0: "n"}, "logits": {0: "n"}},
            opset_version=17,
            dynamo=False,
        )
    proto = onnx.load(str(path))
    entry = proto.metadata_props.add()
    entry.key, entry.value = "cacho", json.dumps(meta)
    onnx.save(proto, str(path))


if __name__ == "__main__":
    raise SystemExit(main())
