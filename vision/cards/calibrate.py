"""How sure two corners must be: the coordinator's load and the silent errors at each level, read once.

    python -m vision.cards.calibrate DIR [--split cal] [--models models/cards] [--spot 0.02,0.05,0.1] [--apart 0.9,0.99]
        [--joint none,0.99,0.999] [--agree none,0.9] [--turns 1|2|4]

Each image is read once; its corners are judged again at every level of `pair` (and of `alone`, a card seen by one
corner), and the folder scored as `cacho cards eval` scores it. `--spot` reads the folder again at each floor of the
spotter (a whole still, models with a spotter.pt); `--apart` judges them at each level of the seam model's (models
with a seam.pt), `pair` and `alone` as the settings have them; `--joint` at each level of a card's probability over
all its corners (none: `pair` each), `--agree` at each level of the second classifier's probability of the card
over all its corners (none: every corner that counts named alike). `--turns` reads each index so turned. A card in
doubt is not read again turned (`again`): which cards are in doubt depends on the level judged. Choose on a
calibration part, never on validation.
"""

from __future__ import annotations

import argparse
import json
from dataclasses import replace
from pathlib import Path

from vision.cards.dataset import BACK_CLASS, NAMES
from vision.cards.evaluate import evaluate_folder, images_of
from vision.cards.index_classifier import TURNS
from vision.cards.reader import MODELS, Apart, CardReader, CardReading, CardSettings, cards_of, close_pairs
from vision.frames import load_image
from vision.types import Box, Frame

PAIRS = (0.5, 0.7, 0.8, 0.9, 0.93, 0.95)
ALONE = (None, 0.8, 0.9, 0.93, 0.95)


Odds = dict[tuple[Box, Box], float]  # the seam model's probability of two cards, for each two corners it was asked
Levels = list[tuple[float, float | None, float | None, float | None, float | None]]  # pair, alone, apart, joint, agree


def rejudge(reading: CardReading, settings: CardSettings, odds: Odds | None = None) -> list[dict[str, object]]:
    """The reading's cards judged again at other levels, as `cacho cards read --json` gives them (with `odds`,
    corners parted at the settings' `apart`)."""
    apart: Apart | None = None
    level = settings.apart
    if odds is not None and level is not None:
        apart = lambda pairs: [odds[(a.box, b.box)] >= level for a, b in pairs]  # noqa: E731
    # the face reader's readings of the boxes it read: a card that is judged otherwise and lies in a box not read
    # has no face reading
    faces = lambda box: reading.face_reads.get(box, ())  # noqa: E731
    return [card.to_dict() for card in cards_of(list(reading.hits), settings, apart, faces)]


def seam_odds(reader: CardReader, frame: Frame, reading: CardReading) -> Odds | None:
    """The seam model's probability of two cards for every two corners of one code near each other (None: the
    models have no seam model)."""
    if reader.seams is None:
        return None
    faces = [h for h in reading.hits if h.name != NAMES[BACK_CLASS]]
    pairs = [(faces[i].box, faces[j].box) for i, j in close_pairs(faces)]
    return dict(zip(pairs, reader.seams.apart(frame, pairs), strict=True))


