"""How sure two corners must be: the coordinator's load and the silent errors at each level, read once.

    python -m vision.cards.calibrate DIR [--split cal] [--models models/cards]

Each image is read once; its corners are judged again at every level of `pair` (and of `alone`, a card seen by one
corner), and the folder scored as `cacho cards eval` scores it. Choose on a calibration part, never on validation.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import replace
from pathlib import Path

from vision.cards.evaluate import evaluate_folder, images_of
from vision.cards.reader import MODELS, CardReader, CardReading, CardSettings, cards_of
from vision.frames import load_image

PAIRS = (0.5, 0.7, 0.8, 0.9, 0.93, 0.95)
ALONE = (None, 0.8, 0.9, 0.93, 0.95)


def rejudge(reading: CardReading, settings: CardSettings) -> list[dict[str, object]]:
    """The reading's cards judged again at other levels, as `cacho cards read --json` gives them."""
    return [card.to_dict() for card in cards_of(list(reading.hits), settings)]


def main(argv: list[str] | None = None) -> int:
    """Print one JSON line per level."""
    parser = argparse.ArgumentParser(prog="python -m vision.cards.calibrate", description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--split", default=None)
    parser.add_argument("--models", type=Path, default=MODELS)
    args = parser.parse_args(argv)
    images = images_of(args.folder, args.split)
    if not images:
        raise SystemExit(f"no hay imágenes en {args.folder / 'images' / (args.split or '')}")
    try:
        reader = CardReader(args.models)
    except FileNotFoundError as error:
        raise SystemExit(str(error)) from None
    readings = {image.name: reader.read(load_image(image)) for image in images}
    with_meta = (args.folder / "meta").is_dir()
    for alone in ALONE:
        for pair in PAIRS:
            settings = replace(reader.settings, pair=pair, alone=alone)
            judged = {name: rejudge(r, settings) for name, r in readings.items()}
            scores = evaluate_folder(args.folder, judged, args.split, with_meta=with_meta)
            row = {"pair": pair, "alone": alone, "load": round(scores.load, 4), "silent": scores.silent_errors}
            row |= {"silent_extra": scores.silent_extra}
            row |= {"shown": scores.shown, "recall": round(scores.recall, 4)}
            row |= {"accuracy": round(scores.card_accuracy, 4)}
            print(json.dumps(row), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
