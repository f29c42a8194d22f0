"""`python -m kiosk.settled DIR`: how many dudo rulings the reader settles with no tap, on labelled photos.

Each photo of a YOLO folder (images/, labels/, class = face - 1) is one reveal: its labelled dice are the truth, and
the reader's dice, each with the faces it may show (vision.candidates), are what the kiosk would have. For every
pinta (aces wild, and for the aces themselves) and every bid within 2 of the true count, a dudo is settled when the
count over every choice of candidates (the dice not found any face, as `cacho dudo count --dice` counts them) leaves
one ruling; it is wrong when that ruling is not the true one. Prints the rulings, the share settled and the wrong
ones (a wrong settled ruling is a silent wrong ruling: there must be none).
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from engines.dudo import count
from kiosk.commands.dudo_count import tally

REACH = 2  # bids within this many dice of the true count


def rulings(truth: list[int], candidates: list[frozenset[int]]) -> tuple[int, int, int]:
    """(rulings, settled, settled wrong) of one reveal, over every pinta and bid within REACH of the true count."""
    total = settled = wrong = 0
    for pinta in range(1, 7):
        true = count(truth, pinta, aces_wild=True).total
        found = tally(candidates, pinta, True, len(truth))
        for bid in range(max(1, true - REACH), true + REACH + 1):
            total += 1
            low, high = found["min"], found["max"]
            if low >= bid or high < bid:  # the same ruling for every choice: the bid stands, or it does not
                settled += 1
                wrong += (low >= bid) != (true >= bid)
    return total, settled, wrong


def measure(folder: Path, models: Path | None, upright: bool, lean_check: bool = True) -> dict[str, Any]:
    """Read every photo of `folder` and count the rulings settled."""
    from vision.evaluate import read_labels, yolo_samples
    from vision.frames import load_image
    from vision.pipeline import build_reader
    from vision.reader import ReaderSettings

    settings = ReaderSettings(from_above=not upright, max_die_share=None)
    if not lean_check:
        settings = replace(settings, lean_sideways=None, lean_inward=None, tilt_squash=None)
    reader = build_reader(models, settings, processes=True)
    total = settled = wrong = photos = dice = 0
    for image, labels in yolo_samples(folder):
        frame = load_image(image)
        height, width = frame.shape[:2]
        truth = [d.face for d in read_labels(labels, width, height) if d.face is not None]
        if not truth:
            continue
        found = [frozenset(d.candidates) for d in reader.read(frame).dice]
        n, s, w = rulings(truth, found)
        total, settled, wrong, photos, dice = total + n, settled + s, wrong + w, photos + 1, dice + len(truth)
    share = round(settled / total, 4) if total else 0.0
    return {"photos": photos, "dice": dice, "rulings": total, "settled": settled, "share": share, "wrong": wrong}


def main(argv: list[str] | None = None) -> int:
    """Print the rulings settled with no tap on a labelled folder."""
    parser = argparse.ArgumentParser(
        prog="python -m kiosk.settled",
        description="Cuenta cuántos fallos de dudo quedan decididos sin tocar ningún dado, en una carpeta de fotos "
        "etiquetadas.",
    )
    parser.add_argument("folder", metavar="DIR", type=Path, help="carpeta YOLO: images/, labels/ (clase = cara - 1)")
    parser.add_argument("--models", type=Path, help="carpeta de modelos (por defecto, models/)")
    parser.add_argument("--upright", action="store_true", help="fotos tomadas de pie, en ángulo (no desde arriba)")
    parser.add_argument(
        "--no-lean-check",
        action="store_true",
        help="fotos que no tomó la cámara de la mesa: sin el control de dado montado",
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    if not (args.folder / "images").is_dir():
        parser.error(f"{args.folder}: no es una carpeta YOLO (falta images/)")
    figures = measure(args.folder, args.models, args.upright, not args.no_lean_check)
    if args.json:
        print(json.dumps(figures, ensure_ascii=False))
    else:
        share = f"{figures['share'] * 100:.1f}".replace(".", ",")
        print(
            f"{figures['photos']} fotos, {figures['dice']} dados: {figures['settled']} de {figures['rulings']} fallos "
            f"decididos sin tocar un dado ({share} %), {figures['wrong']} decididos mal"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
