"""`cacho vision ...`: read dice on photos, evaluate the reader (or its finder alone) on a labelled folder, time it,
teach it a table's own dice."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kiosk.cli import CliError
from kiosk.commands.common import check_adapt_options, check_annotate, loaded_frames, make_annotate

if TYPE_CHECKING:
    from vision.evaluate import TruthDie
    from vision.types import Frame


def register(subparsers: Any) -> None:
    """Add `cacho vision read | eval | finder | bench | adapt | evening`."""
    vision = subparsers.add_parser("vision", help="leer dados en fotos de la mesa")
    commands = vision.add_subparsers(dest="vision_command", metavar="ACCIÓN", required=True)

    read = commands.add_parser("read", help="lee los dados de una o más fotos (el modelo se carga una vez)")
    read.add_argument("images", metavar="IMAGE", type=Path, nargs="+")
    read.add_argument("--json", action="store_true", help="una línea JSON por imagen")
    read.add_argument("--annotate", metavar="DIR", type=Path, help="escribe cada foto con cajas y caras")
    read.add_argument("--models", type=Path, help="carpeta de modelos (por defecto, models/ del proyecto)")
    _reader_options(read)
    read.set_defaults(func=run_read)

    evaluate = commands.add_parser("eval", help="mide el lector en una carpeta YOLO (images/, labels/)")
    evaluate.add_argument("folder", metavar="DIR", type=Path)
    evaluate.add_argument("--split", help="subcarpeta de images/ y labels/, p. ej. val")
    evaluate.add_argument("--json", action="store_true")
    evaluate.add_argument("--models", type=Path)
    evaluate.add_argument(
        "--details",
        metavar="FILE",
        type=Path,
        help="escribe además una línea JSON por imagen: cada dado etiquetado con su lectura (o null si no se "
        "encontró) y las lecturas que no son ningún dado etiquetado",
    )
    _reader_options(evaluate)
    evaluate.set_defaults(func=run_eval)

    finder = commands.add_parser(
        "finder", help="mide el detector solo en una carpeta YOLO: recall, precisión y techo a cada confianza"
    )
    finder.add_argument("folder", metavar="DIR", type=Path)
    finder.add_argument("--split", help="subcarpeta de images/ y labels/, p. ej. val")
    finder.add_argument(
        "--confidence",
        metavar="C",
        type=float,
        action="append",
        help="confianza del detector desde la que se cuenta una caja (repetible; por omisión 0.25, 0.03, 0.01 y "
        "0.001: las dos del lector y dos más bajas)",
    )
    finder.add_argument("--json", action="store_true")
    finder.add_argument("--models", type=Path)
    finder.set_defaults(func=run_finder)

    bench = commands.add_parser("bench", help="tiempo de lectura de una mesa 4608x2592 frente a una inferencia 640")
    bench.add_argument("--repeat", type=int, default=5)
    bench.add_argument("--json", action="store_true")
    bench.add_argument("--models", type=Path)
    bench.set_defaults(func=run_bench)

    teach = commands.add_parser(
        "adapt",
        help="enseña al lector los dados de una mesa: afina el clasificador de caras con una carpeta YOLO etiquetada "
        "y escribe una carpeta de modelos completa",
    )
    teach.add_argument("folder", metavar="DIR", type=Path, help="carpeta YOLO: images/, labels/ (clase = cara - 1)")
    teach.add_argument("--out", type=Path, required=True, help="carpeta de modelos que se escribe")
    teach.add_argument(
        "--from", dest="source", type=Path, help="carpeta de modelos de la que se parte (por defecto, models/)"
    )
    teach.add_argument("--split", help="subcarpeta de images/ y labels/ (por defecto, la carpeta entera)")
    teach.add_argument(
        "--holdout", type=float, default=0.3, help="parte de las fotos apartada para comprobar (por defecto 0.3)"
    )
    teach.add_argument("--minutes", type=float, default=4.0, help="minutos de aprendizaje (por defecto 4)")
    teach.add_argument(
        "--epochs",
        type=int,
        help="aprender exactamente estas épocas, en vez de --minutes (el mismo resultado en cualquier máquina)",
    )
    teach.add_argument("--json", action="store_true")
    teach.set_defaults(func=run_adapt)
    from kiosk.commands import evening

    evening.register(commands, _reader_options)


def _reader_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--no-lean-check",
        action="store_true",
        help="fotos no tomadas desde arriba: no marcar como montado un dado con la cara corrida en su caja, "
        "ni uno con la cara vista de costado",
    )
    parser.add_argument(
        "--upright",
        action="store_true",
        help="fotos de una cámara derecha e inclinada (la cara de arriba ya está arriba en la foto): los dados "
        "no se giran hacia afuera y no se mira si están montados",
    )
    parser.add_argument(
        "--nadir",
        choices=("centre", "markers"),
        default="centre",
        help="desde dónde se mide si un dado está montado: el centro de la imagen (por omisión), o el nadir de la "
        "cámara que dan los marcadores de asiento de cada foto (como el quiosco; el centro si no lo dicen)",
    )
    parser.add_argument(
        "--no-second-chance",
        action="store_false",
        dest="second_chance",
        help="sin segunda mirada: solo las cajas desde 0.25 (por omisión también las que el detector apenas ve, "
        "desde 0.03, si el clasificador está seguro de que son un dado; salen siempre marcadas)",
    )


def _reader(models: Path | None, args: argparse.Namespace, table_geometry: bool = False) -> Any:
    """The reader the options ask for; `table_geometry`: the photos are the table's camera's (seat markers, or
    rendered tables), so a die far bigger than that camera sees one is no die; on any other photo it is read."""
    from vision.pipeline import ModelsMissing, build_reader
    from vision.reader import ReaderSettings

    if args.upright and args.nadir == "markers":
        raise CliError("--nadir markers es para fotos tomadas desde arriba: no va con --upright")
    settings = ReaderSettings(from_above=not args.upright)
    if not table_geometry:
        settings = replace(settings, max_die_share=None)
    if args.no_lean_check:
        settings = replace(settings, lean_sideways=None, lean_inward=None, tilt_squash=None)
    if not args.second_chance:
        settings = replace(settings, second_chance=None)
    try:
        return build_reader(models, settings, processes=True)
    except ModelsMissing as error:
        raise CliError(str(error)) from None


def _tilted(reader: Any, args: argparse.Namespace) -> Any:
    """The reader for one photo: with --nadir markers, one that reads it from the nadir its seat markers give."""
    from vision.seats import TiltedReader

    return TiltedReader(reader) if args.nadir == "markers" else reader


def run_read(args: argparse.Namespace) -> int:
    """`cacho vision read IMAGE... [--json] [--annotate DIR]`."""
    import cv2

    from vision.annotate import annotate

    check_annotate(args.annotate)
    reader = _reader(args.models, args, table_geometry=args.nadir == "markers")
    make_annotate(args.annotate)
    failed: list[Path] = []
    for path, frame in loaded_frames(args.images, args.json, failed):
        tilted = _tilted(reader, args)
        reading = tilted.read(frame)
        if args.json:
            line: dict[str, Any] = {"image": str(path), "dice": [d.to_dict() for d in reading.dice]}
            if args.nadir == "markers":
                line["tilt"] = None if tilted.tilt is None else tilted.tilt.to_dict()
            print(json.dumps(line, ensure_ascii=False))
        else:
            print(describe(str(path), reading))
        if args.annotate is not None:
            out = args.annotate / (path.stem + ".annotated.jpg")
            cv2.imwrite(str(out), annotate(frame, reading))
    return 1 if failed else 0


def describe(name: str, reading: Any) -> str:
    """A readable Spanish account of one photo's dice."""
    faces = " ".join(str(d.face) + ("?" if d.uncertain else "") for d in reading.dice) or "ninguno"
    lines = [f"{name}: {len(reading.dice)} dados: {faces}"]
    for die in reading.uncertain:
        box = ", ".join(f"{v:.0f}" for v in die.box.to_list())
        lines.append(f"  dudoso en [{box}]: {'; '.join(die.reasons)} (lee {die.face})")
    return "\n".join(lines)


