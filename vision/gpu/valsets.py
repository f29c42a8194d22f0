"""`python -m vision.gpu valsets OUT [--fixes FILE]`: each real set's validation part as a YOLO folder (links to the
photos, labels with the dice the set labels wrong corrected, as `vision.faces.halves` corrects them), for `cacho
vision eval OUT/<set>` and `cacho vision finder OUT/<set>` to compare a loan's finder with the shipped one."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from vision.faces import realsets
from vision.faces.halves import FIXES, fixed_label, place, read_fixes
from vision.relabel import Relabel, by_image


def write(root: Path, out: Path, fixes: list[Relabel] | None = None) -> dict[str, int]:
    """Write the val photos (links) and labels (corrected by `fixes`) of every set whose boxes enclose the dice
    into `out/<set>/`; photos per set."""
    fixes_of = by_image(fixes or [])
    planned = []  # every label first, as the halves: a photo a fix cannot read stops it before anything is written
    counts: dict[str, int] = {}
    for rs in realsets.real_sets(root):
        if rs.pad:  # boxes round the pip pattern only: no finder is measured on them
            continue
        photos = realsets.photos(rs, root, "val")
        planned += [(rs.name, p, fixed_label(p, realsets.label_path(p), fixes_of)[0]) for p in photos]
        counts[rs.name] = len(photos)
    for name in counts:
        for sub in ("images", "labels"):
            (out / name / sub).mkdir(parents=True, exist_ok=True)
    for name, image, text in planned:
        place(image, text, out / name / "images", out / name / "labels" / f"{image.stem}.txt")
    return counts


def main(argv: list[str] | None = None) -> int:
    """Write the folders and say how to read each."""
    p = argparse.ArgumentParser(prog="python -m vision.gpu valsets", description=__doc__)
    p.add_argument("out", type=Path, help="carpeta de salida (p. ej. runs/gpu/val)")
    p.add_argument("--data-root", type=Path, default=realsets.DATA_ROOT, help="datos reales (../shared/data)")
    p.add_argument("--fixes", type=Path, default=FIXES, help="dados mal etiquetados (models/faces/relabelled_dice.txt)")
    args = p.parse_args(argv)
    if not args.data_root.is_dir():
        print(f"no existe la carpeta de datos {args.data_root}", file=sys.stderr)
        return 1
    try:
        fixes = read_fixes(args.fixes)
    except (OSError, ValueError) as error:
        print(f"no puedo leer las correcciones: {error}", file=sys.stderr)
        return 1
    try:
        counts = write(args.data_root, args.out, fixes)
    except ValueError as error:  # a photo a fix names that cannot be read: nothing was written
        print(f"no puedo corregir las etiquetas: {error}", file=sys.stderr)
        return 1
    for name, count in counts.items():
        upright = " --upright" if realsets.real_set(name).upright else ""
        print(f"{name}: {count} fotos · cacho vision eval {args.out / name}{upright} --models CARPETA")
    return 0


if __name__ == "__main__":
    sys.exit(main())
