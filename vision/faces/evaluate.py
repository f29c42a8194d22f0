"""Measure both face readers and their combination on held-out crops (ground-truth boxes).

python -m vision.faces.evaluate --real ../shared/data/dice-real [--model-dir models/faces] [--failures DIR]
python -m vision.faces.evaluate --real data/synth/tables-heldout --split '' --section rendered_heldout
python -m vision.faces.evaluate --real-sets ../shared/data [--part val] [--json] [--failures DIR]
"""

from __future__ import annotations

import argparse
import json
import time
from collections import Counter
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.faces.classifier import MODEL_DIR, FaceClassifier, guess_from_probabilities, likeliest_face
from vision.faces.crops import labelled_dice, reader_crop
from vision.faces.pips import PipCounter
from vision.faces.reader import combine
from vision.faces.realsets import PARTS, RealSet, eval_crops, photos, real_sets
from vision.faces.train import METRICS_NAME, VAL_SPLIT, update_metrics
from vision.types import FaceGuess, FaceVerdict, Frame


def _share(part: int, whole: int) -> float:
    return round(part / whole, 4) if whole else 0.0


def measure(
    crops: list[Frame], faces: list[int], images: list[str], model_dir: Path, turned: list[Frame] | None = None
) -> dict[str, Any]:
    """Every figure of the evaluation for these crops and their true faces (`turned`: the same crops turned
    outward-up, for a classifier trained so)."""
    return _measured(crops, faces, images, model_dir, turned)[0]


def _measured(
    crops: list[Frame], faces: list[int], images: list[str], model_dir: Path, turned: list[Frame] | None = None
) -> tuple[dict[str, Any], _Tally]:
    """`measure`'s figures and the tally they come from (each die's verdict, for the failures sheet)."""
    classifier = FaceClassifier(model_dir)
    counter = PipCounter(processes=True)  # a `python -m` entry point: worker processes are safe
    t0 = time.perf_counter()
    probs = classifier.probabilities(turned if turned is not None and classifier.turned else crops)
    cnn_ms = (time.perf_counter() - t0) * 1000 / max(1, len(crops))
    t0 = time.perf_counter()
    pip_guesses = counter.read_faces(crops)
    pip_ms = (time.perf_counter() - t0) * 1000 / max(1, len(crops))
    tally = _Tally(faces, images, probs, pip_guesses, classifier.threshold, classifier.alone_threshold)
    figures = {
        "dice": tally.n,
        "images": len(tally.per_image),
        "classifier": {**tally.classifier(), "ms_per_crop": round(cnn_ms, 2), "backend": classifier.backend},
        "pips": {**tally.pips(), "ms_per_crop": round(pip_ms, 2)},
        "combined": tally.combined(),
        "combined_if_pip_abstention_did_not_flag": tally.lenient(),
        "classifier_errors_caught": tally.caught(),
    }
    return figures, tally


