"""Timing the card reader: a full 4608x2592 still read against one plain 640 inference of its finder (the spotter
on a reduced copy and the finder round each spot where the models have a spotter.pt, else 640 px tiles).

    python -m vision.cards.bench [--repeat 3] [--models models/cards] [--turns 1|2|4] [--again 2|4|none]

The still is a rendered Pif Paf table (`vision.cards.synth`, seed 424242), made on the fly. `again_ms_a_card` is
what looking again at one card in doubt adds: its two corners read turned (`again`), as the reader does;
`face_ms_a_card` what reading one card's face adds (the face reader, where the models have one, over the box round
a card's corners, at every quarter turn, as the reader asks it for a card of two or more corners with a dissent).
`load_ms` is loading the models, and `first_read_ms` the first reading after it: what the kiosk's first card
reading costs beyond the camera's still.
"""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

from vision.bench import median_ms
from vision.cards.dataset import BACK_CLASS, NAMES
from vision.cards.index_classifier import TURNS, crop
from vision.cards.reader import MODELS, CardReader, tiles, union
from vision.cards.synth import render


def main(argv: list[str] | None = None) -> int:
    """Print the times and their ratio as one JSON line."""
    parser = argparse.ArgumentParser(prog="python -m vision.cards.bench", description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--models", type=Path, default=MODELS)
    parser.add_argument("--turns", type=int, choices=TURNS, default=None, help="leer cada índice girado (1, 2 o 4)")
    parser.add_argument("--again", choices=("2", "4", "none"), default=None, help="volver a leer las dudosas, giradas")
    args = parser.parse_args(argv)
    still = render(424242, "pifpaf", size=(4608, 2592), negative=0.0).image
    started = time.perf_counter()
    try:
        reader = CardReader(args.models)
    except FileNotFoundError as error:
        raise SystemExit(str(error)) from None
    load_ms = (time.perf_counter() - started) * 1000
    if args.turns is not None:
        reader.settings = replace(reader.settings, turns=args.turns)
    if args.again is not None:
        reader.settings = replace(reader.settings, again=None if args.again == "none" else int(args.again))
    plain = np.zeros((640, 640, 3), np.uint8)
    started = time.perf_counter()
    reader.read(still)
    first_ms = (time.perf_counter() - started) * 1000
    read_ms = median_ms(lambda: reader.read(still), args.repeat)
    plain_ms = median_ms(lambda: reader.model.predict([plain], 640, 0.25), args.repeat)
    row: dict[str, object] = {"size": [4608, 2592]}
    reading = reader.read(still)
    row |= {
        "cards": len(reading.cards),
        "turns": reader.settings.turns,
        "again": reader.settings.again,
        "doubted": len(reading.uncertain),
    }
    if reader.settings.again is not None:
        # the cost of looking again at one card in doubt: its two corners, read at every turn
        pair = [crop(still, h.box) for h in [h for h in reading.hits if h.name != NAMES[BACK_CLASS]][:2]]
        looked = median_ms(lambda: reader.classifier.probabilities(pair, reader.settings.again), args.repeat)
        row |= {"again_ms_a_card": round(looked, 1)}
    cards = [c for c in reading.cards if len(c.indices) >= 2]
    if reader.faces is not None and cards:
        faces = reader.faces
        face = crop(still, union(list(cards[0].indices)))
        row |= {"face_ms_a_card": round(median_ms(lambda: faces.probabilities([face], 4), args.repeat), 1)}
    row |= {"spotter": True} if reader.spotter is not None else {"tiles": len(tiles(4608, 2592))}
    row |= {"read_ms": round(read_ms), "plain640_ms": round(plain_ms), "ratio": round(read_ms / plain_ms, 2)}
    row |= {"load_ms": round(load_ms), "first_read_ms": round(first_ms)}
    print(json.dumps(row))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
