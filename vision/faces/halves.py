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
from dataclasses import dataclass
from pathlib import Path

import cv2

from vision.faces.classifier import MODEL_DIR
from vision.faces.crops import yolo_pairs
from vision.faces.realsets import capture_group, held_out

PARTS = ("teach", "test")
FIXES = MODEL_DIR / "relabelled_dice.txt"


@dataclass(frozen=True, slots=True)
class Fix:
    """A die a photo set labels wrong: the photo, a point on the die in pixels, the face it shows."""

    image: str
    x: float
    y: float
    face: int


def read_fixes(path: Path) -> list[Fix]:
    """The fixes of a file (`#` starts a comment); ValueError naming the line that is not `name x y face`."""
    fixes = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        text = line.split("#", 1)[0].split()
        if not text:
            continue
        try:
            name, x, y, face = text[0], float(text[1]), float(text[2]), int(text[3])
        except (IndexError, ValueError):
            raise ValueError(f"{path}:{number}: se esperaba «foto x y cara», no {line.strip()!r}") from None
        if not 1 <= face <= 6 or len(text) != 4:
            raise ValueError(f"{path}:{number}: se esperaba «foto x y cara» con una cara de 1 a 6")
        fixes.append(Fix(name, x, y, face))
    return fixes


def fixed_labels(text: str, width: int, height: int, fixes: list[Fix]) -> tuple[str, int]:
    """YOLO label lines with the fixes applied (each to the labelled box about its point whose centre is nearest);
    the number applied."""
    lines = [line.split() for line in text.splitlines() if line.split()]
    applied = 0
    for fix in fixes:
        inside = []
        for i, parts in enumerate(lines):
            cx, cy, w, h = (float(v) for v in parts[1:5])
            if abs(fix.x / width - cx) <= w / 2 and abs(fix.y / height - cy) <= h / 2:
                inside.append((abs(fix.x / width - cx) + abs(fix.y / height - cy), i))
        if inside:
            lines[min(inside)[1]][0] = str(fix.face - 1)
            applied += 1
    return "".join(" ".join(parts) + "\n" for parts in lines), applied


def split(folder: Path, out: Path, fixes: list[Fix]) -> dict[str, object]:
    """Write the two halves of `folder` under `out`; what went where, and the fixes applied."""
    pairs = yolo_pairs(folder)
    if not pairs:
        raise ValueError(f"{folder}: no hay fotos en images/")
    by_image: dict[str, list[Fix]] = {}
    for fix in fixes:
        by_image.setdefault(fix.image, []).append(fix)
    counts = {part: 0 for part in PARTS}
    applied = 0
    for part in PARTS:
        for kind in ("images", "labels"):
            (out / kind / part).mkdir(parents=True, exist_ok=True)
    for image, label in pairs:
        part = PARTS[1] if held_out(capture_group(image.name), 0.5) else PARTS[0]
        counts[part] += 1
        link = out / "images" / part / image.name
        if link.is_symlink() or link.exists():
            link.unlink()
        os.symlink(image.resolve(), link)
        text = label.read_text(encoding="utf-8") if label.is_file() else ""
        mine = by_image.get(image.name, [])
        if mine:
            frame = cv2.imread(str(image))
            if frame is None:
                raise ValueError(f"{image}: no se puede leer como imagen")
            text, done = fixed_labels(text, frame.shape[1], frame.shape[0], mine)
            applied += done
        (out / "labels" / part / label.name).write_text(text, encoding="utf-8")
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