def _samples(args: argparse.Namespace) -> list[tuple[Path, Path]]:
    """The (image, label) paths of the YOLO folder `args.folder` (and `args.split`); none is a clear error."""
    from vision.evaluate import yolo_samples

    try:
        samples = list(yolo_samples(args.folder, args.split))
    except FileNotFoundError as error:
        raise CliError(str(error)) from None
    if not samples:
        raise CliError(f"no hay imágenes en {args.folder}")
    return samples


def _labelled(samples: list[tuple[Path, Path]], doing: str) -> Iterator[tuple[tuple[TruthDie, ...], Frame]]:
    """Each sample's labelled dice (pixels) and frame, with a progress bar; an unreadable image is a clear error."""
    from tqdm import tqdm

    from vision.evaluate import read_labels
    from vision.frames import FrameError, load_image

    for image, label in tqdm(samples, desc=doing, unit="img", file=sys.stderr, disable=None):
        try:
            frame = load_image(image)
        except FrameError as error:
            raise CliError(str(error)) from None
        height, width = frame.shape[:2]
        yield read_labels(label, width, height), frame


def run_eval(args: argparse.Namespace) -> int:
    """`cacho vision eval DIR [--split S] [--json] [--details FILE]`."""
    from vision.evaluate import evaluate, image_account

    samples = _samples(args)
    if args.details is not None and not args.details.parent.is_dir():
        raise CliError(f"no existe la carpeta de {args.details}")
    # rendered tables (vision.synth: a meta/ sidecar per image) are seen by the table's camera, as is --nadir markers
    table_geometry = args.nadir == "markers" or (args.folder / "meta").is_dir()
    reader = _reader(args.models, args, table_geometry)
    pairs = [(truth, _tilted(reader, args).read(frame).dice) for truth, frame in _labelled(samples, "leyendo")]
    if args.details is not None:
        lines = (image_account(str(image), *pair) for (image, _), pair in zip(samples, pairs, strict=True))
        args.details.write_text("".join(json.dumps(line, ensure_ascii=False) + "\n" for line in lines))
    report = evaluate(pairs)
    if args.json:
        print(json.dumps(report.to_dict()))
    else:
        print("\n".join(report.lines()))
    return 0


