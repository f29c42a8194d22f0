"""Hard negatives: what the finder takes for a die on labelled TRAIN photos, for the classifier's "no die" class.

    python -m vision.faces.negatives FOLDER [--split train] --out data/negatives/NAME.json

Runs the finder on every photo of the split and keeps each detection that touches no labelled die (nor the
photo's edge, where a cut die may have gone unlabelled) and that the committed face readers do not take for a
die: photo sets leave some dice unlabelled, and one of those taught as "no die" would teach dropping dice.
The file maps an image name to its boxes in pixels:
``{"finder": path, "folder": path, "split": name, "images": {"x.jpg": [[x1, y1, x2, y2], ...]}}``.
A val split is refused: its photos must stay out of training. Dice found by eye that a photo set leaves
unlabelled (`--unlabelled`, by default models/faces/unlabelled_dice.txt) count as labelled dice.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path

from vision.faces.classifier import MODEL_DIR
from vision.faces.crops import crop_die, read_yolo_labels, yolo_pairs
from vision.frames import load_image
from vision.types import Box, Detector, FaceReader, Frame

VAL_SPLITS = ("val", "valid", "test")
EDGE = 2.0  # px: a detection this close to the photo's edge may be a cut die nobody labelled
UNLABELLED = MODEL_DIR / "unlabelled_dice.txt"
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
) -> dict[str, list[list[float]]]:
    """{image name: boxes of the finder's detections far from every labelled die (and `unlabelled` one), and
    not `looks_like` a die} over a YOLO folder."""
    out: dict[str, list[list[float]]] = {}
    pairs = yolo_pairs(folder, split)
    started = time.time()
    for number, (image_path, label_path) in enumerate(pairs, start=1):
        frame = load_image(image_path)
        height, width = frame.shape[:2]
        dice = [box for _, box in read_yolo_labels(label_path, width, height)]
        dice += (unlabelled or {}).get(image_path.name, [])
        found = [d.box for d in finder.detect(frame)]
        boxes = [b for b in found if far_from_dice(b, dice, width, height)]
        if boxes and looks_like is not None:
            like = looks_like([crop_die(frame, b) for b in boxes])
            boxes = [b for b, die in zip(boxes, like, strict=True) if not die]
        if boxes:
            out[image_path.name] = [[round(v, 1) for v in b.to_list()] for b in boxes]
        if number % 50 == 0 or number == len(pairs):
            print(f"{number}/{len(pairs)} fotos, {time.time() - started:.0f} s", file=sys.stderr, flush=True)
    return out


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


def main(argv: list[str] | None = None) -> int:
    """Command line entry point."""
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("folder", type=Path, help="carpeta YOLO (images/, labels/)")
    parser.add_argument("--split", default="train", help="partición (vacía: la carpeta entera)")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--finder", type=Path, default=None, help="pesos del detector (por omisión los de models/)")
    parser.add_argument("--faces", type=Path, default=MODEL_DIR, help="clasificador que descarta lo que parece dado")
    parser.add_argument("--unlabelled", type=Path, default=UNLABELLED, help="dados sin etiqueta vistos a ojo")
    args = parser.parse_args(argv)
    split = args.split or None
    if split in VAL_SPLITS:
        parser.error(f"--split {split}: las fotos de validación no se usan para entrenar")
    if not (args.folder / "images").is_dir():
        parser.error(f"{args.folder} no es una carpeta YOLO (falta images/)")

    from vision.faces.classifier import FaceClassifier
    from vision.faces.pips import PipCounter
    from vision.finder import DEFAULT_WEIGHTS, YoloFinder

    weights = args.finder or DEFAULT_WEIGHTS
    try:
        unlabelled = read_unlabelled(args.unlabelled) if args.unlabelled.is_file() else {}
    except ValueError as err:
        parser.error(str(err))
    looks_like = looks_like_a_die(FaceClassifier(args.faces), PipCounter())
    images = mine(YoloFinder(weights), args.folder, split, looks_like, unlabelled)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    record = {
        "finder": str(weights),
        "faces": str(args.faces),
        "folder": str(args.folder),
        "split": split,
        "images": images,
    }
    args.out.write_text(json.dumps(record, indent=1) + "\n")
    print(f"{sum(len(b) for b in images.values())} negativos en {len(images)} fotos -> {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
