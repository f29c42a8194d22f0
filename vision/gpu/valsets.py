"""`python -m vision.gpu valsets OUT`: each real set's validation part as a YOLO folder of links, for `cacho vision
eval OUT/<set>` and `cacho vision finder OUT/<set>` to compare a loan's finder with the shipped one."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from vision.faces import realsets


def write(root: Path, out: Path) -> dict[str, int]:
    """Link the val photos and labels of every set whose boxes enclose the dice into `out/<set>/`; photos per set."""
    counts = {}
    for rs in realsets.real_sets(root):
        if rs.pad:  # boxes round the pip pattern only: no finder is measured on them
            continue
        folder = out / rs.name
        for sub in ("images", "labels"):
            (folder / sub).mkdir(parents=True, exist_ok=True)
        photos = realsets.photos(rs, root, "val")
        for image in photos:
            label = realsets._label_path(image)
            links = ((image, folder / "images" / image.name), (label, folder / "labels" / f"{image.stem}.txt"))
            for source, link in links:
                if link.is_symlink() or link.exists():
                    link.unlink()
                if source.exists():
                    os.symlink(source.resolve(), link)
        counts[rs.name] = len(photos)
    return counts


def main(argv: list[str] | None = None) -> int:
    """Write the folders and say how to read each."""
    p = argparse.ArgumentParser(prog="python -m vision.gpu valsets", description=__doc__)
    p.add_argument("out", type=Path, help="carpeta de salida (p. ej. runs/gpu/val)")
    p.add_argument("--data-root", type=Path, default=realsets.DATA_ROOT, help="datos reales (../shared/data)")
    args = p.parse_args(argv)
    if not args.data_root.is_dir():
        print(f"no existe la carpeta de datos {args.data_root}", file=sys.stderr)
        return 1
    for name, count in write(args.data_root, args.out).items():
        upright = " --upright" if realsets.real_set(name).upright else ""
        print(f"{name}: {count} fotos · cacho vision eval {args.out / name}{upright} --models CARPETA")
    return 0


if __name__ == "__main__":
    sys.exit(main())