FINDER_CONFIDENCES = (0.25, 0.03, 0.01, 0.001)  # the reader's two (found, second_chance) and two lower


def run_finder(args: argparse.Namespace) -> int:
    """`cacho vision finder DIR [--split S] [--confidence C ...] [--json]`: the finder alone, per confidence."""
    from vision.evaluate import finder_points
    from vision.finder import YoloFinder
    from vision.pipeline import MODELS

    confidences = sorted(set(args.confidence or FINDER_CONFIDENCES), reverse=True)
    wrong = [c for c in confidences if not 0 < c <= 1]
    if wrong:
        raise CliError(f"--confidence va entre 0 (sin incluir) y 1, no {wrong[0]:g}")
    samples = _samples(args)
    weights = (args.models or MODELS) / "dice" / "finder.pt"
    if not weights.exists():
        raise CliError(f"faltan los modelos entrenados: {weights}")
    finder = YoloFinder(weights, confidence=confidences[-1])
    pairs = [(truth, finder.detect(frame)) for truth, frame in _labelled(samples, "buscando")]
    points = finder_points(pairs, confidences)
    if args.json:
        print(json.dumps({"finder": str(weights), "points": [p.to_dict() for p in points]}))
        return 0
    print(f"detector {weights} · imágenes {len(pairs)} · dados etiquetados {points[0].labelled}")
    print("\n".join(p.line() for p in points))
    return 0


def run_bench(args: argparse.Namespace) -> int:
    """`cacho vision bench`: full-resolution read vs one plain 640 inference, per backend."""
    from vision.bench import run

    try:
        results = run(args.models, repeat=args.repeat)
    except FileNotFoundError as error:
        raise CliError(str(error)) from None
    if args.json:
        print(json.dumps(results))
        return 0
    for row in results["backends"]:
        if "error" in row:
            print(f"{row['backend']:8s} no disponible: {row['error']}")
            continue
        print(
            f"{row['backend']:8s} lectura 4608x2592 ({row['dice']} dados): {row['read_ms']:.0f} ms · "
            f"inferencia 640: {row['plain640_ms']:.0f} ms · razón {row['ratio']:.2f}"
        )
    return 0


def run_adapt(args: argparse.Namespace) -> int:
    """`cacho vision adapt`: fine-tune the face classifier on a table's labelled dice; before and after."""
    from tqdm import tqdm

    from vision import words
    from vision.faces.adapt import AdaptError, adapt
    from vision.pipeline import MODELS

    check_adapt_options(args)
    bar = tqdm(total=100, desc="aprendiendo", unit="%", file=sys.stderr, disable=None)

    def progress(share: float) -> None:
        bar.update(round(share * 100) - bar.n)

    try:
        result = adapt(
            args.folder,
            args.out,
            args.source or MODELS,
            split=args.split,
            holdout=args.holdout,
            minutes=args.minutes,
            epochs=args.epochs,
            command="cacho vision adapt " + " ".join(sys.argv[3:]),
            progress=progress,
        )
    except AdaptError as error:
        raise CliError(str(error)) from None
    finally:
        bar.close()
    if args.json:
        print(json.dumps(result.to_dict(), ensure_ascii=False))
    else:
        b, a = result.before, result.after
        print(
            f"aprendió de {result.fit_dice} dados; comprobado en {result.held_out_dice} dados apartados "
            f"({result.epochs} épocas, {result.seconds:.0f} s)"
        )
        if result.held_out_unchecked:
            left = words.count(result.held_out_unchecked, "dado apartado no cuenta", "dados apartados no cuentan")
            print(f"{left}: sin comprobar por el coordinador ni leídos igual por los dos lectores")
        for when, held in (("antes", b), ("ahora", a)):
            print(
                f"{when}: {held.load} de {held.dice} por confirmar ({held.wrong} equivocados sin marcar); "
                f"el clasificador acierta {held.top1} de {held.dice}"
            )
        alone = "nunca" if result.alone_threshold is None else f"desde {result.alone_threshold:.2f}"
        print(f"niveles: {result.threshold:.2f} con los puntos de acuerdo; sin contar los puntos: {alone}")
    if not result.written:
        raise CliError(
            f"el modelo adaptado lee peor los dados apartados (antes {result.before.load} por confirmar, ahora "
            f"{result.after.load}): no se escribe {args.out}"
        )
    if not args.json:
        print(f"modelos en {args.out}: úselos con --models {args.out}")
    return 0