class _Tally:
    """Each die's readings beside its true face: the classifier's likeliest face, the pip count, their verdict."""

    def __init__(
        self,
        faces: list[int],
        images: list[str],
        probs: np.ndarray,
        pip_guesses: list[FaceGuess],
        threshold: float,
        alone: float | None = None,
    ) -> None:
        self.n, self.threshold, self.faces = len(faces), threshold, faces
        self.cnn_guesses = [guess_from_probabilities(row) for row in probs]
        self.pip_guesses = pip_guesses
        # an adapted model's level alone, as the reader applies it
        self.verdicts = [combine(m, p, threshold, alone) for m, p in zip(self.cnn_guesses, pip_guesses, strict=True)]
        self.best = [int(face) for face in likeliest_face(probs)]
        self.cnn_right = [b == f for b, f in zip(self.best, faces, strict=True)]
        self.pip_answered = [g.face is not None for g in pip_guesses]
        self.pip_right = [g.face == f for g, f in zip(pip_guesses, faces, strict=True)]
        self.accepted = [not v.uncertain for v in self.verdicts]
        self.right = [v.face == f for v, f in zip(self.verdicts, faces, strict=True)]
        self.cnn_wrong = [i for i in range(self.n) if not self.cnn_right[i]]
        self.pips_flag = [p.face is None or p.face != b for p, b in zip(pip_guesses, self.best, strict=True)]
        self.pips_disagree = [p.face is not None and p.face != b for p, b in zip(pip_guesses, self.best, strict=True)]
        self.cnn_unsure = [g.face is None or g.confidence < threshold for g in self.cnn_guesses]
        self.per_image: dict[str, bool] = {}
        for img, ok, good in zip(images, self.accepted, self.right, strict=True):
            self.per_image[img] = self.per_image.get(img, True) and ok and good

    def classifier(self) -> dict[str, Any]:
        """The classifier alone: its likeliest face, and how often it is sure (and right when sure)."""
        n, unsure, right = self.n, self.cnn_unsure, self.cnn_right
        confusion: Counter[str] = Counter(f"{f}->{b}" for f, b in zip(self.faces, self.best, strict=True) if f != b)
        return {
            "accuracy": _share(sum(right), n),
            "threshold": self.threshold,
            "confident_share": _share(n - sum(unsure), n),
            "confident_accuracy": _share(sum(1 for i in range(n) if not unsure[i] and right[i]), n - sum(unsure)),
            "errors": len(self.cnn_wrong),
            "confusions": dict(confusion.most_common()),
        }

    def pips(self) -> dict[str, Any]:
        """The pip counter alone: how often it answers, and how often right."""
        right, answered = sum(self.pip_right), sum(self.pip_answered)
        return {
            "accuracy": _share(right, self.n),
            "answered_share": _share(answered, self.n),
            "answered_accuracy": _share(right, answered),
            "wrong_answers": answered - right,
        }

    def combined(self) -> dict[str, Any]:
        """The pair as the reader uses it: accepted, right when accepted, silent errors, why the rest are flagged."""
        n, accepted, right = self.n, self.accepted, self.right
        reasons: Counter[str] = Counter()
        for v in self.verdicts:
            for reason in v.reasons:
                reasons[reason.split(" (")[0]] += 1
        return {
            "accepted_share": _share(sum(accepted), n),
            "accepted_accuracy": _share(sum(1 for a, r in zip(accepted, right, strict=True) if a and r), sum(accepted)),
            "uncertain_share": _share(n - sum(accepted), n),
            "silent_errors": sum(a and not r for a, r in zip(accepted, right, strict=True)),
            "images_all_accepted_and_right": _share(sum(self.per_image.values()), len(self.per_image)),
            "uncertain_reasons": dict(reasons.most_common()),
        }

    def lenient(self) -> dict[str, Any]:
        """For comparison only: the same rule if a pip counter that cannot count did not flag the die."""
        n = self.n
        lenient = [not (self.cnn_unsure[i] or self.pips_disagree[i]) for i in range(n)]
        return {
            "accepted_share": _share(sum(lenient), n),
            "accepted_accuracy": _share(sum(1 for i in range(n) if lenient[i] and self.cnn_right[i]), sum(lenient)),
            "silent_errors": sum(1 for i in range(n) if lenient[i] and not self.cnn_right[i]),
        }

    def caught(self) -> dict[str, Any]:
        """The classifier's errors, and which check flags each."""
        wrong, flag, disagree, unsure = self.cnn_wrong, self.pips_flag, self.pips_disagree, self.cnn_unsure
        return {
            "classifier_errors": len(wrong),
            "flagged_uncertain": sum(1 for i in wrong if not self.accepted[i]),
            "caught_by_pip_counter": sum(1 for i in wrong if flag[i]),
            "caught_by_pip_disagreement": sum(1 for i in wrong if disagree[i]),
            "caught_only_by_pip_counter": sum(1 for i in wrong if flag[i] and not unsure[i]),
            "caught_by_classifier_threshold": sum(1 for i in wrong if unsure[i]),
        }


def write_failures(
    folder: Path, crops: list[Frame], faces: list[int], verdicts: list[FaceVerdict], limit: int = 120
) -> int:
    """A contact sheet of the dice the readers got wrong or flagged: truth, model, pips on each tile."""
    tiles = []
    for crop, face, verdict in zip(crops, faces, verdicts, strict=True):
        if verdict.face == face and not verdict.uncertain:
            continue
        model, pips = verdict.guesses
        tile = cv2.resize(crop, (112, 112))
        colour = (0, 0, 255) if not verdict.uncertain else (0, 160, 255)
        cv2.putText(tile, f"{face} m{model.face} p{pips.face}", (2, 14), cv2.FONT_HERSHEY_SIMPLEX, 0.45, colour, 2)
        tiles.append(tile)
    tiles = tiles[:limit]
    if not tiles:
        return 0
    while len(tiles) % 10:
        tiles.append(np.zeros_like(tiles[0]))
    folder.mkdir(parents=True, exist_ok=True)
    sheet = np.vstack([np.hstack(tiles[i : i + 10]) for i in range(0, len(tiles), 10)])
    cv2.imwrite(str(folder / "face_failures.png"), sheet)
    return len(tiles)


