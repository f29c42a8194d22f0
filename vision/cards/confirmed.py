"""What a table's confirmed readings would teach: the corners the kiosk keeps (kiosk.cards.learned), from a labelled
folder whose labels play the coordinator.

    python -m vision.cards.confirmed DIR --out OUT [--split train] [--models MODELS] [--corrected]

Each photo is read as `cacho cards eval` reads it, and each card read is matched to the card it lies on
(vision.cards.evaluate). A card read as its label names it, sure or doubted (the coordinator confirms it with the same
card), keeps its corner indices, labelled with its code; a card read as another card, face down, or not found keeps
none, as in the kiosk (`--corrected`: a card read as another card keeps its corners too, labelled with the card
shown, as if the kiosk kept the cards the coordinator corrects). OUT gets each photo that keeps a corner (linked) and
its label: the folder `cacho cards adapt OUT` takes. It prints, as JSON, the photos, cards and corners kept and the
cards read otherwise.
"""

from __future__ import annotations

import argparse
import json
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from vision import labels as yolo
from vision.cards.evaluate import TruthCard, images_of, matches, truths_of
from vision.cards.notation import CLASS_OF


def kept_corners(
    truths: Sequence[TruthCard], readings: Sequence[Mapping[str, Any]], corrected: bool = False
) -> tuple[list[tuple[int, list[float]]], int, int]:
    """(class, box) of each corner of the cards read as their labels name them (`corrected`: and of those read as
    another card, with the label's); how many cards keep corners, and how many were read otherwise."""
    corners: list[tuple[int, list[float]]] = []
    kept = other = 0
    for t, r in matches(truths, readings).items():
        truth, reading = truths[t], readings[r]
        if truth.face_down or truth.optional or truth.card not in CLASS_OF:
            continue
        if reading.get("face_down") or reading.get("card") != truth.card:
            other += 1
            if not corrected:
                continue
        mine = [(CLASS_OF[truth.card], [float(v) for v in box]) for box in reading.get("indices") or []]
        corners.extend(mine)
        kept += bool(mine)
    return corners, kept, other


def label_lines(corners: Sequence[tuple[int, Sequence[float]]], width: int, height: int) -> str:
    """YOLO lines (`class cx cy w h`, normalised) of the corners on a photo of this size."""
    return "".join(yolo.line(cls, box, width, height) + "\n" for cls, box in corners)


def build(folder: Path, out: Path, split: str | None, reader: Any, corrected: bool = False) -> dict[str, int]:
    """Read each photo of `folder` (its `split`) with `reader` and write the corners a coordinator would confirm
    (`corrected`: or correct)."""
    from vision.frames import load_image

    images = images_of(folder, split)
    if not images:
        raise FileNotFoundError(f"no hay imágenes en {folder / 'images' / (split or '')}")
    (out / "images").mkdir(parents=True, exist_ok=True)
    (out / "labels").mkdir(parents=True, exist_ok=True)
    tally = {"photos": len(images), "photos_kept": 0, "cards": 0, "cards_kept": 0, "corners": 0, "read_otherwise": 0}
    for image in images:
        truths = truths_of(folder, image, split, with_meta=(folder / "meta").is_dir())
        frame = load_image(image)
        readings = [card.to_dict() for card in reader.read(frame).cards]
        corners, kept, other = kept_corners(truths, readings, corrected)
        tally["cards"] += sum(not t.face_down and not t.optional for t in truths)
        tally["read_otherwise"] += other
        if not corners:
            continue
        tally["photos_kept"] += 1
        tally["corners"] += len(corners)
        tally["cards_kept"] += kept
        link = out / "images" / image.name
        link.unlink(missing_ok=True)
        os.symlink(image.resolve(), link)
        height, width = frame.shape[:2]
        (out / "labels" / f"{image.stem}.txt").write_text(label_lines(corners, width, height))
    return tally


def main(argv: list[str] | None = None) -> int:
    """Write the corners a table's coordinator would confirm from a labelled folder; print what was kept."""
    from vision.cards.reader import CardReader

    parser = argparse.ArgumentParser(prog="python -m vision.cards.confirmed", description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", type=Path, help="carpeta YOLO etiquetada (la que lee cacho cards eval)")
    parser.add_argument(
        "--out", type=Path, required=True, help="carpeta que se escribe (la que toma cacho cards adapt)"
    )
    parser.add_argument("--split", default="train", help="subcarpeta de images/ y labels/ (por defecto, train)")
    parser.add_argument("--models", type=Path, help="carpeta de modelos del lector (por defecto, models/cards)")
    parser.add_argument(
        "--corrected", action="store_true", help="también las cartas leídas como otra, con la carta que se ve"
    )
    args = parser.parse_args(argv)
    if not (args.folder / "images").is_dir():
        parser.error(f"{args.folder} no es una carpeta YOLO: falta images/")
    reader = CardReader(args.models) if args.models else CardReader()
    try:
        tally = build(args.folder, args.out, args.split or None, reader, args.corrected)
    except (FileNotFoundError, ValueError) as error:
        parser.error(str(error))
    print(json.dumps(tally))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