def main(argv: list[str] | None = None) -> int:
    """Print one JSON line per level."""
    parser = argparse.ArgumentParser(prog="python -m vision.cards.calibrate", description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--split", default=None)
    parser.add_argument("--models", type=Path, default=MODELS)
    parser.add_argument("--spot", default=None, help="niveles del buscador en la copia reducida, p. ej. 0.02,0.05")
    parser.add_argument("--apart", default=None, help="niveles del separador de gemelas, p. ej. 0.9,0.99 (none: nunca)")
    parser.add_argument(
        "--joint", default=None, help="niveles de la carta con todas sus esquinas (none: --pair cada una)"
    )
    parser.add_argument(
        "--agree", default=None, help="niveles de la segunda lectura con todas las esquinas (none: cada esquina)"
    )
    parser.add_argument("--turns", type=int, choices=TURNS, default=None, help="leer cada índice girado (1, 2 o 4)")
    args = parser.parse_args(argv)
    spots, aparts = _levels("--spot", args.spot), _levels("--apart", args.apart)
    joints, agrees = _levels("--joint", args.joint), _levels("--agree", args.agree)
    images = images_of(args.folder, args.split)
    if not images:
        raise SystemExit(f"no hay imágenes en {args.folder / 'images' / (args.split or '')}")
    try:
        reader = CardReader(args.models)
    except FileNotFoundError as error:
        raise SystemExit(str(error)) from None
    reader.settings = replace(reader.settings, again=None)
    if args.turns is not None:
        reader.settings = replace(reader.settings, turns=args.turns)
    with_meta = (args.folder / "meta").is_dir()
    for spot in spots:
        if spot is not None:
            reader.settings = replace(reader.settings, spot=spot)
        readings, odds = {}, {}
        for image in images:
            frame = load_image(image)
            readings[image.name] = reader.read(frame)
            odds[image.name] = seam_odds(reader, frame, readings[image.name])
        given = (aparts if args.apart else None, joints if args.joint else None, agrees if args.agree else None)
        levels = levels_of(reader.settings, *given)
        for row in rows(args.folder, args.split, readings, reader.settings, with_meta, odds, levels):
            print(json.dumps(({"spot": spot} if spot is not None else {}) | row), flush=True)
    return 0


def levels_of(
    base: CardSettings,
    aparts: list[float | None] | None,
    joints: list[float | None] | None,
    agrees: list[float | None] | None,
) -> Levels | None:
    """Every combination of the levels given, the others as `base` has them (None: none given)."""
    if aparts is None and joints is None and agrees is None:
        return None
    parts, joined, agreed = aparts or [base.apart], joints or [base.joint], agrees or [base.agree]
    return [(base.pair, base.alone, a, j, g) for a in parts for j in joined for g in agreed]


def _levels(option: str, text: str | None) -> list[float | None]:
    """A comma-separated list of levels ("none": never), or [None]."""
    if not text:
        return [None]
    try:
        levels = [None if v.strip().lower() == "none" else float(v) for v in text.split(",")]
    except ValueError:
        raise SystemExit(f"{option}: se esperaban números separados por comas, no {text!r}") from None
    if any(level is not None and not 0 <= level <= 1 for level in levels):
        raise SystemExit(f"{option}: cada nivel debe estar entre 0 y 1, no {text!r}")
    return levels


def rows(
    folder: Path,
    split: str | None,
    readings: dict[str, CardReading],
    base: CardSettings,
    with_meta: bool,
    odds: dict[str, Odds | None] | None = None,
    levels: Levels | None = None,
) -> list[dict[str, object]]:
    """The figures at every level (pair, alone, apart, joint, agree) given, or every level of `pair` and `alone`."""
    out: list[dict[str, object]] = []
    odds = odds or {}
    levels = levels or [(pair, alone, base.apart, base.joint, base.agree) for alone in ALONE for pair in PAIRS]
    for pair, alone, apart, joint, agree in levels:
        settings = replace(base, pair=pair, alone=alone, apart=apart, joint=joint, agree=agree)
        judged = {name: rejudge(r, settings, odds.get(name)) for name, r in readings.items()}
        scores = evaluate_folder(folder, judged, split, with_meta=with_meta)
        row: dict[str, object] = {"pair": pair, "alone": alone, "apart": apart, "joint": joint, "agree": agree}
        row |= {"load": round(scores.load, 4)}
        row |= {"silent": scores.silent_errors}
        row |= {"silent_extra": scores.silent_extra}
        row |= {"shown": scores.shown, "recall": round(scores.recall, 4)}
        row |= {"accuracy": round(scores.card_accuracy, 4)}
        out.append(row)
    return out


if __name__ == "__main__":
    raise SystemExit(main())
