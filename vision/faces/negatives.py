"""Hard negatives: what the finder takes for a die on labelled TRAIN photos, for the classifier's "no die" class.

    python -m vision.faces.negatives FOLDER [--split train] --out data/negatives/NAME.json

Runs the finder on every photo of the split and keeps each detection that touches no labelled die (nor the
photo's edge, where a cut die may have gone unlabelled) and that the committed face readers do not take for a
die: photo sets leave some dice unlabelled, and one of those taught as "no die" would teach dropping dice.
The file maps an image name to its boxes in pixels:
``{"finder": path, "confidence": c, "faces": path, "not_dice": path or null, "folder": path, "split": name,
"images": {"x.jpg": [[x1, y1, x2, y2], ...]}}``.
A val split is refused: its photos must stay out of training. Dice found by eye that a photo set leaves
unlabelled (`--unlabelled`, by default models/faces/unlabelled_dice.txt) count as labelled dice.

What the readers take for a die is left out, so it must be judged by eye: `--review FILE` writes those boxes
(`[{"n", "image", "box", "finder", "face", "p"}, ...]`) and numbered contact sheets FILE-NN.png beside it, and
`--confidence` lowers the finder's floor to see what it doubts. Boxes judged to be no die go to `--not-dice`
(by default models/faces/not_dice.txt, the same format as the unlabelled list): they are added to the photo's
negatives whatever the readers say.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import cv2
import numpy as np

from vision.faces.classifier import MODEL_DIR
from vision.faces.crops import crop_die, read_yolo_labels, yolo_pairs
from vision.frames import load_image
from vision.types import Box, Detection, Detector, FaceReader, Frame

VAL_SPLITS = ("val", "valid", "test")
EDGE = 2.0  # px: a detection this close to the photo's edge may be a cut die nobody labelled
UNLABELLED = MODEL_DIR / "unlabelled_dice.txt"
NOT_DICE = MODEL_DIR / "not_dice.txt"
LIKE_A_DIE = 0.5  # a classifier this sure of some face, or any pip count, and the crop may be a die


def far_from_dice(box: Box, dice: Sequence[Box], width: int, height: int) -> bool:
    """A detection that overlaps no labelled die and stays off the photo's edge."""
    if box.x1 < EDGE or box.y1 < EDGE or box.x2 > width - EDGE or box.y2 > height - EDGE:
        return False
    return all(box.iou(d) == 0.0 for d in dice)


def read_unlabelled(path: Path) -> dict[str, list[Box]]:
    """{image name: boxes} of a list of unlabelled dice: `name x1 y1 x2 y2` per line, # for comments."""
    out: dict[str, list[Box]] = {}
    for number, line in enumerate(path.read_text().splitlines(), start=1):
        parts = line.split("#", 1)[0].split()
        if not parts:
            continue
        if len(parts) != 5:
            raise ValueError(f"{path}:{number}: se esperaba 'imagen x1 y1 x2 y2'")
        out.setdefault(parts[0], []).append(Box(*(float(v) for v in parts[1:])))
    return out


def looks_like_a_die(classifier: FaceReader, pips: FaceReader) -> Callable[[Sequence[Frame]], list[bool]]:
    """Per crop: whether either reader sees a face on it (the classifier at LIKE_A_DIE, the pips at all)."""

    def check(crops: Sequence[Frame]) -> list[bool]:
        model, counted = classifier.read_faces(crops), pips.read_faces(crops)
        return [
            (m.face is not None and m.confidence >= LIKE_A_DIE) or p.face is not None
            for m, p in zip(model, counted, strict=True)
        ]

    return check


