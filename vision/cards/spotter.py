"""The spotter's training folder: where the corner indices are, seen on a copy of the still reduced threefold.

    python -m vision.cards.spotter --out data/cards/spot --synth DIR... --index data/cards/index [--seed 0]
        [--grids 2,3]

The reader finds the indices of a whole still on a reduced copy (long side `vision.cards.reader.SPOT_SIZE`: a
4608x2592 still becomes 1536x864, an index 13-20 px tall), then reads each one at full resolution. The spotter
(`spotter.pt`, two classes as the finder: `index`, `BACK`) learns that scale from rendered windows of the still
(e.g. 1920x1920) reduced to a long side of 640, and from the index folder's real photos reduced twofold (2x2 to a
picture) and threefold (3x3).
Validation: the real validation photos, reduced the same way, and one rendered window in ten.

`--grids 1,2` builds the finder's folder the same way at twice the scale: rendered windows of 640 px (as they are)
and of 1280 px (halved), the real photos as they are and halved, so the finder learns indices of 20-60 px (a phone
photo's are 20-30 px tall at 640, the camera's 40-60 px).
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from pathlib import Path

import cv2
import numpy as np

from vision import labels as yolo
from vision.cards.dataset import BACK_CLASS, FINDER_NAMES, synth_rows, write_yaml

TRAIN_SIDE = 640  # the spotter's training pictures: a rendered window reduced to this long side
VAL_EVERY = 10  # one rendered window in ten is validation
GRIDS = (2, 3)  # real photos reduced twofold in 2x2 pictures, threefold in 3x3 (1: as they are)


def _finder_rows(rows: Sequence[str]) -> list[str]:
    """Label rows with the finder's two classes: 0 an index, 1 a card's back."""
    out = []
    for row in rows:
        parts = row.split()
        if parts:
            out.append(" ".join(["1" if int(parts[0]) == BACK_CLASS else "0", *parts[1:5]]))
    return out


def _write(out: Path, split: str, name: str, image: np.ndarray, rows: Sequence[str]) -> None:
    (out / "images" / split).mkdir(parents=True, exist_ok=True)
    (out / "labels" / split).mkdir(parents=True, exist_ok=True)
    cv2.imwrite(str(out / "images" / split / f"{name}.jpg"), image, [cv2.IMWRITE_JPEG_QUALITY, 90])
    (out / "labels" / split / f"{name}.txt").write_text("".join(f"{r}\n" for r in rows))


def add_rendered(synth: Path, out: Path) -> dict[str, int]:
    """Each rendered window reduced to a long side of TRAIN_SIDE (the labels are relative: they hold); per split."""
    counts = {"train": 0, "val": 0}
    for i, meta_path in enumerate(sorted(synth.rglob("meta/**/*.json"))):
        image_path, rows = synth_rows(synth, meta_path)
        image = cv2.imread(str(image_path))
        if image is None:
            raise ValueError(f"no se puede leer la imagen {image_path}")
        height, width = image.shape[:2]
        scale = TRAIN_SIDE / max(height, width)
        small = cv2.resize(image, (round(width * scale), round(height * scale)), interpolation=cv2.INTER_AREA)
        split = "val" if i % VAL_EVERY == VAL_EVERY - 1 else "train"
        _write(out, split, f"synth-{synth.name}-{image_path.stem}", small, _finder_rows(rows))
        counts[split] += 1
    return counts


def mosaic(pictures: Sequence[tuple[np.ndarray, list[str]]], grid: int, side: int) -> tuple[np.ndarray, list[str]]:
    """Up to grid x grid pictures, each reduced to side/grid square, in one side x side picture, labels moved."""
    cell = side // grid
    canvas = np.zeros((cell * grid, cell * grid, 3), np.uint8)
    rows = []
    for k, (image, labels) in enumerate(pictures[: grid * grid]):
        r, c = divmod(k, grid)
        height, width = image.shape[:2]
        scale = cell / max(height, width)
        small = cv2.resize(image, (round(width * scale), round(height * scale)), interpolation=cv2.INTER_AREA)
        canvas[r * cell : r * cell + small.shape[0], c * cell : c * cell + small.shape[1]] = small
        for row in labels:
            cls, cx, cy, bw, bh = row.split()[:5]
            x = (c * cell + float(cx) * width * scale) / canvas.shape[1]
            y = (r * cell + float(cy) * height * scale) / canvas.shape[0]
            w = float(bw) * width * scale / canvas.shape[1]
            h = float(bh) * height * scale / canvas.shape[0]
            rows.append(yolo.row(cls, x, y, w, h))
    return canvas, rows


def add_real(index: Path, out: Path, seed: int = 0, grids: Sequence[int] = GRIDS) -> dict[str, int]:
    """The index folder's real photos (`real-*`), each split kept, in grid x grid mosaics (reduced so) per grid."""
    counts = {"train": 0, "val": 0}
    rng = np.random.default_rng(seed)
    for split in ("train", "val"):
        photos = sorted((index / "images" / split).glob("real-*"))
        pictures = []
        for photo in photos:
            image = cv2.imread(str(photo))
            label = index / "labels" / split / (photo.stem + ".txt")
            if image is None or not label.exists():
                continue
            pictures.append((image, _finder_rows(label.read_text().splitlines())))
        for grid in grids:
            order = rng.permutation(len(pictures))
            for start in range(0, len(order), grid * grid):
                chosen = [pictures[i] for i in order[start : start + grid * grid]]
                picture, rows = mosaic(chosen, grid, TRAIN_SIDE)
                _write(out, split, f"real-{grid}x{grid}-{start // (grid * grid):04d}", picture, rows)
                counts[split] += 1
    return counts


def main(argv: list[str] | None = None) -> int:
    """Build the folder and say what is in it."""
    parser = argparse.ArgumentParser(prog="python -m vision.cards.spotter", description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--synth", type=Path, action="append", default=[], help="ventanas de vision.cards.synth")
    parser.add_argument("--index", type=Path, default=None, help="carpeta de vision.cards.dataset (fotos real-*)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--grids", default=",".join(map(str, GRIDS)), help="fotos reales de N x N por imagen, p. ej. 1,2 (2,3)"
    )
    args = parser.parse_args(argv)
    try:
        grids = sorted({int(g) for g in args.grids.split(",")})
    except ValueError:
        raise SystemExit(f"--grids: números enteros separados por comas, no {args.grids!r}") from None
    if not grids or grids[0] < 1 or grids[-1] > 4:
        raise SystemExit(f"--grids: cada número entre 1 y 4, no {args.grids!r}")
    for folder in [*args.synth, *([args.index] if args.index else [])]:
        if not folder.is_dir():
            raise SystemExit(f"no existe la carpeta {folder}")
    if not args.synth and not args.index:
        raise SystemExit("falta al menos una carpeta: --synth o --index")
    report: dict[str, object] = {}
    try:
        for synth in args.synth:
            report[synth.name] = add_rendered(synth, args.out)
        if args.index:
            report["real"] = add_real(args.index, args.out, args.seed, grids)
    except ValueError as error:
        raise SystemExit(str(error)) from None
    write_yaml(args.out, FINDER_NAMES)
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
