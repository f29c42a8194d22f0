"""How sure two corners must be: the coordinator's load and the silent errors at each level, read once.

    python -m vision.cards.calibrate DIR [--split cal] [--models models/cards] [--spot 0.02,0.05,0.1]

Each image is read once; its corners are judged again at every level of `pair` (and of `alone`, a card seen by one
corner), and the folder scored as `cacho cards eval` scores it. `--spot` reads the folder again at each floor of the
spotter (a whole still, models with a spotter.pt). Choose on a calibration part, never on validation.
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
    parser.add_argument("--spot", default=None, help="niveles del buscador en la copia reducida, p. ej. 0.02,0.05")
    args = parser.parse_args(argv)
    try:
        spots = [float(v) for v in args.spot.split(",")] if args.spot else [None]
    except ValueError:
        raise SystemExit(f"--spot: se esperaban números separados por comas, no {args.spot!r}") from None
    images = images_of(args.folder, args.split)
    if not images:
        raise SystemExit(f"no hay imágenes en {args.folder / 'images' / (args.split or '')}")
    try:
        reader = CardReader(args.models)
    except FileNotFoundError as error:
        raise SystemExit(str(error)) from None
    with_meta = (args.folder / "meta").is_dir()
    for spot in spots:
        if spot is not None:
            reader.settings = replace(reader.settings, spot=spot)
        readings = {image.name: reader.read(load_image(image)) for image in images}
        for row in rows(args.folder, args.split, readings, reader.settings, with_meta):
            print(json.dumps(({"spot": spot} if spot is not None else {}) | row), flush=True)
    return 0


def rows(
    folder: Path, split: str | None, readings: dict[str, CardReading], base: CardSettings, with_meta: bool
) -> list[dict[str, object]]:
    """The figures at every level of `pair` and `alone`."""
    out: list[dict[str, object]] = []
    for alone in ALONE:
        for pair in PAIRS:
            settings = replace(base, pair=pair, alone=alone)
            judged = {name: rejudge(r, settings) for name, r in readings.items()}
            scores = evaluate_folder(folder, judged, split, with_meta=with_meta)
            row: dict[str, object] = {"pair": pair, "alone": alone, "load": round(scores.load, 4)}
            row |= {"silent": scores.silent_errors}
            row |= {"silent_extra": scores.silent_extra}
            row |= {"shown": scores.shown, "recall": round(scores.recall, 4)}
            row |= {"accuracy": round(scores.card_accuracy, 4)}
            out.append(row)
    return out


if __name__ == "__main__":
    raise SystemExit(main())
