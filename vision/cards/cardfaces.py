"""The face reader's training folder: each card's whole face boxed (its pips or picture), not its corner indices.

    python -m vision.cards.cardfaces --out data/cards/faces --whole data/cards/whole [--synth DIR]...

The face reader (`face_cls.pt`: `python -m vision.cards.index_classifier` on this folder, `--size 96`) names a card
from the face between two of its ends, other pixels than the indices the classifiers read. Real: the training half of
the whole-card folder (`python -m vision.cards.wholecards`), whose labels box whole cards, one run of RUN photos in
VAL_EVERY held out to validate (the accuracy printed and the temperature); its validation half is never used, so that
it still judges the reader. Rendered: every card of a rendered table face up, at least VISIBLE of it in view and wholly
inside the picture, boxed round its outline (`--synth`, each a `python -m vision.cards.synth` folder; to learn only).
"""

from __future__ import annotations

import argparse
import json
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from vision import labels as yolo
from vision.cards.dataset import IMAGE_SUFFIXES, _link, real_split, write_yaml
from vision.cards.notation import CLASS_NAMES, CLASS_OF

VAL_EVERY = 4  # one run of the whole-card training half in four validates the face reader
VISIBLE = 0.85  # a rendered card this much in view shows its face


def add_whole(whole: Path, out: Path, every: int = VAL_EVERY) -> dict[str, int]:
    """The whole-card folder's training photos, linked with their card boxes: one run in `every` to validate."""
    images = {p.stem: p for p in (whole / "images" / "train").iterdir() if p.suffix.lower() in IMAGE_SUFFIXES}
    labelled = {stem: p for stem, p in images.items() if (whole / "labels" / "train" / f"{stem}.txt").exists()}
    if not labelled:
        raise ValueError(f"no hay fotos etiquetadas en {whole / 'images' / 'train'}")
    splits = real_split(labelled, every)
    counts = {"train": 0, "val": 0}
    for stem, image in labelled.items():
        split = splits[stem]
        rows = [r for r in (whole / "labels" / "train" / f"{stem}.txt").read_text().splitlines() if _is_card(r)]
        _link(image, out / "images" / split / image.name)
        _write_rows(out / "labels" / split / f"{stem}.txt", rows)
        counts[split] += len(rows)
    return counts


def _is_card(row: str) -> bool:
    parts = row.split()
    return len(parts) == 5 and 0 <= int(parts[0]) < len(CLASS_NAMES)


def _write_rows(path: Path, rows: Sequence[str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(f"{r}\n" for r in rows))


def face_rows(meta: dict[str, Any]) -> list[str]:
    """A rendered table's cards face up that show their face, each boxed round its outline."""
    width, height = meta["size"]
    rows = []
    for card in meta["cards"]:
        if card["face_down"] or card.get("visible_share", 0) < VISIBLE:
            continue
        xs = [p[0] for p in card["polygon"]]
        ys = [p[1] for p in card["polygon"]]
        if min(xs) < 0 or min(ys) < 0 or max(xs) > width or max(ys) > height:
            continue  # cut by the window's edge: part of its face is not in the picture
        rows.append(yolo.line(CLASS_OF[card["card"]], (min(xs), min(ys), max(xs), max(ys)), width, height))
    return rows


def add_synth(synth: Path, out: Path) -> int:
    """A rendered folder's tables with a card showing its face, linked to learn from; the cards added."""
    metas = sorted(synth.rglob("meta/**/*.json"))
    if not metas:
        raise ValueError(f"{synth} no es una carpeta de vision.cards.synth: no tiene meta/")
    count = 0
    for meta_path in metas:
        rows = face_rows(json.loads(meta_path.read_text()))
        relative = meta_path.relative_to(synth / "meta").with_suffix(".jpg")
        image = synth / "images" / relative
        if not rows or not image.exists():
            continue
        name = f"synth-{synth.name}-{image.stem}"
        _link(image, out / "images" / "train" / f"{name}.jpg")
        _write_rows(out / "labels" / "train" / f"{name}.txt", rows)
        count += len(rows)
    return count


def main(argv: list[str] | None = None) -> int:
    """Build the folder and print how many faces each part holds."""
    parser = argparse.ArgumentParser(prog="python -m vision.cards.cardfaces", description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True, help="carpeta que se escribe (se vacía antes)")
    parser.add_argument("--whole", type=Path, required=True, help="carpeta de python -m vision.cards.wholecards")
    parser.add_argument("--synth", type=Path, action="append", default=[], help="carpeta de vision.cards.synth")
    args = parser.parse_args(argv)
    for folder in (args.whole, *args.synth):
        if not folder.is_dir():
            raise SystemExit(f"no existe la carpeta {folder}")
    if args.out.resolve() in {f.resolve() for f in (args.whole, *args.synth)}:
        raise SystemExit(f"--out no puede ser una de las carpetas que se leen: {args.out}")
    if not (args.whole / "images" / "train").is_dir():
        raise SystemExit(f"{args.whole} no tiene images/train: no es una carpeta de vision.cards.wholecards")
    shutil.rmtree(args.out, ignore_errors=True)
    try:
        counts = add_whole(args.whole, args.out)
        rendered = {str(s): add_synth(s, args.out) for s in args.synth}
    except ValueError as error:
        shutil.rmtree(args.out, ignore_errors=True)
        raise SystemExit(str(error)) from None
    write_yaml(args.out)
    print(json.dumps({"real_train": counts["train"], "real_val": counts["val"], "rendered": rendered}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