def mine(
    finder: Detector,
    folder: Path,
    split: str | None,
    looks_like: Callable[[Sequence[Frame]], list[bool]] | None = None,
    unlabelled: dict[str, list[Box]] | None = None,
    *,
    not_dice: dict[str, list[Box]] | None = None,
    left_out: list[tuple[str, Detection]] | None = None,
) -> dict[str, list[list[float]]]:
    """{image name: boxes of the finder's detections far from every labelled die (and `unlabelled` one), and
    not `looks_like` a die, then the `not_dice` boxes judged by eye} over a YOLO folder; what `looks_like` a die
    is appended to `left_out`. A `not_dice` box on a labelled die is a ValueError."""
    out: dict[str, list[list[float]]] = {}
    pairs = yolo_pairs(folder, split)
    started = time.time()
    for number, (image_path, label_path) in enumerate(pairs, start=1):
        frame = load_image(image_path)
        height, width = frame.shape[:2]
        dice = [box for _, box in read_yolo_labels(label_path, width, height)]
        dice += (unlabelled or {}).get(image_path.name, [])
        found = [d for d in finder.detect(frame) if far_from_dice(d.box, dice, width, height)]
        if found and looks_like is not None:
            like = looks_like([crop_die(frame, d.box) for d in found])
            if left_out is not None:
                left_out += [(image_path.name, d) for d, die in zip(found, like, strict=True) if die]
            found = [d for d, die in zip(found, like, strict=True) if not die]
        boxes = [d.box for d in found]
        for box in (not_dice or {}).get(image_path.name, []):
            if any(box.iou(d) > 0.0 for d in dice):
                raise ValueError(f"{image_path.name} {box.to_list()}: juzgado 'sin dado' pero toca un dado etiquetado")
            boxes.append(box)
        if boxes:
            out[image_path.name] = [[round(v, 1) for v in b.to_list()] for b in boxes]
        if number % 50 == 0 or number == len(pairs):
            print(f"{number}/{len(pairs)} fotos, {time.time() - started:.0f} s", file=sys.stderr, flush=True)
    return out


def for_review(
    images: Path, left_out: Sequence[tuple[str, Detection]], classifier: FaceReader
) -> list[dict[str, object]]:
    """Numbered records of what the readers took for a die, with the classifier's face and confidence on it."""
    records: list[dict[str, object]] = []
    for name in dict.fromkeys(n for n, _ in left_out):
        frame = load_image(images / name)
        found = [d for n, d in left_out if n == name]
        for d, guess in zip(found, classifier.read_faces([crop_die(frame, d.box) for d in found]), strict=True):
            records.append(
                {
                    "n": len(records),
                    "image": name,
                    "box": [round(v, 1) for v in d.box.to_list()],
                    "finder": round(d.confidence, 3),
                    "face": guess.face,
                    "p": round(guess.confidence, 3),
                }
            )
    return records


def contact_sheets(records: Sequence[dict[str, Any]], images: Path, out: Path, per: int = 20) -> list[Path]:
    """Sheets of numbered tiles, 5 a row, each box in red on its surroundings: out-00.png, out-01.png, ..."""
    side, columns = 280, 5
    tiles = []
    for record in records:
        frame = load_image(images / record["image"])
        x1, y1, x2, y2 = (int(v) for v in record["box"])
        reach = int(max(x2 - x1, y2 - y1) * 1.6) + 6
        cx, cy = (x1 + x2) // 2, (y1 + y2) // 2
        ox, oy = max(0, cx - reach), max(0, cy - reach)
        around = frame[oy : cy + reach, ox : cx + reach].copy()
        cv2.rectangle(around, (x1 - ox, y1 - oy), (x2 - ox, y2 - oy), (0, 0, 255), 1)
        tile = cv2.resize(around, (side, side), interpolation=cv2.INTER_CUBIC)
        cv2.rectangle(tile, (0, 0), (70, 24), (0, 0, 0), -1)
        cv2.putText(tile, str(record["n"]), (3, 19), cv2.FONT_HERSHEY_SIMPLEX, 0.7, (0, 255, 255), 2)
        tiles.append(tile)
    written = []
    out.parent.mkdir(parents=True, exist_ok=True)
    for k in range(0, len(tiles), per):
        sheet = tiles[k : k + per]
        sheet += [np.zeros((side, side, 3), np.uint8)] * (-len(sheet) % columns)
        path = out.with_name(f"{out.stem}-{k // per:02d}.png")
        rows = [np.hstack(sheet[i : i + columns]) for i in range(0, len(sheet), columns)]
        if not cv2.imwrite(str(path), np.vstack(rows)):
            raise OSError(f"{path}: no se pudo escribir la hoja")
        written.append(path)
    return written


def read_negatives(path: Path) -> tuple[str, dict[str, list[Box]]]:
    """(the folder they were mined on, as written; its boxes by image name) of one negatives file."""
    data = json.loads(path.read_text())
    if not isinstance(data, dict) or not isinstance(data.get("images"), dict):
        raise ValueError(f"{path}: no es un archivo de negativos (falta 'images')")
    boxes = {name: [Box(*map(float, b)) for b in found] for name, found in data["images"].items()}
    return str(data.get("folder", "")), boxes