def build_parser() -> argparse.ArgumentParser:
    """The command line."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    data = parser.add_mutually_exclusive_group(required=True)
    data.add_argument("--real", type=Path, help="carpeta YOLO de fotos reales (se mide su val)")
    data.add_argument(
        "--real-sets",
        type=Path,
        metavar="RAIZ",
        help="carpeta de datos (../shared/data): una fila por conjunto real registrado (vision.faces.realsets)",
    )
    parser.add_argument(
        "--split",
        default=None,
        help="subcarpeta de images/ (val); '' para una carpeta sin splits, como mesas renderizadas apartadas",
    )
    parser.add_argument("--prefix", default="", help="solo fotos cuyo nombre empieza así (p. ej. byler_)")
    parser.add_argument("--section", default="evaluate", help="sección de metrics.json donde escribir")
    parser.add_argument("--model-dir", type=Path, default=MODEL_DIR)
    parser.add_argument("--failures", type=Path, help="carpeta donde dejar una hoja con los dados fallados")
    parser.add_argument("--no-write", action="store_true", help="no escribir metrics.json")
    parser.add_argument(
        "--from-above", action="store_true", help="fotos desde arriba: el modelo entrenado girado ve los dados girados"
    )
    parser.add_argument("--part", help="con --real-sets: la parte de cada conjunto, train o val (val)")
    parser.add_argument("--json", action="store_true", help="con --real-sets: las cifras como un objeto JSON")
    return parser


def _print_summary(figures: dict[str, Any], trained_on: bool) -> None:
    cls, pips, comb, caught = (
        figures["classifier"],
        figures["pips"],
        figures["combined"],
        figures["classifier_errors_caught"],
    )
    print(f"{figures['dice']} dados en {figures['images']} fotos ({figures['data']})")
    if trained_on:
        print("ojo: el modelo se entrenó con estas fotos; solo las cifras del contador de puntos valen aquí")
    print(f"modelo: acierto {cls['accuracy']:.2%} ({cls['errors']} errores), {cls['ms_per_crop']} ms/dado")
    print(
        f"puntos: acierto {pips['accuracy']:.2%}, responde {pips['answered_share']:.2%}, "
        f"acierto al responder {pips['answered_accuracy']:.2%}, {pips['ms_per_crop']} ms/dado"
    )
    print(
        f"combinado: aceptados {comb['accepted_share']:.2%} con acierto {comb['accepted_accuracy']:.2%}, "
        f"dudosos {comb['uncertain_share']:.2%}, errores silenciosos {comb['silent_errors']}"
    )
    print(
        f"errores del modelo: {caught['classifier_errors']}; marcados dudosos {caught['flagged_uncertain']}; "
        f"atrapados por el contador de puntos {caught['caught_by_pip_counter']} "
        f"(solo por él {caught['caught_only_by_pip_counter']})"
    )


def main(argv: list[str] | None = None) -> int:
    """Command line entry point."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.real_sets is not None:
        return main_sets(parser, args)
    if args.part is not None or args.json:
        parser.error("--part y --json van con --real-sets")
    if args.split is None:
        args.split = VAL_SPLIT
    crops: list[Frame] = []
    turned: list[Frame] | None = [] if args.from_above else None
    faces: list[int] = []
    images: list[str] = []
    split = args.split or None
    trained_on = split not in (None, VAL_SPLIT)  # a real train split: only the pip counter's figures count
    for frame, box, face, image in labelled_dice(args.real, split):
        if not image.startswith(args.prefix):
            continue
        crops.append(reader_crop(frame, box))
        if turned is not None:
            turned.append(reader_crop(frame, box, turned=True))
        faces.append(face)
        images.append(image)
    figures, tally = _measured(crops, faces, images, args.model_dir, turned)
    figures["data"] = f"{args.real} ({args.split or 'todo'}{', ' + args.prefix + '*' if args.prefix else ''})"
    _print_summary(figures, trained_on)
    if args.failures:
        write_failures(args.failures, crops, faces, tally.verdicts)
    if not args.no_write:
        if trained_on:  # the classifier has seen these photos: keep only the pip counter's figures
            figures = {key: figures[key] for key in ("data", "dice", "images", "pips")}
        update_metrics(args.model_dir / METRICS_NAME, args.section, figures)
    return 0


def set_figures(tally: _Tally) -> dict[str, Any]:
    """One real set's row: the classifier alone, the pip counter alone, and the pair as the reader uses it."""
    n = tally.n
    sure = [not u for u in tally.cnn_unsure]
    accepted = sum(tally.accepted)
    silent = sum(a and not r for a, r in zip(tally.accepted, tally.right, strict=True))
    answered = sum(tally.pip_answered)
    return {
        "dice": n,
        "classifier": {
            "accuracy": _share(sum(tally.cnn_right), n),
            "sure_share": _share(sum(sure), n),
            "sure_accuracy": _share(sum(s and r for s, r in zip(sure, tally.cnn_right, strict=True)), sum(sure)),
        },
        "pips": {"answered_share": _share(answered, n), "answered_accuracy": _share(sum(tally.pip_right), answered)},
        "combined": {
            "accepted_share": _share(accepted, n),
            "silent_errors": silent,
            "silent_error_share": _share(silent, accepted),
        },
    }


