"""Split a labelled dice folder in two halves, to teach the reader on one and measure it on the other.

    python -m vision.faces.halves DIR --out HALVES [--fixes FILE]

HALVES gets images/teach, images/test (links to DIR's photos) and labels/teach, labels/test: every photo of one
capture on one side, half of the captures each. `cacho vision adapt HALVES --split teach` then learns from one
half, choosing its levels on a part of it, and `cacho vision eval HALVES --split test [--models M]` reads the
other half, which neither the teaching nor the levels saw. `--fixes` corrects dice the set labels wrong (by default
models/faces/relabelled_dice.txt): each line names a photo, a point on the die (pixels) and the face it shows.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from vision.faces.classifier import MODEL_DIR
from vision.faces.crops import yolo_pairs
from vision.faces.realsets import capture_group, held_out
from vision.relabel import Relabel, by_image, read_relabels, relabelled_photo

PARTS = ("teach", "test")
FIXES = MODEL_DIR / "relabelled_dice.txt"


def face_class(text: str) -> int | None:
    """A face 1-6 as its YOLO class (face - 1), or None."""
    return int(text) - 1 if text in ("1", "2", "3", "4", "5", "6") else None


def read_fixes(path: Path) -> list[Relabel]:
    """The dice a file relabels; ValueError naming a line that is not `photo x y face`."""
    return read_relabels(path, face_class, "cara")


def fixed_label(image: Path, label: Path, fixes_of: dict[str, list[Relabel]]) -> tuple[str, int]:
    """A photo's label text with the fixes for it applied, and how many were; ValueError for a photo a fix cannot
    read."""
    text = label.read_text(encoding="utf-8") if label.is_file() else ""
    return relabelled_photo(image, text, fixes_of[image.name]) if image.name in fixes_of else (text, 0)


def place(image: Path, text: str, images: Path, label: Path) -> None:
    """Link `image` into the folder `images` (over any link there) and write its label text to `label`."""
    link = images / image.name
    if link.is_symlink() or link.exists():
        link.unlink()
    os.symlink(image.resolve(), link)
    label.write_text(text, encoding="utf-8")


def split(folder: Path, out: Path, fixes: list[Relabel]) -> dict[str, object]:
    """Write the two halves of `folder` under `out`; what went where, and the fixes applied."""
    pairs = yolo_pairs(folder)
    if not pairs:
        raise ValueError(f"{folder}: no hay fotos en images/")
    fixes_of = by_image(fixes)
    counts = {part: 0 for part in PARTS}
    applied = 0
    planned = []  # every label first: a photo a fix cannot read stops the split before anything is written
    for image, label in pairs:
        part = PARTS[1] if held_out(capture_group(image.name), 0.5) else PARTS[0]
        counts[part] += 1
        text, done = fixed_label(image, label, fixes_of)
        applied += done
        planned.append((image, label.name, part, text))
    for part in PARTS:
        for kind in ("images", "labels"):
            (out / kind / part).mkdir(parents=True, exist_ok=True)
    for image, label_name, part, text in planned:
        place(image, text, out / "images" / part, out / "labels" / part / label_name)
    return {"folder": str(folder), "out": str(out), "photos": counts, "fixes": len(fixes), "applied": applied}


def main(argv: list[str] | None = None) -> int:
    """Command line: split DIR into OUT/images/{teach,test} and OUT/labels/{teach,test}."""
    parser = argparse.ArgumentParser(prog="python -m vision.faces.halves", description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", metavar="DIR", type=Path, help="carpeta YOLO: images/, labels/ (clase = cara - 1)")
    parser.add_argument("--out", type=Path, required=True, help="carpeta que se escribe con las dos mitades")
    parser.add_argument("--fixes", type=Path, default=FIXES, help="dados mal etiquetados en el conjunto")
    args = parser.parse_args(argv)
    try:
        fixes = read_fixes(args.fixes) if args.fixes.is_file() else []
        if not (args.folder / "images").is_dir():
            raise ValueError(f"{args.folder}: no es una carpeta YOLO (falta images/)")
        print(json.dumps(split(args.folder, args.out, fixes), ensure_ascii=False))
    except ValueError as error:
        print(f"error: {error}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