def load_negatives(paths: Sequence[Path]) -> dict[str, list[Box]]:
    """Mined boxes of several files, by image name."""
    out: dict[str, list[Box]] = {}
    for path in paths:
        for name, boxes in read_negatives(path)[1].items():
            out.setdefault(name, []).extend(boxes)
    return out


def build_parser() -> argparse.ArgumentParser:
    """The command line."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("folder", type=Path, help="carpeta YOLO (images/, labels/)")
    parser.add_argument("--split", default="train", help="partición (vacía: la carpeta entera)")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--finder", type=Path, default=None, help="pesos del detector (por omisión los de models/)")
    parser.add_argument("--faces", type=Path, default=MODEL_DIR, help="clasificador que descarta lo que parece dado")
    parser.add_argument("--unlabelled", type=Path, default=UNLABELLED, help="dados sin etiqueta vistos a ojo")
    parser.add_argument("--not-dice", type=Path, default=NOT_DICE, help="cajas juzgadas a ojo: no son dados")
    parser.add_argument("--confidence", type=float, default=None, help="confianza mínima del detector (0-1)")
    parser.add_argument(
        "--review", type=Path, default=None, help="JSON (y hojas PNG) de lo descartado por parecer dado"
    )
    return parser


def _checked_split(parser: argparse.ArgumentParser, args: argparse.Namespace) -> str | None:
    """The split to mine (None: the whole folder), once the options are checked (parser.error otherwise)."""
    if args.confidence is not None and not 0.0 < args.confidence < 1.0:
        parser.error(f"--confidence {args.confidence}: debe estar entre 0 y 1")
    split: str | None = args.split or None
    if split in VAL_SPLITS:
        parser.error(f"--split {split}: las fotos de validación no se usan para entrenar")
    if not (args.folder / "images").is_dir():
        parser.error(f"{args.folder} no es una carpeta YOLO (falta images/)")
    return split


def _write_review(
    args: argparse.Namespace, split: str | None, left_out: list[tuple[str, Detection]], classifier: FaceReader
) -> None:
    """The boxes left out for looking like a die, as JSON and contact sheets beside --review."""
    images_dir = args.folder / "images" / split if split else args.folder / "images"
    records = for_review(images_dir, left_out, classifier)
    args.review.parent.mkdir(parents=True, exist_ok=True)
    args.review.write_text(json.dumps(records, indent=1) + "\n")
    sheets = contact_sheets(records, images_dir, args.review)
    print(f"{len(records)} cajas que parecen dado, para revisar a ojo -> {args.review} ({len(sheets)} hojas)")


def main(argv: list[str] | None = None) -> int:
    """Command line entry point."""
    parser = build_parser()
    args = parser.parse_args(argv)
    split = _checked_split(parser, args)

    from vision.faces.classifier import FaceClassifier
    from vision.faces.pips import PipCounter
    from vision.finder import DEFAULT_WEIGHTS, YoloFinder

    weights = args.finder or DEFAULT_WEIGHTS
    try:
        unlabelled = read_unlabelled(args.unlabelled) if args.unlabelled.is_file() else {}
        not_dice = read_unlabelled(args.not_dice) if args.not_dice.is_file() else {}
    except ValueError as err:
        parser.error(str(err))
    classifier = FaceClassifier(args.faces)
    finder = YoloFinder(weights) if args.confidence is None else YoloFinder(weights, confidence=args.confidence)
    left_out: list[tuple[str, Detection]] = []
    try:
        images = mine(
            finder,
            args.folder,
            split,
            looks_like_a_die(classifier, PipCounter()),
            unlabelled,
            not_dice=not_dice,
            left_out=left_out,
        )
    except ValueError as err:
        parser.error(f"--not-dice {args.not_dice}: {err}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    record = {
        "finder": str(weights),
        "confidence": finder.confidence,
        "faces": str(args.faces),
        "not_dice": str(args.not_dice) if not_dice else None,
        "folder": str(args.folder),
        "split": split,
        "images": images,
    }
    args.out.write_text(json.dumps(record, indent=1) + "\n")
    print(f"{sum(len(b) for b in images.values())} negativos en {len(images)} fotos -> {args.out}")
    if args.review is not None:
        _write_review(args, split, left_out, classifier)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