def measure_sets(
    sets: list[RealSet], root: Path, part: str, model_dir: Path, failures: Path | None = None
) -> dict[str, Any]:
    """Every real set's part read by the shipped readers, one row a set and one for them all; `failures`: a
    contact sheet of each set's flagged or wrong dice in failures/<set>/."""
    classifier = FaceClassifier(model_dir)
    counter = PipCounter(processes=True)  # a `python -m` entry point: worker processes are safe
    rows: dict[str, Any] = {}
    pooled: tuple[list[int], list[str], list[np.ndarray], list[FaceGuess]] = ([], [], [], [])
    for rs in sets:
        crops: list[Frame] = []
        seen: list[Frame] = []
        faces: list[int] = []
        images: list[str] = []
        for crop, view, face, image in eval_crops(rs, root, part, turned=classifier.turned):
            crops.append(crop)
            seen.append(view)
            faces.append(face)
            images.append(image)
        probs = classifier.probabilities(seen)
        pips = counter.read_faces(crops)
        tally = _Tally(faces, images, probs, pips, classifier.threshold, classifier.alone_threshold)
        rows[rs.name] = {"photos": len(photos(rs, root, part)), **set_figures(tally)}
        if failures is not None:
            write_failures(failures / rs.name, crops, faces, tally.verdicts)
        pooled[0].extend(faces)
        pooled[1].extend(f"{rs.name}/{image}" for image in images)
        pooled[2].append(probs)
        pooled[3].extend(pips)
    every = _Tally(
        pooled[0], pooled[1], np.concatenate(pooled[2]), pooled[3], classifier.threshold, classifier.alone_threshold
    )
    total = {"photos": sum(row["photos"] for row in rows.values()), **set_figures(every)}
    return {
        "root": str(root),
        "part": part,
        "model_dir": str(model_dir),
        "threshold": classifier.threshold,
        "turned": classifier.turned,
        "sets": rows,
        "all": total,
    }


def _print_sets(figures: dict[str, Any]) -> None:
    print(
        f"parte {figures['part']} de cada conjunto real en {figures['root']} "
        f"(modelo {figures['model_dir']}, seguro = probabilidad >= {figures['threshold']:.2f})"
    )
    if figures["part"] != VAL_SPLIT:
        print("ojo: el clasificador pudo entrenarse con fotos de la parte train")
    head = (
        f"{'conjunto':<22} {'fotos':>5} {'dados':>6} {'modelo':>7} {'seguro':>7} {'bien|seg':>8} "
        f"{'puntos':>7} {'bien|ptos':>9} {'aceptados':>9} {'err. silenciosos':>16}"
    )
    print(head)
    for name, row in [*figures["sets"].items(), ("todos", figures["all"])]:
        cls, pips, comb = row["classifier"], row["pips"], row["combined"]
        silent = f"{comb['silent_errors']} ({comb['silent_error_share']:.2%})"
        print(
            f"{name:<22} {row['photos']:>5} {row['dice']:>6} {cls['accuracy']:>7.1%} {cls['sure_share']:>7.1%} "
            f"{cls['sure_accuracy']:>8.1%} {pips['answered_share']:>7.1%} {pips['answered_accuracy']:>9.1%} "
            f"{comb['accepted_share']:>9.1%} {silent:>16}"
        )
    print(
        "modelo: acierto del clasificador solo; seguro: parte con probabilidad >= umbral; bien|seg: acierto entre "
        "los seguros; puntos: parte que el contador de puntos responde; bien|ptos: su acierto al responder; "
        "aceptados: parte no dudosa del lector; err. silenciosos: aceptados con la cara mal (y su parte)"
    )


def main_sets(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    """--real-sets: every registered real set's part, one row a set (nothing written to metrics.json)."""
    given = {"--split": args.split is not None, "--prefix": args.prefix != "", "--from-above": args.from_above}
    given["--section"] = args.section != "evaluate"
    misplaced = [flag for flag, on in given.items() if on]
    if misplaced:
        parser.error(f"{', '.join(misplaced)} va con --real, no con --real-sets")
    part = VAL_SPLIT if args.part is None else args.part
    if part not in PARTS:
        parser.error(f"parte desconocida {part!r}: {' o '.join(PARTS)}")
    try:
        sets = real_sets(args.real_sets)
        FaceClassifier(args.model_dir)
    except FileNotFoundError as error:
        parser.error(str(error))
    figures = measure_sets(sets, args.real_sets, part, args.model_dir, args.failures)
    if args.json:
        print(json.dumps(figures))
    else:
        _print_sets(figures)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
